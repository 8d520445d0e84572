"""Paddle's tanh_double_grad op (the gradient of tanh_grad) and its gradient, tanh_triple_grad.

``tanh_double_grad(out, ddx, dout)`` gives Paddle's TanhGradGradFunctor's two outputs, the
gradients of tanh_grad(out, dout) = dout * (1 - out*out) for the incoming ``ddx``:

* d_out  = -1 * dout * 2 * out * ddx (left to right: the negation and doubling exact),
* d_dout = (1 - out*out) * ddx.

Its VJP is TanhTripleGradFunctor's formulas on the gradients of those two outputs
(g_out for d_out, g_dout for d_dout; zeros where none came), each product left to right,
measured against real Paddle (each input taking a gradient, each incoming gradient alone and
both; 300 values):

* for dout: -2 * out * ddx * g_out (both versions),
* for out:  3.3.1 (-2 * out * g_dout - 2 * dout * g_out) * ddx;
            2.6.2 -2 * out * ddx * g_dout - 2 * dout * ddx * g_out,
* for ddx:  3.3.1 (1 - out*out) * g_dout - 2 * dout * g_out * out;
            2.6.2 (1 - out*out) * g_dout - 2 * out * dout * g_out,

written with Tensor ops, so a fourth order differentiates them. Before, the second order was
Tensor ops and the third the engine's derivative of them: other roundings (a PINN's
u_xx-based loss through a tanh MLP: its parameter gradients differed in the last bits from
real Paddle 3.3.1 and 2.6.2; tests/test_paddle_tanh_triple_grad.py).
"""
from __future__ import annotations

import sys

from ..registry import apply, register


def _fwd(out, ddx, dout, v3=True):
    t = out.dtype.type
    d_out = (dout * t(-2)) * out * ddx
    d_dout = (t(1) - out * out) * ddx
    return d_out, d_dout


def _vjp(n, g_out, g_dout):
    from .math import _one_minus_sq, multiply, subtract, times

    out, ddx, dout = n.inputs
    one_minus = _one_minus_sq(out)                                    # 1 - out*out
    grad_dout = multiply(multiply(times(out, -2.0), ddx), g_out)
    if n.attrs.get("v3", True):
        grad_out = multiply(subtract(multiply(times(out, -2.0), g_dout),
                                     multiply(times(dout, 2.0), g_out)), ddx)
        grad_ddx = subtract(multiply(one_minus, g_dout),
                            multiply(multiply(times(dout, 2.0), g_out), out))
    else:
        grad_out = subtract(multiply(multiply(times(out, -2.0), ddx), g_dout),
                            multiply(multiply(times(dout, 2.0), ddx), g_out))
        grad_ddx = subtract(multiply(one_minus, g_dout),
                            multiply(multiply(times(out, 2.0), dout), g_out))
    return grad_out, grad_ddx, grad_dout


TANH_DOUBLE_GRAD = register(
    "tanh_double_grad", _fwd, _vjp, n_outputs=2, legacy_name="TanhDoubleGradBackward",
    domain="unit", examples=[([(2, 3), (2, 3), (2, 3)], {"v3": True}),
                             ([(2, 3), (2, 3), (2, 3)], {"v3": False})])


def _paddle_v3():
    """Paddle 3's functor unless the Paddle dialect runs a 2.x profile (read, not imported)."""
    profiles = sys.modules.get("gradrepl.paddle.profiles")
    return True if profiles is None else bool(profiles.current().api3)


def tanh_double_grad(out, ddx, dout):
    """(gradient for out, gradient for dout) of tanh_grad(out, dout) given ``ddx``."""
    return apply(TANH_DOUBLE_GRAD, (out, ddx, dout), {"v3": _paddle_v3()})
