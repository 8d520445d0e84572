"""The blocked in-place Adam kernel against the whole-array formulas it replaces, bit for bit."""
import numpy as np
import pytest

import gradrepl.paddle as paddle
from gradrepl.paddle.optimizer import kernels
from gradrepl.paddle.optimizer.adam import adam_step_sizes


def _fma(a, b, c):
    c = np.asarray(c)
    if c.dtype.itemsize >= 8:
        return a * b + c
    return (np.asarray(a, np.float64) * np.asarray(b, np.float64) + c.astype(np.float64)).astype(c.dtype)


def _reference(p, g, m, v, vmax, dt, beta1, beta2, neg_lr, eps_t, decay):
    one = np.asarray(1, dt)
    b1, b2 = np.asarray(beta1, dt), np.asarray(beta2, dt)
    if decay is not None:
        p = _fma(-np.asarray(decay, dt), p, p)
    m = _fma(b1, m, (one - b1) * g)
    v = _fma(b2, v, (one - b2) * (g * g))
    if vmax is not None:
        vmax = np.maximum(vmax, v)
    p = _fma(m / (np.sqrt(v if vmax is None else vmax) + eps_t), neg_lr, p)
    return p, m, v, vmax


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("amsgrad", [False, True])
@pytest.mark.parametrize("decay", [None, np.float32(1e-5)])
@pytest.mark.parametrize("n", [1, 7, 100])
def test_adam_kernel_matches_whole_array_formulas(monkeypatch, dt, amsgrad, decay, n):
    monkeypatch.setattr(kernels, "BLOCK", 16)  # several blocks and a ragged last one
    rng = np.random.default_rng(n)
    p = rng.standard_normal((n, 3)).astype(dt)
    m = rng.standard_normal((n, 3)).astype(dt) * dt(0.1)
    v = np.abs(rng.standard_normal((n, 3))).astype(dt) * dt(0.01)
    vmax = v * dt(1.5) if amsgrad else None
    neg_lr, eps_t = adam_step_sizes(np.asarray(0.001, dt), np.asarray(0.9 ** 3, dt),
                                    np.asarray(0.999 ** 3, dt), 1e-8, dt)
    want = (p, m, v, vmax)
    got = tuple(None if a is None else a.copy() for a in want)
    for _ in range(3):
        g = rng.standard_normal((n, 3)).astype(dt)
        want = _reference(*want[:1], g, *want[1:], dt, 0.9, 0.999, neg_lr, eps_t, decay)
        c = kernels.AdamConstants(dt, 0.9, 0.999, neg_lr, eps_t, decay)
        kernels.adam_update(got[0], g, got[1], got[2], c, got[3])
        for a, b in zip(got, want):
            assert (a is None) == (b is None)
            assert a is None or a.tobytes() == b.tobytes()


def test_adam_updates_the_parameter_array_in_place_after_the_first_step():
    lin = paddle.nn.Linear(3, 2)
    opt = paddle.optimizer.Adam(parameters=lin.parameters())
    arrays = []
    for _ in range(3):
        lin(paddle.ones([4, 3])).sum().backward()
        opt.step()
        opt.clear_grad()
        arrays.append(lin.weight.data)
    # the first step copies (the optimizer owns that copy), later steps write into it
    assert arrays[1] is arrays[0] and arrays[2] is arrays[0]
    before = lin.weight.numpy()
    lin(paddle.ones([4, 3])).sum().backward()
    opt.step()
    assert not np.array_equal(before, lin.weight.numpy())  # numpy() was a copy


def test_adam_does_not_write_into_an_array_it_did_not_make():
    lin = paddle.nn.Linear(2, 2)
    shared = np.ones((2, 2), np.float32)
    lin.weight.data = shared
    opt = paddle.optimizer.Adam(parameters=lin.parameters())
    lin(paddle.ones([1, 2])).sum().backward()
    opt.step()
    assert (shared == 1).all()
    assert lin.weight.data is not shared


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("n", [1, 50, 1000])
def test_sgd_kernel_rounds_once_like_the_fused_formula(monkeypatch, dt, n):
    monkeypatch.setattr(kernels, "BLOCK", 64)
    rng = np.random.default_rng(n)
    p = rng.standard_normal(n).astype(dt)
    g = rng.standard_normal(n).astype(dt)
    lr = np.asarray(0.1, dt)
    # real Paddle (tests/test_paddle_sgd_kernels.py): float32 widths that are multiples of 8 take
    # the JIT code (product rounded); other widths MKL's saxpy, fused on Intel; float64 MKL's
    # daxpy, fused on Intel AVX-512 where MKL is loaded, else the plain formula
    from fractions import Fraction

    from gradrepl.engine import cpu, mkl
    from gradrepl.engine.ops.nn import _mkl_is_this_cpu

    if dt == np.float32 and n % 8:
        want = (p.astype(np.float64) - lr.astype(np.float64) * g.astype(np.float64)).astype(dt)
        unfused = p - lr * g
        assert n < 50 or unfused.tobytes() != want.tobytes()  # the test can tell them apart
    elif dt == np.float64 and cpu.detected() == "intel-avx512" and _mkl_is_this_cpu() \
            and mkl.load():
        want = np.array([float(Fraction(float(a)) - Fraction(float(lr)) * Fraction(float(b)))
                         for a, b in zip(p, g)])
    else:
        want = p - lr * g
    kernels.sgd_update(p, g, lr)
    assert p.tobytes() == want.tobytes()
