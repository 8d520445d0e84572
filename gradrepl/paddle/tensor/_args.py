"""Argument normalisation shared by the API modules (shapes, axes, tensors)."""
from __future__ import annotations

import numpy as np

from ...engine.tensor import Tensor as _T


def shape_list(shape):
    """A shape given as an int, list/tuple (possibly holding tensors) or a Tensor -> tuple."""
    if isinstance(shape, _T):
        return tuple(int(v) for v in np.asarray(shape.data).reshape(-1))
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    return tuple(int(s) for s in shape)


def axis_list(axis):
    if axis is None:
        return None
    if isinstance(axis, _T):
        vals = np.asarray(axis.data).reshape(-1).tolist()
        return vals if axis.data.ndim else int(vals[0])
    if isinstance(axis, (list, tuple)):
        return [int(a) for a in axis]
    return int(axis)


def reduce_axes(axis, ndim):
    """Paddle axis -> tuple of non-negative axes; None or [] means all."""
    axis = axis_list(axis)
    if axis is None or axis == []:
        return tuple(range(ndim))
    axes = axis if isinstance(axis, list) else [axis]
    out = []
    for a in axes:
        if not (-ndim <= a < ndim) and not (ndim == 0 and a in (0, -1)):
            raise ValueError(
                f"(InvalidArgument) The reduce axis {a} is out of range for a tensor of rank {ndim} "
                f"(expected in [{-ndim}, {ndim - 1}])")
        out.append(a % ndim if ndim else 0)
    return tuple(sorted(set(out))) if ndim else ()


def full_reduce_shape(profile_zero_d):
    return () if profile_zero_d else (1,)
