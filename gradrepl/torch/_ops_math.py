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
from . import _dtypes, _inplace, _mkl
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
    if raw(x).dtype.kind in "fc":
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

    return O._float_fwd("exp2", S.blocks(S.exp2f, EK.libm("exp2", np.exp2)),
                        S.blocks(S.exp2d, EK.libm64("exp2", np.exp2)), np.exp2)


def _exp2_vjp(n, g):  # grad * result * M_LN2
    return O.mul(g, O.mul(n.out(), _math.log(2.0)))


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


def sgn(input, *, out=None):  # noqa: A002
    if raw(input).dtype.kind == "c":
        a = raw(input)
        with np.errstate(all="ignore"):
            m = np.abs(a)
            r = np.where(m == 0, 0, a / np.where(m == 0, 1, m)).astype(a.dtype)
        return O._out(_wrap(r, True), out)
    op = top("sign", "SgnBackward0", "none", forward=_sign_fwd)
    return O._out(apply(op, (input,)), out)


def _sign_fwd(x, **_kw):
    if x.dtype.kind == "b":
        return x.copy()
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


_ROUND_DEC = top("round", "RoundBackward1", "none", forward=_round_dec_fwd)


def round(input, *, decimals=0, out=None):  # noqa: A001,A002
    if decimals == 0:
        return O._out(O._round(input), out)
    if raw(input).dtype.kind in "iub":
        raise NotImplementedError(f"\"round_cpu\" not implemented for "
                                  f"'{_dtypes.from_np(raw(input).dtype).legacy}'")
    return O._out(apply(_ROUND_DEC, (input,), {"decimals": int(decimals)}), out)


# ------------------------------------------------------------------------------ division
def _zero_grads(n, g):
    z = O.mul(g, 0)
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
        dy = O.mul(g, 0)
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
    def f(input, other, *, out=None):  # noqa: A002
        a, b, _dt = O._binary_prep(input, other)
        op = top(name, f"F{name[1:]}Backward0", "all", forward=lambda x, y, **_k: np_fn(x, y))
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
    dx = O.mul(g, O.div(x, out)) if needs_grad(n, 0) else None
    dy = O.mul(g, O.div(y, out)) if needs_grad(n, 1) else None
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
            e = EK.libm("exp2", np.exp2)(np.ascontiguousarray(d))
            l1 = EK.libm("log1p", np.log1p)(e)
        else:
            e = EK.libm64("exp2", np.exp2)(np.ascontiguousarray(d))
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
    """``std::atan2`` of the C library (torch's scalar loop; its AVX-512 blocks of 32 floats /
    16 doubles use SLEEF's atan2, not reproduced: a last-bit difference there)."""
    yb, xb = np.broadcast_arrays(y, x)
    yb, xb = np.ascontiguousarray(yb), np.ascontiguousarray(xb)
    with np.errstate(all="ignore"):
        if y.dtype == np.float32:
            return _ATAN2F(yb, xb).reshape(yb.shape)
        if y.dtype == np.float64:
            return _ATAN2D(yb, xb).reshape(yb.shape)
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
    if a.dtype.kind == "c":
        raise RuntimeError("isposinf does not support complex inputs.")
    return np.isposinf(a) if a.dtype.kind == "f" else np.zeros(a.shape, bool)


def _isneginf(a):
    if a.dtype.kind == "c":
        raise RuntimeError("isneginf does not support complex inputs.")
    return np.isneginf(a) if a.dtype.kind == "f" else np.zeros(a.shape, bool)


def _signbit(a):
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


_INFERENCE = [0]


def is_inference_mode_enabled():
    return _INFERENCE[0] > 0


def _track_inference_mode():
    """``torch.inference_mode()`` blocks count themselves (for ``is_inference_mode_enabled``)."""
    from .autograd import inference_mode

    if getattr(inference_mode, "_counted", False):
        return
    enter, exit_ = inference_mode.__enter__, inference_mode.__exit__

    def __enter__(self):
        r = enter(self)
        _INFERENCE.append(not getattr(self, "mode", False))
        _INFERENCE[0] += 1 if _INFERENCE[-1] else 0
        return r

    def __exit__(self, *exc):
        if len(_INFERENCE) > 1 and _INFERENCE.pop():
            _INFERENCE[0] -= 1
        return exit_(self, *exc)

    inference_mode.__enter__, inference_mode.__exit__ = __enter__, __exit__
    inference_mode._counted = True


_track_inference_mode()


# ------------------------------------------------------------------------------ complex views
def _complex_unary(base, name, np_fn):
    op = top(base, name, "none", forward=lambda x, **_k: np.asarray(np_fn(x)))
    return op


def real(input):  # noqa: A002
    if raw(input).dtype.kind != "c":
        return input
    return apply(_complex_unary("real", "RealBackward0", np.real), (input,))


def imag(input):  # noqa: A002
    if raw(input).dtype.kind != "c":
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return apply(_complex_unary("imag", "ImagBackward0", np.imag), (input,))


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


def _angle_fwd(x, **_kw):
    if x.dtype.kind == "c":
        return np.angle(x).astype(x.real.dtype)
    if x.dtype.kind != "f":
        x = x.astype(_dtypes.default_float())
    with np.errstate(all="ignore"):
        r = np.where(x < 0, np.asarray(np.pi, x.dtype), np.zeros((), x.dtype))
        return np.where(np.isnan(x), x, r).astype(x.dtype)


def angle(input, *, out=None):  # noqa: A002
    op = _op("angle", "AngleBackward0", "in0", forward=_angle_fwd, vjp=_zero_grads) \
        if raw(input).dtype.kind != "c" else top("angle", "AngleBackward0", "in0",
                                                   forward=_angle_fwd)
    return O._out(apply(op, (input,)), out)


def _polar_fwd(a, t, **_kw):
    dt = a.dtype
    cdt = np.complex64 if dt == np.float32 else np.complex128
    with np.errstate(all="ignore"):
        if dt == np.float32:
            c = EK.libm("cos", np.cos)(np.ascontiguousarray(t))
            s = EK.libm("sin", np.sin)(np.ascontiguousarray(t))
        else:
            c = EK.libm64("cos", np.cos)(np.ascontiguousarray(t))
            s = EK.libm64("sin", np.sin)(np.ascontiguousarray(t))
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
    import warnings

    warnings.warn("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
                  "torch.set_default_dtype() and torch.set_default_device() as alternatives.",
                  UserWarning, stacklevel=2)
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
    "real": property(real), "imag": property(imag), "type": _type,
})

# the in-place twins, x.name_(...) (and torch.name_ where torch has it)
_INPLACE_T = {
    # unary
    "abs": O.abs, "absolute": O.abs, "acos": O.acos, "arccos": O.acos, "asin": O.asin,
    "arcsin": O.asin, "atan": O.atan, "arctan": O.atan, "cosh": O.cosh, "sinh": O.sinh,
    "tan": O.tan, "erf": O.erf, "expm1": O.expm1, "log2": O.log2, "log10": O.log10,
    "log1p": O.log1p, "rsqrt": O.rsqrt, "fix": O.trunc, "frac": O.frac, "sign": O.sign,
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
