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
    return tuple(int_value(s) for s in shape)


def int_value(v):
    """An int given as a python/numpy int or a one-element Tensor (shape [] or [1], as Paddle
    takes inside shape, starts and ends lists)."""
    if isinstance(v, _T):
        return int(np.asarray(v.data).reshape(-1)[0])
    return int(v)


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


def extra_kwargs(*names):
    """Paddle 3's keyword-only extras of a function (``out=``, ``device=``, ``requires_grad=``,
    ``pin_memory=``): taken in 3.x (profile ``param_aliases``), unknown keywords in 2.x."""
    import functools

    def deco(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kw):
            extra = {n: kw.pop(n) for n in names if n in kw}
            if extra:
                from .. import profiles

                if not profiles.current().param_aliases:
                    raise TypeError(f"{fn.__name__}() got an unexpected keyword argument "
                                    f"'{next(iter(extra))}'")
            return apply_extras(fn(*args, **kw), extra)
        return wrapper
    return deco


def apply_extras(result, extra):
    """``requires_grad=True``: the result does not stop gradient; ``out=t``: the result is
    written into t (in place) and t is returned; ``device``/``pin_memory``: CPU only here."""
    if not extra:
        return result
    if extra.get("requires_grad"):
        result.stop_gradient = False
    out = extra.get("out")
    if out is not None:
        from .creation import assign

        return assign(result, out)
    return result
