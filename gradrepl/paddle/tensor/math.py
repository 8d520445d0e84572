"""Elementwise math and reductions of the ``paddle`` namespace (also bound as Tensor methods)."""
from __future__ import annotations

import numpy as np

from ...engine.ops import math as M
from ..core import Tensor, _binary, as_tensor

__all__ = ["add", "subtract", "multiply", "divide", "pow", "exp", "log", "sqrt", "tanh",
           "sigmoid", "scale", "add_n", "maximum", "minimum", "neg"]
__methods__ = ["add", "subtract", "multiply", "divide", "pow", "exp", "log", "sqrt", "tanh",
               "sigmoid", "scale", "maximum", "minimum", "neg"]


def add(x, y, name=None):
    return _binary(as_tensor(x), y, M.add, "add")


def subtract(x, y, name=None):
    return _binary(as_tensor(x), y, M.subtract, "subtract")


def multiply(x, y, name=None):
    return _binary(as_tensor(x), y, M.multiply, "multiply")


def divide(x, y, name=None):
    return as_tensor(x).__truediv__(y)


def maximum(x, y, name=None):
    return _binary(as_tensor(x), y, M.maximum, "maximum")


def minimum(x, y, name=None):
    return _binary(as_tensor(x), y, M.minimum, "minimum")


def pow(x, y, name=None):  # noqa: A001
    return as_tensor(x).__pow__(y)


def _float_unary(fn):
    def f(x, name=None):
        if x.data.dtype.kind not in "fc":
            x = M.cast(x, np.float32)
        return fn(x)

    f.__name__ = fn.__name__
    f.__doc__ = f"paddle.{fn.__name__}(x): elementwise, with its gradient."
    return f


exp = _float_unary(M.exp)
log = _float_unary(M.log)
sqrt = _float_unary(M.sqrt)
tanh = _float_unary(M.tanh)
sigmoid = _float_unary(M.sigmoid)


def neg(x, name=None):
    return -x


def scale(x, scale=1.0, bias=0.0, bias_after_scale=True, act=None, name=None):
    if isinstance(scale, Tensor):
        scale = scale.item()
    return M.scale(x, float(scale), float(bias), bias_after_scale)


def add_n(inputs, name=None):
    if isinstance(inputs, Tensor):
        return inputs
    out = inputs[0]
    for t in inputs[1:]:
        out = M.add(out, t)
    return out
