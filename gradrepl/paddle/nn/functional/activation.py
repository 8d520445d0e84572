"""Activation functions of ``paddle.nn.functional``."""
from __future__ import annotations

import numpy as np

from ... import profiles
from ....engine.ops import math as M
from ....engine.ops import nn as N
from ...tensor.math import sigmoid, tanh
from ._util import require_float, to_np_dtype
from ...double_grad import composes as _composes

__all__ = ["relu", "relu6", "leaky_relu", "elu", "selu", "gelu", "silu", "swish", "softplus",
           "softsign", "hardtanh", "hardsigmoid", "hardswish", "sigmoid", "tanh", "softmax",
           "log_softmax", "log_sigmoid", "mish", "tanhshrink", "relu_"]


def _attr32(v):
    """A float attribute as Paddle's kernels get it: a float32 (a float64 input computes with
    0.1666667 rounded to float32; real 3.3.1 and 2.6.2: hardsigmoid, selu, rrelu, elu, celu)."""
    return float(np.float32(v))


def relu(x, name=None):
    return M.relu(require_float(x, "relu"))


def relu_(x, name=None):
    """relu computed and stored back into ``x`` (its inplace_version goes up; its grad node is
    relu's, which saves x: a later in-place write to x fails backward, as in Paddle)."""
    from ...tensor.indexing import inplace

    return inplace(x, lambda v: relu(v))


def relu6(x, name=None):
    return N.relu6(require_float(x, "relu6"), 6.0)


def leaky_relu(x, negative_slope=0.01, name=None):
    slope = _attr32(negative_slope) if profiles.current().leaky_relu_slope32 else negative_slope
    return N.leaky_relu(require_float(x, "leaky_relu"), slope)


def elu(x, alpha=1.0, name=None):
    return N.elu(require_float(x, "elu"), _attr32(alpha))


def selu(x, scale=1.0507009873554804934193349852946, alpha=1.6732632423543772848170429916717,
         name=None):
    if scale <= 1.0:
        raise ValueError(f"The scale must be greater than 1.0. Received: {scale}.")
    if alpha < 0:
        raise ValueError(f"The alpha must be no less than zero. Received: {alpha}.")
    return N.selu(require_float(x, "selu"), _attr32(scale), _attr32(alpha))


def _gelu_approximate(approximate):
    """True or "tanh": the tanh formula; False or "none": the exact (erf) one."""
    if isinstance(approximate, str):
        if approximate not in ("tanh", "none"):
            raise ValueError(f"approximate must be True, False, 'tanh' or 'none', but received "
                             f"{approximate}")
        return approximate == "tanh"
    return bool(approximate)


def gelu(x, approximate=False, name=None):
    return N.gelu(require_float(x, "gelu"), _gelu_approximate(approximate))


def silu(x, inplace=False, name=None):
    """``x * sigmoid(x)``; ``inplace=True`` writes the result into x (Paddle's ``silu_``, 3.x:
    2.x's signature is ``silu(x, name=None)``, so a second positional argument is the name)."""
    x = require_float(x, "silu")
    if inplace and profiles.current().layer_repr_inplace:
        from ...tensor.indexing import inplace as _inplace

        return _inplace(x, N.silu)
    return N.silu(x)


def swish(x, name=None):
    return N.swish(require_float(x, "swish"))


def softplus(x, beta=1, threshold=20, name=None):
    return N.softplus(require_float(x, "softplus"), beta, threshold)


def softsign(x, name=None):
    return N.softsign(require_float(x, "softsign"))


def hardtanh(x, min=-1.0, max=1.0, name=None):  # noqa: A002
    return N.hardtanh(require_float(x, "hardtanh"), min, max)


def hardsigmoid(x, slope=0.1666667, offset=0.5, name=None):
    return N.hardsigmoid(require_float(x, "hardsigmoid"), _attr32(slope), _attr32(offset))


def hardswish(x, name=None):
    return N.hardswish(require_float(x, "hardswish"))


def log_sigmoid(x, name=None):
    return N.log_sigmoid(require_float(x, "logsigmoid"))


def mish(x, threshold=20.0, name=None):
    return N.mish(require_float(x, "mish"), threshold)


def tanhshrink(x, name=None):
    from ....engine.ops import nn_more

    return nn_more.tanh_shrink(require_float(x, "tanh_shrink"))


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





# ---------------------------------------------------------------- more activations
def _paddle():
    from .... import paddle as _p

    return _p


def celu(x, alpha=1.0, name=None):
    """x where x > 0, alpha * (exp(x / alpha) - 1) elsewhere."""
    from ....engine.ops import nn_more

    if alpha == 0:
        raise ZeroDivisionError("alpha cannot be 0 for celu")
    return nn_more.celu(require_float(x, "celu"), _attr32(alpha))


def hardshrink(x, threshold=0.5, name=None):
    from ....engine.ops import nn_more

    return nn_more.hardshrink(require_float(x, "hard_shrink"), threshold)


def softshrink(x, threshold=0.5, name=None):
    from ....engine.ops import nn_more

    if threshold < 0:
        raise ValueError(f"The threshold must be no less than zero. Received: {threshold}.")
    return nn_more.softshrink(require_float(x, "softshrink"), threshold)


def thresholded_relu(x, threshold=1.0, value=0.0, name=None):
    from ....engine.ops import nn_more

    # 2.6.2's kernel has no value: (x > t) * x, -0. for a negative x (api3 as thresholded_relu_)
    return nn_more.thresholded_relu(require_float(x, "thresholded_relu"), threshold,
                                    value if profiles.current().api3 else None)


def prelu(x, weight, data_format="NCHW", name=None):
    """x where x > 0, weight * x elsewhere (one weight, or one per channel)."""
    from ....engine.ops import nn_more

    if len(weight.shape) not in (0, 1):
        raise AssertionError("The dim count of weight shape should be 0 or 1 in prelu().")
    mode = "all"
    if len(weight.shape) == 1 and weight.shape[0] > 1:
        if data_format not in ("NC", "NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC"):
            raise ValueError("data_format must be one of 'NC', 'NCL', 'NCHW', 'NCDHW', "
                             f"'NLC', 'NHWC', 'NDHWC' but receive {data_format}")
        data_format = "NCHW" if data_format[1] == "C" else "NHWC"
        mode = "channel"
    return nn_more.prelu(x, weight, mode, data_format)


@_composes("rrelu")
def rrelu(x, lower=1.0 / 8.0, upper=1.0 / 3.0, training=True, name=None):
    """Randomized leaky ReLU: a uniform slope in [lower, upper] while training, their mean in
    evaluation."""
    paddle = _paddle()
    if not training:   # the kernel's mid value: (lower + upper) / 2.0f in float32
        mid = (np.float32(lower) + np.float32(upper)) / np.float32(2)
        return leaky_relu(x, float(mid))

    from ...tensor.creation import rng

    neg = x.data < 0                      # Paddle's kernel draws a slope for these only, in order
    slope = np.ones(x.data.shape, x.data.dtype)
    slope[neg] = rng().uniform(lower, upper, (int(neg.sum()),)).astype(x.data.dtype)
    return paddle.where(x >= 0, x, x * paddle.to_tensor(slope))


def glu(x, axis=-1, name=None):
    """a * sigmoid(b) for the two halves a, b of x along ``axis``."""
    paddle = _paddle()
    rank = len(x.shape)
    if not -rank <= axis < rank:
        raise ValueError(f"Expected value range of `axis` is [{-rank}, {rank}), but received "
                         f"axis: {axis}")
    a, b = paddle.chunk(x, 2, axis=axis)
    return paddle.multiply(a, sigmoid(b))


def swiglu(x, y=None, name=None):
    """silu(x) * y; without y, x's two halves along the last axis."""
    paddle = _paddle()
    if y is None:
        x, y = paddle.chunk(x, 2, axis=-1)
    return paddle.multiply(silu(x), y)


def log_softmax_(x, axis=-1, dtype=None, name=None):
    return log_softmax(x, axis, dtype)


def softmax_(x, axis=-1, dtype=None, name=None):
    from ...tensor.indexing import inplace

    return inplace(x, lambda v: softmax(v, axis, dtype))


def tanh_(x, name=None):
    from ...tensor.indexing import inplace

    return inplace(x, lambda v: tanh(v))


def elu_(x, alpha=1.0, name=None):
    from ...tensor.indexing import inplace

    return inplace(x, lambda v: elu(v, alpha))


def leaky_relu_(x, negative_slope=0.01, name=None):
    from ...tensor.indexing import inplace

    return inplace(x, lambda v: leaky_relu(v, negative_slope))


def hardtanh_(x, min=-1.0, max=1.0, name=None):  # noqa: A002
    from ...tensor.indexing import inplace

    return inplace(x, lambda v: hardtanh(v, min, max))


__all__ += ["celu", "hardshrink", "softshrink", "thresholded_relu", "prelu", "rrelu", "glu",
            "swiglu", "softmax_", "tanh_", "elu_", "leaky_relu_", "hardtanh_"]
