"""float32 math the way Paddle's CPU kernels compute it, bit for bit.

Paddle evaluates elementwise math with Eigen on a flattened tensor: the leading ``n // 8 * 8``
elements go through 8-wide AVX *packet* code (Eigen's own polynomial approximations), the
remaining tail through the *scalar* path (the C library's ``expf``, ``logf`` ..., or Eigen's scalar
code). Some functors call the C library for every element (``std::log``), some Eigen's fast
approximation everywhere (``tanh``), and Paddle 3.x takes sin/cos from SLEEF. The results differ
from correctly rounded values in the last bit often enough to show in printed tensors (Paddle
prints 8 significant digits), so each kernel here reproduces its algorithm:

- Eigen packet code is replayed with numpy float32 arithmetic in the same order (no FMA: Paddle's
  x86 build has none in Eigen; ``_madd`` rounds the product, then the sum);
- the C library's functions (``expf``, ``logf``, ``tanf`` ...: the same glibc Paddle links) run
  over whole arrays in numexpr's compiled loop (``_libm_numexpr``, checked bit for bit against
  the C library on first use). Without numexpr: glibc's ``expf`` and ``logf`` are replayed on
  whole arrays (``_glibc``, bit for bit), the others called through ``ctypes`` element by
  element for tensors up to ``LIBM_LIMIT`` elements; beyond that (or without a C library) the
  value is computed in float64 and rounded once, which differs from glibc in rare last-bit
  cases;
- ``_mm256_rsqrt_ps`` (used by Eigen's fast sqrt) is reproduced by its measured rule: 1/sqrt of
  the midpoint of the input's 10-bit mantissa bucket, rounded to 12 bits;
- same-shape float32 division goes to MKL's ``vsDiv``: an ``_mm512_rcp14_ps`` reciprocal (its
  table, read from the CPU, is stored compressed below) corrected by one FMA step;
- Paddle's ``pow`` op uses Eigen's double-word ``generic_pow`` on packets; Paddle 3.x's
  ``x ** y`` of two tensors uses SLEEF's ``powf_u10``, whose FMAs are emulated in float64.

Measured against Paddle 2.6.2 and 3.3.1 on 1007 random values per op (1000 packet + 7 tail
elements); see ``tests/test_math_ops.py``. float64 inputs use numpy (double results print with
8 digits, where last-bit differences do not show); float16 is computed in float32 and rounded.
"""
from __future__ import annotations

import ctypes
import ctypes.util

import numpy as np

from . import _glibc, _libm_numexpr
from ._util import array_like, quiet, scalar_of

F32 = np.float32
PACKET = 8              # floats per AVX register: Eigen's packet width in Paddle's build
# Without numexpr (see ``_libm_numexpr``, which is exact at every size): elements beyond which
# the C library is replaced by float64 rounding. Calling glibc element by
# element costs ~0.15 us an element (a batch-256 x 10-class softmax: 0.4 ms of a 3 ms training
# step; numpy in float64: 0.02 ms), and beyond it the two differ by one ulp in 52 (exp) and 190
# (log) elements of 100,000 measured, under a printed loss's last digit. Every example we compare
# byte for byte (conformance suites, docstrings, seeds) stays below it (the largest: 1,007).
LIBM_LIMIT = 1 << 10
# Functions numexpr does not serve (lgamma; double log2 and log, whose numexpr loops fail the
# probe; all of them without numexpr, except float32 exp/log's replay) call the C library
# element by element up to this many elements (~0.3 us an element: 20 ms at the limit),
# so that tensors of a few thousand elements keep glibc's bits (lgamma of 4,099 values: 3,466
# of them differed by float64 rounding, measured against Paddle 3.3.1).
LIBM_EXACT_LIMIT = 1 << 16


def _limit(name, dtype=F32):
    """LIBM_LIMIT where numexpr's loop serves ``name`` for ``dtype`` (its probe passed), else
    LIBM_EXACT_LIMIT (numexpr's double log2 and log fail the probe here: numpy's log2 beyond
    1,024 elements differed from glibc's in 4 of 4,099 values, measured against Paddle 3.3.1)."""
    ok = _libm_numexpr.function(_LIBM, name, dtype) is not None
    return LIBM_LIMIT if ok else LIBM_EXACT_LIMIT


def _c(v):
    return np.float32(v)


def _madd(a, b, c):
    """Eigen's ``pmadd`` without FMA: the product is rounded, then the sum."""
    return (a * b).astype(F32, copy=False) + c


def _fma(a, b, c):
    """A fused multiply-add in float32 (exact product, one rounding), via float64."""
    return (np.asarray(a, np.float64) * np.asarray(b, np.float64)
            + np.asarray(c, np.float64)).astype(F32)


# ------------------------------------------------------------------------------ dispatch
def eigen(packet, scalar):
    """A kernel that runs ``packet`` on the leading multiple of 8 elements, ``scalar`` on the rest."""
    def run(x):
        flat = x.reshape(-1)
        n8 = flat.size // PACKET * PACKET
        if n8 == flat.size:
            out = packet(flat)
        elif n8 == 0:
            out = scalar(flat)
        else:
            out = np.concatenate([packet(flat[:n8]), scalar(flat[n8:])])
        return np.asarray(out, F32).reshape(x.shape)
    return run


def float32_kernel(f32_fn, f64_fn, f32_scalar=None):
    """Apply ``f32_fn`` to float32 (and float16, rounded back) arrays, ``f64_fn`` to others.

    ``f32_scalar``, when given, computes one float32 value the same way without array calls:
    used for one-element tensors, where call overhead dominates.
    """
    def run(x):
        if x.dtype == np.float32:
            if f32_scalar is not None and x.size == 1:
                return array_like(x, f32_scalar(scalar_of(x)))
            return f32_fn(x)
        if x.dtype == np.float16:
            return f32_fn(x.astype(F32)).astype(np.float16)
        return f64_fn(x)
    return run


# ------------------------------------------------------------------------------ C library
def _load_libm():
    try:
        name = ctypes.util.find_library("m")
        return ctypes.CDLL(name) if name else None
    except OSError:
        return None


_LIBM = _load_libm()


# Without numexpr: glibc's expf and logf replayed on whole arrays (``_glibc``: the same bits,
# ~30 ns an element against ~0.4 us a ctypes call, but ~20 us of numpy calls per array), used
# past this many elements, and for any size where no C library can be called.
VECTOR_MIN = 48
_VECTOR = {"exp": _glibc.expf, "log": _glibc.logf}


def libm(name, f64_fn):
    """The C library's float function ``<name>f`` on every element (glibc: what Paddle calls)."""
    fn = getattr(_LIBM, name + "f", None) if _LIBM is not None else None
    if fn is not None:
        fn.restype = ctypes.c_float
        fn.argtypes = [ctypes.c_float]
        ufunc = np.frompyfunc(fn, 1, 1)
    vector = _VECTOR.get(name)
    limits = []

    def run(x):
        x = np.asarray(x, F32)
        if x.size > 1:  # numexpr's loop over the same C function (None: not usable here)
            loop = _libm_numexpr.function(_LIBM, name, F32)
            if loop is not None:
                return loop(x)
        if vector is not None and (x.size > VECTOR_MIN or fn is None):
            return vector(x)
        if not limits:
            limits.append(_limit(name, F32))
        if fn is None or x.size > limits[0]:
            with quiet(all="ignore"):
                return f64_fn(x.astype(np.float64)).astype(F32)
        if x.size == 0:
            return x.copy()
        return np.asarray(ufunc(x), dtype=F32).reshape(x.shape)
    return run


def libm_expression(text, names, uses, dtype=F32):
    """A float32 numexpr expression over arrays ``names`` that calls the C library's functions
    ``uses``, compiled once (None without a numexpr whose calls are the C library's: see
    ``_libm_numexpr.expression``)."""
    return _libm_numexpr.expression(_LIBM, text, names, dtype, uses)


# ------------------------------------------------------------------------------ Eigen packets
# ``_mm256_rsqrt_ps`` on AMD (read from an EPYC Zen 4, family 25 model 17): a function of the
# exponent's parity and the top 12 mantissa bits (all 2^24 inputs in [1, 4) checked), with 12
# significant bits, which no midpoint-and-round rule reproduces; the outputs for [1, 2) then
# [2, 4), as decrements of 2^-12 ulps from 0x3f7ff800, zlib'd and base64'd.
_AMD_RSQRT_DELTAS = (
    "eNrdlo2OwjAMg528/0OfdAe39TeYpGmBMaWeP6eimkREfj/4K6Iy1yI+Xpy8V6Pj35/phH3F313B+7jWaLQa/mqN"
    "YL7vFydTaDX81RrBfO3rpe7foWb53RoWf5HdutrH4rxZH+vyfN7XCOaj/Q6Ppky0kny2BstLeYmhcZjv5vFdF97N"
    "VedRGyOf5bN9k2fCHS3O/G79L+vjGGiQfHS/aB7Fk+f7celsfwdPRlw6ez9bl563ntbPzJOTtRo+gid5BPO9n4xm"
    "OdZK8qzG4vzIfxYlZ089eBbmdPGXeDenGsF+No8vm2fB+sYk4fW9fHS+0ZvnUCTnJ3xnHlzvZ/NtPnBY+YAKtC9+"
    "ORjONUiezSO5Hw7r5+XpfoG9P1HXHhbvjeR8NJ/dL9pv+cd6cFt+Nn9a/vT9rPsH+YQQAA=="
)
_AMD_RSQRT = None


def _stored_deltas(chunks):
    """A hardware table stored as zlib'd, base64'd byte deltas (the tables above): int64s."""
    import base64
    import zlib

    return np.frombuffer(zlib.decompress(base64.b64decode("".join(chunks))),
                         np.uint8).astype(np.int64)


def _amd_rsqrt_table():
    global _AMD_RSQRT
    if _AMD_RSQRT is None:
        steps = _stored_deltas(_AMD_RSQRT_DELTAS) * 2048
        bits = 0x3F7FF800 - np.concatenate([[0], np.cumsum(steps)])
        _AMD_RSQRT = bits.astype(np.uint32).view(F32).astype(np.float64)
    return _AMD_RSQRT


def rsqrt_approx(x):
    """``_mm256_rsqrt_ps`` as this CPU family computes it (12-bit approximation): AMD's table
    on an AMD CPU (``engine.cpu.cpu_class``), else the rule measured on Intel."""
    from .. import cpu

    x = np.asarray(x, F32)
    if cpu.cpu_class() == "amd":
        bits = x.view(np.uint32)
        e = ((bits >> 23) & 0xFF).astype(np.int64) - 127
        odd = e & 1
        idx = (odd << 12) | ((bits >> 11) & 0xFFF).astype(np.int64)
        with quiet(all="ignore"):
            out = (_amd_rsqrt_table()[idx] * np.exp2(-((e - odd) // 2).astype(np.float64))
                   ).astype(F32)
        flushed = (bits & np.uint32(0x7F800000)) == 0     # zero or denormal: taken as 0
        out = np.where(flushed, np.copysign(np.inf, x).astype(F32), out)
        out = np.where(np.isinf(x) & (x > 0), F32(0), out)
        return np.where(((x < 0) & ~flushed) | np.isnan(x), F32(np.nan), out)
    bits = x.view(np.uint32)
    e = ((bits >> 23) & 0xFF).astype(np.int64) - 127
    m = ((bits >> 13) & 0x3FF).astype(np.float64)
    odd = e & 1
    k = (e - odd) // 2
    y = (1.0 + (m + 0.5) / 1024.0) * np.where(odd == 1, 2.0, 1.0)
    r = 1.0 / np.sqrt(y)
    q = 2.0 ** (np.floor(np.log2(r)) - 12)
    r = np.round(r / q) * q
    with quiet(all="ignore"):
        out = (r * np.exp2(-k.astype(np.float64))).astype(F32)
    out = np.where(x == 0, np.copysign(np.inf, x).astype(F32), out)
    out = np.where(np.isinf(x) & (x > 0), F32(0), out)
    return np.where((x < 0) | np.isnan(x), F32(np.nan), out)


_FLT_MIN = F32(np.finfo(F32).tiny)


def packet_sqrt(x):
    """Eigen's fast ``psqrt``: one Newton step on the rsqrt approximation, times x."""
    with quiet(all="ignore"):
        half = x * _c(0.5)
        y = rsqrt_approx(x)
        y = y * (_c(1.5) - half * (y * y))
        out = x * y
    return np.where((x < _FLT_MIN) & (x >= 0), F32(0), out)


def packet_rsqrt(x):
    """Eigen's fast ``prsqrt``: one Newton step on the approximation (not for 0, inf, denormals)."""
    with quiet(all="ignore"):
        neg_half = x * _c(-0.5)
        y = rsqrt_approx(x)
        newton = y * _madd(y, neg_half * y, _c(1.5))
    special = (x < _FLT_MIN) | np.isinf(x)
    return np.where(special, y, newton)


def _ldexp(a, m):
    """Eigen's generic ``pldexp``: a * 2**m in four exact steps."""
    e = np.clip(m, -278, 278).astype(np.int32)
    b = e >> 2
    c = ((b + 127).astype(np.uint32) << 23).view(F32)
    with quiet(all="ignore"):
        out = a * c * c * c
        c2 = ((e - 3 * b + 127).astype(np.uint32) << 23).view(F32)
        return out * c2


def packet_exp(_x):
    """Eigen 3.4 ``pexp_float``: range reduction by ln 2, degree-6 polynomial, ldexp."""
    with quiet(all="ignore"):
        x = np.maximum(np.minimum(_x, _c(88.723)), _c(-88.723))
        m = np.floor(_madd(x, _c(1.44269504088896341), _c(0.5)))
        r = _madd(m, _c(-0.693359375), x)
        r = _madd(m, _c(2.12194440e-4), r)
        r2 = r * r
        r3 = r2 * r
        y = _madd(_c(1.9875691500E-4), r, _c(1.3981999507E-3))
        y1 = _madd(_c(4.1665795894E-2), r, _c(1.6666665459E-1))
        y2 = r + _c(1)
        y = _madd(y, r, _c(8.3334519073E-3))
        y1 = _madd(y1, r, _c(5.0000001201E-1))
        y = _madd(y, r3, y1)
        y = _madd(y, r2, y2)
        out = np.maximum(_ldexp(y, m), _x)
    return np.where(np.isnan(_x), _x, out)


_LOG_P = [_c(v) for v in (7.0376836292E-2, -1.1514610310E-1, 1.1676998740E-1, -1.2420140846E-1,
                          1.4249322787E-1, -1.6668057665E-1, 2.0000714765E-1, -2.4999993993E-1,
                          3.3333331174E-1)]


def packet_log(_x):
    """Eigen 3.4 ``plog_float``: frexp, shift to [sqrt(1/2), sqrt(2)), degree-8 polynomial."""
    with quiet(all="ignore"):
        x = np.maximum(_x, _FLT_MIN)
        bits = x.view(np.uint32)
        e = ((bits >> 23) & 0xFF).astype(F32) - _c(126)
        x = ((bits & np.uint32(0x807FFFFF)) | np.uint32(0x3F000000)).view(F32)
        mask = x < _c(0.707106781186547524)
        tmp = np.where(mask, x, F32(0))
        x = x - _c(1)
        e = e - np.where(mask, F32(1), F32(0))
        x = x + tmp
        x2 = x * x
        x3 = x2 * x
        p = _LOG_P
        y = _madd(p[0], x, p[1])
        y1 = _madd(p[3], x, p[4])
        y2 = _madd(p[6], x, p[7])
        y = _madd(y, x, p[2])
        y1 = _madd(y1, x, p[5])
        y2 = _madd(y2, x, p[8])
        y = _madd(y, x3, y1)
        y = _madd(y, x3, y2)
        y = y * x3
        y = _madd(_c(-0.5), x2, y)
        x = x + y
        x = _madd(e, _c(0.693147180559945309), x)
    out = np.where(_x == np.inf, F32(np.inf), x)
    out = np.where((_x < 0) | np.isnan(_x), F32(np.nan), out)
    return np.where(_x == 0, F32(-np.inf), out)


def packet_expm1(x):
    """Eigen's ``generic_expm1`` (Kahan's formula over the packet exp and log)."""
    with quiet(all="ignore"):
        u = packet_exp(x)
        um1 = u - _c(1)
        logu = packet_log(u)
        expm1 = um1 * (x / logu)
        expm1 = np.where(logu == u, u, expm1)
        out = np.where(um1 == _c(-1), F32(-1), expm1)
        return np.where(u == _c(1), x, out)


_TANH_A = [_c(v) for v in (4.89352455891786e-03, 6.37261928875436e-04, 1.48572235717979e-05,
                           5.12229709037114e-08, -8.60467152213735e-11, 2.00018790482477e-13,
                           -2.76076847742355e-16)]
_TANH_B = [_c(v) for v in (4.89352518554385e-03, 2.26843463243900e-03, 1.18534705686654e-04,
                           1.19825839466702e-06)]


def fast_tanh(a):
    """Eigen 3.4 ``generic_fast_tanh_float``: a 13/6 rational function, clamped; used by Paddle
    for every element (packet and scalar path alike)."""
    c = _c(7.90531110763549805)
    with quiet(all="ignore"):
        x = np.maximum(np.minimum(a, c), -c)
        x2 = x * x
        al, be = _TANH_A, _TANH_B
        p = _madd(x2, al[6], al[5])
        for k in (4, 3, 2, 1, 0):
            p = _madd(x2, p, al[k])
        p = x * p
        q = _madd(x2, be[3], be[2])
        q = _madd(x2, q, be[1])
        q = _madd(x2, q, be[0])
        r = p / q
    r = np.where(np.abs(a) < _c(0.0004), x, r)
    return np.where(np.isnan(a), a, r)


_TANH_CLAMP = _c(7.90531110763549805)
_TANH_SMALL = _c(0.0004)


def fast_tanh_scalar(v):
    """``fast_tanh`` for one float32 value: the same float32 operations in the same order, on
    numpy float32 scalars (a one-element tensor skips ~30 array calls; tests compare the two)."""
    if v != v:
        return v
    x = _TANH_CLAMP if v > _TANH_CLAMP else (-_TANH_CLAMP if v < -_TANH_CLAMP else v)
    if abs(v) < _TANH_SMALL:
        return x
    x2 = x * x
    al, be = _TANH_A, _TANH_B
    p = x2 * al[6] + al[5]
    for k in (4, 3, 2, 1, 0):
        p = x2 * p + al[k]
    p = x * p
    q = x2 * be[3] + be[2]
    q = x2 * q + be[1]
    q = x2 * q + be[0]
    return p / q


# ------------------------------------------------------------------------------ SLEEF (3.x)
_SLEEF_POLY = [_c(v) for v in (2.6083159809786593541503e-06, -0.0001981069071916863322258,
                               0.00833307858556509017944336, -0.166666597127914428710938)]
_PI_3 = (3.1414794921875, 0.00011315941810607910156, 1.9841872589410058936e-09)
_PI_4 = (3.140625, 0.0009670257568359375, 6.2771141529083251953e-07, 1.2154201256553420762e-10)


def _sleef_reduce(d, q, half):
    big = np.abs(d) >= _c(125)
    parts3 = [_c(-v * half) for v in _PI_3]
    parts4 = [_c(-v * half) for v in _PI_4]
    r3 = d
    for c in parts3:
        r3 = _fma(q, c, r3)
    if not big.any():
        return r3
    r4 = d
    for c in parts4:
        r4 = _fma(q, c, r4)
    return np.where(big, r4, r3)


def _sleef_poly(d, s):
    u = _SLEEF_POLY[0]
    for c in _SLEEF_POLY[1:]:
        u = _fma(u, s, c)
    return (s * (u * d)).astype(F32) + d


def sleef_sin(x):
    """SLEEF ``Sleef_sinf1_u35`` (Paddle 3.x's float sine): pi reduction, odd polynomial."""
    with quiet(all="ignore"):
        q = np.rint(x * _c(1 / np.pi)).astype(F32)
        d = _sleef_reduce(x, q, 1.0)
        s = d * d
        d = np.where(np.fmod(q, 2) != 0, -d, d)
        u = _sleef_poly(d, s)
    u = np.where((x == 0) & np.signbit(x), F32(-0.0), u)
    return _sleef_huge(x, u, np.sin)


def sleef_cos(x):
    """SLEEF ``Sleef_cosf1_u35`` (Paddle 3.x's float cosine)."""
    with quiet(all="ignore"):
        q = (_c(1) + _c(2) * np.rint(x * _c(1 / np.pi) - _c(0.5))).astype(F32)
        d = _sleef_reduce(x, q, 0.5)
        s = d * d
        d = np.where(np.fmod(q, 4) == 1, -d, np.where(np.fmod(q, 4) == -3, -d, d))
        u = _sleef_poly(d, s)
    return _sleef_huge(x, u, np.cos)


def _sleef_huge(x, u, f64_fn):
    huge = ~(np.abs(x) < _c(39000))
    if huge.any():
        with quiet(all="ignore"):
            u = np.where(huge, f64_fn(x.astype(np.float64)).astype(F32), u)
    return u.astype(F32)


# ------------------------------------------------------------------------------ the kernels
def _inv_sqrt(x):
    with quiet(all="ignore"):
        return _c(1) / np.sqrt(x)


def _np(fn):
    def run(x):
        with quiet(all="ignore"):
            return fn(x)
    return run


# ------------------------------------------------------------------------------ float64
# Paddle's float64 kernels call glibc's double functions (tanh, sinh, cosh, expm1, tan, atan,
# log2, log10 ...), whose last bit differs from numpy's in about a fifth of the values; exp
# runs Eigen's ``pexp_double`` on 4-wide packets and glibc ``exp`` on the tail (measured bit
# for bit on Paddle 2.6.2 and 3.3.1).
PACKET64 = 4            # doubles per AVX register


def libm64(name, f64_fn):
    """The C library's double function ``name`` on every element (numpy beyond LIBM_LIMIT)."""
    fn = getattr(_LIBM, name, None) if _LIBM is not None else None
    if fn is not None:
        fn.restype = ctypes.c_double
        fn.argtypes = [ctypes.c_double]
        ufunc = np.frompyfunc(fn, 1, 1)
    limits = []

    def run(x):
        if x.size > 1 and x.dtype == np.float64:
            loop = _libm_numexpr.function(_LIBM, name, np.float64)
            if loop is not None:
                return loop(x)
        if not limits:
            limits.append(_limit(name, np.float64))
        if fn is None or x.size > limits[0] or x.dtype != np.float64:
            with quiet(all="ignore"):
                return f64_fn(x)
        if x.size == 0:
            return x.copy()
        return np.asarray(ufunc(x), dtype=np.float64).reshape(x.shape)
    return run


def _ldexp64(a, m):
    """Eigen's generic ``pldexp`` for doubles: a * 2**m in four exact steps."""
    e = np.clip(m, -2099, 2099).astype(np.int64)
    b = e >> 2
    c = ((b + 1023).astype(np.uint64) << 52).view(np.float64)
    with quiet(all="ignore"):
        out = a * c * c * c
        c2 = ((e - 3 * b + 1023).astype(np.uint64) << 52).view(np.float64)
        return out * c2


def packet_exp64(_x):
    """Eigen 3.4 ``pexp_double``: Cephes' rational approximation after reduction by ln 2."""
    with quiet(all="ignore"):
        x = np.maximum(np.minimum(_x, 709.784), -709.784)
        fx = np.floor(1.4426950408889634073599 * x + 0.5)
        x = x - fx * 0.693145751953125
        x = x - fx * 1.42860682030941723212e-6
        x2 = x * x
        px = (1.26177193074810590878e-4 * x2 + 3.02994407707441961300e-2) * x2
        px = (px + 9.99999999999999999910e-1) * x
        qx = 3.00198505138664455042e-6 * x2 + 2.52448340349684104192e-3
        qx = qx * x2 + 2.27265548208155028766e-1
        qx = qx * x2 + 2.00000000000000000009e0
        y = 2.0 * (px / (qx - px)) + 1.0
        out = np.maximum(_ldexp64(y, fx), _x)
        out = np.where(_x < -709.784, 0.0, out)
    return np.where(np.isnan(_x), _x, out)


_LOG64_P = (1.01875663804580931796e-4, 4.97494994976747001425e-1, 4.70579119878881725854e0,
            1.44989225341610930846e1, 1.79368678507819816313e1, 7.70838733755885391666e0)
_LOG64_Q = (1.0, 1.12873587189167450590e1, 4.52279145837532221105e1, 8.29875266912776603211e1,
            7.11544750618563894466e1, 2.31251620126765340583e1)


def packet_log64(_x):
    """Eigen 3.4 ``plog_double``: frexp, shift to [sqrt(1/2), sqrt(2)), Cephes' rational
    approximation P(x)/Q(x) evaluated in two halves, no FMA (softplus/log_sigmoid's float64
    ``.log()``: 4,000 random softplus values equal to real Paddle 3.3.1)."""
    with quiet(all="ignore"):
        x = np.maximum(_x, np.finfo(np.float64).tiny)
        bits = x.view(np.uint64)
        e = ((bits >> np.uint64(52)) & np.uint64(0x7FF)).astype(np.float64) - 1022.0
        x = ((bits & np.uint64(0x800FFFFFFFFFFFFF)) | np.uint64(0x3FE0000000000000)
             ).view(np.float64)
        mask = x < 0.70710678118654752440
        tmp = np.where(mask, x, 0.0)
        x = x - 1.0
        e = e - np.where(mask, 1.0, 0.0)
        x = x + tmp
        x2 = x * x
        x3 = x2 * x
        halves = []
        for c in (_LOG64_P, _LOG64_Q):
            y = c[0] * x + c[1]
            y1 = c[3] * x + c[4]
            y = y * x + c[2]
            y1 = y1 * x + c[5]
            halves.append(y * x3 + y1)
        y = (halves[0] * x3) / halves[1]
        x = x + (-0.5 * x2 + y)
        x = e * 0.693147180559945309417232121458 + x
    out = np.where(_x == np.inf, np.inf, x)
    out = np.where((_x < 0) | np.isnan(_x), np.nan, out)
    return np.where(_x == 0, -np.inf, out)


def eigen64(packet, scalar):
    """``eigen`` for doubles: ``packet`` on the leading multiple of 4 elements, ``scalar`` after."""
    def run(x):
        if x.dtype != np.float64:
            return scalar(x)
        flat = x.reshape(-1)
        n4 = flat.size // PACKET64 * PACKET64
        if n4 == flat.size:
            out = packet(flat)
        elif n4 == 0:
            out = scalar(flat)
        else:
            out = np.concatenate([packet(flat[:n4]), scalar(flat[n4:])])
        return np.asarray(out, np.float64).reshape(x.shape)
    return run


exp = float32_kernel(eigen(packet_exp, libm("exp", np.exp)),
                     eigen64(packet_exp64, libm64("exp", np.exp)))
expm1 = float32_kernel(eigen(packet_expm1, libm("expm1", np.expm1)), libm64("expm1", np.expm1))
log = float32_kernel(libm("log", np.log), _np(np.log))
log2 = float32_kernel(libm("log2", np.log2), libm64("log2", np.log2))
log10 = float32_kernel(libm("log10", np.log10), libm64("log10", np.log10))
log1p = float32_kernel(libm("log1p", np.log1p), libm64("log1p", np.log1p))  # glibc log1p: 3.3.1, 2.6.2
sqrt = float32_kernel(eigen(packet_sqrt, _np(np.sqrt)), _np(np.sqrt))
rsqrt = float32_kernel(eigen(packet_rsqrt, _inv_sqrt), _inv_sqrt)
tanh = float32_kernel(fast_tanh, libm64("tanh", np.tanh), fast_tanh_scalar)
tan = float32_kernel(libm("tan", np.tan), libm64("tan", np.tan))
asin = float32_kernel(libm("asin", np.arcsin), libm64("asin", np.arcsin))
acos = float32_kernel(libm("acos", np.arccos), libm64("acos", np.arccos))
atan = float32_kernel(libm("atan", np.arctan), libm64("atan", np.arctan))
sinh = float32_kernel(libm("sinh", np.sinh), libm64("sinh", np.sinh))
cosh = float32_kernel(libm("cosh", np.cosh), libm64("cosh", np.cosh))
sin_libm = float32_kernel(libm("sin", np.sin), _np(np.sin))
cos_libm = float32_kernel(libm("cos", np.cos), _np(np.cos))


def _sleef64(name):
    """Paddle 3.x's double sin / cos: SLEEF's 1-ulp scalar functions (``_sleef_trig64``)."""
    def run(x):
        from . import _sleef_trig64

        if x.dtype != np.float64:
            return _np(getattr(np, name))(x)
        return getattr(_sleef_trig64, name + "d_u10")(x)
    return run


sin_sleef = float32_kernel(sleef_sin, _sleef64("sin"))
cos_sleef = float32_kernel(sleef_cos, _sleef64("cos"))


def sigmoid(x):
    """Paddle's ``1 / (1 + exp(-x))`` with Eigen's exp."""
    with quiet(all="ignore"):
        one = np.ones((), x.dtype)
        return one / (one + exp(-x))


def _libm2(name, f64_fn, ctype=ctypes.c_float, dtype=F32):
    """A two-argument C library function elementwise (same-shape arrays): ``powf`` for float32,
    ``pow`` for float64 (``ctype``/``dtype``)."""
    fn = getattr(_LIBM, name, None) if _LIBM is not None else None
    if fn is not None:
        fn.restype = ctype
        fn.argtypes = [ctype, ctype]
        ufunc = np.frompyfunc(fn, 2, 1)

    base = name[:-1] if dtype == F32 else name

    def run(x, y):
        x, y = np.asarray(x, dtype), np.asarray(y, dtype)
        if x.size > 1 and x.shape == y.shape:  # numexpr's loop over the same C function
            loop = _libm_numexpr.function2(_LIBM, base, dtype)
            if loop is not None:
                return loop(x, y)
        if fn is None or x.size > LIBM_EXACT_LIMIT:
            with quiet(all="ignore"):
                return f64_fn(x.astype(np.float64), y.astype(np.float64)).astype(dtype)
        if x.size == 0:
            return x.copy()
        return np.asarray(ufunc(x, y), dtype=dtype).reshape(x.shape)
    return run


powf = _libm2("powf", np.power)
pow64 = _libm2("pow", np.power, ctypes.c_double, np.float64)

_ERF_A = [_c(v) for v in (-1.60960333262415e-02, -2.95459980854025e-03, -7.34990630326855e-04,
                          -5.69250639462346e-05, -2.10102402082508e-06, 2.77068142495902e-08,
                          -2.72614225801306e-10)]
_ERF_B = [_c(v) for v in (-1.42647390514189e-02, -7.37332916720468e-03, -1.68282697438203e-03,
                          -2.13374055278905e-04, -1.45660718464996e-05)]


def fast_erf(a):
    """Eigen's ``generic_fast_erf_float``: a 13/8 rational function on [-4, 4], every element."""
    with quiet(all="ignore"):
        x = np.clip(a, _c(-4), _c(4))
        x2 = x * x
        p = _madd(x2, _ERF_A[6], _ERF_A[5])
        for k in (4, 3, 2, 1, 0):
            p = _madd(x2, p, _ERF_A[k])
        p = x * p
        q = _madd(x2, _ERF_B[4], _ERF_B[3])
        for k in (2, 1, 0):
            q = _madd(x2, q, _ERF_B[k])
        return np.where(np.isnan(a), a, p / q)


def _erf64(x):
    import math

    return np.vectorize(math.erf, otypes=[np.float64])(x)


erf = float32_kernel(fast_erf, _np(_erf64))


# ------------------------------------------------------------------------------ MKL division
# ``_mm512_rcp14_ps`` depends only on the top 16 mantissa bits (and is exact for powers of two).
# Its 65536 values (in units of 2**-17, for mantissas in [1, 2)) decrease by 0, 1 or 2 from one
# bucket to the next; the decrements were read from an Intel AVX-512 CPU, zlib'd and base64'd.
_RCP14_DELTAS = (
    "eNrtl+tyAyEIhdHp+z9z/7TpXtRVi67Cl028wIEDh0mm/YrXV4hPL18I2kUQu4gw82iBwVg7CMb8q7algRRnsjgkHg6U"
    "z3GHhULdFoqsY5ZPuRUfg1Df3QNFqFBx0oQ6JkMl5r8oWbjcng0hDjfYoEA55r8wxeHatHQF7RXpoEXEYf7HbdxhOAGt"
    "IBqttBL8We5PwdXvHJI00AbC0UaPM/HUmWpxhNoMRRMLQ7z4Qvoe/gXbN9p8g8jjvMHDjcXpggpuFzncsseyVy/GByXK"
    "MP9lKOVoqH33xCxKY6gVaFCsPSYR22/4V/DK2cw2hkzeG/s5Hz/Ppq6gbpMZNhpBtrXYLrYboPLSAJ1AsW01FI6Mcynk"
    "ZCsvwOzBUMX5/H+32+rD7KlXzEhwXeP1d+Dkr9g0EDsAKY75Gyzu+IfAbX82OELSKqIYRH68ydMI487ZaQi5TGY/wG63"
    "8lUN+wrp8gVCiioDsfECSod2WAOJd0iMms4TZzKHFkIlOMnnJ0dF5/P3/kIu5u/4JQvBSW4sOSrulVwaU0p4K2C9RIhH"
    "CxsySwYr5VRe3OjA/E2748PvwoSzUAKdU8I7tPF8T5xsOx23jhNdCv8ISK3DHpJWEcVRq5J0lbYpGF+FIDvzfwFzcqx/"
    "oVwEpVz1CjMrZq9mJPAy6AtCUncZCyK92fQouPqAkjAJVYsfGKowf6uwlLvvoJFDKIjuKGhaQX/3G6Bo9B2GRszfRFgW"
    "N+vzKjkFMH/vBSSsz6auoG7TnqmRjUb2YWuwtDvGQJ2WDB0KqeWId38uU4lB0e6xCopHwnfSSc51Oj0CGqCOyVCJ+S9K"
    "ljUZt7psGimY/887FoRRfM/ggGZdGhRbdTC1SE0U6ZZJhyTO0+XxD4ZWvFsKlGP+y1LEmztxLHv1Yl6g3KRMKFFmSEzM"
    "IJv294Lfr4DyEdBK+VzcXRCC+ScsFUtX0F6RDlpEHOctXkxpYCHH5gF2OyMAKWqsBd/MM+SoAPl88qNFdRuW2G+xSMr8"
    "1bekVerMYj2aBpHHeIOSARQOPTF9B0NMtIJo6zElfwE0jsrpnJeJsMx/SDrJZb79hdBzsRpFk0hjI0ry/we4MHjrFwMC"
    "lL//WaHazUppnJeIuMx/WBoJNY8WaCqZ5bIRkvmrgOq+/63PPkl3qpWkCKD9fAM68QAQ"
)
_RCP14 = None


def _rcp14_table():
    global _RCP14
    if _RCP14 is None:
        deltas = _stored_deltas(_RCP14_DELTAS)
        _RCP14 = (131072 - np.cumsum(deltas)).astype(np.float64) * 2.0 ** -17
    return _RCP14


def rcp14(x):
    """``_mm512_rcp14_ps``: a reciprocal with 14 good bits, as the hardware computes it."""
    x = np.asarray(x, F32)
    bits = x.view(np.uint32)
    e = ((bits >> 23) & 0xFF).astype(np.int64)
    m = bits & np.uint32(0x7FFFFF)
    base = np.where(m == 0, 1.0, _rcp14_table()[(m >> 7).astype(np.int64)])
    with quiet(all="ignore"):
        r = np.where(np.signbit(x), -base, base) * np.exp2(127.0 - e)
        out = r.astype(F32)
        exact = (F32(1) / x).astype(F32)
    special = (e == 0) | (e == 255)  # zero, denormal, inf, nan: the plain reciprocal
    return np.where(special, exact, out)


def mkl_div(a, b):
    """MKL's ``vsDiv`` (Paddle's same-shape float32 division): the rcp14 quotient, corrected
    once with fused multiply-adds: q0 = a * r; q = fma(fma(-q0, b, a), r, q0)."""
    a, b = np.asarray(a, F32), np.asarray(b, F32)
    with quiet(all="ignore"):
        r = rcp14(b)
        q0 = a * r
        e = _fma(-q0, b, a)
        q = _fma(e, r, q0)
        exact = a / b
    # zeros, infinities and NaNs: IEEE division
    ok = np.isfinite(q) & np.isfinite(exact) & (b != 0) & (a != 0)
    return np.where(ok, q, exact)


_VMD_DIV: list = []


def mkl_div64(a, b):
    """MKL's ``vmdDiv`` in its HA mode (Paddle's same-shape float64 division, as vsDiv is its
    float32 one): the MKL here on this CPU, or None without MKL. Real 3.3.1 and 2.6.2 on this
    Sapphire Rapids: 100,000 of 100,000 quotients equal (specials included; IEEE 99,890)."""
    if not _VMD_DIV:
        from .. import mkl

        lib = mkl.load()
        f = getattr(lib, "vmdDiv", None) if lib else None
        if f is not None:
            f.argtypes = (ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                          ctypes.c_longlong)
            f.restype = None
        _VMD_DIV.append(f)
    f = _VMD_DIV[0]
    if f is None or a.size >= 1 << 31:
        return None
    shape = np.shape(a)   # (ascontiguousarray makes a 0-d array 1-d)
    a = np.ascontiguousarray(a, np.float64)
    b = np.ascontiguousarray(b, np.float64)
    out = np.empty_like(a)
    if a.size:
        f(a.size, a.ctypes.data, b.ctypes.data, out.ctypes.data, 0x2)   # VML_HA
    return out.reshape(shape)


# ------------------------------------------------------------------------------ Eigen pow
# Eigen's packet ``pow(x, y)`` (``generic_pow``): log2 and exp2 in double-word float32 arithmetic
# (Dekker products with Veltkamp splitting, as Paddle's build has no FMA). Paddle's ``pow`` op
# (``x ** 2.0``) runs it on the packet part; the tail uses ``powf``.
def _split(a):
    gamma = _c(4097) * a
    hi = (a - gamma) + gamma
    return hi, a - hi


def _twoprod(x, y):
    xh, xl = _split(x)
    yh, yl = _split(y)
    p_hi = x * y
    p_lo = _madd(xh, yh, -p_hi)
    p_lo = _madd(xh, yl, p_lo)
    p_lo = _madd(xl, yh, p_lo)
    return p_hi, _madd(xl, yl, p_lo)


def _fast_twosum(x, y):
    s = x + y
    return s, y - (s - x)


def _twoprod_dwf(xh, xl, y):
    c_hi, c_lo1 = _twoprod(xh, y)
    t_hi, t_lo1 = _fast_twosum(c_hi, xl * y)
    return _fast_twosum(t_hi, t_lo1 + c_lo1)


def _fast_twosum_dw(xh, xl, yh, yl):
    r_hi, r_lo = _fast_twosum(xh, yh)
    return _fast_twosum(r_hi, (yl + r_lo) + xl)


def _twosum_dw(xh, xl, yh, yl):
    bigger = np.abs(yh) < np.abs(xh)
    r1_hi, r1_lo = _fast_twosum(xh, yh)
    r2_hi, r2_lo = _fast_twosum(yh, xh)
    r_hi = np.where(bigger, r1_hi, r2_hi)
    s = np.where(bigger, (yl + r1_lo) + xl, (xl + r2_lo) + yl)
    return _fast_twosum(r_hi, s)


_LOG2_P = [_c(v) for v in (0.2885761857032, -0.2404672354459, 0.2050433009862, -0.1789081543684,
                           0.1720575392246, -0.1690667718648, 9.703654795885e-2)]
_LOG2_C = [(_c(h), _c(lo)) for h, lo in ((1.44269502163, 2.01711713999e-08),
                                         (-0.721347510815, -4.84483164698e-09),
                                         (0.480897903442, -1.44861207474e-08),
                                         (-0.360674142838, -6.13283912543e-09))]


def _accurate_log2(z):
    p = _LOG2_P
    x = z - _c(1)
    x2 = x * x
    p_even = _madd(_madd(_madd(p[6], x2, p[4]), x2, p[2]), x2, p[0])
    p_odd = _madd(_madd(p[5], x2, p[3]), x2, p[1])
    poly = _madd(p_odd, x, p_even)
    t_hi, t_lo = _twoprod(poly, x)
    q_hi, q_lo = _fast_twosum_dw(*_LOG2_C[3], t_hi, t_lo)
    for k in (2, 1, 0):
        t_hi, t_lo = _twoprod_dwf(q_hi, q_lo, x)
        q_hi, q_lo = _fast_twosum_dw(*_LOG2_C[k], t_hi, t_lo)
    return _twoprod_dwf(q_hi, q_lo, x)


_EXP2_P = [_c(v) for v in (0.2402264923, 5.550328270e-2, 9.618283249e-3, 1.340007293e-3,
                           1.539513905e-4)]


def _accurate_exp2(x):
    p = _EXP2_P
    x2 = x * x
    p_even = _madd(_madd(p[4], x2, p[2]), x2, p[0])
    p_odd = _madd(p[3], x2, p[1])
    poly = _madd(p_odd, x, p_even)
    p_hi, p_lo = _twoprod(poly, x)
    q1_hi, q1_lo = _twosum_dw(p_hi, p_lo, _c(0.6931471825), _c(2.36836577e-08))
    q2_hi, q2_lo = _twoprod_dwf(q1_hi, q1_lo, x)
    q3_hi, q3_lo = _fast_twosum(_c(1), q2_hi)
    return q3_hi + (q2_lo + q3_lo)


def _pround(a):
    """Eigen's AVX ``pround``: halves away from zero (adds the float just below 0.5)."""
    return np.trunc(a + np.copysign(_c(0.49999997), a)).astype(F32)


def _pow_positive(x, y):
    m, e = np.frexp(x)
    m, e = m.astype(F32), e.astype(F32)
    low = m < _c(0.70710678118654752440)
    m = np.where(low, _c(2) * m, m)
    e = np.where(low, e - _c(1), e)
    rx_hi, rx_lo = _accurate_log2(m)
    f1_hi, f1_lo = _twoprod(e, y)
    f2_hi, f2_lo = _twoprod_dwf(rx_hi, rx_lo, y)
    f_hi, f_lo = _fast_twosum_dw(f1_hi, f1_lo, f2_hi, f2_lo)
    n_z = _pround(f_hi)
    r_z = (f_hi - n_z) + f_lo
    n_r = _pround(r_z)
    r_z = r_z - n_r
    n_z = n_z + n_r
    return _ldexp(_accurate_exp2(r_z), n_z)


def packet_pow(x, y):
    """Eigen's ``generic_pow`` with its special cases (x < 0 needs an integer y)."""
    x, y = np.asarray(x, F32), np.asarray(y, F32)
    with quiet(all="ignore"):
        ax = np.abs(x)
        y_int = np.floor(y) == y
        y_even = _pround(y * _c(0.5)) == y * _c(0.5)
        out = _pow_positive(np.where(ax == 0, F32(1), ax), y)
        out = np.where(np.signbit(x) & (ax != 0) & y_int & ~y_even, -out, out)
        special = (ax == 0) | np.isinf(ax) | np.isinf(y) | np.isnan(x) | np.isnan(y) | \
            ((x < 0) & ~y_int) | (ax == 1) | (y == 0)
        if special.any():
            out = np.where(special, np.power(x, y), out)
        return np.where(y == 1, x, out).astype(F32)


def eigen_pow(x, y):
    """Paddle's ``pow`` op on float32: packets via Eigen, the tail via ``powf``."""
    flat_x, flat_y = x.reshape(-1), np.broadcast_to(y, x.shape).reshape(-1)
    n8 = flat_x.size // PACKET * PACKET
    out = np.empty(flat_x.size, F32)
    if n8:
        out[:n8] = packet_pow(flat_x[:n8], flat_y[:n8])
    if n8 < flat_x.size:
        out[n8:] = powf(flat_x[n8:], np.array(flat_y[n8:]))
    return out.reshape(x.shape)


# ------------------------------------------------------------------------------ SLEEF powf
# Paddle 3.x computes ``x ** y`` (two float32 tensors) with SLEEF's ``powf_u10`` (16-wide AVX-512,
# and its scalar twin for the tail): log and exp in double-float arithmetic with fused
# multiply-adds. The FMAs are emulated in float64 (exact products; the rare double rounding of
# a sum is ignored).
def _fmapn(x, y, z):  # x * y - z, fused
    return _fma(x, y, -np.asarray(z, F32))


def _fmanp(x, y, z):  # -x * y + z, fused
    return _fma(-np.asarray(x, F32), y, z)


def _df_add2_ff(x, y):
    s = x + y
    v = s - x
    return s, (x - (s - v)) + (y - v)


def _df_add2_dff(xx, xy, y):
    s = xx + y
    v = s - xx
    return s, ((xx - (s - v)) + (y - v)) + xy


def _df_add2_dd(xx, xy, yx, yy):
    s = xx + yx
    v = s - xx
    return s, ((xx - (s - v)) + (yx - v)) + (xy + yy)


def _df_add_dd(xx, xy, yx, yy):
    s = xx + yx
    return s, (((xx - s) + yx) + xy) + yy


def _df_add_fd(x, yx, yy):
    s = x + yx
    return s, ((x - s) + yx) + yy


def _df_mul_df(xx, xy, y):
    s = xx * y
    return s, _fma(xy, y, _fmapn(xx, y, s))


def _df_mul_dd(xx, xy, yx, yy):
    s = xx * yx
    return s, _fma(xx, yy, _fma(xy, yx, _fmapn(xx, yx, s)))


def _df_squ(xx, xy):
    s = xx * xx
    return s, _fma(xx + xx, xy, _fmapn(xx, xx, s))


def _df_div(nx, ny, dx, dy):
    t = _c(1) / dx
    s = nx * t
    u = _fmapn(t, nx, s)
    v = _fmanp(dy, t, _fmanp(dx, t, _c(1)))
    return s, _fma(s, v, _fma(ny, t, u))


def _sleef_logk(d):
    """SLEEF ``logkf``: log(d) as a double-float (AVX-512 getexp/getmant reduction)."""
    e = np.floor(np.log2((d * _c(1.0 / 0.75)).astype(np.float64))).astype(F32)
    f, k = np.frexp(d)  # d = f * 2**k, f in [0.5, 1)
    f = (f * 2).astype(F32)  # [1, 2)
    m = np.where(f >= _c(1.5), f * _c(0.5), f).astype(F32)
    xx, xy = _df_div(*_df_add2_ff(_c(-1), m), *_df_add2_ff(_c(1), m))
    x2x, x2y = _df_squ(xx, xy)
    t = _fma(_fma(_c(0.240320354700088500976562), x2x, _c(0.285112679004669189453125)), x2x,
             _c(0.400007992982864379882812))
    cx, cy = _c(0.66666662693023681640625), _c(3.69183861259614332084311e-09)
    a = _df_mul_df(_c(0.69314718246459960938), _c(-1.904654323148236017e-09), e)
    inner = _df_add2_dd(*_df_mul_df(x2x, x2y, t), cx, cy)
    cube = _df_mul_dd(*_df_mul_dd(x2x, x2y, xx, xy), *inner)
    b = _df_add2_dd(xx * _c(2), xy * _c(2), *cube)
    return _df_add2_dd(*a, *b)


_EXPK_P = [_c(v) for v in (0.00136324646882712841033936, 0.00836596917361021041870117,
                           0.0416710823774337768554688, 0.166665524244308471679688,
                           0.499999850988388061523438)]


def _sleef_expk(dx, dy):
    """SLEEF ``expkf``: exp of a double-float."""
    q = np.rint((dx + dy) * _c(1.442695040888963407359924681001892137426645954152985934))
    q = q.astype(F32)
    sx, sy = _df_add2_dff(dx, dy, q * _c(-0.693145751953125))
    sx, sy = _df_add2_dff(sx, sy, q * _c(-1.428606765330187045e-06))
    s = sx + sy
    sx, sy = s, (sx - s) + sy
    u = _EXPK_P[0]
    for c in _EXPK_P[1:]:
        u = _fma(u, sx, c)
    tx, ty = _df_add_dd(sx, sy, *_df_mul_df(*_df_squ(sx, sy), u))
    tx, ty = _df_add_fd(_c(1), tx, ty)
    out = _ldexp(tx + ty, q)
    return np.where(dx < _c(-104), F32(0), out)


def sleef_pow(x, y):
    """SLEEF ``xpowf`` with its special cases (IEEE pow semantics)."""
    x, y = np.broadcast_arrays(np.asarray(x, F32), np.asarray(y, F32))
    with quiet(all="ignore"):
        ax = np.abs(x)
        y_int = (np.trunc(y) == y) | (np.abs(y) > _c(1 << 23))
        y_odd = y_int & (np.fmod(np.trunc(np.where(np.isfinite(y), y, 0)), 2) != 0)
        lx, ly = _sleef_logk(np.where((ax == 0) | ~np.isfinite(ax), F32(1), ax))
        r = _sleef_expk(*_df_mul_df(lx, ly, y))
        r = np.where(np.isnan(r), F32(np.inf), r)
        r = r * np.where(x > 0, F32(1), np.where(y_int, np.where(y_odd, F32(-1), F32(1)),
                                                    F32(np.nan)))
        efx = np.copysign(ax - _c(1), y)
        r = np.where(np.isinf(y), np.where(efx < 0, F32(0),
                                           np.where(efx == 0, F32(1), F32(np.inf))), r)
        edge = np.where(x == 0, -y, y) < 0
        r = np.where(np.isinf(x) | (x == 0),
                     np.where(y_odd, np.sign(x), F32(1)) * np.where(edge, F32(0), F32(np.inf)), r)
        r = np.where(np.isnan(x) | np.isnan(y), F32(np.nan), r)
        r = np.where((y == 0) | (x == 1), F32(1), r)
    return r.astype(F32)
