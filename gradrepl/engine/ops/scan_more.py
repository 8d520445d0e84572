"""Scans beyond cumsum/cumprod: ``logcumsumexp``.

The forward is torch's CPU loop: a running ``log_add_exp(acc, x_i)`` along the axis, each step
``max + log1p(exp(min - max))`` rounded in the input's dtype (infinite equal operands kept as
they are). The VJP, written with Tensor ops (so it differentiates again):
``dx_j = sum_{i >= j} g_i * exp(x_j - out_i) = exp(x_j) * revcumsum(g * exp(-out))``.
"""
from __future__ import annotations

import numpy as np

from ..registry import register


def _logcumsumexp_fwd(x, axis=0):
    if x.ndim == 0:
        return np.array(x)
    m = np.moveaxis(np.asarray(x), axis, 0)
    out = np.empty_like(m)
    if m.shape[0]:
        acc = m[0].copy()
        out[0] = acc
        with np.errstate(all="ignore"):
            for i in range(1, m.shape[0]):
                v = m[i]
                nan = np.isnan(acc) | np.isnan(v)
                lo, hi = np.minimum(acc, v), np.maximum(acc, v)
                keep = (lo == hi) & ~np.isfinite(lo)
                step = (hi + np.log1p(np.exp(lo - hi))).astype(x.dtype)
                acc = np.where(nan, np.asarray(np.nan, x.dtype), np.where(keep, acc, step))
                out[i] = acc
    return np.moveaxis(out, 0, axis)


def _logcumsumexp_vjp(n, g):
    from .math import multiply
    from .reduce import cumsum
    from .math import exp, neg

    x = n.inputs[0]
    if x.data.ndim == 0:
        return g
    axis = n.attrs.get("axis", 0)
    out = n.out()
    inner = multiply(g, exp(neg(out)))
    return multiply(exp(x), cumsum(inner, axis, reverse=True))


LOGCUMSUMEXP = register("logcumsumexp", _logcumsumexp_fwd, _logcumsumexp_vjp,
                        legacy_name="LogcumsumexpBackward",
                        examples=[([(2, 3)], {"axis": 1}), ([(4,)], {"axis": 0})])
