"""Reductions (sum, mean, max/min, amax/amin, prod, logsumexp, var/std, norm, all/any,
count_nonzero, median, cumsum/cumprod) against real Paddle, and the rules behind them.

The probe scripts in ``tests/data/reduce_search/probes`` print values, gradients and error types;
their output under ``--paddle 3`` and ``--paddle 2.6`` must equal what Paddle 3.3.1 and 2.6.2
printed (``expected/``). The other tests pin down rules one at a time: dtypes of integer
reductions, the tie rule of max/min per profile, the 2.2 profile's ``[1]`` full reductions, the
one-node graph, the errors.
"""
from __future__ import annotations

import contextlib
import io
import os
from pathlib import Path

import numpy as np
import pytest

import gradrepl.paddle as paddle
from gradrepl.engine.ops import reduce as R
from gradrepl.paddle import profiles
from gradrepl.runner import run_script

from conftest import reset_gradrepl_state

DATA = Path(__file__).parent / "data" / "reduce_search"
VERSIONS = {"3.3.1": "3", "2.6.2": "2.6"}
PROBES = ["reduce_values", "reduce_grads", "norms", "nan_reductions", "more_reductions"]


def run_probe(name, version):
    reset_gradrepl_state(VERSIONS[version])
    buf = io.StringIO()
    cwd = os.getcwd()
    try:
        with contextlib.redirect_stdout(buf):
            run_script(str(DATA / "probes" / f"{name}.py"), profile=VERSIONS[version])
    finally:
        os.chdir(cwd)
    return buf.getvalue()


def assert_same_lines(got, expected):
    for i, (g, e) in enumerate(zip(got.splitlines(), expected.splitlines())):
        assert g == e, f"line {i + 1}: got {g!r}, Paddle printed {e!r}"
    assert got == expected


@pytest.mark.parametrize("version", list(VERSIONS))
@pytest.mark.parametrize("name", PROBES)
def test_probe_matches_paddle(name, version):
    expected = (DATA / "expected" / version / f"{name}.out").read_text()
    assert_same_lines(run_probe(name, version), expected)


def t(data, dtype=None, grad=False):
    return paddle.to_tensor(data, dtype=dtype, stop_gradient=not grad)


# ------------------------------------------------------------------ dtype rules (case 067)
@pytest.mark.parametrize("profile", ["2.2", "2.6", "3"])
def test_integer_reduction_dtypes(profile):
    profiles.set_profile(profile)
    assert t([1, 2]).mean().dtype == paddle.int64 and t([1, 2]).mean().item() == 1
    assert t([-1, -2]).mean().item() == -1                       # truncates toward zero
    assert t([1, 2], "int32").sum().dtype == paddle.int64
    assert t([True, False, True]).sum().dtype == paddle.int64
    assert t([1, 2], "int8").sum().dtype == paddle.int8          # only bool/int32 widen
    assert t([3, 4], "int32").prod().dtype == paddle.int32
    assert t([[1, 5], [7, 2]]).max(axis=0).tolist() == [7, 5]
    assert t([1, 2]).sum(dtype="float32").dtype == paddle.float32
    assert t([True, False]).mean().dtype == paddle.bool


def test_full_reduction_shapes_per_profile():
    x = t([[1.0, 2.0], [3.0, 4.0]])
    profiles.set_profile("2.2")
    assert x.sum().shape == [1] and x.max().shape == [1] and paddle.argmax(x).shape == [1]
    assert paddle.linalg.norm(x).shape == [1] and x.sum(keepdim=True).shape == [1, 1]
    profiles.set_profile("3")
    assert list(x.sum().shape) == [] and list(x.mean(axis=[0, 1]).shape) == []


def test_full_reduction_is_one_node_in_2_2():
    profiles.set_profile("2.2")
    x = t([[1.0, 2.0], [3.0, 4.0]], grad=True)
    s = x.sum()
    assert s.shape == [1]
    node = s.grad_node
    assert node.op.name == "sum" and node.next_edges[0][0] is x.accumulate_node()


# ------------------------------------------------------------------ gradients
@pytest.mark.parametrize("profile,expected", [("3", [[0.0, 0.5, 0.5], [0.5, 0.0, 0.5]]),
                                              ("2.6", [[0.0, 1.0, 1.0], [1.0, 0.0, 1.0]]),
                                              ("2.2", [[0.0, 1.0, 1.0], [1.0, 0.0, 1.0]])])
def test_min_tie_gradient_per_profile(profile, expected):
    profiles.set_profile(profile)
    x = t([[4.0, 1.0, 1.0], [0.5, 2.0, 0.5]], grad=True)
    x.min(axis=1).sum().backward()
    assert x.grad.tolist() == expected


@pytest.mark.parametrize("profile", ["2.6", "3"])
def test_amax_always_splits_ties(profile):
    profiles.set_profile(profile)
    x = t([1.0, 3.0, 3.0], grad=True)
    paddle.amax(x).backward()
    assert x.grad.tolist() == [0.0, 0.5, 0.5]


def test_prod_gradient_is_out_over_x():
    y = t([[1.0, 2.0], [3.0, 0.0]], grad=True)
    y.prod(axis=1).sum().backward()
    g = y.grad.numpy()
    assert g[0].tolist() == [2.0, 1.0] and g[1, 0] == 0.0 and np.isnan(g[1, 1])


def test_norm_gradient_rounds_like_paddle():
    x = t([3.0, 4.0], grad=True)
    paddle.linalg.norm(x).backward()
    assert x.grad.numpy().tolist() == [np.float32(0.6), np.float32(0.8)]


def test_second_order_through_logsumexp_and_var():
    x = t([0.1, 0.7, 0.3], "float64", grad=True)
    (g,) = paddle.grad(paddle.logsumexp(x), x, create_graph=True)
    (h,) = paddle.grad(g.sum() * 0 + (g * g).sum(), x)
    p = np.exp(x.numpy()) / np.exp(x.numpy()).sum()
    # d/dx sum(p^2) = 2 p * (p - sum(p^2))
    assert np.allclose(h.numpy(), 2 * p * (p - (p * p).sum()))
    v = paddle.var(x)
    (gv,) = paddle.grad(v, x, create_graph=True)
    (hv,) = paddle.grad(gv.sum(), x)
    assert np.allclose(hv.numpy(), 0.0)


def test_cumprod_gradient_with_zeros_is_exact():
    x = t([0.1, 0.0, 0.3, 1.3], grad=True)
    (paddle.cumprod(x, dim=0) * t([1.0, 2.0, 3.0, 4.0])).sum().backward()
    assert x.grad.tolist() == [1.0, np.float32(0.44600004), 0.0, 0.0]


# ------------------------------------------------------------------ errors
@pytest.mark.parametrize("profile", ["2.6", "3"])
def test_axis_errors(profile):
    profiles.set_profile(profile)
    x = t([[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(ValueError, match="reduce dim index"):
        x.sum(axis=2)
    with pytest.raises(ValueError, match="0D Tensor"):
        t(1.0).sum(axis=1)
    with pytest.raises(IndexError, match="out of range"):
        paddle.cumsum(x, axis=2)
    err = TypeError if profile == "3" else ValueError
    with pytest.raises(err, match="argument"):
        x.sum(axis=1.5)


def test_duplicate_axes_rejected():
    profiles.set_profile("3")
    with pytest.raises(ValueError, match="duplicate"):
        t([[1.0, 2.0]]).sum(axis=[1, -1])


def test_unsupported_dtype_is_a_kernel_error():
    with pytest.raises(RuntimeError, match="not registered"):
        t([True]).max()
    with pytest.raises(RuntimeError, match="not registered"):
        t([1, 2], "int16").mean()


def test_empty_reductions_per_profile():
    e = paddle.zeros([0, 3])
    profiles.set_profile("3")
    assert e.sum().item() == 0.0 and np.isnan(e.mean().item())
    assert e.prod(axis=0).tolist() == [1.0, 1.0, 1.0]
    with pytest.raises(ValueError, match="size of 0"):
        e.max()
    profiles.set_profile("2.6")
    with pytest.raises(ValueError, match="must not empty"):
        e.sum()


# ------------------------------------------------------------------ engine-level
def test_engine_ops_are_registered_with_metadata():
    from gradrepl.engine import OPS

    for name in ["sum", "mean", "max", "min", "amax", "amin", "prod", "logsumexp", "p_norm",
                 "frobenius_norm", "cumsum", "cumprod", "median", "singular_values"]:
        op = OPS[name]
        assert op.examples and op.legacy_name, name


def test_fold_past_nan_matches_paddle_2():
    a = np.array([3.0, np.nan, 1.0, 2.0], np.float32)
    x = paddle.Tensor(a)
    assert R.extreme("max", x, (0,), nan="fold").item() == 2.0
    assert np.isnan(R.extreme("max", x, (0,), nan="propagate").item())
    b = paddle.Tensor(np.array([1.0, 3.0, np.nan], np.float32))
    assert np.isnan(R.extreme("min", b, (0,), nan="fold").item())


def test_matrix_norms_of_paddle_3():
    profiles.set_profile("3")
    m = t([[3.0, 1.0, 3.0], [2.0, 5.0, 5.0]], grad=True)
    sv = np.linalg.svd(m.numpy().astype(np.float64), compute_uv=False)
    assert np.isclose(paddle.linalg.norm(m, axis=[0, 1]).item(), sv[0], rtol=1e-6)   # p=None -> 2
    assert np.isclose(paddle.linalg.norm(m, p="nuc", axis=[0, 1]).item(), sv.sum(), rtol=1e-6)
    assert paddle.linalg.norm(m, p=1, axis=[0, 1]).item() == 8.0        # max column abs sum
    assert paddle.linalg.norm(m, p=float("inf"), axis=[0, 1]).item() == 12.0
    paddle.linalg.norm(m, p=2, axis=[0, 1]).backward()
    u, s, vt = np.linalg.svd(m.numpy().astype(np.float64))
    assert np.allclose(m.grad.numpy(), np.outer(u[:, 0], vt[0]), atol=1e-6)
    profiles.set_profile("2.6")                                          # a vector norm there
    assert np.isclose(paddle.linalg.norm(m.detach(), p=2, axis=[0, 1]).item(), np.sqrt(73.0))


# ------------------------------------------------------------------ summation order
ORDER = DATA / "sum_order.npz"   # inputs and Paddle 3.3.1's results (2.6.2 gives the same bits)


def test_sums_and_means_round_like_paddle():
    d = np.load(ORDER)
    for key in ["(6,7)", "(50,37)", "(2,3,129)", "(257,)", "9000", "16385"]:
        a = d[f"{key}|data"]
        if key.isdigit():                                     # long: the sum splits in a tree
            assert np.array_equal(R.paddle_reduce(a, (0,), False), d[f"{key}|all"])
            assert np.array_equal(R.paddle_reduce(a, (0,), False, mean=True), d[f"{key}|mean"])
            b = a[:a.size - a.size % 5].reshape(5, -1)
            assert np.array_equal(R.paddle_reduce(b, (0, 1), False), d[f"{key}|2d"])
            assert np.array_equal(R.paddle_reduce(b, (1,), False), d[f"{key}|2dax1"])
            continue
        every = tuple(range(a.ndim))
        assert np.array_equal(R.paddle_reduce(a, every, False), d[f"{key}|all"]), key
        assert np.array_equal(R.paddle_reduce(a, every, False, mean=True), d[f"{key}|mean"]), key
        for ax in range(a.ndim):
            assert np.array_equal(R.paddle_reduce(a, (ax,), False), d[f"{key}|{ax}"]), (key, ax)
            assert np.array_equal(R.paddle_reduce(a, (ax,), False, mean=True), d[f"{key}|m{ax}"])


def test_multi_axis_prod_and_float64_orders():
    d = np.load(ORDER)
    a3 = d["a3"]
    for key, axes in [("a3_02", (0, 2)), ("a3_12", (1, 2)), ("a3_01", (0, 1))]:
        assert np.array_equal(R.paddle_reduce(a3, axes, False), d[key]), key
    assert np.array_equal(R.paddle_reduce(a3, (0, 2), False, mean=True), d["a3m_02"])
    p = (1 + a3 * 0.01).astype(np.float32)
    assert np.array_equal(R.paddle_reduce(p, (1,), False, np.multiply), d["a3prod_1"])
    for n in (40, 100):
        assert R.paddle_reduce(d[f"prodd{n}"], (0,), False, np.multiply) == d[f"prod{n}"]
    assert R.paddle_reduce(d["f64d100"], (0,), False) == d["f64sum100"]
    assert R.paddle_reduce(d["f64d100"], (0,), False, mean=True) == d["f64mean100"]


def test_logsumexp_and_frobenius_round_like_paddle():
    d = np.load(ORDER)
    profiles.set_profile("3")
    m2 = paddle.to_tensor(d["m2"])
    assert np.array_equal(paddle.logsumexp(m2).numpy(), d["m2lse"])
    assert np.array_equal(paddle.logsumexp(m2, axis=1).numpy(), d["m2lse1"])
    assert np.array_equal(paddle.linalg.norm(m2, p="fro", axis=[0, 1]).numpy(), d["m2fro"])
