"""Elementwise ops: arithmetic, powers, exponentials, activations.

Each entry: the numpy forward, then its VJP written with the functions of this package, so the
VJP is itself differentiable (``create_graph=True``). Formulas follow Paddle's backward kernels
(``dy = -dout * out / y`` for divide, ``dx = 0.5 * dout / out`` for sqrt, ...), so gradients round
the way Paddle's do in float32.
"""
from __future__ import annotations

import numpy as np

from ..registry import apply, register
from ._util import const

_err = dict(divide="ignore", invalid="ignore", over="ignore")


def _f64(fn):
    """Compute a transcendental in float64 and round once to the input's dtype.

    Paddle's float32 kernels return the correctly rounded value (exp(1) -> 2.71828175); numpy's
    vectorised float32 loops can be an ulp off, so float32/float16 inputs go through float64.
    """
    def wrapped(x, **k):
        if x.dtype.kind == "f" and x.dtype.itemsize < 8:
            return fn(x.astype(np.float64), **k).astype(x.dtype)
        return fn(x, **k)
    wrapped.__name__ = getattr(fn, "__name__", "fwd")
    return wrapped


def _safe(fn):
    def wrapped(*a, **k):
        with np.errstate(**_err):
            return fn(*a, **k)
    wrapped.__name__ = getattr(fn, "__name__", "fwd")
    return wrapped


def binary(name, fwd, vjp, legacy, **kw):
    op = register(name, fwd, vjp, broadcast=True, legacy_name=legacy, **kw)
    return op


# ---------------------------------------------------------------- binary arithmetic
ADD = binary("add", np.add, lambda n, g: (g, g), "AddBackward",
             examples=[([(2, 3), (2, 3)], {}), ([(2, 3), (3,)], {}), ([(), (2, 2)], {})])
SUBTRACT = binary("subtract", np.subtract, lambda n, g: (g, neg(g)), "SubBackward",
                  examples=[([(2, 3), (2, 3)], {}), ([(2, 1), (1, 3)], {})])
MULTIPLY = binary(
    "multiply", np.multiply,
    lambda n, g: (multiply(g, n.inputs[1]), multiply(g, n.inputs[0])),
    "MulBackward",
    examples=[([(2, 3), (2, 3)], {}), ([(2, 3), (3,)], {}), ([(), (3,)], {})])
DIVIDE = binary(
    "divide", _safe(np.divide),
    lambda n, g: (divide(g, n.inputs[1]), neg(divide(multiply(g, n.out()), n.inputs[1]))),
    "DivBackward", domain="away0",
    examples=[([(2, 3), (2, 3)], {}), ([(2, 3), (3,)], {})])


def _pow_vjp(n, g):
    x, y = n.inputs
    dx = multiply(g, multiply(y, pow(x, scale(y, 1.0, -1.0))))
    dy = multiply(g, multiply(n.out(), log(x)))
    return dx, dy


POW = binary("elementwise_pow", _safe(np.power), _pow_vjp, "PowBackward", domain="positive",
             examples=[([(3,), (3,)], {}), ([(2, 3), (3,)], {})])


def _maxmin_vjp(n, g):
    x, y = n.inputs
    pick = n.op.name == "maximum"
    mask = (x.data > y.data) if pick else (x.data < y.data)
    return multiply(g, const(g, mask)), multiply(g, const(g, ~mask))


MAXIMUM = binary("maximum", np.maximum, _maxmin_vjp, "MaximumBackward", domain="distinct",
                 examples=[([(3,), (3,)], {}), ([(2, 3), (3,)], {})])
MINIMUM = binary("minimum", np.minimum, _maxmin_vjp, "MinimumBackward", domain="distinct",
                 examples=[([(3,), (3,)], {}), ([(2, 3), (3,)], {})])


def add(x, y):
    return apply(ADD, (x, y))


def subtract(x, y):
    return apply(SUBTRACT, (x, y))


def multiply(x, y):
    return apply(MULTIPLY, (x, y))


def divide(x, y):
    return apply(DIVIDE, (x, y))


def pow(x, y):  # noqa: A001 - Paddle's name
    return apply(POW, (x, y))


def maximum(x, y):
    return apply(MAXIMUM, (x, y))


def minimum(x, y):
    return apply(MINIMUM, (x, y))


# ---------------------------------------------------------------- scale / cast
def _scale_fwd(x, scale=1.0, bias=0.0, bias_after_scale=True):
    dt = x.dtype
    if bias_after_scale:
        out = x * np.asarray(scale, dt) + np.asarray(bias, dt) if dt.kind == "f" else x * scale + bias
    else:
        out = (x + np.asarray(bias, dt)) * np.asarray(scale, dt) if dt.kind == "f" else (x + bias) * scale
    return out.astype(dt, copy=False) if dt.kind in "f" else out


SCALE = register("scale", _scale_fwd,
                 lambda n, g: scale(g, n.attrs.get("scale", 1.0)),
                 legacy_name="ScaleBackward",
                 examples=[([(2, 3)], {"scale": 2.5, "bias": 1.0})])


def scale(x, scale=1.0, bias=0.0, bias_after_scale=True):
    return apply(SCALE, (x,), {"scale": scale, "bias": bias, "bias_after_scale": bias_after_scale})


CAST = register("cast", lambda x, dtype: x.astype(dtype),
                lambda n, g: cast(g, n.in_meta[0][1]) if n.in_meta[0][1].kind in "fc" else None,
                legacy_name="CastBackward", check=False)


def cast(x, dtype):
    dtype = np.dtype(dtype)
    if x.data.dtype == dtype:
        return x
    return apply(CAST, (x,), {"dtype": dtype})


# ---------------------------------------------------------------- unary
def unary(name, fwd, vjp, legacy, domain="real", **kw):
    examples = kw.pop("examples", [([(2, 3)], {}), ([()], {})])
    return register(name, _safe(fwd), vjp, legacy_name=legacy, domain=domain,
                    examples=examples, **kw)


def _one_minus_sq(t):  # 1 - t*t
    return scale(multiply(t, t), -1.0, 1.0)


NEG = unary("neg", np.negative, lambda n, g: neg(g), "NegBackward")
EXP = unary("exp", _f64(np.exp), lambda n, g: multiply(g, n.out()), "ExpBackward")
LOG = unary("log", _f64(np.log), lambda n, g: divide(g, n.inputs[0]), "LogBackward", "positive")
SQRT = unary("sqrt", np.sqrt, lambda n, g: divide(scale(g, 0.5), n.out()), "SqrtBackward",
             "positive")
TANH = unary("tanh", _f64(np.tanh), lambda n, g: multiply(g, _one_minus_sq(n.out())), "TanhBackward")


@_f64
def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


SIGMOID = unary("sigmoid", _sigmoid,
                lambda n, g: multiply(g, multiply(n.out(), scale(n.out(), -1.0, 1.0))),
                "SigmoidBackward")
RELU = unary("relu", lambda x: np.maximum(x, 0).astype(x.dtype, copy=False),
             lambda n, g: multiply(g, const(g, n.out_data[0] > 0)), "ReluBackward",
             domain="away0")


def _pow_scalar_fwd(x, factor):
    return np.power(x, np.asarray(factor, x.dtype)) if x.dtype.kind == "f" else np.power(x, factor)


POW_SCALAR = unary(
    "pow", _pow_scalar_fwd,
    lambda n, g: multiply(g, scale(pow_scalar(n.inputs[0], n.attrs["factor"] - 1.0),
                                   n.attrs["factor"])),
    "PowBackward",
    examples=[([(2, 3)], {"factor": 2.0}), ([(3,)], {"factor": 3.0})])


def _apply1(op):
    def f(x):
        return apply(op, (x,))
    f.__name__ = op.name
    return f


neg = _apply1(NEG)
exp = _apply1(EXP)
log = _apply1(LOG)
sqrt = _apply1(SQRT)
tanh = _apply1(TANH)
sigmoid = _apply1(SIGMOID)
relu = _apply1(RELU)


def pow_scalar(x, factor):
    return apply(POW_SCALAR, (x,), {"factor": float(factor)})
