"""torch 2.13's CPU cdist kernels (``aten/src/ATen/native/cpu/DistanceOpsKernel.cpp``) in numpy,
float32/float64, the direct path (not the matrix-product one):

- forward (``run_parallel_cdist``): per pair a scalar loop over the m columns,
  ``agg = agg + map(|a - b|)`` in the dtype: p = 1 ``d``, p = 2 ``d * d`` (sqrt at the end;
  the loop's vectorized part rounds the square, its scalar tail fuses it), p = 0 ``min(ceil(d), 1)``, p = inf a max, other p the C
  library's ``pow(d, p)`` and ``pow(agg, 1.0 / p)`` in double at the end;
- backward (``run_backward_parallel_cdist``) for p = 1 and p = 2 (any p for float32): per
  element of x1 a running sum over x2's rows in order, ``res + grad * sign(diff)`` /
  ``res + grad * diff / dist`` / the pow forms (0 where dist == 0); x2's gradient is the same
  kernel on (grad^T, x2, x1, dist^T).
"""
from __future__ import annotations

import numpy as np

from ..engine.ops import _kernels as K


def _fma(a, b, c):
    if np.asarray(a).dtype == np.float32:
        return (np.asarray(a, np.float64) * np.asarray(b, np.float64) + c).astype(np.float32)
    from ._sleef64 import fma64
    return fma64(np.asarray(a, np.float64), np.asarray(b, np.float64), np.asarray(c, np.float64))


def _cpow(x, y):
    fn = K.powf if x.dtype == np.float32 else K.pow64
    shape = x.shape
    flat = np.ascontiguousarray(x).reshape(-1)
    return np.asarray(fn(flat, np.full(flat.shape, y, flat.dtype)), x.dtype).reshape(shape)


def forward(x1, x2, p):
    """(..., r1, m), (..., r2, m) -> (..., r1, r2)."""
    T = x1.dtype.type
    with np.errstate(all="ignore"):
        diff = np.abs(x1[..., :, None, :] - x2[..., None, :, :])
        m = diff.shape[-1]
        agg = np.zeros(diff.shape[:-1], x1.dtype)
        if p == 0:
            for c in range(m):
                agg = agg + np.minimum(np.ceil(diff[..., c]), T(1))
            return agg
        if np.isinf(p):
            for c in range(m):
                agg = np.maximum(agg, diff[..., c])
            return agg
        if p == 1:
            for c in range(m):
                agg = agg + diff[..., c]
            return agg
        if p == 2:
            # GCC vectorizes the loop's squares in 128-bit vectors (4 floats / 2 doubles) with
            # the sum kept in order; the scalar tail's agg + d * d is one FMA (measured)
            main = m // (4 if x1.dtype == np.float32 else 2) * (4 if x1.dtype == np.float32 else 2)
            for c in range(m):
                d = diff[..., c]
                agg = agg + d * d if c < main else _fma(d, d, agg)
            return np.sqrt(agg)
        pw = _cpow(diff, T(p))
        for c in range(m):
            agg = agg + pw[..., c]
        out = K.pow64(np.ascontiguousarray(agg, np.float64).reshape(-1),
                      np.full(agg.size, 1.0 / float(T(p))))
        return np.asarray(out, np.float64).reshape(agg.shape).astype(x1.dtype)


def _sign(d):
    T = d.dtype.type
    return np.minimum(np.maximum(T(0), np.ceil(d)), T(1)) + \
        np.minimum(np.maximum(T(-1), np.floor(d)), T(0))


def _vpow(x, y):
    """``Vectorized<float>::pow``: SLEEF's powf_u10 (lane by lane)."""
    from ..engine.ops._kernels import sleef_pow

    flat = np.ascontiguousarray(x, np.float32).reshape(-1)
    return np.asarray(sleef_pow(flat, np.full(flat.shape, y, np.float32)),
                      np.float32).reshape(np.shape(x))


def backward_x1(grad, x1, x2, dist, p):
    """The gradient of x1 (p = 1 or 2; other p for float32, its vector pow being SLEEF's powf):
    (..., r1, m)."""
    if p not in (1, 2):
        return _backward_pow(grad, x1, x2, dist, p)
    with np.errstate(all="ignore"):
        res = np.zeros(np.broadcast_shapes(x1.shape[:-2], x2.shape[:-2]) + x1.shape[-2:],
                       x1.dtype)
        for j in range(x2.shape[-2]):
            diff = x1 - x2[..., j:j + 1, :]
            gj = grad[..., :, j:j + 1]
            if p == 1:
                res = res + gj * _sign(diff)
            else:
                dj = dist[..., :, j:j + 1]
                term = (gj * diff) / dj
                res = res + np.where(dj == 0, x1.dtype.type(0), term)
    return res


def _backward_pow(grad, x1, x2, dist, p):
    """lttdist_calc (p < 2): sign(diff) * |diff|^(p-1) * grad / dist^(p-1); pdist_calc (p > 2):
    diff * |diff|^(p-2) * grad / dist^(p-1); 0 where dist == 0; summed over x2's rows."""
    T = np.float32
    pf = T(p)
    with np.errstate(all="ignore"):
        res = np.zeros(np.broadcast_shapes(x1.shape[:-2], x2.shape[:-2]) + x1.shape[-2:], T)
        for j in range(x2.shape[-2]):
            diff = (x1 - x2[..., j:j + 1, :]).astype(T)
            gj = grad[..., :, j:j + 1]
            dj = dist[..., :, j:j + 1]
            dpow = _vpow(np.broadcast_to(dj, diff.shape), pf - T(1))
            if p < 2:
                term = ((_sign(diff) * _vpow(np.abs(diff), pf - T(1))) * gj) / dpow
            else:
                term = ((diff * _vpow(np.abs(diff), pf - T(2))) * gj) / dpow
            res = (res + np.where(dj == 0, T(0), term)).astype(T)
    return res
