"""Paddle's SGD kernel per width and dtype, and the optimizer's learning-rate dtype
(gradrepl/paddle/optimizer/kernels.py sgd_update, optimizer.py _lr_dtype).

Recorded from real Paddle 3.3.1 and 2.6.2 (equal) on this project's Intel AVX-512 machine
(2026-12-07): one SGD step, lr=0.3, of a parameter p0 with gradient g, both drawn in that order
from ``np.random.RandomState(n).randn(n)`` in the dtype; sha256 of the result, first 16 digits.
A float32 width that is a multiple of 8 takes Paddle's JIT code (product rounded, then
subtracted), the other widths MKL's saxpy (fused on AVX-512); float64 is MKL's daxpy throughout.
"""
from __future__ import annotations

import hashlib

import numpy as np
import pytest

_STEP = [("float32", 8, "980fa6c54165c88a"), ("float32", 20, "c15019e4d80e553f"),
         ("float32", 40, "333e6127cf41d441"), ("float32", 60, "12a31b2ad2e960fd"),
         ("float32", 1024, "16d6c3f1aaf6b606"), ("float64", 7, "8bf8924c3a5d394e"),
         ("float64", 40, "a545ac79ba766614")]


@pytest.fixture(params=["3", "2.6"])
def paddle(request):
    from gradrepl.paddle import state

    state.reset(request.param)
    import gradrepl.paddle as paddle
    yield paddle
    state.reset()


@pytest.mark.parametrize("dt, n, want", _STEP)
def test_sgd_step_bits(paddle, dt, n, want):
    from gradrepl.engine import cpu, mkl

    if dt == "float64" and (cpu.detected() != "intel-avx512" or not mkl.load()
                              or mkl.branch() != "AVX512_E1"):
        reason = ("float64 SGD is MKL's daxpy, recorded on Intel AVX-512 (fused there, MKL's "
                  "AVX512_E1 path): this machine is another, takes another path or lacks MKL, bytes not compared")
        print(reason)
        pytest.skip(reason)
    rs = np.random.RandomState(n)
    p0 = rs.randn(n).astype(dt)
    g = rs.randn(n).astype(dt)
    p = paddle.create_parameter([n], dt, default_initializer=paddle.nn.initializer.Assign(p0))
    opt = paddle.optimizer.SGD(learning_rate=0.3, parameters=[p])
    (p * paddle.to_tensor(g)).sum().backward()
    opt.step()
    assert hashlib.sha256(p.numpy().tobytes()).hexdigest()[:16] == want


def _one(paddle, dt):
    return paddle.create_parameter(
        [1], dt, default_initializer=paddle.nn.initializer.Assign(np.array([1.0], dtype=dt)))


# real 3.3.1 and 2.6.2 printed these reprs (p = 1 minus one step of gradient 1, lr=0.3)
@pytest.mark.parametrize("make, want", [
    (lambda pd, ps: pd.optimizer.SGD(learning_rate=0.3, parameters=ps), "0.7"),
    (lambda pd, ps: pd.optimizer.SGD(learning_rate=pd.optimizer.lr.StepDecay(0.3, 2),
                                     parameters=ps), "0.7"),
    (lambda pd, ps: pd.optimizer.SGD(learning_rate=0.3, parameters=[{"params": ps}]), "0.7"),
    (lambda pd, ps: pd.optimizer.Adam(learning_rate=0.3, parameters=ps), "0.700000003"),
    (lambda pd, ps: pd.optimizer.Momentum(learning_rate=0.3, parameters=ps), "0.7"),
])
def test_float64_model_has_a_float64_learning_rate(paddle, make, want):
    ps = [_one(paddle, "float64")]
    opt = make(paddle, ps)
    ps[0].sum().backward()
    opt.step()
    assert repr(float(ps[0].numpy()[0])) == want


def test_learning_rate_dtype_is_the_first_parameters(paddle):
    # real: [float64, float32] -> ['0.7', '0.699999988079071'];
    #       [float32, float64] -> ['0.699999988079071', '0.699999988079071']
    for order, want in [(["float64", "float32"], ["0.7", "0.699999988079071"]),
                        (["float32", "float64"], ["0.699999988079071", "0.699999988079071"])]:
        ps = [_one(paddle, d) for d in order]
        opt = paddle.optimizer.SGD(learning_rate=0.3, parameters=ps)
        sum(p.astype("float64").sum() for p in ps).backward()
        opt.step()
        assert [repr(float(p.numpy()[0])) for p in ps] == want
