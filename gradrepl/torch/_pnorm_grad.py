"""The gradient of torch's p-norm (``LinalgVectorNormBackward0``) for a finite p other than 2,
as torch 2.13's ``norm_backward`` (torch/csrc/autograd/FunctionsManual.cpp) writes it, with the
dialect's ops (torch's pow special cases and kernels; create_graph keeps working):

- p == 1: ``sgn(self) * grad``
- p < 1: ``sgn(self) * |self|.pow(p - 1)`` (0 where self == 0) ``* grad * norm.pow(1 - p)``
- 1 < p < 2: ``sgn(self) * |self|.pow(p - 1) * (grad / norm.pow(p - 1))``
- p > 2: ``self * |self|.pow(p - 2) * (grad / norm.pow(p - 1))``

with grad / norm.pow(p - 1) set to 0 where the norm is 0. The engine's (Paddle's) formula
rounded in another order: F.normalize(p=3)'s gradient differed in its last bits."""
from __future__ import annotations

import numpy as np


def _unsqueezed(t, axes, ndim, keepdim):
    from . import _ops

    if keepdim or ndim == 0:
        return t
    for d in sorted(a % ndim for a in axes):
        t = _ops.unsqueeze(t, d)
    return t


def pnorm_vjp(engine_vjp):
    def vjp(n, g):
        from . import _ops
        from ._base import raw

        x = n.inputs[0]
        a = n.attrs
        p = float(a.get("porder", 2.0))
        xa = raw(x)
        if xa.dtype.kind != "f" or p in (0.0, 2.0) or not np.isfinite(p):
            return engine_vjp(n, g)
        axes = a.get("axis") or tuple(range(xa.ndim))
        keep = bool(a.get("keepdim", False))
        grad = _unsqueezed(g, axes, xa.ndim, keep)
        norm = _unsqueezed(n.out(), axes, xa.ndim, keep)
        if p == 1.0:
            return (_ops.mul(_ops.sgn(x), grad),)
        zero_norm = _ops.const(raw(norm) == 0, np.bool_)
        if p < 1.0:
            scaled = _ops.masked_fill(_ops.pow(_ops.abs(x), p - 1),
                                      _ops.const(xa == 0, np.bool_), 0)
            scaled = _ops.mul(_ops.sgn(x), scaled)
            return (_ops.mul(_ops.mul(scaled, grad), _ops.pow(norm, 1 - p)),)
        scale_v = _ops.masked_fill(_ops.div(grad, _ops.pow(norm, p - 1)), zero_norm, 0)
        if p < 2.0:
            scaled = _ops.mul(_ops.sgn(x), _ops.pow(_ops.abs(x), p - 1))
        else:
            scaled = _ops.mul(x, _ops.pow(_ops.abs(x), p - 2))
        return (_ops.mul(scaled, scale_v),)
    return vjp
