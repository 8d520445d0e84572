"""Ops that read or write chosen elements: slicing, gathers, masked selection, scatter, set_value.

Reading ops pair with a *scatter-add* op for their gradient: the gradient of ``x[index]`` is a
zero tensor of x's shape with the output gradient added at ``index`` (``np.add.at``, so an
element picked twice gets both contributions). The scatter-add's own VJP reads at the same index
again, so both directions are registered ops and ``create_graph=True`` works to any order.

``index`` attributes are numpy index tuples prepared by the dialect: python ints, slices, None,
Ellipsis and int64 arrays (boolean masks already turned into their ``nonzero()`` arrays).
Integer index *tensors* of gather-like ops are inputs that take no gradient (``diff_inputs``).
"""
from __future__ import annotations

import numpy as np

from .._native import lib as _NATIVE
from ..registry import apply, register
from ._util import const

_ROWS_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def _zeros_add_at(g, shape, index):
    out = np.zeros(shape, g.dtype)
    if _is_basic(index):  # each element once: copied as slice grads do (-0.0 stays)
        out[index] = g
    elif not _native_add_rows(out, index, g):
        np.add.at(out, index, g)
    return out


def _native_add_rows(out, index, g):
    """``np.add.at(out, index, g)`` by the native kernel (the same additions in the same order)
    for one int64 index array on the first dim of a float32/float64 ``out``; False: not done."""
    if _NATIVE is None or len(index) != 1 or out.dtype not in _ROWS_DTYPES or not out.ndim:
        return False
    idx = index[0]
    if type(idx) is not np.ndarray or idx.dtype != np.int64 or g.dtype != out.dtype \
            or g.shape != idx.shape + out.shape[1:] or not out.size:
        return False
    return not _NATIVE.add_rows(out, np.ascontiguousarray(idx).reshape(-1),
                                np.ascontiguousarray(g))


# ---------------------------------------------------------------- x[index]
def _read(x, index):
    return x[index]


def _read_vjp(n, g):
    return index_put_add(g, n.in_meta[0][0], n.attrs["index"])


_BASIC_EX = [([(3, 4)], {"index": (slice(1, None), 0)}), ([(2, 3, 4)], {"index": (Ellipsis, 1)}),
             ([(4,)], {"index": (None, slice(None, None, -2))})]

SLICE = register("slice", _read, _read_vjp, legacy_name="SliceBackward", examples=_BASIC_EX, saves_inputs=False)
STRIDED_SLICE = register("strided_slice", _read, _read_vjp, legacy_name="StridedSliceBackward",
                         examples=_BASIC_EX, saves_inputs=False)
INDEX = register("index_elementwise_get", _read, _read_vjp, legacy_name="IndexBackward",
                 examples=[([(3, 2)], {"index": (np.array([2, 0, 2]),)}),
                           ([(2, 3, 4)], {"index": (slice(None), np.array([0, 2]), 1)})])

INDEX_PUT_ADD = register(
    "index_put_add", lambda g, shape, index: _zeros_add_at(g, shape, index),
    lambda n, gg: _read_op(n.attrs["index"])(gg, n.attrs["index"]),
    legacy_name="SliceGradBackward",
    examples=[([(2,)], {"shape": (3, 2), "index": (1,)}),
              ([(3, 2)], {"shape": (3, 2), "index": (np.array([2, 0, 2]),)})])


def _is_basic(index):
    return all(i is None or i is Ellipsis or isinstance(i, (int, slice)) for i in index)


def _read_op(index):
    if not _is_basic(index):
        return _index_fn
    if any(isinstance(i, slice) and i.step not in (None, 1) for i in index):
        return _strided_fn
    return slice_


def slice_(x, index):
    """``x[index]`` for a basic index (ints, unit-step slices, None, Ellipsis): a view."""
    return apply(SLICE, (x,), {"index": tuple(index)})


def _strided_fn(x, index):
    return apply(STRIDED_SLICE, (x,), {"index": tuple(index)})


def _index_fn(x, index):
    return apply(INDEX, (x,), {"index": tuple(index)})


def getitem(x, index):
    """``x[index]`` by the op that fits the index (slice, strided_slice or advanced indexing)."""
    index = tuple(index)
    return _read_op(index)(x, index)


def index_put_add(g, shape, index):
    """Zeros of ``shape`` with ``g`` added at ``index`` (repeated positions accumulate)."""
    return apply(INDEX_PUT_ADD, (g,), {"shape": tuple(shape), "index": tuple(index)})


# ---------------------------------------------------------------- masked_select
def _masked_select_fwd(x, mask):
    shape = np.broadcast_shapes(x.shape, mask.shape)
    return np.broadcast_to(x, shape)[np.broadcast_to(mask, shape)]


def _masked_select_vjp(n, g):
    x_shape = n.in_meta[0][0]
    mask = n.inputs[1]
    full = np.broadcast_shapes(x_shape, mask.data.shape)
    return masked_select_grad(g, mask, full), None


MASKED_SELECT = register(
    "masked_select", _masked_select_fwd, _masked_select_vjp, broadcast=True, diff_inputs=(0,),
    legacy_name="MaskedSelectBackward",
    examples=[([(2, 3), np.array([[True, False, True], [False, False, True]])], {}),
              ([(2, 2), np.array([True, False])], {})])


def _masked_select_grad_fwd(g, mask, shape):
    out = np.zeros(shape, g.dtype)
    out[np.broadcast_to(mask, shape)] = g
    return out


MASKED_SELECT_GRAD = register(
    "masked_select_grad", _masked_select_grad_fwd,
    lambda n, gg: (masked_select(gg, n.inputs[1]), None),
    diff_inputs=(0,), legacy_name="MaskedSelectGradBackward",
    examples=[([(3,), np.array([[True, False, True], [False, False, True]])], {"shape": (2, 3)})])


def masked_select(x, mask):
    """The elements of ``x`` where ``mask`` (broadcast with x) is True, as a 1-D tensor."""
    return apply(MASKED_SELECT, (x, mask))


def masked_select_grad(g, mask, shape):
    return apply(MASKED_SELECT_GRAD, (g, mask), {"shape": tuple(shape)})


# ---------------------------------------------------------------- gather / index_select
def _gather_fwd(x, index, axis=0):
    return np.take(x, index, axis=axis)


def _gather_vjp(n, g):
    return gather_grad(g, n.inputs[1], n.in_meta[0][0], n.attrs.get("axis", 0)), None


def _gather_grad_fwd(g, index, shape, axis=0):
    out = np.zeros(shape, g.dtype)
    np.add.at(np.moveaxis(out, axis, 0), index, np.moveaxis(g, axis, 0))
    return out


_GATHER_EX = [([(3, 2), np.array([2, 0, 2])], {"axis": 0}),
              ([(2, 3), np.array([1, 1])], {"axis": 1})]

GATHER = register("gather", _gather_fwd, _gather_vjp, diff_inputs=(0,),
                  legacy_name="GatherBackward", examples=_GATHER_EX)
INDEX_SELECT = register("index_select", _gather_fwd, _gather_vjp, diff_inputs=(0,),
                        legacy_name="IndexSelectBackward", examples=_GATHER_EX)
GATHER_GRAD = register(
    "gather_grad", _gather_grad_fwd,
    lambda n, gg: (gather(gg, n.inputs[1], n.attrs.get("axis", 0)), None),
    diff_inputs=(0,), legacy_name="GatherGradBackward",
    examples=[([(3, 2), np.array([2, 0, 2])], {"shape": (3, 2), "axis": 0})])


def gather(x, index, axis=0):
    """Rows (slices along ``axis``) of ``x`` picked by the 1-D integer tensor ``index``."""
    return apply(GATHER, (x, index), {"axis": int(axis)})


def index_select(x, index, axis=0):
    return apply(INDEX_SELECT, (x, index), {"axis": int(axis)})


def gather_grad(g, index, shape, axis=0):
    return apply(GATHER_GRAD, (g, index), {"shape": tuple(shape), "axis": int(axis)})


# ---------------------------------------------------------------- gather_nd
def _nd_index(index):
    idx = np.asarray(index)
    return tuple(np.moveaxis(idx, -1, 0)) if idx.shape[-1] else ()


def _gather_nd_fwd(x, index):
    return np.array(x[_nd_index(index)])


def _gather_nd_grad_fwd(g, index, shape):
    out = np.zeros(shape, g.dtype)
    np.add.at(out, _nd_index(index), g)
    return out


GATHER_ND = register(
    "gather_nd", _gather_nd_fwd,
    lambda n, g: (gather_nd_grad(g, n.inputs[1], n.in_meta[0][0]), None),
    diff_inputs=(0,), legacy_name="GatherNdBackward",
    examples=[([(2, 3), np.array([[0, 1], [1, 2], [0, 1]])], {}),
              ([(2, 3, 2), np.array([[1], [0]])], {})])
GATHER_ND_GRAD = register(
    "gather_nd_grad", _gather_nd_grad_fwd,
    lambda n, gg: (gather_nd(gg, n.inputs[1]), None),
    diff_inputs=(0,), legacy_name="GatherNdGradBackward",
    examples=[([(3,), np.array([[0, 1], [1, 2], [0, 1]])], {"shape": (2, 3)})])


def gather_nd(x, index):
    """``x`` read at the coordinates in the last axis of ``index``."""
    return apply(GATHER_ND, (x, index))


def gather_nd_grad(g, index, shape):
    return apply(GATHER_ND_GRAD, (g, index), {"shape": tuple(shape)})


# ---------------------------------------------------------------- take_along_axis
def _along(indices, axis):
    """The fancy-index tuple that reads ``indices`` along ``axis`` (np.take_along_axis's)."""
    grids = list(np.indices(indices.shape, sparse=True))
    grids[axis] = indices
    return tuple(grids)


def _take_along_fwd(x, indices, axis):
    return x[_along(indices, axis)]


def _take_along_grad_fwd(g, indices, shape, axis):
    out = np.zeros(shape, g.dtype)
    np.add.at(out, _along(indices, axis), g)
    return out


TAKE_ALONG_AXIS = register(
    "take_along_axis", _take_along_fwd,
    lambda n, g: (take_along_axis_grad(g, n.inputs[1], n.in_meta[0][0], n.attrs["axis"]), None),
    diff_inputs=(0,), legacy_name="TakeAlongAxisBackward",
    examples=[([(2, 3), np.array([[0, 0], [2, 1]])], {"axis": 1})])
TAKE_ALONG_AXIS_GRAD = register(
    "take_along_axis_grad", _take_along_grad_fwd,
    lambda n, gg: (take_along_axis(gg, n.inputs[1], n.attrs["axis"]), None),
    diff_inputs=(0,), legacy_name="TakeAlongAxisGradBackward",
    examples=[([(2, 2), np.array([[0, 0], [2, 1]])], {"shape": (2, 3), "axis": 1})])


def take_along_axis(x, indices, axis):
    """``x`` read along ``axis`` at ``indices`` (same rank as x, already broadcast)."""
    return apply(TAKE_ALONG_AXIS, (x, indices), {"axis": int(axis)})


def take_along_axis_grad(g, indices, shape, axis):
    return apply(TAKE_ALONG_AXIS_GRAD, (g, indices), {"shape": tuple(shape), "axis": int(axis)})


# ---------------------------------------------------------------- scatter
def _scatter_fwd(x, index, updates, overwrite=True):
    out = np.array(x)
    if overwrite:
        out[index] = updates
    else:
        out[index] = 0
        np.add.at(out, index, updates)
    return out


def _scatter_vjp(n, g):
    """x's rows at ``index`` were replaced: their gradient is 0; updates read their rows of g."""
    from .math import multiply

    index = n.inputs[1]
    keep = np.ones(n.in_meta[0][0], dtype=bool)
    keep[index.data] = False
    return multiply(g, const(g, keep)), None, gather(g, index, 0)


SCATTER = register(
    "scatter", _scatter_fwd, _scatter_vjp, diff_inputs=(0, 2), legacy_name="ScatterBackward",
    examples=[([(3, 2), np.array([2, 0]), (2, 2)], {"overwrite": True}),
              ([(3, 2), np.array([1]), (1, 2)], {"overwrite": False})])


def scatter(x, index, updates, overwrite=True):
    return apply(SCATTER, (x, index, updates), {"overwrite": bool(overwrite)})


# ---------------------------------------------------------------- set_value (x[index] = v)
def _set_value_fwd(x, index, value):
    out = np.array(x)
    out[index] = value
    return out


def _set_value_with_tensor_fwd(x, v, index):
    return _set_value_fwd(x, index, v)


def _kept(n, g):
    """The gradient of x through ``x[index] = ...``: zero where the value was overwritten."""
    from .math import multiply

    keep = np.ones(n.in_meta[0][0], dtype=bool)
    keep[n.attrs["index"]] = False
    return multiply(g, const(g, keep))


SET_VALUE = register(
    "set_value", lambda x, index, value: _set_value_fwd(x, index, value),
    _kept, legacy_name="SetValueBackward",
    examples=[([(3, 2)], {"index": (1,), "value": 5.0})])
SET_VALUE_WITH_TENSOR = register(
    "set_value_with_tensor", _set_value_with_tensor_fwd,
    lambda n, g: (_kept(n, g), getitem(g, n.attrs["index"])),
    broadcast=True, legacy_name="SetValueBackward",
    examples=[([(3, 2), (2,)], {"index": (1,)}), ([(3, 2), (1,)], {"index": (slice(0, 2), 0)})])


def set_value(x, index, value):
    """A copy of ``x`` with the constant ``value`` (numpy, broadcastable) written at ``index``."""
    return apply(SET_VALUE, (x,), {"index": tuple(index), "value": value})


def set_value_with_tensor(x, v, index):
    """A copy of ``x`` with tensor ``v`` written at ``index``; gradients flow to both."""
    return apply(SET_VALUE_WITH_TENSOR, (x, v), {"index": tuple(index)})
