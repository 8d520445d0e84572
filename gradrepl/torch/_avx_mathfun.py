"""The float32 log and sine/cosine torch's ``randn`` uses for 16 or more values.

torch's CPU normal fill (AVX2 build) turns blocks of 16 uniforms into normals with
``avx_mathfun``'s Cephes-style ``log256_ps`` and ``sincos256_ps``; GCC compiles their
multiply-then-add steps into fused multiply-adds. Replayed here in numpy float32 with the same
operations in the same order, each fused multiply-add exact (float64 product, one rounding):
checked bit for bit against torch 2.13 on 20,000 normals (``tests/test_tutorial_numerics.py``).
"""
from __future__ import annotations

import numpy as np

F32 = np.float32
_MIN_NORM = np.array(0x00800000, np.int32).view(F32)
_HALF_BITS = np.array(0.5, F32).view(np.int32)
_LOG_P = [F32(v) for v in (7.0376836292E-2, -1.1514610310E-1, 1.1676998740E-1,
                           -1.2420140846E-1, 1.4249322787E-1, -1.6668057665E-1,
                           2.0000714765E-1, -2.4999993993E-1, 3.3333331174E-1)]
_LOG_Q1, _LOG_Q2 = F32(-2.12194440e-4), F32(0.693359375)
_SQRT_HALF = F32(0.707106781186547524)
_FOUR_OVER_PI = F32(1.27323954473516)
_DP = [F32(v) for v in (-0.78515625, -2.4187564849853515625e-4, -3.77489497744594108e-8)]
_COS_P = [F32(v) for v in (2.443315711809948E-005, -1.388731625493765E-003,
                           4.166664568298827E-002)]
_SIN_P = [F32(v) for v in (-1.9515295891E-4, 8.3321608736E-3, -1.6666654611E-1)]


# a * b + c rounded once to float32, the engine's fast form (exact product and sum in float64,
# one rounding; _norm_kernels.fma is the slower one that is also right on double-rounding ties)
from ..engine.ops._kernels import _fma as fma  # noqa: E402


def log(x):
    """``log256_ps``: exponent split, mantissa in [sqrt(1/2), sqrt(2)), degree-9 polynomial."""
    x = np.asarray(x, F32)
    invalid = ~(x > 0)
    x = np.maximum(x, _MIN_NORM)
    bits = x.view(np.int32)
    e = ((bits >> 23) - 0x7F).astype(F32) + F32(1)
    x = ((bits & ~0x7F800000) | _HALF_BITS).view(F32)
    small = x < _SQRT_HALF
    x = (x - F32(1)) + np.where(small, x, F32(0))
    e = e - np.where(small, F32(1), F32(0))
    z = x * x
    y = np.full_like(x, _LOG_P[0])
    for p in _LOG_P[1:]:
        y = fma(y, x, p)
    y = y * x
    y = fma(y, z, e * _LOG_Q1)
    y = y - z * F32(0.5)
    x = fma(e, _LOG_Q2, x + y)
    return np.where(invalid, F32(np.nan), x).astype(F32)


def sincos(x):
    """``sincos256_ps``: octant from x * 4/pi, three-part reduction, both polynomials."""
    x = np.asarray(x, F32)
    neg = np.signbit(x)
    x = np.abs(x)
    j = (x * _FOUR_OVER_PI).astype(np.int32)
    j = (j + 1) & ~1
    y = j.astype(F32)
    for dp in _DP:
        x = fma(y, dp, x)
    sin_neg = neg ^ ((j & 4) != 0)
    cos_neg = (~(j - 2) & 4) != 0
    first = (j & 2) == 0
    z = x * x
    c = np.full_like(x, _COS_P[0])
    for p in _COS_P[1:]:
        c = fma(c, z, p)
    c = fma(c * z, z, -(z * F32(0.5)))
    c = c + F32(1)
    s = np.full_like(x, _SIN_P[0])
    for p in _SIN_P[1:]:
        s = fma(s, z, p)
    s = fma(s * z, x, x)
    ys, yc = np.where(first, s, c), np.where(first, c, s)
    return (np.where(sin_neg, -ys, ys).astype(F32), np.where(cos_neg, -yc, yc).astype(F32))
