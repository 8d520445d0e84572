"""SLEEF's 1-ulp double sine, cosine and power (``Sleef_sind1_u10`` / ``Sleef_cosd1_u10`` /
``Sleef_powd1_u10``, the scalar FMA build) in numpy: what Paddle 3.3.1's CPU ``sin`` / ``cos``
kernels and its same-shape float64 ``x ** y`` compute (``powd_u10`` at the end: logk / expk in
double-double arithmetic, IEEE special cases; 11,000 random and 400 special pairs equal).

Measured here: real 3.3.1's float64 sin and cos equal the bundled SLEEF's ``Sleef_sind1_u10``
and ``Sleef_cosd1_u10`` on 45,000 of 45,000 values each (|x| up to ~200); glibc (numpy) 44,231
and 44,071. Each element takes its own branch (the scalar entry points):

* |x| < 15: the quadrant q = rint(x / pi) and x - q pi as a double-double (pi in two parts);
* |x| < 1e14: q split in a high part (multiples of 2^24) and a low part, x - q pi in four parts
  of pi added as double-doubles;
* beyond (and inf / NaN): not emulated, the C library's value (numpy).

Then a degree-13 odd polynomial in the reduced argument's square (Estrin's scheme, fused
multiply-adds), the last terms and the product with the argument in double-double arithmetic,
and the sign from q's parity. FMA is a double product kept exact (Dekker) and added with its
error term, then rounded once (as ``torch/_sleef64.fma64``; a rare double-rounding tie is not
modelled).
"""
from __future__ import annotations

import numpy as np

from ._dekker import fma64

F64 = np.float64
_M_1_PI = 0.318309886183790671537767526745028724
_PI_A, _PI_B = 3.1415926218032836914, 3.1786509424591713469e-08
_PI_C, _PI_D = 1.2246467864107188502e-16, 1.2736634327021899816e-24
_PI_A2, _PI_B2 = 3.141592653589793116, 1.2246467991473532072e-16
_RANGE2, _RANGE = 15.0, 1e14
_POLY = (2.72052416138529567917983e-15, -7.6429259411395447190023e-13,
         1.60589370117277896211623e-10, -2.5052106814843123359368e-08,
         2.75573192104428224777379e-06, -0.000198412698412046454654947)
_C1, _C0 = 0.00833333333333318056201922, -0.166666666666666657414808


def _fma(a, b, c):
    return fma64(*np.broadcast_arrays(np.asarray(a, F64), np.asarray(b, F64), np.asarray(c, F64)))


# double-double helpers (SLEEF's names)
def _add_d_d(x, y):                 # ddadd_vd2_vd_vd: |x| >= |y|
    s = x + y
    return s, (x - s) + y


def _add2_dd_d(xx, xy, y):          # ddadd2_vd2_vd2_vd
    s = xx + y
    v = s - xx
    return s, ((xx - (s - v)) + (y - v)) + xy


def _add2_d_d(x, y):                # ddadd2_vd2_vd_vd
    s = x + y
    v = s - x
    return s, (x - (s - v)) + (y - v)


def _add_dd_d(xx, xy, y):           # ddadd_vd2_vd2_vd
    s = xx + y
    return s, ((xx - s) + y) + xy


def _add_d_dd(x, yx, yy):           # ddadd_vd2_vd_vd2
    s = x + yx
    return s, ((x - s) + yx) + yy


def _squ(xx, xy):                   # ddsqu_vd2_vd2 (FMA)
    s = xx * xx
    return s, _fma(xx + xx, xy, _fma(xx, xx, -s))


def _mul_dd(xx, xy, yx, yy):        # ddmul_vd2_vd2_vd2 (FMA)
    s = xx * yx
    return s, _fma(xx, yy, _fma(xy, yx, _fma(xx, yx, -s)))


def _mul_dd_to_d(xx, xy, yx, yy):   # ddmul_vd_vd2_vd2 (FMA)
    return _fma(xx, yx, _fma(xy, yx, xx * yy))


def _reduce_mid(d, dqh, dql):
    """x - q pi for |x| < 1e14: pi in four parts, q = dqh + dql."""
    u = _fma(dqh, -_PI_A, d)
    sx, sy = _add_d_d(u, dql * -_PI_A)
    for q, c in ((dqh, _PI_B), (dql, _PI_B), (dqh, _PI_C), (dql, _PI_C)):
        sx, sy = _add2_dd_d(sx, sy, q * -c)
    return _add_dd_d(sx, sy, (dqh + dql) * -_PI_D)


def _kernel(tx, ty):
    """sin of the reduced double-double t (before the quadrant's sign)."""
    sx, sy = _squ(tx, ty)
    s2 = sx * sx
    s4 = s2 * s2
    c = _POLY
    # POLY6(s, s2, s4): MLA(s4, POLY2(c0, c1), POLY4(c2..c5)) by Estrin's scheme
    p2 = _fma(sx, c[0], c[1])
    p4 = _fma(s2, _fma(sx, c[2], c[3]), _fma(sx, c[4], c[5]))
    u = _fma(s4, p2, p4)
    u = _fma(u, sx, _C1)
    ax, ay = _add_d_d(np.full_like(sx, _C0), u * sx)
    mx, my = _mul_dd(ax, ay, sx, sy)
    xx, xy = _add_d_dd(np.ones_like(sx), mx, my)
    return _mul_dd_to_d(tx, ty, xx, xy)


def sind_u10(x):
    """``Sleef_sind1_u10`` (FMA) of a float64 array."""
    d = np.asarray(x, F64)
    with np.errstate(all="ignore"):
        small = np.abs(d) < _RANGE2
        mid = np.abs(d) < _RANGE
        dql = np.rint(d * _M_1_PI)
        u = _fma(dql, -_PI_A2, d)
        tx, ty = _add_d_d(u, dql * -_PI_B2)
        q = dql
        if not small.all():
            dqh = np.trunc(d * (_M_1_PI / (1 << 24))) * (1 << 24)
            dql2 = np.rint(_fma(d, _M_1_PI, -dqh))
            mx, my = _reduce_mid(d, dqh, dql2)
            tx, ty = np.where(small, tx, mx), np.where(small, ty, my)
            q = np.where(small, dql, dql2)
        r = _kernel(tx, ty)
        odd = np.fmod(q, 2) != 0
        r = np.where(odd, -r, r)
        r = np.where(d == 0, d, r)
        if not mid.all():
            r = np.where(mid, r, np.sin(d))
    return r


def cosd_u10(x):
    """``Sleef_cosd1_u10`` (FMA) of a float64 array."""
    d = np.asarray(x, F64)
    with np.errstate(all="ignore"):
        small = np.abs(d) < _RANGE2
        mid = np.abs(d) < _RANGE
        dql = np.rint(_fma(d, _M_1_PI, -0.5))
        dql = _fma(np.full_like(d, 2.0), dql, 1.0)
        tx, ty = _add2_d_d(d, dql * (-_PI_A2 * 0.5))
        tx, ty = _add_dd_d(tx, ty, dql * (-_PI_B2 * 0.5))
        q = dql
        if not small.all():
            dqh = np.trunc(_fma(d, _M_1_PI / (1 << 23), -_M_1_PI / (1 << 24)))
            ql = np.rint(d * _M_1_PI + _fma(dqh, -float(1 << 23), -0.5))
            dqh = dqh * (1 << 24)
            dql2 = ql + ql + 1
            u = _fma(dqh, -_PI_A * 0.5, d)
            mx, my = _add2_d_d(u, dql2 * (-_PI_A * 0.5))
            for qq, c in ((dqh, _PI_B), (dql2, _PI_B), (dqh, _PI_C), (dql2, _PI_C)):
                mx, my = _add2_dd_d(mx, my, qq * (-c * 0.5))
            mx, my = _add_dd_d(mx, my, (dqh + dql2) * (-_PI_D * 0.5))
            tx, ty = np.where(small, tx, mx), np.where(small, ty, my)
            q = np.where(small, dql, dql2)
        r = _kernel(tx, ty)
        neg = np.fmod(q, 4) == np.where(q < 0, -3, 1)   # (q & 2) == 0 for odd q: q = 1 mod 4
        r = np.where(neg, -r, r)
        if not mid.all():
            r = np.where(mid, r, np.cos(d))
    return r


# ------------------------------------------------------------------------------ pow (u10)
_LOGK_POLY = (0.116255524079935043668677, 0.103239680901072952701192, 0.117754809412463995466069,
              0.13332981086846273921509, 0.153846227114512262845736, 0.181818180850050775676507,
              0.222222222230083560345903, 0.285714285714249172087875, 0.400000000000000077715612)
_EXPK_POLY = (2.51069683420950419527139e-08, 2.76286166770270649116855e-07,
              2.75572496725023574143864e-06, 2.48014973989819794114153e-05,
              0.000198412698809069797676111, 0.0013888888939977128960529,
              0.00833333333332371417601081, 0.0416666666665409524128449,
              0.166666666666666740681535, 0.500000000000000999200722)
_LN2_DD = (0.693147180559945286226764, 2.319046813846299558417771e-17)
_R_LN2 = 1.442695040888963407359924681001892137426645954152985934135449406931
_ALL_ONES = np.array(-1, np.int64).view(F64)
_L2U, _L2L = .69314718055966295651160180568695068359375, .28235290563031577122588448175013436025525412068e-12


def _poly4(x, x2, c3, c2, c1, c0):
    return _fma(x2, _fma(x, c3, c2), _fma(x, c1, c0))


def _poly8(x, x2, x4, c):
    return _fma(x4, _poly4(x, x2, *c[:4]), _poly4(x, x2, *c[4:]))


def _div_dd(nx, ny, dx, dy):        # dddiv_vd2_vd2_vd2 (FMA)
    t = 1.0 / dx
    s = nx * t
    u = _fma(t, nx, -s)
    v = _fma(-dy, t, _fma(-dx, t, 1.0))
    return s, _fma(s, v, _fma(ny, t, u))


def _mul_dd_d(xx, xy, y):           # ddmul_vd2_vd2_vd (FMA)
    s = xx * y
    return s, _fma(xy, y, _fma(xx, y, -s))


def _add_dd_dd(xx, xy, yx, yy):     # ddadd_vd2_vd2_vd2
    s = xx + yx
    return s, (((xx - s) + yx) + xy) + yy


def _exponent(d):
    """ilogb of a positive normal double (its exponent field, unbiased)."""
    return ((d.view(np.int64) >> 52) & 0x7FF).astype(np.int64) - 0x3FF


def _scale_exp(d, e):
    """d * 2**e by the exponent field (vldexp3: exact for normal results)."""
    return (d.view(np.int64) + (e.astype(np.int64) << 52)).view(F64)


def _pow2i(q):
    return ((q.astype(np.int64) + 0x3FF) << 52).view(F64)


def _logk(d):
    """SLEEF ``logk`` (the AVX2 / scalar build): log of a positive double as a double-double."""
    tiny = d < 2.2250738585072014e-308
    d = np.where(tiny, d * (2.0 ** 64), d)
    e = _exponent(d * (1.0 / 0.75))
    m = _scale_exp(d, -e)
    e = np.where(tiny, e - 64, e)
    xx, xy = _div_dd(*_add2_d_d(np.full_like(m, -1.0), m), *_add2_d_d(np.full_like(m, 1.0), m))
    x2x, x2y = _squ(xx, xy)
    x4 = x2x * x2x
    x8 = x4 * x4
    x16 = x8 * x8
    c = _LOGK_POLY
    t = _fma(x16, c[0], _poly8(x2x, x4, x8, c[1:]))
    sx, sy = _mul_dd_d(np.full_like(d, _LN2_DD[0]), np.full_like(d, _LN2_DD[1]), e.astype(F64))
    sx, sy = _add_dd_dd(sx, sy, xx * 2.0, xy * 2.0)
    px, py = _mul_dd(x2x, x2y, xx, xy)
    sx, sy = _add_dd_dd(sx, sy, *_mul_dd(px, py, 0.666666666666666629659233,
                                         3.80554962542412056336616e-17))
    px, py = _mul_dd(x2x, x2y, px, py)
    return _add_dd_dd(sx, sy, *_mul_dd_d(px, py, t))


def _expk(dx, dy):
    """SLEEF ``expk``: exp of a double-double, as a double."""
    u = (dx + dy) * _R_LN2
    dq = np.rint(u)
    q = np.where(np.isfinite(dq), np.clip(dq, -(1 << 30), 1 << 30), 0).astype(np.int64)
    sx, sy = _add2_dd_d(dx, dy, dq * -_L2U)
    sx, sy = _add2_dd_d(sx, sy, dq * -_L2L)
    n = sx + sy
    sx, sy = n, (sx - n) + sy
    s2 = sx * sx
    s4 = s2 * s2
    s8 = s4 * s4
    c = _EXPK_POLY
    u = _fma(s8, _fma(sx, c[0], c[1]), _poly8(sx, s2, s4, c[2:]))
    tx, ty = _add_d_dd(np.ones_like(sx), sx, sy)
    tx, ty = _add_dd_dd(tx, ty, *_mul_dd_d(*_squ(sx, sy), u))
    h = q >> 1
    out = ((tx + ty) * _pow2i(h)) * _pow2i(q - h)
    return np.where(dx < -1000, 0.0, out)


def powd_u10(x, y):
    """``Sleef_powd1_u10`` (FMA) of two float64 arrays (broadcast): IEEE pow's special cases."""
    x, y = np.broadcast_arrays(np.asarray(x, F64), np.asarray(y, F64))
    with np.errstate(all="ignore"):
        ax = np.abs(x)
        y_int = np.trunc(y) == y
        y_odd = y_int & (np.fmod(np.where(np.isfinite(y), y, 0.0), 2.0) != 0)
        safe = np.where((ax == 0) | ~np.isfinite(ax), 1.0, ax)
        lx, ly = _logk(safe)
        dx, dy = _mul_dd_d(lx, ly, y)
        r = _expk(dx, dy)
        r = np.where(dx > 709.78271114955742909217217426, np.inf, r)
        r = r * np.where(x > 0, 1.0, np.where(y_int, np.where(y_odd, -1.0, 1.0), np.nan))
        efx = np.where(np.signbit(y), -(ax - 1.0), ax - 1.0)      # (vmulsign)
        r = np.where(np.isinf(y), np.where(efx < 0, 0.0, np.where(efx == 0, 1.0, np.inf)), r)
        zero_or_inf = np.isinf(x) | (x == 0)
        r = np.where(zero_or_inf,
                     np.copysign(np.where(np.signbit(y) ^ (x == 0), 0.0, np.inf),
                                 np.where(y_odd, x, 1.0)), r)
        r = np.where(np.isnan(x) | np.isnan(y), _ALL_ONES, r)   # (NaN with every bit set)
        r = np.where((y == 0) | (x == 1), 1.0, r)
    return r
