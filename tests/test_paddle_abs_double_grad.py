"""Paddle's abs gradient is the op abs_grad (engine ABS_GRAD; first-order values as before)
whose gradient is AbsGradGradFunctor's: d/d(dout) = ddx * x / |x| (a product then a quotient,
which can round off ddx), 0 where x == 0, and none for x. The composite before (dout * sign(x)
differentiated) gave ddx * sign(x): the second-order values of all three cases below differed.

Recorded from real Paddle 3.3.1 and 2.6.2 (equal) on this project's machine, 2026-12-07: x = 3 *
randn(300), w, v = randn(300) from RandomState(11) (float32); sha256[:16] of the gradient g of
f(x) with create_graph and of paddle.grad(g, x, grad_outputs=v).
"""
from __future__ import annotations

import hashlib

import numpy as np
import pytest

_EXPECTED = {"abs*x": ("74508ce41058464e", "b47275863ab21000"),
             "sqrt(abs)": ("0348633de8648262", "7165aaeff7dd096a"),
             "abs^2": ("20d79cebbd25a1cd", "9e9b2bd848413c49")}


def _digest(a):
    return hashlib.sha256(a.tobytes()).hexdigest()[:16]


@pytest.mark.parametrize("version", ["3", "2.6"])
@pytest.mark.parametrize("name", sorted(_EXPECTED))
def test_abs_second_order_as_paddles_functor(version, name):
    from gradrepl.paddle import state

    state.reset(version)
    try:
        import gradrepl.paddle as paddle

        rs = np.random.RandomState(11)
        x0 = rs.randn(300).astype("float32") * 3
        w = paddle.to_tensor(rs.randn(300).astype("float32"))
        v = paddle.to_tensor(rs.randn(300).astype("float32"))
        f = {"abs*x": lambda x: paddle.sum(paddle.abs(x) * x),
             "sqrt(abs)": lambda x: paddle.sum(paddle.sqrt(paddle.abs(x) + 0.5) * w),
             "abs^2": lambda x: paddle.sum(paddle.abs(x) * paddle.abs(x) * w)}[name]
        x = paddle.to_tensor(x0, stop_gradient=False)
        g = paddle.grad(f(x), x, create_graph=True)[0]
        h = paddle.grad(g, x, grad_outputs=v)[0]
        got = (_digest(g.numpy()), _digest(h.numpy()))
    finally:
        state.reset()
    assert got == _EXPECTED[name]
