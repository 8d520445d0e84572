"""Power-average (Lp) pooling, ``lp_pool2d``: ``(sum over the window of x**p) ** (1/p)``, Paddle's
pool kernel with its ``lp`` functor: each window's values raised with the C library's ``powf``
and added one after the other (offsets in row-major order, padding contributing nothing), then
``powf(sum, 1/p)``. One registry op; its VJP is composed of ops (so it differentiates again):
dx = x**(p-1) * (the windows' dy * y**(1-p), summed back over the windows holding each x)."""
from __future__ import annotations

import ctypes

import numpy as np

from ..registry import apply, register
from . import _kernels as K
from ._util import quiet
from .conv import _Pool

_POWF = None


def _powf(a, b):
    """glibc's powf on every element (numpy's float64 power, rounded, for large arrays)."""
    global _POWF
    a = np.asarray(a, np.float32)
    if K._LIBM is None or a.size > K.LIBM_LIMIT:
        with quiet(all="ignore"):
            return np.power(a.astype(np.float64), np.float64(b)).astype(np.float32)
    if _POWF is None:
        fn = K._LIBM.powf
        fn.restype = ctypes.c_float
        fn.argtypes = [ctypes.c_float, ctypes.c_float]
        _POWF = np.frompyfunc(lambda v, e: fn(v, e), 2, 1)
    if a.size == 0:
        return a.copy()
    return np.asarray(_POWF(a, np.float32(b)), np.float32).reshape(a.shape)


def _lp_pool2d_fwd(x, ksize=(1, 1), stride=(1, 1), padding=(0, 0, 0, 0), ceil_mode=False,
                   norm_type=2.0):
    a = dict(ksize=ksize, stride=stride, padding=padding, ceil_mode=ceil_mode, adaptive=False)
    p = _Pool(x.shape[2:], a)
    if x.dtype != np.float32:
        powed = np.power(x, x.dtype.type(norm_type))
        root = lambda s: np.power(s, x.dtype.type(1.0 / norm_type))  # noqa: E731
    else:
        powed = _powf(x, norm_type)
        root = lambda s: _powf(s, np.float32(1.0 / norm_type))  # noqa: E731
    xp = p.prepare(powed, 0)
    acc = None
    with quiet(all="ignore"):
        for _k, offs in p.offsets():
            s = p.slab(xp, offs, 0)
            acc = np.array(s) if acc is None else acc + s
        return root(acc)


def _lp_pool2d_vjp(n, g):
    from .conv import pool2d_grad, pool_attrs
    from .math import multiply, pow as _pow

    x = n.inputs[0]
    a = n.attrs
    p = float(a.get("norm_type", 2.0))
    y = n.out()
    attrs = pool_attrs(a["ksize"], a.get("stride", (1, 1)), a.get("padding", (0, 0, 0, 0)),
                       a.get("ceil_mode", False), True, False, "avg")
    pool = _Pool(x.data.shape[2:], attrs)
    # the avg pool's gradient divides by the window size: multiply it back first
    size = pool.divisor(True, False).astype(g.data.dtype)
    per_window = multiply(multiply(g, _pow(y, _const(y, 1.0 - p))), _const(g, size))
    spread = pool2d_grad(x, per_window, attrs)
    return multiply(_pow(x, _const(x, p - 1.0)), spread)


def _const(like, arr):
    from ._util import const

    return const(like, arr)


LP_POOL2D = register(
    "lp_pool2d", _lp_pool2d_fwd, _lp_pool2d_vjp, legacy_name="LpPool2dBackward",
    domain="positive",
    examples=[([(1, 2, 4, 5)], {"ksize": (2, 2), "stride": (2, 2), "norm_type": 2.0}),
              ([(1, 1, 5, 5)], {"ksize": (3, 2), "stride": (2, 1), "padding": (1, 1, 0, 1),
                                "norm_type": 3.0, "ceil_mode": True})])


def lp_pool2d(x, ksize, stride, padding, ceil_mode, norm_type):
    return apply(LP_POOL2D, (x,), {"ksize": tuple(int(v) for v in ksize),
                                    "stride": tuple(int(v) for v in stride),
                                    "padding": tuple(int(v) for v in padding),
                                    "ceil_mode": bool(ceil_mode),
                                    "norm_type": float(norm_type)})
