"""Elementwise ops: arithmetic, powers, exponentials, trigonometry, rounding, activations.

Each entry: the numpy forward, then its VJP written with the functions of this package, so the
VJP is itself differentiable (``create_graph=True``). Forwards compute float32 the way Paddle's
CPU kernels do (``_kernels``: Eigen packets, the C library, SLEEF); VJPs follow Paddle's backward
functors term by term and in the same order (``dx = dout * out * (1 - out)`` for sigmoid is
``(dout * out) * (1 - out)``), because float32 rounding depends on it.

Op names are Paddle's (``elementwise_pow``, ``scale``, ``div_scale``), so the backward node of
an op is named as Paddle names it (``ElementwisePowGradNode``).
"""
from __future__ import annotations

import numpy as np

from .. import cpu
from ..registry import STORAGE, apply, plain_array, plain_result, register
from . import _eigen_pow64
from . import _kernels as K
from ._util import FP, array_like, const, kept_array, one_element, quiet, scalar_of

_err = dict(divide="ignore", invalid="ignore", over="ignore", under="ignore")


def _safe(fn):
    if getattr(fn, "quiet", False):  # already silences numpy itself
        return fn

    def wrapped(*a, **k):
        if FP.on:  # the whole run is already quiet (see _util.quiet_fp)
            return fn(*a, **k)
        with quiet(**_err):
            return fn(*a, **k)
    wrapped.__name__ = getattr(fn, "__name__", "fwd")
    return wrapped


def _keep(dtype, out):
    """numpy result -> the operands' dtype (integer kernels stay integer, wrapping like C)."""
    out = np.asarray(out)
    return out if out.dtype == dtype else out.astype(dtype)


# ============================================================== binary arithmetic
def binary(name, fwd, vjp, legacy, **kw):
    return register(name, _safe(fwd), vjp, broadcast=True, legacy_name=legacy, **kw)


def _naive_complex_quotient(x, y):
    """x / y of complex values as (ac + bd) / (cc + dd) + i (bc - ad) / (cc + dd), each step
    rounded (Paddle 2.6.2's complex operator/: 3,000 of 3,000 complex64 and complex128 quotients
    equal; numpy's scaled quotient 16%)."""
    dt = np.result_type(x, y)
    x, y = np.asarray(x, dt), np.asarray(y, dt)
    a, b, c, d = x.real, x.imag, y.real, y.imag
    den = c * c + d * d
    out = np.empty(np.broadcast_shapes(x.shape, y.shape), dt)
    out.real = (a * c + b * d) / den
    out.imag = (b * c - a * d) / den
    return out


def _divide_fwd(x, y, vml=False, complex_naive=False):
    """True division in the operands' dtype: integers truncate toward zero (Paddle's int kernel),
    bool / bool stays bool. ``vml``: Paddle's forward divide kernel, which hands same-shape float32
    operands to MKL's vsDiv (not correctly rounded on Intel AVX-512: an rcp14 reciprocal and one
    FMA step; on AMD, Zen 4 included, real Paddle 3.3.1 and 2.6.2 divide exactly: 100,000 of
    100,000 quotients measured; an AVX2 CPU has no rcp14); backward functors divide exactly."""
    if x.dtype.kind == "b":
        return np.logical_and(x, y)  # True / True is True; Paddle faults on / False
    if x.dtype.kind in "iu":
        q = np.abs(x) // np.where(y == 0, 1, np.abs(y))
        return _keep(x.dtype, np.where((x < 0) != (y < 0), -q, q))
    if vml and x.dtype == np.float32 and x.shape == y.shape and cpu.cpu_class() == "intel-avx512":
        return K.mkl_div(x, y)
    if (vml and x.dtype == np.float64 and y.dtype == np.float64 and x.shape == y.shape
            and cpu.cpu_class() == "intel-avx512" and cpu.detected() == "intel-avx512"):
        out = K.mkl_div64(x, y)       # (float64: MKL's own vmdDiv, which only this CPU runs)
        if out is not None:
            return out
    if complex_naive and (x.dtype.kind == "c" or y.dtype.kind == "c"):
        return _naive_complex_quotient(x, y)
    return _keep(np.result_type(x, y), np.divide(x, y))


def _divide_vjp(n, g):
    """dx = dout / y, dy = -dout * out / y (complex: conjugated by the HOLOMORPHIC wrapper);
    with ``complex_naive`` (Paddle 2.x) the complex quotients naive and dy = -(dout * conj(out /
    y)) (real 2.6.2: 99.9% of 3,000 equal, the rest NaN/inf payloads; was 14%)."""
    naive = n.attrs.get("complex_naive", False)
    y = n.inputs[1]
    if naive and g.data.dtype.kind == "c":  # 2.x's DivGradDY: -(dout * conj(out / y))
        return (divide(g, y, complex_naive=True),
                neg(multiply(g, divide(n.out(), y, complex_naive=True))))
    return divide(g, y), divide(multiply(neg(g), n.out()), y)


def _elementwise_pow_fwd(x, y, grad="dout_first", impl="libm", log=None):
    """``std::pow`` elementwise: powf for float32, repeated multiplication for integers
    (0 ** negative is 0)."""
    if x.dtype.kind in "iu":
        neg = y < 0
        out = np.power(x, np.where(neg, 0, y))
        out = np.where(neg, np.where(np.abs(x) == 1, np.power(x, np.abs(y) % 2 + 0), 0), out)
        return _keep(x.dtype, out)
    if x.dtype == np.float32:
        if impl == "sleef" and x.shape == y.shape:  # the same-shape path is SLEEF's vector pow
            return K.sleef_pow(x, y)
        return _powf(x, y)
    if x.dtype == np.float64:
        if impl == "sleef" and x.shape == y.shape:  # SLEEF's Sleef_powd1_u10 (Paddle 3.x)
            from ._sleef_trig64 import powd_u10

            return powd_u10(x, y)
        x, y = np.broadcast_arrays(x, y)
        return K.pow64(np.array(x), np.array(y))
    if log == "libm" and (x.dtype.kind == "c" or np.asarray(y).dtype.kind == "c"):
        return _complex_pow(x, y)   # (Paddle's kernel, std::pow; torch's VJPs: numpy's power)
    return np.power(x, y)


def _complex_pow(x, y):
    """``std::pow`` of complex values as Paddle's kernels reach it: ``exp(y * log(x))``, the
    product as the C++ complex multiply (each product rounded), integer exponents too (numpy's
    power multiplies those out: 41 of 500 complex64 squares equal real Paddle 3.3.1; this: 500
    of 500 squares, x ** 2.5 and x ** complex tensors)."""
    dt = np.result_type(x, y)
    if dt.kind != "c":
        dt = np.dtype(np.complex64) if dt == np.float32 else np.dtype(np.complex128)
    with quiet(all="ignore"):
        return np.exp(_multiply_fwd(np.asarray(y, dt), np.log(np.asarray(x, dt)))).astype(dt)


def _powf(x, y):
    x, y = np.broadcast_arrays(x, y)
    return K.powf(np.array(x), np.array(y))


def _pow_vjp(n, g):
    """Paddle 2.x: dx = (dout * y) * pow(x, y - 1), dy = (dout * log(x)) * pow(x, y).
    With ``grad="pow_first"`` (3.x): dx = dout * (y * pow(x, y - 1)), 0 where y == 0;
    dy = dout * (log(x) * pow(x, y)), 0 where x == 0 and y >= 0."""
    x, y = n.inputs
    lg = _log_libm(x) if n.attrs.get("log") == "libm" else log(x)
    lib = n.attrs.get("log")   # (Paddle's kernel's own pow inside its gradient)
    if n.attrs.get("grad") != "pow_first":
        dx = multiply(multiply(g, y), pow(x, scale(y, 1.0, -1.0), log=lib))
        dy = multiply(multiply(g, lg), pow(x, y, log=lib))
        return dx, dy
    dx = multiply(g, multiply(y, pow(x, scale(y, 1.0, -1.0), log=lib)))
    dy = multiply(g, multiply(lg, pow(x, y, log=lib)))
    keep_x = np.broadcast_to(y.data != 0, dx.data.shape)
    keep_y = np.broadcast_to(~((x.data == 0) & (y.data >= 0)), dy.data.shape)
    if not keep_x.all():
        dx = scale(multiply(dx, const(dx, keep_x)), 1.0, 0.0)
    if not keep_y.all():
        dy = scale(multiply(dy, const(dy, keep_y)), 1.0, 0.0)
    return dx, dy


def _maxmin_fwd(fn, cmp):
    def fwd(x, y, ties="y", nan="propagate"):
        if nan == "compare":  # x > y ? x : y (a NaN in x loses, in y wins)
            return np.where(cmp(x, y), x, y)
        return fn(x, y)
    return fwd


def _maxmin_vjp(n, g):
    """maximum: dx = dout * (x > y), dy = dout * (x <= y): ties send the gradient to y, or with
    ``ties="split"`` (Paddle 3.x) half of it to each; minimum likewise with <."""
    x, y = n.inputs
    if n.op.name == "maximum":
        mask = x.data > y.data
    else:
        mask = x.data < y.data
    if n.attrs.get("ties") == "split":
        tie = x.data == y.data
        wx = np.where(tie, 0.5, mask).astype(g.data.dtype)
        wy = np.where(tie, 0.5, ~mask).astype(g.data.dtype)
        return multiply(g, const(g, wx)), multiply(g, const(g, wy))
    return multiply(g, const(g, mask)), multiply(g, const(g, ~mask))


def _fmaxmin_vjp(n, g):
    """fmax: dx = dout * (x >= y or y is nan); fmin with <=; dy gets the rest."""
    x, y = n.inputs
    if n.op.name == "fmax":
        mask = (x.data >= y.data) | np.isnan(y.data)
    else:
        mask = (x.data <= y.data) | np.isnan(y.data)
    return multiply(g, const(g, mask)), multiply(g, const(g, ~mask))


def _floor_divide_fwd(x, y):
    """Floor division, Python's rule (numpy's algorithm is Paddle's: fmod, then adjust)."""
    if x.dtype.kind in "iu" and (y == 0).any():
        raise ZeroDivisionError("(InvalidArgument) Integer division by zero in floor_divide")
    return _keep(x.dtype, np.floor_divide(x, y))


def _remainder_fwd(x, y):
    """The remainder takes the divisor's sign (Python's %). Floats: Paddle's
    ``r = fmod(x, y); if r != 0 and sign(r) != sign(y): r += y`` (a zero keeps fmod's sign)."""
    if x.dtype.kind in "iu" and (y == 0).any():
        raise ZeroDivisionError("(InvalidArgument) Integer division by zero in remainder")
    if x.dtype.kind == "f":
        r = np.fmod(x, y)
        fix = (r != 0) & ((r < 0) != (y < 0))
        return _keep(x.dtype, np.where(fix, r + y, r))
    return _keep(x.dtype, np.remainder(x, y))


def _remainder_vjp(n, g):
    """dx = dout; dy = -dout * floor_divide(x, y)."""
    x, y = n.inputs
    q = const(g, np.floor_divide(x.data, y.data))
    return g, multiply(neg(g), q)


ADD = binary("add", np.add, lambda n, g: (g, g), "AddBackward",
             examples=[([(2, 3), (2, 3)], {}), ([(2, 3), (3,)], {}), ([(), (2, 2)], {})], saves_inputs=False,
             saves_output=False)
SUBTRACT = binary("subtract", np.subtract, lambda n, g: (g, neg(g)), "SubBackward",
                  examples=[([(2, 3), (2, 3)], {}), ([(2, 1), (1, 3)], {})], saves_inputs=False,
                  saves_output=False)
def _multiply_fwd(x, y):
    """x * y; complex values as the C++ kernels multiply them, (ac - bd) + (ad + bc)i with each
    product rounded (real Paddle 3.3.1/2.6.2 and torch 2.13 here: 4,000 of 4,000 complex64 and
    complex128 products; numpy's SIMD loop contracts them with FMAs: 56% equal)."""
    if x.dtype.kind != "c" and y.dtype.kind != "c":
        return np.multiply(x, y)
    dt = np.result_type(x, y)
    x, y = np.asarray(x, dt), np.asarray(y, dt)
    out = np.empty(np.broadcast_shapes(x.shape, y.shape), dt)
    xr, xi, yr, yi = x.real, x.imag, y.real, y.imag
    out.real = xr * yr - xi * yi
    out.imag = xr * yi + xi * yr
    return out


MULTIPLY = binary(
    "multiply", _multiply_fwd,
    lambda n, g: (multiply(g, n.inputs[1]), multiply(g, n.inputs[0])),
    "MulBackward",
    examples=[([(2, 3), (2, 3)], {}), ([(2, 3), (3,)], {}), ([(), (3,)], {})])
DIVIDE = binary(
    "divide", _divide_fwd, _divide_vjp,
    "DivBackward", domain="away0",
    examples=[([(2, 3), (2, 3)], {}), ([(2, 3), (3,)], {})])
POW = binary("elementwise_pow", _elementwise_pow_fwd, _pow_vjp, "PowBackward", domain="positive",
             examples=[([(3,), (3,)], {}), ([(2, 3), (3,)], {})])
MAXIMUM = binary("maximum", _maxmin_fwd(np.maximum, np.greater), _maxmin_vjp, "MaximumBackward",
                 domain="distinct", examples=[([(3,), (3,)], {}), ([(2, 3), (3,)], {})])
MINIMUM = binary("minimum", _maxmin_fwd(np.minimum, np.less), _maxmin_vjp, "MinimumBackward",
                 domain="distinct", examples=[([(3,), (3,)], {}), ([(2, 3), (3,)], {})])
FMAX = binary("fmax", np.fmax, _fmaxmin_vjp, "FmaxBackward", domain="distinct",
              examples=[([(3,), (3,)], {}), ([(2, 3), (3,)], {})])
FMIN = binary("fmin", np.fmin, _fmaxmin_vjp, "FminBackward", domain="distinct",
              examples=[([(3,), (3,)], {}), ([(2, 3), (3,)], {})])
FLOOR_DIVIDE = binary("floor_divide", _floor_divide_fwd, None, "FloorDivideBackward",
                      check=False)
REMAINDER = binary("remainder", _remainder_fwd, _remainder_vjp, "RemainderBackward",
                   domain="positive", check=False,
                   examples=[([(3,), (3,)], {})])


def add(x, y):
    return apply(ADD, (x, y))


def subtract(x, y):
    return apply(SUBTRACT, (x, y))


def multiply(x, y):
    return apply(MULTIPLY, (x, y))


def times(g, c):
    """``g * c`` for a python number ``c`` cast to g's dtype: a plain multiply, as Paddle's grad
    kernels write ``dout * static_cast<T>(c)``. It keeps the sign of a zero, where ``scale``
    (``c * g + 0``) would turn -0. into 0."""
    return multiply(g, const(g, c))


def divide(x, y, vml=False, complex_naive=False):
    """x / y; ``vml=True`` for Paddle's forward kernel (see ``_divide_fwd``); ``complex_naive``
    for Paddle 2.x's complex quotient (``_naive_complex_quotient``)."""
    attrs = {"vml": True} if vml else None
    if complex_naive:
        attrs = dict(attrs or {}, complex_naive=True)
    return apply(DIVIDE, (x, y), attrs)


def _log_libm(x):
    """log whose float64 values are the C library's ``log`` (Paddle's elementwise_pow_grad
    calls std::log: dy of float64 x ** y had 1-2 values in 1,000 off with numpy's log)."""
    global _LOG_LIBM
    if _LOG_LIBM is None:
        import copy

        op = copy.copy(LOG)
        base, log64 = LOG.forward, K.libm64("log", np.log)

        def forward(a):
            if a.dtype == np.float64:
                with quiet(all="ignore"):
                    return log64(a)
            return base(a)
        op.forward = forward
        _LOG_LIBM = op
    return apply(_LOG_LIBM, (x,))


_LOG_LIBM = None


def pow(x, y, grad="dout_first", impl="libm", log=None):  # noqa: A001 - Paddle's name
    """x ** y elementwise; ``grad`` picks Paddle's backward formula (see ``_pow_vjp``), ``impl``
    the float32 kernel for same-shape operands: "libm" (glibc powf, 2.x) or "sleef" (SLEEF
    powf_u10, 3.x); broadcasting operands always use powf."""
    attrs = {}
    if grad != "dout_first":
        attrs["grad"] = grad
    if impl != "libm":
        attrs["impl"] = impl
    if log == "libm":   # dy's log(x): the C library's for float64 (Paddle's kernel)
        attrs["log"] = "libm"
    return apply(POW, (x, y), attrs)


def _maxmin_attrs(ties, nan):
    attrs = {}
    if ties != "y":
        attrs["ties"] = ties
    if nan != "propagate":
        attrs["nan"] = nan
    return attrs


def maximum(x, y, ties="y", nan="propagate"):
    """ties: "y" (2.x: the gradient of a tie goes to y) | "split"; nan: "propagate" (3.x) |
    "compare" (2.x: ``x > y ? x : y``)."""
    return apply(MAXIMUM, (x, y), _maxmin_attrs(ties, nan))


def minimum(x, y, ties="y", nan="propagate"):
    return apply(MINIMUM, (x, y), _maxmin_attrs(ties, nan))


def fmax(x, y):
    return apply(FMAX, (x, y))


def fmin(x, y):
    return apply(FMIN, (x, y))


def floor_divide(x, y):
    return apply(FLOOR_DIVIDE, (x, y))


def remainder(x, y):
    return apply(REMAINDER, (x, y))


def _add_n_fwd(*xs):
    """Paddle's add_n kernel: the first two added, then each next one onto the running sum."""
    out = np.array(xs[0]) if len(xs) == 1 else np.add(xs[0], xs[1])
    for x in xs[2:]:
        np.add(out, x, out=out)
    return out


ADD_N = register("add_n", _add_n_fwd, lambda n, g: (g,) * len(n.in_meta),
                 legacy_name="AddNBackward", node_name="AddNGradNodeFinal",
                 examples=[([(2, 3), (2, 3), (2, 3)], {}), ([(3,)], {})], saves_inputs=False,
                 saves_output=False)


def add_n(xs):
    """Sum of a list of same-shape, same-dtype tensors, left to right, as ONE node (Paddle's
    AddNGradNodeFinal: its inputs' gradients leave in input order, so a leaf used in several
    of them accumulates them in that order). A dtype kept in another's bits (bfloat16) adds
    pair by pair, each sum rounded."""
    if STORAGE and xs[0].data.dtype in STORAGE:
        out = xs[0]
        for t in xs[1:]:
            out = add(out, t)
        return out
    return apply(ADD_N, tuple(xs))


# ============================================================== scale, div_scale, cast
def _c_int(v, dt):
    """``static_cast<T>(double)`` on x86: truncation; out of range gives the "integer
    indefinite" value (INT_MIN of the 32- or 64-bit conversion), then narrowing wraps."""
    wide = np.int64 if dt.itemsize == 8 else np.int32
    lo, hi = np.iinfo(wide).min, np.iinfo(wide).max
    v = float(v)
    iv = int(v) if np.isfinite(v) and lo <= int(v) <= hi else lo
    return np.asarray(iv, wide).astype(dt)


def _f16(v):
    """float32 -> float16 as Paddle's CPU float16 type converts (without F16C): toward zero;
    a magnitude past 65504 is inf (its bit test ``v > maxN``, not a rounding)."""
    v = np.asarray(v, np.float32)
    with np.errstate(over="ignore"):
        r = v.astype(np.float16)
    away = np.abs(r.astype(np.float32)) > np.abs(v)
    r = np.where(away & np.isfinite(v), np.nextafter(r, np.float16(0)), r)
    return np.where(np.abs(v) > 65504.0, np.copysign(np.float16(np.inf), v), r).astype(np.float16)


def _f16_arith(x, s, b, bias_after_scale, nearest=False):
    """Eigen's half arithmetic: each operation in float32, then converted back (toward zero,
    or to nearest with ``nearest``: Paddle 3.3.1's conversion)."""
    to16 = _f16_nearest if nearest else _f16
    s, b, x = np.float32(to16(s)), np.float32(to16(b)), x.astype(np.float32)
    if bias_after_scale:
        return to16(np.float32(to16(s * x)) + b)
    return to16(s * np.float32(to16(x + b)))


def _f16_nearest(v):
    return np.asarray(v).astype(np.float16)


_F32_F64 = frozenset((np.dtype(np.float32), np.dtype(np.float64)))


def _scale_fwd(x, scale=1.0, bias=0.0, bias_after_scale=True, f16="zero"):
    """``scale * x + bias`` (or ``scale * (x + bias)``) with scale and bias cast to x's dtype,
    as Paddle's kernel does (an int tensor's scale of 2.5 is 2; bools compute in int).
    ``f16``: how float16 results round, "zero" (Paddle 2.x) or "nearest" (3.x)."""
    dt = x.dtype
    if bias_after_scale and dt in _F32_F64:
        # python floats are cast to x's dtype by numpy (NEP 50): float32(scale) * x + float32(bias)
        if x.size == 1 and type(scale) is float and type(bias) is float:
            return array_like(x, scalar_of(x) * scale + bias)  # the same on a numpy scalar
        out = x * scale + bias  # the +bias also turns -0. into 0. as the kernel does
        return out if out.dtype == dt else out.astype(dt)
    if dt.kind == "b":
        s, b = int(bool(scale)), int(bool(bias))
        xi = x.astype(np.int64)
        out = s * xi + b if bias_after_scale else s * (xi + b)
        return out != 0
    if dt == np.float16:
        return _f16_arith(x, scale, bias, bias_after_scale, f16 == "nearest")
    if dt.kind in "iu":
        s, b = _c_int(scale, dt), _c_int(bias, dt)
    else:
        s, b = np.asarray(scale, dt), np.asarray(bias, dt)
    with quiet(**_err):
        out = s * x + b if bias_after_scale else s * (x + b)
    return _keep(dt, out)


def _scale_vjp(n, g):
    f16 = n.attrs.get("f16")
    if f16 is None:
        s = n.attrs.get("scale", 1.0)
        ga = plain_array(g)
        if ga is not None:  # (nothing to record: scale(g, s)'s forward without apply's tests)
            return plain_result(type(g), _scale_fwd(ga, s, 0.0))
        return scale(g, s)
    return apply(SCALE, (g,), {"scale": n.attrs.get("scale", 1.0), "bias": 0.0, "f16": f16})


SCALE = register("scale", _scale_fwd, _scale_vjp,
                 legacy_name="ScaleBackward",
                 examples=[([(2, 3)], {"scale": 2.5, "bias": 1.0}),
                           ([(3,)], {"scale": -0.5, "bias": 2.0, "bias_after_scale": False})], saves_inputs=False)


def scale(x, scale=1.0, bias=0.0, bias_after_scale=True):
    if bias_after_scale:
        return apply(SCALE, (x,), {"scale": scale, "bias": bias})
    return apply(SCALE, (x,), {"scale": scale, "bias": bias, "bias_after_scale": False})


def _div_scale_fwd(x, divisor):
    if x.dtype == np.float16:  # computed in float32, rounded to nearest (measured on 3.x)
        return (x.astype(np.float32) / np.float32(np.float16(divisor))).astype(np.float16)
    return _keep(x.dtype, np.divide(x, np.asarray(divisor, x.dtype)))


DIV_SCALE = register("div_scale", _safe(_div_scale_fwd),
                     lambda n, g: div_scale(g, n.attrs["divisor"]),
                     legacy_name="ScaleBackward",
                     examples=[([(2, 3)], {"divisor": 0.3}), ([(3,)], {"divisor": -7.0})])


def div_scale(x, divisor):
    """``x / c`` for a python number c, computed as x / float32(c) (Paddle 3.x)."""
    return apply(DIV_SCALE, (x,), {"divisor": divisor})


def _cast_vjp(n, g):
    src = n.in_meta[0][1]
    return cast(g, src) if src.kind in "fc" else None


def _cast_fwd(x, dtype, f16="nearest"):
    """numpy's astype; complex to real keeps the real part (as Paddle's cast kernel).
    ``f16="zero"``: a number cast to float16 goes through float32 and then toward zero, past
    65504 to inf (Paddle 2.x's CPU float16 type, ``_f16``)."""
    if x.dtype.kind == "c" and np.dtype(dtype).kind != "c":
        x = np.real(x)
    if f16 == "zero" and np.dtype(dtype) == np.float16 and x.dtype.kind in "fiu" \
            and x.dtype != np.float16:
        return _f16(x)
    return x.astype(dtype)


CAST = register("cast", _cast_fwd, _cast_vjp,
                legacy_name="CastBackward", check=False, saves_inputs=False, saves_output=False)


def cast(x, dtype):
    dtype = np.dtype(dtype)
    if x.data.dtype == dtype:
        return x
    if dtype in STORAGE:  # into a dialect's stored format: its hook converts
        return STORAGE[dtype].apply(CAST, (x,), {"dtype": dtype})
    return apply(CAST, (x,), {"dtype": dtype})


# ============================================================== unary
def unary(name, fwd, vjp, legacy, domain="real", **kw):
    examples = kw.pop("examples", [([(2, 3)], {}), ([()], {})])
    return register(name, _safe(fwd), vjp, legacy_name=legacy, domain=domain,
                    examples=examples, **kw)


_TWO_OVER_SQRT_PI = 1.1283791670955126  # M_2_SQRTPI


def _one_minus_sq(t):
    """1 - t*t, rounded as Paddle's ``1 - out * out``."""
    return scale(multiply(t, t), -1.0, 1.0)


def _zero_times_dout(n, g):
    """floor/ceil/round: the gradient is ``0 * dout`` (-0 where dout is negative)."""
    return multiply(g, const(g, 0.0))


def _zeros(n, g):
    """sign/trunc: the gradient is +0 everywhere."""
    return const(g, np.zeros(g.data.shape, g.data.dtype))


def _float_fwd(kernel):
    """A float kernel; integer inputs compute in float32 (Paddle's ``cast<U>`` in the functor).
    It silences numpy itself (as ``_safe`` would, one call less for every unary op)."""
    def fwd(x):
        if x.dtype.kind not in "fc":
            x = x.astype(np.float32)
        if FP.on:
            return kernel(x)
        with quiet(**_err):
            return kernel(x)
    fwd.__name__ = getattr(kernel, "__name__", "fwd")
    fwd.quiet = True
    return fwd


def _round_fwd(x, half_even=True):
    """rint (halves to even) or std::round (halves away from zero)."""
    if x.dtype.kind in "iub":
        return x.copy()
    if half_even:
        return np.rint(x)
    t = np.trunc(x)
    return np.where(np.abs(x - t) >= 0.5, t + np.sign(x), t).astype(x.dtype)


def _int_identity(fn):
    def fwd(x):
        return x.copy() if x.dtype.kind in "iu" else fn(x)
    return fwd


def _abs_vjp(n, g):
    """dx = dout * (x / |x|), 0 where x == 0."""
    x = n.inputs[0]
    sgn = np.where(x.data == 0, 0, np.sign(x.data)).astype(x.data.dtype)
    if sgn.dtype.kind == "c":  # complex x: dx = dout * x / |x| (a complex gradient)
        from .complex import complex_

        return multiply(complex_(g, const(g, np.zeros(g.data.shape, g.data.dtype))),
                        const(g, sgn, sgn.dtype))
    return apply(ABS_GRAD, (const(g, x.data), g))


def _abs_grad_fwd(x, dout):
    """Paddle's abs_grad: ``dout * (x / |x|)``, 0 where x == 0 (x / |x| is exactly +-1)."""
    sgn = np.where(x == 0, 0, np.sign(x)).astype(x.dtype)
    return MULTIPLY.forward(dout, sgn)


def _abs_grad_vjp(n, gg):
    """AbsGradGradFunctor: d/d(dout) = ddx * x / |x| (0 where x == 0); x takes none."""
    from .search import where

    x = n.inputs[0].data
    zero = x == 0
    num = const(gg, np.where(zero, 1, x).astype(x.dtype))
    den = const(gg, np.where(zero, 1, np.abs(x)).astype(x.dtype))
    value = divide(multiply(gg, num), den)
    return None, where(const(gg, zero, np.dtype(bool)), const(gg, np.zeros(x.shape, x.dtype)),
                       value)


ABS_GRAD = register("abs_grad", _safe(_abs_grad_fwd), _abs_grad_vjp, legacy_name="AbsGradBackward",
                    diff_inputs=(1,), domain="away0", examples=[([(2, 3), (2, 3)], {})])


def _sign_fwd(x):
    return _keep(x.dtype, np.sign(x))


NEG = unary("neg", np.negative, lambda n, g: neg(g), "NegBackward", saves_inputs=False)
def _abs_fwd(x):
    """|x|; of a complex value the correctly rounded hypot(re, im), as real Paddle 3.3.1 / 2.6.2
    and torch 2.13 compute it (numpy's complex abs differs in the last bit: 398 of 1000 random
    complex64 values, 327 of 1000 complex128; hypot: 0, except 6 complex128 ones for torch)."""
    if x.dtype.kind == "c":
        return np.hypot(x.real, x.imag)
    return np.abs(x)


ABS = unary("abs", _abs_fwd, _abs_vjp, "AbsBackward", domain="away0")
EXP = unary("exp", _float_fwd(K.exp), lambda n, g: multiply(g, n.out()), "ExpBackward", saves_inputs=False)
EXPM1 = unary("expm1", _float_fwd(K.expm1), lambda n, g: add(multiply(g, n.out()), g),
              "Expm1Backward", saves_inputs=False)
LOG = unary("log", _float_fwd(K.log), lambda n, g: multiply(g, reciprocal(n.inputs[0])),
            "LogBackward", "positive")
def _log_base_vjp(ln_base):
    """dx = dout / (x * static_cast<T>(log(base))): the constant in x's dtype (a float64 x's is
    the double log(2), measured on Paddle 3.3.1 and 2.6.2; was float32's for every dtype)."""
    def vjp(n, g):
        x = n.inputs[0]
        c = n.attrs.get("ln_base", ln_base)
        c = c if x.data.dtype == np.float64 else float(np.float32(c))
        return divide(g, scale(x, c))
    return vjp


LOG2 = unary("log2", _float_fwd(K.log2), _log_base_vjp(float(np.log(2.0))),
             "Log2Backward", "positive")
_LOG10_FWD = _float_fwd(K.log10)
LOG10 = unary("log10", lambda x, ln_base=None: _LOG10_FWD(x), _log_base_vjp(2.3025850929940456),
              "Log10Backward", "positive")
LOG1P = unary("log1p", _float_fwd(K.log1p),
              lambda n, g: multiply(g, reciprocal(scale(n.inputs[0], 1.0, 1.0))),
              "Log1pBackward", "positive")
def _sqrt_grad_fwd(out, dout):
    """Paddle's sqrt_grad kernel: ``dout * 0.5 / out``."""
    return DIVIDE.forward(MULTIPLY.forward(dout, np.asarray(0.5, dout.dtype)), out)


def _sqrt_grad_vjp(n, gg):
    """SqrtGradGradFunctor (dx: this op's output): d/d(out) = dx * ddx * -1 / out,
    d/d(dout) = ddx * 0.5 / out."""
    out = n.inputs[0]
    return (divide(times(multiply(n.out(), gg), -1.0), out), divide(times(gg, 0.5), out))


def _square_grad_fwd(x, dout):
    """Paddle's square_grad kernel: ``dout * 2 * x``."""
    return MULTIPLY.forward(MULTIPLY.forward(dout, np.asarray(2, dout.dtype)), x)


def _square_grad_vjp(n, gg):
    """SquareGradGradFunctor: d/dx = ddx * 2 * dout, d/d(dout) = ddx * 2 * x."""
    x, dout = n.inputs
    return multiply(times(gg, 2.0), dout), multiply(times(gg, 2.0), x)


SQRT_GRAD = register("sqrt_grad", _safe(_sqrt_grad_fwd), _sqrt_grad_vjp,
                     legacy_name="SqrtGradBackward", domain="positive",
                     examples=[([(2, 3), (2, 3)], {})])
SQUARE_GRAD = register("square_grad", _safe(_square_grad_fwd), _square_grad_vjp,
                       legacy_name="SquareGradBackward", examples=[([(2, 3), (2, 3)], {})])
SQRT = unary("sqrt", _float_fwd(K.sqrt), lambda n, g: apply(SQRT_GRAD, (n.out(), g)),
             "SqrtBackward", "positive", saves_inputs=False)
def _rsqrt_grad_fwd(out, dout):
    """Paddle's rsqrt_grad kernel: ``-0.5 * dout * out * out * out``."""
    mul = MULTIPLY.forward
    return mul(mul(mul(mul(dout, np.asarray(-0.5, dout.dtype)), out), out), out)


def _rsqrt_grad_vjp(n, gg):
    """RsqrtGradGradFunctor (dx: this op's output): d/d(out) = (3 / out) * dx * ddx,
    d/d(dout) = ddx * -0.5 * out * out * out."""
    out = n.inputs[0]
    three = divide(const(out, np.full(out.data.shape, 3.0, out.data.dtype)), out)
    return (multiply(multiply(three, n.out()), gg),
            multiply(multiply(multiply(times(gg, -0.5), out), out), out))


RSQRT_GRAD = register("rsqrt_grad", _safe(_rsqrt_grad_fwd), _rsqrt_grad_vjp,
                      legacy_name="RsqrtGradBackward", domain="positive",
                      examples=[([(2, 3), (2, 3)], {})])
RSQRT = unary("rsqrt", _float_fwd(K.rsqrt), lambda n, g: apply(RSQRT_GRAD, (n.out(), g)),
              "RsqrtBackward", "positive", saves_inputs=False)
SQUARE = unary("square", lambda x: x * x,
               lambda n, g: apply(SQUARE_GRAD, (n.inputs[0], g)), "SquareBackward")
RECIPROCAL = unary("reciprocal", _float_fwd(lambda x: np.ones((), x.dtype) / x),
                   lambda n, g: multiply(multiply(neg(g), n.out()), n.out()),
                   "ReciprocalBackward", "away0")
def _tanh_grad_fwd(out, dout):
    """Paddle's tanh_grad kernel: ``dout * (1 - out * out)`` in the tensors' dtype."""
    return dout * (1 - out * out)


_tanh_grad_fwd = one_element(_tanh_grad_fwd, _tanh_grad_fwd)


def _tanh_grad_vjp(n, gg):
    """Second order as Paddle's TanhGradGradFunctor: d/d(out) = -1 * dout * 2 * out * gg
    (products: a zero keeps its sign, where a scale's + 0 made -0. into 0.), d/d(dout) =
    (1 - out*out) * gg."""
    from .tanh_grads import tanh_double_grad   # (one op: its VJP is the triple functor)

    out, dout = n.inputs
    return tanh_double_grad(out, gg, dout)


TANH_GRAD = register("tanh_grad", _safe(_tanh_grad_fwd), _tanh_grad_vjp,
                     legacy_name="TanhGradBackward", domain="unit",
                     examples=[([(2, 3), (2, 3)], {})])
def _tanh_vjp(n, g):
    ga = plain_array(g)
    out = n.out_data
    if ga is not None and out is not None and out[0].dtype is ga.dtype:
        # (nothing to record: tanh_grad's forward on the arrays, no tensor of the output made)
        cls = n.inputs[0]._result_type if n.inputs is not None else n.result_type
        return plain_result(cls, TANH_GRAD.forward(out[0], ga))
    return apply(TANH_GRAD, (n.out(), g))


TANH = unary("tanh", _float_fwd(K.tanh), _tanh_vjp, "TanhBackward", saves_inputs=False)
SIGMOID = unary("sigmoid", _float_fwd(K.sigmoid),
                lambda n, g: sigmoid_grad(n.out(), g),
                "SigmoidBackward", saves_inputs=False)


def _sigmoid_grad_fwd(out, dout):
    """Paddle's sigmoid_grad: ``dout * out * (1 - out)``, left to right (multiply and scale's
    own kernels, so every dtype rounds as those ops do)."""
    return MULTIPLY.forward(MULTIPLY.forward(dout, out), SCALE.forward(out, -1.0, 1.0))


def _sigmoid_grad_vjp(n, G):
    """Paddle's sigmoid double grad: d out = ((1 - 2*out) * dout) * ddx, d dout = ((1 - out) *
    out) * ddx (its rounding, measured on 3.3.1)."""
    out, dout = n.inputs
    d_out = multiply(multiply(scale(out, -2.0, 1.0), dout), G)
    d_dout = multiply(multiply(scale(out, -1.0, 1.0), out), G)
    return d_out, d_dout


SIGMOID_GRAD = register("sigmoid_grad", _safe(_sigmoid_grad_fwd), _sigmoid_grad_vjp,
                        legacy_name="SigmoidGradBackward",
                        examples=[([(2, 3), (2, 3)], {})], domain="unit")


def sigmoid_grad(out, dout):
    return apply(SIGMOID_GRAD, (out, dout))


def _relu_grad_fwd(out, dout):
    """Paddle's relu_grad: ``dout * (out > 0)``, -0 where dout is negative and out is not
    positive. One pass: numpy multiplies by the boolean mask without a float copy of it."""
    return np.multiply(dout, out > 0)


RELU_GRAD = register("relu_grad", _safe(_relu_grad_fwd),
                     lambda n, G: (None, multiply(G, const(G, n.inputs[0].data > 0))),
                     diff_inputs=(1,), legacy_name="ReluGradBackward", domain="away0",
                     examples=[([(2, 3), (2, 3)], {})])

_ZERO_ROWS: dict = {}  # (n, dtype) -> a read-only row of zeros


def _zero_row(n, dtype):
    """A read-only row of ``n`` zeros (kept for the next call of the same size)."""
    return kept_array(_ZERO_ROWS, (n, dtype), lambda: np.zeros(n, dtype))


def _relu_fwd(x):
    """``max(x, 0)``. numpy 2.4's maximum against a scalar takes a slow loop (34 us for 256x256
    floats here); against a row of zeros broadcast down the rows, 16 us, the same bits (-0,
    nan payloads included, tested)."""
    if x.ndim and x.shape[-1] >= 16 and x.dtype.kind == "f":
        return np.maximum(x, _zero_row(x.shape[-1], x.dtype))
    return np.maximum(x, 0).astype(x.dtype, copy=False)


RELU = unary("relu", _relu_fwd,
             lambda n, g: apply(RELU_GRAD, (const(g, n.out_data[0]), g)), "ReluBackward",
             domain="away0", saves_inputs=False)


def _trig(name):
    return {("sin", "sleef"): K.sin_sleef, ("sin", "libm"): K.sin_libm,
            ("cos", "sleef"): K.cos_sleef, ("cos", "libm"): K.cos_libm}[name]


def _sin_fwd(x, impl="libm"):
    return _float_fwd(_trig(("sin", impl)))(x)


def _cos_fwd(x, impl="libm"):
    return _float_fwd(_trig(("cos", impl)))(x)


def _impl(n):
    return n.attrs.get("impl", "libm")


def _sin_grad_fwd(x, dout, impl="libm"):
    """Paddle's sin_grad kernel: ``dout * cos(x)``."""
    return MULTIPLY.forward(dout, _cos_fwd(x, impl))


def _sin_grad_vjp(n, gg):
    """SinDoubleGradFunctor: d/dx = -ddx * sin(x) * dout, d/d(dout) = ddx * cos(x)."""
    x, dout = n.inputs
    impl = _impl(n)
    return (multiply(multiply(neg(gg), sin(x, impl)), dout), multiply(gg, cos(x, impl)))


def _cos_grad_fwd(x, dout, impl="libm"):
    """Paddle's cos_grad kernel: ``-dout * sin(x)``."""
    return MULTIPLY.forward(np.negative(dout), _sin_fwd(x, impl))


def _cos_grad_vjp(n, gg):
    """CosDoubleGradFunctor: d/dx = -ddx * cos(x) * dout, d/d(dout) = -ddx * sin(x)."""
    x, dout = n.inputs
    impl = _impl(n)
    return (multiply(multiply(neg(gg), cos(x, impl)), dout), multiply(neg(gg), sin(x, impl)))


SIN_GRAD = register("sin_grad", _safe(_sin_grad_fwd), _sin_grad_vjp,
                    legacy_name="SinGradBackward", examples=[([(2, 3), (2, 3)], {})])
COS_GRAD = register("cos_grad", _safe(_cos_grad_fwd), _cos_grad_vjp,
                    legacy_name="CosGradBackward", examples=[([(2, 3), (2, 3)], {})])
SIN = unary("sin", _sin_fwd,
            lambda n, g: apply(SIN_GRAD, (n.inputs[0], g), {"impl": _impl(n)}), "SinBackward")
COS = unary("cos", _cos_fwd,
            lambda n, g: apply(COS_GRAD, (n.inputs[0], g), {"impl": _impl(n)}), "CosBackward")
TAN = unary("tan", lambda x, impl="libm": _float_fwd(K.tan)(x),
            lambda n, g: divide(g, square(cos(n.inputs[0], _impl(n)))), "TanBackward",
            domain="unit")
ASIN = unary("asin", _float_fwd(K.asin),
             lambda n, g: divide(g, sqrt(scale(square(n.inputs[0]), -1.0, 1.0))),
             "AsinBackward", "unit")
ACOS = unary("acos", _float_fwd(K.acos),
             lambda n, g: divide(neg(g), sqrt(scale(square(n.inputs[0]), -1.0, 1.0))),
             "AcosBackward", "unit")
ATAN = unary("atan", _float_fwd(K.atan),
             lambda n, g: divide(g, scale(square(n.inputs[0]), 1.0, 1.0)), "AtanBackward")
SINH = unary("sinh", _float_fwd(K.sinh), lambda n, g: multiply(g, cosh(n.inputs[0])),
             "SinhBackward")
COSH = unary("cosh", _float_fwd(K.cosh), lambda n, g: multiply(g, sinh(n.inputs[0])),
             "CoshBackward")
ERF = unary("erf", _float_fwd(K.erf),
            lambda n, g: multiply(times(g, _TWO_OVER_SQRT_PI), exp(neg(square(n.inputs[0])))),
            "ErfBackward")
FLOOR = unary("floor", _int_identity(np.floor), _zero_times_dout, "FloorBackward", check=False, saves_inputs=False)
CEIL = unary("ceil", _int_identity(np.ceil), _zero_times_dout, "CeilBackward", check=False, saves_inputs=False)
TRUNC = unary("trunc", _int_identity(np.trunc), _zeros, "TruncBackward", check=False, saves_inputs=False)
ROUND = unary("round", _round_fwd, _zero_times_dout, "RoundBackward", check=False, saves_inputs=False)
SIGN = unary("sign", _sign_fwd, _zeros, "SignBackward", check=False, saves_inputs=False)


def _stanh_fwd(x, scale_a=0.67, scale_b=1.7159):
    a, b = np.asarray(scale_a, x.dtype), np.asarray(scale_b, x.dtype)
    return b * K.tanh(a * x)


def _stanh_vjp(n, g):
    """dx = dout * a * b * (1 - tanh(a x)^2)."""
    a, b = n.attrs.get("scale_a", 0.67), n.attrs.get("scale_b", 1.7159)
    t = tanh(scale(n.inputs[0], a))
    return multiply(scale(scale(g, a), b), scale(multiply(t, t), -1.0, 1.0))


STANH = unary("stanh", _stanh_fwd, _stanh_vjp, "StanhBackward",
              examples=[([(2, 3)], {}), ([(3,)], {"scale_a": 0.5, "scale_b": 2.0})])


def _lerp_fwd(x, y, weight):
    """Paddle's lerp kernel: ``x + weight * (y - x)`` in the inputs' dtype."""
    return x + weight * (y - x)


def _lerp_vjp(n, g):
    """Paddle's lerp_grad: dx = dout * (1 - weight), dy = dout * weight; weight gets none."""
    w = n.inputs[2]
    return multiply(g, scale(w, -1.0, 1.0)), multiply(g, w), None


LERP = register("lerp", _safe(_lerp_fwd), _lerp_vjp, broadcast=True, legacy_name="LerpBackward",
                diff_inputs=(0, 1),
                examples=[([(2, 3), (2, 3), (2, 3)], {}), ([(2, 3), (3,), ()], {})])


def lerp(x, y, weight):
    """``x + weight * (y - x)`` (weight a Tensor of a broadcastable shape)."""
    return apply(LERP, (x, y, weight))


def _pow_scalar_fwd(x, factor, std_pow=False):
    """``x.pow(factor)``: Paddle casts the factor to x's dtype (an int tensor's 2.5 is 2)."""
    if x.dtype.kind in "iu":
        return _elementwise_pow_fwd(x, np.asarray(int(factor), x.dtype))
    f = np.asarray(factor, x.dtype)
    if x.dtype == np.float32:
        return K.eigen_pow(x, f)
    if x.dtype == np.float64:
        # the factor is the op's float32 attribute (real 3.3.1/2.6.2: x ** 1.7 is x ** 1.70000005)
        return _eigen_pow64.eigen_pow64(x, float(np.float32(factor)), K.pow64)
    if x.dtype.kind == "c" and std_pow:   # (Paddle's kernel: std::pow, exp(y * log(x)))
        return _complex_pow(x, f)
    return np.power(x, f)


def _factor_minus_one(f, dt):
    return float(np.asarray(f, dt) - np.asarray(1, dt)) if dt.kind == "f" else f - 1.0


def _pow_grad_fwd(x, dout, factor, std_pow=False):
    """Paddle's pow_grad kernel: dx = dout * factor * x.pow(factor - 1), with factor - 1
    computed in x's dtype (the products of the engine's multiply); ``std_pow``: complex powers
    as std::pow (Paddle's)."""
    mul = MULTIPLY.forward
    if x.dtype == np.float64:   # (the float32 attribute)
        factor = float(np.float32(factor))
    scaled = mul(dout, np.asarray(factor, dout.dtype))
    return mul(scaled, _pow_scalar_fwd(x, _factor_minus_one(factor, x.dtype), std_pow))


def _pow_grad_vjp(n, gg):
    """Paddle's PowDoubleGradKernel (factor as a float): d/dx = scale((dout * ddx) *
    x.pow(e - 2), e * (e - 1)) (zeros where e == 1), d/d(dout) = scale(ddx * x.pow(e - 1),
    e): the scale's + 0 makes a -0. product 0., as in Paddle."""
    x, dout = n.inputs
    e = np.float32(n.attrs["factor"])

    def times_pow(t, k):  # t * x.pow(k); x.pow(0) is 1 (no x in the graph: no 0 * inf there)
        return t if k == 0 else multiply(t, pow_scalar(x, float(k)))

    if e == 1:
        d_x = const(gg, np.zeros(x.data.shape, x.data.dtype))
    else:
        d_x = scale(times_pow(multiply(dout, gg), e - np.float32(2)),
                    float(e * (e - np.float32(1))))
    d_dout = scale(times_pow(gg, e - np.float32(1)), float(e))
    return d_x, d_dout


POW_GRAD = register("pow_grad", _safe(_pow_grad_fwd), _pow_grad_vjp, legacy_name="PowGradBackward",
                    examples=[([(2, 3), (2, 3)], {"factor": 3.0}),
                              ([(3,), (3,)], {"factor": 2.0})])


def _pow_scalar_vjp(n, g):
    """dx = dout * factor * x.pow(factor - 1) (Paddle's pow_grad op, whose gradient is its
    double-grad kernel's)."""
    if n.attrs.get("std_pow"):
        return apply(POW_GRAD, (n.inputs[0], g), {"factor": n.attrs["factor"], "std_pow": True})
    return apply(POW_GRAD, (n.inputs[0], g), {"factor": n.attrs["factor"]})


POW_SCALAR = unary("pow", _pow_scalar_fwd, _pow_scalar_vjp, "PowBackward",
                   examples=[([(2, 3)], {"factor": 2.0}), ([(3,)], {"factor": 3.0})])


def _clip_fwd(x, min=None, max=None, open_bounds=False):  # noqa: A002 - Paddle's names
    lo = -np.inf if min is None else min
    hi = np.inf if max is None else max
    if x.dtype.kind in "iu":
        lo = np.iinfo(x.dtype).min if min is None else int(min)
        hi = np.iinfo(x.dtype).max if max is None else int(max)
        return _keep(x.dtype, np.minimum(np.maximum(x, lo), hi))
    lo, hi = np.asarray(lo, x.dtype), np.asarray(hi, x.dtype)
    return np.minimum(np.maximum(x, lo), hi)


def _clip_vjp(n, g):
    """dx = dout where min <= x <= max (at the bounds too unless ``open_bounds``), else +0:
    a select, as Paddle's kernel (a -0 or nan dout inside stays, outside gives 0; measured)."""
    x = n.inputs[0].data
    lo = -np.inf if n.attrs.get("min") is None else n.attrs["min"]
    hi = np.inf if n.attrs.get("max") is None else n.attrs["max"]
    lo, hi = np.asarray(lo, x.dtype), np.asarray(hi, x.dtype)
    if n.attrs.get("open_bounds"):
        inside = (x > lo) & (x < hi)
    else:
        inside = (x >= lo) & (x <= hi)
    from .search import where

    return where(const(g, inside, np.bool_), g, const(g, np.zeros(g.data.shape, g.data.dtype)))


CLIP = unary("clip", _clip_fwd, _clip_vjp, "ClipBackward", check=False,
             examples=[([(2, 3)], {"min": -0.5, "max": 0.7}), ([(4,)], {"min": 0.1})])


def _apply1(op):
    def f(x):
        return apply(op, (x,))
    f.__name__ = op.name
    return f


neg = _apply1(NEG)
abs = _apply1(ABS)  # noqa: A001 - Paddle's name
exp = _apply1(EXP)
expm1 = _apply1(EXPM1)
log = _apply1(LOG)
log2 = _apply1(LOG2)
def log10(x, ln_base=None):
    """log10; ``ln_base`` the double log(10) its gradient divides by (the dialect's)."""
    return apply(LOG10, (x,), None if ln_base is None else {"ln_base": float(ln_base)})
log1p = _apply1(LOG1P)
sqrt = _apply1(SQRT)
rsqrt = _apply1(RSQRT)
square = _apply1(SQUARE)
reciprocal = _apply1(RECIPROCAL)
tanh = _apply1(TANH)
sigmoid = _apply1(SIGMOID)
relu = _apply1(RELU)
asin = _apply1(ASIN)
acos = _apply1(ACOS)
atan = _apply1(ATAN)
sinh = _apply1(SINH)
cosh = _apply1(COSH)
erf = _apply1(ERF)
floor = _apply1(FLOOR)
ceil = _apply1(CEIL)
trunc = _apply1(TRUNC)
sign = _apply1(SIGN)


def tan(x, impl="libm"):
    return apply(TAN, (x,), {"impl": impl})


def sin(x, impl="libm"):
    """impl: "libm" (glibc sinf, Paddle 2.x) or "sleef" (Paddle 3.x)."""
    return apply(SIN, (x,), {"impl": impl})


def cos(x, impl="libm"):
    return apply(COS, (x,), {"impl": impl})


def round(x, half_even=True):  # noqa: A001 - Paddle's name
    """half_even: rint (Paddle 3.x) or halves away from zero (2.x's std::round)."""
    return apply(ROUND, (x,), {"half_even": half_even})


def stanh(x, scale_a=0.67, scale_b=1.7159):
    return apply(STANH, (x,), {"scale_a": scale_a, "scale_b": scale_b})


def pow_scalar(x, factor, std_pow=False):
    """x ** factor; ``std_pow``: complex values as C++'s std::pow (Paddle's kernel)."""
    if std_pow and x.data.dtype.kind == "c":
        return apply(POW_SCALAR, (x,), {"factor": float(factor), "std_pow": True})
    return apply(POW_SCALAR, (x,), {"factor": float(factor)})


def clip(x, min=None, max=None, open_bounds=False):  # noqa: A002 - Paddle's names
    """open_bounds: the gradient is zero at the bounds too (else it passes there)."""
    attrs = {"min": min, "max": max}
    if open_bounds:
        attrs["open_bounds"] = True
    return apply(CLIP, (x,), attrs)
