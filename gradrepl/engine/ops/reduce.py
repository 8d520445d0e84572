"""Reductions: sum, mean (more come with their own entries).

``axis`` is a tuple of non-negative axes (the dialect normalises it); ``keepdim`` as in Paddle.
``out_shape`` lets the dialect choose how a full reduction is shaped (Paddle 2.2: ``[1]``,
later: ``[]``), so the picture shows one node and not a reduction plus a reshape.
"""
from __future__ import annotations

import numpy as np

from ..registry import apply, register
from .broadcast import broadcast_to
from .shape import reshape
from ._util import const


def _keep_shape(in_shape, axis):
    return tuple(1 if i in axis else s for i, s in enumerate(in_shape))


def _expand_back(n, g):
    """The out_grad of a reduction, reshaped with the reduced axes kept and broadcast back."""
    in_shape = n.in_meta[0][0]
    g = reshape(g, _keep_shape(in_shape, n.attrs["axis"]))
    return broadcast_to(g, in_shape)


def _sum_fwd(x, axis, keepdim=False, out_shape=None, dtype=None):
    out = np.sum(x, axis=axis, keepdims=keepdim, dtype=dtype)
    return np.reshape(out, out_shape) if out_shape is not None else out


def _mean_fwd(x, axis, keepdim=False, out_shape=None):
    out = np.mean(x, axis=axis, keepdims=keepdim, dtype=x.dtype if x.dtype.kind == "f" else None)
    if x.dtype.kind in "iub":
        out = np.asarray(out).astype(x.dtype)
    return np.reshape(out, out_shape) if out_shape is not None else out


def _mean_vjp(n, g):
    in_shape = n.in_meta[0][0]
    count = 1
    for a in n.attrs["axis"]:
        count *= in_shape[a]
    return divide_const(_expand_back(n, g), count)


def divide_const(t, c):
    from .math import divide

    return divide(t, const(t, c))


_REDUCE_EXAMPLES = [([(2, 3)], {"axis": (0, 1)}), ([(2, 3)], {"axis": (1,), "keepdim": True}),
                    ([(2, 3, 4)], {"axis": (0, 2)})]

SUM = register("sum", _sum_fwd, _expand_back, legacy_name="ReduceSumBackward",
               examples=_REDUCE_EXAMPLES)
MEAN = register("mean", _mean_fwd, _mean_vjp, legacy_name="ReduceMeanBackward",
                examples=_REDUCE_EXAMPLES)


def sum(x, axis, keepdim=False, out_shape=None, dtype=None):  # noqa: A001
    attrs = {"axis": tuple(axis), "keepdim": keepdim}
    if out_shape is not None:
        attrs["out_shape"] = tuple(out_shape)
    if dtype is not None:
        attrs["dtype"] = np.dtype(dtype)
    return apply(SUM, (x,), attrs)


def mean(x, axis, keepdim=False, out_shape=None):
    attrs = {"axis": tuple(axis), "keepdim": keepdim}
    if out_shape is not None:
        attrs["out_shape"] = tuple(out_shape)
    return apply(MEAN, (x,), attrs)
