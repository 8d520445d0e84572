"""torch's CPU summation order, so that float sums round as torch's do (``x.sum()``,
``x.mean()``, ``x.sum(1)``, the mean of a loss): the last digit of a float32 sum depends on the
order of the additions, and torch's is neither numpy's pairwise sum nor a plain loop.

torch (``aten/src/ATen/native/cpu/SumKernel.cpp``) adds a contiguous row of ``n`` values as
vectors of ``L`` lanes (8 floats or 4 doubles with AVX2) when ``n >= L``: the vectors are summed
by ``row_sum`` (four interleaved accumulators, "ilp", each a cascade of partial sums every 16
steps), then the leftover scalars one by one, then the lanes in order. Shorter rows use the same
``row_sum`` on scalars. Reducing the leading axis of a matrix ("outer" reduction) sums each
column the same way over the rows, 32 or 8 columns at a time. Checked bit for bit against torch
2.13 on random data (row, column, full and mean reductions).
"""
from __future__ import annotations

import numpy as np


def _multi_row_sum(rows):
    """rows: (size, k, ...) -> (k, ...): torch's multi_row_sum (4 levels of partial sums)."""
    size = rows.shape[0]
    dt = rows.dtype
    num_levels = 4
    ceillog2 = 1 if size <= 2 else int(size - 1).bit_length()
    level_power = max(4, ceillog2 // num_levels)
    level_step = 1 << level_power
    level_mask = level_step - 1
    shape = rows.shape[1:]
    acc = [np.zeros(shape, dt) for _ in range(num_levels)]
    i = 0
    while i + level_step <= size:
        block = rows[i:i + level_step]
        a0 = acc[0]
        for j in range(level_step):
            a0 = a0 + block[j]
        acc[0] = a0
        i += level_step
        for j in range(1, num_levels):
            acc[j] = acc[j] + acc[j - 1]
            acc[j - 1] = np.zeros(shape, dt)
            if i & (level_mask << (j * level_power)):
                break
    a0 = acc[0]
    for k in range(i, size):
        a0 = a0 + rows[k]
    for j in range(1, num_levels):
        a0 = a0 + acc[j]
    return a0


def _row_sum(x):
    """x: (n, ...) -> (...): torch's row_sum (4 interleaved accumulators, then the rest)."""
    n = x.shape[0]
    size_ilp = n // 4
    if size_ilp:
        groups = x[:size_ilp * 4].reshape((size_ilp, 4) + x.shape[1:])
        p = _multi_row_sum(groups)
        parts = [p[k] for k in range(4)]
    else:
        parts = [np.zeros(x.shape[1:], x.dtype) for _ in range(4)]
    p0 = parts[0]
    for i in range(size_ilp * 4, n):
        p0 = p0 + x[i]
    for k in range(1, 4):
        p0 = p0 + parts[k]
    return p0


def _lanes(dt):
    return 8 if dt == np.float32 else 4


def row_sum(a):
    """The sum of a 1-D float array in torch's order (a numpy scalar of a's dtype)."""
    n = a.size
    lanes = _lanes(a.dtype)
    if n >= lanes:
        vs = n // lanes
        vec = _row_sum(a[:vs * lanes].reshape(vs, lanes))
        final = a.dtype.type(0)
        for k in range(vs * lanes, n):
            final = final + a[k]
        for k in range(lanes):
            final = final + vec[k]
        return final
    if n == 0:
        return a.dtype.type(0)
    return a.dtype.type(_row_sum(a))


def column_sum(a):
    """Sums over axis 0 of a 2-D array (torch's outer reduction), one per column."""
    n, m = a.shape
    if m == 1:
        return np.array([row_sum(a[:, 0])], a.dtype)
    return _outer_sums(a, m >= _lanes(a.dtype))


SMALL = 32768  # past this torch splits a reduction between threads: numpy's order is used


def torch_sum(x, axis):
    """``x`` (a float array) summed over the sorted tuple ``axis`` in torch's order, where the
    reduced axes are the trailing or the leading ones (numpy's order otherwise)."""
    nd = x.ndim
    if x.dtype.kind != "f" or x.size > SMALL or x.size == 0:
        return None
    axis = tuple(axis)
    if not axis:
        return x.copy()
    if axis == tuple(range(nd)):
        return np.asarray(row_sum(np.ravel(x, order="K")), x.dtype)
    a = np.ascontiguousarray(x)
    if axis == tuple(range(nd - len(axis), nd)):  # the trailing axes: one row per output
        kept = a.shape[:nd - len(axis)]
        rows = a.reshape(int(np.prod(kept)), -1)
        return np.array([row_sum(r) for r in rows], x.dtype).reshape(kept)
    if axis == tuple(range(len(axis))):  # the leading axes: one column per output
        kept = a.shape[len(axis):]
        cols = a.reshape(-1, int(np.prod(kept)))
        return column_sum(cols).reshape(kept)
    return _iter_sum(a, axis)


def _lane_row_sum(x):
    """``row_sum`` of each column of x (n, ...), n >= lanes: torch's vectorized_inner_sum."""
    n = x.shape[0]
    lanes = _lanes(x.dtype)
    vs = n // lanes
    vec = _row_sum(x[:vs * lanes].reshape((vs, lanes) + x.shape[1:]))
    final = np.zeros(x.shape[1:], x.dtype)
    for k in range(vs * lanes, n):
        final = final + x[k]
    for k in range(lanes):
        final = final + vec[k]
    return final


def _outer_sums(a, contiguous):
    """Sums over axis 0 of a (n, m, ...) per column j: torch's vectorized_outer_sum (32, then
    8 columns at a time, then single ones) or scalar_outer_sum (4 at a time)."""
    n, m = a.shape[:2]
    out = np.empty(a.shape[1:], a.dtype)
    lanes = _lanes(a.dtype)
    j = 0
    if contiguous:
        while j + 4 * lanes <= m:
            out[j:j + 4 * lanes] = _multi_row_sum(a[:, j:j + 4 * lanes])
            j += 4 * lanes
        while j + lanes <= m:
            out[j:j + lanes] = _row_sum(a[:, j:j + lanes])
            j += lanes
    else:
        while j + 4 <= m:
            out[j:j + 4] = _multi_row_sum(a[:, j:j + 4])
            j += 4
    while j < m:
        out[j] = _row_sum(a[:, j])
        j += 1
    return out


def _iter_sum(a, axis):
    """A contiguous ``a`` summed over ``axis`` as torch's TensorIterator runs the sum: its dims
    innermost first, the reduced ones moved to the front, neighbours merged where contiguous;
    the first two form the kernel's 2-D loop (inner/outer, vectorized/scalar per strides), the
    rest are looped over, each partial added onto its output (zero-filled) in loop order."""
    nd = a.ndim
    dims = [(a.shape[i], int(np.prod(a.shape[i + 1:])), i in axis, [i])
            for i in reversed(range(nd)) if a.shape[i] != 1]
    if not any(d[2] for d in dims):
        return a.reshape(tuple(s for i, s in enumerate(a.shape) if i not in axis)).copy()
    dims = [d for d in dims if d[2]] + [d for d in dims if not d[2]]
    merged = [list(dims[0])]
    for size, stride, red, axes in dims[1:]:
        last = merged[-1]
        if red == last[2] and stride == last[0] * last[1]:
            last[0] *= size
            last[3] = last[3] + axes
        else:
            merged.append([size, stride, red, axes])
    if len(merged) == 1:
        merged.append([1, merged[0][0] * merged[0][1], False, []])
    item = a.itemsize
    view = np.lib.stride_tricks.as_strided(
        a, tuple(d[0] for d in merged), tuple(d[1] * item for d in merged), writeable=False)
    (s0, st0, _, _), (s1, st1, red1, _) = merged[0][:4], merged[1][:4]
    lanes = _lanes(a.dtype)
    if st0 == 1 and s0 >= lanes:
        part = _lane_row_sum(view)
    elif st1 == 1 and s1 >= lanes and not red1:
        part = _outer_sums(view, True)
    elif st0 < st1:
        part = _row_sum(view)
    else:
        part = _outer_sums(view, False)
    # part: dims 1.. of the loop; add the partials of each output in loop order (dim 1 fastest)
    rest = merged[1:]
    red_idx = [k for k, d in enumerate(rest) if d[2]]
    kept_idx = [k for k, d in enumerate(rest) if not d[2]]
    order = red_idx[::-1] + kept_idx
    blocks = np.transpose(part, order).reshape((-1,) + tuple(rest[k][0] for k in kept_idx))
    total = np.zeros(blocks.shape[1:], a.dtype)
    for b in blocks:
        total = total + b
    # kept dims innermost first -> the output's axis order
    total = np.transpose(total, tuple(range(total.ndim))[::-1]) if total.ndim else total
    return total.reshape(tuple(s for i, s in enumerate(a.shape) if i not in axis))


# ------------------------------------------------------------------------------ dot
# torch.dot on the CPU calls MKL's ?dot. Measured on torch 2.13 (MKL 2024.2, AVX-512, fresh
# 64-byte-aligned tensors): one zmm accumulator, products rounded then added (no FMA); the tail
# goes into the low lanes (float: one ymm of 8 if it fits, one xmm of 4, then scalars into lane
# 0; double: xmm pairs, then a scalar into lane 0); the accumulator folds by adding its 128-bit
# quarters in order, then lanes (0 + 2) + (1 + 3) (float) or 0 + 1 (double). 605 of 608 float32
# sizes 1..20000 and 302 of 303 float64 ones equal torch's; past 32 KiB MKL splits the vector
# between two threads (not modelled exactly: two halves at a multiple of 16 bytes).
_DOT_THREADED = 32768


def _dot_chunk(a, b):
    dt = a.dtype
    n = a.size
    lanes = 64 // dt.itemsize
    quarter = lanes // 4
    acc = np.zeros(lanes, dt)
    i = 0
    while i + lanes <= n:
        acc = acc + a[i:i + lanes] * b[i:i + lanes]
        i += lanes
    widths = (8, 4) if dt == np.float32 else (2,) * (n // 2)
    for w in widths:
        if i + w <= n:
            acc[:w] = acc[:w] + a[i:i + w] * b[i:i + w]
            i += w
    while i < n:
        acc[0] = acc[0] + a[i] * b[i]
        i += 1
    if n < (4 if quarter == 4 else 2):    # scalars only: no fold
        return acc[0]
    v = acc[:quarter].copy()
    if dt == np.float32:
        used = 16 if n >= 16 else 8 if n >= 8 else 4
    else:
        used = 8 if n >= 8 else 2
    for k in range(1, used // quarter):
        v = v + acc[k * quarter:(k + 1) * quarter]
    if quarter == 4:
        return (v[0] + v[2]) + (v[1] + v[3])
    return v[0] + v[1]


def mkl_dot(a, b):
    """torch.dot of two 1-D float32/float64 arrays in MKL's order (see above); None otherwise."""
    if a.dtype != b.dtype or a.dtype not in (np.float32, np.float64) or a.size == 0:
        return None
    with np.errstate(all="ignore"):
        if a.nbytes < _DOT_THREADED:
            return np.asarray(_dot_chunk(a, b), a.dtype)
        k = a.size // 2 // (16 // a.itemsize) * (16 // a.itemsize)
        return np.asarray(_dot_chunk(a[:k], b[:k]) + _dot_chunk(a[k:], b[k:]), a.dtype)
