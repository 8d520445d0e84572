"""torch's pointwise math beyond the core (``_ops``): the inverse hyperbolic functions, float
bits (``copysign``, ``frexp``, ``ldexp``, ``nextafter``, ``signbit``), number theory (``gcd``,
``lcm``, shifts), the numpy-style aliases, complex views of real tensors (``real``, ``conj``,
``angle``, ``polar``), division's rounding modes, the namespace's in-place twins
(``torch.exp_``) and the Tensor's (``x.asinh_()``), and a few global switches
(``set_flush_denormal``, ``set_default_tensor_type``).

Each function is an engine op copied with torch's node name (``top``), so autograd works and
``grad_fn`` prints ``<AsinhBackward0 ...>``. Values are computed in the tensor's dtype with the
kernel torch 2.13 runs on x86-64 (measured against it on 10,000 random values each):

- ``asinh``, ``acosh``: the C library's ``asinhf``/``asinh`` (``std::asinh``, scalar loop);
- ``atanh``, ``exp2``: SLEEF's vectorised u10 functions on whole blocks of two AVX-512
  vectors (32 floats, 16 doubles), the C library's on the rest (``_sleef_more``);
- ``erfc``: MKL's VML (``vsErfc``/``vdErfc``), as torch calls it; the C library without MKL.
"""
from __future__ import annotations

import ctypes
import math as _math

import numpy as np

from ..engine.ops import _kernels as EK
from ..engine.ops import _libm_numexpr
from ..engine.registry import OPS, apply, needs_grad
from . import _bfloat16, _dtypes, _inplace, _mkl, _unary_grads
from . import _ops as O
from ._base import EngineTensor, raw
from ._tensor import Tensor

_wrap = Tensor._wrap
top, const = O.top, O.const

EXPORTS: dict = {}
TENSOR_METHODS: dict = {}

# the C library's float functions numexpr can loop over (each probed bit for bit before use)
for _name, _ne in (("asinh", "arcsinh"), ("acosh", "arccosh"), ("atanh", "arctanh")):
    _libm_numexpr.NE_NAMES.setdefault(_name, _ne)
# torch 2.13 calls MKL's vsErfc/vdErfc (aten/src/ATen/cpu/vml.h): 0 of 10,000 random float32
# and float64 values differ from torch (measured)
_mkl.FUNCS.setdefault("erfc", "Erfc")


def _is_t(v):
    return isinstance(v, EngineTensor)


def _float_input(x):
    """x itself when floating/complex, else its values in the default float dtype."""
    if raw(x).dtype.kind in "fc" or raw(x).dtype == np.uint16:  # (uint16: bfloat16's bits)
        return x
    return _wrap(raw(x).astype(_dtypes.default_float()), True)


def _np_erfc(x):
    return np.vectorize(_math.erfc, otypes=[np.float64])(x)


def _libm_kernel(name, np_fn):
    """``std::<name>`` for float32 and float64 (glibc, through numexpr where it is exact)."""
    return O._float_fwd(name, EK.libm(name, np_fn), EK.libm64(name, np_fn), np_fn)


def _not_implemented(name):
    def vjp(n, g):
        raise RuntimeError(f"derivative for aten::{name} is not implemented")
    return vjp


def _op(base, name, saves="all", inputs=None, forward=None, vjp=None):
    op = top(base, name, saves, inputs=inputs, forward=forward)
    if vjp is not None:
        op.vjp = vjp
    return op


def _with_out(fn, name):
    from ._out import with_out

    return with_out(fn, name)


# ------------------------------------------------------------------------------ unary float math
def _unary(name, op):
    def f(input, *, out=None):  # noqa: A002 - torch's names
        y = apply(op, (_float_input(input),))
        return O._out(y, out)
    f.__name__ = name
    f._op = op
    return f


def _asinh_vjp(n, g):  # grad * (self.pow(2) + 1).rsqrt()
    return O.mul(g, O.rsqrt(O.add(O.pow(n.inputs[0], 2), 1)))


def _acosh_vjp(n, g):  # grad * (self.pow(2) - 1).rsqrt()
    return O.mul(g, O.rsqrt(O.sub(O.pow(n.inputs[0], 2), 1)))


def _atanh_vjp(n, g):  # grad * 1 / (1 - self.pow(2))
    return O.div(O.mul(g, 1), O.rsub(O.pow(n.inputs[0], 2), 1))


def _erfc_vjp(n, g):  # -2.0 / sqrt(M_PI) * exp(-(self.pow(2))) * grad
    e = O.exp(O.neg(O.pow(n.inputs[0], 2)))
    return O.mul(O.mul(e, -2.0 / _math.sqrt(_math.pi)), g)


def _atanh_fwd():
    from . import _sleef_more as S

    return O._float_fwd("atanh", S.blocks(S.atanhf, EK.libm("atanh", np.arctanh)),
                        S.blocks(S.atanhd, EK.libm64("atanh", np.arctanh)), np.arctanh)


asinh = _unary("asinh", _op("asinh", "AsinhBackward0", "in0",
                            forward=_libm_kernel("asinh", np.arcsinh), vjp=_asinh_vjp))
acosh = _unary("acosh", _op("acosh", "AcoshBackward0", "in0",
                            forward=_libm_kernel("acosh", np.arccosh), vjp=_acosh_vjp))
atanh = _unary("atanh", _op("atanh", "AtanhBackward0", "in0", forward=_atanh_fwd(),
                            vjp=_atanh_vjp))


def _inplace_version(f, name):
    """``x.asinh_()``: torch's in-place asinh/acosh/atanh make an ``AsinhBackward1`` node whose
    backward is not implemented."""
    msg = f"the derivative for 'inplace version of {name}' is not implemented."

    def vjp(n, g):
        raise RuntimeError(msg)
    op = _op(f._op.name, f._op.torch_name[:-1] + "1", "none",
             forward=f._op.forward, vjp=vjp)

    def method(self):
        def compute(s):
            r = apply(op, (_float_input(s),))
            _inplace._cast_check(self, raw(r).dtype)
            return r
        return _inplace.inplace(self, compute)
    return method


erfc = _unary("erfc", _op("erf", "ErfcBackward0", "in0",
                          forward=O._libm_fwd("erfc", _np_erfc), vjp=_erfc_vjp))


def _exp2_fwd():
    from . import _sleef_more as S

    from ._elementwise_more import glibc1   # (exp2f at any size: a strided x's scalar loop)

    return O._float_fwd("exp2", S.blocks(S.exp2f, glibc1("exp2f", EK.libm("exp2", np.exp2))),
                        S.blocks(S.exp2d, EK.libm64("exp2", np.exp2)), np.exp2)


def _exp2_vjp(n, g):  # grad * result * M_LN2 (the number by mul.Scalar: MulBackward1)
    p = O.mul(g, n.out())
    dt = O.raw(p).dtype
    if dt.kind != "f":       # (bfloat16 bits, complex: as before)
        return O.mul(p, _math.log(2.0))
    from ._unary_grads import _mul1

    return _mul1(O, p, O.const(_math.log(2.0), dt))


exp2 = _unary("exp2", _op("exp", "Exp2Backward0", "out", forward=_exp2_fwd(), vjp=_exp2_vjp))


def _scale_fwd(factor):
    """x * factor with the constant in x's dtype (torch's mul by a wrapped number)."""
    def fwd(x, **_kw):
        if x.dtype.kind not in "fc":
            x = x.astype(_dtypes.default_float())
        return (x * np.asarray(factor, x.dtype)).astype(x.dtype, copy=False)
    return fwd


_PI_180 = 0.017453292519943295769236907684886127134428718885417
_180_PI = 57.295779513082320876798154814105170332405472466564


def _deg_op(name, factor):
    op = top("assign", name, "none", forward=_scale_fwd(factor))
    op.vjp = lambda n, g: apply(op, (g,))
    return op


_DEG2RAD = _deg_op("Deg2RadBackward0", _PI_180)
_RAD2DEG = _deg_op("Rad2DegBackward0", _180_PI)


def _complex_check(x, name):
    if raw(x).dtype.kind == "c":
        raise RuntimeError(f"{name} is not supported for complex tensors.")


def deg2rad(input, *, out=None):  # noqa: A002
    _complex_check(input, "deg2rad")
    return O._out(apply(_DEG2RAD, (_float_input(input),)), out)


def rad2deg(input, *, out=None):  # noqa: A002
    _complex_check(input, "rad2deg")
    return O._out(apply(_RAD2DEG, (_float_input(input),)), out)


def _csgn_fwd(x, **_kw):
    from ._complex_abs import sgn as _complex_sgn   # torch's parts / hypot

    return _complex_sgn(x)


def _csgn_vjp(n, g):
    """torch's sgn_backward: (g - sgn * Re(conj(sgn) * g)) / |x|, 0 where x == 0."""
    x = n.inputs[0]
    s = n.out()
    ab = O.abs(x)
    d = O.div(O.sub(g, O.mul(s, real(O.mul(conj(s), g)))), ab)
    return _unary_grads._zero_where(raw(ab) == 0, d)


def sgn(input, *, out=None):  # noqa: A002
    if raw(input).dtype.kind == "c":
        return O._out(apply(_op("sign", "SgnBackward0", "in0+out", forward=_csgn_fwd,
                                vjp=_csgn_vjp), (input,)), out)
    op = top("sign", "SgnBackward0", "none", forward=_sign_fwd)
    return O._out(apply(op, (input,)), out)


def _sign_fwd(x, **_kw):
    """ATen's sign: ``(0 < x) - (x < 0)``, so a NaN gives 0 (numpy's sign gives NaN)."""
    if x.dtype.kind == "b":
        return x.copy()
    if x.dtype.kind == "f":
        return ((x > 0).astype(x.dtype) - (x < 0).astype(x.dtype)).astype(x.dtype, copy=False)
    return np.sign(x).astype(x.dtype, copy=False)


def sign(input, *, out=None):  # noqa: A002
    if raw(input).dtype.kind == "c":
        raise RuntimeError("Unlike NumPy, torch.sign is not intended to support complex "
                           "numbers. Please use torch.sgn instead.")
    return O._out(apply(top("sign", "SignBackward0", "none", forward=_sign_fwd), (input,)), out)


def frac(input, *, out=None):  # noqa: A002
    dt = raw(input).dtype
    if dt.kind not in "fc":
        raise NotImplementedError(f"\"frac_cpu\" not implemented for "
                                  f"'{_dtypes.from_np(dt).legacy}'")
    return O._out(O.frac(input), out)


def positive(input):  # noqa: A002
    if raw(input).dtype.kind == "b":
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


# ------------------------------------------------------------------------------ round
def _round_dec_fwd(x, decimals=0):
    """torch's round(decimals=d): ``nearbyint(x * 10**d) / 10**d`` (d < 0: ``x / 10**-d`` first),
    in x's dtype."""
    neg = decimals < 0
    p = np.asarray(float(10 ** (-decimals if neg else decimals)), x.dtype)
    with np.errstate(all="ignore"):
        if neg:
            return (np.rint(x / p) * p).astype(x.dtype, copy=False)
        return (np.rint(x * p) / p).astype(x.dtype, copy=False)


_ROUND_DEC = _op("round", "RoundBackward1", "none", forward=_round_dec_fwd,
                 vjp=_unary_grads.zero_grads)


def round(input, *, decimals=0, out=None):  # noqa: A001,A002
    if decimals == 0:
        return O._out(O._round(input), out)
    if raw(input).dtype.kind in "iub":
        raise NotImplementedError(f"\"round_cpu\" not implemented for "
                                  f"'{_dtypes.from_np(raw(input).dtype).legacy}'")
    return O._out(apply(_ROUND_DEC, (input,), {"decimals": int(decimals)}), out)


# ------------------------------------------------------------------------------ division
def _zero_grads(n, g):
    z = _unary_grads.zeros_like(g)   # zeros_like(grad): +0 (g * 0 gave -0 for g < 0)
    return tuple(z if needs_grad(n, i) else None for i in range(len(n.inputs)))


def _div_round_fwd(mode):
    def fwd(x, y, **_kw):
        with np.errstate(all="ignore"):
            if x.dtype.kind in "iu":
                if (y == 0).any():
                    raise RuntimeError("ZeroDivisionError")
                if mode == "floor":
                    return np.floor_divide(x, y)
                q = np.abs(x) // np.abs(y)
                return np.where((x < 0) != (y < 0), -q, q).astype(x.dtype)
            if x.dtype.kind == "b":
                return np.asarray(x & y)
            if mode == "floor":
                return np.floor_divide(x, y).astype(x.dtype, copy=False)
            return np.trunc(x / y).astype(x.dtype, copy=False)
    return fwd


def div(input, other, *, rounding_mode=None, out=None):  # noqa: A002
    if rounding_mode is None:
        return O.div(input, other, out=out)
    if rounding_mode not in ("trunc", "floor"):
        raise RuntimeError("div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                           f"but found '{rounding_mode}'")
    a, b, _dt = O._binary_prep(input, other)
    tensor_other = _is_t(other)
    op = _op("divide", "DivBackward2" if tensor_other else "DivBackward3", "none",
             inputs=None if tensor_other else (0,), forward=_div_round_fwd(rounding_mode),
             vjp=_zero_grads)
    return O._out(apply(op, (a, b)), out)


divide = div


def true_divide(dividend, divisor, *, out=None):
    return O.div(dividend, divisor, out=out)


def floor_divide(input, other, *, out=None):  # noqa: A002
    a, b, _dt = O._binary_prep(input, other)
    op = _op("divide", "NotImplemented", "none", forward=_div_round_fwd("floor"),
             vjp=_not_implemented("floor_divide"))
    return O._out(apply(op, (a, b)), out)


def _fmod_fwd(x, y, **_kw):
    if x.dtype.kind in "iu" and (y == 0).any():
        raise RuntimeError("ZeroDivisionError")
    with np.errstate(all="ignore"):
        return np.fmod(x, y).astype(x.dtype, copy=False)


def _fmod_vjp(n, g):  # other: -grad * self.div(other, rounding_mode="trunc")
    x, y = n.inputs
    dy = None
    if needs_grad(n, 1):
        dy = O.mul(O.neg(g), div(x, y, rounding_mode="trunc"))
    return g, dy


def _remainder_fwd(x, y, **_kw):
    if x.dtype.kind in "iu" and (y == 0).any():
        raise RuntimeError("ZeroDivisionError")
    with np.errstate(all="ignore"):
        if x.dtype.kind == "f":
            r = np.fmod(x, y)
            fix = (r != 0) & ((r < 0) != (y < 0))
            return np.where(fix, r + y, r).astype(x.dtype)
        return np.remainder(x, y)


def _remainder_vjp(n, g):  # other: -grad * self.div(other, rounding_mode="floor")
    x, y = n.inputs
    dy = None
    if needs_grad(n, 1):
        dy = O.mul(O.neg(g), div(x, y, rounding_mode="floor"))
    return g, dy


def _mod_like(name, fwd, vjp):
    def f(input, other, *, out=None):  # noqa: A002
        a, b, _dt = O._binary_prep(input, other)
        if _is_t(other):
            op = _op("remainder", f"{name}Backward1", "all", forward=fwd, vjp=vjp)
        else:
            op = _op("remainder", f"{name}Backward0", "none", inputs=(0,), forward=fwd,
                     vjp=lambda n, g: (g, None))
        return O._out(apply(op, (a, b)), out)
    return f


fmod = _mod_like("Fmod", _fmod_fwd, _fmod_vjp)
_remainder_tt = _mod_like("Remainder", _remainder_fwd, _remainder_vjp)


def remainder(input, other, *, out=None):  # noqa: A002
    if not _is_t(input):  # remainder(Scalar, Tensor): the scalar as a tensor, no grad node
        dt = _dtypes.result_type(input, other)
        r = _remainder_fwd(np.asarray(input, dt), raw(other).astype(dt))
        return O._out(_wrap(np.asarray(r), True), out)
    return _remainder_tt(input, other, out=out)


# ------------------------------------------------------------------------------ clamp
def _clamp_tensor(name, which):
    def f(input, bound, *, out=None):  # noqa: A002
        if not _is_t(bound):
            return O._out(O.clamp_min(input, bound) if which == "min"
                          else O.clamp_max(input, bound), out)
        dt = _dtypes.result_type(input, bound)
        x = O._operand(input, dt)
        b = O._operand(bound, dt)
        inf = const(np.inf if which == "min" else -np.inf, dt) if dt.kind == "f" else None
        if inf is None:
            info = np.iinfo(dt) if dt.kind in "iu" else None
            inf = const(info.max if which == "min" else info.min, dt)
        lo, hi = (b, inf) if which == "min" else (inf, b)
        return O._out(apply(top("fused_clamp", name, "all"), (x, lo, hi)), out)
    return f


clamp_min = _clamp_tensor("ClampMinBackward1", "min")
clamp_max = _clamp_tensor("ClampMaxBackward1", "max")


# ------------------------------------------------------------------------------ binary math
def _float_binary_prep(a, b):
    dt = _dtypes.result_type(a, b)
    if dt.kind not in "fc":
        dt = _dtypes.default_float()
    if _is_t(a) and _is_t(b):
        O._check_broadcast(a, b)
    return O._operand(a, dt), O._operand(b, dt), dt


def _copysign_fwd(x, y, **_kw):
    return np.copysign(x, y).astype(x.dtype, copy=False)


def _copysign_vjp(n, g):
    """self: grad * (result / self), 0 where self == 0; other: zeros."""
    x, y = n.inputs
    dx = dy = None
    if needs_grad(n, 0):
        ratio = O.div(n.out(), x)
        ratio = O.masked_fill(ratio, O.eq(x, 0), 0)
        dx = O.mul(g, ratio)
    if needs_grad(n, 1):
        dy = _unary_grads.zeros_like(g)
    return dx, dy


def copysign(input, other, *, out=None):  # noqa: A002
    a, b, _dt = _float_binary_prep(input, other)
    if _is_t(other):
        op = _op("copysign", "CopysignBackward0", "all+out", forward=_copysign_fwd,
                 vjp=_copysign_vjp)
    else:
        op = _op("copysign", "CopysignBackward1", "all+out", inputs=(0,),
                 forward=_copysign_fwd, vjp=_copysign_vjp)
    return O._out(apply(op, (a, b)), out)


def _fmaxmin(name, np_fn):
    op = _op(name, f"F{name[1:]}Backward0", "all", forward=lambda x, y, **_k: np_fn(x, y),
             vjp=_unary_grads.fmaxmin_vjp(name))

    def f(input, other, *, out=None):  # noqa: A002
        a, b, _dt = O._binary_prep(input, other)
        return O._out(apply(op, (a, b)), out)
    f.__name__ = name
    return f


fmax = _fmaxmin("fmax", np.fmax)
fmin = _fmaxmin("fmin", np.fmin)


def _hypot_fwd(x, y, **_kw):
    with np.errstate(all="ignore"):
        if x.dtype == np.float32:
            return _hypotf(x, y)
        return np.hypot(x, y).astype(x.dtype, copy=False)


def _hypotf(x, y):
    """torch's float32 hypot: ``std::hypot(float, float)``, which libstdc++ computes as
    ``(float) hypot((double) x, (double) y)`` (measured: 0 of 10,000 differ)."""
    xb, yb = np.broadcast_arrays(x.astype(np.float64), y.astype(np.float64))
    return np.hypot(xb, yb).astype(np.float32)


def _hypot_vjp(n, g):  # grad * self / result, grad * other / result
    x, y = n.inputs
    out = n.out()
    dx = O.div(O.mul(g, x), out) if needs_grad(n, 0) else None   # (grad * self) / result
    dy = O.div(O.mul(g, y), out) if needs_grad(n, 1) else None
    return dx, dy


def hypot(input, other, *, out=None):  # noqa: A002
    a, b, _dt = O._binary_prep(input, other)
    op = _op("fused_hypot", "HypotBackward0", "all+out", forward=_hypot_fwd, vjp=_hypot_vjp)
    return O._out(apply(op, (a, b)), out)


def _logaddexp2_fwd(x, y, **_kw):
    """torch's scalar kernel: ``m + log1p(exp2(-|a - b|)) * (1 / ln 2)`` (the C library's
    exp2 and log1p, one fused multiply-add); equal infinities give themselves. (torch's
    vectorised blocks of 32 floats / 16 doubles use SLEEF's log1p: not reproduced, a last-bit
    difference there.)"""
    with np.errstate(all="ignore"):
        dt = x.dtype
        xb, yb = np.broadcast_arrays(x, y)
        m = np.maximum(xb, yb)
        d = np.negative(np.abs(xb - yb))
        if dt == np.float32:
            e = EK.libm("exp2", np.exp2)(np.require(d, requirements="C"))
            l1 = EK.libm("log1p", np.log1p)(e)
        else:
            e = EK.libm64("exp2", np.exp2)(np.require(d, requirements="C"))
            l1 = EK.libm64("log1p", np.log1p)(e)
        inv = np.asarray(1.0 / _math.log(2.0), dt)
        # GCC contracts ``m + log1p(..) * inv_log_2`` into one fused multiply-add
        if dt == np.float32:
            r = (l1.astype(np.float64) * np.float64(inv) + m).astype(dt)
        else:
            from ._sleef64 import fma64

            r = fma64(l1, np.full_like(l1, inv), m).astype(dt)
        same_inf = np.isinf(xb) & (xb == yb)
        return np.where(same_inf, xb, r).astype(dt)


def _logaddexp2_vjp(n, g):
    x, y = n.inputs
    dx = O.div(g, O.add(O.pow(2, O.sub(y, x)), 1)) if needs_grad(n, 0) else None
    dy = O.div(g, O.add(O.pow(2, O.sub(x, y)), 1)) if needs_grad(n, 1) else None
    return dx, dy


def logaddexp2(input, other, *, out=None):  # noqa: A002
    a, b, dt = O._binary_prep(input, other)
    if dt.kind not in "fc":
        raise NotImplementedError(f"\"logaddexp2_cpu\" not implemented for "
                                  f"'{_dtypes.from_np(dt).legacy}'")
    op = _op("fused_logaddexp", "Logaddexp2Backward0", "all", forward=_logaddexp2_fwd,
             vjp=_logaddexp2_vjp)
    return O._out(apply(op, (a, b)), out)


_ATAN2F = EK._libm2("atan2f", np.arctan2)
_ATAN2D = EK._libm2("atan2", np.arctan2, ctypes.c_double, np.float64)


def _atan2_fwd(y, x, **_kw):
    """float32: SLEEF's atan2f on TensorIterator's vector blocks, the C library's on the rest
    (``_elementwise_more``); float64 likewise: SLEEF's ``xatan2_u1`` on the vector loop's blocks
    of 16 doubles (``_sleef_more.atan2d``), ``std::atan2`` of the C library on the rest."""
    yb, xb = np.broadcast_arrays(y, x)
    yb, xb = np.ascontiguousarray(yb), np.ascontiguousarray(xb)
    with np.errstate(all="ignore"):
        if y.dtype == np.float32:
            from ._elementwise_more import atan2_f32   # SLEEF's atan2f on vector blocks

            return atan2_f32(y, x, lambda a, b: _ATAN2F(a, b).reshape(a.shape))
        if y.dtype == np.float64:
            from . import _capability
            from ._sleef_more import atan2d_or

            one = lambda a, b: _ATAN2D(a, b).reshape(a.shape)  # noqa: E731
            if _capability.capability() == "DEFAULT":
                return one(yb, xb)
            from . import _tensor_iter   # SLEEF's atan2 (u1) on the vector loop's blocks

            return _tensor_iter.run(lambda a, b: atan2d_or(a, b, one), one, y, x)
        return np.arctan2(yb, xb).astype(y.dtype)


def atan2(input, other, *, out=None):  # noqa: A002
    a, b, _dt = _float_binary_prep(input, other)
    op = top("atan2", "Atan2Backward0", "all", forward=_atan2_fwd)
    return O._out(apply(op, (a, b)), out)


def _heaviside_fwd(x, y, **_kw):
    return np.where(x == 0, y, (x > 0)).astype(x.dtype)


def heaviside(input, values, *, out=None):  # noqa: A002
    if raw(input).dtype != raw(values).dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    O._check_broadcast(input, values)
    op = _op("heaviside", "NotImplemented", "none", forward=_heaviside_fwd,
             vjp=_not_implemented("heaviside"))
    return O._out(apply(op, (input, values)), out)


def _nextafter_fwd(x, y, **_kw):
    return np.nextafter(x, y).astype(x.dtype, copy=False)


def nextafter(input, other, *, out=None):  # noqa: A002
    a, b, dt = O._binary_prep(input, other)
    if dt.kind != "f":
        raise NotImplementedError(f"\"nextafter_cpu\" not implemented for "
                                  f"'{_dtypes.from_np(dt).legacy}'")
    op = _op("heaviside", "NextafterBackward0", "none", forward=_nextafter_fwd,
             vjp=lambda n, g: (g if needs_grad(n, 0) else None,
                               O.mul(g, 0) if needs_grad(n, 1) else None))
    return O._out(apply(op, (a, b)), out)


def _ldexp_fwd(x, e, **_kw):
    with np.errstate(all="ignore"):
        return (x * np.exp2(e.astype(x.dtype))).astype(x.dtype, copy=False)


def _ldexp_vjp(n, g):  # self: grad * 2 ** other; other: grad * self * ln2 * 2 ** other
    x, e = n.inputs
    p = O.pow(2, e)
    dx = O.mul(g, p) if needs_grad(n, 0) else None
    de = O.mul(O.mul(g, O.mul(x, _math.log(2.0))), p) if needs_grad(n, 1) else None
    return dx, de


def ldexp(input, other, *, out=None):  # noqa: A002
    """``input * 2 ** other`` in the promoted float dtype."""
    dt = _dtypes.result_type(input, other)
    if dt.kind not in "fc":
        dt = _dtypes.default_float()
    x = O._operand(input, dt)
    e = O._operand(other, dt)
    if _is_t(input) and _is_t(other):
        O._check_broadcast(input, other)
    op = _op("multiply", "LdexpBackward0", "all", forward=_ldexp_fwd, vjp=_ldexp_vjp)
    return O._out(apply(op, (x, e)), out)


def float_power(input, exponent, *, out=None):  # noqa: A002
    """``pow`` in double precision (complex128 for complex operands)."""
    cplx = any(_is_t(v) and raw(v).dtype.kind == "c" or isinstance(v, complex)
               for v in (input, exponent))
    dt = np.dtype(np.complex128 if cplx else np.float64)
    if _is_t(input):
        base = O._operand(input, dt)
    else:
        base = input
    e = O._operand(exponent, dt) if _is_t(exponent) else exponent
    return O._out(O.pow(base, e), out)


def _gcd_like(name, np_fn):
    def f(input, other, *, out=None):  # noqa: A002
        if not _is_t(other):
            raise TypeError(f"{name}(): argument 'other' (position 2) must be Tensor, not "
                            f"{type(other).__name__}")
        dt = _dtypes.result_type(input, other)
        if dt.kind not in "iu":
            raise NotImplementedError(f"\"{name}_cpu\" not implemented for "
                                      f"'{_dtypes.from_np(dt).legacy}'")
        O._check_broadcast(input, other)
        a, b = raw(input).astype(dt), raw(other).astype(dt)
        return O._out(_wrap(np.asarray(np_fn(a, b)).astype(dt), True), out)
    f.__name__ = name
    return f


gcd = _gcd_like("gcd", np.gcd)
lcm = _gcd_like("lcm", lambda a, b: np.abs(np.lcm(a, b)))


def _shift(name, left):
    def f(input, other, *, out=None):  # noqa: A002
        dt = _dtypes.result_type(input, other)
        if dt.kind not in "iub":
            raise NotImplementedError(f"\"{'lshift' if left else 'rshift'}_cpu\" not "
                                      f"implemented for '{_dtypes.from_np(dt).legacy}'")
        if _is_t(input) and _is_t(other):
            O._check_broadcast(input, other)
        a = np.asarray(O._arr(input)).astype(dt)
        b = np.asarray(O._arr(other)).astype(dt)
        bits = dt.itemsize * 8
        with np.errstate(all="ignore"):
            if left:
                ok = (b >= 0) & (b < bits)
                u = a.view(a.dtype.str.replace("i", "u")) if dt.kind == "i" else a
                r = np.left_shift(u, np.where(ok, b, 0).astype(u.dtype)).view(dt)
                r = np.where(ok, r, 0).astype(dt)
            else:
                max_shift = bits - (1 if dt.kind == "i" else 0)
                sb = np.where((b < 0) | (b >= max_shift), max_shift, b)
                if dt.kind == "u" or dt.kind == "b":
                    r = np.where(sb >= bits, 0, np.right_shift(a, np.minimum(sb, bits - 1)))
                else:
                    r = np.right_shift(a, sb.astype(dt))
                r = np.asarray(r).astype(dt)
        return O._out(_wrap(np.asarray(r), True), out)
    f.__name__ = name
    return f


bitwise_left_shift = _shift("bitwise_left_shift", True)
bitwise_right_shift = _shift("bitwise_right_shift", False)


# ------------------------------------------------------------------------------ predicates
def _bool_of(fn):
    def f(input, *, out=None):  # noqa: A002
        return O._out(_wrap(np.asarray(fn(raw(input))), True), out)
    return f


def _isposinf(a):
    a = _bfloat16.values(a)  # (bfloat16: the values its bits stand for)
    if a.dtype.kind == "c":
        raise RuntimeError("isposinf does not support complex inputs.")
    return np.isposinf(a) if a.dtype.kind == "f" else np.zeros(a.shape, bool)


def _isneginf(a):
    a = _bfloat16.values(a)  # (bfloat16: the values its bits stand for)
    if a.dtype.kind == "c":
        raise RuntimeError("isneginf does not support complex inputs.")
    return np.isneginf(a) if a.dtype.kind == "f" else np.zeros(a.shape, bool)


def _signbit(a):
    a = _bfloat16.values(a)  # (bfloat16: the values its bits stand for)
    if a.dtype.kind == "c":
        raise RuntimeError("signbit is not implemented for complex tensors.")
    if a.dtype.kind == "b" or a.dtype.kind == "u":
        return np.zeros(a.shape, bool)
    return np.signbit(a)


isposinf = _bool_of(_isposinf)
isneginf = _bool_of(_isneginf)
signbit = _bool_of(_signbit)


def isreal(input):  # noqa: A002
    a = raw(input)
    if a.dtype.kind == "c":
        return _wrap(np.asarray(a.imag == 0), True)
    return _wrap(np.ones(a.shape, bool), True)


def is_nonzero(input):  # noqa: A002
    a = raw(input)
    if a.size == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if a.size > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(a.reshape(-1)[0] != 0)


def is_same_size(input, other):  # noqa: A002
    return raw(input).shape == raw(other).shape


def is_storage(obj):
    return type(obj).__name__ in ("TypedStorage", "UntypedStorage") or \
        type(obj).__name__.endswith("Storage")


def is_signed(input):  # noqa: A002
    return raw(input).dtype.kind in "ifc"


_CONJ: dict = {}   # id -> weakref of the tensors torch would mark conjugated (conj's views)


def _mark_conj(t, flag):
    import weakref

    key = id(t)
    if flag:
        _CONJ[key] = weakref.ref(t, lambda _r, key=key: _CONJ.pop(key, None))
    else:
        _CONJ.pop(key, None)


def is_conj(input):  # noqa: A002
    ref = _CONJ.get(id(input))
    return ref is not None and ref() is input


def is_neg(input):  # noqa: A002
    return False


from ._tensor import _INFERENCE  # noqa: E402  (the tensors made inside are inference tensors)


def is_inference_mode_enabled():
    return _INFERENCE[0] > 0


def _track_inference_mode():
    """``torch.inference_mode()`` blocks keep whether inference mode is on (``_INFERENCE[0]``,
    the enclosing blocks' states stacked after it): ``is_inference_mode_enabled`` and the
    inference tensors made inside read it; ``inference_mode(False)`` inside turns it off, and
    ``@torch.inference_mode()`` on a function runs its body in such a block."""
    import functools

    from .autograd import inference_mode

    if getattr(inference_mode, "_counted", False):
        return
    enter, exit_ = inference_mode.__enter__, inference_mode.__exit__

    def __enter__(self):
        r = enter(self)
        _INFERENCE.append(_INFERENCE[0])
        _INFERENCE[0] = 0 if getattr(self, "mode", False) else 1  # ``mode``: grad enabled
        return r

    def __exit__(self, *exc):
        if len(_INFERENCE) > 1:
            _INFERENCE[0] = _INFERENCE.pop()
        return exit_(self, *exc)

    def __call__(self, fn):
        on = not getattr(self, "mode", False)

        @functools.wraps(fn)
        def run(*args, **kwargs):
            with inference_mode(on):
                return fn(*args, **kwargs)
        return run

    inference_mode.__enter__, inference_mode.__exit__ = __enter__, __exit__
    inference_mode.__call__ = __call__
    inference_mode._counted = True


_track_inference_mode()


# ------------------------------------------------------------------------------ complex views
def _complex_unary(base, name, np_fn):
    op = top(base, name, "none", forward=lambda x, **_k: np.asarray(np_fn(x)))
    return op


# torch's ``.real``/``.imag`` are views: ``select(view_as_real(z), -1, 0 or 1)``, so their
# grad_fn is SelectBackward0
_REAL_VIEW = _complex_unary("real", "SelectBackward0", np.real)
_IMAG_VIEW = _complex_unary("imag", "SelectBackward0", np.imag)


def real(input):  # noqa: A002
    if raw(input).dtype.kind != "c":
        return input
    return apply(_REAL_VIEW, (input,))


def imag(input):  # noqa: A002
    if raw(input).dtype.kind != "c":
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return apply(_IMAG_VIEW, (input,))


def _set_real(self, value):
    """``t.real = value``: the value copied into the real view (torch's THPVariable_set_real:
    ``at::real(self).copy_(value)``; a number fills it)."""
    _set_part(real(self), value)


def _set_imag(self, value):
    _set_part(imag(self), value)


def _set_part(view, value):
    if isinstance(value, EngineTensor):
        view.copy_(value)
    else:
        view.fill_(value)


def conj(input):  # noqa: A002
    if raw(input).dtype.kind != "c":
        return input
    r = apply(_complex_unary("conj", "ConjBackward0", np.conj), (input,))
    _mark_conj(r, not is_conj(input))
    return r


def conj_physical(input, *, out=None):  # noqa: A002
    if raw(input).dtype.kind != "c":
        return input if out is None else O._out(O.clone(input), out)
    return O._out(apply(_complex_unary("conj", "ConjPhysicalBackward0", np.conj), (input,)),
                  out)


def resolve_conj(input):  # noqa: A002
    if is_conj(input):
        return O.clone(input)
    return input


def resolve_neg(input):  # noqa: A002
    return input


def _view_as_real_fwd(x, **_kw):
    """A view of the complex array's memory (writes go through, as torch's)."""
    return x.view(x.real.dtype).reshape(x.shape + (2,))


def _view_as_real_vjp(n, g):
    return apply(_op("as_complex", "ViewAsComplexBackward0", "none",
                     forward=_view_as_complex_fwd, vjp=_view_as_complex_vjp), (g,))


def _view_as_complex_fwd(x, **_kw):
    c = np.ascontiguousarray(x).view(np.complex64 if x.dtype == np.float32 else np.complex128)
    return c.reshape(x.shape[:-1])


def _view_as_complex_vjp(n, g):
    return apply(_op("as_real", "ViewAsRealBackward0", "none", forward=_view_as_real_fwd,
                     vjp=_view_as_real_vjp), (g,))


def _angle_fwd(x, **_kw):
    if x.dtype.kind == "c":
        return np.angle(x).astype(x.real.dtype)
    if x.dtype.kind != "f":
        x = x.astype(_dtypes.default_float())
    with np.errstate(all="ignore"):
        r = np.where(x < 0, np.asarray(np.pi, x.dtype), np.zeros((), x.dtype))
        return np.where(np.isnan(x), x, r).astype(x.dtype)


def _complex_angle_vjp(n, g):
    """torch's angle_backward: where(z == 0, 0, grad * z / z.abs().pow(2) * 1j)."""
    z = n.inputs[0]
    dt = raw(z).dtype
    d = O.mul(O.div(O.mul(g, z), O.pow(O.abs(z), 2)), O.const(1j, dt))
    return _unary_grads._zero_where(raw(z) == 0, d)


def angle(input, *, out=None):  # noqa: A002
    op = _op("angle", "AngleBackward0", "in0", forward=_angle_fwd, vjp=_zero_grads) \
        if raw(input).dtype.kind != "c" else _op("angle", "AngleBackward0", "in0",
                                                   forward=_angle_fwd, vjp=_complex_angle_vjp)
    return O._out(apply(op, (input,)), out)


def _polar_fwd(a, t, **_kw):
    dt = a.dtype
    cdt = np.complex64 if dt == np.float32 else np.complex128
    with np.errstate(all="ignore"):
        if dt == np.float32:
            c = EK.libm("cos", np.cos)(np.require(t, requirements="C"))
            s = EK.libm("sin", np.sin)(np.require(t, requirements="C"))
        else:
            c = EK.libm64("cos", np.cos)(np.require(t, requirements="C"))
            s = EK.libm64("sin", np.sin)(np.require(t, requirements="C"))
        out = np.empty(np.broadcast_shapes(a.shape, t.shape), cdt)
        out.real = a * c
        out.imag = a * s
    return out


def _polar_vjp(n, g):
    """torch's polar_backward: abs gets real(conj(g) * sgn(result)), angle gets
    real(conj(g) * result * 1j)."""
    res = n.out_data[0] if n.out_data is not None else raw(n.out())
    gc = np.conj(raw(g))
    m = np.abs(res)
    sg = np.where(m == 0, 0, res / np.where(m == 0, 1, m))
    da = np.real(gc * sg).astype(raw(n.inputs[0]).dtype)
    dt = np.real(gc * res * 1j).astype(raw(n.inputs[1]).dtype)
    return (_wrap(da, True) if needs_grad(n, 0) else None,
            _wrap(dt, True) if needs_grad(n, 1) else None)


_POLAR = _op("complex", "PolarBackward0", "all+out", forward=_polar_fwd, vjp=_polar_vjp)


def polar(abs, angle, *, out=None):  # noqa: A002 - torch's names
    da, dt = raw(abs).dtype, raw(angle).dtype
    if da.kind != "f" or dt.kind != "f":
        raise RuntimeError("Expected both inputs to be Half, Float or Double tensors but got "
                           f"{_dtypes.from_np(da).legacy} and {_dtypes.from_np(dt).legacy}")
    if da != dt:
        raise RuntimeError(f"Expected object of scalar type {_dtypes.from_np(da).legacy} but "
                           f"got scalar type {_dtypes.from_np(dt).legacy} for second argument")
    O._check_broadcast(abs, angle)
    return O._out(apply(_POLAR, (abs, angle)), out)


# ------------------------------------------------------------------------------ frexp
def _frexp(input, *, out=None):  # noqa: A002
    from . import return_types

    a = raw(input)
    if a.dtype.kind != "f":
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    m, e = np.frexp(a)
    e = np.where(np.isfinite(a), e, 0).astype(np.int32)
    mant_op = _op("assign", "FrexpBackward0", "none",
                  forward=lambda x, **_k: np.frexp(x)[0].astype(x.dtype),
                  vjp=lambda n, g: O.div(g, const(np.exp2(e.astype(a.dtype)), a.dtype)))
    mant = apply(mant_op, (input,))
    exp = _wrap(e, True)
    rt = getattr(return_types, "frexp", None)
    if rt is None:
        rt = return_types._make("frexp", ("mantissa", "exponent"))
        return_types.frexp = rt
    if out is not None:
        from ._out import write_result

        write_result("frexp", out[0], mant)
        write_result("frexp", out[1], exp)
        return rt((out[0], out[1]))
    return rt((mant, exp))


frexp = _frexp


# ------------------------------------------------------------------------------ switches
_FENV_SIZE = 32     # glibc's fenv_t on x86-64: the x87 environment (28 bytes), then MXCSR
_MXCSR_OFFSET = 28
_FTZ_DAZ = 0x8040   # MXCSR: flush to zero (bit 15), denormals are zero (bit 6)


def _libm():
    return getattr(EK, "_LIBM", None)


def set_flush_denormal(mode):
    """Denormal floats flushed to zero (SSE's FTZ and DAZ bits, set for this thread as torch
    sets them); True where the CPU supports it (x86-64), False elsewhere."""
    import platform

    lib = _libm()
    if platform.machine().lower() not in ("x86_64", "amd64") or lib is None:
        return False
    env = (ctypes.c_ubyte * _FENV_SIZE)()
    try:
        if lib.fegetenv(env) != 0:
            return False
        mx = int.from_bytes(bytes(env[_MXCSR_OFFSET:_MXCSR_OFFSET + 4]), "little")
        mx = (mx | _FTZ_DAZ) if mode else (mx & ~_FTZ_DAZ)
        env[_MXCSR_OFFSET:_MXCSR_OFFSET + 4] = list(mx.to_bytes(4, "little"))
        return lib.fesetenv(env) == 0
    except AttributeError:
        return False


_LEGACY = {"FloatTensor": np.float32, "DoubleTensor": np.float64, "HalfTensor": np.float16,
           "BFloat16Tensor": np.float16}


class tensortype(type):
    """The metaclass of torch's legacy tensor types (``torch.FloatTensor``): a type per dtype;
    a tensor is an instance of the one of its dtype; calling one makes a tensor of its dtype
    from data (``torch.LongTensor([1, 2])``) or sizes (``torch.FloatTensor(2, 3)``)."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and raw(obj).dtype == cls._np

    def __call__(cls, *args, **kwargs):
        from ._creation import tensor, zeros

        if len(args) == 1 and not isinstance(args[0], (int, np.integer)):
            data = args[0]
            if isinstance(data, EngineTensor):
                return O.to_dtype(data, cls._np)
            if isinstance(data, tuple) and all(isinstance(v, (int, np.integer)) for v in data) \
                    and type(data).__name__ == "Size":
                return zeros(*data, dtype=cls.dtype)
            return tensor(data, dtype=cls.dtype)
        return zeros(*args, dtype=cls.dtype) if args else zeros(0, dtype=cls.dtype)

    def __repr__(cls):
        return f"<class 'torch.{cls.__name__}'>"


tensortype.__module__ = "torch"


def _legacy_types():
    types = {}
    for d in _dtypes.ALL:
        name = f"{d.legacy}Tensor"
        if name in types:
            continue
        cls = tensortype(name, (), {"dtype": d, "_np": d.np, "_legacy_name": name,
                                    "__module__": "torch"})
        types[name] = cls
    return types


LEGACY_TYPES = _legacy_types()
_TENSOR_TYPE = Tensor.type


def _type(self, dtype=None, non_blocking=False, **kwargs):
    """``x.type()``, ``x.type(torch.DoubleTensor)``: legacy types name their dtype."""
    if isinstance(dtype, tensortype):
        return O.to_dtype(self, dtype._np)
    return _TENSOR_TYPE(self, dtype)


def set_default_tensor_type(t):
    """The default float dtype from a legacy tensor type (``torch.DoubleTensor``, or its name
    ``"torch.DoubleTensor"``)."""
    from .. import _libsite  # torch's C++ warning, shown at its Python wrapper's call

    _libsite.warn_at("torch", "__init__.py", 1332, "    _C._set_default_tensor_type(t)",
                     "torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please "
                     "use torch.set_default_dtype() and torch.set_default_device() as "
                     "alternatives. (Triggered internally at /__w/pytorch/pytorch/torch/csrc/"
                     "tensor/python_tensor.cpp:434.)")
    if isinstance(t, str):
        name = t.rsplit(".", 1)[-1]
    else:
        name = getattr(t, "_legacy_name", getattr(t, "__name__", ""))
    npd = _LEGACY.get(name)
    if npd is None and isinstance(t, _dtypes.dtype):
        npd = t.np if t.np.kind == "f" else None
    if npd is None:
        if name in ("Tensor",):
            npd = np.float32
        else:
            raise TypeError(f"only floating-point types are supported as the default type")
    _dtypes.DEFAULTS.float = _dtypes.from_np(np.dtype(npd))


# ------------------------------------------------------------------------------ in place
def _inplace_of(fn):
    """``x.name_(...)``: fn's result written into x (torch refuses a result dtype x cannot
    hold, e.g. ``int_tensor.asinh_()``)."""
    def method(self, *args, **kwargs):
        def compute(s):
            r = fn(s, *args, **kwargs)
            if isinstance(r, EngineTensor):
                _inplace._cast_check(self, raw(r).dtype)
            return r
        return _inplace.inplace(self, compute)
    return method


def _float_power_(self, exponent):
    if raw(self).dtype != np.float64 and raw(self).dtype != np.complex128:
        name = _dtypes.from_np(raw(self).dtype).legacy
        raise RuntimeError(f"the base given to float_power_ has dtype {name} but the "
                           "operation's result requires dtype Double")
    return _inplace.inplace(self, lambda s: float_power(s, exponent))


def _compare_(fn):
    def method(self, other):
        return _inplace.inplace(self, lambda s: fn(s, other))
    return method


# ------------------------------------------------------------------------------ tables
_NEW = {
    "asinh": asinh, "arcsinh": asinh, "acosh": acosh, "arccosh": acosh, "atanh": atanh,
    "arctanh": atanh, "erfc": erfc, "exp2": exp2, "deg2rad": deg2rad, "rad2deg": rad2deg,
    "sgn": sgn, "sign": sign, "frac": frac, "round": round, "div": div, "divide": divide, "true_divide": true_divide,
    "floor_divide": floor_divide, "fmod": fmod, "remainder": remainder,
    "clamp_min": clamp_min, "clamp_max": clamp_max, "copysign": copysign, "fmax": fmax,
    "fmin": fmin, "hypot": hypot, "logaddexp2": logaddexp2, "heaviside": heaviside,
    "nextafter": nextafter, "ldexp": ldexp, "float_power": float_power, "gcd": gcd, "lcm": lcm,
    "bitwise_left_shift": bitwise_left_shift, "bitwise_right_shift": bitwise_right_shift,
    "atan2": atan2, "arctan2": atan2, "isposinf": isposinf, "isneginf": isneginf, "signbit": signbit,
    "isreal": isreal, "angle": angle, "conj_physical": conj_physical, "frexp": frexp,
}

EXPORTS.update(_NEW)
EXPORTS.update({
    "positive": positive, "polar": polar, "real": real, "imag": imag, "conj": conj,
    "resolve_conj": resolve_conj, "resolve_neg": resolve_neg, "is_conj": is_conj,
    "is_neg": is_neg, "is_nonzero": is_nonzero, "is_same_size": is_same_size,
    "is_storage": is_storage, "is_signed": is_signed,
    "is_inference_mode_enabled": is_inference_mode_enabled,
    "set_flush_denormal": set_flush_denormal, "set_default_tensor_type": set_default_tensor_type,
})

TENSOR_METHODS.update(_NEW)
TENSOR_METHODS.update({
    "positive": positive, "conj": conj, "resolve_conj": resolve_conj,
    "resolve_neg": resolve_neg, "is_conj": is_conj, "is_neg": is_neg, "is_nonzero": is_nonzero,
    "is_same_size": is_same_size, "is_signed": is_signed,
    "real": property(real, _set_real), "imag": property(imag, _set_imag), "type": _type,
})

# the in-place twins, x.name_(...) (and torch.name_ where torch has it)
_INPLACE_T = {
    # unary
    "abs": O.abs, "absolute": O.abs, "acos": O.acos, "arccos": O.acos, "asin": O.asin,
    "arcsin": O.asin, "atan": O.atan, "arctan": O.atan, "cosh": O.cosh, "sinh": O.sinh,
    "tan": O.tan, "erf": O.erf, "expm1": O.expm1, "log2": O.log2, "log10": O.log10,
    "log1p": O.log1p, "rsqrt": O.rsqrt, "fix": O.trunc, "frac": O.frac, "sign": sign,
    "negative": O.neg, "nan_to_num": O.nan_to_num, "logical_not": O.logical_not,
    "bitwise_not": O.bitwise_not, "exp2": exp2, "asinh": asinh, "arcsinh": asinh,
    "erfc": erfc, "deg2rad": deg2rad, "rad2deg": rad2deg, "sgn": sgn, "round": round,
    "conj_physical": conj_physical,
    # binary
    "atan2": atan2, "arctan2": atan2, "hypot": hypot, "copysign": copysign,
    "fmod": fmod, "remainder": remainder, "floor_divide": floor_divide,
    "true_divide": true_divide, "div": div, "divide": divide, "ldexp": ldexp,
    "gcd": gcd, "lcm": lcm, "heaviside": heaviside, "nextafter": nextafter,
    "logical_and": O.logical_and, "logical_or": O.logical_or, "logical_xor": O.logical_xor,
    "bitwise_and": O.bitwise_and, "bitwise_or": O.bitwise_or, "bitwise_xor": O.bitwise_xor,
    "bitwise_left_shift": bitwise_left_shift, "bitwise_right_shift": bitwise_right_shift,
    "clamp_min": clamp_min, "clamp_max": clamp_max,
}
for _n, _f in _INPLACE_T.items():
    TENSOR_METHODS[_n + "_"] = _inplace_of(_f)
TENSOR_METHODS["float_power_"] = _float_power_
for _n, _f in (("asinh", asinh), ("acosh", acosh), ("atanh", atanh)):
    TENSOR_METHODS[_n + "_"] = TENSOR_METHODS["arc" + _n[1:] + "_"] = _inplace_version(_f, _n)
for _n, _f in (("eq", O.eq), ("ne", O.ne), ("lt", O.lt), ("le", O.le), ("gt", O.gt),
               ("ge", O.ge), ("greater", O.gt), ("greater_equal", O.ge), ("less", O.lt),
               ("less_equal", O.le), ("not_equal", O.ne)):
    TENSOR_METHODS[_n + "_"] = _compare_(_f)

# torch's namespace has in-place functions of the unary ones: torch.exp_(x)
_INPLACE_NS = ("abs", "acos", "acosh", "arccos", "arccosh", "arcsin", "arcsinh", "arctan",
               "arctanh", "asin", "asinh", "atan", "atanh", "ceil", "clamp", "clamp_max",
               "clamp_min", "clip", "conj_physical", "cos", "cosh", "deg2rad", "erf", "erfc",
               "exp", "exp2", "expm1", "fix", "floor", "frac", "gcd", "lcm", "ldexp", "log",
               "log10", "log1p", "log2", "nan_to_num", "neg", "negative", "rad2deg",
               "reciprocal", "relu", "round", "rsqrt", "sigmoid", "sin", "sinh", "sqrt",
               "square", "tan", "tanh", "trunc")


def _namespace_inplace(name):
    def f(input, *args, **kwargs):  # noqa: A002
        return getattr(input, name + "_")(*args, **kwargs)
    f.__name__ = name + "_"
    return f


for _n in _INPLACE_NS:
    EXPORTS[_n + "_"] = _namespace_inplace(_n)


# the shift operators: x << n, x >> n, n << x, x <<= n
def _shift_operator(fn, reflected=False):
    def method(self, other):
        if not isinstance(other, (EngineTensor, int, bool, np.integer, np.bool_)):
            if not isinstance(other, float):
                return NotImplemented
        if reflected:
            dt = _dtypes.result_type(self, other)
            return fn(const(other, dt), self)
        return fn(self, other)
    return method


TENSOR_METHODS.update({
    "__lshift__": _shift_operator(bitwise_left_shift),
    "__rshift__": _shift_operator(bitwise_right_shift),
    "__rlshift__": _shift_operator(bitwise_left_shift, True),
    "__rrshift__": _shift_operator(bitwise_right_shift, True),
    "__ilshift__": _inplace_of(bitwise_left_shift),
    "__irshift__": _inplace_of(bitwise_right_shift),
    "__mod__": _shift_operator(remainder),
    "__pos__": positive,
})
del _n, _f, _name, _ne


# ------------------------------------------------------------------ special functions
# (torch.special's functions under their torch-namespace names and as Tensor methods; the
# kernels and backward names live in ``special.py``.)
def _special_section():
    from . import special as sp

    def polygamma_method(self, n):
        return sp.polygamma(n, self)

    def mvlgamma_method(self, p):
        return sp.multigammaln(self, p)

    exports = {"lgamma": sp.gammaln, "digamma": sp.digamma, "polygamma": sp.polygamma,
               "mvlgamma": sp.multigammaln, "i0": sp.i0, "erfinv": sp.erfinv,
               "logit": sp.logit, "xlogy": sp.xlogy, "sinc": sp.sinc}
    methods = {"lgamma": sp.gammaln, "digamma": sp.digamma, "polygamma": polygamma_method,
               "mvlgamma": mvlgamma_method, "i0": sp.i0, "erfinv": sp.erfinv,
               "logit": sp.logit, "xlogy": sp.xlogy, "sinc": sp.sinc}
    sp.erfc = erfc  # torch.special.erfc is torch.erfc: this module's (MKL's kernel, torch's VJP)
    return exports, methods


_SPECIAL_EXPORTS, _SPECIAL_METHODS = _special_section()
EXPORTS.update(_SPECIAL_EXPORTS)
TENSOR_METHODS.update(_SPECIAL_METHODS)
del _SPECIAL_EXPORTS, _SPECIAL_METHODS


# ------------------------------------------------------------------ API gaps (issue 28)
# The names torch 2.13 documents that were left (``tools/torch_api_gaps.py`` lists them):
# in-place twins of the special functions, dtype information (``finfo``/``iinfo``), the
# signal windows (composed of the dialect's exact kernels in the order of torch's
# TensorFactories.cpp), the removed functions' errors, samplers, global switches.
def _gaps_section():  # noqa: C901 - one table of small functions
    import gradrepl.torch as T
    from . import special as sp

    ex, me = {}, {}

    # in-place twins: x.digamma_(), x.cumsum_(0), x.addmm_(a, b) ...
    for name, fn in (("digamma", sp.digamma), ("erfinv", sp.erfinv), ("i0", sp.i0),
                     ("lgamma", sp.gammaln), ("sinc", sp.sinc), ("logit", sp.logit),
                     ("xlogy", sp.xlogy), ("igamma", sp.gammainc),
                     ("igammac", sp.gammaincc), ("cumsum", T.cumsum), ("cumprod", T.cumprod),
                     ("addmm", T.addmm)):
        me[name + "_"] = _inplace_of(fn)
    me["polygamma_"] = _inplace_of(lambda s, n: sp.polygamma(n, s))
    me["mvlgamma_"] = _inplace_of(lambda s, p: sp.multigammaln(s, p))
    for name in ("i0", "logit", "sinc", "xlogy"):
        ex[name + "_"] = _namespace_inplace(name)
    ex["igamma"] = me["igamma"] = sp.gammainc
    ex["igammac"] = me["igammac"] = sp.gammaincc

    # methods of functions the namespace has
    me["kron"] = T.kron
    me["diagflat"] = T.diagflat
    me["multinomial"] = T.multinomial
    me["bernoulli"] = T.bernoulli

    def adjoint(input):  # noqa: A002
        t = input.transpose(-2, -1)
        return t.conj() if t.is_complex() else t
    ex["adjoint"] = me["adjoint"] = adjoint

    def type_as(self, other):
        return self.to(other.dtype)
    me["type_as"] = type_as

    def new(self, *args, **kwargs):
        """``x.new(...)`` (legacy): sizes give a tensor of x's dtype (uninitialised in torch,
        zeros here), data a tensor of x's dtype, nothing an empty one."""
        dtype = kwargs.pop("dtype", None) or self.dtype
        if not args:
            return T.empty(0, dtype=dtype)
        if len(args) == 1 and not isinstance(args[0], (int, np.integer, tuple, T.Size)):
            return T.tensor(args[0], dtype=dtype)
        return T.zeros(*args, dtype=dtype)
    me["new"] = new

    def new_empty_strided(self, size, stride, *, dtype=None, device=None,
                          requires_grad=False, layout=None, pin_memory=False):
        return self.new_empty(size, dtype=dtype, requires_grad=requires_grad)
    me["new_empty_strided"] = new_empty_strided

    me["cdouble"] = lambda self, memory_format=None: self.to(T.complex128)
    me["cfloat"] = lambda self, memory_format=None: self.to(T.complex64)
    me["itemsize"] = property(lambda self: raw(self).dtype.itemsize)
    me["nbytes"] = property(lambda self: raw(self).dtype.itemsize * raw(self).size)
    me["name"] = None  # named tensors: torch's unnamed tensor has name None
    me["is_inference"] = lambda self: getattr(self, "_inference", False)
    ex["is_inference"] = lambda input: getattr(input, "_inference", False)  # noqa: A006
    me["const_data_ptr"] = lambda self: self.data_ptr()

    def volatile(self):
        import warnings
        warnings.warn("volatile was removed (Variable.volatile is always False)",
                      UserWarning, stacklevel=2)
        return False
    me["volatile"] = property(volatile)

    def sum_to_size(self, *size):
        size = tuple(size[0]) if len(size) == 1 and not isinstance(size[0], int) else size
        shape = tuple(self.shape)
        lead = len(shape) - len(size)
        if lead < 0 or any(s not in (1, d) for s, d in zip(size, shape[lead:])):
            raise RuntimeError(f"size {{{', '.join(map(str, size))}}} is not expandable to "
                               f"size {{{', '.join(map(str, shape))}}}.")
        dims = list(range(lead)) + [lead + i for i, (s, d) in enumerate(zip(size, shape[lead:]))
                                    if s == 1 and d != 1]
        out = self.sum(dims, keepdim=True) if dims else self
        return out.reshape(size) if lead else out
    me["sum_to_size"] = sum_to_size

    me["unsafe_chunk"] = lambda self, chunks, dim=0: self.chunk(chunks, dim)
    me["unsafe_split"] = lambda self, split_size, dim=0: self.split(split_size, dim)
    me["unsafe_split_with_sizes"] = lambda self, split_sizes, dim=0: self.split(split_sizes, dim)
    ex["unsafe_split_with_sizes"] = lambda input, split_sizes, dim=0: input.split(  # noqa: A006
        split_sizes, dim)

    def swap_(self, dim0, dim1):
        """``x.swapaxes_(0, 1)``: x itself becomes its transpose (a strided view of its
        memory, as torch's ``transpose_`` changes the strides only)."""
        from ._base import set_raw
        set_raw(self, np.swapaxes(raw(self), dim0, dim1))
        return self
    me["swapaxes_"] = me["swapdims_"] = swap_

    def nonzero_static(self, *, size, fill_value=-1):
        nz = self.nonzero()
        n = nz.shape[0]
        if n >= size:
            return nz[:size]
        pad = T.full((size - n, self.dim()), fill_value, dtype=T.int64)
        return T.cat([nz, pad])
    me["nonzero_static"] = nonzero_static
    ex["nonzero_static"] = nonzero_static

    def resize_as_(self, the_template, memory_format=None):
        return self.resize_(the_template.shape)
    me["resize_as_"] = resize_as_
    ex["resize_as_"] = resize_as_

    def set_(self, source=None, storage_offset=0, size=None, stride=None):
        from ._base import set_raw
        if source is None:
            set_raw(self, np.empty((0,), raw(self).dtype))
        else:
            set_raw(self, raw(source))
        _inplace.bump(self)
        return self
    me["set_"] = set_
    me["is_set_to"] = lambda self, tensor: raw(self) is raw(tensor) or (
        np.shares_memory(raw(self), raw(tensor)) and raw(self).shape == raw(tensor).shape
        and raw(self).strides == raw(tensor).strides)

    # samplers in torch's CPU formulas (a double from the generator a value)
    def cauchy_(self, median=0, sigma=1, *, generator=None):
        from . import _random
        a = raw(self)
        u = _random.uniform(a.shape, np.float64, 0.0, 1.0, generator)
        _inplace.write(self, (median + sigma * np.tan(np.pi * (u - 0.5))).astype(a.dtype))
        return self
    me["cauchy_"] = cauchy_

    def geometric_(self, p, *, generator=None):
        from . import _random
        a = raw(self)
        u = _random.uniform(a.shape, np.float64, 0.0, 1.0, generator)
        _inplace.write(self, np.ceil(np.log(u) / np.log1p(-p)).astype(a.dtype))
        return self
    me["geometric_"] = geometric_

    # torch.* functions
    def complex(real, imag, *, out=None):  # noqa: A001
        if raw(real).dtype != raw(imag).dtype:
            raise RuntimeError(f"Expected object of scalar type {real.dtype.legacy} but got "
                               f"scalar type {imag.dtype.legacy} for second argument")
        if raw(real).dtype.kind != "f":
            raise RuntimeError("Expected both inputs to be Half, Float or Double tensors but "
                               f"got {real.dtype.legacy} and {imag.dtype.legacy}")
        return apply(_op("complex", "ComplexBackward0", "none"), (real, imag))
    ex["complex"] = complex

    def view_as_real(input):  # noqa: A002
        a = raw(input)
        if a.dtype.kind != "c":
            raise RuntimeError("view_as_real is only supported for complex tensors")
        return apply(_op("as_real", "ViewAsRealBackward0", "none", forward=_view_as_real_fwd,
                         vjp=_view_as_real_vjp), (input,))
    ex["view_as_real"] = view_as_real

    def view_as_complex(input):  # noqa: A002
        a = raw(input)
        if a.ndim == 0 or a.shape[-1] != 2:
            raise RuntimeError("Tensor must have a last dimension of size 2")
        return apply(_op("as_complex", "ViewAsComplexBackward0", "none",
                         forward=_view_as_complex_fwd, vjp=_view_as_complex_vjp), (input,))
    ex["view_as_complex"] = view_as_complex

    def fill(input, value):  # noqa: A002
        return T.full_like(input, value)
    ex["fill"] = fill
    ex["fill_"] = lambda input, value: input.fill_(value)  # noqa: A006
    ex["zero_"] = lambda input: input.zero_()  # noqa: A006
    ex["detach_"] = lambda input: input.detach_()  # noqa: A006

    def cond(pred, true_fn, false_fn, operands=(), *args, **kwargs):
        take = bool(pred.item() if isinstance(pred, EngineTensor) else pred)
        return (true_fn if take else false_fn)(*operands)
    ex["cond"] = cond

    def while_loop(cond_fn, body_fn, carried_inputs):
        carried = tuple(carried_inputs)
        while bool(cond_fn(*carried)):
            carried = tuple(body_fn(*carried))
        return carried
    ex["while_loop"] = while_loop

    def typename(obj):
        """torch.typename: a tensor's type(), else the object's (a class's own) module and
        qualified name."""
        if isinstance(obj, EngineTensor):
            return obj.type()
        module = getattr(obj, "__module__", "") or ""
        if hasattr(obj, "__qualname__"):
            qual = obj.__qualname__
        elif hasattr(obj, "__name__"):
            qual = obj.__name__
        else:
            module = type(obj).__module__ or ""
            qual = type(obj).__qualname__
        return qual if module in ("", "builtins") else f"{module}.{qual}"
    ex["typename"] = typename

    # the signal windows (torch.hann_window ...): TensorFactories.cpp's arithmetic
    def _window(name, window_length, periodic, dtype, requires_grad, body):
        dtype = dtype or T.get_default_dtype()
        if not dtype.is_floating_point:
            raise RuntimeError(f"{name} expects floating point dtypes, got: "
                               f"TensorOptions(dtype={dtype.legacy[:-6].lower()})")
        if window_length < 0:
            raise RuntimeError(f"{name} requires non-negative window length, got "
                               f"window_length={window_length}")
        if window_length == 0:
            out = T.empty(0, dtype=dtype)
        elif window_length == 1:
            out = T.ones(1, dtype=dtype)
        else:
            n = window_length + 1 if periodic else window_length
            out = body(n, dtype)
            if periodic:
                out = out[:n - 1].clone()
        return out.requires_grad_(requires_grad)

    def _hamming(n, dtype, alpha, beta):
        return T.arange(n, dtype=dtype).mul(_math.pi * 2.0 / (n - 1)).cos().mul(-beta).add(alpha)

    def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None,
                       layout=None, device=None, pin_memory=False, requires_grad=False):
        return _window("hamming_window", window_length, periodic, dtype, requires_grad,
                       lambda n, d: _hamming(n, d, alpha, beta))

    def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    pin_memory=False, requires_grad=False):
        return _window("hann_window", window_length, periodic, dtype, requires_grad,
                       lambda n, d: _hamming(n, d, 0.5, 0.5))

    def _bartlett(n, dtype):
        w = T.arange(n, dtype=dtype).mul(2.0 / (n - 1))
        half = ((n - 1) >> 1) + 1
        return T.cat([w[:half], w[half:].mul(-1).add(2)])

    def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                        pin_memory=False, requires_grad=False):
        return _window("bartlett_window", window_length, periodic, dtype, requires_grad,
                       _bartlett)

    def _blackman(n, dtype):
        w = T.arange(n, dtype=dtype).mul(_math.pi / (n - 1))
        return w.mul(4).cos().mul(0.08) - w.mul(2).cos().mul(0.5) + 0.42

    def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                        pin_memory=False, requires_grad=False):
        return _window("blackman_window", window_length, periodic, dtype, requires_grad,
                       _blackman)

    def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None,
                      device=None, pin_memory=False, requires_grad=False):
        def body(n, d):
            a = raw(T.arange(n, dtype=d))
            ft = a.dtype.type
            alpha, b = ft((n - 1) / 2.0), ft(beta)
            r = (a - alpha) / alpha
            arg = b * np.sqrt(np.abs(ft(1) - r * r))
            i0 = raw(sp.i0(_wrap(np.asarray(arg, a.dtype), True)))
            den = raw(sp.i0(_wrap(np.asarray([b], a.dtype), True)))[0]
            return _wrap((i0 / den).astype(a.dtype), True)
        return _window("kaiser_window", window_length, periodic, dtype, requires_grad, body)

    ex.update(hamming_window=hamming_window, hann_window=hann_window,
              bartlett_window=bartlett_window, blackman_window=blackman_window,
              kaiser_window=kaiser_window)

    # functions torch removed in 1.9 (their names remain, raising torch's message)
    removed = {
        "eig": "This function was deprecated since version 1.9 and is now removed. "
               "`torch.linalg.eig` returns complex tensors of dtype `cfloat` or `cdouble` rather "
               "than real tensors mimicking complex tensors.\n\nL, _ = torch.eig(A) should be "
               "replaced with:\nL_complex = torch.linalg.eigvals(A)\n\nand\n\nL, V = "
               "torch.eig(A, eigenvectors=True) should be replaced with:\nL_complex, V_complex "
               "= torch.linalg.eig(A)",
        "symeig": "This function was deprecated since version 1.9 and is now removed. The "
                  "default behavior has changed from using the upper triangular portion of the "
                  "matrix by default to using the lower triangular portion.\n\nL, _ = "
                  "torch.symeig(A, upper=upper) should be replaced with:\nL = "
                  "torch.linalg.eigvalsh(A, UPLO='U' if upper else 'L')\n\nand\n\nL, V = "
                  "torch.symeig(A, eigenvectors=True) should be replaced with:\nL, V = "
                  "torch.linalg.eigh(A, UPLO='U' if upper else 'L')",
        "lstsq": "This function was deprecated since version 1.9 and is now removed. "
                 "`torch.lstsq` is deprecated in favor of `torch.linalg.lstsq`.\n"
                 "`torch.linalg.lstsq` has reversed arguments and does not return the QR "
                 "decomposition in the returned tuple (although it returns other information "
                 "about the problem).\n\nTo get the QR decomposition consider using "
                 "`torch.linalg.qr`.\n\nThe returned solution in `torch.lstsq` stored the "
                 "residuals of the solution in the last m - n columns of the returned value "
                 "whenever m > n. In torch.linalg.lstsq, the residuals are in the field "
                 "'residuals' of the returned named tuple.\n\nThe unpacking of the solution, as "
                 "in\nX, _ = torch.lstsq(B, A).solution[:A.size(1)]\nshould be replaced "
                 "with:\nX = torch.linalg.lstsq(A, B).solution",
        "solve": "This function was deprecated since version 1.9 and is now removed. "
                 "`torch.solve` is deprecated in favor of `torch.linalg.solve`. "
                 "`torch.linalg.solve` has its arguments reversed and does not return the LU "
                 "factorization.\n\nTo get the LU factorization see `torch.lu`, which can be "
                 "used with `torch.lu_solve` or `torch.lu_unpack`.\nX = torch.solve(B, "
                 "A).solution should be replaced with:\nX = torch.linalg.solve(A, B)",
        "matrix_rank": "This function was deprecated since version 1.9 and is now removed.\n"
                       "Please use the `torch.linalg.matrix_rank` function instead. The "
                       "parameter 'symmetric' was renamed in `torch.linalg.matrix_rank()` to "
                       "'hermitian'.",
    }

    def gone(msg, name):
        def f(*args, **kwargs):
            raise RuntimeError(msg)
        f.__name__ = name
        return f
    for name, msg in removed.items():
        ex[name] = gone(msg, name)
        if name != "matrix_rank":
            me[name] = gone(msg, name)

    me["reinforce"] = gone(
        "reinforce() was removed.\nUse torch.distributions instead.\nSee "
        "https://pytorch.org/docs/main/distributions.html\n\nInstead of:\n\nprobs = "
        "policy_network(state)\naction = probs.multinomial()\nnext_state, reward = "
        "env.step(action)\naction.reinforce(reward)\naction.backward()\n\nUse:\n\nprobs = "
        "policy_network(state)\n# NOTE: categorical is equivalent to what used to be called "
        "multinomial\nm = torch.distributions.Categorical(probs)\naction = m.sample()\n"
        "next_state, reward = env.step(action)\nloss = -m.log_prob(action) * reward\n"
        "loss.backward()\n", "reinforce")

    def resize(self, *sizes):
        import warnings
        warnings.warn("non-inplace resize is deprecated", UserWarning, stacklevel=2)
        return self.detach().clone().resize_(*sizes)
    me["resize"] = resize

    def resize_as(self, tensor):
        import warnings
        warnings.warn("non-inplace resize_as is deprecated", UserWarning, stacklevel=2)
        return self.detach().clone().resize_(tensor.shape)
    me["resize_as"] = resize_as
    ex["get_device"] = lambda input: -1  # noqa: A006 - the CPU

    # global switches and build facts of torch's CPU wheel
    flags = {"anomaly": False, "anomaly_nan": True, "warn_always": False,
             "matmul_precision": "highest", "interop": 2, "debug_mode": 0}
    ex["is_anomaly_enabled"] = lambda: flags["anomaly"]
    ex["is_anomaly_check_nan_enabled"] = lambda: flags["anomaly_nan"]

    def set_anomaly_enabled(enabled, check_nan=True):
        flags["anomaly"], flags["anomaly_nan"] = bool(enabled), bool(check_nan)
    ex["set_anomaly_enabled"] = set_anomaly_enabled
    ex["is_warn_always_enabled"] = lambda: flags["warn_always"]
    ex["set_warn_always"] = lambda b: flags.__setitem__("warn_always", bool(b))
    ex["get_float32_matmul_precision"] = lambda: flags["matmul_precision"]

    def set_float32_matmul_precision(precision):
        if precision not in ("highest", "high", "medium"):
            raise RuntimeError(f"Invalid precision {precision}")
        flags["matmul_precision"] = precision
    ex["set_float32_matmul_precision"] = set_float32_matmul_precision
    ex["get_num_interop_threads"] = lambda: flags["interop"]
    ex["set_num_interop_threads"] = lambda n: flags.__setitem__("interop", int(n))
    ex["init_num_threads"] = lambda: None
    ex["are_deterministic_algorithms_enabled"] = lambda: False
    ex["is_deterministic_algorithms_warn_only_enabled"] = lambda: False
    ex["get_deterministic_debug_mode"] = lambda: flags["debug_mode"]

    def set_deterministic_debug_mode(debug_mode):
        modes = {"default": 0, "warn": 1, "error": 2}
        flags["debug_mode"] = modes.get(debug_mode, debug_mode)
    ex["set_deterministic_debug_mode"] = set_deterministic_debug_mode
    ex["has_lapack"] = ex["has_openmp"] = ex["has_spectral"] = True
    return ex, me


class finfo:  # noqa: N801 - torch's name
    """``torch.finfo(dtype)``: the machine limits of a floating dtype (numpy's values)."""

    _RES = {"float32": 1e-06, "float64": 1e-15, "float16": 0.001, "bfloat16": 0.01}

    def __init__(self, type=None):  # noqa: A002
        dt = type if type is not None else _dtypes.DEFAULTS.float
        if not (dt.is_floating_point or dt.is_complex):
            raise TypeError("torch.finfo() requires a floating point input type. Use "
                            "torch.iinfo to handle 'torch.finfo'")
        name = str(dt).split(".")[-1]
        name = {"complex64": "float32", "complex128": "float64"}.get(name, name)
        if name == "bfloat16":
            self.bits, self.eps, self.max = 16, 0.0078125, 3.3895313892515355e+38
            self.tiny = self.smallest_normal = 1.1754943508222875e-38
        else:
            fi = np.finfo(np.dtype(name))
            self.bits, self.eps, self.max = fi.bits, float(fi.eps), float(fi.max)
            self.tiny = self.smallest_normal = float(fi.tiny)
        self.min = -self.max
        self.resolution = self._RES[name]
        self.dtype = name

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, "
                f"tiny={self.tiny:g}, dtype={self.dtype})")

    def __eq__(self, other):
        return isinstance(other, finfo) and self.dtype == other.dtype

    __hash__ = object.__hash__


class iinfo:  # noqa: N801 - torch's name
    """``torch.iinfo(dtype)``: the limits of an integer dtype."""

    def __init__(self, type):  # noqa: A002
        name = str(type).split(".")[-1]
        if type.is_floating_point or type.is_complex or name == "bool":
            raise TypeError(f"{type} is not supported by torch.iinfo")
        ii = np.iinfo(np.dtype(name))
        self.bits, self.max, self.min, self.dtype = ii.bits, int(ii.max), int(ii.min), name

    def __repr__(self):
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"


finfo.__module__ = iinfo.__module__ = "torch"


def _gaps_section2():
    """The ATen entry points the nn functions call (``torch.layer_norm``, ``torch.lstm_cell``
    ...: torch's argument order, the functional forms' computation), ``*_copy`` twins,
    ``frombuffer``, ``gradient``, the older norms, ``log_normal_``, ``default_generator``."""
    import gradrepl.torch as T
    from . import _random
    from .nn import _recurrent as R
    from .nn import functional as F

    ex, me = {}, {}
    reductions = {0: "none", 1: "mean", 2: "sum"}

    def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,  # noqa: A002
                   cudnn_enabled=True):
        return F.batch_norm(input, running_mean, running_var, weight, bias, training,
                            momentum, eps)

    def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05,  # noqa: A002
                   cudnn_enable=True):
        return F.layer_norm(input, normalized_shape, weight, bias, eps)

    def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
        return F.embedding(indices, weight, None if padding_idx == -1 else padding_idx,
                           scale_grad_by_freq=scale_grad_by_freq)

    # (the bindings' default reduction is measured: torch 2.13's torch.kl_div(a, b) and
    # torch.binary_cross_entropy_with_logits(a, b) return the elementwise values)
    def kl_div(input, target, reduction=0, *, log_target=False):  # noqa: A002
        return F.kl_div(input, target, reduction=reductions[reduction], log_target=log_target)

    def bilinear(input1, input2, weight, bias=None):
        return F.bilinear(input1, input2, weight, bias)

    def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None,  # noqa: A002
                                         reduction=0):
        return F.binary_cross_entropy_with_logits(input, target, weight,
                                                  reduction=reductions[reduction],
                                                  pos_weight=pos_weight)

    def selu(input):  # noqa: A002
        return F.selu(input)

    def dropout_(input, p, train):  # noqa: A002
        return F.dropout(input, p, train, inplace=True)

    def _cell(step, n):
        def cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):  # noqa: A002
            p = (w_ih, w_hh, b_ih, b_hh, None)
            return step(R._lin(input, w_ih, b_ih), tuple(hx) if n == 2 else hx, p)
        return cell

    def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):  # noqa: A002
        return F.grid_sample(input, grid, ("bilinear", "nearest", "bicubic")[interpolation_mode],
                             ("zeros", "border", "reflection")[padding_mode], align_corners)

    def affine_grid_generator(theta, size, align_corners):
        return F.affine_grid(theta, list(size), align_corners)

    ex.update(batch_norm=batch_norm, layer_norm=layer_norm, embedding=embedding, kl_div=kl_div,
              bilinear=bilinear, selu=selu, dropout_=dropout_,
              binary_cross_entropy_with_logits=binary_cross_entropy_with_logits,
              lstm_cell=_cell(R._lstm_step, 2), gru_cell=_cell(R._gru_step, 1),
              rnn_tanh_cell=_cell(R._rnn_tanh_step, 1), rnn_relu_cell=_cell(R._rnn_relu_step, 1),
              grid_sampler=grid_sampler, grid_sampler_2d=grid_sampler,
              grid_sampler_3d=grid_sampler, affine_grid_generator=affine_grid_generator)

    # the *_copy functions: the view's values in a new tensor
    def _copy(fn):
        def f(*args, **kwargs):
            return fn(*args, **kwargs).clone()
        return f
    ex["diagonal_copy"] = _copy(T.diagonal)
    ex["view_as_real_copy"] = _copy(T.view_as_real)
    ex["view_as_complex_copy"] = _copy(T.view_as_complex)

    def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
        arr = np.frombuffer(buffer, dtype=_dtypes.to_np(dtype), count=count, offset=offset)
        return T.from_numpy(arr).requires_grad_(requires_grad)
    ex["frombuffer"] = frombuffer

    def _deprecated(name, use, line):
        import warnings
        warnings.warn(f"at::{name} is deprecated and it is just left for JIT compatibility. It "
                      "will be removed in a future PyTorch release. Please use "
                      f"`{use}` instead (Triggered internally at /__w/pytorch/pytorch/aten/src/"
                      f"ATen/native/LinearAlgebra.cpp:{line}.)", UserWarning, stacklevel=3)

    def frobenius_norm(input, dim, keepdim=False):  # noqa: A002
        _deprecated("frobenius_norm", "linalg.vector_norm(A, 2., dim, keepdim)", 3175)
        return T.linalg.vector_norm(input, 2, dim, keepdim)
    ex["frobenius_norm"] = frobenius_norm

    def nuclear_norm(input, dim=None, keepdim=False):  # noqa: A002
        _deprecated("nuclear_norm", "linalg.matrix_norm(A, 'nuc', dim, keepdim)", 3229)
        if isinstance(dim, bool):
            dim, keepdim = None, dim
        return T.linalg.matrix_norm(input, "nuc", dim=(-2, -1) if dim is None else dim,
                                    keepdim=keepdim)
    ex["nuclear_norm"] = nuclear_norm

    def gradient(input, *, spacing=1, dim=None, edge_order=1):  # noqa: A002
        """``torch.gradient`` with scalar spacings (ATen's gradient_helper_float order):
        the centre ``(f[2:] - f[:-2]) / h / 2``, the edges one-sided (edge_order 1 or 2)."""
        if dim is None:
            dims = list(range(input.dim()))
        elif isinstance(dim, int):
            dims = [dim]
        else:
            dims = list(dim)
        if isinstance(spacing, (list, tuple)):
            hs = list(spacing)
            if len(hs) == 1 and len(dims) > 1:
                hs = hs * len(dims)
        else:
            hs = [spacing] * len(dims)
        out = []
        for d, h in zip(dims, hs):
            if isinstance(h, EngineTensor) and h.dim() > 0:
                out.append(_gradient_coords(input, h, d, edge_order))
                continue
            h = h.item() if isinstance(h, EngineTensor) else h
            n = input.shape[d]
            if n < edge_order + 1:
                raise RuntimeError("torch.gradient expected each dimension size to be at least "
                                   "edge_order+1")
            sl = lambda a, b=None: input.narrow(d, a % n if a < 0 else a,  # noqa: E731
                                                 ((b if b is not None else n) % (n + 1)
                                                  if b is None or b >= 0 else n + b)
                                                 - (a % n if a < 0 else a))
            center = (sl(2) - sl(0, -2)) / h
            if edge_order == 1:
                pre = (sl(1, 2) - sl(0, 1)) / h
                app = (sl(-1) - sl(-2, -1)) / h
            else:
                pre = (-1.5 * sl(0, 1) + 2 * sl(1, 2) - 0.5 * sl(2, 3)) / h
                app = (0.5 * sl(-3, -2) - 2 * sl(-2, -1) + 1.5 * sl(-1)) / h
            out.append(T.cat([pre, center / 2, app], d))
        return tuple(out)
    def _gradient_coords(input, coords, d, edge_order):  # noqa: A002
        """ATen's gradient along d with coordinates (the non-uniform three-point formulas)."""
        n = input.shape[d]
        shape = [1] * input.dim()
        shape[d] = -1

        def sl(a, b):
            a = a % n if a < 0 else a
            b = n if b is None else (n + b if b < 0 else b)
            return input.narrow(d, a, b - a)
        ax_dx = coords.diff(1, 0)
        dx1, dx2 = ax_dx[:-1], ax_dx[1:]
        a = (-dx2 / (dx1 * (dx1 + dx2))).reshape(shape)
        b = ((dx2 - dx1) / (dx1 * dx2)).reshape(shape)
        c = (dx1 / (dx2 * (dx1 + dx2))).reshape(shape)
        center = a * sl(0, -2) + b * sl(1, -1) + c * sl(2, None)
        if edge_order == 1:
            pre = (sl(1, 2) - sl(0, 1)) / ax_dx[0]
            app = (sl(-1, None) - sl(-2, -1)) / ax_dx[-1]
        else:
            a = -(2.0 * ax_dx[0] + ax_dx[1]) / (ax_dx[0] * (ax_dx[0] + ax_dx[1]))
            b = (ax_dx[0] + ax_dx[1]) / (ax_dx[0] * ax_dx[1])
            c = (-ax_dx[0]) / (ax_dx[1] * (ax_dx[0] + ax_dx[1]))
            pre = a * sl(0, 1) + b * sl(1, 2) + c * sl(2, 3)
            a = (ax_dx[-1]) / (ax_dx[-2] * (ax_dx[-1] + ax_dx[-2]))
            b = -(ax_dx[-1] + ax_dx[-2]) / (ax_dx[-1] * ax_dx[-2])
            c = (2 * ax_dx[-1] + ax_dx[-2]) / (ax_dx[-1] * (ax_dx[-1] + ax_dx[-2]))
            app = a * sl(-3, -2) + b * sl(-2, -1) + c * sl(-1, None)
        return T.cat([pre, center, app], d)

    ex["gradient"] = gradient

    def log_normal_(self, mean=1, std=2, *, generator=None):
        a = raw(self)
        z = _random._normal_serial(_random._gen(generator), a.size, mean, std)
        ez = np.array([_math.exp(v) for v in z.tolist()], np.float64)  # std::exp (glibc)
        _inplace.write(self, ez.astype(a.dtype).reshape(a.shape))
        return self
    me["log_normal_"] = log_normal_
    ex["default_generator"] = _random.DEFAULT
    from . import _storage
    me["storage"] = _storage.storage
    me["untyped_storage"] = _storage.untyped_storage
    ex["TypedStorage"], ex["UntypedStorage"] = _storage.TypedStorage, _storage.UntypedStorage
    for flag in ("is_mkldnn", "is_nested", "is_vulkan", "is_xla", "is_ipu", "is_xpu", "is_mps",
                 "is_maia", "is_mtia", "is_sparse_csr", "is_quantized", "is_cuda",
                 "is_sparse"):  # (is_meta: _tensor.py, the meta device)
        me[flag] = property(lambda self: False)
    layout = type(T.strided)
    layout.__name__ = layout.__qualname__ = "layout"
    layout.__module__ = "torch"
    ex["layout"] = layout
    return ex, me


def _gaps_section3():
    """Names of other modules (bound onto them from here): nn.init's dirac_ and the deprecated
    un-underscored aliases, F's grid-sample mode tables, nn.UninitializedBuffer, torch.func's
    functionalize / replace_all_batch_norm_modules_, torch.legacy_contiguous_format,
    Tensor.as_strided_."""
    import warnings

    import gradrepl.torch as T
    from . import func as FN
    from .nn import functional as F
    from .nn import init as I
    from .nn import parameter as P

    def dirac_(tensor, groups=1):
        a = raw(tensor)
        d = a.ndim
        if d not in (3, 4, 5):
            raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
        sizes = a.shape
        if sizes[0] % groups != 0:
            raise ValueError("dim 0 must be divisible by groups")
        out_chans_per_grp = sizes[0] // groups
        min_dim = min(out_chans_per_grp, sizes[1])
        new = np.zeros_like(a)
        centre = tuple(s // 2 for s in sizes[2:])
        for g in range(groups):
            for k in range(min_dim):
                new[(g * out_chans_per_grp + k, k) + centre] = 1
        from ..engine import grad_mode
        with grad_mode.no_grad():
            _inplace.write(tensor, new)
        return tensor

    def _deprecated(name, fn):
        def f(*args, **kwargs):
            warnings.warn(f"`nn.init.{name}` is now deprecated in favor of `nn.init.{name}_`.",
                          FutureWarning, stacklevel=2)
            return fn(*args, **kwargs)
        f.__name__ = name
        return f

    if not hasattr(I, "dirac_"):
        I.dirac_ = dirac_
    for name in ("dirac", "eye", "orthogonal"):
        if not hasattr(I, name) and hasattr(I, name + "_"):
            setattr(I, name, _deprecated(name, getattr(I, name + "_")))
    F.GRID_SAMPLE_INTERPOLATION_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
    F.GRID_SAMPLE_PADDING_MODES = {"zeros": 0, "border": 1, "reflection": 2}

    class UninitializedBuffer(P.UninitializedParameter):
        """``nn.UninitializedBuffer``: a buffer whose shape a lazy module learns later."""
    UninitializedBuffer.__module__ = "torch.nn.parameter"
    T.nn.UninitializedBuffer = UninitializedBuffer
    P.UninitializedBuffer = UninitializedBuffer

    def functionalize(func, *, remove="mutations"):
        """``torch.func.functionalize``: the same values (gradrepl's tensors need no
        functionalization pass)."""
        return func

    def replace_all_batch_norm_modules_(root):
        for m in root.modules():
            if type(m).__name__ in ("BatchNorm1d", "BatchNorm2d", "BatchNorm3d",
                                    "SyncBatchNorm") or getattr(m, "_is_batchnorm", False):
                m.running_mean = None
                m.running_var = None
                m.num_batches_tracked = None
                m.track_running_stats = False
        return root
    FN.functionalize = functionalize
    FN.replace_all_batch_norm_modules_ = replace_all_batch_norm_modules_
    T.legacy_contiguous_format = T.contiguous_format

    def as_strided_(self, size, stride, storage_offset=None):
        from ._base import set_raw
        from ._storage import _flat, offset
        a = raw(self)
        base = _flat(a)
        off = offset(self) if storage_offset is None else storage_offset
        root = base if base.base is None else base.base
        view = np.ndarray(tuple(size), a.dtype, buffer=root, offset=off * a.itemsize,
                          strides=tuple(s * a.itemsize for s in stride))
        set_raw(self, view)
        return self
    Tensor.as_strided_ = as_strided_
    T.as_strided_ = as_strided_


def _bind_gaps():
    """Called by the end of ``gradrepl/torch/__init__.py``'s family binding (lazily, as the
    section needs the whole namespace): adds the gap names to the namespace and Tensor."""
    import gradrepl.torch as T

    ex, me = _gaps_section()
    ex.update(finfo=finfo, iinfo=iinfo)
    for section in (lambda: (ex, me), _gaps_section2):
        names, methods = section()
        for k, v in names.items():
            if not hasattr(T, k) or k in ("igamma", "igammac"):
                setattr(T, k, v)
        for k, v in methods.items():
            if k not in Tensor.__dict__:
                setattr(Tensor, k, v)
    _gaps_section3()
    from . import _ops_breadth, _submodules
    _submodules.install()  # torch.cuda, torch.backends.cudnn, torch.amp ... as modules
    _ops_breadth.install(T)  # stft, svd_lowrank, poisson ... (issue 28's second pass)
    from . import _not_emulated
    _not_emulated.install()  # the clear AttributeErrors for what torch has and this does not
