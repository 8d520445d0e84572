"""Searching and sorting: argmax/argmin, sort (``argsort``), topk, kthvalue, mode, where,
nonzero, searchsorted.

Which of several equal elements a sort or topk returns is decided, in Paddle's CPU kernels, by
the C++ standard library: ``std::sort`` (introsort), ``std::partial_sort`` (heap select),
``std::nth_element`` (introselect), ``std::stable_sort`` -- on (value, index) pairs compared by
value only, NaN counted as the largest. The functions at the top of this module are those
algorithms as libstdc++ writes them, so ties come out in the same order as in Paddle (for short
rows an insertion sort: the first index first; longer rows a less obvious order). Rows without
ties or NaN take a numpy fast path: their order is unique.

VJPs: the value outputs of sort/topk/kthvalue/mode send their gradient back to the positions
they were read from (a scatter into zeros); ``where`` sends ``dout`` to x where the condition
holds and to y elsewhere (exact zeros in the other places, as Paddle's where_grad).
"""
from __future__ import annotations

import numpy as np

from ..registry import apply, register
from ._util import const

_THRESHOLD = 16  # libstdc++'s _S_threshold


# ---------------------------------------------------------------- libstdc++ algorithms
# Each works in place on the python list ``a`` between ``first`` and ``last`` with ``less``.
def _lg(n):
    return n.bit_length() - 1


def _unguarded_linear_insert(a, last, less):
    val = a[last]
    nxt = last - 1
    while less(val, a[nxt]):
        a[last] = a[nxt]
        last = nxt
        nxt -= 1
    a[last] = val


def _insertion_sort(a, first, last, less):
    if first == last:
        return
    for i in range(first + 1, last):
        if less(a[i], a[first]):
            val = a[i]
            a[first + 1:i + 1] = a[first:i]
            a[first] = val
        else:
            _unguarded_linear_insert(a, i, less)


def _final_insertion_sort(a, first, last, less):
    if last - first > _THRESHOLD:
        _insertion_sort(a, first, first + _THRESHOLD, less)
        for i in range(first + _THRESHOLD, last):
            _unguarded_linear_insert(a, i, less)
    else:
        _insertion_sort(a, first, last, less)


def _move_median_to_first(a, result, x, y, z, less):
    if less(a[x], a[y]):
        if less(a[y], a[z]):
            k = y
        elif less(a[x], a[z]):
            k = z
        else:
            k = x
    elif less(a[x], a[z]):
        k = x
    elif less(a[y], a[z]):
        k = z
    else:
        k = y
    a[result], a[k] = a[k], a[result]


def _unguarded_partition(a, first, last, pivot, less):
    while True:
        while less(a[first], a[pivot]):
            first += 1
        last -= 1
        while less(a[pivot], a[last]):
            last -= 1
        if not first < last:
            return first
        a[first], a[last] = a[last], a[first]
        first += 1


def _partition_pivot(a, first, last, less):
    mid = first + (last - first) // 2
    _move_median_to_first(a, first, first + 1, mid, last - 1, less)
    return _unguarded_partition(a, first + 1, last, first, less)


def _push_heap(a, first, hole, top, value, less):
    parent = (hole - 1) // 2
    while hole > top and less(a[first + parent], value):
        a[first + hole] = a[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    a[first + hole] = value


def _adjust_heap(a, first, hole, length, value, less):
    top = hole
    child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if less(a[first + child], a[first + child - 1]):
            child -= 1
        a[first + hole] = a[first + child]
        hole = child
    if (length & 1) == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        a[first + hole] = a[first + child - 1]
        hole = child - 1
    _push_heap(a, first, hole, top, value, less)


def _make_heap(a, first, last, less):
    length = last - first
    if length < 2:
        return
    parent = (length - 2) // 2
    while True:
        _adjust_heap(a, first, parent, length, a[first + parent], less)
        if parent == 0:
            return
        parent -= 1


def _pop_heap(a, first, last, result, less):
    value = a[result]
    a[result] = a[first]
    _adjust_heap(a, first, 0, last - first, value, less)


def _heap_select(a, first, middle, last, less):
    _make_heap(a, first, middle, less)
    for i in range(middle, last):
        if less(a[i], a[first]):
            _pop_heap(a, first, middle, i, less)


def _sort_heap(a, first, last, less):
    while last - first > 1:
        last -= 1
        _pop_heap(a, first, last, last, less)


def std_partial_sort(a, first, middle, last, less):
    _heap_select(a, first, middle, last, less)
    _sort_heap(a, first, middle, less)


def _introsort_loop(a, first, last, depth, less):
    while last - first > _THRESHOLD:
        if depth == 0:
            std_partial_sort(a, first, last, last, less)
            return
        depth -= 1
        cut = _partition_pivot(a, first, last, less)
        _introsort_loop(a, cut, last, depth, less)
        last = cut


def std_sort(a, first, last, less):
    if first != last:
        _introsort_loop(a, first, last, _lg(last - first) * 2, less)
        _final_insertion_sort(a, first, last, less)


def std_nth_element(a, first, nth, last, less):
    if first == last or nth == last:
        return
    depth = _lg(last - first) * 2
    while last - first > 3:
        if depth == 0:
            _heap_select(a, first, nth + 1, last, less)
            a[first], a[nth] = a[nth], a[first]
            return
        depth -= 1
        cut = _partition_pivot(a, first, last, less)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(a, first, last, less)


def _isnan(v):
    return v != v


def _less_asc(l, r):  # Paddle's ascending comparator on (value, index) pairs
    return (not _isnan(l[0]) and _isnan(r[0])) or l[0] < r[0]


def _less_desc(l, r):
    return (_isnan(l[0]) and not _isnan(r[0])) or l[0] > r[0]


# ---------------------------------------------------------------- row kernels
def _rows(x, axis):
    """x with ``axis`` moved last, as (rows, width), and the function putting results back."""
    moved = np.moveaxis(x, axis, -1)
    lead = moved.shape[:-1]

    def back(r):
        return np.moveaxis(r.reshape(lead + r.shape[-1:]), -1, axis)

    return moved.reshape(-1, moved.shape[-1] if moved.ndim else 1), back


def _has_ties(row):
    if row.dtype.kind == "f" and np.isnan(row).any():
        return True
    return len(np.unique(row)) != len(row)


def _pairs(row):
    return list(zip(row.tolist(), range(len(row))))


def _sort_row(row, descending, stable):
    """Positions of ``row`` in sorted order, as Paddle's argsort kernel orders ties."""
    if not _has_ties(row):
        order = np.argsort(row, kind="stable")
        return order[::-1] if descending else order
    less = _less_desc if descending else _less_asc
    pairs = _pairs(row)
    if stable:
        key = (lambda p: (not _isnan(p[0]), -p[0] if not _isnan(p[0]) else 0)) if descending \
            else (lambda p: (_isnan(p[0]), p[0] if not _isnan(p[0]) else 0))
        pairs.sort(key=key)
    else:
        std_sort(pairs, 0, len(pairs), less)
    return np.array([p[1] for p in pairs], np.int64)


def _topk_row(row, k, largest, sorted_):
    """Positions of the top k, as Paddle's topk kernel picks and orders them."""
    width = len(row)
    partial = k * 64 < width
    if (partial or sorted_) and not _has_ties(row):
        order = np.argsort(row, kind="stable")
        return (order[::-1] if largest else order)[:k]
    less = _less_desc if largest else _less_asc
    pairs = _pairs(row)
    if partial:
        std_partial_sort(pairs, 0, k, width, less)
    else:
        std_nth_element(pairs, 0, k - 1, width, less)
        if sorted_:
            std_sort(pairs, 0, k - 1, less)
    return np.array([p[1] for p in pairs[:k]], np.int64)


def _kth_row(row, k):
    """Position of the k-th smallest (1-based), as Paddle's kthvalue kernel finds it."""
    width = len(row)
    pairs = _pairs(row)
    if k * 64 < width:
        std_partial_sort(pairs, 0, k, width, _less_asc)
    else:
        std_nth_element(pairs, 0, k - 1, width, _less_asc)
    return pairs[k - 1][1]


def _mode_row(row):
    """Position of the most frequent value, as Paddle's mode kernel finds it: a std::sort, then
    runs of equal values; the first longest run wins and its last element is reported."""
    pairs = _pairs(row)
    std_sort(pairs, 0, len(pairs), _less_asc)
    best, best_count, count = 0, 0, 0
    for i in range(len(pairs)):
        count += 1
        if i == len(pairs) - 1 or pairs[i + 1][0] != pairs[i][0]:
            if count > best_count:
                best, best_count = i, count
            count = 0
    return pairs[best][1]


# ---------------------------------------------------------------- argmax / argmin
def _arg_fwd(pick):
    def fwd(x, axis=None, keepdim=False, dtype=np.int64, out_shape=None):
        a = x
        if x.dtype.kind == "f":  # comparisons with NaN fail: the kernel skips NaN
            a = np.where(np.isnan(x), -np.inf if pick == "max" else np.inf, x)
        f = np.argmax if pick == "max" else np.argmin
        if axis is None:
            out = np.asarray(f(a.reshape(-1)) if a.size else 0)
            if keepdim:
                out = out.reshape((1,) * x.ndim)
        else:
            out = f(a, axis=axis, keepdims=keepdim) if x.ndim else np.asarray(0)
        out = np.asarray(out).astype(dtype)
        return np.reshape(out, out_shape) if out_shape is not None else out

    fwd.__name__ = f"_arg{pick}_fwd"
    return fwd


ARGMAX = register("argmax", _arg_fwd("max"), None, check=False, examples=[([(2, 3)], {"axis": 1})])
ARGMIN = register("argmin", _arg_fwd("min"), None, check=False, examples=[([(2, 3)], {"axis": 1})])


def argmax(x, axis=None, keepdim=False, dtype=np.int64, out_shape=None):
    return apply(ARGMAX, (x,), _arg_attrs(axis, keepdim, dtype, out_shape))


def argmin(x, axis=None, keepdim=False, dtype=np.int64, out_shape=None):
    return apply(ARGMIN, (x,), _arg_attrs(axis, keepdim, dtype, out_shape))


def _arg_attrs(axis, keepdim, dtype, out_shape):
    attrs = {"axis": axis, "keepdim": bool(keepdim), "dtype": np.dtype(dtype)}
    if out_shape is not None:
        attrs["out_shape"] = tuple(out_shape)
    return attrs


# ---------------------------------------------------------------- gradient of a selection
def _scatter_back(n, g, indices, axis):
    """The gradient of values read from x at ``indices`` along ``axis``: a scatter into zeros."""
    from . import index

    idx = const(g, indices, np.int64)
    return index.take_along_axis_grad(g, idx, n.in_meta[0][0], axis)


# ---------------------------------------------------------------- sort (argsort) / topk
def _argsort_fwd(x, axis=-1, descending=False, stable=False):
    if x.ndim == 0:
        return np.array(x), np.zeros((), np.int64)
    axis %= x.ndim
    rows, back = _rows(x, axis)
    idx = np.stack([_sort_row(r, descending, stable) for r in rows]) if rows.size else \
        np.zeros(rows.shape, np.int64)
    idx = back(idx)
    return np.take_along_axis(x, idx, axis), idx


def _argsort_vjp(n, g, _g_idx=None):
    idx = n.out_data[1]
    if idx.ndim == 0:
        return g
    return _scatter_back(n, g, idx, n.attrs["axis"] % idx.ndim)


ARGSORT = register("argsort", _argsort_fwd, _argsort_vjp, n_outputs=2,
                   legacy_name="ArgsortBackward", domain="distinct",
                   examples=[([(2, 3)], {"axis": 1}), ([(3, 2)], {"axis": 0, "descending": True})])


def argsort(x, axis=-1, descending=False, stable=False):
    """(sorted values, their positions): Paddle's argsort op, behind sort and argsort."""
    return apply(ARGSORT, (x,), {"axis": int(axis), "descending": bool(descending),
                                 "stable": bool(stable)})


def _topk_fwd(x, k, axis=-1, largest=True, sorted=True):  # noqa: A002
    if x.ndim == 0:
        return np.array(x), np.zeros((), np.int64)
    axis %= x.ndim
    rows, back = _rows(x, axis)
    idx = np.stack([_topk_row(r, k, largest, sorted) for r in rows]) if rows.size else \
        np.zeros(rows.shape[:-1] + (k,), np.int64)
    idx = back(idx)
    return np.take_along_axis(x, idx, axis), idx


TOPK = register("topk", _topk_fwd, _argsort_vjp, n_outputs=2, legacy_name="TopKBackward",
                domain="distinct",
                examples=[([(2, 4)], {"k": 2, "axis": 1}), ([(3, 2)], {"k": 1, "axis": 0})])


def topk(x, k, axis=-1, largest=True, sorted=True):  # noqa: A002
    return apply(TOPK, (x,), {"k": int(k), "axis": int(axis), "largest": bool(largest),
                              "sorted": bool(sorted)})


# ---------------------------------------------------------------- kthvalue / mode
def _pick_fwd(row_fn):
    def fwd(x, axis=-1, keepdim=False, **kw):
        if x.ndim == 0:
            return np.array(x), np.zeros((), np.int64)
        axis %= x.ndim
        rows, back = _rows(x, axis)
        idx = back(np.array([[row_fn(r, **kw)] for r in rows], np.int64).reshape(-1, 1))
        vals = np.take_along_axis(x, idx, axis)
        if not keepdim:
            idx, vals = np.squeeze(idx, axis), np.squeeze(vals, axis)
        return vals, idx

    return fwd


def _pick_vjp(n, g, _g_idx=None):
    from .shape import reshape

    idx = n.out_data[1]
    shape = n.in_meta[0][0]
    if not shape:
        return g
    axis = n.attrs["axis"] % len(shape)
    kept = tuple(1 if i == axis else s for i, s in enumerate(shape))
    return _scatter_back(n, reshape(g, kept), idx.reshape(kept), axis)


KTHVALUE = register("kthvalue", _pick_fwd(_kth_row), _pick_vjp, n_outputs=2,
                    legacy_name="KthvalueBackward", domain="distinct",
                    examples=[([(2, 4)], {"k": 2, "axis": 1}),
                              ([(3, 2)], {"k": 1, "axis": 0, "keepdim": True})])
MODE = register("mode", _pick_fwd(lambda r: _mode_row(r)), _pick_vjp, n_outputs=2,
                legacy_name="ModeBackward", domain="distinct",
                examples=[([(2, 4)], {"axis": 1})])


def kthvalue(x, k, axis=-1, keepdim=False):
    return apply(KTHVALUE, (x,), {"k": int(k), "axis": int(axis), "keepdim": bool(keepdim)})


def mode(x, axis=-1, keepdim=False):
    return apply(MODE, (x,), {"axis": int(axis), "keepdim": bool(keepdim)})


# ---------------------------------------------------------------- where
def _where_vjp(n, g):
    """Paddle 3.x selects (``cond ? dout : 0``, a +0. where not chosen); with ``grad="mask"``
    (2.x) it multiplies, ``dout * (cond ? 1 : 0)``, so a negative dout gives -0. there."""
    cond = n.inputs[0]
    if n.attrs.get("grad") == "mask":
        from .math import multiply

        mask = np.broadcast_to(np.asarray(cond.data, bool), g.data.shape)
        return (None, multiply(g, const(g, mask.astype(g.data.dtype))),
                multiply(g, const(g, (~mask).astype(g.data.dtype))))
    zeros = const(g, np.zeros(g.data.shape, g.data.dtype))
    return None, where(cond, g, zeros), where(cond, zeros, g)


WHERE = register(
    "where", lambda c, x, y, grad="select": np.where(c, x, y), _where_vjp, broadcast=True, diff_inputs=(1, 2),
    legacy_name="WhereBackward",
    examples=[([np.array([True, False, True]), (3,), (3,)], {}),
              ([np.array([[True, False], [False, True]]), (2, 2), (2, 2)], {}),
              ([np.array([[True, False], [False, True]]), (2,), (2, 2)], {"grad": "mask"})])


def where(cond, x, y, grad="select"):
    """``x`` where ``cond`` holds, else ``y`` (cond is a bool tensor; x and y share a dtype);
    ``grad`` is Paddle's backward kernel: "select" (3.x) or "mask" (2.x, see ``_where_vjp``)."""
    return apply(WHERE, (cond, x, y), {"grad": grad} if grad != "select" else None)


# ---------------------------------------------------------------- masked_fill (Paddle 3 op)
def _masked_fill_vjp(n, g):
    """x gets dout where the mask is off. The value's gradient is zero: Paddle 3.3's
    masked_fill_grad kernel leaves it unset for a broadcast value (measured: 0)."""
    mask = n.inputs[1]
    zeros = const(g, np.zeros(g.data.shape, g.data.dtype))
    value_shape, value_dtype = n.in_meta[2]
    return where(mask, zeros, g), None, const(g, np.zeros(value_shape, value_dtype))


MASKED_FILL = register(
    "masked_fill", lambda x, mask, value: np.where(mask, value, x), _masked_fill_vjp,
    broadcast=True, diff_inputs=(0, 2), legacy_name="MaskedFillBackward", check=False,
    examples=[([(3,), np.array([True, False, True]), ()], {})])


def masked_fill(x, mask, value):
    """``value`` where ``mask`` holds, else x (mask and value broadcast to x's shape)."""
    return apply(MASKED_FILL, (x, mask, value))


# ---------------------------------------------------------------- nonzero / searchsorted
def _nonzero_fwd(x):
    return np.argwhere(x).astype(np.int64).reshape(-1, x.ndim)


NONZERO = register("nonzero", _nonzero_fwd, None, check=False, examples=[([(2, 3)], {})])


def nonzero(x):
    """The coordinates of the non-zero elements, one row each: shape [count, ndim]."""
    return apply(NONZERO, (x,))


def _searchsorted_fwd(seq, values, right=False, dtype=np.int64):
    side = "right" if right else "left"
    if seq.ndim <= 1:
        out = np.searchsorted(seq.reshape(-1), values, side=side)
    else:
        flat_seq = seq.reshape(-1, seq.shape[-1])
        flat_val = values.reshape(-1, values.shape[-1])
        out = np.stack([np.searchsorted(s, v, side=side) for s, v in zip(flat_seq, flat_val)])
        out = out.reshape(values.shape)
    return np.asarray(out).astype(dtype)


SEARCHSORTED = register("searchsorted", _searchsorted_fwd, None, check=False,
                        examples=[([np.array([1.0, 3.0, 5.0]), (4,)], {})])


def searchsorted(sorted_sequence, values, right=False, dtype=np.int64):
    return apply(SEARCHSORTED, (sorted_sequence, values),
                 {"right": bool(right), "dtype": np.dtype(dtype)})

