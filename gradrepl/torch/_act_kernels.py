"""torch 2.13's float32 activation kernels (``aten/src/ATen/native/cpu/Activation.cpp``) as
they run on x86-64: each is ``cpu_kernel_vec`` with a vector lambda on whole groups of two
``Vectorized<float>`` and a scalar lambda on the rest. torch 2.13 runs their AVX-512 build on an
AVX-512 CPU (measured: elu's backward of 16 values is all scalar, of 32 all vector), 16 floats a
vector, 32 a group (8 and 16 under AVX2).

Vector lambdas: ``Vectorized<float>::tanh`` is SLEEF's ``tanhf`` (u10, ``expk2f`` in
double-float arithmetic, fused multiply-adds), ``::expm1`` SLEEF's ``expm1f``, ``::exp``
SLEEF's ``expf`` (``_lecture_kernels``); the
arithmetic between them is contracted by GCC as in the scalar lambdas (``Vectorized``'s
operators are plain vector arithmetic: ``x + k * x3`` is one fused multiply-add; measured).
Scalar lambdas: the C library's ``tanhf``/``expm1f``/``expf``.

The kernels: ``gelu(approximate='tanh')`` and its backward (the exact form is oneDNN's,
``_gelu_kernels``), ``silu`` and its backward, ``elu`` (``selu``, ``celu``) and its backward
(``expm1`` forward since torch 2.x); ``hardtanh``'s backward (``relu6``
too) gives +0 where the mask is off (a blend with zero, not a product).
"""
from __future__ import annotations

import numpy as np

from ..engine.ops import _kernels as K
from ._lecture_kernels import expf_u10
from . import _capability, _tensor_iter
from ._sleef_more import _ldexp2

F32 = np.float32
_c = K._c
_fma = K._fma

_R_LN2F = 1.442695040888963407359924681001892137426645954152985934135449406931
_L2UF = 0.693145751953125
_L2LF = 1.428606765330187045e-06
_SQRT2, _2_SQRTPI = 1.41421356237309504880, 1.12837916709551257390
_BETA = _c(_SQRT2 * _2_SQRTPI * 0.5)   # kBeta = M_SQRT2 * M_2_SQRTPI * 0.5, as float
_KAPPA = _c(0.044715)


def _quiet(fn):
    def run(*a):
        with np.errstate(all="ignore"):
            return np.asarray(fn(*(np.asarray(v, F32) for v in a)), F32)
    return run


# ---------------------------------------------------------------- SLEEF tanhf (u10)
def _expk2f(dx, dy):
    """SLEEF ``expk2f``: exp of the double-float (dx, dy), as a double-float."""
    u = (dx + dy) * _c(_R_LN2F)
    q = np.rint(u).astype(np.int32)
    qf = q.astype(F32)
    sx, sy = K._df_add2_dff(dx, dy, qf * _c(-_L2UF))
    sx, sy = K._df_add2_dff(sx, sy, qf * _c(-_L2LF))
    u = _c(0.1980960224e-3)
    for c in (0.1394256484e-2, 0.8333456703e-2, 0.4166637361e-1):
        u = _fma(u, sx, _c(c))
    tx, ty = K._df_add2_dff(*K._df_mul_df(sx, sy, u), _c(0.166666659414234244790680580464))
    tx, ty = K._df_add2_dff(*K._df_mul_dd(sx, sy, tx, ty), _c(0.5))
    tx, ty = K._df_add2_dd(sx, sy, *K._df_mul_dd(*K._df_squ(sx, sy), tx, ty))
    tx, ty = K._df_add_fd(_c(1), tx, ty)
    tx, ty = _ldexp2(tx, q), _ldexp2(ty, q)
    low = dx < _c(-104)
    return np.where(low, F32(0), tx), np.where(low, F32(0), ty)


@_quiet
def expm1f_u10(a):
    """SLEEF ``xexpm1f``: expk2f(a) - 1 in double-float arithmetic."""
    dx, dy = _expk2f(a, np.zeros_like(a))
    dx, dy = K._df_add2_dff(dx, dy, _c(-1))
    x = dx + dy
    x = np.where(a > _c(88.72283172607421875), F32(np.inf), x)
    x = np.where(a < _c(-16.635532333438687426013570), F32(-1), x)
    return np.where((a == 0) & np.signbit(a), F32(-0.0), x)


def _df_rec(dx, dy):
    s = _c(1) / dx
    return s, s * K._fmanp(dy, s, K._fmanp(dx, s, _c(1)))


@_quiet
def tanhf_u10(x):
    """SLEEF ``xtanhf``: (e - 1/e) / (e + 1/e) with e = exp|x| in double-float arithmetic."""
    y = np.abs(x)
    dx, dy = _expk2f(y, np.zeros_like(y))
    ex, ey = _df_rec(dx, dy)
    nx, ny = K._df_add_dd(dx, dy, -ex, -ey)
    mx, my = K._df_add_dd(dx, dy, ex, ey)
    qx, qy = K._df_div(nx, ny, mx, my)
    y = qx + qy
    y = np.where((np.abs(x) > _c(8.664339742)) | np.isnan(y), F32(1), y)
    y = np.copysign(y, x)
    return np.where(np.isnan(x), x, y)


_tanhf = _quiet(K.libm("tanh", np.tanh))
_expf = _quiet(K.libm("exp", np.exp))
_expm1f = _quiet(K.libm("expm1", np.expm1))


# ---------------------------------------------------------------- gelu
@_quiet
def _gelu_tanh_vec(x):
    inner = _BETA * _fma(_KAPPA, x * x * x, x)
    return (_c(0.5) * x) * (_c(1) + tanhf_u10(inner))


@_quiet
def _gelu_tanh_one(x):
    inner = _BETA * _fma(_KAPPA, x * x * x, x)
    return (_c(0.5) * x) * (_c(1) + _tanhf(inner))


def _gelu_tanh_bwd(tanh):
    @_quiet
    def run(dy, x):
        x_sq = x * x
        t = tanh(_BETA * _fma(_KAPPA, x_sq * x, x))
        left = _c(0.5) * x
        left_d = _c(0.5) * (_c(1) + t)
        tanh_d = _fma(-t, t, _c(1))
        inner_d = _BETA * _fma(_c(3) * _KAPPA, x_sq, _c(1))
        return dy * (left_d + left * tanh_d * inner_d)   # this sum is not fused (measured)
    return run


_gelu_tanh_bwd_one = _gelu_tanh_bwd(_tanhf)


# ---------------------------------------------------------------- silu, elu
@_quiet
def _silu_vec(x):
    return x / (_c(1) + expf_u10(-x))


@_quiet
def _silu_one(x):
    return x / (_c(1) + _expf(-x))


@_quiet
def _silu_bwd_vec(dy, x):
    s = _c(1) / (_c(1) + expf_u10(-x))
    return dy * s * _fma(x, _c(1) - s, _c(1))


@_quiet
def _silu_bwd_one(dy, x):
    s = _c(1) / (_c(1) + _expf(-x))
    return dy * s * _fma(x, _c(1) - s, _c(1))


# ---------------------------------------------------------------- elu family (elu, selu, celu)
def _elu_coefs(alpha, scale, input_scale):
    a, s, i = _c(alpha), _c(scale), _c(input_scale)
    return a * s, s, i          # negcoef = alpha * scale in float, poscoef, negiptcoef


def elu_fwd(alpha, scale, input_scale):
    neg, pos, ipt = _elu_coefs(alpha, scale, input_scale)

    @_quiet
    def vec(a):
        return np.where(a > 0, a * pos, expm1f_u10(a * ipt) * neg)

    @_quiet
    def one(a):
        return np.where(a <= 0, _expm1f(a * ipt) * neg, a * pos)
    return _split(vec, one)


def elu_bwd(alpha, scale, input_scale):
    """``elu_backward(grad, ..., is_result=false, self)``: the non-in-place autograd formula."""
    neg, pos, ipt = _elu_coefs(alpha, scale, input_scale)

    @_quiet
    def vec(dy, b):
        return np.where(b > 0, dy * pos, dy * ipt * neg * expf_u10(b * ipt))

    @_quiet
    def one(dy, b):
        return np.where(b <= 0, dy * ipt * neg * _expf(b * ipt), dy * pos)
    return _split(vec, one)


def _groups(n):
    """How many leading values take the vector lambda: whole groups of two AVX2 vectors."""
    step = 2 * _capability.lanes(np.dtype(F32), avx512_kernel=True)
    return n // step * step


def _split(vec, scalar, groups=None, step=None, grain=None):
    """``f(*arrays)`` of one shape: ``vec`` on the leading whole groups, ``scalar`` on the rest
    (the flat order of a contiguous tensor, as ``cpu_kernel_vec`` walks it; views, broadcasts
    and threaded ranges as TensorIterator runs them, ``_tensor_iter``)."""
    def run(*arrays):
        if any(not a.flags.c_contiguous or a.shape != arrays[-1].shape for a in arrays) or \
                arrays[-1].size >= _tensor_iter.GRAIN or \
                (grain is not None and arrays[-1].size > 16384):
            return _tensor_iter.run(vec, scalar, *(np.asarray(a, F32) for a in arrays),
                                    step=step, grain=grain).astype(F32, copy=False)
        shape = arrays[-1].shape
        flat = [np.ascontiguousarray(np.broadcast_to(a, shape), F32).reshape(-1) for a in arrays]
        n = (groups or _groups)(flat[0].size)
        out = np.empty(flat[0].size, F32)
        if n:
            out[:n] = vec(*(f[:n] for f in flat))
        if n < out.size:
            out[n:] = scalar(*(f[n:] for f in flat))
        return out.reshape(shape)
    return run


silu_fwd = _split(_silu_vec, _silu_one)
silu_bwd = _split(_silu_bwd_vec, _silu_bwd_one)
gelu_tanh_fwd = _split(_gelu_tanh_vec, _gelu_tanh_one, grain=_tensor_iter.gelu_grain)
gelu_tanh_bwd = _split(_gelu_tanh_bwd(tanhf_u10), _gelu_tanh_bwd_one)


# ---------------------------------------------------------------- the dialect's ops
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _ok(*arrays):
    """torch's kernels are emulated for float32 in its vector builds (AVX2 / AVX-512)."""
    return all(a.dtype == F32 for a in arrays) and _capability.capability() != "DEFAULT"


def _elu_coefs_of(base, attrs):
    if base == "selu":
        return _SELU_ALPHA, _SELU_SCALE, 1.0
    return float(attrs.get("alpha", 1.0)), 1.0, 1.0


def _elu_double_vjp(grad):
    """torch's gradient of ``elu_backward(grad_output, alpha, scale, input_scale, self)``:
    itself for grad_output (the scale kept: the engine's elu_grad knew alpha only), and
    ``elu_double_backward`` for self: elu_backward(G * dout * input_scale, ..., self) *
    (self < 0) (FunctionsManual.cpp)."""
    from ..engine.registry import apply
    from . import _ops
    from ._base import raw

    def vjp(n, G):
        out, x, dout = n.inputs
        d_dout = apply(grad, (out, x, G), dict(n.attrs))
        scaled = _ops.mul(_ops.mul(G, dout), n.attrs.get("input_scale", 1.0))
        xa = raw(x)
        d_x = _ops.mul(apply(grad, (out, x, scaled), dict(n.attrs)),
                       _ops.const((xa < 0).astype(xa.dtype), xa.dtype))
        return None, d_x, d_dout
    return vjp


def wire(op, base):
    """Give the dialect's copy ``op`` of the engine activation ``base`` torch's float32
    forward kernel and backward (``silu``, ``elu``, ``selu``: their own backward kernels;
    ``hardtanh``, ``relu6``: the gradient blended with +0)."""
    if getattr(op, "torch_kernels", False):
        return op
    from ..engine.registry import OPS, apply
    from ._ops import top

    engine_fwd = op.forward
    if base == "silu":
        from . import _sigmoid64 as S64   # (float64: torch's kernels too)

        def fwd(x, **kw):
            return silu_fwd(x) if _ok(x) else S64.silu(x) if S64.ok(x) else engine_fwd(x, **kw)

        def grad_fwd(x, dout, **kw):
            if S64.ok(x, dout):
                return S64.silu_backward(dout, x)
            return silu_bwd(dout, x) if _ok(x, dout) else OPS["silu_grad"].forward(x, dout)
        grad = top("silu_grad", "SiluBackwardBackward0", "all", forward=grad_fwd)
        from ..engine import grad_mode

        def vjp(n, g):
            x = n.inputs[0]
            if grad_mode.STATE.enabled and x.data.dtype.kind == "f" and g.data.dtype.kind == "f":
                # derivatives.yaml: under grad mode (create_graph) the infinitely
                # differentiable composite grad * s * (1 + x * (1 - s)), s = sigmoid(x): torch's
                # nodes (MulBackward0 ...) and values (was one SiluBackwardBackward0 node)
                from . import _ops

                sg = _ops.sigmoid(x)
                return g * sg * (1.0 + x * (1.0 - sg))
            return apply(grad, (x, g))
    elif base in ("elu", "selu"):
        from . import _sigmoid64 as S64   # (float64: torch's double kernels)

        def fwd(x, **kw):
            if S64.ok(x) and _capability.capability() != "DEFAULT":
                a, s, i = _elu_coefs_of(base, kw)
                return S64.elu(x, a * s, s, i)
            return elu_fwd(*_elu_coefs_of(base, kw))(x) if _ok(x) else engine_fwd(x, **kw)

        def grad_fwd(out, x, dout, alpha=1.0, scale=1.0, input_scale=1.0):
            if S64.ok(x, dout) and _capability.capability() != "DEFAULT":
                return S64.elu_backward(dout, x, alpha * scale, scale, input_scale)
            if _ok(x, dout):
                return elu_bwd(alpha, scale, input_scale)(dout, x)
            return OPS["elu_grad"].forward(out, x, dout, alpha=alpha) if base == "elu" else \
                None
        grad = top("elu_grad", "EluBackwardBackward0", "all", forward=grad_fwd)
        if base == "selu" and not getattr(grad, "torch_double", False):
            grad.vjp, grad.torch_double = _elu_double_vjp(grad), True

        def vjp(n, g):
            if not (_ok(n.inputs[0].data, g.data) or S64.ok(n.inputs[0].data, g.data)) \
                    and base == "selu":
                return OPS["selu"].vjp(n, g)
            a, s, i = _elu_coefs_of(base, n.attrs)
            return apply(grad, (n.out(), n.inputs[0], g),
                         {"alpha": a, "scale": s, "input_scale": i})
    elif base in ("hardtanh", "relu6"):
        fwd = engine_fwd
        grad = top("hardtanh_grad", "HardtanhBackwardBackward0", "all")

        def vjp(n, g):
            if base == "relu6":
                lo, hi = 0.0, n.attrs.get("threshold", 6.0)
            else:
                lo, hi = n.attrs.get("t_min", -1.0), n.attrs.get("t_max", 1.0)
            return apply(grad, (n.inputs[0], g), {"t_min": float(lo), "t_max": float(hi)})
    else:
        raise KeyError(base)
    op.forward, op.vjp, op.torch_kernels = fwd, vjp, True
    return op


# ---------------------------------------------------------------- SLEEF sinhf / coshf (u10)
@_quiet
def sinhf_u10(x):
    """SLEEF ``xsinhf``: (e - 1/e) / 2 with e = exp|x| in double-float arithmetic."""
    y = np.abs(x)
    dx, dy = _expk2f(y, np.zeros_like(y))
    ex, ey = _df_rec(dx, dy)
    s = dx - ex                              # dfsub_vf2_vf2_vf2
    t = (((dx - s) - ex) + dy) - ey
    y = (s + t) * _c(0.5)
    y = np.where((np.abs(x) > _c(89)) | np.isnan(y), F32(np.inf), y)
    y = np.copysign(y, x)
    return np.where(np.isnan(x), x, y)


@_quiet
def coshf_u10(x):
    """SLEEF ``xcoshf``: (e + 1/e) / 2 with e = exp|x| in double-float arithmetic."""
    y = np.abs(x)
    dx, dy = _expk2f(y, np.zeros_like(y))
    ex, ey = _df_rec(dx, dy)
    s, t = K._df_add_dd(dx, dy, ex, ey)
    y = (s + t) * _c(0.5)
    y = np.where((np.abs(x) > _c(89)) | np.isnan(y), F32(np.inf), y)
    return np.where(np.isnan(x), x, y)
