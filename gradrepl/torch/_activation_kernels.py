"""More of torch 2.13's float32 activation kernels (``aten/src/ATen/native/cpu/Activation.cpp``)
as they run on x86-64, beside ``_act_kernels`` (silu, elu, gelu-tanh): ``softplus``, ``mish``,
``logsigmoid``, ``hardswish``, ``hardsigmoid``, ``softshrink`` and their backward kernels.

Like ``_act_kernels`` they are ``cpu_kernel_vec`` loops of the AVX-512 build: whole groups of
two ``Vectorized<float>`` (32 floats; 16 under AVX2) by the vector lambda, the rest by the
scalar lambda. ``Vectorized<float>::exp``/``log1p``/``tanh`` are SLEEF's u10 functions
(``expf_u10``, ``log1pf_u10`` below, ``tanhf_u10``), the scalar lambdas call glibc's
``expf``/``log1pf``/``tanhf``; GCC contracts ``a * b + c`` into one FMA in both.
``logsigmoid``'s forward is its own loop over whole vectors with a partial vector at the end:
every value goes through SLEEF.
"""
from __future__ import annotations

import numpy as np

from ..engine.ops import _kernels as K
from ._act_kernels import _quiet, _split, tanhf_u10, _ok
from ._lecture_kernels import expf_u10

F32 = np.float32
_c = K._c
_fma = K._fma


# ---------------------------------------------------------------- SLEEF log1pf (u10)
def _getexp(v):
    """``vgetexp``: floor(log2 |v|) as a float (normal, finite v)."""
    bits = np.asarray(v, F32).view(np.int32)
    return (((bits >> 23) & 0xFF) - 127).astype(F32)


def _df_add_ff(x, y):       # dfadd_vf2_vf_vf (|x| >= |y|)
    s = x + y
    return s, (x - s) + y


def _df_add_df(xx, xy, y):  # dfadd_vf2_vf2_vf
    s = xx + y
    return s, ((xx - s) + y) + xy


@_quiet
def log1pf_u10(d):
    """SLEEF ``xlog1pf`` (AVX-512 build: vgetexp; the same for the AVX2 build's ilogb)."""
    dp1 = d + _c(1)
    e = _getexp(dp1 * _c(1.0 / 0.75))
    t = (np.int32(127) - e.astype(np.int32) << 23).astype(np.int32).view(F32)
    m = _fma(d, t, t - _c(1))
    sx, sy = K._df_mul_df(_c(0.69314718246459960938), _c(-1.904654323148236017e-09), e)
    bx, by = _df_add_ff(_c(2), m)
    xx, xy = K._df_div(m, np.zeros_like(m), bx, by)
    x2 = xx * xx
    t = _c(0.3027294874)
    t = _fma(t, x2, _c(0.3996108174))
    t = _fma(t, x2, _c(0.6666694880))
    sx, sy = K._df_add_dd(sx, sy, xx * _c(2), xy * _c(2))
    sx, sy = _df_add_df(sx, sy, (x2 * xx) * t)
    r = sx + sy
    r = np.where(d > _c(1e38), F32(np.inf), r)
    r = np.where(d < _c(-1), F32(np.nan), r)
    r = np.where(d == _c(-1), F32(-np.inf), r)
    r = np.where((d == 0) & np.signbit(d), F32(-0.0), r)
    return np.where(np.isnan(d), d, r)


_expf = _quiet(K.libm("exp", np.exp))
_log1pf = _quiet(K.libm("log1p", np.log1p))
_tanhf = _quiet(K.libm("tanh", np.tanh))

# the vector lambda's functions and the scalar lambda's
VEC = {"exp": expf_u10, "log1p": log1pf_u10, "tanh": tanhf_u10}
ONE = {"exp": _expf, "log1p": _log1pf, "tanh": _tanhf}


def _both(make):
    """``_split`` of the kernel ``make(fns)`` built once with SLEEF's functions, once with
    glibc's."""
    return _split(_quiet(make(VEC)), _quiet(make(ONE)))


# ---------------------------------------------------------------- softplus
def softplus_fwd(beta, threshold):
    b, th = _c(beta), _c(threshold)

    def make(f):
        def k(a):
            ab = a * b
            return np.where(ab > th, a, f["log1p"](f["exp"](ab)) / b)
        return k
    return _both(make)


def softplus_bwd(beta, threshold):
    b, th = _c(beta), _c(threshold)

    def make(f):
        def k(dy, x):
            xb = x * b
            z = f["exp"](xb)
            return np.where(xb > th, dy, (dy * z) / (z + _c(1)))
        return k
    return _both(make)


# ---------------------------------------------------------------- mish
def _mish_fwd(f):
    def k(x):
        return x * f["tanh"](f["log1p"](f["exp"](x)))
    return k


def _mish_bwd(f):
    def k(dy, x):
        sig = _c(1) / (_c(1) + f["exp"](-x))
        t = f["tanh"](f["log1p"](f["exp"](x)))
        return dy * _fma(x * sig, _fma(-t, t, _c(1)), t)
    return k


mish_fwd = _both(_mish_fwd)
mish_bwd = _both(_mish_bwd)


# ---------------------------------------------------------------- logsigmoid
@_quiet
def logsigmoid_fwd(x):
    """``_vec_log_sigmoid``: whole vectors and a partial last one, all by SLEEF:
    min(x, 0) - log1p(exp(-|x|)) (the exp is the buffer the backward reads)."""
    return np.minimum(x, _c(0)) - log1pf_u10(logsigmoid_buffer(x))


@_quiet
def logsigmoid_buffer(x):
    return expf_u10(-np.abs(x))


def _logsigmoid_bwd(f):
    def k(dy, x, buf):
        neg = x < _c(0)
        max_deriv = np.where(neg, _c(1), _c(0))
        sign = np.where(neg, _c(1), _c(-1))
        return _fma(-sign, buf / (_c(1) + buf), max_deriv) * dy
    return k


_lsb = _quiet(_logsigmoid_bwd(None))


def logsigmoid_bwd(dy, x):
    return _split(_lsb, _lsb)(dy, x, logsigmoid_buffer(x))


# ---------------------------------------------------------------- hardswish, hardsigmoid
@_quiet
def _hs_clamp(x):
    return np.minimum(np.maximum(x + _c(3), _c(0)), _c(6))


@_quiet
def hardswish_fwd(x):
    return (x * _hs_clamp(x)) / _c(6)


@_quiet
def hardswish_bwd(dy, x):
    mid = dy * ((x / _c(3)) + _c(0.5))
    return np.where(x < _c(-3), _c(0), np.where(x >= _c(3), dy, mid))


@_quiet
def hardsigmoid_fwd(x):
    return _hs_clamp(x) / _c(6)


@_quiet
def hardsigmoid_bwd(dy, x):
    return np.where((x > _c(-3)) & (x < _c(3)), dy * _c(1.0 / 6.0), _c(0))


# ---------------------------------------------------------------- softshrink
def softshrink_fwd(lambd):
    """The vector lambda masks (a > l) & (a - l) | (a < -l) & (a + l): +0 in between; the scalar
    lambda gives a * 0 there (-0 for a negative a; measured on 2.13)."""
    lam = _c(lambd)

    def make(zero):
        def k(a):
            return np.where(a > lam, a - lam, np.where(a < -lam, a + lam, zero(a)))
        return _quiet(k)
    return _split_avx2(make(lambda a: np.zeros_like(a)), make(lambda a: a * _c(0)))


def _split_avx2(vec, scalar):
    """``_split`` for a kernel registered without an AVX-512 build (``REGISTER_DISPATCH``):
    groups of two AVX2 vectors (16 floats) whatever the CPU (softshrink: measured, 1,010
    values)."""
    return _split(vec, scalar, groups=lambda n: n // 16 * 16, step=16)


def shrink_bwd(lambd):
    lam = _c(lambd)

    @_quiet
    def k(dy, x):
        return np.where((x >= -lam) & (x <= lam), _c(0), dy)
    return k


# ---------------------------------------------------------------- the dialect's ops
def _softplus_ab(kw):
    return float(kw.get("beta", 1.0)), float(kw.get("threshold", 20.0))


_FORWARD = {
    "softplus": lambda x, kw: softplus_fwd(*_softplus_ab(kw))(x),
    "mish": lambda x, kw: mish_fwd(x),
    "logsigmoid": lambda x, kw: logsigmoid_fwd(x),
    "hardswish": lambda x, kw: hardswish_fwd(x),
    "hardsigmoid": lambda x, kw: hardsigmoid_fwd(x),
}
# the engine's gradient op (inputs x, dout) whose forward torch's backward kernel replaces,
# the node name torch gives it, and the kernel
_BACKWARD = {
    "softplus": ("softplus_grad", "SoftplusBackwardBackward0",
                 lambda x, dout, kw: softplus_bwd(*_softplus_ab(kw))(dout, x)),
    "mish": ("mish_grad", "MishBackwardBackward0", lambda x, dout, kw: mish_bwd(dout, x)),
    "logsigmoid": ("logsigmoid_grad", "LogSigmoidBackwardBackward0",
                   lambda x, dout, kw: logsigmoid_bwd(dout, x)),
    "hardswish": ("hardswish_grad", "HardswishBackwardBackward0",
                  lambda x, dout, kw: hardswish_bwd(dout, x)),
}
BASES = frozenset(_FORWARD)


def _f64(name):
    from . import _sigmoid64

    return getattr(_sigmoid64, name)


# float64: torch's kernels too (SLEEF's double functions, ``_sigmoid64``): forward, backward
_FLOAT64 = {
    "logsigmoid": (lambda x, kw: _f64("logsigmoid")(x),
                   lambda x, dout, kw: _f64("logsigmoid_backward")(dout, x)),
    "softplus": (lambda x, kw: _f64("softplus")(x, *_softplus_ab(kw)),
                 lambda x, dout, kw: _f64("softplus_backward")(dout, x, *_softplus_ab(kw))),
    "mish": (lambda x, kw: _f64("mish")(x), lambda x, dout, kw: _f64("mish_backward")(dout, x)),
    "hardswish": (lambda x, kw: hardswish_fwd64(x),
                  lambda x, dout, kw: _f64("hardswish_backward")(dout, x)),
}


def hardswish_fwd64(x):
    with np.errstate(all="ignore"):
        return (x * np.minimum(np.maximum(x + 3.0, 0.0), 6.0)) / 6.0


def _ok64(base, _which, *arrays):
    return base in _FLOAT64 and all(a.dtype == np.float64 for a in arrays) and \
        _f64("_capability").capability() != "DEFAULT"


def _mish_vjp(kernel_vjp):
    """mish's VJP: derivatives.yaml's infinitely_differentiable_mish_backward under grad mode
    (create_graph): grad * (t + x * s * (1 - t * t)), s = sigmoid(x), t = tanh(softplus(x)),
    the dialect's ops (torch's nodes and values; was one MishBackwardBackward0 node); the
    mish_backward kernel otherwise."""
    from ..engine import grad_mode

    def vjp(n, g):
        x = n.inputs[0]
        if not (grad_mode.STATE.enabled and x.data.dtype.kind == "f"
                and g.data.dtype.kind == "f"):
            return kernel_vjp(n, g)
        from . import _ops
        from .nn import functional as F

        s = _ops.sigmoid(x)
        t = _ops.tanh(F.softplus(x))
        return g * (t + x * s * (1.0 - t * t))
    return vjp


def wire(op, base):
    """Give the dialect's copy ``op`` of the engine activation ``base`` torch's float32 forward
    kernel and, where torch has one, its backward kernel (as the forward of the engine's
    gradient op, whose own VJP stays the double backward)."""
    if getattr(op, "torch_kernels", False):
        return op
    from ..engine.registry import OPS, apply
    from ._ops import top

    engine_fwd = op.forward

    def fwd(x, **kw):
        if _ok64(base, 0, x):
            return _FLOAT64[base][0](x, kw)
        return _FORWARD[base](x, kw) if _ok(x) else engine_fwd(x, **kw)
    op.forward = fwd
    if base in _BACKWARD:
        gname, tname, kernel = _BACKWARD[base]
        engine_grad = OPS[gname].forward

        def grad_fwd(x, dout, **kw):
            if _ok64(base, 1, x, dout):
                return _FLOAT64[base][1](x, dout, kw)
            return kernel(x, dout, kw) if _ok(x, dout) else engine_grad(x, dout, **kw)
        grad = top(gname, tname, "all", forward=grad_fwd)

        def vjp(n, g):
            return apply(grad, (n.inputs[0], g), dict(n.attrs) or None)
        op.vjp = vjp
        if base == "mish":
            op.vjp = _mish_vjp(vjp)
    if base == "hardsigmoid":
        op.vjp = _hardsigmoid_vjp
    op.torch_kernels = True
    return op


def _hardsigmoid_grad_fwd(x, dout, **kw):
    if _ok(x, dout):
        return hardsigmoid_bwd(dout, x)
    from ..engine.ops.nn import _hardtanh_grad_fwd
    return _hardtanh_grad_fwd(x, (dout * np.asarray(1.0 / 6.0, dout.dtype)).astype(dout.dtype),
                              -3.0, 3.0)


def _hardsigmoid_grad_op():
    """``hardsigmoid_backward``: dout / 6 blended with +0 outside (-3, 3) (the engine's VJP
    multiplied by a mask: -0. for a negative dout); its own VJP: itself for dout, zeros for
    x."""
    from ..engine.registry import apply
    from ..engine.ops._util import const
    from ._ops import top

    grad = top("hardtanh_grad", "HardsigmoidBackwardBackward0", "all",
               forward=_hardsigmoid_grad_fwd)
    if not getattr(grad, "torch_hardsigmoid", False):
        def vjp(n, G):
            x = n.inputs[0]
            return const(G, np.zeros(x.data.shape, G.data.dtype)), apply(grad, (x, G))
        grad.vjp, grad.torch_hardsigmoid = vjp, True
    return grad


def _hardsigmoid_vjp(n, g):
    from ..engine.registry import apply
    return apply(_hardsigmoid_grad_op(), (n.inputs[0], g))


def wire_softshrink(op):
    """``F.softshrink``'s op (``nn/_act_more``): torch's forward kernel for float32."""
    engine_fwd = op.forward

    def fwd(x, threshold=0.5, **kw):
        if _ok(x):
            return softshrink_fwd(threshold)(x)
        return engine_fwd(x, threshold=threshold, **kw)
    op.forward = fwd
    return op
