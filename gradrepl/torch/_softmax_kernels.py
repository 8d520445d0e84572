"""torch 2.13's CPU softmax / log_softmax / nll_loss kernels in numpy (float32), so that
``F.softmax``, ``F.log_softmax``, ``F.cross_entropy`` and their gradients round as torch's do.

What torch does along a contiguous last dim (``aten/src/ATen/native/cpu/SoftMaxKernel.cpp``,
vectorised with ``Vectorized<float>``: 16 lanes under torch's AVX512 capability, 8 under AVX2
(softmax is registered with ``ALSO_REGISTER_AVX512_DISPATCH``; ``_capability.lanes``), below
``L``; checked bit for bit against torch 2.13 under both capabilities on this machine):

- the row maximum, then ``exp(x - max)`` by SLEEF's ``expf_u10`` (``vexp`` below: a Cody-Waite
  reduction by ln 2 in two fused steps, a degree-6 polynomial in fused multiply-adds, the
  scale by two powers of two);
- the row sum of those exponentials as L-lane vectors (the last partial vector added into the
  first lanes), the lanes folded pairwise L/2, ..., 2, 1; rows shorter than L add in order;
- softmax: ``e * (1 / sum)``; log_softmax: ``(x - max) - log(sum)`` with SLEEF's ``logf_u10``
  (``vlog``: AVX-512's getexp/getmant split, AVX2's ilogb/ldexp split: the same exponent and
  mantissa for the positive normal sums here; double-float arithmetic);
- backward: softmax ``(g - sum(g * y)) * y``, log_softmax ``g - exp(y) * sum(g)`` (one fused
  multiply-add) (sums as above);
- nll_loss: ``-x[target]`` added in a cascade of 8 partial sums, divided by the count (mean).

Another dim than the last (``*_inner``): torch's (outer, dim, inner) kernels, L inner positions
per vector, the others scalar (glibc's expf), sums over the dim in order, softmax divides by
the sum; the backwards' sums are fused (``g * y`` added by fma).

float64 along the last dim (``supported``): the same with L/2 double lanes, added in order, and
SLEEF's double exp/log (``_sleef64``). Other dtypes use the engine's kernels.

Where gradrepl's native kernels were built (``engine._native``), the float32 vexp, vlog and
the last-dim kernels run as compiled loops of the same steps (``engine/_cnative.c``; the
replays here define their bits, tests/test_native_kernels.py compares the two); the replays run
without them, and for the inputs they leave (a nan, a vlog outside (0, 2**127))."""
from __future__ import annotations

import math

import numpy as np

from ..engine._native import lib as _NATIVE   # (None: the numpy replays below alone)
from ..engine.ops._util import quiet as _quiet  # (nothing to enter in a quiet run)
from . import _sleef64 as D
from . import _capability
from ._norm_kernels import _fma_repaired
from ._norm_kernels import fma as _fma32

F32 = np.float32


def _lanes() -> int:
    """Float lanes of the softmax kernels' ``Vectorized<float>`` under the capability torch runs
    here: 16 with AVX512, 8 with AVX2 (doubles: half as many, then added in order)."""
    return _capability.lanes(np.dtype(F32), avx512_kernel=True)

_R_LN2 = F32(1.442695040888963407359924681001892137426645954152985934135449406931)
_L2U, _L2L = F32(0.693145751953125), F32(1.428606765330187045e-06)
_EXP_P = [F32(v) for v in (0.000198527617612853646278381, 0.00139304355252534151077271,
                           0.00833336077630519866943359, 0.0416664853692054748535156,
                           0.166666671633720397949219, 0.5)]
_LN2_HI, _LN2_LO = F32(0.69314718246459960938), F32(-1.904654323148236017e-09)
_LOG_P = [F32(v) for v in (0.3027294874, 0.3996108174, 0.6666694880)]


def supported(x, inner=False) -> bool:
    """float32 or float64, any dim (float64's scalar tails: glibc's exp, ``_scalar_exp``)."""
    return x.size > 0 and (x.dtype == F32 or x.dtype == np.float64)


def fma(a, b, c):
    return D.fma64(a, b, c) if np.asarray(a).dtype == np.float64 else _fma32(a, b, c)


def _pow2i(q):
    return ((q + 0x7F).astype(np.int32) << 23).view(F32)


# ------------------------------------------------------------------ the fused chains, checked once
# A float32 fma is the double ``a * b + c`` (the product exact) rounded to float, unless that
# double sum lands on a float midpoint or in the subnormal range (``_norm_kernels.fma`` checks
# each and repairs). The replays below make 8 or 9 such fmas in a row: ``_Chain`` keeps each
# fma's double sum in one buffer and checks them all at the end in one pass; when any sum needs
# the repair, the caller recomputes with the per-fma path (``_vexp_each``, ``_vlog_each``), so
# the results are those of the per-fma path, bit for bit, with 4 numpy calls an fma instead of
# ~15.
_F64, _I64 = np.float64, np.int64
_LOW29, _TIE29 = np.int64(0x1FFFFFFF), np.int64(0x10000000)
_TINY2, _ZERO = np.float64(2.0 ** -250), np.float64(0)
_cnz = np.count_nonzero


class _Chain:
    """``n`` float32 fmas of one shape; ``fma`` takes float64 arrays or Python floats (exact
    float32 values) and returns the float32 result; ``exact()`` says whether every one was the
    correctly rounded fma. A sum on a midpoint is often exact (vlog's ``1 - dx * t`` terms):
    then only the flagged fmas are redone with the repair and compared."""

    __slots__ = ("buf", "k", "args")

    def __init__(self, n, shape):
        self.buf = np.empty((n,) + shape, _F64)
        self.k = 0
        self.args = []

    def fma(self, a, b, c):
        s = self.buf[self.k]
        self.k += 1
        np.multiply(a, b, out=s)
        np.add(s, c, out=s)
        self.args.append((a, b, c))
        return s.astype(F32)

    def any_midpoint(self):
        """Whether a double sum lies on a float32 midpoint (``exact``'s first test alone, for
        a chain none of whose sums can be subnormal where it matters)."""
        return bool(_cnz(np.equal(np.bitwise_and(self.buf[:self.k].view(_I64), _LOW29),
                                  _TIE29)))

    def exact(self):
        s = self.buf[:self.k].reshape(self.k, -1)
        tie = np.equal(np.bitwise_and(s.view(_I64), _LOW29), _TIE29)
        sq = s * s   # (nan and inf compare False, as in _norm_kernels.fma)
        tiny = (sq < _TINY2) & (sq > _ZERO)
        flagged = tie | tiny
        if not _cnz(flagged):
            return True
        if not _cnz(tiny) and self._exact_midpoints(s, flagged):
            return True   # (midpoints only, each the exact sum: the common flagged case)
        for k in np.flatnonzero(tie.any(axis=1) | tiny.any(axis=1)):  # the rare case
            a, b, c = self.args[k]
            sk = self.buf[k]
            if not tiny[k].any():   # a midpoint that is the exact sum needs no repair
                p = np.multiply(a, b, dtype=_F64)
                bb = sk - p
                if not _cnz(((p - (sk - bb)) + (c - bb)).reshape(-1)[tie[k]]):
                    continue
            if _fma_repaired(a, b, c).tobytes() != sk.astype(F32).tobytes():
                return False
        return True

    def _exact_midpoints(self, s, flagged, limit=64):
        """Whether every flagged double sum (a few midpoints, none subnormal) is the exact
        ``a * b + c``: the check of the rows' loop below (the sum's rounding error by
        two-sum is zero), made in Python floats (IEEE doubles, as numpy's float64) on the
        flagged elements alone instead of whole rows. False: let the loop decide."""
        pos = np.flatnonzero(flagged)
        if len(pos) > limit:
            return False
        n = s.shape[1]
        shape = self.buf.shape[1:]
        args = self.args
        for f in pos.tolist():
            k, j = divmod(f, n)
            a, b, c = args[k]
            at = [j, None]   # (flat index, its multi-index once needed)
            p = _elem(a, at, shape) * _elem(b, at, shape)   # (exact: float32 factors)
            sk = float(s[k, j])
            bb = sk - p
            if (p - (sk - bb)) + (_elem(c, at, shape) - bb) != 0.0:
                return False
        return True


def _elem(x, at, shape):
    """Element ``at[0]`` (flat, row-major) of x broadcast to ``shape``, as a Python float
    (``at[1]``: the multi-index, worked out once for the three operands)."""
    if type(x) is not np.ndarray:
        return float(x)
    if x.shape == shape:
        return float(x.reshape(-1)[at[0]])
    idx = at[1]
    if idx is None:
        idx = at[1] = _unravel(at[0], shape)
    off = len(shape) - x.ndim
    return float(x[tuple(0 if x.shape[d] == 1 else idx[d + off] for d in range(x.ndim))])


def _unravel(j, shape):
    idx = []
    for size in reversed(shape):
        j, r = divmod(j, size)
        idx.append(r)
    return idx[::-1]


def vexp(d):
    """SLEEF's float expf (1-ulp version) as the AVX-512 build computes it."""
    if np.asarray(d).dtype == np.float64:
        return D.vexp(d)
    d = np.asarray(d, F32)
    if _NATIVE is not None:
        out = np.empty(d.shape, F32)
        _NATIVE.expf_u10(np.ascontiguousarray(d), out)
        return out
    return _vexp_replay(d)


def _vexp_replay(d):
    """vexp in numpy (float32 d)."""
    if d.ndim == 0:
        return _vexp_each(d)
    if not d.size:
        return _vexp_wide(d)
    with _quiet(all="ignore"):
        qf = np.rint(d * _R_LN2)
        if not (qf.min() >= -125 and qf.max() <= 127):   # (nan compares False)
            return _vexp_wide(d)
        # q in [-125, 127]: the reduction's two fmas round nothing. q * L2U is a float32
        # product (L2U has 15 significant bits, |q| 7) and d - q * L2U is exact (q = 0: d;
        # else d and q * L2U lie within a factor of two); q * L2L is exact in double and
        # the sum with that s, a multiple of 2**-25 below 0.35 (or d itself when q = 0), needs
        # at most 43 bits: both are the fma's exact result (checked for every float32 d of
        # the range in tests/test_issue29_speed_bits.py), so only the polynomial's six fmas
        # go through the chain's check, for midpoints only: no sum of theirs is subnormal but
        # the last one's when |s| < 2**-123, and then 1 + that fma is 1 however it rounded
        # (the first five lie within 10% of the constants P1 .. P5). u in [0.7, 1.5) times
        # 2 ** q is then a normal float, scaled by adding q to u's exponent field.
        s = d - qf * _L2U
        s64 = qf.astype(_F64)
        s64 *= _NL2L
        s64 += s.astype(_F64)
        s = s64.astype(F32)
        s64 = s.astype(_F64)
        ch = _Chain(6, d.shape)
        u = ch.fma(s64, _P0, _P1)
        for c in _P_REST:
            u = ch.fma(u.astype(_F64), s64, c)
        u = F32(1) + ch.fma((s * s).astype(_F64), u.astype(_F64), s64)
        if ch.any_midpoint() and not ch.exact():
            return _vexp_each(d)
        return (u.view(np.int32) + (qf.astype(np.int32) << 23)).view(F32)


_NL2L = -float(_L2L)
_P0, _P1 = float(_EXP_P[0]), float(_EXP_P[1])
_P_REST = [float(c) for c in _EXP_P[2:]]


def _vexp_wide(d):
    """vexp for any float32 d (a q outside [-125, 127], inf or nan): all eight fmas checked,
    the scaling by two powers of two and the limits."""
    with _quiet(all="ignore"):
        q = np.rint(d * _R_LN2).astype(np.int32)
        qf = q.astype(_F64)
        ch = _Chain(8, d.shape)
        s = ch.fma(qf, -float(_L2U), d.astype(_F64))
        s = ch.fma(qf, -float(_L2L), s.astype(_F64))
        s64 = s.astype(_F64)
        u = ch.fma(s64, float(_EXP_P[0]), float(_EXP_P[1]))
        for c in _EXP_P[2:]:
            u = ch.fma(u.astype(_F64), s64, float(c))
        u = F32(1) + ch.fma((s * s).astype(_F64), u.astype(_F64), s64)
        if not ch.exact():
            return _vexp_each(d)
        h = q >> 1
        u = (u * _pow2i(h)) * _pow2i(q - h)
        u = np.where(d < F32(-104), F32(0), u)
        u = np.where(d > F32(100), F32(np.inf), u)
    return np.asarray(u, F32)


def _vexp_each(d):
    """vexp with each fma checked and repaired on its own (the chain's fallback)."""
    with _quiet(all="ignore"):
        q = np.rint(d * _R_LN2).astype(np.int32)
        qf = q.astype(F32)
        s = fma(qf, -_L2U, d)
        s = fma(qf, -_L2L, s)
        u = np.full(d.shape, _EXP_P[0], F32)
        for c in _EXP_P[1:]:
            u = fma(u, s, c)
        u = F32(1) + fma(s * s, u, s)
        h = q >> 1
        u = (u * _pow2i(h)) * _pow2i(q - h)
        u = np.where(d < F32(-104), F32(0), u)
        u = np.where(d > F32(100), F32(np.inf), u)
    return np.asarray(u, F32)


def _two_sum(x, y):          # dfadd2_vf2_vf_vf
    rx = x + y
    v = rx - x
    return rx, (x - (rx - v)) + (y - v)


# vlog's exponent terms (``sx + sy``: e * ln 2 as a float pair) depend on the integer exponent
# e alone: a table over every exponent a float32 can give (-149 .. 128, with room), made by the
# fma-by-fma replay itself, so that a lookup gives its bits
_E_OFF = 160


def _exponent_terms():
    e = np.arange(-_E_OFF, _E_OFF, dtype=F32)
    with _quiet(all="ignore"):
        sx = _LN2_HI * e
        sy = _fma32(_LN2_LO, e, _fma32(_LN2_HI, e, -sx))
    return sx, sy


_SX, _SY = _exponent_terms()
_FINITE_POS = np.uint32(0x7F7FFFFF)   # float32 bits - 1 below this: a positive finite float


def vlog(d):
    """SLEEF's float logf (1-ulp version) for positive finite d, AVX-512 build."""
    if np.asarray(d).dtype == np.float64:
        return D.vlog(d)
    d = np.asarray(d, F32)
    if _NATIVE is not None:
        out = np.empty(d.shape, F32)
        if not _NATIVE.logf_u10(np.ascontiguousarray(d), out):
            return out
    return _vlog_replay(d)


def _vlog_replay(d):
    """vlog in numpy (float32 d)."""
    if d.ndim == 0:
        return _vlog_each(d)
    if not d.size or not (d.min() >= _MIN_NORMAL and d.max() < _VLOG_HI):   # (nan compares False)
        return _vlog_general(d)
    # d normal: getexp(d / 0.75) is the exponent getmant's [0.75, 1.5) mantissa m leaves
    # (d * (1 / 0.75f) reaches 2 ** (k + 1) exactly when m reaches 1.5: checked in every
    # binade), so one index, the biased exponent of d with its mantissa rounded at 1.5, gives
    # e * ln 2 (``_SXB``/``_SYB``) and m = d * 2 ** -e (exact). The fmas that round nothing
    # for any of the 12.6 M mantissas (checked by exhaustion in tests/test_issue29_speed_bits:
    # -1 + m with its error term +0, 1 + m's error term as m - ((1 + m) - 1), t * nx - qx and
    # the whole of 1 - dx * t - dy * t) are computed in double and not checked; the other
    # three go through the chain's midpoint test (no sum of theirs is subnormal).
    with _quiet(all="ignore"):
        ge = (d.view(np.int32) + 0x400000) >> 23
        sx, sy = _SXB[ge], _SYB[ge]                                # dfmul_vf2_vf2_vf
        m = d * _P2NEG[ge]                                         # getmant [0.75, 1.5)
        nx = m - F32(1)
        dx = F32(1) + m
        dy = m - (dx - F32(1))                                     # (1 + m)'s error
        t = F32(1) / dx                                            # dfdiv_vf2_vf2_vf2
        qx = nx * t
        t64 = t.astype(_F64)
        qx64 = qx.astype(_F64)
        u64 = t64 * nx.astype(_F64)
        u64 -= qx64
        ch = _Chain(3, d.shape)
        q1 = dx.astype(_F64)
        q1 *= t64
        np.subtract(1.0, q1, out=q1)
        p = dy.astype(_F64)
        p *= t64
        q1 -= p
        qy = ch.fma(qx64, q1.astype(F32).astype(_F64), u64)
        x2 = qx * qx
        x64 = x2.astype(_F64)
        tt = ch.fma(ch.fma(x64, _LP0, _LP1).astype(_F64), x64, _LP2)
        if ch.any_midpoint() and not ch.exact():
            return _vlog_each(d)
        return _vlog_sum(sx, sy, qx, qy, x2, tt)


_MIN_NORMAL = F32(2.0 ** -126)
_VLOG_HI = F32(2.0 ** 127)   # (d / 0.75 stays finite)
_SXB, _SYB = _SX[_E_OFF - 127:_E_OFF + 129], _SY[_E_OFF - 127:_E_OFF + 129]   # by biased exponent
_P2NEG = np.exp2(127.0 - np.arange(256)).astype(F32)                # 2 ** -e by biased e
_LP0, _LP1, _LP2 = (float(c) for c in _LOG_P)


def _vlog_sum(sx, sy, qx, qy, x2, tt):
    """SLEEF logf's last steps, shared by the three vlog paths: the exponent's double-float
    (sx, sy) plus twice the quotient (qx, qy) plus qx**3 * tt, in float32 double-float sums."""
    ax, ay = qx * F32(2), qy * F32(2)                              # dfscale
    rx = sx + ax                                                   # dfadd_vf2_vf2_vf2
    ry = (((sx - rx) + ax) + sy) + ay
    w = (x2 * qx) * tt
    r2x = rx + w                                                   # dfadd_vf2_vf2_vf
    r2y = ((rx - r2x) + w) + ry
    return r2x + r2y


def _vlog_general(d):
    """vlog of any float32 d (subnormal, zero, negative, inf, nan, or above 2 ** 127).
    (``-1 + m`` of the mantissa m in [0.75, 1.5) is exact, so its error term is +0 and
    ``fma(0, t, u)`` is u, which is never -0: both are left out; the exponent terms come
    from ``_SX``/``_SY``.)"""
    if _cnz(np.less((d.view(np.int32) - 1).view(np.uint32), _FINITE_POS)) != d.size:
        return _vlog_each(d)    # (0, negative, inf or nan: as the replay has them, nan signs too)
    with _quiet(all="ignore"):
        _f, ex = np.frexp(d * F32(1.0 / 0.75))
        idx = ex + (_E_OFF - 1)                                    # getexp e = ex - 1
        sx, sy = _SX[idx], _SY[idx]                                # dfmul_vf2_vf2_vf
        f, _ex = np.frexp(d)
        m = f * F32(2)                                             # mantissa in [1, 2)
        m = np.where(m >= F32(1.5), m * F32(0.5), m)               # getmant [0.75, 1.5)
        nx = m - F32(1)
        dx, dy = _two_sum(F32(1), m)
        t = F32(1) / dx                                            # dfdiv_vf2_vf2_vf2
        t64 = t.astype(_F64)
        qx = nx * t
        qx64 = qx.astype(_F64)
        # two fmas whose double sums are exact (no rounding to check): t * nx - qx, the error
        # of a float product (nx is 0 or at least 2**-24), and 1 - dx * t, a multiple of
        # 2**-48 below 2**-22 in size
        u = (t64 * nx.astype(_F64) - qx64).astype(F32)
        ch = _Chain(4, d.shape)
        qy = ch.fma((-dy).astype(_F64), t64, (1.0 - dx.astype(_F64) * t64).astype(F32))
        qy = ch.fma(qx64, qy.astype(_F64), u)
        x2 = qx * qx
        x64 = x2.astype(_F64)
        tt = ch.fma(ch.fma(x64, float(_LOG_P[0]), float(_LOG_P[1])).astype(_F64), x64,
                    float(_LOG_P[2]))
        if not ch.exact():
            return _vlog_each(d)
        r = _vlog_sum(sx, sy, qx, qy, x2, tt)
    return np.asarray(r, F32)


def _vlog_each(d):
    """vlog with each fma checked and repaired on its own (the chain's fallback)."""
    with _quiet(all="ignore"):
        _f, ex = np.frexp(d * F32(1.0 / 0.75))
        e = (ex - 1).astype(F32)                                   # getexp
        f, _ex = np.frexp(d)
        m = (f * 2).astype(F32)                                    # mantissa in [1, 2)
        m = np.where(m >= F32(1.5), m * F32(0.5), m).astype(F32)   # getmant [0.75, 1.5)
        sx = _LN2_HI * e                                           # dfmul_vf2_vf2_vf
        sy = fma(_LN2_LO, e, fma(_LN2_HI, e, -sx))
        nx, ny = _two_sum(F32(-1), m)
        dx, dy = _two_sum(F32(1), m)
        t = F32(1) / dx                                            # dfdiv_vf2_vf2_vf2
        qx = nx * t
        u = fma(t, nx, -qx)
        qy = fma(-dy, t, fma(-dx, t, F32(1)))
        qy = fma(qx, qy, fma(ny, t, u))
        x2 = qx * qx
        tt = fma(fma(np.full(d.shape, _LOG_P[0], F32), x2, _LOG_P[1]), x2, _LOG_P[2])
        r = _vlog_sum(sx, sy, qx, qy, x2, tt)
    return np.asarray(r, F32)


def vsum(rows):
    """rows (R, n) -> (R,): each row's reduce_all with + (vectors of L floats folded pairwise,
    L/2 doubles added lane by lane)."""
    r, n = rows.shape
    lanes = _lanes() if rows.dtype == F32 else _lanes() // 2
    if n < lanes:
        acc = rows[:, 0].copy()
        for k in range(1, n):
            acc = acc + rows[:, k]
        return acc
    m = n - n % lanes
    acc = rows[:, :lanes].copy()
    for i in range(lanes, m, lanes):
        acc = acc + rows[:, i:i + lanes]
    if n > m:
        acc[:, :n - m] = acc[:, :n - m] + rows[:, m:]
    if rows.dtype != F32:
        out = acc[:, 0]
        for k in range(1, lanes):
            out = out + acc[:, k]
        return out
    w = lanes
    while w > 1:
        w //= 2
        acc = acc[:, :w] + acc[:, w:2 * w]
    return acc[:, 0]


def _same(r):
    return r


def _rows(x, axis):
    """x moved so that ``axis`` is last, as contiguous (R, n) rows, and the way back."""
    if x.ndim == 2 and axis == 1 and x.flags.c_contiguous:   # (already rows)
        return x, _same
    moved = np.moveaxis(x, axis, -1)
    shape = moved.shape
    rows = np.ascontiguousarray(moved).reshape(-1, shape[-1])
    return rows, lambda r: np.moveaxis(r.reshape(shape), -1, axis)


def softmax(x, axis):
    rows, back = _rows(x, axis)
    if _NATIVE is not None and rows.dtype == F32:
        out = np.empty(rows.shape, F32)
        if not _NATIVE.softmax_f32(rows, out, rows.shape[1], _lanes()):
            return back(out)
    with _quiet(all="ignore"):
        e = vexp(rows - rows.max(axis=1, keepdims=True))
        inv = x.dtype.type(1) / vsum(e)
        return back(e * inv[:, None])


def log_softmax(x, axis):
    rows, back = _rows(x, axis)
    if _NATIVE is not None and rows.dtype == F32:
        out = np.empty(rows.shape, F32)
        if not _NATIVE.log_softmax_f32(rows, out, rows.shape[1], _lanes()):
            return back(out)
    with _quiet(all="ignore"):
        sh = rows - rows.max(axis=1, keepdims=True)
        ls = vlog(vsum(vexp(sh)))
        return back(sh - ls[:, None])


def softmax_backward(y, g, axis):
    yr, back = _rows(y, axis)
    gr, _ = _rows(g, axis)
    if _NATIVE is not None and yr.dtype == F32 and gr.dtype == F32:
        out = np.empty(yr.shape, F32)
        if not _NATIVE.softmax_backward_f32(yr, gr, out, yr.shape[1], _lanes()):
            return back(out)
    s = vsum(gr * yr)
    return back((gr - s[:, None]) * yr)


def log_softmax_backward(y, g, axis):
    yr, back = _rows(y, axis)
    gr, _ = _rows(g, axis)
    if _NATIVE is not None and yr.dtype == F32 and gr.dtype == F32:
        out = np.empty(yr.shape, F32)
        if not _NATIVE.log_softmax_backward_f32(yr, gr, out, yr.shape[1], _lanes()):
            return back(out)
    s = vsum(gr)
    e = -vexp(yr)
    if e.dtype == F32 and e.ndim:   # (one fma, checked as the chains are)
        ch = _Chain(1, e.shape)
        out = ch.fma(e.astype(_F64), s[:, None].astype(_F64), gr.astype(_F64))
        if ch.exact():
            return back(out)
    return back(fma(e, s[:, None], gr))


def cascade_sum(values, valid):
    """torch's nll_loss sum of ``values`` where ``valid``: 8 levels of partial sums, a carry
    after every 16th position (skipped positions carry nothing)."""
    values = np.asarray(values)
    if values.ndim == 1 and len(values) and _cnz(valid) == len(values):
        return _cascade_all(values)
    return _cascade_loop(values, valid)


def _cascade_loop(values, valid):
    """cascade_sum position by position (any mask)."""
    levels, power = 8, 4
    mask = (1 << power) - 1
    t = np.asarray(values).dtype.type
    acc = [t(0)] * levels
    for b in range(len(values)):
        if not valid[b]:
            continue
        acc[0] = t(acc[0] + values[b])
        for j in range(levels - 1):
            if b & (mask << (j * power)):
                break
            acc[j + 1] = t(acc[j + 1] + acc[j])
            acc[j] = t(0)
    out = t(0)
    for a in acc:
        out = t(out + a)
    return out


def _cascade_all(values):
    """cascade_sum with every position valid, level by level in whole-array steps: a level's
    accumulator takes its first item alone (position 0 carries through every level), then
    groups of 16 items, each group's sum (in order) carried up as one item of the next level;
    what is left of the last group stays; the top level keeps all its items. The levels' sums
    are then added in order from 0. (Sums start from their first item, not from a zero: they
    differ only in a zero's sign, which the final sum from +0 drops.)"""
    t = values.dtype.type
    left, items = [], values
    for _level in range(7):
        if len(items) == 1:
            break
        full = (len(items) - 1) // 16
        rem = items[1 + 16 * full:]
        left.append(np.add.accumulate(rem)[-1] if len(rem) else t(0))
        if not full:
            items = items[:1]
            break
        sums = np.add.accumulate(items[1:1 + 16 * full].reshape(full, 16), axis=1)[:, -1]
        items = np.concatenate([items[:1], sums])
    left += [t(0)] * (7 - len(left))
    left.append(np.add.accumulate(items)[-1])
    out = t(0)
    for a in left:
        out = t(out + a)
    return out


# ------------------------------------------------------------------ a dim that is not the last
# torch views the input as (outer, dim, inner) and works on L inner positions at a time
# (SLEEF's exp); the positions left over take the scalar path (glibc's expf). Sums run over
# the dim in order from 0. _softmax_lanes splits the work between at::get_num_threads()
# threads (_capability.threads()).


# glibc's expf (the FMA build its x86-64 ifunc picks): x * 32/ln2 = k + r, 2^(k/32) from a
# table of 32 doubles, a cubic in r by fused multiply-adds, all in double, one final rounding
_N = 32
_INVLN2N = float.fromhex("0x1.71547652b82fep+0") * _N
_C = (float.fromhex("0x1.c6af84b912394p-5") / _N ** 3,
      float.fromhex("0x1.ebfce50fac4f3p-3") / _N ** 2,
      float.fromhex("0x1.62e42ff0c52d6p-1") / _N)
_SHIFT = float.fromhex("0x1.8p+52")
_UNDER = float.fromhex("-0x1.9fe368p6")


def _table():
    """2^(i/32) rounded to double from 60 digits (numpy's 2.0 ** x may be an ulp off)."""
    from decimal import Decimal, localcontext

    with localcontext() as ctx:
        ctx.prec = 60
        ln2 = Decimal(2).ln()
        return np.array([float((ln2 * i / _N).exp()) for i in range(_N)])


_TAB = _table()


def _libm_exp(d):
    """glibc's double exp of each value of d (Python's math.exp is the C library's exp;
    overflow gives inf as the C function returns)."""
    out = np.empty(np.shape(d), np.float64)
    for i, v in enumerate(np.asarray(d, np.float64).reshape(-1)):
        try:
            out.flat[i] = math.exp(v)
        except OverflowError:
            out.flat[i] = np.inf
    return out


def _scalar_exp(d):
    """glibc's expf of float32 d (checked bit for bit against libm on 300,000 values); of
    float64 d glibc's exp itself."""
    if np.asarray(d).dtype == np.float64:
        return _libm_exp(d)
    with _quiet(all="ignore"):
        xd = np.asarray(d, F32).astype(np.float64)
        z = _INVLN2N * xd
        kd = (z + _SHIFT) - _SHIFT
        k = np.nan_to_num(kd, nan=0.0, posinf=0.0, neginf=0.0).astype(np.int64)
        r = z - kd
        s = _TAB[k % _N] * np.exp2((k // _N).astype(np.float64))
        one = np.ones_like(r)
        y = D.fma64(_C[0] * one, r, _C[1] * one)
        y = D.fma64(y, r * r, D.fma64(_C[2] * one, r, one))
        y = (y * s).astype(F32)
        y = np.where(xd < _UNDER, F32(0), y)
        return np.where(np.isnan(xd), xd.astype(F32), y)


def _split(x, axis):
    shape = x.shape
    outer = int(np.prod(shape[:axis], dtype=np.int64))
    inner = int(np.prod(shape[axis + 1:], dtype=np.int64))
    return np.ascontiguousarray(x).reshape(outer, shape[axis], inner)


def _dlanes(dtype):
    """Lanes of one Vectorized<scalar_t> of the softmax kernels: half as many doubles."""
    return _lanes() if dtype == F32 else _lanes() // 2


def _chunk_lanes(inner, dim_size, dtype=F32):
    """(inner,) bool: the positions the chunked kernels (log_softmax, the backwards) vectorise:
    chunks of CHUNK positions (128 KiB / dim_size / sizeof(scalar_t)), each's last
    ``size % L`` scalar."""
    L = _dlanes(dtype)
    chunk = max(131072 // dim_size // np.dtype(dtype).itemsize, L) // L * L
    lanes = np.zeros(inner, bool)
    for begin in range(0, inner, chunk):
        size = min(chunk, inner - begin)
        lanes[begin:begin + size - size % L] = True
    return lanes


def _softmax_lanes(outer, inner, dtype=F32):
    """(outer, inner) bool: the positions _vec_softmax vectorises (its parallel_for blocks)."""
    n = outer * inner
    L = _dlanes(dtype)
    step = max(-(-n // _capability.threads()), 1)  # grain size 0: the range is always split between threads
    blocks = [(b, min(n, b + step)) for b in range(0, n, step)]
    lanes = np.zeros(n, bool)
    for begin, end in blocks:
        idx = begin
        while idx < end:
            i_in = idx % inner
            if i_in + L <= inner and idx + L <= end:
                lanes[idx:idx + L] = True
                idx += L
            else:
                idx += (end - idx) if idx + L > end else (inner - i_in)
    return lanes.reshape(outer, inner)


def _exp_where(d, lanes):
    """exp of d (outer, dim, inner): SLEEF's where lanes (outer or 1, inner), else glibc's."""
    return np.where(lanes[:, None, :], vexp(d), _scalar_exp(d))


def _seq_dim_sum(a):
    acc = np.zeros((a.shape[0], a.shape[2]), a.dtype)
    for k in range(a.shape[1]):
        acc = acc + a[:, k]
    return acc


def softmax_inner(x, axis):
    a = _split(x, axis)
    lanes = _softmax_lanes(a.shape[0], a.shape[2], a.dtype)
    with _quiet(all="ignore"):
        e = _exp_where(a - a.max(axis=1, keepdims=True), lanes)
        return (e / _seq_dim_sum(e)[:, None]).reshape(x.shape)


def log_softmax_inner(x, axis):
    a = _split(x, axis)
    lanes = _chunk_lanes(a.shape[2], a.shape[1], a.dtype)[None]
    with _quiet(all="ignore"):
        mx = a.max(axis=1, keepdims=True)
        ls = vlog(_seq_dim_sum(_exp_where(a - mx, lanes)))
        return ((a - mx) - ls[:, None]).reshape(x.shape)


def softmax_backward_inner(y, g, axis):
    ya, ga = _split(y, axis), _split(g, axis)
    acc = np.zeros((ya.shape[0], ya.shape[2]), ya.dtype)
    for k in range(ya.shape[1]):             # sum += g * y, fused
        acc = fma(ga[:, k], ya[:, k], acc)
    return (ya * (ga - acc[:, None])).reshape(y.shape)


def log_softmax_backward_inner(y, g, axis):
    ya, ga = _split(y, axis), _split(g, axis)
    lanes = _chunk_lanes(ya.shape[2], ya.shape[1], ya.dtype)[None]
    s = _seq_dim_sum(ga)[:, None]
    return fma(-_exp_where(ya, lanes), s, ga).reshape(y.shape)   # g - exp(y) * sum, fused
