"""SLEEF's double exp and log (the 1-ulp versions) as torch 2.13's AVX-512 ``Vectorized<double>``
computes them, in numpy: ``exp`` a reduction by ln 2 in two fused steps and a degree-12
polynomial by Estrin's scheme in fused multiply-adds; ``log`` AVX-512's getexp/getmant split and
double-double arithmetic. Checked bit for bit against torch's float64 softmax/log_softmax.

``fma64`` is a double a * b + c rounded once: the exact product as two doubles (Dekker), the
sum's error term added back (correct except for a rare double-rounding tie, and for products
near the subnormal range, which are rounded twice)."""
from __future__ import annotations

import numpy as np

# (the emulated float64 fused multiply-add: in the engine, Paddle's SLEEF kernels use it too)
from ..engine.ops._dekker import fma64, two_prod  # noqa: F401

F64 = np.float64
_R_LN2 = 1.442695040888963407359924681001892137426645954152985934135449406931
_L2U = .69314718055966295651160180568695068359375
_L2L = .28235290563031577122588448175013436025525412068e-12
_EXP_C = (0.2081276378237164457e-8, 0.2511210703042288022e-7, 0.2755762628169491192e-6,
          0.2755723402025388239e-5, 0.2480158687479686264e-4, 0.1984126989855865850e-3,
          0.1388888888914497797e-2, 0.8333333333314938210e-2, 0.4166666666666602598e-1,
          0.1666666666666669072e+0)
_LOG_C = (0.1532076988502701353e+0, 0.1525629051003428716e+0, 0.1818605932937785996e+0,
          0.2222214519839380009e+0, 0.2857142932794299317e+0, 0.3999999999635251990e+0,
          0.6666666666667333541e+0)
_LN2_HI, _LN2_LO = 0.693147180559945286226764, 2.319046813846299558417771e-17


def _mla(x, c1, c0):
    return fma64(x, np.full_like(x, c1), np.full_like(x, c0))


def _pow2i(q):
    return ((q.astype(np.int64) + 0x3FF) << 52).view(F64)


def vexp(d):
    d = np.asarray(d, F64)
    with np.errstate(all="ignore"):
        u = np.rint(d * _R_LN2)
        q = np.nan_to_num(u, nan=0.0, posinf=0.0, neginf=0.0).astype(np.int64)
        s = fma64(u, np.full_like(u, -_L2U), d)
        s = fma64(u, np.full_like(u, -_L2L), s)
        s2 = s * s
        s4 = s2 * s2
        s8 = s4 * s4
        c9, c8, c7, c6, c5, c4, c3, c2, c1, c0 = _EXP_C
        p8 = fma64(s4, fma64(s2, _mla(s, c7, c6), _mla(s, c5, c4)),
                   fma64(s2, _mla(s, c3, c2), _mla(s, c1, c0)))
        u = fma64(s8, _mla(s, c9, c8), p8)
        for c in (0.5, 1.0, 1.0):
            u = fma64(u, s, np.full_like(u, c))
        h = q >> 1
        u = (u * _pow2i(h)) * _pow2i(q - h)
        u = np.where(d > 709.78271114955742909217217426, np.inf, u)
        u = np.where(d < -1000, 0.0, u)
    return u


def _two_sum(x, y):
    rx = x + y
    v = rx - x
    return rx, (x - (rx - v)) + (y - v)


def vlog(d):
    """for positive finite d"""
    d = np.asarray(d, F64)
    with np.errstate(all="ignore"):
        _f, ex = np.frexp(d * (1.0 / 0.75))
        e = (ex - 1).astype(F64)
        f, _ex = np.frexp(d)
        m = f * 2
        m = np.where(m >= 1.5, m * 0.5, m)
        one = np.ones_like(m)
        nx, ny = _two_sum(-one, m)
        dx, dy = _two_sum(one, m)
        t = 1.0 / dx
        qx = nx * t
        u = fma64(t, nx, -qx)
        qy = fma64(qx, fma64(-dy, t, fma64(-dx, t, one)), fma64(ny, t, u))
        x2 = qx * qx
        x4 = x2 * x2
        x8 = x4 * x4
        c6, c5, c4, c3, c2, c1, c0 = _LOG_C
        tt = fma64(x8, fma64(x4, np.full_like(x2, c6), _mla(x2, c5, c4)),
                   fma64(x4, _mla(x2, c3, c2), _mla(x2, c1, c0)))
        sx = _LN2_HI * e
        sy = fma64(np.full_like(e, _LN2_LO), e, fma64(np.full_like(e, _LN2_HI), e, -sx))
        ax, ay = qx * 2, qy * 2
        rx = sx + ax
        ry = (((sx - rx) + ax) + sy) + ay
        w = (x2 * qx) * tt
        r2x = rx + w
        return r2x + (((rx - r2x) + w) + ry)
