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


def _glibc_atan2f():
    """The C library's atan2f element by element, whatever the size (glibc 2.36's differs from
    the rounded double atan2 in 15% of random pairs, so no shortcut)."""
    import ctypes

    from ..engine.ops import _kernels as K

    fn = getattr(K._LIBM, "atan2f", None) if K._LIBM is not None else None
    if fn is None:
        return None
    fn.restype = ctypes.c_float
    fn.argtypes = [ctypes.c_float, ctypes.c_float]
    ufunc = np.frompyfunc(fn, 2, 1)
    return lambda a, b: np.asarray(ufunc(a, b), np.float32).reshape(np.shape(a))


_ATAN2F = []


def atan2_f32(y, x, libm):
    """torch's float32 atan2 (BinaryOpsKernel.cpp, an AVX-512 kernel too): ``atan2f_u10`` on
    the vector loop's blocks of two vectors (32 values; 16 under AVX2), the C library's atan2f
    on the rest (measured: 4,096 random pairs, all equal); ``libm(y, x)`` where there is no C
    library to call."""
    from . import _tensor_iter

    if not _ATAN2F:
        _ATAN2F.append(_glibc_atan2f() or libm)
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
    kernel is not emulated (float64, the DEFAULT build)."""
    if x.dtype != np.float32 or _capability.capability() == "DEFAULT":
        return None
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
