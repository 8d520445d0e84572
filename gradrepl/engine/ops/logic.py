"""Comparison, logical and bitwise ops, and the float tests (isnan ...).

None of them has a gradient (``vjp=None``): their results are bool (or integer bit patterns) and
stop gradient, whatever their inputs. Comparisons broadcast; the API layer casts both operands
to a common dtype first (``paddle/promotion.py``).
"""
from __future__ import annotations

import numpy as np

from ..registry import apply, register
from ._util import quiet


def _table(name, fwd, n_inputs, **kw):
    return register(name, fwd, None, broadcast=n_inputs == 2, check=False,
                    legacy_name="".join(p.capitalize() for p in name.split("_")), **kw)


def _logical(fn):
    """Logical ops read any dtype as truth values (nonzero is True)."""
    def fwd(*xs):
        return fn(*[x.astype(bool) for x in xs])
    fwd.__name__ = fn.__name__
    return fwd


def _isclose(x, y, rtol=1e-5, atol=1e-8, equal_nan=False):
    """|x - y| <= atol + rtol * |y|, computed in the operands' dtype (Paddle's kernel)."""
    dt = x.dtype if x.dtype.kind == "f" else np.dtype(np.float64)
    x, y = x.astype(dt), y.astype(dt)
    with quiet(invalid="ignore", over="ignore"):
        close = np.abs(x - y) <= np.asarray(atol, dt) + np.asarray(rtol, dt) * np.abs(y)
    close |= (x == y)
    if equal_nan:
        close |= np.isnan(x) & np.isnan(y)
    return close


EQUAL = _table("equal", np.equal, 2)
NOT_EQUAL = _table("not_equal", np.not_equal, 2)
LESS_THAN = _table("less_than", np.less, 2)
LESS_EQUAL = _table("less_equal", np.less_equal, 2)
GREATER_THAN = _table("greater_than", np.greater, 2)
GREATER_EQUAL = _table("greater_equal", np.greater_equal, 2)
LOGICAL_AND = _table("logical_and", _logical(np.logical_and), 2)
LOGICAL_OR = _table("logical_or", _logical(np.logical_or), 2)
LOGICAL_XOR = _table("logical_xor", _logical(np.logical_xor), 2)
LOGICAL_NOT = _table("logical_not", _logical(np.logical_not), 1)
BITWISE_AND = _table("bitwise_and", np.bitwise_and, 2)
BITWISE_OR = _table("bitwise_or", np.bitwise_or, 2)
BITWISE_XOR = _table("bitwise_xor", np.bitwise_xor, 2)
BITWISE_NOT = _table("bitwise_not", np.invert, 1)
BITWISE_LEFT_SHIFT = _table("bitwise_left_shift", np.left_shift, 2)
BITWISE_RIGHT_SHIFT = _table("bitwise_right_shift", np.right_shift, 2)
ISNAN = _table("isnan", np.isnan, 1)
ISINF = _table("isinf", np.isinf, 1)
ISFINITE = _table("isfinite", np.isfinite, 1)
ISCLOSE = _table("isclose", _isclose, 2)

COMPARISONS = {op.name: op for op in (EQUAL, NOT_EQUAL, LESS_THAN, LESS_EQUAL, GREATER_THAN,
                                       GREATER_EQUAL)}
BINARY = {op.name: op for op in (LOGICAL_AND, LOGICAL_OR, LOGICAL_XOR, BITWISE_AND, BITWISE_OR,
                                  BITWISE_XOR, BITWISE_LEFT_SHIFT, BITWISE_RIGHT_SHIFT)}
UNARY = {op.name: op for op in (LOGICAL_NOT, BITWISE_NOT, ISNAN, ISINF, ISFINITE)}


def binary(name, x, y):
    """Run the comparison/logical/bitwise op ``name`` on two tensors."""
    op = COMPARISONS.get(name) or BINARY[name]
    return apply(op, (x, y))


def unary(name, x):
    return apply(UNARY[name], (x,))


def isclose(x, y, rtol=1e-5, atol=1e-8, equal_nan=False):
    return apply(ISCLOSE, (x, y), {"rtol": rtol, "atol": atol, "equal_nan": equal_nan})
