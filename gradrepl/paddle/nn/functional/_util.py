"""Helpers the functional modules share: reading the profile, reductions, paddle-level ops."""
from __future__ import annotations

import numpy as np

from ....engine.tensor import Tensor as _T
from ... import dtypes, promotion


def check_reduction(reduction, what):
    if reduction not in ("sum", "mean", "none"):
        raise ValueError(
            f"The value of 'reduction' in {what} should be 'sum', 'mean' or 'none', but "
            f"received {reduction}, which is not allowed.")


def reduce_loss(out, reduction, mean_all=False):
    """'mean' -> paddle.mean, 'sum' -> paddle.sum, 'none' -> the tensor itself; ``mean_all``:
    the loss's mean is Paddle's mean_all op (its node has no double grad)."""
    from ...tensor import reduce as R

    if reduction == "mean":
        if mean_all:
            from ...double_grad import tag

            return tag(R.mean(out), "mean_all")
        return R.mean(out)
    if reduction == "sum":
        return R.sum(out)
    return out


def as_float_tensor(x):
    """An input that must be a float tensor (python numbers and lists are converted)."""
    if not isinstance(x, _T):
        from ...tensor.creation import to_tensor

        x = to_tensor(x)
    return x


def to_np_dtype(dtype):
    return None if dtype is None else dtypes.to_np(dtype)


def paddle_op(name, fallback):
    """The ``paddle.<name>`` function when the API has it, else ``fallback`` (same values)."""
    from ... import __dict__ as _paddle_ns  # the package namespace, without its __getattr__

    fn = _paddle_ns.get(name)
    return fn if fn is not None else fallback


def square(x):
    from ....engine.ops import math as M

    def _fallback(t):
        return M.multiply(t, t)

    return paddle_op("square", _fallback)(x)


def abs_(x):
    from ....engine.ops import math as M
    from ....engine.ops._util import const

    def _fallback(t):
        return M.multiply(t, const(t, np.sign(t.data)))

    return paddle_op("abs", _fallback)(x)


def subtract(x, y):
    from ...tensor.math import subtract as _sub

    return _sub(x, y)


def kernel_dtype_error(kernel, x, supported="float64, float32"):
    """The RuntimeError Paddle raises when a CPU kernel has no registration for x's dtype."""
    dt = x.dtype.name
    if dt == "bfloat16":
        from ... import bf16

        return bf16.not_found(kernel)
    return RuntimeError(
        f"(NotFound) The kernel with key (CPU, Undefined(AnyLayout), {dt}) of kernel `{kernel}` "
        f"is not registered. Selected wrong DataType `{dt}`. Paddle support following "
        f"DataTypes: {supported}." + promotion.kernel_hint())


def require_float(x, kernel):
    """x itself when the kernel has a float32/float64 registration for its dtype."""
    if x.data.dtype not in (np.float32, np.float64):
        raise kernel_dtype_error(kernel, x)
    return x
