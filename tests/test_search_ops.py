"""Search and sort ops (argmax/argmin, topk, sort/argsort, kthvalue, mode, where, nonzero,
masked_fill, searchsorted, unique) against real Paddle, and the C++ tie order behind them.

The probe scripts ``sort_search`` and ``where_nonzero`` (``tests/data/reduce_search``) must print
under ``--paddle 3`` / ``--paddle 2.6`` exactly what Paddle 3.3.1 / 2.6.2 printed. The libstdc++
algorithms of ``engine/ops/search.py`` are also checked on their own: they must sort, select
and partially sort correctly for any input, and reproduce the tie orders Paddle showed.
"""
from __future__ import annotations

import random

import numpy as np
import pytest

import gradrepl.paddle as paddle
from gradrepl.engine.ops import search as S
from gradrepl.paddle import profiles

from test_reduce_ops import DATA, VERSIONS, assert_same_lines, run_probe


@pytest.mark.parametrize("version", list(VERSIONS))
@pytest.mark.parametrize("name", ["sort_search", "where_nonzero"])
def test_probe_matches_paddle(name, version):
    expected = (DATA / "expected" / version / f"{name}.out").read_text()
    assert_same_lines(run_probe(name, version), expected)


def t(data, dtype=None, grad=False):
    return paddle.to_tensor(data, dtype=dtype, stop_gradient=not grad)


# ------------------------------------------------------------------ libstdc++ algorithms
def _less(a, b):
    return a[0] < b[0]


@pytest.mark.parametrize("seed", range(20))
def test_std_algorithms_are_correct(seed):
    rng = random.Random(seed)
    n = rng.randint(1, 120)
    vals = [(rng.randint(0, 5), i) for i in range(n)]
    a = list(vals)
    S.std_sort(a, 0, n, _less)
    assert [v for v, _ in a] == sorted(v for v, _ in vals) and sorted(a) == sorted(vals)
    k = rng.randint(1, n)
    b = list(vals)
    S.std_partial_sort(b, 0, k, n, _less)
    assert [v for v, _ in b[:k]] == sorted(v for v, _ in vals)[:k]
    c = list(vals)
    S.std_nth_element(c, 0, k - 1, n, _less)
    kth = c[k - 1][0]
    assert kth == sorted(v for v, _ in vals)[k - 1]
    assert all(v <= kth for v, _ in c[:k - 1]) and all(v >= kth for v, _ in c[k:])


def test_tie_orders_measured_on_paddle():
    row = np.array([1.0] * 20 + [0.0] * 20, np.float32)
    assert S._sort_row(row, False, False).tolist() == (
        [30] + list(range(21, 30)) + [20] + list(range(31, 40)) + [10] + list(range(1, 10))
        + [0] + list(range(11, 20)))
    assert S._topk_row(np.array([2.0, 1.0, 1.0, 2.0, 2.0]), 4, True, True).tolist() == [0, 3, 4, 2]
    assert S._topk_row(np.array([1.0, 4, 2, 5, 3]), 3, True, False).tolist() == [3, 1, 4]
    assert S._kth_row(np.array([3.0, 1.0, 2.0, 1.0]), 2) == 3
    assert S._mode_row(np.array([3.0, 1.0, 2.0, 1.0, 3.0])) == 3


# ------------------------------------------------------------------ API rules
@pytest.mark.parametrize("profile,kind", [("3", "TopKRetType"), ("2.6", "tuple"),
                                          ("2.2", "tuple")])
def test_topk_return_type(profile, kind):
    profiles.set_profile(profile)
    res = paddle.topk(t([1.0, 3.0, 3.0, 2.0]), 2)
    assert type(res).__name__ == kind
    values, indices = res
    assert values.tolist() == [3.0, 3.0] and indices.tolist() == [1, 2]
    assert indices.dtype == paddle.int64


def test_topk_gradient_and_index_flags():
    x = t([[3.0, 1.0, 3.0], [2.0, 5.0, 5.0]], grad=True)
    values, indices = paddle.topk(x, 2)
    assert not values.stop_gradient and not indices.stop_gradient  # as Paddle shows
    (values * t([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
    assert x.grad.tolist() == [[1.0, 0.0, 2.0], [0.0, 3.0, 4.0]]


def test_sort_backward_scatters():
    x = t([3.0, 1.0, 2.0], grad=True)
    (paddle.sort(x, descending=True) * t([1.0, 2.0, 3.0])).sum().backward()
    assert x.grad.tolist() == [1.0, 3.0, 2.0]


def test_argmax_rules():
    x = t([[3.0, 1.0, 3.0], [2.0, 5.0, 5.0]])
    assert paddle.argmax(x).item() == 4 and paddle.argmax(x, axis=1).tolist() == [0, 1]
    assert paddle.argmax(x, keepdim=True).shape == [1, 1]
    assert paddle.argmax(x, axis=0, dtype="int32").dtype == paddle.int32
    assert paddle.argmax(t([1.0, float("nan"), 3.0])).item() == 2   # NaN is skipped
    with pytest.raises(ValueError, match="int32"):
        paddle.argmax(x, dtype="float32")
    with pytest.raises(ValueError, match="less than Rank"):
        paddle.argmax(x, axis=2)


@pytest.mark.parametrize("profile,negative_zero", [("3", False), ("2.6", True)])
def test_where_gradients_zero_sign_per_profile(profile, negative_zero):
    """3.x selects (cond ? dout : 0 gives +0); 2.x multiplies by the mask (-1 * 0 gives -0)."""
    profiles.set_profile(profile)
    x = t([1.0, -2.0, 3.0, -4.0], grad=True)
    y = t([10.0, 20.0, 30.0, 40.0], grad=True)
    c = paddle.to_tensor([True, False, True, False])
    z = paddle.where(c, x, y)
    (z * t([-1.0, -1.0, -1.0, -1.0])).sum().backward()
    assert x.grad.tolist() == [-1.0, 0.0, -1.0, 0.0]
    assert bool(np.signbit(x.grad.numpy()[1])) == negative_zero


@pytest.mark.parametrize("profile,dtype,shape", [("3", paddle.float32, [4]),
                                                 ("2.6", paddle.float64, [4])])
def test_where_python_scalars(profile, dtype, shape):
    profiles.set_profile(profile)
    c = paddle.to_tensor([True, False, True, False])
    out = paddle.where(c, 1.0, 0.0)
    assert out.dtype == dtype and out.shape == shape and out.tolist() == [1.0, 0.0, 1.0, 0.0]


def test_where_mixed_int_float_errors():
    c = paddle.to_tensor([True, False])
    profiles.set_profile("3")
    with pytest.raises(TypeError):
        paddle.where(c, t([1, 2]), t([1.0, 2.0]))
    profiles.set_profile("2.6")
    with pytest.raises(ValueError):
        paddle.where(c, t([1, 2]), t([1.0, 2.0]))


@pytest.mark.parametrize("profile,shape", [("3", [2]), ("2.6", [2, 1])])
def test_nonzero_as_tuple_shapes(profile, shape):
    profiles.set_profile(profile)
    m = paddle.to_tensor([[1.0, 0.0], [0.0, 2.0]])
    rows, cols = paddle.nonzero(m, as_tuple=True)
    assert rows.shape == shape and cols.shape == shape
    assert paddle.nonzero(m).tolist() == [[0, 0], [1, 1]]
    (only,) = paddle.where(paddle.to_tensor([True, False, True]))
    assert only.numpy().reshape(-1).tolist() == [0, 2]


@pytest.mark.parametrize("profile,value_grad", [("3", 0.0), ("2.6", 4.0)])
def test_masked_fill_value_gradient(profile, value_grad):
    profiles.set_profile(profile)
    x = t([1.0, -2.0, 3.0, -4.0], grad=True)
    v = t(2.0, grad=True)
    m = paddle.masked_fill(x, paddle.to_tensor([True, False, True, False]), v)
    (m * t([1.0, 2.0, 3.0, 4.0])).sum().backward()
    assert m.tolist() == [2.0, -2.0, 2.0, -4.0]
    assert x.grad.tolist() == [0.0, 2.0, 0.0, 4.0]
    assert v.grad.item() == value_grad
