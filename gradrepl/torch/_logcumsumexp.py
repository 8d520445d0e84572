"""torch.logcumsumexp's CPU kernel (ReduceOpsKernel.cpp, logcumsumexp_cpu_kernel) in numpy: along
the dim, ``cum = _log_add_exp_helper(x, cum)`` from -inf, i.e. ``log1p(exp(min - max)) + max``
with the C library's double exp/log1p (x where min == max is infinite), the running value in
``acc_type<scalar_t, false>`` - double for float32 too - each output rounded to the dtype."""
from __future__ import annotations

import numpy as np

from ..engine.ops import _kernels as K


def _apply(fn, a):
    return np.asarray(fn(np.ascontiguousarray(a, np.float64).reshape(-1)),
                      np.float64).reshape(np.shape(a))


def logcumsumexp(x, axis=0):
    dt = x.dtype
    exp, log1p = K.libm64("exp", np.exp), K.libm64("log1p", np.log1p)
    xm = np.moveaxis(x, axis, 0).astype(np.float64)
    out = np.empty(xm.shape, dt)
    acc = np.full(xm.shape[1:], -np.inf)
    with np.errstate(all="ignore"):
        for i in range(xm.shape[0]):
            xv = xm[i]
            lo = np.where(np.isnan(acc), acc, np.minimum(xv, acc))
            hi = np.where(np.isnan(acc), acc, np.maximum(xv, acc))
            ok = (lo != hi) | np.isfinite(lo)
            acc = np.where(ok, _apply(log1p, _apply(exp, lo - hi)) + hi, xv)
            out[i] = acc.astype(dt)
    return np.moveaxis(out, 0, axis)


def forward(x, axis=0, **kw):
    """The op's forward: the kernel for float32/float64 (a 0-d or empty input as the engine)."""
    if x.dtype in (np.float32, np.float64) and x.ndim and x.size:
        return logcumsumexp(x, axis)
    from ..engine.registry import OPS

    return OPS["logcumsumexp"].forward(x, axis=axis, **kw)


def vjp(n, g):
    """FunctionsManual's logcumsumexp_backward with the dialect's ops (create_graph works):
    exp(reverse_logcumsumexp(log|g+| - result) + self) - the same for g-, the log of a
    gradient's other sign the dtype's lowest value."""
    from . import _ops, _ops_shape
    from ._base import raw

    x, res = n.inputs[0], n.out()
    d = n.attrs.get("axis", 0)
    dt = raw(x).dtype
    if dt not in (np.float32, np.float64) or raw(g).ndim == 0 or raw(g).size == 0:
        from ..engine.registry import OPS
        return OPS["logcumsumexp"].vjp(n, g)
    low = _ops.const(float(np.finfo(dt).min), dt)

    def reverse(t):
        return _ops.flip(_ops_shape.logcumsumexp(_ops.flip(t, (d,)), d), (d,))
    log_abs = _ops.log(_ops.abs(g))
    zero = _ops.const(0.0, dt)
    pos = _ops.where(_ops.gt(g, zero), log_abs, low)
    neg = _ops.where(_ops.lt(g, zero), log_abs, low)
    out_pos = _ops.exp(_ops.add(reverse(_ops.sub(pos, res)), x))
    out_neg = _ops.exp(_ops.add(reverse(_ops.sub(neg, res)), x))
    return (_ops.sub(out_pos, out_neg),)
