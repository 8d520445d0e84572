"""Elementwise math of the ``paddle`` namespace (also bound as Tensor methods), and the engine
behind the Tensor operators (``x + y`` ... ``x ** y``, comparisons): ``operator``.

How an operator computes, as Paddle does it (measured on 2.6.2 and 3.3.1):

- tensor (op) tensor: both are cast to the promoted dtype (``paddle/promotion.py``), then the
  elementwise op runs (``add``, ``elementwise_pow`` ...);
- tensor (op) python number: ``+ - *`` become Paddle's ``scale`` op (``x - 2`` is
  ``scale(x, 1, -2)``, ``2 - x`` is ``scale(x, -1, 2)``); ``x / c`` is ``scale(x, 1/c)`` in 2.x and
  ``div_scale`` (``x / float32(c)``) in 3.x; ``x ** c`` is the ``pow`` op; everything else (and a
  python bool anywhere) fills a tensor of x's dtype with the number and runs the elementwise op;
- before any of that, a python float lifts an integer tensor to float32 (and in 3.x a python int
  lifts a bool tensor to int64);
- true division of integers computes in float32.

Unary float functions (``sqrt``, ``tanh`` ...) on integer tensors: ``exp`` and the logarithms
compute in float32 in every version; the others do in 3.x and raise NotFound in 2.x.
"""
from __future__ import annotations

import numpy as np

from ...engine import grad_mode
from ...engine.ops import logic as L
from ...engine.ops import math as M
from ...engine.tensor import Tensor as _T
from .. import bf16, glog, profiles, promotion
from ..core import Tensor, as_tensor, scale_op

__all__ = ["add", "subtract", "multiply", "divide", "pow", "exp", "expm1", "log", "log1p",
           "log2", "log10", "sqrt", "rsqrt", "square", "sin", "cos", "tan", "asin", "acos",
           "atan", "sinh", "cosh", "tanh", "sigmoid", "erf", "floor", "ceil", "round", "trunc",
           "sign", "reciprocal", "abs", "neg", "clip", "scale", "maximum", "minimum", "fmax",
           "fmin", "floor_divide", "remainder", "mod", "floor_mod", "add_n", "lerp", "stanh"]
__methods__ = [n for n in __all__ if n != "add_n"] + ["add_n"]

# the engine function of every elementwise binary op, by Paddle's op name
_BINARY = {
    "add": M.add, "subtract": M.subtract, "multiply": M.multiply,
    "divide": lambda x, y: M.divide(x, y, vml=True,
                                    complex_naive=profiles.current().complex_divide == "naive"),
    "elementwise_pow": lambda x, y: M.pow(x, y, profiles.current().pow_grad,
                                          profiles.current().math_lib, log="libm"),
    "floor_divide": M.floor_divide, "remainder": M.remainder,
    "maximum": lambda x, y: M.maximum(x, y, *_minmax_modes()),
    "minimum": lambda x, y: M.minimum(x, y, *_minmax_modes()),
    "fmax": M.fmax, "fmin": M.fmin,
}


def _minmax_modes():
    prof = profiles.current()
    return ("split" if prof.minmax_ties == "split" else "y"), prof.minmax_nan
_COMPARISONS = set(L.COMPARISONS)
_SCALE_OPS = {"add", "subtract", "multiply"}


# ============================================================== the operator engine
def operator(name, x, other, reverse=False):
    """``x (op) other`` for a Tensor ``x`` (``other (op) x`` when ``reverse``), as Paddle's Tensor
    operators compute it. Returns NotImplemented for operands Paddle does not take."""
    if isinstance(other, _T):
        return tensor_op(name, *((other, x) if reverse else (x, other)))
    if promotion.is_scalar(other):
        return _with_scalar(name, x, other, reverse)
    if isinstance(other, (np.ndarray, list, tuple)):
        from .creation import to_tensor

        other = to_tensor(other)
        return tensor_op(name, *((other, x) if reverse else (x, other)))
    return NotImplemented


def tensor_op(name, x, y):
    """Two tensors: promote both to the common dtype, then run the elementwise op."""
    xd, yd = promotion.common_dtype(name, x.data.dtype, y.data.dtype, x.data.ndim == 0,
                                    y.data.ndim == 0)
    return _run(name, _cast(x, xd), _cast(y, yd))


def _with_scalar(name, x, s, reverse):
    """A tensor and a python number (see the module docstring for which op Paddle uses)."""
    kind = promotion.scalar_kind(s)
    if name == "divide":
        x = _cast(x, promotion.true_divide_dtype(x.data.dtype))
    if kind == "b":
        return _run_full(name, x, s, reverse, kind)
    if kind == "c":
        return _with_complex(name, x, complex(s), reverse)
    x = _cast(x, promotion.with_scalar(x.data.dtype, kind))
    if name in _SCALE_OPS:
        return _scale_for(name, x, s, reverse)
    if name == "divide" and not reverse:
        x = _cast(x, promotion.true_divide_dtype(x.data.dtype))
        if profiles.current().scalar_div == "reciprocal":
            return _checked("scale", x, lambda: scale_op(x, 1.0 / s if s != 0 else _inf(s)))
        return _checked("div_scale", x, lambda: M.div_scale(x, s))
    if name == "elementwise_pow" and not reverse:
        return _checked("pow", x, lambda: M.pow_scalar(x, s, std_pow=True))
    return _run_full(name, x, s, reverse, kind)


def _with_complex(name, x, s, reverse):
    """A python complex number (Paddle Quantum's ``-1j * t * H``), measured on 3.3.1 and 2.6.2:
    ``*`` and ``/`` make it a complex64 tensor first (its parts rounded to float32, also beside a
    complex128 tensor; 3.x logs the promotion); ``+`` and ``-`` fill x's complex dtype with it
    exactly; 2.x adds only its real part to a float tensor, which keeps its dtype."""
    if name in ("add", "subtract") and not promotion.strict() and x.data.dtype.kind == "f":
        return _run_full(name, x, s.real, reverse, "f")
    x = _cast(x, promotion.with_scalar(x.data.dtype, "c"))
    if name in ("multiply", "divide"):
        s = complex(np.complex64(s))
        if promotion.strict() and x.data.dtype != np.complex64:
            glog.promoted(name)
    return _run_full(name, x, s, reverse, "c")


def _inf(s):
    return float("inf") if not str(s).startswith("-") else float("-inf")


def _scale_for(name, x, s, reverse):
    s = float(s) if x.data.dtype.kind in "fc" else s
    if name == "add":
        return _checked("scale", x, lambda: scale_op(x, 1.0, s))
    if name == "multiply":
        return _checked("scale", x, lambda: scale_op(x, s, 0.0))
    if reverse:  # s - x
        return _checked("scale", x, lambda: scale_op(x, -1.0, s))
    return _checked("scale", x, lambda: scale_op(x, 1.0, -s))


def _run_full(name, x, s, reverse, kind):
    """The number becomes a tensor of x's dtype and shape (Paddle's ``full``), or of shape [1]
    where Paddle makes it that way (the profile's ``scalar_full_1d``: then a 0-D x gives [1])."""
    shape = (1,) if _full_1d(name, kind, reverse) else x.data.shape
    if name == "divide":
        x = _cast(x, promotion.true_divide_dtype(x.data.dtype))
    y = Tensor._wrap(bf16.full(shape, s, x.data.dtype), True)
    return _run(name, *((y, x) if reverse else (x, y)))


def _full_1d(name, kind, reverse):
    for rule in profiles.current().scalar_full_1d:
        op, kinds, side = rule.split(":")
        if op == name and kind in kinds and (side == "both" or (side == "right") != reverse):
            return True
    return False


def _checked(kernel, x, fn):
    promotion.check_kernel(kernel, x.data.dtype)
    return fn()


def _run(name, x, y):
    """The elementwise op on two tensors of the dtypes it computes in."""
    if name == "divide":
        dt = promotion.true_divide_dtype(x.data.dtype)
        if dt != x.data.dtype and x.data.dtype.kind in "iu":
            glog.promoted("divide")  # 3.x logs integer / integer tensors (2.x: not at all)
        x, y = _cast(x, dt), _cast(y, dt)
    _check_broadcast(x, y)
    if name in _COMPARISONS:
        return L.binary(name, x, y)
    promotion.check_kernel(name, x.data.dtype)
    fn = _BINARY[name]
    if name == "remainder" and not profiles.current().remainder_grad:
        with grad_mode.no_grad():
            return fn(x, y)
    return fn(x, y)


def _cast(t, dtype):
    """Cast for promotion: a float cast to an integer (2.x) truncates and stops gradient."""
    dtype = np.dtype(dtype)
    if t.data.dtype == dtype:
        return t
    if dtype.kind in "iub" and dtype != bf16.BITS:
        return Tensor._wrap(bf16.values(t.data).astype(dtype), True)
    return M.cast(t, dtype)


def broadcast_error(xs, ys):
    """Paddle's ValueError for shapes that do not broadcast."""
    xs, ys = list(xs), list(ys)
    n = max(len(xs), len(ys))
    xp, yp = [1] * (n - len(xs)) + xs, [1] * (n - len(ys)) + ys
    i = next(k for k in range(n) if xp[k] != yp[k] and xp[k] != 1 and yp[k] != 1)
    return ValueError(
        "(InvalidArgument) Broadcast dimension mismatch. Operands could not be broadcast together "
        f"with the shape of X = {xs} and the shape of Y = {ys}. Received [{xp[i]}] in X is not "
        f"equal to [{yp[i]}] in Y at i:{i}." + _BROADCAST_HINT.get(profiles.current().key, ""))


# the [Hint: ...] line real Paddle adds (measured: 3.3.1, 2.6.2; 2.2 unmeasured: none)
_HINT_3 = ("x_dims_array[i] == y_dims_array[i] || (x_dims_array[i] <= 1 && x_dims_array[i] != 0) "
           "|| (y_dims_array[i] <= 1 && y_dims_array[i] != 0)")
_HINT_26 = "x_dims_array[i] == y_dims_array[i] || x_dims_array[i] <= 1 || y_dims_array[i] <= 1"
_BROADCAST_HINT = {
    "3": f"\n  [Hint: Expected {_HINT_3} == true, but received {_HINT_3}:0 != true:1.] (at "
         "/paddle/paddle/phi/kernels/funcs/common_shape.h:72)\n",
    "2.6": f"\n  [Hint: Expected {_HINT_26} == true, but received {_HINT_26}:0 != true:1.] (at "
           "/paddle/paddle/phi/kernels/funcs/common_shape.h:86)\n",
}


def _check_broadcast(x, y):
    xs, ys = x.data.shape, y.data.shape
    if xs == ys:
        return
    for a, b in zip(xs[::-1], ys[::-1]):  # (numpy's broadcast_shapes costs ~5 us a call)
        if a != b and a != 1 and b != 1:
            raise broadcast_error(xs, ys)


# ============================================================== binary functions
# the pybind line that refuses a non-Tensor argument (CastPyArg2Tensor, real 3.3.1 / 2.6.2)
_CAST_ARG_AT = {"3": 1526, "2.6": 1334}


def _arg_error(fname, pos, argname, v):
    line = _CAST_ARG_AT.get(profiles.current().key)
    at = f" (at /paddle/paddle/fluid/pybind/eager_utils.cc:{line})\n" if line else ""
    return ValueError(
        f"(InvalidArgument) {fname}(): argument '{argname}' (position {pos}) must be Tensor, "
        f"but got {type(v).__name__}{at}")


def _function(name, fname, x, y, scalars=False):
    """``paddle.<fname>(x, y)``: both must be tensors (unless ``scalars``); 3.x promotes as the
    operators do, 2.x widens two floats for add/subtract/multiply and otherwise hands both dtypes
    to the kernel (which rejects a mismatch)."""
    if not isinstance(x, _T):
        raise _arg_error(fname, 0, "x", x)
    if not isinstance(y, _T):
        if scalars and promotion.is_scalar(y):
            return _with_scalar(name, x, y, False)
        raise _arg_error(fname, 1, "y", y)
    if promotion.strict():
        return tensor_op(name, x, y)
    xd, yd = promotion.function_dtypes(name, x.data.dtype, y.data.dtype)
    if xd != yd:
        raise promotion.mismatch_error(name, xd, yd)
    x, y = _cast(x, xd), _cast(y, yd)
    _check_broadcast(x, y)
    promotion.check_kernel(name, xd)
    if name == "remainder" and not profiles.current().remainder_grad:
        with grad_mode.no_grad():
            return _BINARY[name](x, y)
    return _BINARY[name](x, y)


def add(x, y, name=None):
    return _function("add", "add", x, y)


def subtract(x, y, name=None):
    return _function("subtract", "subtract", x, y)


def multiply(x, y, name=None):
    return _function("multiply", "multiply", x, y)


def divide(x, y, name=None):
    return _function("divide", "divide", x, y)


def maximum(x, y, name=None):
    return _function("maximum", "maximum", x, y)


def minimum(x, y, name=None):
    return _function("minimum", "minimum", x, y)


def fmax(x, y, name=None):
    return _function("fmax", "fmax", x, y)


def fmin(x, y, name=None):
    return _function("fmin", "fmin", x, y)


def floor_divide(x, y, name=None):
    return _function("floor_divide", "floor_divide", x, y, scalars=promotion.strict())


def remainder(x, y, name=None):
    return _function("remainder", "remainder", x, y, scalars=promotion.strict())


mod = remainder
floor_mod = remainder


def pow(x, y, name=None):  # noqa: A001 - Paddle's name
    """``x ** y``; a python number y is the ``pow`` op's factor, cast to x's dtype (so an integer
    tensor to the power 2.5 is squared, unlike the ``**`` operator)."""
    if isinstance(y, _T):
        return _function("elementwise_pow", "pow", x, y)
    if not isinstance(x, _T):
        raise _arg_error("pow", 0, "x", x)
    if not promotion.is_scalar(y):
        raise TypeError(f"y must be scalar, Tensor(in dygraph mode), but received: {type(y)}")
    return _checked("pow", x, lambda: M.pow_scalar(x, y, std_pow=True))


def add_n(inputs, name=None):
    """Sum of a tensor or a list of tensors of one dtype and shape: one AddNGradNodeFinal node
    (a lone tensor too: a new tensor), Paddle's argument and shape errors."""
    inputs = [inputs] if isinstance(inputs, _T) else list(inputs)
    if not inputs:
        line = 1562 if profiles.current().api3 else 1383
        raise ValueError("(InvalidArgument) add_n(): argument 'inputs' (position 0) must be list "
                         "of Tensors, but got empty list (at /paddle/paddle/fluid/pybind/"
                         f"eager_utils.cc:{line})\n")
    for t in inputs:
        if not isinstance(t, _T):   # (real 2.6.2 faults here; 3.3.1's message)
            raise ValueError(
                "(InvalidArgument) add_n(): argument 'inputs' (position 0) must be list of "
                "Tensors\n  [Hint: Expected PyObject_TypeCheck(((PyObject*)((tensor_obj))), "
                "p_tensor_type) == true, but received PyObject_TypeCheck(((PyObject*)"
                "((tensor_obj))), p_tensor_type):0 != true:1.] (at /paddle/paddle/fluid/pybind/"
                "eager_utils.cc:1571)\n")
    first = inputs[0].data.shape
    for i, t in enumerate(inputs[1:], 1):
        if t.data.shape != first:
            op, line = ("AddNOp", 423) if profiles.current().api3 else ("SumOp", 418)
            dims = lambda s: ", ".join(map(str, s))   # noqa: E731  (a DDim as Paddle prints it)
            raise ValueError(
                f"(InvalidArgument) The input tensor X of {op} must have same shape. But "
                f"received X[0]'s shape = [{dims(first)}], X[{i}]'s shape = [{dims(t.data.shape)}]."
                f"\n  [Hint: Expected in_dim == x_dim, but received in_dim:{dims(first)} != "
                f"x_dim:{dims(t.data.shape)}.] (at /paddle/paddle/phi/infermeta/multiary.cc:{line})\n")
    dt = inputs[0].data.dtype
    for t in inputs[1:]:
        if t.data.dtype != dt:
            raise promotion.mismatch_error("add_n", t.data.dtype, dt)
    return M.add_n(inputs)


def lerp(x, y, weight, name=None):
    """``x + weight * (y - x)``."""
    if not isinstance(weight, _T):
        weight = Tensor._wrap(np.asarray(weight, x.data.dtype), True)
    xd, yd = promotion.common_dtype("subtract", x.data.dtype, y.data.dtype, x.data.ndim == 0,
                                    y.data.ndim == 0)
    x, y = _cast(x, xd), _cast(y, yd)
    _check_broadcast(x, y)
    return M.lerp(x, y, _cast(weight, x.data.dtype))


# ============================================================== scale and clip
def scale(x, scale=1.0, bias=0.0, bias_after_scale=True, act=None, name=None):
    if isinstance(scale, _T):
        scale = scale.item()
    if isinstance(bias, _T):
        bias = bias.item()
    promotion.check_kernel("scale", x.data.dtype)
    return scale_op(x, float(scale), float(bias), bias_after_scale)


def _bound(v):
    return v.item() if isinstance(v, _T) else v


def clip(x, min=None, max=None, name=None):  # noqa: A002 - Paddle's argument names
    """Limit x to [min, max]. The gradient passes inside, and at the bounds in 3.x only."""
    from .reduce import refuse_float16

    refuse_float16(x, "clip")
    lo, hi = _bound(min), _bound(max)
    if lo is not None and hi is not None and lo > hi:
        raise ValueError(
            "(InvalidArgument) max should be greater than or equal to min. But received min = "
            f"{float(lo):f}, max = {float(hi):f}")
    if x.data.dtype.kind in "iu":
        floaty = any(isinstance(v, float) for v in (lo, hi))
        if floaty and profiles.current().clip_promotes:
            x = _cast(x, np.float32)
        else:
            lo = None if lo is None else int(lo)
            hi = None if hi is None else int(hi)
    return M.clip(x, lo, hi, open_bounds=not profiles.current().clip_grad_at_bounds)


# ============================================================== unary functions
def _kernel_error(fname, dtype):
    name = np.dtype(dtype).name
    return RuntimeError(
        f"(NotFound) The kernel with key (CPU, Undefined(AnyLayout), {name}) of kernel `{fname}` "
        f"is not registered. Selected wrong DataType `{name}`. Paddle support following "
        "DataTypes: float32, float64, complex64, complex128." + promotion.kernel_hint())


_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)


# 2.x's float16 kernels that call Paddle's float16 math functions (expf etc. of the float value,
# converted back toward zero; measured on real 2.6.2 over 41 values each: exp, log, log1p, erf,
# expm1 truncate; tanh, sigmoid, sin, cos, sqrt, rsqrt, square, reciprocal round as 3.x)
_F16_VIA_FLOAT = frozenset(("exp", "log", "log1p", "erf", "expm1"))


def _unary(fname, fn, ints):
    """A paddle function of one tensor. ``ints`` says what integer inputs do:
    "float" (computed in float32, every version), "autocast" (float32 in 3.x, NotFound in 2.x),
    "identity" (unchanged in 3.x, NotFound in 2.x), "keep" (an integer kernel exists)."""
    def f(x, name=None):
        if not isinstance(x, _T):
            x = as_tensor(x)
        dt = x.data.dtype
        if dt is _F32 or dt is _F64:   # (the float kernels: none of the checks below apply)
            return fn(x)
        kind = dt.kind
        if x.data.dtype == bf16.BITS:  # bfloat16: a float kernel, if Paddle has one
            bf16.check_kernel(fname)
            return fn(x)
        if dt == np.float16:
            from .reduce import refuse_float16

            refuse_float16(x, fname)
            if fname in _F16_VIA_FLOAT and profiles.current().f16_rounding == "zero":
                y = fn(M.cast(x, np.float32))   # float16 exp(a) = float16(expf(float(a)))
                return M.apply(M.CAST, (y,), {"dtype": np.dtype(np.float16), "f16": "zero"})
        if kind == "b" and ints != "logic":
            raise _kernel_error(fname, x.data.dtype)
        if kind in "iu":
            if ints in ("autocast", "identity") and not profiles.current().int_math_autocast:
                raise _kernel_error(fname, x.data.dtype)
            if ints == "autocast":
                glog.autocast(fname)
                x = M.cast(x, np.float32)
        return fn(x)

    f.__name__ = fname
    f.__qualname__ = fname
    f.__doc__ = f"paddle.{fname}(x): elementwise, with its gradient."
    return f


def _trig(fn):
    def run(x):
        return fn(x, profiles.current().math_lib)
    return run


def _exp_op():
    """``paddle.exp``'s op: a complex128 value as Paddle's complex kernel computes it, from the
    float32 parts through the C library's float functions and a double product:
    ``double(expf(re)) * cosf(im)`` + i ``double(expf(re)) * sinf(im)`` (real 3.3.1 and 2.6.2
    on 2,000 random values, inf/nan cases included: 0 differ; exp(0.5+0j) is 1.6487212181091309,
    float32's e^0.5). Other dtypes: the engine's exp (complex64 already agrees)."""
    import copy

    from ...engine.ops import _kernels as K

    op = copy.copy(M.EXP)
    base = M.EXP.forward
    expf, cosf, sinf = (K.libm(n, f) for n, f in (("exp", np.exp), ("cos", np.cos),
                                                 ("sin", np.sin)))

    def forward(x):
        if x.dtype != np.complex128:
            return base(x)
        e = np.asarray(expf(x.real.astype(np.float32)), np.float64)
        im = x.imag.astype(np.float32)
        out = np.empty(x.shape, np.complex128)
        with np.errstate(all="ignore"):
            out.real = e * np.asarray(cosf(im), np.float64)
            out.imag = e * np.asarray(sinf(im), np.float64)
        return out
    base_vjp = M.EXP.vjp

    def vjp(n, g):   # complex: dout * conj(out) in one product, as the kernel (+0j, not -0j)
        out = n.out()
        if out.data.dtype.kind != "c":
            return base_vjp(n, g)
        from ...engine.ops.complex import conj
        return M.multiply(g, conj(out))
    op.forward = forward
    op.vjp = vjp
    return op


_EXP = _exp_op()


def _exp(x):
    from ...engine.registry import apply
    return apply(_EXP, (x,))


exp = _unary("exp", _exp, "float")
expm1 = _unary("expm1", M.expm1, "float")
def _log_op():
    """``paddle.log``'s op: the engine's log with float64 computed by the C library's ``log``, as
    Paddle's kernel computes it (real 3.3.1 and 2.6.2 on Intel: 0 of 13,265 random float64 values
    differ from glibc's log, 11 from numpy's, which torch's float64 log follows and the shared
    engine op keeps)."""
    import copy
    import ctypes

    from ...engine.ops import _kernels as K

    op = copy.copy(M.LOG)
    base = M.LOG.forward
    lib = K._LIBM
    fn = getattr(lib, "log", None) if lib is not None else None
    if fn is None:
        return op
    fn.restype, fn.argtypes = ctypes.c_double, [ctypes.c_double]
    each = np.frompyfunc(fn, 1, 1)   # (one C call per value: glibc's own log, bit for bit)

    def forward(x):
        if x.dtype == np.float64:
            with np.errstate(all="ignore"):
                return np.asarray(each(x), np.float64).reshape(x.shape)
        return base(x)
    op.forward = forward
    return op


_LOG = _log_op()


def _log(x):
    from ...engine.registry import apply
    return apply(_LOG, (x,))


log = _unary("log", _log, "float")
log2 = _unary("log2", M.log2, "float")
log10 = _unary("log10", lambda x: M.log10(x, profiles.current().log10_grad_ln10), "float")
log1p = _unary("log1p", M.log1p, "float")
sqrt = _unary("sqrt", M.sqrt, "autocast")
rsqrt = _unary("rsqrt", M.rsqrt, "autocast")
reciprocal = _unary("reciprocal", M.reciprocal, "autocast")
sin = _unary("sin", _trig(M.sin), "autocast")
cos = _unary("cos", _trig(M.cos), "autocast")
tan = _unary("tan", _trig(M.tan), "autocast")
asin = _unary("asin", M.asin, "autocast")
acos = _unary("acos", M.acos, "autocast")
atan = _unary("atan", M.atan, "autocast")
sinh = _unary("sinh", M.sinh, "autocast")
cosh = _unary("cosh", M.cosh, "autocast")
tanh = _unary("tanh", M.tanh, "autocast")
sigmoid = _unary("sigmoid", M.sigmoid, "autocast")
erf = _unary("erf", M.erf, "autocast")
floor = _unary("floor", M.floor, "identity")
ceil = _unary("ceil", M.ceil, "identity")
trunc = _unary("trunc", M.trunc, "keep")
round = _unary("round", lambda x: M.round(x, profiles.current().round_half_even),  # noqa: A001
               "identity")
sign = _unary("sign", M.sign, "keep")
square = _unary("square", M.square, "keep")
def _abs_op():
    """``paddle.abs``'s op: a complex x's gradient as Paddle's abs_grad kernel (the profile's
    ``complex_abs_grad``): dout * w, one complex product with dout as (dout, 0), w = x * (1 / |x|)
    in 3.x, x / complex(|x|, 0) by the naive quotient in 2.x, 0 where x == 0. Real 3.3.1 and
    2.6.2: 3,000 random complex64 and complex128 values each, all equal (numpy's sign(x) gave
    x / |x| otherwise rounded: 85% in a Paddle Quantum classifier's states)."""
    import copy

    from ...engine.ops.complex import complex_
    from ...engine.ops._util import const

    op = copy.copy(M.ABS)
    base_vjp = M.ABS.vjp

    def vjp(n, g):
        x = n.inputs[0].data
        if x.dtype.kind != "c":
            return base_vjp(n, g)
        a = np.hypot(x.real, x.imag)
        w = np.zeros(x.shape, x.dtype)
        with np.errstate(all="ignore"):
            if profiles.current().complex_abs_grad == "reciprocal":
                inv = np.ones((), a.dtype) / a
                w.real, w.imag = x.real * inv, x.imag * inv
            else:
                zero = np.zeros((), a.dtype)
                den = a * a + zero * zero
                w.real = (x.real * a + x.imag * zero) / den
                w.imag = (x.imag * a - x.real * zero) / den
        zero = a == 0
        w[zero] = 0
        dout = complex_(g, const(g, np.zeros(g.data.shape, g.data.dtype)))
        dx = M.multiply(dout, const(g, w, w.dtype))
        if not zero.any():
            return dx
        from ...engine.ops.search import where   # (x == 0: +0, not the product's -0)
        return where(const(g, zero, np.dtype(bool)), const(g, np.zeros(x.shape, x.dtype), x.dtype),
                     dx)
    op.vjp = vjp
    return op


_ABS = _abs_op()


def _abs(x):
    from ...engine.registry import apply
    return apply(_ABS, (x,))


abs = _unary("abs", _abs, "keep")  # noqa: A001 - Paddle's name


def neg(x, name=None):
    """``-x``: Paddle's ``scale(x, -1)`` (bool tensors are unchanged)."""
    x = as_tensor(x)
    return M.scale(x, -1.0, 0.0)


def stanh(x, scale_a=0.67, scale_b=1.7159, name=None):
    x = as_tensor(x)
    if x.data.dtype.kind not in "f":
        raise _kernel_error("stanh", x.data.dtype)
    return M.stanh(x, float(scale_a), float(scale_b))


Tensor  # re-exported for type checkers
