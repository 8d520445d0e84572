"""Activation functions of ``paddle.nn.functional``."""
from __future__ import annotations



from ....engine.ops import math as M
from ....engine.ops import nn as N
from ...tensor.math import sigmoid, tanh
from ._util import require_float, to_np_dtype

__all__ = ["relu", "relu6", "leaky_relu", "elu", "selu", "gelu", "silu", "swish", "softplus",
           "softsign", "hardtanh", "hardsigmoid", "hardswish", "sigmoid", "tanh", "softmax",
           "log_softmax", "log_sigmoid", "mish", "tanhshrink", "relu_"]


def relu(x, name=None):
    return M.relu(require_float(x, "relu"))


def relu_(x, name=None):
    out = M.relu(x)
    x.data = out.data
    return x


def relu6(x, name=None):
    return N.relu6(require_float(x, "relu6"), 6.0)


def leaky_relu(x, negative_slope=0.01, name=None):
    return N.leaky_relu(require_float(x, "leaky_relu"), negative_slope)


def elu(x, alpha=1.0, name=None):
    return N.elu(require_float(x, "elu"), alpha)


def selu(x, scale=1.0507009873554804934193349852946, alpha=1.6732632423543772848170429916717,
         name=None):
    if scale <= 1.0:
        raise ValueError(f"The scale must be greater than 1.0. Received: {scale}.")
    if alpha < 0:
        raise ValueError(f"The alpha must be no less than zero. Received: {alpha}.")
    return N.selu(require_float(x, "selu"), scale, alpha)


def gelu(x, approximate=False, name=None):
    return N.gelu(require_float(x, "gelu"), approximate)


def silu(x, name=None):
    return N.silu(require_float(x, "silu"))


def swish(x, name=None):
    return N.swish(require_float(x, "swish"))


def softplus(x, beta=1, threshold=20, name=None):
    return N.softplus(require_float(x, "softplus"), beta, threshold)


def softsign(x, name=None):
    return N.softsign(require_float(x, "softsign"))


def hardtanh(x, min=-1.0, max=1.0, name=None):  # noqa: A002
    return N.hardtanh(require_float(x, "hardtanh"), min, max)


def hardsigmoid(x, slope=0.1666667, offset=0.5, name=None):
    return N.hardsigmoid(require_float(x, "hardsigmoid"), slope, offset)


def hardswish(x, name=None):
    return N.hardswish(require_float(x, "hardswish"))


def log_sigmoid(x, name=None):
    return N.log_sigmoid(require_float(x, "logsigmoid"))


def mish(x, threshold=20.0, name=None):
    return N.mish(require_float(x, "mish"), threshold)


def tanhshrink(x, name=None):
    return M.subtract(x, M.tanh(x))


def _cast_for(x, dtype):
    dt = to_np_dtype(dtype)
    if dt is not None and x.data.dtype != dt:
        x = M.cast(x, dt)
    return x


def softmax(x, axis=-1, dtype=None, name=None):
    x = _cast_for(x, dtype)
    _check_axis(x, axis, "softmax")
    return N.softmax(require_float(x, "softmax"), int(axis))


def log_softmax(x, axis=-1, dtype=None, name=None):
    x = _cast_for(x, dtype)
    _check_axis(x, axis, "log_softmax")
    return N.log_softmax(require_float(x, "log_softmax"), int(axis))


def _check_axis(x, axis, op):
    nd = x.data.ndim
    lo, hi = (-nd, nd) if nd else (-1, 1)
    axis = int(axis)
    if not lo <= axis < hi:
        hint = (f"Expected axis < rank_x, but received axis:{axis} >= rank_x:{nd}." if axis >= 0
                else f"Expected axis >= -rank_x, but received axis:{axis} < -rank_x:{-nd}.")
        raise ValueError(
            "(InvalidArgument) Attr(axis) value should be in range [-R, R-1], R is the rank of "
            f"Input(X).\n  [Hint: {hint}]")



