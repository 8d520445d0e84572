"""Comparisons, logical and bitwise ops, float tests, ``allclose``/``isclose``/``equal_all``.

Results are bool tensors that stop gradient. Comparisons promote their operands as arithmetic
does (``paddle/promotion.py``: in 3.x an int32 tensor == float32 tensor raises TypeError; a python
float against an int tensor compares in float32). Logical ops take any dtype (nonzero is True);
bitwise ops take bool and integer tensors.
"""
from __future__ import annotations

import numpy as np

from ...engine.ops import logic as L
from ...engine.tensor import Tensor as _T
from .. import profiles, promotion
from ..core import Tensor, as_tensor
from . import math as _math

__all__ = ["equal", "not_equal", "less_than", "less_equal", "greater_than", "greater_equal",
           "less", "greater", "logical_and", "logical_or", "logical_xor", "logical_not",
           "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "isnan", "isinf",
           "isfinite", "allclose", "isclose", "equal_all", "is_empty"]
__methods__ = [n for n in __all__ if n not in ("less", "greater")]


# ============================================================== comparisons
def _compare(name, x, y):
    """``paddle.equal(x, y)`` ...: the operators' promotion in 3.x; in 2.x two tensors of
    different dtypes reach the kernel, which rejects them (ValueError)."""
    if not isinstance(x, _T):
        x = as_tensor(x)
    if isinstance(y, _T) and not promotion.strict() and x.data.dtype != y.data.dtype:
        raise promotion.mismatch_error(name, x.data.dtype, y.data.dtype)
    return _math.operator(name, x, y)


def equal(x, y, name=None):
    return _compare("equal", x, y)


def not_equal(x, y, name=None):
    return _compare("not_equal", x, y)


def less_than(x, y, name=None):
    return _compare("less_than", x, y)


def less_equal(x, y, name=None):
    return _compare("less_equal", x, y)


def greater_than(x, y, name=None):
    return _compare("greater_than", x, y)


def greater_equal(x, y, name=None):
    return _compare("greater_equal", x, y)


less = less_than
greater = greater_than


# ============================================================== logical and bitwise
def _same_dtype(fname, x, y):
    """Two tensors for a kernel without promotion: 3.x promotes (TypeError across kinds),
    2.x hands both dtypes to the kernel, which rejects a mismatch (ValueError)."""
    if not isinstance(y, _T):
        raise _math._arg_error(fname, 1, "y", y)
    x = as_tensor(x)
    if x.data.dtype != y.data.dtype:
        if not promotion.strict():  # the logical kernels read y's data as x's dtype
            raise promotion.mismatch_error(fname, y.data.dtype, x.data.dtype)
        xd, yd = promotion.common_dtype(fname, x.data.dtype, y.data.dtype, x.data.ndim == 0,
                                        y.data.ndim == 0)
        x, y = _math._cast(x, xd), _math._cast(y, yd)
    _math._check_broadcast(x, y)
    return x, y


def logical_and(x, y, out=None, name=None):
    return L.binary("logical_and", *_same_dtype("logical_and", x, y))


def logical_or(x, y, out=None, name=None):
    return L.binary("logical_or", *_same_dtype("logical_or", x, y))


def logical_xor(x, y, out=None, name=None):
    return L.binary("logical_xor", *_same_dtype("logical_xor", x, y))


def logical_not(x, out=None, name=None):
    return L.unary("logical_not", as_tensor(x))


def _bitwise_check(fname, *ts):
    for t in ts:
        if t.data.dtype.kind not in "biu":
            name = t.data.dtype.name
            raise RuntimeError(
                f"(NotFound) The kernel with key (CPU, Undefined(AnyLayout), {name}) of kernel "
                f"`{fname}` is not registered. Selected wrong DataType `{name}`. Paddle support "
                "following DataTypes: bool, uint8, int8, int16, int32, int64."
                + promotion.kernel_hint())


def bitwise(fname, x, y, reverse=False):
    """A bitwise op of two tensors; a python int/bool only as the left operand (``True & t``,
    ``reverse``): on the right Paddle rejects it."""
    x = as_tensor(x)
    if not isinstance(y, _T) and not reverse:
        raise _math._arg_error(fname, 1, "y", y)
    if isinstance(y, _T):
        if x.data.dtype != y.data.dtype:  # bitwise kernels never promote
            raise promotion.mismatch_error(fname, x.data.dtype, y.data.dtype)
    else:
        y = Tensor._wrap(np.full(x.data.shape, y, dtype=x.data.dtype), True)
        x, y = y, x
    _bitwise_check(fname, x, y)
    _math._check_broadcast(x, y)
    return L.binary(fname, x, y)


def bitwise_and(x, y, out=None, name=None):
    return bitwise("bitwise_and", x, y)


def bitwise_or(x, y, out=None, name=None):
    return bitwise("bitwise_or", x, y)


def bitwise_xor(x, y, out=None, name=None):
    return bitwise("bitwise_xor", x, y)


def bitwise_not(x, out=None, name=None):
    x = as_tensor(x)
    _bitwise_check("bitwise_not", x)
    return L.unary("bitwise_not", x)


# ============================================================== float tests
def _float_test(fname):
    def f(x, name=None):
        x = as_tensor(x)
        if x.data.dtype.kind == "b":
            raise _math._kernel_error(fname, x.data.dtype)
        return L.unary(fname, x)
    f.__name__ = fname
    f.__doc__ = f"paddle.{fname}(x): elementwise test, a bool tensor."
    return f


isnan = _float_test("isnan")
isinf = _float_test("isinf")
isfinite = _float_test("isfinite")


def is_empty(x, name=None):
    return Tensor._wrap(np.asarray(x.data.size == 0), True)


# ============================================================== closeness
def _close_operands(fname, x, y):
    if x.data.dtype != y.data.dtype:  # the kernel reads x's dtype from y's data
        raise promotion.mismatch_error(fname, y.data.dtype, x.data.dtype)
    _math._check_broadcast(x, y)
    return x, y


def isclose(x, y, rtol=1e-05, atol=1e-08, equal_nan=False, name=None):
    """|x - y| <= atol + rtol * |y| elementwise (NaNs equal if ``equal_nan``)."""
    x, y = _close_operands("isclose", x, y)
    return L.isclose(x, y, float(rtol), float(atol), bool(equal_nan))


def _scalar_bool(value):
    """A bool result shaped as Paddle's reductions are ([1] in 2.2, 0-D after)."""
    arr = np.asarray(bool(value))
    if not profiles.current().zero_d:
        arr = arr.reshape(1)
    return Tensor._wrap(arr, True)


def allclose(x, y, rtol=1e-05, atol=1e-08, equal_nan=False, name=None):
    x, y = _close_operands("allclose", x, y)
    return _scalar_bool(L.isclose(x, y, float(rtol), float(atol), bool(equal_nan)).data.all())


def equal_all(x, y, name=None):
    """True if x and y have the same shape and all elements are equal."""
    x, y = as_tensor(x), as_tensor(y)
    if x.data.dtype != y.data.dtype:
        raise promotion.mismatch_error("equal_all", x.data.dtype, y.data.dtype)
    if x.data.shape != y.data.shape:
        return _scalar_bool(False)
    return _scalar_bool(np.array_equal(x.data, y.data))
