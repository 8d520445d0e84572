"""glibc's ``expf`` and ``logf`` for whole arrays, bit for bit, in numpy.

Paddle's CPU kernels call the C library's float ``exp``/``log`` element by element (softmax,
cross entropy, ``paddle.log`` ...). glibc (2.28 and later; this machine has 2.36) computes both
in double precision from a small table and a short polynomial, then rounds once to float, with
errors up to 0.82 ulp: they are not correctly rounded, so float64 ``np.exp``/``np.log`` rounded
to float32 differ in the last bit of some results (measured: 52 of 100,000 for exp, 190 for
log). The same steps are replayed here on whole arrays in float64: the table index from the
float's bits, the reduction, the polynomial in the same order. The double results may differ
from glibc's FMA-contracted ones in their last double bit, which changes a float32 rounding only
when the value lies within ~2^-29 relative of a rounding midpoint; ``tests/test_glibc_math.py``
compares millions of values with the C library itself.

The constants are the ones in this machine's ``libm.so.6``: ``EXP2_TABLE`` is 2^(i/32)
correctly rounded (computed below), ``LOG_TABLE`` the (1/c, log c) pairs of glibc's 16
subintervals, read from the library's data.
"""
from __future__ import annotations

from decimal import Decimal, localcontext

import numpy as np

from ._util import quiet

F32, F64, U32, U64 = np.float32, np.float64, np.uint32, np.uint64

# ------------------------------------------------------------------------------ expf
_N = 32  # table entries: exp(x) = 2^(k/32) * 2^(r/32)


def _exp2_table():
    """The table's bits: asuint64(2^(i/32)) - (i << 52)/32, the exponent added back at use."""
    with localcontext() as ctx:
        ctx.prec = 60
        vals = [float(Decimal(2) ** (Decimal(i) / Decimal(_N))) for i in range(_N)]
    bits = np.array(vals, F64).view(U64)
    return bits - (np.arange(_N, dtype=U64) << U64(52)) // U64(_N)


EXP2_TABLE = _exp2_table()
_INVLN2_N = float.fromhex("0x1.71547652b82fep+5")            # 32 / ln 2
_EXP_POLY = (float.fromhex("0x1.c6af84b912394p-20"),          # 2^(r/32) - 1 ~ r (c0 r + c1) r
             float.fromhex("0x1.ebfce50fac4f3p-13"),          # + (c2 r + 1) - 1
             float.fromhex("0x1.62e42ff0c52d6p-6"))
_EXP_OVER = F32(float.fromhex("0x1.62e42ep6"))                # above: +inf
_EXP_UNDER = F32(float.fromhex("-0x1.9fe368p6"))              # below: +0
_EXP_SAFE = F32(87.0)                                         # |x| below: no special case


def expf(x):
    """glibc ``expf`` of a float32 array (any shape)."""
    with quiet(all="ignore"):  # nan and inf lanes compute garbage, replaced at the end
        return _expf(np.asarray(x, F32))


def _expf(x):
    xd = x.astype(F64)
    z = np.multiply(xd, _INVLN2_N, out=xd)
    kd = np.rint(z)                     # round to nearest, ties to even (glibc's shift trick)
    r = np.subtract(z, kd, out=z)
    ki = kd.astype(np.int64).view(U64)  # two's complement: the table index is ki mod 32
    t = EXP2_TABLE.take(ki & U64(_N - 1))
    t += ki << U64(52 - 5)
    s = t.view(F64)
    c0, c1, c2 = _EXP_POLY
    zz = r * c0
    zz += c1
    y = r * c2
    y += 1.0
    r *= r                              # r2
    zz *= r
    y += zz
    out = np.multiply(y, s, out=np.empty(x.shape, F32), casting="same_kind")  # y*s, rounded
    if x.size and not (x.min() >= -_EXP_SAFE and x.max() <= _EXP_SAFE):
        # overflow, underflow, inf and nan (rare; nan fails both comparisons)
        out = np.where(x > _EXP_OVER, F32(np.inf), out)
        out = np.where(x < _EXP_UNDER, F32(0), out)
        out = np.where(np.isnan(x), x, out)
    return out


# ------------------------------------------------------------------------------ logf
LOG_TABLE = np.array([[float.fromhex(a), float.fromhex(b)] for a, b in (
    ("0x1.661ec79f8f3bep+0", "-0x1.57bf7808caadep-2"),
    ("0x1.571ed4aaf883dp+0", "-0x1.2bef0a7c06ddbp-2"),
    ("0x1.49539f0f010b0p+0", "-0x1.01eae7f513a67p-2"),
    ("0x1.3c995b0b80385p+0", "-0x1.b31d8a68224e9p-3"),
    ("0x1.30d190c8864a5p+0", "-0x1.6574f0ac07758p-3"),
    ("0x1.25e227b0b8ea0p+0", "-0x1.1aa2bc79c8100p-3"),
    ("0x1.1bb4a4a1a343fp+0", "-0x1.a4e76ce8c0e5ep-4"),
    ("0x1.12358f08ae5bap+0", "-0x1.1973c5a611cccp-4"),
    ("0x1.0953f419900a7p+0", "-0x1.252f438e10c1ep-5"),
    ("0x1.0000000000000p+0", "0x0.0p+0"),
    ("0x1.e608cfd9a47acp-1", "0x1.aa5aa5df25984p-5"),
    ("0x1.ca4b31f026aa0p-1", "0x1.c5e53aa362eb4p-4"),
    ("0x1.b2036576afce6p-1", "0x1.526e57720db08p-3"),
    ("0x1.9c2d163a1aa2dp-1", "0x1.bc2860d224770p-3"),
    ("0x1.886e6037841edp-1", "0x1.1058bc8a07ee1p-2"),
    ("0x1.767dcf5534862p-1", "0x1.4043057b6ee09p-2"))], F64)
_LN2 = float.fromhex("0x1.62e42fefa39efp-1")
_LOG_POLY = (float.fromhex("-0x1.00ea348b88334p-2"),          # log(1+r) ~ r + a0 r^2 + ...
             float.fromhex("0x1.5575b0be00b6ap-2"),
             float.fromhex("-0x1.ffffef20a4123p-2"))
_OFF = 0x3F330000  # the subintervals are centred so that z = x / 2^k lies in [0.7, 1.4)


def logf(x):
    """glibc ``logf`` of a float32 array (any shape)."""
    with quiet(all="ignore"):
        return _logf(np.asarray(x, F32))


_INVC = np.ascontiguousarray(LOG_TABLE[:, 0])
_LOGC = np.ascontiguousarray(LOG_TABLE[:, 1])
_MIN_NORMAL, _NORMAL_SPAN = U32(0x00800000), U32(0x7F800000 - 0x00800000)


def _logf(x):
    ix = x.view(U32)
    # zero, subnormal, negative, inf and nan in one unsigned comparison (as glibc tests them)
    if x.size and ((ix - _MIN_NORMAL) >= _NORMAL_SPAN).any():
        return _logf_general(x)
    tmp = ix.view(np.int32) - np.int32(_OFF)
    i = (tmp >> (23 - 4)) & 15
    k = tmp >> 23                                  # arithmetic shift (tmp may be negative)
    tmp &= np.int32(-(1 << 23))                    # 0x1FF << 23 as int32 (ix < 2^31 here)
    z = (ix.view(np.int32) - tmp).view(F32).astype(F64)
    r = z * _INVC.take(i)
    r -= 1.0
    y0 = k * _LN2
    y0 += _LOGC.take(i)
    return _log_poly(r, y0)


def _log_poly(r, y0):
    r2 = r * r
    a0, a1, a2 = _LOG_POLY
    y = a1 * r + a2
    y = a0 * r2 + y
    y *= r2
    y0 += r
    return np.add(y, y0, out=np.empty(r.shape, F32), casting="same_kind")  # rounded once


def _logf_general(x):
    """Every input: subnormals scaled by 2^23 first; zero, negative, inf and nan from IEEE."""
    ix = x.view(U32).astype(np.int64)
    sub = (ix > 0) & (ix < 0x00800000)
    if sub.any():
        scaled = (x * F32(2.0 ** 23)).view(U32).astype(np.int64)
        ix = np.where(sub, scaled - (23 << 23), ix)
    tmp = ix - _OFF
    i = (tmp >> (23 - 4)) % 16
    k = tmp >> 23                                  # arithmetic shift (tmp may be negative)
    iz = (ix - (tmp & (0x1FF << 23))).astype(U32)
    z = iz.view(F32).astype(F64)
    r = z * _INVC.take(i) - 1.0
    y0 = _LOGC.take(i) + k.astype(F64) * _LN2
    out = _log_poly(r, y0)
    bad = (ix <= 0) | (ix >= 0x7F800000) | (x < 0)
    if bad.any():  # zero, negative, inf, nan: as the C library (and IEEE) define them
        out = np.where(bad, np.log(x.astype(F64)).astype(F32), out)
    return out
