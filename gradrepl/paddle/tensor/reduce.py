"""Reductions of the ``paddle`` namespace (also bound as Tensor methods)."""
from __future__ import annotations

import numpy as np

from ...engine.ops import reduce as R
from .. import profiles
from ._args import reduce_axes

__all__ = ["sum", "mean"]
__methods__ = ["sum", "mean"]


def _full_shape(x, axis, keepdim):
    """(axes, out_shape) for a reduction; a full reduction is [] or [1] per profile."""
    axes = reduce_axes(axis, x.data.ndim)
    out_shape = None
    if not keepdim and len(axes) == x.data.ndim and not profiles.current().zero_d:
        out_shape = (1,)
    return axes, out_shape


def sum(x, axis=None, dtype=None, keepdim=False, name=None):  # noqa: A001
    axes, out_shape = _full_shape(x, axis, keepdim)
    from .. import dtypes

    dt = dtypes.to_np(dtype) if dtype is not None else None
    if dt is None and x.data.dtype.kind in "bi" and x.data.dtype != np.int64:
        dt = np.dtype(np.int64)
    return R.sum(x, axes, keepdim, out_shape, dt)


def mean(x, axis=None, keepdim=False, name=None):
    axes, out_shape = _full_shape(x, axis, keepdim)
    return R.mean(x, axes, keepdim, out_shape)


