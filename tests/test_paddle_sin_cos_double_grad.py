"""Paddle's sin and cos gradients are the ops sin_grad / cos_grad (engine SIN_GRAD, COS_GRAD;
first-order values as before), whose gradients are Sin/CosDoubleGradFunctor's products, in their
order: sin: d2x = -ddx * sin(x) * dout, d2dout = ddx * cos(x); cos: d2x = -ddx * cos(x) * dout,
d2dout = -ddx * sin(x). The composite before (dout * cos(x) differentiated by the engine) rounded
second-order values otherwise: all four cases below differed, first-order equal.

Real 2.6.2's CosDoubleGradFunctor refuses when the incoming gradient takes none (its ddOut
guard is ``if (dX)``): hessian(sum(cos(x)), x) raises there; 3.3.1 computes it.

Recorded from real Paddle 3.3.1 and 2.6.2 on this project's machine, 2026-12-07: x = 3 *
randn(300), w, v = randn(300) from RandomState(7) (float32); sha256[:16] of the gradient g of
f(x) with create_graph and of paddle.grad(g, x, grad_outputs=v). 2.6.2's sin/cos (glibc) round
otherwise than 3.3.1's (SLEEF).
"""
from __future__ import annotations

import hashlib

import numpy as np
import pytest

_EXPECTED = {
    "3": {"sin*w": ("74695ed3b192ee29", "1d434e95c6d95a39"),
          "cos*w": ("3fe0055aca624de8", "ff242213539fb227"),
          "sin*x": ("6912a0d471489380", "66f6bfd4e8a44ecd"),
          "cos(x)^2": ("6c7269c3676908ba", "73a8bd560208f4ad")},
    "2.6": {"sin*w": ("4fd29a6d4cb272ef", "76c1e57d62d7e408"),
            "cos*w": ("d57815031cc69af1", "8487fac40e6324d4"),
            "sin*x": ("8522f46863fc82ae", "f4e54dd2b4a89ac3"),
            "cos(x)^2": ("eebee50ce4fbf91b", "31fa7122f2e0e6d5")},
}


def _digest(a):
    return hashlib.sha256(a.tobytes()).hexdigest()[:16]


@pytest.mark.parametrize("version", ["3", "2.6"])
@pytest.mark.parametrize("name", ["sin*w", "cos*w", "sin*x", "cos(x)^2"])
def test_sin_cos_second_order_as_paddles_functors(version, name):
    from gradrepl.paddle import state

    state.reset(version)
    try:
        import gradrepl.paddle as paddle

        rs = np.random.RandomState(7)
        x0 = rs.randn(300).astype("float32") * 3
        w = paddle.to_tensor(rs.randn(300).astype("float32"))
        v = paddle.to_tensor(rs.randn(300).astype("float32"))
        f = {"sin*w": lambda x: paddle.sum(paddle.sin(x) * w),
             "cos*w": lambda x: paddle.sum(paddle.cos(x) * w),
             "sin*x": lambda x: paddle.sum(paddle.sin(x) * x),
             "cos(x)^2": lambda x: paddle.sum(paddle.cos(x) * paddle.cos(x) * w)}[name]
        x = paddle.to_tensor(x0, stop_gradient=False)
        g = paddle.grad(f(x), x, create_graph=True)[0]
        h = paddle.grad(g, x, grad_outputs=v)[0]
        got = (_digest(g.numpy()), _digest(h.numpy()))
    finally:
        state.reset()
    assert got == _EXPECTED[version][name]


@pytest.mark.parametrize("version", ["3", "2.6"])
def test_cos_hessian_with_a_constant_incoming_gradient(version):
    from gradrepl.paddle import state

    state.reset(version)
    try:
        import gradrepl.paddle as paddle

        x = paddle.to_tensor([0.3, -1.2, 2.0], stop_gradient=False)
        g = paddle.grad(paddle.sum(paddle.cos(x)), x, create_graph=True)[0]
        if version == "3":
            h = paddle.grad(g.sum(), x)[0].numpy().tolist()
            # real 3.3.1: -cos(x)
            assert h == [-0.9553365707397461, -0.3623577058315277, 0.416146844625473]
        else:
            with pytest.raises(RuntimeError) as e:
                paddle.grad(g.sum(), x)
            # real 2.6.2's message, whole
            assert str(e.value) == (
                "(NotFound) Unable to get phi::DenseTensor data of Output d2d1y in operator "
                "CosDoubleGrad. Possible reasons are:\n  1. The d2d1y is not the Output of "
                "operator CosDoubleGrad;\n  2. The d2d1y has no corresponding variable passed "
                "in;\n  3. The d2d1y corresponding variable is not initialized.\n  [Hint: "
                "pointer ddOut should not be null.] (at /paddle/paddle/phi/kernels/funcs/"
                "activation_functor.h:405)\n")
    finally:
        state.reset()
