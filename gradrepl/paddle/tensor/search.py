"""Searching and sorting of the ``paddle`` namespace (also bound as Tensor methods): argmax,
argmin, topk, sort, argsort, kthvalue, mode, where, nonzero, masked_fill, searchsorted,
bucketize, unique.

The engine decides which of equal elements comes first (it follows the C++ library Paddle's
kernels use); this layer holds Paddle's argument handling, dtypes, errors, and the version
differences: ``topk`` returns a ``TopKRetType`` named tuple in Paddle 3 and a plain tuple in 2.x
(profile ``topk_namedtuple``); ``where`` turns python scalars into 0-D tensors in 3.x and into
``[1]`` float64/int64 tensors in 2.x (``where_scalars``); ``nonzero(as_tuple=True)`` gives 1-D
index tensors in 3.x and ``[n, 1]`` ones in 2.x (``nonzero_tuple_1d``).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ...engine.ops import broadcast as B
from ...engine.ops import math as M
from ...engine.ops import search as S
from ...engine.tensor import Tensor as _T
from .. import dtypes, profiles
from .reduce import _aliases, out_shape_for, refuse_float16, require_dtypes

__all__ = ["argmax", "argmin", "topk", "sort", "argsort", "kthvalue", "mode", "where",
           "nonzero", "masked_fill", "searchsorted", "bucketize", "unique", "TopKRetType"]
__methods__ = ["argmax", "argmin", "topk", "sort", "argsort", "kthvalue", "mode", "where",
               "nonzero", "masked_fill", "unique", "bucketize"]


class TopKRetType(NamedTuple):
    """What ``paddle.topk`` returns in Paddle 3: ``(values, indices)`` with field names."""
    values: object
    indices: object


TopKRetType.__module__ = "paddle.tensor.search"

_SORTABLE = ("float32", "float64", "int32", "int64", "int16", "uint8", "float16")


def _wrap(arr):
    from ..core import Tensor

    return Tensor._wrap(np.asarray(arr), True)


def _int_arg(v):
    if isinstance(v, _T):
        return int(np.asarray(v.data).reshape(-1)[0])
    return int(v)


# ---------------------------------------------------------------- argmax / argmin
def _arg(pick, x, axis, keepdim, dtype):
    dt = dtypes.to_np(dtype) if dtype is not None else np.dtype(np.int64)
    if dt not in (np.dtype(np.int32), np.dtype(np.int64)):
        raise ValueError(
            f"(InvalidArgument) The attribute of dtype in argmin/argmax must be [int32] or "
            f"[int64], but received [{dtypes.from_np(dt).name}]")
    if axis is not None and not isinstance(axis, (int, np.integer, _T)):
        raise TypeError(
            f"The type of 'axis'  must be int or Tensor or None in {pick}, but received "
            f"{type(axis)}.")
    require_dtypes(x, pick, ("float32", "float64", "int16", "int32", "int64", "uint8"))
    nd = x.data.ndim
    if axis is None:
        shape = (1,) * nd if keepdim else (() if profiles.current().zero_d else (1,))
        fn = S.argmax if pick == "argmax" else S.argmin
        return fn(x, None, keepdim, dt, shape)
    axis = _int_arg(axis)
    if nd and axis >= nd:
        raise ValueError(
            f"(InvalidArgument) 'axis'({axis}) must be less than Rank(X)({nd}) of Input(X).\n"
            f"  [Hint: Expected int_axis < x_rank, but received int_axis:{axis} >= x_rank:{nd}.]")
    if nd and axis < -nd:
        raise ValueError(
            f"(InvalidArgument) 'axis'({axis}) must be greater than or equal to -Rank(X)({-nd}).")
    ax = axis % nd if nd else None
    fn = S.argmax if pick == "argmax" else S.argmin
    shape = out_shape_for(x, (ax,) if nd else (), keepdim)
    return fn(x, ax, keepdim, dt, shape)


def argmax(x, axis=None, keepdim=False, dtype="int64", name=None, **kw):
    """Position of the largest element (the first one among equals) along ``axis``, or in the
    flattened tensor when ``axis`` is None. Integer output; no gradient."""
    extra = _aliases(kw, "argmax", input="x", dim="axis")
    return _arg("argmax", extra.get("x", x), extra.get("axis", axis), keepdim, dtype)


def argmin(x, axis=None, keepdim=False, dtype="int64", name=None, **kw):
    """Position of the smallest element (the first one among equals); see ``argmax``."""
    extra = _aliases(kw, "argmin", input="x", dim="axis")
    return _arg("argmin", extra.get("x", x), extra.get("axis", axis), keepdim, dtype)


# ---------------------------------------------------------------- topk / sort / argsort
def topk(x, k, axis=None, largest=True, sorted=True, name=None, **kw):  # noqa: A002
    """The k largest (or smallest) values along ``axis`` (last by default) and their positions.
    Values carry the gradient; positions are int64."""
    extra = _aliases(kw, "topk", input="x", dim="axis")
    x, axis = extra.get("x", x), extra.get("axis", axis)
    k = _int_arg(k)
    refuse_float16(x, "topk")
    require_dtypes(x, "topk", ("float32", "float64", "int32", "int64", "float16"))
    nd = x.data.ndim
    axis = -1 if axis is None else int(axis)
    if k < 1:
        raise ValueError(
            f"(InvalidArgument) the attribute of k in the topk must >= 1 or be a Tensor, but "
            f"received {k} .\n  [Hint: Expected k >= 1 == true, but received k >= 1:0 != "
            f"true:1.]")
    if nd:
        if not -nd <= axis < nd:
            raise ValueError(
                f"(InvalidArgument) the axis of topk must be [{-nd}, {nd}), but you set axis is "
                f"{axis}")
        width = x.data.shape[axis]
        if k > width:
            raise ValueError(
                f"(InvalidArgument) The rank ({k}) of the input 'k' for topk op must be less than "
                f"or equal to {width}.\n  [Hint: Expected k <= input_width, but received k:{k} > "
                f"input_width:{width}.]")
    values, indices = S.topk(x, k, axis, largest, sorted)
    if profiles.current().topk_namedtuple:
        return TopKRetType(values=values, indices=indices)
    return values, indices


def _sort_axis(x, axis):
    nd = x.data.ndim
    axis = int(axis)
    if nd == 0:
        return 0
    if axis >= nd:
        raise ValueError(
            f"(InvalidArgument) 'axis'({axis}) must be less than num_dims({nd}).\n  [Hint: "
            f"Expected axis < num_dims, but received axis:{axis} >= num_dims:{nd}.]")
    if axis < -nd:
        raise ValueError(
            f"(InvalidArgument) 'axis'({axis}) must be greater than or equal to "
            f"-num_dims({-nd}).\n  [Hint: Expected axis >= (-num_dims), but received "
            f"axis:{axis} < (-num_dims):{-nd}.]")
    return axis % nd


def _sortable():
    """argsort's CPU dtypes: 3.x's _SORTABLE; 2.x registers int32, int64, float64, float32 only
    (real 2.6.2: int16, uint8 and float16 raise NotFound)."""
    return _SORTABLE if profiles.current().kernel_set == "3" else _SORTABLE[:4]


def sort(x, axis=-1, descending=False, stable=False, name=None):
    """The values sorted along ``axis``; the gradient goes back to where each value came from."""
    require_dtypes(x, "argsort", _sortable())
    return S.argsort(x, _sort_axis(x, axis), descending, stable)[0]


def argsort(x, axis=-1, descending=False, stable=False, name=None):
    """The positions that sort ``x`` along ``axis`` (ties as Paddle's kernel orders them)."""
    require_dtypes(x, "argsort", _sortable())
    return S.argsort(x, _sort_axis(x, axis), descending, stable)[1]


# ---------------------------------------------------------------- kthvalue / mode
def kthvalue(x, k, axis=None, keepdim=False, name=None):
    """The k-th smallest value along ``axis`` (last by default) and its position."""
    require_dtypes(x, "kthvalue", ("float32", "float64", "int32", "int64"))
    k = _int_arg(k)
    nd = x.data.ndim
    axis = -1 if axis is None else int(axis)
    width = x.data.shape[axis] if nd else 1
    if not 1 <= k <= width:
        raise ValueError(
            f"(InvalidArgument) the k in the kthvalue must less equal than the elemenents "
            f"number of the input X, but received {k} .")
    return S.kthvalue(x, k, axis, keepdim)


def mode(x, axis=-1, keepdim=False, name=None):
    """The most frequent value along ``axis`` (the smallest of equally frequent ones) and its
    position."""
    require_dtypes(x, "mode", ("float32", "float64", "int32", "int64"))
    return S.mode(x, int(axis), keepdim)


# ---------------------------------------------------------------- where / masked_fill
def _scalar_operand(v):
    """A python scalar given to where(): 0-D tensor (3.x) or a [1] float64/int64 one (2.x)."""
    if profiles.current().where_scalars == "to_tensor":
        from .creation import to_tensor

        return to_tensor(v)
    return _wrap(np.full((1,), v, np.array([v]).dtype))


def _where_dtypes(x, y, logged_by="where"):
    """x and y brought to one dtype: floats promote to the wider; mixing an integer with a float
    is an error (TypeError in 3.x, the kernel's ValueError in 2.x). ``logged_by``: the op whose
    promotion glog line real Paddle logs."""
    xd, yd = x.data.dtype, y.data.dtype
    if xd == yd:
        return x, y
    if xd.kind == "f" and yd.kind == "f":
        target = xd if xd.itemsize >= yd.itemsize else yd
        from .. import glog

        glog.promoted(logged_by)
        return M.cast(x, target), M.cast(y, target)
    if profiles.current().promotion == "strict":
        raise TypeError(
            f"(InvalidType) Type promotion only support calculations between floating-point "
            f"numbers and between complex and real numbers. But got different data type x: "
            f"{xd.name}, y: {yd.name}.")
    raise ValueError(
        f"(InvalidArgument) The type of data we are trying to retrieve ({yd.name}) does not "
        f"match the type of data ({xd.name}) currently contained in the container.")


def _broadcast_shape(*tensors):
    shape = ()
    for t in tensors:
        try:
            shape = np.broadcast_shapes(shape, t.data.shape)
        except ValueError:
            raise ValueError(
                f"(InvalidArgument) Broadcast dimension mismatch. Operands could not be broadcast "
                f"together with the shape of X = {list(shape)} and the shape of Y = "
                f"{list(t.data.shape)}.") from None
    return shape


def where(condition, x=None, y=None, name=None):
    """``x`` where ``condition`` holds, else ``y`` (broadcast together). With only the condition,
    the positions where it holds, as ``nonzero(condition, as_tuple=True)``."""
    if np.isscalar(x):
        x = _scalar_operand(x)
    if np.isscalar(y):
        y = _scalar_operand(y)
    if x is None and y is None:
        return nonzero(condition, as_tuple=True)
    if x is None or y is None:
        raise ValueError("either both or neither of x and y should be given")
    if condition.data.dtype != np.bool_:
        if profiles.current().where_scalars == "to_tensor":
            raise ValueError(
                f"The `condition` is expected to be a boolean Tensor, but got a Tensor with dtype "
                f"{condition.dtype}")
        raise ValueError(
            f"(InvalidArgument) The type of data we are trying to retrieve (bool) does not match "
            f"the type of data ({condition.data.dtype.name}) currently contained in the "
            f"container.")
    # 2.x broadcasts unequal shapes in Python by paddle.add with zeros_like(x) + zeros_like(y):
    # a float promotion is then add's (its glog line, real 2.6.2), not where's
    same = x.data.shape == y.data.shape == condition.data.shape
    full64 = profiles.current().where_scalars == "full64"
    x, y = _where_dtypes(x, y, "add" if full64 and not same else "where")
    shape = _broadcast_shape(x, y, condition)
    x, y, condition = (B.broadcast_to(t, shape) for t in (x, y, condition))
    return S.where(condition, x, y, grad=profiles.current().where_grad)


def masked_fill(x, mask, value, name=None):
    """x with ``value`` written where ``mask`` holds. Paddle 2 composes
    ``where(logical_not(mask), x, value)`` (a tensor value gets the gradient of the filled
    places); Paddle 3 has a masked_fill op whose value gradient is zero (profile
    ``masked_fill_op``)."""
    if np.isscalar(value):
        value = _wrap(np.full((), value, x.data.dtype))
    elif value.data.dtype != x.data.dtype:
        value = M.cast(value, x.data.dtype)
    mask_data = mask.data.astype(bool)
    if profiles.current().masked_fill_op:
        shape = _broadcast_shape(x, mask, value)
        if shape != x.data.shape:
            x = B.broadcast_to(x, shape)
        return S.masked_fill(x, _wrap(np.broadcast_to(mask_data, shape)), value)
    keep = _wrap(~mask_data)
    shape = _broadcast_shape(x, keep, value)
    x, keep, value = (B.broadcast_to(t, shape) for t in (x, keep, value))
    return S.where(keep, x, value, grad=profiles.current().where_grad)


# ---------------------------------------------------------------- nonzero
def nonzero(x, as_tuple=False, name=None):
    """Coordinates of the non-zero elements: one row per element, shape [count, ndim]; with
    ``as_tuple`` one index tensor per dimension."""
    if x.data.ndim == 0:
        raise ValueError(
            "(InvalidArgument) Input(Condition) should have number of dimension at least 1\n"
            "  [Hint: Expected rank >= 1UL, but received rank:0 < 1UL:1.]")
    out = S.nonzero(x)
    if not as_tuple:
        return out
    cols = out.data
    if profiles.current().nonzero_tuple_1d:
        return tuple(_wrap(np.ascontiguousarray(cols[:, i])) for i in range(x.data.ndim))
    if x.data.ndim == 1:
        return (out,)
    return tuple(_wrap(np.ascontiguousarray(cols[:, i:i + 1])) for i in range(x.data.ndim))


# ---------------------------------------------------------------- searchsorted / bucketize
def searchsorted(sorted_sequence, values, out_int32=False, right=False, name=None):
    """Where each of ``values`` would be inserted into the (last axis of the) sorted sequence."""
    from ..core import as_tensor

    values = as_tensor(values)
    dt = np.int32 if out_int32 else np.int64
    return S.searchsorted(sorted_sequence, values, right, dt)


def bucketize(x, sorted_sequence, out_int32=False, right=False, name=None):
    """searchsorted with the arguments the other way round (sorted_sequence is 1-D)."""
    return searchsorted(sorted_sequence, x, out_int32, right)


# ---------------------------------------------------------------- unique
def unique(x, return_index=False, return_inverse=False, return_counts=False, axis=None,
           dtype="int64", name=None):
    """The sorted distinct values (of the flattened tensor, or the distinct slices along
    ``axis``), with the first positions, the inverse map and the counts when asked."""
    idt = dtypes.to_np(dtype)
    data = x.data
    if axis is None:
        vals, first, inv, counts = np.unique(data.reshape(-1), True, True, True)
    else:
        vals, first, inv, counts = np.unique(data, True, True, True, axis=int(axis))
    out = [_wrap(vals.astype(data.dtype))]
    if return_index:
        out.append(_wrap(first.astype(idt)))
    if return_inverse:
        out.append(_wrap(inv.reshape(-1).astype(idt)))
    if return_counts:
        out.append(_wrap(counts.astype(idt)))
    return out[0] if len(out) == 1 else tuple(out)
