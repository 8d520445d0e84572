"""torch 2.13's float64 sigmoid-family kernels on x86-64 (``aten/src/ATen/native/cpu``), in
numpy: ``sigmoid`` (UnaryOpsKernel.cpp: the vector lambda ``(0 - a).exp() + 1`` then
``reciprocal()``, the scalar one ``1 / (1 + std::exp(-a))``) and ``silu`` / its backward
(Activation.cpp: ``x / (1 + (-x).exp())``; ``dy * s * (1 + x * (1 - s))``, the last
multiply-add fused as in the float32 build). ``Vectorized<double>::exp`` is SLEEF's
``Sleef_expd8_u10`` (``_sleef64.vexp``); the scalar lambda's ``std::exp`` is glibc's.

Both kernels are registered with an AVX-512 build, so under the AVX512 capability the vector
loop takes groups of two 8-double vectors (16 values: measured on real torch 2.13, n = 15 is all
scalar, n = 40 takes 32 vector values), under AVX2 groups of 8; the rest of each row and each
thread's range goes to the scalar lambda (``_tensor_iter``). Under DEFAULT (no vector build)
``Vectorized<double>::exp`` is ``std::exp`` per value, so every value is the scalar one."""
from __future__ import annotations

import numpy as np

from ..engine.ops import _kernels as K
from . import _capability, _tensor_iter
from ._sleef64 import fma64, vexp

F64 = np.float64
_glibc_exp = K.libm64("exp", np.exp)


def _step():
    return 2 * _capability.lanes(np.dtype(F64), avx512_kernel=True)


def _run(vec, scalar, *arrays, grain=None):
    arrays = [np.asarray(a, F64) for a in arrays]
    if _capability.capability() == "DEFAULT":
        vec = None
    with np.errstate(all="ignore"):
        return np.asarray(_tensor_iter.run(vec, scalar, *arrays, step=_step(), grain=grain),
                          F64)


def _sig_vec(x):
    return 1.0 / (vexp(0.0 - x) + 1.0)


def _sig_one(x):
    return 1.0 / (1.0 + _glibc_exp(-x))


def sigmoid(x):
    """torch.sigmoid of a float64 array."""
    return _run(_sig_vec, _sig_one, x)


def _silu_vec(x):
    return x / (1.0 + vexp(-x))


def _silu_one(x):
    return x / (1.0 + _glibc_exp(-x))


def silu(x):
    return _run(_silu_vec, _silu_one, x)


def _silu_bwd(exp):
    def k(dy, x):
        s = 1.0 / (1.0 + exp(-x))
        return dy * s * fma64(x, 1.0 - s, np.ones_like(s))
    return k


def silu_backward(dy, x):
    return _run(_silu_bwd(vexp), _silu_bwd(_glibc_exp), dy, x)


def ok(*arrays):
    """Whether these kernels are torch's for the operands (all float64)."""
    return all(np.asarray(a).dtype == F64 for a in arrays)


# ---------------------------------------------------------------- log_sigmoid
_LN2_HI, _LN2_LO = 0.693147180559945286226764, 2.319046813846299558417771e-17
_LOG_C = (0.1532076988502701353e+0, 0.1525629051003428716e+0, 0.1818605932937785996e+0,
          0.2222214519839380009e+0, 0.2857142932794299317e+0, 0.3999999999635251990e+0,
          0.6666666666667333541e+0)


def vlog1p(d):
    """SLEEF's ``Sleef_log1pd8_u10`` (its AVX-512 branch: ``vgetexp`` of (d + 1) / 0.75, a
    double-double quotient m / (2 + m), a degree-7 polynomial in x^2) for -1 < d <= 1e307, the
    range log_sigmoid gives it (exp(-|x|) in [0, 1]); -1 -> -inf, below or NaN -> NaN."""
    d = np.asarray(d, F64)
    with np.errstate(all="ignore"):
        dp1 = d + 1.0
        _f, ex = np.frexp(dp1 * (1.0 / 0.75))
        e = (ex - 1).astype(F64)
        t = np.ldexp(np.ones_like(d), -(ex - 1))
        m = fma64(d, t, t - 1.0)
        # s = (ln2_hi, ln2_lo) * e, double-double
        sx = _LN2_HI * e
        sy = fma64(np.full_like(e, _LN2_LO), e, fma64(np.full_like(e, _LN2_HI), e, -sx))
        # x = (m, 0) / ddadd(2, m)
        dx = 2.0 + m
        dy = (2.0 - dx) + m
        rt = 1.0 / dx
        qx = m * rt
        u = fma64(rt, m, -qx)
        v = fma64(-dy, rt, fma64(-dx, rt, np.ones_like(dx)))
        qy = fma64(qx, v, fma64(np.zeros_like(m), rt, u))
        x2 = qx * qx
        x4 = x2 * x2
        x8 = x4 * x4
        c6, c5, c4, c3, c2, c1, c0 = _LOG_C

        def mla(a, c1_, c0_):
            return fma64(a, np.full_like(a, c1_), np.full_like(a, c0_))
        tt = fma64(x8, fma64(x4, np.full_like(x2, c6), mla(x2, c5, c4)),
                   fma64(x4, mla(x2, c3, c2), mla(x2, c1, c0)))
        ax, ay = qx * 2.0, qy * 2.0
        rx = sx + ax
        ry = (((sx - rx) + ax) + sy) + ay
        w = (x2 * qx) * tt
        r2x = rx + w
        r = r2x + (((rx - r2x) + w) + ry)
        r = np.where((d < -1) | np.isnan(d), np.nan, r)
        r = np.where(d == -1, -np.inf, r)
        return np.where((d == 0) & np.signbit(d), -0.0, r)


def logsigmoid_buffer(x):
    """The buffer torch's log_sigmoid forward keeps: exp(-|x|) by SLEEF (every value: the loop
    is whole vectors and a partial last one)."""
    with np.errstate(all="ignore"):
        return vexp(-np.abs(np.asarray(x, F64)))


def logsigmoid(x):
    """``_vec_log_sigmoid``: min(x, 0) - log1p(exp(-|x|)), all by SLEEF."""
    x = np.asarray(x, F64)
    with np.errstate(all="ignore"):
        return np.minimum(x, 0.0) - vlog1p(logsigmoid_buffer(x))


def logsigmoid_backward(dy, x, buf=None):
    """(max_deriv - sign * buf / (1 + buf)) * dy, the multiply-subtract fused."""
    x = np.asarray(x, F64)
    buf = logsigmoid_buffer(x) if buf is None else buf
    neg = x < 0
    with np.errstate(all="ignore"):
        max_deriv = np.where(neg, 1.0, 0.0)
        sign = np.where(neg, 1.0, -1.0)
        return fma64(-sign, buf / (1.0 + buf), max_deriv) * np.asarray(dy, F64)


# ---------------------------------------------------------------- softplus (Activation.cpp)
_glibc_log1p = K.libm64("log1p", np.log1p)


def _softplus_fwd(exp, log1p, beta, threshold):
    def k(a):
        ab = a * beta
        return np.where(ab > threshold, a, log1p(exp(ab)) / beta)
    return k


def softplus(x, beta, threshold):
    """``softplus_kernel``: a where a * beta > threshold, else log1p(exp(a * beta)) / beta
    (vector lambda: SLEEF's exp and log1p, scalar lambda: glibc's)."""
    return _run(_softplus_fwd(vexp, vlog1p, beta, threshold),
                _softplus_fwd(_glibc_exp, _glibc_log1p, beta, threshold), x)


def _softplus_bwd(exp, beta, threshold):
    def k(dy, x):
        xb = x * beta
        z = exp(xb)
        return np.where(xb > threshold, dy, (dy * z) / (z + 1.0))
    return k


def softplus_backward(dy, x, beta, threshold):
    return _run(_softplus_bwd(vexp, beta, threshold), _softplus_bwd(_glibc_exp, beta, threshold),
                dy, x)


# ---------------------------------------------------------------- hardswish's backward
def _hardswish_bwd(dy, x):
    mid = dy * ((x / 3.0) + 0.5)
    return np.where(x < -3.0, 0.0, np.where(x >= 3.0, dy, mid))


def hardswish_backward(dy, x):
    """``hardswish_backward_kernel`` in double: dy * (x / 3 + 0.5) between -3 and 3 (the
    engine's gradient rounds another way)."""
    return _run(_hardswish_bwd, _hardswish_bwd, dy, x)


# ---------------------------------------------------------------- elu family (elu, selu, celu)
_glibc_expm1 = K.libm64("expm1", np.expm1)


def _elu_fwd(expm1, neg, pos, ipt):
    def k(a):
        return np.where(a > 0, a * pos, expm1(a * ipt) * neg)
    return k


def _sleef_expm1(x):
    from ._sleef_more import expm1d
    return expm1d(x)


def elu(x, neg, pos, ipt):
    """``elu_kernel`` in double: ``a > 0 ? a * poscoef : expm1(a * negiptcoef) * negcoef``; the
    vector lambda's expm1 is SLEEF's Sleef_expm1d8_u10, the scalar lambda's glibc's."""
    return _run(_elu_fwd(_sleef_expm1, neg, pos, ipt), _elu_fwd(_glibc_expm1, neg, pos, ipt), x)


def _elu_bwd(exp, neg, pos, ipt):
    def k(dy, b):
        return np.where(b > 0, dy * pos, dy * ipt * neg * exp(b * ipt))
    return k


def elu_backward(dy, x, neg, pos, ipt):
    """``elu_backward`` (input form): ``grad * negiptcoef * negcoef * exp(b * negiptcoef)`` where
    b <= 0, ``grad * poscoef`` elsewhere (SLEEF's exp on the vector groups, glibc's on the
    rest)."""
    return _run(_elu_bwd(vexp, neg, pos, ipt), _elu_bwd(_glibc_exp, neg, pos, ipt), dy, x)


# ---------------------------------------------------------------- gelu (tanh form)'s backward
_glibc_tanh = K.libm64("tanh", np.tanh)
_K_BETA = 1.41421356237309504880 * 1.12837916709551257390 * 0.5   # M_SQRT2 * M_2_SQRTPI * 0.5
_K_KAPPA = 0.044715


def _gelu_tanh_bwd(tanh):
    def k(dy, x):
        x_sq = x * x
        t = tanh(_K_BETA * fma64(np.full_like(x, _K_KAPPA), x_sq * x, x))
        left = 0.5 * x
        left_d = 0.5 * (1.0 + t)
        tanh_d = fma64(-t, t, np.ones_like(t))
        inner_d = _K_BETA * fma64(np.full_like(x, 3.0 * _K_KAPPA), x_sq, np.ones_like(x))
        return dy * (left_d + left * tanh_d * inner_d)
    return k


def gelu_tanh_backward(dy, x):
    """GeluKernel's tanh-form backward in double, the float32 kernel's arithmetic (GCC's
    fused multiply-adds); the scalar lambda's tanh is glibc's, the vector lambda's SLEEF's
    Sleef_tanhd8_u10 (``_sleef_more.tanhd``)."""
    return _run(_gelu_tanh_bwd(_sleef_tanh2), _gelu_tanh_bwd(_glibc_tanh), dy, x)


def _sleef_tanh2(x):
    from ._sleef_more import tanhd
    return tanhd(x)


def _gelu_tanh_fwd(tanh):
    def k(x):
        inner = _K_BETA * fma64(np.full_like(x, _K_KAPPA), x * x * x, x)
        return (0.5 * x) * (1.0 + tanh(inner))
    return k


def gelu_tanh(x):
    """GeluKernel's tanh form in double (the float32 kernel's arithmetic), split over threads by
    GeluKernel's own grain (the backward kernel takes the default one: measured)."""
    return _run(_gelu_tanh_fwd(_sleef_tanh2), _gelu_tanh_fwd(_glibc_tanh), x,
                grain=_tensor_iter.gelu_grain)


# ---------------------------------------------------------------- mish
_glibc_log1p64 = _glibc_log1p


def _sleef_tanh(x):
    from ._sleef_more import tanhd
    return tanhd(x)


def _mish_fwd(exp, log1p, tanh):
    def k(x):
        return x * tanh(log1p(exp(x)))
    return k


def mish(x):
    """``mish_kernel`` in double: x * tanh(log1p(exp(x))) (SLEEF's exp/log1p/tanh on the vector
    groups, glibc's on the rest)."""
    return _run(_mish_fwd(vexp, vlog1p_full, _sleef_tanh),
                _mish_fwd(_glibc_exp, _glibc_log1p, _glibc_tanh), x)


def vlog1p_full(d):
    """``vlog1p`` over the whole range: above 1e300 (where its double-double steps overflow)
    log(d), SLEEF's bits on the values measured; inf -> inf."""
    with np.errstate(all="ignore"):
        r = vlog1p(d)
        return np.where(d > 1e300, np.log(np.where(d > 1e300, d, 1.0)), r)


def _mish_bwd(exp, log1p, tanh):
    def k(dy, x):
        sig = 1.0 / (1.0 + exp(-x))
        t = tanh(log1p(exp(x)))
        return dy * fma64(x * sig, fma64(-t, t, np.ones_like(t)), t)
    return k


def mish_backward(dy, x):
    return _run(_mish_bwd(vexp, vlog1p_full, _sleef_tanh),
                _mish_bwd(_glibc_exp, _glibc_log1p, _glibc_tanh), dy, x)
