"""torch's ``MseLossBackwardBackward0``: mse_loss's first-order gradient as one node.

Real torch 2.13 computes ``F.mse_loss``'s gradients with ``mse_loss_backward`` (for the target
with the operands swapped: ``mse_loss_backward(grad, target, self)``) and, under
``create_graph=True``, records each as one node whose formula (``derivatives.yaml``) is

- grad_output: ``mse_loss_backward(gg, self, target)`` for 'none', else
  ``(mse_loss_backward(ones_like(grad_output), self, target) * gg).sum()``;
- self: ``2 * (gg * grad_output)``, divided by the number of elements for 'mean';
- target: the same, negated.

(checked against real torch 2.13 here: every formula equal to the bit for 'mean', 'sum' and
'none'). gradrepl recorded ``(norm * (x - y)) * g`` as two multiplications instead, whose
backward multiplies by the rounded ``2 / N``: a MAML script's second-order gradients (CS330
style, one inner SGD step on an MSE loss) differed in the last bits.
"""
from __future__ import annotations

import numpy as np

from ...engine.registry import OpDef, apply, needs_grad
from .. import _bfloat16


def _forward(g, x, y, reduction="mean"):
    """ATen's ``mse_backward_cpu_kernel``: ``norm * (x - y) * grad``, ``norm`` = 2 / N (rounded
    to the dtype first) for 'mean', 2 otherwise; x and y broadcast (torch expands them first)."""
    d = np.subtract(x, y)
    norm = 2.0 / max(d.size, 1) if reduction == "mean" else 2.0
    return np.asarray(np.asarray(norm, d.dtype) * d * g, dtype=d.dtype)


def _vjp(n, gg):
    """The node's formula (module docstring), with the dialect's Tensor ops."""
    g_out, x, y = n.inputs
    red = n.attrs.get("reduction", "mean")
    size = int(np.prod(np.broadcast_shapes(x.data.shape, y.data.shape)))

    def double(t):
        r = (t * g_out) * 2
        return r / size if red == "mean" else r

    d_out = None
    if needs_grad(n, 0):
        if red == "none":
            d_out = mse_loss_backward(gg, x, y, red)
        else:
            from .._creation import ones_like

            d_out = (mse_loss_backward(ones_like(g_out), x, y, red) * gg).sum()
    dx = double(gg) if needs_grad(n, 1) else None
    dy = -double(gg) if needs_grad(n, 2) else None
    return d_out, dx, dy


MSE_GRAD = OpDef("mse_loss_grad", _forward, _vjp, broadcast=True)
MSE_GRAD.torch_name = "MseLossBackwardBackward0"
MSE_GRAD.torch_saves = "all"
MSE_GRAD.torch_inputs = None
MSE_GRAD.reads_inputs = True
MSE_GRAD.saves_inputs = False
MSE_GRAD.grad_sum_order = "torch"   # (a broadcast operand's gradient summed as torch sums it)


def mse_loss_backward(grad, x, y, reduction):
    """``at::mse_loss_backward(grad, x, y, reduction)`` (recorded under create_graph)."""
    return apply(MSE_GRAD, (grad, x, y), {"reduction": reduction})


def mse_loss_vjp(n, g):
    """``F.mse_loss``'s VJP: ``mse_loss_backward(g, x, y)`` for the input and
    ``mse_loss_backward(g, y, x)`` for the target (the same values as its negation)."""
    x, y = n.inputs
    red = n.attrs.get("reduction", "mean")
    if x.data.dtype == _bfloat16.BITS:
        return _bfloat16_vjp(x, y, g, red)
    gx = mse_loss_backward(g, x, y, red) if needs_grad(n, 0) else None
    gy = mse_loss_backward(g, y, x, red) if needs_grad(n, 1) else None
    return gx, gy


def _bfloat16_vjp(x, y, g, red):
    """bfloat16: the kernel rounds each step to bfloat16 (``x - y``, ``norm * d``, ``* grad``;
    ``norm`` itself a bfloat16), so the steps are the engine's ops, each rounded by the
    dialect's bfloat16 storage (``_forward`` through float32 would round once: a
    test_torch_bfloat16 digest differed). Its create_graph nodes stay the two MulBackward0."""
    from ...engine.ops._util import const
    from ...engine.ops.broadcast import broadcast_to
    from ...engine.ops.math import multiply, subtract
    from ...engine.ops.shape import reshape

    shape = np.broadcast_shapes(x.data.shape, y.data.shape)
    gb = g
    if red != "none" and shape:
        gb = broadcast_to(reshape(g, (1,) * len(shape)), shape)
    size = int(np.prod(shape)) if shape else 1
    norm = 2.0 / size if red == "mean" else 2.0
    d = subtract(x, y)
    gd = multiply(multiply(const(d, norm), d), gb)   # (norm in d's dtype: const converts)
    return gd, multiply(gd, const(gd, -1.0))
