"""Eigen's packet ``pow(x, y)`` for float64 (``generic_pow``: log2 and exp2 in double-word
arithmetic, Dekker products with Veltkamp splitting, no FMA in Paddle's build), as Paddle's
``pow`` op computes float64 ``x ** factor`` on its 4-wide packets; the tail goes to the C
library's ``pow``. log2 of the mantissa: r = c (m - 1) / (m + 1) in double words, then
((Q(r^2) r^2 + C) r^2 + 1) r; exp2 of the fraction: 1 + x (C + x P(x)). The float32 twin is
``_kernels.packet_pow``. Measured against real 3.3.1 and 2.6.2 here: 2,003 values times 7
factors (-2, -1, -0.5, 0.5, 1.7, 2, 3), every bit equal (glibc's pow, used before: 2 to 1,056
of each factor's values differ).
"""
from __future__ import annotations

import numpy as np

D = np.float64

def _madd(a, b, c):
    return a * b + c            # no FMA: the product rounded, then the sum

def _split(a):
    gamma = D(134217729.0) * a
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

def _twoprod_dwdw(xh, xl, yh, yl):
    a_hi, a_lo = _twoprod_dwf(xh, xl, yh)
    b_hi, b_lo = _twoprod_dwf(xh, xl, yl)
    return _fast_twosum_dw(a_hi, a_lo, b_hi, b_lo)

def _fast_twosum_dw(xh, xl, yh, yl):
    r_hi, r_lo = _fast_twosum(xh, yh)
    return _fast_twosum(r_hi, (yl + r_lo) + xl)

def _fast_twosum_f_dw(x, yh, yl):   # fast_twosum(one, p2_hi, p2_lo)
    r_hi, r_lo = _fast_twosum(x, yh)
    return _fast_twosum(r_hi, yl + r_lo)

def _twosum_dw(xh, xl, yh, yl):
    bigger = np.abs(yh) < np.abs(xh)
    r1_hi, r1_lo = _fast_twosum(xh, yh)
    r2_hi, r2_lo = _fast_twosum(yh, xh)
    r_hi = np.where(bigger, r1_hi, r2_hi)
    s = np.where(bigger, (yl + r1_lo) + xl, (xl + r2_lo) + yl)
    return _fast_twosum(r_hi, s)

def _div_dw_f(xh, xl, y):
    t_hi = xh / y
    pi_hi, pi_lo = _twoprod(t_hi, y)
    delta = ((xh - pi_hi) - pi_lo) + xl
    return _fast_twosum(t_hi, delta / y)

Q = [D(v) for v in (2.87074255468000586e-9, 2.38957980901884082e-8, 2.31032094540014656e-7,
                    2.27279857398537278e-6, 2.31271023278625638e-5, 2.47556738444535513e-4,
                    2.88543873228900172e-3)]   # q12 q10 q8 q6 q4 q2 q0

def _log2(x):
    q12, q10, q8, q6, q4, q2, q0 = Q
    t_hi, t_lo = _twoprod_dwf(D(2.88539008177792677), D(4.07660016854549667e-17), x - 1)
    r_hi, r_lo = _div_dw_f(t_hi, t_lo, x + 1)
    r2_hi, r2_lo = _twoprod_dwdw(r_hi, r_lo, r_hi, r_lo)
    r4_hi, r4_lo = _twoprod_dwdw(r2_hi, r2_lo, r2_hi, r2_lo)
    q_even = _madd(q12, r4_hi, q8)
    q_odd = _madd(q10, r4_hi, q6)
    q_even = _madd(q_even, r4_hi, q4)
    q_odd = _madd(q_odd, r4_hi, q2)
    q_even = _madd(q_even, r4_hi, q0)
    q = _madd(q_odd, r2_hi, q_even)
    p_hi, p_lo = _twoprod_dwf(r2_hi, r2_lo, q)
    p1_hi, p1_lo = _fast_twosum_dw(D(0.0400377511598501157), D(-4.77726582251425391e-19), p_hi, p_lo)
    p2_hi, p2_lo = _twoprod_dwdw(r2_hi, r2_lo, p1_hi, p1_lo)
    p3_hi, p3_lo = _fast_twosum_f_dw(D(1), p2_hi, p2_lo)
    return _twoprod_dwdw(p3_hi, p3_lo, r_hi, r_lo)

P = [D(v) for v in (4.431642109085495276e-10, 7.073829923303358410e-9, 1.017822306737031311e-7,
                    1.321543498017646657e-6, 1.525273342728892877e-5, 1.540353045780084423e-4,
                    1.333355814685869807e-3, 9.618129107593478832e-3, 5.550410866481961247e-2,
                    0.240226506959101332)]   # p9 .. p0

def _exp2(x):
    p9, p8, p7, p6, p5, p4, p3, p2, p1, p0 = P
    x2 = x * x
    pe = _madd(p8, x2, p6); po = _madd(p9, x2, p7)
    pe = _madd(pe, x2, p4); po = _madd(po, x2, p5)
    pe = _madd(pe, x2, p2); po = _madd(po, x2, p3)
    pe = _madd(pe, x2, p0); po = _madd(po, x2, p1)
    p = _madd(po, x, pe)
    p_hi, p_lo = _twoprod(p, x)
    q1_hi, q1_lo = _twosum_dw(p_hi, p_lo, D(0.693147180559945286), D(4.81927865669806721e-17))
    q2_hi, q2_lo = _twoprod_dwf(q1_hi, q1_lo, x)
    q3_hi, q3_lo = _fast_twosum(D(1), q2_hi)
    return q3_hi + (q2_lo + q3_lo)

def _pround(a):
    return np.trunc(a + np.copysign(D(0.49999999999999994), a))

def pow_positive(x, y):
    m, e = np.frexp(x)
    e = e.astype(D)
    low = m < D(0.70710678118654752440)
    m = np.where(low, 2 * m, m)
    e = np.where(low, e - 1, e)
    rx_hi, rx_lo = _log2(m)
    f1_hi, f1_lo = _twoprod(e, y)
    f2_hi, f2_lo = _twoprod_dwf(rx_hi, rx_lo, y)
    f_hi, f_lo = _fast_twosum_dw(f1_hi, f1_lo, f2_hi, f2_lo)
    n_z = _pround(f_hi)
    r_z = (f_hi - n_z) + f_lo
    n_r = _pround(r_z)
    r_z = r_z - n_r
    n_z = n_z + n_r
    return np.ldexp(_exp2(r_z), n_z.astype(np.int64))

def _packet_pow(x, y):
    x = np.asarray(x, D); y = np.broadcast_to(np.asarray(y, D), x.shape)
    with np.errstate(all="ignore"):
        ax = np.abs(x)
        y_int = np.floor(y) == y
        y_even = _pround(y * 0.5) == y * 0.5
        out = pow_positive(np.where(ax == 0, 1.0, ax), y)
        out = np.where(np.signbit(x) & (ax != 0) & y_int & ~y_even, -out, out)
        special = (ax == 0) | np.isinf(ax) | np.isinf(y) | np.isnan(x) | np.isnan(y) | ((x < 0) & ~y_int) | (ax == 1) | (y == 0)
        out = np.where(special, np.power(x, y), out)
        return np.where(y == 1, x, out)


PACKET = 4


def eigen_pow64(x, y, libm_pow):
    """float64 x ** y (y broadcast to x) as Paddle's pow kernel: packets, then the tail by
    ``libm_pow`` (the C library's pow)."""
    flat_x = np.asarray(x, D).reshape(-1)
    flat_y = np.broadcast_to(np.asarray(y, D), np.shape(x)).reshape(-1)
    n4 = flat_x.size // PACKET * PACKET
    out = np.empty(flat_x.size, D)
    if n4:
        out[:n4] = _packet_pow(flat_x[:n4], flat_y[:n4])
    if n4 < flat_x.size:
        out[n4:] = libm_pow(flat_x[n4:], np.array(flat_y[n4:]))
    return out.reshape(np.shape(x))
