"""Paddle's CPU sparse kernels on index arrays (numpy), as they order and combine entries.

Measured against real Paddle 3.3.1 and 2.6.2 (both the same here):

* ``coo_to_csr_crows``: Paddle's CooToCsr fills ``crows`` from the row indices as if they were
  sorted (no coalescing); the columns and values keep the COO's order. An unsorted COO gives
  the same odd rows as in Paddle (rows [2, 0, 1] of 3 -> crows [0, 2, 3, 3]).
* ``merge``: the elementwise kernels (add, subtract, multiply, divide) of two COO tensors of
  equal shape. Equal index arrays: the values combined position by position. Otherwise a
  merge of the flattened indices that assumes both sorted: x's entries are taken in order,
  y's values looked up by index (a repeated index: the last one's value); an index in one
  only is combined with zero (x + 0, 0 - y, x * 0, ...). Divide runs y over every index of
  the sparse shape (zeros divide: nan and inf), so its result holds every position.
* ``sum_groups``: a sum over a sparse axis: the remaining indices sorted and unique, the
  values of each added in entry order from zero.
* softmax: CSR rows as Paddle's CSR kernel (``vec_add_bias``, ``vec_exp``, ``vec_sum``,
  ``vec_scal``: the dense softmax's AVX path without its clip at -64); COO rows with the C
  library's exp and a sequential sum, float32 divided by the sum, float64 times its
  reciprocal (real 3.3.1 and 2.6.2 on 4 shapes, rows of 1 to 300 entries, float32 and
  float64: every value equal).
"""
from __future__ import annotations

import numpy as np

from ...engine.ops.nn import _vexp, avx_sum, exp_c


def coo_to_csr_crows(rows: np.ndarray, n_rows: int) -> np.ndarray:
    """crows as Paddle's CooToCsr computes them from the COO's row indices (see above)."""
    crows = np.zeros(n_rows + 1, np.int64)
    nnz = len(rows)
    if nnz == 0:
        return crows
    rows = [int(r) for r in rows]
    for j in range(rows[0]):
        crows[j + 1] = 0
    for i in range(nnz):
        stop = n_rows if i == nnz - 1 else rows[i + 1]
        for j in range(rows[i], stop):
            crows[j + 1] = nnz if i == nnz - 1 else i + 1
    return crows


def flat_index(idx: np.ndarray, sparse_shape) -> np.ndarray:
    """Row-major flat positions of COO indices (sparse dims only)."""
    if idx.shape[1] == 0:
        return np.zeros(0, np.int64)
    return np.ravel_multi_index(tuple(idx.astype(np.int64)), tuple(sparse_shape))


def merge(xi: np.ndarray, yi: np.ndarray, n_positions: int, divide: bool):
    """The elementwise kernels' merge of two flat index arrays (see above).

    Returns ``(out_flat, take_x, take_y)``: the output's flat indices, and for each output
    entry the x entry (position) and y entry (position) it combines, -1 for zero."""
    y_pos = {}
    for k, f in enumerate(yi.tolist()):
        y_pos[f] = k                      # a repeated index: the last entry's value
    b_index = list(range(n_positions)) if divide else yi.tolist()
    a_index = xi.tolist()
    out, tx, ty = [], [], []
    a = b = 0
    while a < len(a_index) and b < len(b_index):
        fa, fb = a_index[a], b_index[b]
        if fa == fb:
            out.append(fa), tx.append(a), ty.append(y_pos.get(fb, -1))
            a += 1
            b += 1
        elif fa < fb:
            out.append(fa), tx.append(a), ty.append(-1)
            a += 1
        else:
            out.append(fb), tx.append(-1), ty.append(y_pos.get(fb, -1))
            b += 1
    while a < len(a_index):
        out.append(a_index[a]), tx.append(a), ty.append(-1)
        a += 1
    while b < len(b_index):
        out.append(b_index[b]), tx.append(-1), ty.append(y_pos.get(b_index[b], -1))
        b += 1
    return (np.asarray(out, np.int64), np.asarray(tx, np.int64), np.asarray(ty, np.int64))


def sum_groups(keys: np.ndarray, values: np.ndarray):
    """Unique sorted keys (rows of ``keys``) and each one's values summed in entry order."""
    if keys.shape[0] == 0:
        return keys, values[:0]
    uniq, inverse = np.unique(keys, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    out = np.zeros((len(uniq),) + values.shape[1:], values.dtype)
    for k, g in enumerate(inverse.tolist()):
        out[g] = out[g] + values[k]
    return uniq, out


def csr_softmax_rows(values: np.ndarray, crows: np.ndarray) -> np.ndarray:
    """Paddle's CSR softmax kernel over each row's stored values."""
    out = np.empty_like(values)
    for r in range(len(crows) - 1):
        lo, hi = int(crows[r]), int(crows[r + 1])
        if hi <= lo:
            continue
        v = values[lo:hi]
        sh = v + (-v.max())
        e = _vexp(sh) if v.dtype != np.float32 or len(v) >= 128 else exp_c(sh)
        s = avx_sum(e[None])[0, 0]
        out[lo:hi] = e * (np.asarray(1, v.dtype) / s)
    return out


def coo_softmax_groups(values: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Paddle's COO softmax kernel: each group's values (same indices but the last)."""
    out = np.empty_like(values)
    for g in np.unique(groups):
        sel = np.nonzero(groups == g)[0]
        v = values[sel]
        e = exp_c(v - v.max())
        s = np.zeros((), v.dtype)
        for t in e:
            s = s + t
        out[sel] = e / s if v.dtype == np.float32 else e * (np.asarray(1, v.dtype) / s)
    return out
