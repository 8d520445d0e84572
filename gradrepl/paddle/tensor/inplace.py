"""The in-place twins of Paddle's functions (``paddle.sin_(x)``, ``x.cumsum_(0)``, ``x.t_()``).

Paddle names an in-place op after its function with a trailing underscore: it computes the
function's result, stores it in ``x`` (same object, ``inplace_version`` bumped) and returns
``x``. One table lists the twins this module makes; each one calls its function through
``indexing.inplace`` (the rules for leaves, snapshots and the new backward op live there), so a
twin differentiates exactly as its function does.

Three kinds, by what the result does to ``x`` (measured on Paddle 2.6.2 and 3.3.1):

* ``VALUE``: same shape, x keeps its dtype (``sin_``, ``pow_``, ``cumsum_``, ``tril_`` ...);
* ``RELABEL``: comparisons and logic, x becomes a bool tensor (``x.equal_(y)``);
* ``RESHAPE``: the shape changes (``transpose_``, ``t_``): x takes the result's layout.

Names that exist elsewhere already (``add_``, ``exp_``, ``abs_`` ...) are not made again.
"""
from __future__ import annotations

import inspect

VALUE = (
    "acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "sin", "sinh", "tan",
    "tanh", "erf", "expm1", "digamma", "lgamma", "log", "log10", "log1p", "log2", "frac", "i0",
    "trunc", "logit", "nan_to_num", "cumsum", "cumprod", "polygamma", "multigammaln", "renorm",
    "tril", "triu", "masked_fill", "where", "scatter", "pow", "remainder", "mod", "floor_mod",
    "floor_divide", "gcd", "lcm", "hypot", "ldexp", "addmm", "bitwise_and", "bitwise_or",
    "bitwise_xor", "bitwise_not", "multiply", "subtract", "divide", "sinc", "copysign",
    "gammaln", "gammainc", "gammaincc", "baddbmm", "masked_scatter", "scatter_add",
)
RELABEL = (
    "equal", "not_equal", "greater_equal", "greater_than", "less_equal", "less_than", "less",
    "logical_and", "logical_or", "logical_xor", "logical_not",
)
RESHAPE = ("transpose", "t")
# twins real Paddle has as functions only (no ``Tensor.erf_``)
FUNCTIONS_ONLY = frozenset(("erf_", "expm1_"))
# Paddle 3's torch-style spellings of twins: ``x.sub_(y)`` is ``x.subtract_(y)``
ALIASES = {"sub_": "subtract_", "div_": "divide_"}


def _relabel(x, r):
    from .indexing import _detach_saved_output

    _detach_saved_output(x)
    x.bump_version()
    x.data = r.data
    return x


def _reshape(x, r):
    from .indexing import _move_graph_place

    x.bump_version()
    x.data = r.data
    if r.grad_node is not None:
        _move_graph_place(x, r, x)
    return x


def _twin(name, fn, kind):
    from .indexing import _is_grad_leaf, _leaf_error, inplace

    def twin(x, *args, **kwargs):
        if kind == "value":
            return inplace(x, lambda v: fn(v, *args, **kwargs))
        if _is_grad_leaf(x):
            raise _leaf_error(x)
        r = fn(x, *args, **kwargs)
        return _relabel(x, r) if kind == "relabel" else _reshape(x, r)

    twin.__name__ = twin.__qualname__ = name + "_"
    twin.__doc__ = (f"``{name}_(x, ...)``: ``paddle.{name}(x, ...)`` computed and stored back "
                    f"into ``x``, which is returned (its inplace_version goes up by one).")
    try:  # help() shows the function's own signature, as Paddle's twins do
        twin.__signature__ = inspect.signature(fn)
    except (TypeError, ValueError):
        pass
    return twin


def make(have):
    """The twins missing from ``have`` (name -> function: the exported namespace)."""
    made = {}
    for kind, names in (("value", VALUE), ("relabel", RELABEL), ("reshape", RESHAPE)):
        for name in names:
            if name + "_" not in have and name in have:
                made[name + "_"] = _twin(name, have[name], kind)
    for alias, target in ALIASES.items():
        fn = made.get(target) or have.get(target)
        if alias not in have and fn is not None:
            made[alias] = fn
    return made


def bind(cls, twins):
    """The twins as Tensor methods; a twin Paddle 2.6 lacks is gated as the other 3.x methods."""
    from ..api26 import TENSOR
    from . import Since3

    for name, fn in twins.items():
        if name in FUNCTIONS_ONLY or hasattr(cls, name):
            continue
        setattr(cls, name, fn if name in TENSOR else Since3(fn, name))
