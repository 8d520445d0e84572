"""torch 2.13's float32/float64 CPU kernels of elementwise functions whose
last bits the engine's numpy forms missed, as ATen computes them on x86-64.

* ``lerp`` (``native/cpu/LerpKernel.cpp``): ``|w| < 0.5 ? fma(w, end - self, self)
  : fma(w - 1, end - self, end)`` -- one fused multiply-add in the vector lambda
  (``vec::fmadd``) and in the scalar one (GCC contracts ``self + w * (end - self)`` and
  ``end - (end - self) * (1 - w)``, whose ``1 - w`` is ``-(w - 1)`` exactly); the DEFAULT
  build (no FMA) rounds the product first. A number weight is taken in the tensors' dtype.
"""
from __future__ import annotations

import numpy as np

from . import _capability


def _fma(a, b, c):
    dt = np.result_type(a, b, c)
    if dt == np.float32:
        from ._norm_kernels import fma

        return np.asarray(fma(np.asarray(a, dt), np.asarray(b, dt), np.asarray(c, dt)), dt)
    from ._sleef64 import fma64

    return np.asarray(fma64(np.asarray(a, dt), np.asarray(b, dt), np.asarray(c, dt)), dt)


def lerp(x, y, w, **_kw):
    """torch's lerp of float arrays (broadcast); None for other dtypes."""
    dt = np.result_type(x, y, w)
    if dt not in (np.float32, np.float64):
        return None
    x, y, w = np.broadcast_arrays(*(np.asarray(v, dt) for v in (x, y, w)))
    with np.errstate(all="ignore"):
        d = (y - x).astype(dt)
        small = np.abs(w) < dt.type(0.5)
        coeff = np.where(small, w, (w - dt.type(1)).astype(dt))
        base = np.where(small, x, y)
        if _capability.fused():
            return _fma(coeff, d, base)
        return np.where(small, x + (w * d).astype(dt),
                        y - (d * (dt.type(1) - w)).astype(dt)).astype(dt)


def logit(x, eps=None, **_kw):
    """torch's float32/float64 logit: x clamped to [eps, 1 - eps] (with an eps), then
    ``log(x / (1 - x))`` with torch's own log (measured on real torch 2.13: 20,000 float32
    values, vector blocks and scalar tails alike, all equal to ``torch.log(x / (1 - x))``; the
    C library's logf differs in 5%); None for other dtypes."""
    if x.dtype not in (np.float32, np.float64):
        return None
    from . import _ops

    one = x.dtype.type(1)
    with np.errstate(all="ignore"):
        if eps is not None and not np.isnan(eps):
            lo = x.dtype.type(eps)
            x = np.clip(x, lo, one - lo)   # (NaN stays NaN, as ATen's compares)
        return np.asarray(_ops.log._op.forward((x / (one - x)).astype(x.dtype)), x.dtype)


# ---------------------------------------------------------------- SLEEF atan2f (u10)
def _f(v):
    return np.float32(v)


def _df_normalize(x, y):
    s = x + y
    return s, (x - s) + y


def _atan2kf_u1(yx, yy, xx, xy):
    """SLEEF ``atan2kf_u1`` (FMA build) on double-floats (y >= 0 here)."""
    from ..engine.ops import _kernels as K

    f32 = np.float32
    q = np.where(xx < 0, -2, 0).astype(np.int32)
    neg = xx < 0
    xx = np.where(neg, -xx, xx)
    xy = np.where(neg, -xy, xy)
    q = np.where(xx < yx, q + 1, q)
    p = xx < yx
    sx, sy = np.where(p, -xx, yx), np.where(p, -xy, yy)
    tx, ty = np.where(p, yx, xx), np.where(p, yy, xy)
    sx, sy = K._df_div(sx, sy, tx, ty)
    tx, ty = K._df_squ(sx, sy)
    tx, ty = _df_normalize(tx, ty)
    u = np.full(tx.shape, _f(-0.00176397908944636583328247), f32)
    for c in (0.0107900900766253471374512, -0.0309564601629972457885742,
              0.0577365085482597351074219, -0.0838950723409652709960938,
              0.109463557600975036621094, -0.142626821994781494140625,
              0.199983194470405578613281):
        u = K._fma(u, tx, _f(c))
    # dfadd_vf2_vf_vf(-0.3333..., u * t.x)
    a = _f(-0.333332866430282592773438)
    b = (u * tx).astype(f32)
    s_ = (a + b).astype(f32)
    ax, ay = s_, ((a - s_) + b).astype(f32)
    tx, ty = K._df_mul_dd(tx, ty, ax, ay)
    # dfadd_vf2_vf_vf2(1, t)
    s_ = (_f(1) + tx).astype(f32)
    bx, by = s_, (((_f(1) - s_) + tx) + ty).astype(f32)
    tx, ty = K._df_mul_dd(sx, sy, bx, by)
    qf = q.astype(f32)
    cx, cy = K._df_mul_df(_f(1.5707963705062866211), _f(-4.3711388286737928865e-08), qf)
    # dfadd_vf2_vf2_vf2(c, t): s = c.x + t.x; y = ((c.x - s) + t.x + c.y) + t.y
    s_ = (cx + tx).astype(f32)
    return s_, ((((cx - s_) + tx) + cy) + ty).astype(f32)


def atan2f_u10(y, x):
    """SLEEF's ``xatan2f_u1`` (torch's ``Vectorized<float>::atan2``) on float32 arrays."""
    f32 = np.float32
    y = np.asarray(y, f32)
    x = np.asarray(x, f32)
    with np.errstate(all="ignore"):
        tiny = np.abs(x) < _f(2.9387372783541830947e-39)
        x = np.where(tiny, x * _f(1 << 24), x)
        y = np.where(tiny, y * _f(1 << 24), y)
        zero = np.zeros_like(x)
        dx, dy = _atan2kf_u1(np.abs(y), zero, x, zero)
        r = (dx + dy).astype(f32)
        r = _mulsign(r, x)
        half_pi = _f(np.pi / 2)
        xinf = np.isinf(x)
        r = np.where(xinf | (x == 0), half_pi - _isinf2(x, _mulsign(half_pi, x)), r)
        r = np.where(np.isinf(y), half_pi - _isinf2(x, _mulsign(_f(np.pi / 4), x)), r)
        r = np.where(y == 0, np.where(np.signbit(x), _f(np.pi), _f(0)), r)
        r = _mulsign(r, y)
        nan = np.uint32(0xFFFFFFFF).view(f32)     # (vor with the all-ones mask)
        return np.where(np.isnan(x) | np.isnan(y), nan, r).astype(f32)


def _mulsign(v, s):
    """SLEEF ``vmulsign``: v with its sign bit xor s's."""
    bits = np.asarray(v, np.float32).view(np.uint32) ^ (np.asarray(s, np.float32).view(np.uint32)
                                                        & np.uint32(0x80000000))
    return bits.view(np.float32)


def _isinf2(d, m):
    """SLEEF ``visinf2_vf_vf_vf``: m's magnitude with d's sign where d is infinite, else 0."""
    return np.where(np.isinf(d), _mulsign(np.abs(m), d), np.float32(0))


_GLIBC2: dict = {}


def glibc2(name):
    """The C library's two-argument float function ``name`` (``atan2f``, ``powf``) element by
    element, whatever the size (the engine's ``_libm2`` takes the rounded double function past
    1,024 values: glibc 2.36's atan2f differs from it in 15% of random pairs); None without a
    C library."""
    if name not in _GLIBC2:
        import ctypes

        from ..engine.ops import _kernels as K

        fn = getattr(K._LIBM, name, None) if K._LIBM is not None else None
        run = None
        if fn is not None:
            fn = ctypes.CFUNCTYPE(ctypes.c_float, ctypes.c_float, ctypes.c_float)((name, K._LIBM))
            ufunc = np.frompyfunc(fn, 2, 1)

            def run(a, b, ufunc=ufunc):
                a, b = np.asarray(a, np.float32), np.asarray(b, np.float32)
                if a.size == 0:
                    return np.empty(np.broadcast_shapes(a.shape, b.shape), np.float32)
                return np.asarray(ufunc(a, b), np.float32).reshape(
                    np.broadcast_shapes(a.shape, b.shape))
        _GLIBC2[name] = run
    return _GLIBC2[name]


_ATAN2F = []


def atan2_f32(y, x, libm):
    """torch's float32 atan2 (BinaryOpsKernel.cpp, an AVX-512 kernel too): ``atan2f_u10`` on
    the vector loop's blocks of two vectors (32 values; 16 under AVX2), the C library's atan2f
    on the rest (measured: 4,096 random pairs, all equal); ``libm(y, x)`` where there is no C
    library to call."""
    from . import _tensor_iter

    if not _ATAN2F:
        _ATAN2F.append(glibc2("atan2f") or libm)
    one = _ATAN2F[0]
    if _capability.capability() == "DEFAULT":
        return one(*(np.ascontiguousarray(a) for a in np.broadcast_arrays(y, x)))
    return _tensor_iter.run(atan2f_u10, one, y, x)


# ---------------------------------------------------------------- losses
def bce_with_logits_losses(x, y, weight=None, pos_weight=None):
    """torch's binary_cross_entropy_with_logits before its reduction (Loss.cpp):
    ``(1 - target) * input - log_sigmoid(input)``, the log-sigmoid times
    ``(pos_weight - 1) * target + 1`` first where there is a pos_weight, the loss times the
    weight last; torch's log_sigmoid kernel (SLEEF, ``_activation_kernels``). None where that
    kernel is not emulated (the DEFAULT build)."""
    if x.dtype not in (np.float32, np.float64) or _capability.capability() == "DEFAULT":
        return None
    if x.dtype == np.float64:   # torch's double log_sigmoid (_sigmoid64), the rest in double
        from . import _sigmoid64

        with np.errstate(all="ignore"):
            y = np.asarray(y, np.float64)
            ls = _sigmoid64.logsigmoid(x)
            if pos_weight is not None:
                ls = ls * ((np.asarray(pos_weight, np.float64) - 1.0) * y + 1.0)
            loss = (1.0 - y) * x - ls
            if weight is not None:
                loss = loss * np.asarray(weight, np.float64)
        return loss
    from ._activation_kernels import logsigmoid_fwd

    f32 = np.float32
    with np.errstate(all="ignore"):
        y = np.asarray(y, f32)
        ls = np.asarray(logsigmoid_fwd(np.ascontiguousarray(x)), f32).reshape(x.shape)
        if pos_weight is not None:
            lw = ((np.asarray(pos_weight, f32) - f32(1)) * y + f32(1)).astype(f32)
            ls = (ls * lw).astype(f32)
        loss = ((f32(1) - y) * x - ls).astype(f32)
        if weight is not None:
            loss = (loss * np.asarray(weight, f32)).astype(f32)
    return loss


# ---------------------------------------------------------------- SLEEF lgammaf (u10)
def _d2(v):
    """SLEEF ``vcast_vf2_d``: a double as the float pair (float(d), float(d - float(d)))."""
    h = np.float32(v)
    return h, np.float32(v - float(h))


def _sel(o, a, b):
    return np.where(o, a, b).astype(np.float32)


def _sel2(o, a, b):
    return _sel(o, a[0], b[0]), _sel(o, a[1], b[1])


def _df_mul_ff(x, y):
    from ..engine.ops import _kernels as K

    s = (x * y).astype(np.float32)
    return s, K._fmapn(x, y, s)


def _df_add2_fd(x, yx, yy):        # dfadd2_vf2_vf_vf2
    s = (x + yx).astype(np.float32)
    v = s - x
    return s, ((x - (s - v)) + (yx - v)) + yy


def _sinpifk(d):
    """SLEEF ``sinpifk``: sin(pi d) as a double-float."""
    from ..engine.ops import _kernels as K

    f32 = np.float32
    u = (d * f32(4)).astype(f32)
    q = np.trunc(u).astype(np.int32)
    q = (q + ((q.view(np.uint32) >> 31).astype(np.int32) ^ 1)) & ~1
    o = (q & 2) == 2
    s = (u - q.astype(f32)).astype(f32)
    t = s
    s = (s * s).astype(f32)
    s2 = _df_mul_ff(t, t)
    w = _sel(o, f32(-0.2430611801e-7), f32(0.3093842054e-6))
    w = K._fma(w, s, _sel(o, f32(0.3590577080e-5), f32(-0.3657307388e-4)))
    w = K._fma(w, s, _sel(o, f32(-0.3259917721e-3), f32(0.2490393585e-2)))
    x = _df_add2_fd((w * s).astype(f32),
                    *_sel2(o, (f32(0.015854343771934509277), f32(4.4940051354032242811e-10)),
                           (f32(-0.080745510756969451904), f32(-1.3373665339076936258e-09))))
    x = K._df_add2_dd(*K._df_mul_dd(*s2, *x),
                      *_sel2(o, (f32(-0.30842512845993041992), f32(-9.0728339030733922277e-09)),
                             (f32(0.78539818525314331055), f32(-2.1857338617566484855e-08))))
    x = K._df_mul_dd(*x, *_sel2(o, s2, (t, np.zeros_like(t))))
    x = _sel2(o, K._df_add2_dff(*x, f32(1)), x)
    neg = (q & 4) == 4
    sign = np.where(neg, np.uint32(0x80000000), np.uint32(0))
    return ((x[0].view(np.uint32) ^ sign).view(f32), (x[1].view(np.uint32) ^ sign).view(f32))


_GAMMA_U = (  # (x >= 2.3, 0.5 <= x <= 1.2, else) coefficients of gammafk's polynomial
    (0.000839498720672087279971000786, 0.9435157776e+0, 0.1102489550e-3),
    (-5.17179090826059219329394422e-05, 0.8670063615e+0, 0.8160019934e-4),
    (-0.000592166437353693882857342347, 0.4826702476e+0, 0.1528468856e-3),
    (6.97281375836585777403743539e-05, -0.8855129778e-1, -0.2355068718e-3),
    (0.000784039221720066627493314301, 0.1013825238e+0, 0.4962242092e-3),
    (-0.000229472093621399176949318732, -0.1493408978e+0, -0.1193488017e-2),
    (-0.002681327160493827160473958490, 0.1697509140e+0, 0.2891599433e-2),
    (0.003472222222222222222175164840, -0.2072454542e+0, -0.7385451812e-2),
    (0.083333333333333333335592087900, 0.2705872357e+0, 0.2058077045e-1),
)


def _gammafk(a):
    """SLEEF ``gammafk`` (FMA build): (log-part, ratio) double-floats of lgamma/tgamma."""
    from ..engine.ops import _kernels as K
    from ._sleef_more import _logk2f

    f32 = np.float32
    zero = np.zeros_like(a)
    one = np.ones_like(a)
    otiny = np.abs(a) < f32(1e-30)
    oref = a < f32(0.5)
    x = _sel2(otiny, (zero, zero), _sel2(oref, K._df_add2_ff(f32(1), -a), (a, zero)))
    o0 = (f32(0.5) <= x[0]) & (x[0] <= f32(1.2))
    o2 = f32(2.3) <= x[0]
    y = _df_normalize(*K._df_mul_dd(*K._df_add2_dff(*x, f32(1)), *x))
    y = _df_normalize(*K._df_mul_dd(*K._df_add2_dff(*x, f32(2)), *y))
    o = o2 & (x[0] <= f32(7))
    clln = _sel2(o, y, (one, zero))
    x = _sel2(o, K._df_add2_dff(*x, f32(3)), x)
    t = _sel(o2, (f32(1) / x[0]).astype(f32),
             _df_normalize(*K._df_add2_dff(*x, _sel(o0, f32(-1), f32(-2))))[0])

    def pick(c):
        return _sel(o2, f32(c[0]), _sel(o0, f32(c[1]), f32(c[2])))
    u = pick(_GAMMA_U[0])
    for c in _GAMMA_U[1:]:
        u = K._fma(u, t, pick(c))
    y = K._df_mul_dd(*K._df_add2_dff(*x, f32(-0.5)), *_logk2f(*x))
    y = K._df_add2_dd(*y, -x[0], -x[1])
    y = K._df_add2_dd(*y, *_d2(0.91893853320467278056))
    z = K._df_add2_dff(*_df_mul_ff(u, t), _sel(o0, f32(-0.400686534596170958447352690395e+0),
                                              f32(-0.673523028297382446749257758235e-1)))
    z = K._df_add2_dff(*K._df_mul_df(*z, t), _sel(o0, f32(0.822466960142643054450325495997e+0),
                                                 f32(0.322467033928981157743538726901e+0)))
    z = K._df_add2_dff(*K._df_mul_df(*z, t), _sel(o0, f32(-0.577215665946766039837398973297e+0),
                                                 f32(0.422784335087484338986941629852e+0)))
    z = K._df_mul_df(*z, t)
    clc = _sel2(o2, y, z)
    clld = _sel2(o2, K._df_add2_dff(*_df_mul_ff(u, t), f32(1)), (one, zero))
    y = clln
    lp = _d2(1.1447298858494001639)
    clc = _sel2(otiny, (np.full_like(a, _d2(41.58883083359671856503)[0]),
                        np.full_like(a, _d2(41.58883083359671856503)[1])),
                _sel2(oref, K._df_add2_dd(np.full_like(a, lp[0]), np.full_like(a, lp[1]),
                                          -clc[0], -clc[1]), clc))
    clln = _sel2(otiny, (one, zero), _sel2(oref, clln, clld))
    x = (zero, zero)
    if oref.any():
        tt = (a - f32(1 << 12) * np.trunc((a * f32(1.0 / (1 << 12))).astype(f32))
              .astype(np.int32).astype(f32)).astype(f32)
        x = K._df_mul_dd(*clld, *_sinpifk(tt))
    clld = _sel2(otiny, ((a * f32((1 << 30) * float(1 << 30))).astype(f32), zero),
                 _sel2(oref, x, y))
    return clc, K._df_div(*clln, *clld)


def lgammaf_u10(a):
    """SLEEF's ``xlgammaf_u1`` (torch's float32 lgamma on every value: measured, its scalar
    loop and vector loop give the same bits) on a float32 array."""
    f32 = np.float32
    a = np.asarray(a, f32)
    shape = a.shape
    a = a.reshape(-1)
    with np.errstate(all="ignore"):
        (cx, cy), (bx, by) = _gammafk(a)
        sign = bx.view(np.uint32) & np.uint32(0x80000000)
        ax, ay = np.abs(bx), (by.view(np.uint32) ^ sign).view(f32)   # dfabs
        from ..engine.ops import _kernels as K
        from ._sleef_more import _logk2f

        y = K._df_add2_dd(cx, cy, *_logk2f(ax, ay))
        r = (y[0] + y[1]).astype(f32)
        isint = np.trunc(a) == a
        o = np.isinf(a) | ((a <= 0) & isint) | (np.isfinite(a) & np.isnan(r))
        r = np.where(o, f32(np.inf), r)
    return r.reshape(shape).astype(f32)


# ---------------------------------------------------------------- trigamma (polygamma(1, x))
def trigamma_f32(x):
    """ATen's float32 ``calc_trigamma`` (Math.h), all in float: the reflection below 0.5, six
    steps, then ``(1 + 1/(2x) + ixx * (1/6 - ixx * (1/30 - ixx * (1/42)))) / x`` with
    ``one/6`` etc. in float -- its three multiply-adds fused by GCC in the AVX2/AVX512 builds
    (the engine's unfused form was one ulp off in 1 of 1,000 values). Measured equal to real
    torch for x >= 0.5 (20,000 values); below 0.5 (the reflection through sin) 1-2% of values
    still differ in the last bit."""
    from ..engine.ops.special_torch import lm
    from ..engine.ops import _kernels as K

    f32 = np.float32
    x = np.asarray(x, f32)
    pi = f32(np.pi)
    one = f32(1)
    c6, c30, c42 = one / f32(6), one / f32(30), one / f32(42)
    with np.errstate(all="ignore"):
        small = x < f32(0.5)
        s = lm("sin", (pi * x).astype(f32))   # (below 0.5 not yet torch's: 1-2% differ)
        result = np.where(small, f32(0) - ((pi * pi) / (s * s)).astype(f32), f32(0)).astype(f32)
        sign = np.where(small, f32(-1), f32(1))
        x = np.where(small, one - x, x).astype(f32)
        for _ in range(6):
            result = (result + one / (x * x)).astype(f32)
            x = (x + one).astype(f32)
        ixx = (one / (x * x)).astype(f32)
        base = (one + one / (f32(2) * x)).astype(f32)
        if _capability.fused():
            inner = K._fma(-ixx, c42, c30)
            inner = K._fma(-ixx, inner, c6)
            tail = K._fma(ixx, inner, base)
        else:
            tail = (base + ixx * (c6 - ixx * (c30 - ixx * c42))).astype(f32)
        result = (result + tail / x).astype(f32)
        return (sign * result).astype(f32)


def glibc1(name, fallback):
    """The C library's one-argument float function ``name`` (``exp2f``) element by element at
    any size (the engine's ``libm`` takes the rounded double function past 1,024 values where
    numexpr has no such function); ``fallback`` without a C library."""
    key = ("1", name)
    if key not in _GLIBC2:
        import ctypes

        from ..engine.ops import _kernels as K

        run = fallback
        if K._LIBM is not None and getattr(K._LIBM, name, None) is not None:
            fn = ctypes.CFUNCTYPE(ctypes.c_float, ctypes.c_float)((name, K._LIBM))
            ufunc = np.frompyfunc(fn, 1, 1)

            def run(a, ufunc=ufunc, small=fallback):
                a = np.asarray(a, np.float32)
                if a.size <= 1024:
                    return small(a)
                return np.asarray(ufunc(a), np.float32).reshape(a.shape)
        _GLIBC2[key] = run
    return _GLIBC2[key]


def huberish_grad(x, y, g, delta, norm, smooth_l1, step=None):
    """torch's smooth_l1_backward / huber_backward CPU kernels (PointwiseOpsKernel.cpp) for
    float32/float64: d = input - target; the vector lambda ``norm * out * grad`` with out the
    blend of ±1 (times delta for huber) and d / beta (d for huber), the scalar lambda
    ``±norm * grad`` (times delta), or ``norm * d * grad / beta`` (``norm * d * grad``) inside;
    norm = 1/N for 'mean' (a double rounded to the dtype). None for other dtypes."""
    from . import _tensor_iter

    dt = np.result_type(x, y, g)
    if dt not in (np.float32, np.float64):
        return None
    t = dt.type
    nv, dv = t(norm), t(delta)

    def vec(a, b, go):
        d = (a - b).astype(dt)
        pm = np.where(d > 0, t(1), t(-1)).astype(dt)
        if smooth_l1:
            out = np.where(np.abs(d) >= dv, pm, (d / dv).astype(dt))
        else:
            out = np.where(np.abs(d) >= dv, (pm * dv).astype(dt), d)
        return ((nv * out).astype(dt) * go).astype(dt)

    def one(a, b, go):
        d = (a - b).astype(dt)
        if smooth_l1:
            inside = (((nv * d).astype(dt) * go).astype(dt) / dv).astype(dt)
            lo, hi = ((-nv) * go).astype(dt), (nv * go).astype(dt)
        else:
            inside = ((nv * d).astype(dt) * go).astype(dt)
            lo, hi = (((-nv) * go).astype(dt) * dv).astype(dt), ((nv * go).astype(dt) * dv).astype(dt)
        return np.where(d <= -dv, lo, np.where(d >= dv, hi, inside)).astype(dt)

    with np.errstate(all="ignore"):
        if _capability.capability() == "DEFAULT":
            vec = None
        return _tensor_iter.run(vec, one, np.asarray(x, dt), np.asarray(y, dt),
                                np.asarray(g, dt), step=step)


def logaddexp(a, b, **_kw):
    """torch's float32 logaddexp (BinaryOpsKernel.cpp, an AVX-512 kernel too): ``max(a, b) +
    log1p(exp(-|a - b|))`` -- SLEEF's expf/log1pf (u10) on the vector loop's blocks, the C
    library's on the rest; equal infinities give themselves. None for other dtypes."""
    dt = np.result_type(a, b)
    if dt != np.float32 or _capability.capability() == "DEFAULT":
        return None
    from . import _tensor_iter
    from ._activation_kernels import _expf, _log1pf, log1pf_u10
    from ._lecture_kernels import expf_u10

    f32 = np.float32

    def make(exp, log1p):
        def k(x, y):
            with np.errstate(all="ignore"):
                m = np.maximum(x, y)
                d = np.negative(np.abs((x - y).astype(f32)))
                out = (m + np.asarray(log1p(np.asarray(exp(d), f32)), f32)).astype(f32)
                return np.where((x == y) & np.isinf(x), x, out).astype(f32)
        return k
    return _tensor_iter.run(make(expf_u10, log1pf_u10), make(_expf, _log1pf),
                            np.asarray(a, f32), np.asarray(b, f32))
