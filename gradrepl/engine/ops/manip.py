"""More ops that move elements: diagonals (``diag``, ``diagonal``, ``diag_embed``), writes along
an axis (``put_along_axis``), index writes (``index_add``, ``index_put``, ``scatter_nd_add``).

Each read pairs with its write as its gradient and the other way round (the diagonal of a
matrix reads what ``diag_embed`` writes), so ``create_graph=True`` works to any order.
"""
from __future__ import annotations

import numpy as np

from ..registry import apply, register
from ._util import const


# ============================================================== diagonals
def _diag_positions(n_rows, n_cols, offset):
    """Row and column indices of the ``offset`` diagonal of an [n_rows, n_cols] matrix."""
    if offset >= 0:
        length = max(0, min(n_rows, n_cols - offset))
        rows = np.arange(length)
        return rows, rows + offset
    length = max(0, min(n_rows + offset, n_cols))
    cols = np.arange(length)
    return cols - offset, cols


def _diagonal_fwd(x, offset=0, axis1=0, axis2=1):
    return np.array(np.diagonal(x, offset, axis1, axis2))


def _embed_fwd(x, shape, offset=0, axis1=0, axis2=1):
    """A zero tensor of ``shape`` whose ``offset`` diagonal over (axis1, axis2) holds x (x's
    last axis runs along the diagonal, as ``np.diagonal`` reads it)."""
    out = np.zeros(shape, x.dtype)
    moved = np.moveaxis(out, (axis1, axis2), (-2, -1))
    r, c = _diag_positions(shape[axis1], shape[axis2], offset)
    moved[..., r, c] = x
    return out


DIAGONAL = register(
    "diagonal", _diagonal_fwd,
    lambda n, g: diagonal_grad(g, n.in_meta[0][0], **n.attrs),
    legacy_name="DiagonalBackward", saves_inputs=False,
    examples=[([(3, 4)], {"offset": 1}), ([(2, 3, 3)], {"offset": -1, "axis1": 1, "axis2": 2})])
DIAGONAL_GRAD = register(
    "diagonal_grad", _embed_fwd,
    lambda n, gg: diagonal(gg, n.attrs["offset"], n.attrs["axis1"], n.attrs["axis2"]),
    legacy_name="DiagonalGradBackward", saves_inputs=False,
    examples=[([(3,)], {"shape": (3, 4), "offset": 1, "axis1": 0, "axis2": 1})])
DIAG_EMBED = register(
    "diag_embed", _embed_fwd,
    lambda n, g: diagonal(g, n.attrs["offset"], n.attrs["axis1"], n.attrs["axis2"]),
    legacy_name="DiagEmbedBackward", saves_inputs=False,
    examples=[([(2, 3)], {"shape": (2, 3, 3), "offset": 0, "axis1": 1, "axis2": 2}),
              ([(2,)], {"shape": (3, 3), "offset": -1, "axis1": 0, "axis2": 1})])


def diagonal(x, offset=0, axis1=0, axis2=1):
    """The ``offset`` diagonal over axes (axis1, axis2) (non-negative), as a last axis."""
    return apply(DIAGONAL, (x,), {"offset": int(offset), "axis1": int(axis1),
                                  "axis2": int(axis2)})


def diagonal_grad(g, shape, offset=0, axis1=0, axis2=1):
    return apply(DIAGONAL_GRAD, (g,), {"shape": tuple(shape), "offset": offset,
                                       "axis1": axis1, "axis2": axis2})


def diag_embed(x, offset=0, dim1=-2, dim2=-1):
    """x's last axis on the ``offset`` diagonal of two new axes dim1, dim2 of the result."""
    nd = x.data.ndim + 1
    d1, d2 = dim1 % nd, dim2 % nd
    n = x.data.shape[-1] + abs(offset)
    rest = list(x.data.shape[:-1])
    shape = []
    for i in range(nd):
        shape.append(n if i in (d1, d2) else rest.pop(0))
    return apply(DIAG_EMBED, (x,), {"shape": tuple(shape), "offset": int(offset),
                                    "axis1": d1, "axis2": d2})


def _diag_fwd(x, offset=0, padding_value=0):
    """paddle.diag: a vector becomes a square matrix with it on the ``offset`` diagonal and
    ``padding_value`` elsewhere; a matrix gives its ``offset`` diagonal."""
    if x.ndim <= 1:
        v = x.reshape(-1)
        n = v.shape[0] + abs(offset)
        out = np.full((n, n), padding_value, x.dtype)
        r, c = _diag_positions(n, n, offset)
        out[r, c] = v
        return out
    return np.array(np.diagonal(x, offset))


def _diag_vjp(n, g):
    shape = n.in_meta[0][0]
    off = n.attrs.get("offset", 0)
    if len(shape) <= 1:
        d = diagonal(g, off, 0, 1)
        if d.data.shape != shape:
            from .shape import reshape

            d = reshape(d, shape)
        return d
    return diagonal_grad(g, shape, off, 0, 1)


DIAG = register("diag", _diag_fwd, _diag_vjp, legacy_name="DiagBackward", saves_inputs=False,
                examples=[([(3,)], {"offset": 1, "padding_value": 2.0}),
                          ([(3, 4)], {"offset": -1})])


def diag(x, offset=0, padding_value=0):
    return apply(DIAG, (x,), {"offset": int(offset), "padding_value": padding_value})


# ============================================================== put_along_axis
def along(indices, axis):
    """The fancy-index tuple that reaches ``indices`` along ``axis`` (np.put_along_axis's)."""
    grids = list(np.indices(indices.shape, sparse=True))
    grids[axis] = indices
    return tuple(grids)


def _put_fwd(x, indices, values, axis, reduce="assign", include_self=True):
    out = np.array(x)
    idx = along(indices, axis)
    values = np.broadcast_to(values, indices.shape).astype(x.dtype)
    if reduce == "assign":
        out[idx] = values
        return out
    if reduce == "add":
        if not include_self:
            out[idx] = 0
        np.add.at(out, idx, values)
        return out
    if reduce in ("mul", "multiply"):
        if not include_self:
            out[idx] = 1
        np.multiply.at(out, idx, values)
        return out
    if reduce in ("amax", "amin"):
        fn = np.maximum if reduce == "amax" else np.minimum
        if not include_self:
            first = np.zeros(out.shape, bool)
            first[idx] = True
            out[first] = np.inf if reduce == "amin" else -np.inf
            if out.dtype.kind in "iu":
                info = np.iinfo(out.dtype)
                out[first] = info.max if reduce == "amin" else info.min
        fn.at(out, idx, values)
        return out
    if reduce == "mean":
        count = np.zeros(out.shape, np.int64)
        np.add.at(count, idx, 1)
        hit = count > 0
        total = np.array(out, np.float64)
        if not include_self:
            total[hit] = 0
        np.add.at(total, idx, values.astype(np.float64))
        denom = count + (1 if include_self else 0)
        res = np.where(hit, total / np.maximum(denom, 1), out)
        if out.dtype.kind in "iu":
            res = np.floor(res)
        return res.astype(out.dtype)
    raise ValueError(f"reduce must be one of assign, add, mul, multiply, mean, amin, amax, "
                     f"got {reduce}")


def _put_vjp(n, g):
    """assign: x keeps the gradient where nothing was written, values read theirs back."""
    from .index import take_along_axis
    from .math import multiply

    indices = n.inputs[1]
    axis = n.attrs["axis"]
    keep = np.ones(n.in_meta[0][0], bool)
    keep[along(indices.data, axis)] = False
    gv = take_along_axis(g, indices, axis)
    return multiply(g, const(g, keep)), None, gv


PUT_ALONG_AXIS = register(
    "put_along_axis", _put_fwd, _put_vjp, diff_inputs=(0, 2), legacy_name="PutAlongAxisBackward",
    examples=[([(3, 3), np.array([[0, 1, 2]]), (1, 3)], {"axis": 0})])


def put_along_axis(x, indices, values, axis, reduce="assign", include_self=True):
    """``reduce="assign"`` is differentiable (x and values); the other reductions are computed
    without a gradient here."""
    attrs = {"axis": int(axis)}
    if reduce != "assign" or not include_self:
        from ..grad_mode import no_grad

        attrs.update(reduce=reduce, include_self=include_self)
        if reduce == "add":
            return _put_add(x, indices, values, axis, include_self)
        with no_grad():
            return apply(PUT_ALONG_AXIS, (x, indices, values), attrs)
    return apply(PUT_ALONG_AXIS, (x, indices, values), attrs)


def _put_add(x, indices, values, axis, include_self):
    """x + (values added up at their positions): differentiable in x and values."""
    from .index import take_along_axis_grad
    from .math import add, multiply

    added = take_along_axis_grad(values, indices, x.data.shape, axis)
    if not include_self:
        keep = np.ones(x.data.shape, bool)
        keep[along(indices.data, axis)] = False
        x = multiply(x, const(x, keep))
    return add(x, added)
