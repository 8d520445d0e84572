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

from math import prod

import numpy as np

from ..engine._native import lib as _NATIVE   # (None: the numpy replays below alone)
from ..engine.ops._util import quiet as _quiet  # (nothing to enter in a quiet run)
from . import _capability


def _seq(parts, dt):
    """parts (m, ...) added one by one onto a zero: (...). (Added from the first part on, then
    a zero added: the same bits, as the two orders differ only in the sign of a zero sum, and a
    sum from a zero is never -0; this saves the copy behind a zero row.)"""
    n = parts.shape[0]
    if n == 0:
        return np.zeros(parts.shape[1:], dt)
    if n == 1:
        return parts[0] + dt.type(0)
    return np.add.accumulate(parts, axis=0)[-1] + dt.type(0)


def _multi_row_sum(rows):
    """rows: (size, k, ...) -> (k, ...): torch's multi_row_sum (4 levels of partial sums: each
    block of ``level_step`` rows summed from zero, pushed onto level 1, level 1 pushed onto 2
    every ``level_step`` blocks, ...; then the leftover rows and the levels 1..3 in order),
    computed level by level as whole-array accumulations."""
    size = rows.shape[0]
    dt = rows.dtype
    ceillog2 = 0 if size <= 1 else int(size - 1).bit_length()
    level_power = max(4, ceillog2 // 4)
    step = 1 << level_power
    shape = rows.shape[1:]
    nb = size // step
    with _quiet(all="ignore"):
        if not nb:   # (the levels are zeros, and adding +0 to a sum from zero changes nothing)
            return _seq(rows, dt)
        s0 = _block_sums(rows[:nb * step].reshape((nb, step) + shape), dt)
        # level 1: groups of `step` block sums (full groups pushed on), the rest pending
        g1 = nb // step
        if not g1:
            if nb * step == size:  # (no leftover rows: their zero sum added changes nothing,
                return _seq(s0, dt)  # as _seq never gives -0)
            return _seq(rows[nb * step:], dt) + _seq(s0, dt)
        l1 = _group_sums(s0[:g1 * step], step, dt)
        acc1 = _seq(s0[g1 * step:], dt)
        g2 = g1 // step
        l2 = _group_sums(l1[:g2 * step], step, dt)
        acc2 = _seq(l1[g2 * step:], dt)
        acc3 = _seq(l2, dt)
        a0 = _seq(rows[nb * step:], dt)
        return (a0 + acc1 + acc2) + acc3


def _group_sums(parts, step, dt):
    """parts (g * step, ...) -> (g, ...): each group of ``step`` added onto a zero."""
    g = parts.shape[0] // step
    if g == 0:
        return np.zeros((0,) + parts.shape[1:], dt)
    return _block_sums(parts.reshape((g, step) + parts.shape[1:]), dt)


def _block_sums(blocks, dt):
    """blocks (g, step, ...) -> (g, ...): each block's values added in order onto a zero (as
    ``_seq``). Wide blocks add slice by slice: numpy's accumulate along a middle axis runs one
    short inner loop per column (16 adds over 2 x 192 columns: 28 us against 19)."""
    step = blocks.shape[1]
    if blocks.size // max(step, 1) >= 128:
        st = blocks.strides
        if blocks.ndim == 3 and blocks.shape[2] >= 8 and st[2] == blocks.itemsize and \
                st[1] >= st[2] * blocks.shape[2] and st[0] >= st[1] * step:
            # numpy's reduction over the middle axis of such an array (the last axis
            # contiguous, >= 8 wide, the others outside it) runs the last axis as its inner
            # loop: out += block[k] for k in order, the loop below in one call (numpy's
            # pairwise sum is only for a reduced inner axis; the sign of a zero sum is the
            # loop's, as the + 0)
            return np.add.reduce(blocks, axis=1) + dt.type(0)
        acc = blocks[:, 0] + dt.type(0)
        for k in range(1, step):
            acc += blocks[:, k]
        return acc
    return np.add.accumulate(blocks, axis=1)[:, -1] + dt.type(0)


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
    """Values of one torch ``Vectorized`` of dtype ``dt`` under the CPU capability torch runs
    (16 floats with AVX512, 8 with AVX2: ``_capability``)."""
    return _capability.lanes(np.dtype(dt))


def row_sum(a):
    """The sum of a 1-D float array in torch's order (a numpy scalar of a's dtype), one thread."""
    if a.size == 0:
        return a.dtype.type(0)
    with _quiet(all="ignore"):
        if a.size >= _lanes(a.dtype):
            return a.dtype.type(_lane_row_sum(a))
        return a.dtype.type(np.zeros((), a.dtype) + _row_sum(a))


def column_sum(a):
    """Sums over axis 0 of a 2-D array (torch's outer reduction), one per column."""
    return torch_sum(a, (0,))


GRAIN = 32768   # at::internal::GRAIN_SIZE: from this many values a reduction is threaded
SMALL = GRAIN   # (the old name)


def _parallel_chunks(n, grain):
    """at::parallel_for's ranges of ``range(n)`` over torch's threads."""
    t = _capability.threads()
    if n <= grain or n <= 1 or t <= 1:
        return [(0, n)]
    t = min(t, -(-n // grain)) if grain > 0 else t
    step = -(-n // t)
    return [(b, min(n, b + step)) for b in range(0, n, step)]


def full_sum(flat):
    """torch's sum of all the values of a 1-D array: serial below GRAIN values, else the
    two-pass reduction (each thread's range summed into its slot of a zeroed buffer, the
    buffer then summed)."""
    dt = flat.dtype
    n = flat.size
    if n < GRAIN or _capability.threads() <= 1:
        return row_sum(flat)
    buf = np.zeros(_capability.threads(), dt)
    for t, (b, e) in enumerate(_parallel_chunks(n, GRAIN)):
        buf[t] = row_sum(flat[b:e])
    return row_sum(buf)


def torch_sum(x, axis):
    """``x`` (a float array) summed over the sorted tuple ``axis`` in torch's order: its
    TensorIterator's loop (``_iter_sum``), split between threads as torch splits it."""
    nd = x.ndim
    if x.dtype.kind != "f" or x.size == 0:
        return None
    axis = tuple(axis)
    if not axis:
        return x.copy()
    if nd == 2 and x.size < GRAIN and x.shape[0] > 1 and x.shape[1] > 1 and \
            x.flags.c_contiguous:
        with _quiet(all="ignore"):
            if axis == (0,):
                return _matrix_columns(x)
            if axis == (1,):
                return _matrix_rows(x)
    kept = tuple(s for i, s in enumerate(x.shape) if i not in axis)
    if axis == tuple(range(nd)) or prod(kept) == 1:
        flat = np.ravel(x, order="K")
        if x.size > 1 and x.size < GRAIN and not np.shares_memory(flat, x) and all(
                st > 0 and st % x.itemsize == 0 for st, n in zip(x.strides, x.shape) if n > 1):
            # not dense (a diagonal, a column, a slice): torch's loop reads the values where
            # they lie, a strided row by the scalar row_sum (measured: x.diagonal().sum()
            # differed from the contiguous copy's sum in real torch 2.13)
            with _quiet(all="ignore"):
                return np.asarray(_iter_sum(x, axis), x.dtype).reshape(kept)
        return np.asarray(full_sum(flat), x.dtype).reshape(kept)
    if not all(st > 0 and st % x.itemsize == 0 for st in x.strides):   # (broadcast, flipped)
        x = np.ascontiguousarray(x)
    with _quiet(all="ignore"):
        return _iter_sum(x, axis)


# The commonest reductions of a training loop (a bias's gradient: a batch's columns; a row's
# sum), a contiguous (n, m) matrix below GRAIN values with n, m > 1, straight to the branch of
# ``_iter_sum``/``_loop_sum`` they take (one thread; no dims to merge or loop over; the
# partials added onto a zero output): the same operations without the general plumbing
# (a 32x200 column sum 62 -> ~30 us).
def _matrix_columns(a):
    m = a.shape[1]
    lanes = _lanes(a.dtype)
    native = getattr(_NATIVE, "column_sums", None)   # (the same sums compiled: 32x200 ~4 us)
    if native is not None and (a.dtype == _F32 or a.dtype == _F64):
        out = np.empty(m, a.dtype)
        if not native(a, out, lanes):   # (1: a nan, left to the replay)
            return out
    return _outer_sums(a, m >= lanes) + a.dtype.type(0)


_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)


def _matrix_rows(a):
    n, m = a.shape
    view = a.T   # (m, n): the reduced dim first, contiguous
    if m >= _lanes(a.dtype):
        part = _lane_row_sum(view)
    else:   # (st0 = 1 < st1 = m)
        part = _row_sum(view)
    return part + a.dtype.type(0)


def _lane_row_sum(x):
    """``row_sum`` of each column of x (n, ...), n >= lanes: torch's vectorized_inner_sum."""
    n = x.shape[0]
    lanes = _lanes(x.dtype)
    vs = n // lanes
    vec = _row_sum(x[:vs * lanes].reshape((vs, lanes) + x.shape[1:]))
    final = _seq(x[vs * lanes:], x.dtype)
    for k in range(lanes):
        final = final + vec[k]
    return final


def _outer_sums(a, contiguous):
    """Sums over axis 0 of a (n, m, ...) per column j: torch's vectorized_outer_sum (4 vectors,
    then one vector of columns at a time, then single ones) or scalar_outer_sum (4 at a time).
    Columns are independent: each group of columns is summed in one call."""
    m = a.shape[1]
    out = np.empty(a.shape[1:], a.dtype)
    lanes = _lanes(a.dtype)
    j = 0
    if contiguous:
        j4 = m // (4 * lanes) * 4 * lanes
        if j4:
            out[:j4] = _multi_row_sum(a[:, :j4])
        # the single vectors after them and the single columns after those take the same
        # _row_sum, column by column: one call for both
        if j4 < m:
            out[j4:] = _row_sum(a[:, j4:])
        return out
    else:
        j = m // 4 * 4
        if j:
            out[:j] = _multi_row_sum(a[:, :j])
    if j < m:
        out[j:] = _row_sum(a[:, j:])
    return out


def _loop_sum(view, merged):
    """One thread's run of the reduction loop over ``view`` (its dims ``merged``, innermost
    first, the reduced ones first): the kernel's 2-D loop, then the outer dims looped over, each
    partial added onto its (zeroed) output in loop order. Returns the outputs with the kept
    dims innermost first."""
    (s0, st0, _, _), (s1, st1, red1, _) = merged[0][:4], merged[1][:4]
    lanes = _lanes(view.dtype)
    if st0 == 1 and s0 >= lanes:
        part = _lane_row_sum(view)
    elif st1 == 1 and s1 >= lanes and not red1:
        part = _outer_sums(view, True)
    elif st0 < st1:
        part = _row_sum(view)
    else:
        part = _outer_sums(view, False)
    rest = merged[1:]
    red_idx = [k for k, d in enumerate(rest) if d[2]]
    kept_idx = [k for k, d in enumerate(rest) if not d[2]]
    order = red_idx[::-1] + kept_idx
    blocks = np.transpose(part, order).reshape((-1,) + tuple(rest[k][0] for k in kept_idx))
    if blocks.shape[0] == 1:
        return np.zeros(blocks.shape[1:], view.dtype) + blocks[0]
    return _seq(blocks, view.dtype)


def _split_dim(merged, threads):
    """TensorIterator's find_split_dim: the outermost kept dim with at least ``threads``
    values, else the largest kept one."""
    best = len(merged) - 1
    d = best
    while d >= 0 and not merged[d][2]:
        if merged[d][0] >= threads:
            return d
        if merged[d][0] > merged[best][0]:
            best = d
        d -= 1
    return best


def _iter_sum(a, axis):
    """``a`` (positive strides: contiguous, or a transposed/permuted/sliced view read where it
    lies, as torch reads it) summed over ``axis`` as torch's TensorIterator runs the sum: its
    reduced dims first by rising stride (innermost first), then the kept ones in the output's
    order (innermost first), neighbours merged where their strides chain;
    the first two form the kernel's 2-D loop (inner/outer, vectorized/scalar per strides), the
    rest are looped over, each partial added onto its output (zero-filled) in loop order. From
    GRAIN values on, the outputs are shared between threads along one kept dim (torch's
    parallel_dim_reduction; rounded to 128-byte columns where that dim is contiguous), each
    thread running the same loop over its slice."""
    nd = a.ndim
    item = a.itemsize
    # TensorIterator's reorder_dimensions compares the output's strides first: 0 on the reduced
    # dims (moved to the front, then ordered by the input's strides), the kept dims in the
    # (contiguous) output's order; ties keep C order
    order = sorted((i for i in reversed(range(nd)) if i in axis), key=lambda i: a.strides[i]) \
        + [i for i in reversed(range(nd)) if i not in axis]
    dims = [(a.shape[i], a.strides[i] // item, i in axis, [i])
            for i in order if a.shape[i] != 1]
    out_shape = tuple(s for i, s in enumerate(a.shape) if i not in axis)
    if not any(d[2] for d in dims):   # (reduced dims of extent 1: each value added onto the
        return a.reshape(out_shape) + a.dtype.type(0)   # zero output, -0.0 becomes 0.0)
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
    view = np.lib.stride_tricks.as_strided(
        a, tuple(d[0] for d in merged), tuple(d[1] * item for d in merged), writeable=False)
    threads = _capability.threads()
    kept_idx = [k for k, d in enumerate(merged[1:]) if not d[2]]
    if a.size < GRAIN or threads <= 1:
        total = _loop_sum(view, merged)
    else:
        k = _split_dim(merged, threads)
        cols = merged[k][0]
        parts = []
        for b, e in _parallel_chunks(cols, 1):
            if merged[k][1] == 1:
                mult = 128 // item
                b -= b % mult
                if e != cols:
                    e -= e % mult
            if b == e:
                continue
            sub = [list(d) for d in merged]
            sub[k][0] = e - b
            index = [slice(None)] * len(merged)
            index[k] = slice(b, e)
            parts.append(_loop_sum(view[tuple(index)], sub))
        total = np.concatenate(parts, axis=kept_idx.index(k - 1))
    # kept dims innermost first (each a run of the input's axes, innermost first) -> the
    # output's axis order
    if not total.ndim:
        return total.reshape(out_shape)
    kept = [d for d in merged[1:] if not d[2]]
    total = np.transpose(total, tuple(range(total.ndim))[::-1])
    axes = [ax for d in reversed(kept) for ax in reversed(d[3])]
    total = total.reshape([a.shape[ax] for ax in axes])
    total = np.transpose(total, np.argsort(axes))
    return total.reshape(out_shape)


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
    with _quiet(all="ignore"):
        if a.nbytes < _DOT_THREADED:
            return np.asarray(_dot_chunk(a, b), a.dtype)
        k = a.size // 2 // (16 // a.itemsize) * (16 // a.itemsize)
        return np.asarray(_dot_chunk(a[:k], b[:k]) + _dot_chunk(a[k:], b[k:]), a.dtype)


# ------------------------------------------------------------------------------ norm
# torch.norm / linalg.vector_norm on the CPU (``ReduceOpsKernel.cpp``
# norm_kernel_tensor_iterator_impl, ``SharedReduceOps.h``), float32/float64:
# - p = 2 over the innermost, contiguous dim (one reduced dim after TensorIterator merges its
#   neighbours: the trailing axes of a contiguous tensor, or all of them): per row, vectors of
#   ``L`` lanes (the AVX2 build, also on AVX512 CPUs: REGISTER_DISPATCH) accumulate ``v * v``
#   (product rounded, then added: measured, not fused, under every capability), the lanes are
#   added in order, then the leftover values' squares one by one (``acc += v * v`` fused into
#   one FMA by the AVX2/AVX512 builds' compiler, not by DEFAULT's), then sqrt;
# - otherwise binary_kernel_reduce: per output one accumulator (float for float32) adding the
#   reduced values' terms in the iterator's order (``|x|``, ``x * x``, ``powf(|x|, p)``, ...);
#   a single output of GRAIN values or more is split between threads (each from 0, then added
#   onto 0 in thread order); ``p`` other than 0, 1, 2, inf: ``powf(acc, 1 / p)`` at the end.
# Checked bit for bit against torch 2.13 (random shapes, dims and p).
def _powx(a, p, dt):
    if dt == np.float32:
        from ..engine.ops._kernels import powf

        return powf(np.ascontiguousarray(a, np.float32),
                    np.full(np.shape(a), np.float32(p), np.float32))
    # float64: ATen's NormOps calls std::pow (the C library's); numpy's power can be SVML's on
    # AVX-512 machines (a p=3 norm of 37 doubles differed in the last bit)
    from ..engine.ops._kernels import pow64

    return pow64(np.ascontiguousarray(a, np.float64), np.full(np.shape(a), p, np.float64))


def _norm_terms(r, p, dt):
    if p == 2:
        return r * r
    if p == 1:
        return np.abs(r)
    if p == 0:
        return (r != 0).astype(dt)
    return _powx(np.abs(r), p, dt)


def _norm_project(acc, p, dt):
    if p == 2:
        return np.sqrt(acc)
    if p in (0, 1):
        return acc
    return _powx(acc, dt.type(1) / dt.type(p), dt)


def torch_norm(x, p, axis):
    """The ``p``-norm of a float32/float64 array over the sorted tuple ``axis`` (kept axes
    dropped) in torch's order; None where not covered (other dtypes, inf norms)."""
    dt = x.dtype
    if dt not in (np.float32, np.float64) or x.size == 0 or p in (np.inf, -np.inf):
        return None
    p = float(p)
    axis = tuple(sorted(axis)) if axis else tuple(range(x.ndim))
    item = x.itemsize
    a = x if all(st > 0 and st % item == 0 for st in x.strides) else \
        np.require(x, requirements="C")   # (a view is read where it lies; 0-d stays 0-d)
    nd = a.ndim
    keep = [i for i in range(nd) if i not in axis]
    out_shape = tuple(a.shape[i] for i in keep)
    # the reduced values of each output in memory order (the reduced dims by falling stride)
    inner = sorted(axis, key=lambda i: (a.shape[i] != 1, a.strides[i]))
    red = [i for i in inner if a.shape[i] != 1]
    with _quiet(all="ignore"):
        rows = np.transpose(a, keep + inner[::-1]).reshape(int(np.prod(out_shape)), -1)
        # is_reduce_lastdim: the reduced dims coalesce into one innermost contiguous run
        if p == 2 and red and a.strides[red[0]] == item and all(
                a.strides[j] == a.strides[i] * a.shape[i] for i, j in zip(red, red[1:])):
            return _norm2_lastdim(rows).reshape(out_shape)
        # binary_kernel_reduce: each output's values one by one
        terms = _norm_terms(rows, p, dt)
        if rows.shape[0] == 1 and rows.shape[1] >= GRAIN and _capability.threads() > 1:
            acc = dt.type(0)
            for b, e in _parallel_chunks(rows.shape[1], GRAIN):
                acc = acc + _seq(terms[0, b:e], dt)
            acc = np.asarray([acc], dt)
        else:
            acc = _seq(terms.T, dt)
        return np.asarray(_norm_project(acc, p, dt), dt).reshape(out_shape)


def _norm2_lastdim(rows):
    dt = rows.dtype
    r, n = rows.shape
    lanes = _lanes(dt)
    m = n - n % lanes
    if m:
        v = rows[:, :m].reshape(r, m // lanes, lanes)
        acc = _seq(np.moveaxis(v * v, 1, 0), dt)          # (r, lanes)
    else:
        acc = np.zeros((r, lanes), dt)
    b = acc[:, 0]
    for j in range(1, lanes):
        b = b + acc[:, j]
    t = rows[:, m:]
    if t.shape[1] and _capability.fused():
        from ._norm_kernels import fma

        # float32: the compiler runs 4 leftover values as one SSE vector (squares rounded,
        # added in order), the rest fused; float64: all fused (measured)
        first = 4 if dt == np.float32 and t.shape[1] >= 4 else 0
        for j in range(first):
            b = b + t[:, j] * t[:, j]
        for j in range(first, t.shape[1]):
            b = fma(t[:, j], t[:, j], b) if dt == np.float32 else _fma64(t[:, j], t[:, j], b)
    else:
        for j in range(t.shape[1]):
            b = b + t[:, j] * t[:, j]
    return np.sqrt(b)


_FMA64 = []


def _fma64(a, b, c):
    """float64 ``a * b + c`` with one rounding: the C library's ``fma`` (math.fma on Python
    3.13+); numpy's two roundings where neither is there."""
    if not _FMA64:
        import ctypes
        import ctypes.util
        import math

        f = getattr(math, "fma", None)
        if f is None:
            try:
                lib = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
                f = lib.fma
                f.restype = ctypes.c_double
                f.argtypes = [ctypes.c_double] * 3
            except (OSError, AttributeError):
                f = None
        _FMA64.append(f)
    f = _FMA64[0]
    if f is None:
        return a * b + c
    return np.vectorize(f, otypes=[np.float64])(a, b, c)


def fma64(a, b, c):
    """float64 ``a * b + c``, one rounding in all but rare cases: the exact product as two
    doubles (Veltkamp/Dekker), the sum's error added back (``s + (t + e)``)."""
    a, b, c = (np.asarray(v, np.float64) for v in (a, b, c))
    with _quiet(all="ignore"):
        g = 134217729.0
        ah = (a - a * g) + a * g
        al = a - ah
        bh = (b - b * g) + b * g
        bl = b - bh
        p = a * b
        e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
        s = p + c
        bb = s - p
        t = (p - (s - bb)) + (c - bb)
        out = s + (t + e)
        return np.where(np.isfinite(out) & np.isfinite(p), out, p + c)


# ------------------------------------------------------------------------------ addcmul/addcdiv
# torch's ``PointwiseOpsKernel.cpp``: addcmul is ``self + value * t1 * t2`` in the dtype, which
# the AVX2/AVX512 builds' compiler fuses into ``fma(value * t1, t2, self)`` in both the vector
# and the scalar loops (measured; DEFAULT: two roundings); addcdiv is ``self + value * t1 / t2``
# (``(value * t1) / t2``, not ``value * (t1 / t2)``). Bit for bit vs torch 2.13 on random data.
def torch_addcmul(x, t1, t2, value):
    dt = np.result_type(x, t1, t2)
    if dt not in (np.float32, np.float64):
        return None
    v = dt.type(value)
    with _quiet(all="ignore"):
        vt = (v * np.asarray(t1, dt)).astype(dt)
        if not _capability.fused():
            return np.asarray(np.asarray(x, dt) + vt * np.asarray(t2, dt), dt)
        if dt == np.float32:
            from ._norm_kernels import fma

            return np.asarray(fma(vt, np.asarray(t2, dt), np.asarray(x, dt)), dt)
        return np.asarray(fma64(vt, t2, x), dt)


def torch_add_alpha(x, y, alpha):
    """``add(x, y, alpha=a)`` / ``sub``: ATen's ``fmadd(y, a, x)`` (a in the tensors' float type),
    rounded once where torch's build fuses; None for other dtypes (the engine's forward)."""
    dt = np.result_type(x, y)
    if dt == np.float16:
        return _add_alpha_half(np.asarray(x, dt), np.asarray(y, dt), alpha)
    if dt not in (np.float32, np.float64):
        return None
    a = dt.type(alpha)
    x, y = np.asarray(x, dt), np.asarray(y, dt)
    with _quiet(all="ignore"):
        hoisted = np.asarray(x + a * y, dt)
        if not _capability.fused():
            return hoisted
        if dt == np.float32:
            from ._norm_kernels import fma

            fused = np.asarray(fma(y, a, x), dt)
        else:
            fused = np.asarray(fma64(y, a, x), dt)
        if y.size == 1 and x.size > 1:
            # a number (or 0-d tensor) ``other``: the scalar loop adds the product ``a * other``
            # computed once (hoisted out of the loop: not fused), the vector loop fuses
            # (measured on real torch 2.13: 1,000 values, 992 fused and the 8 of the tail not)
            f32 = dt == np.float32
            return np.where(_scalar_operand_hoisted(x.size, 16 if f32 else 8, 4 if f32 else 2)
                            .reshape(x.shape), hoisted, fused)
        return fused


def _add_alpha_half(x, y, alpha):
    """float16 ``add(x, y, alpha=a)``: a is rounded to half; the vector loop (blocks of 32 halves,
    each row of a broadcast on its own) converts to float and fuses, the scalar loop is c10::Half
    arithmetic (``a * y`` rounded to half, then the sum rounded); measured on real torch 2.13,
    100 of 100 random lengths. A one-element operand: None (not measured)."""
    if not _capability.fused() or (y.size == 1 and x.size > 1) or x.size == 0 or y.size == 0:
        return None
    from ._norm_kernels import fma

    f32 = np.float32
    a = f32(np.float16(alpha))
    shape = np.broadcast_shapes(x.shape, y.shape)
    xf = np.broadcast_to(x, shape).astype(f32)
    yf = np.broadcast_to(y, shape).astype(f32)
    with _quiet(all="ignore"):
        vec = np.asarray(fma(yf, a, xf), f32).astype(np.float16)
        tail = (xf + (a * yf).astype(np.float16).astype(f32)).astype(np.float16)
    if x.shape == y.shape:
        mask = vector_mask(vec.size, 32).reshape(shape)
    else:
        row = shape[-1] if shape else 1
        mask = np.broadcast_to(np.arange(row) < row // 32 * 32, shape)
    return np.where(mask, vec, tail)


def _scalar_operand_hoisted(n, block, group):
    """Which of ``n`` values ATen's add kernel with a scalar operand computes unfused: in each
    thread's range the vector loop (blocks of ``block``) fuses; of the scalar tail (length L)
    GCC's code fuses the first value and the last ``(L - 1) % group``, and the groups of
    ``group`` between them use the product computed once (measured on real torch 2.13, 200
    random lengths; every tail length 1-15 seen)."""
    mask = np.zeros(n, bool)
    for b, e in _parallel_chunks(n, GRAIN):
        t = b + (e - b) // block * block
        mask[t + 1:t + 1 + (e - t - 1) // group * group] = True
    return mask


def torch_addcdiv(x, t1, t2, value):
    dt = np.result_type(x, t1, t2)
    if dt.kind != "f":
        return None
    v = dt.type(value)
    with _quiet(all="ignore"):
        return np.asarray(np.asarray(x, dt) + (v * np.asarray(t1, dt)) / np.asarray(t2, dt), dt)


# ------------------------------------------------------------------------------ elementwise
def vector_mask(n, block=16):
    """Which of ``n`` contiguous values torch's cpu_kernel_vec runs in its vector loop (blocks
    of two ``Vectorized`` = 16 floats in the AVX2 build every capability runs here), the rest in
    the scalar loop; from GRAIN values on each thread's range has its own blocks and tail."""
    mask = np.zeros(n, bool)
    for b, e in _parallel_chunks(n, GRAIN):
        mask[b:b + (e - b) // block * block] = True
    return mask


def _pow_block():
    """Values per vector-loop step of torch's pow kernels: registered for AVX512 too
    (ALSO_REGISTER_AVX512_DISPATCH), two ``Vectorized<float>``: 32 under AVX512, 16 else
    (measured: 31 values run the scalar loop on this AVX512 CPU, 32 the vector one)."""
    return 2 * _capability.lanes(np.dtype(np.float32), avx512_kernel=True)


def _mkl_vsqrt(x):
    """torch's float32/float64 sqrt: MKL's VML ``v?Sqrt`` (``vml.h``; not correctly rounded on
    every CPU: 17% of float32 values differ from the rounded root on this AMD CPU, all equal
    MKL's); None without MKL."""
    from . import _mkl

    if x.dtype not in (np.float32, np.float64) or not _mkl.available():
        return None
    saved = _mkl.FUNCS.get("sqrt")
    try:
        _mkl.FUNCS["sqrt"] = "Sqrt"
        f = _mkl.function("sqrt")
    finally:
        if saved is None:
            _mkl.FUNCS.pop("sqrt", None)
    return None if f is None else f(x)


def torch_sqrt(x):
    """torch.sqrt of a float array (MKL's where available, else the rounded root)."""
    out = _mkl_vsqrt(x) if x.size else None
    if out is None:
        with _quiet(all="ignore"):
            out = np.sqrt(x)
    return out


# torch's pow(Tensor, Scalar) (``PowKernel.cpp``, float32/float64): 0 -> ones, 1 -> copy,
# 0.5 -> sqrt, -0.5 -> 1 / sqrt, -1 -> 1 / x (the unary kernels), 2 -> x * x, 3 -> x * x * x,
# -2 -> 1 / (x * x); any other exponent: the vector loop runs SLEEF's ``powf_u10`` with the
# exponent rounded to float (DEFAULT's generic vector: ``powf``), the scalar loop
# ``std::pow(base, (double) exp)``, i.e. the double ``pow`` rounded to float. Measured bit for
# bit on torch 2.13 (AVX512, AVX2 and DEFAULT builds on an AVX512 CPU).
def torch_pow_scalar(x, e):
    dt = x.dtype
    if dt not in (np.float32, np.float64):
        return None
    e = float(e)
    one = dt.type(1)
    with _quiet(all="ignore"):
        if e == 0:
            return np.ones_like(x)
        if e == 1:
            return x.copy()
        if e == 0.5:
            return torch_sqrt(x)
        if e == -0.5:
            return (one / np.sqrt(x)).astype(dt)
        if e == -1:
            return (one / x).astype(dt)
        if e == 2:
            return x * x
        if e == 3:
            return x * x * x
        if e == -2:
            return (one / (x * x)).astype(dt)
        if dt == np.float64:
            return _pow64_scalar(x, e)
        flat = np.ascontiguousarray(x).reshape(-1)
        out = np.power(flat.astype(np.float64), e).astype(np.float32)
        from ._tensor_iter import vector_mask as _iter_mask   # (a view: memory order, strides)

        mask = _iter_mask([x], _pow_block()).reshape(-1)
        if mask.any():
            v = flat[mask]
            ef = np.full(v.shape, np.float32(e), np.float32)
            if _capability.capability() == "DEFAULT":
                from ..engine.ops._kernels import powf

                out[mask] = powf(v, ef)
            else:
                from ..engine.ops._kernels import sleef_pow

                out[mask] = sleef_pow(v, ef)
        return out.reshape(x.shape)


def _pow64_scalar(x, e):
    """float64 ``x ** e`` (e not one of the special exponents): the vector loop's values (two
    vectors a step) by SLEEF's ``Sleef_powd8_u10`` (AVX2: ``powd4``; same results as the FMA
    scalar build ported in ``_sleef_trig64``), the rest by ``std::pow`` (glibc). Measured on
    torch 2.13 (AVX512): 1,008 of 1,008 vector-loop values equal SLEEF's for exponents 2.7, 4, 7,
    -3, 0.3, 13 (glibc: 97-99%); a 15-value tensor, all scalar loop, equals glibc's."""
    from ..engine.ops._kernels import pow64   # (glibc's pow; numpy's np.power is SVML's here)

    out = pow64(np.array(x), np.full(x.shape, e, np.float64))
    if _capability.capability() == "DEFAULT" or not x.size:
        return out
    from ._tensor_iter import vector_mask as _iter_mask

    mask = _iter_mask([x])
    if mask.any():
        from ..engine.ops._sleef_trig64 import powd_u10

        v = x[mask]
        out[mask] = powd_u10(v, np.full(v.shape, e, np.float64))
    return out


def _powf_each(x, y):
    """glibc's powf on every value (the engine's ``powf`` takes the rounded double pow past
    1,024 values: the scalar loop of a strided or transposed ``2.5 ** x`` needs the C one)."""
    from ._elementwise_more import glibc2

    f = glibc2("powf")
    if f is None:
        from ..engine.ops._kernels import powf

        return powf(x, y)
    return f(x, y)


def torch_pow_tensor(x, y, c_order_out=False):
    """torch's pow(Tensor, Tensor) of float32 or float64 arrays (None for other dtypes): the
    vector loop (SLEEF ``powf_u10`` / ``powd_u10``; DEFAULT: the scalar one) on the values
    TensorIterator's rows give it (``_tensor_iter``: contiguous rows, or one operand broadcast
    along them), two vectors a step; the scalar loop (glibc's ``powf`` / ``pow``) for the tails
    and strided rows."""
    dt = x.dtype
    if dt not in (np.float32, np.float64) or y.dtype != dt:
        return None
    if dt == np.float32:
        from ..engine.ops._kernels import sleef_pow as vector_pow

        scalar_pow, step = _powf_each, _pow_block()
    else:
        from ..engine.ops._kernels import pow64 as scalar_pow
        from ..engine.ops._sleef_trig64 import powd_u10 as vector_pow

        step = 2 * _capability.lanes(dt, avx512_kernel=True)

    shape = np.broadcast_shapes(x.shape, y.shape)
    xb, yb = (np.ascontiguousarray(np.broadcast_to(v, shape)).reshape(-1) for v in (x, y))
    if xb.size == 0:
        return np.empty(shape, dt)
    with _quiet(all="ignore"):
        if _capability.capability() == "DEFAULT":
            return scalar_pow(xb, yb).reshape(shape)
        from ._tensor_iter import vector_mask as _iter_mask   # TensorIterator's rows

        ost = None
        if c_order_out:   # an output given C-contiguous: TensorIterator walks its order
            ost = np.empty(shape, dt).strides
        mask = _iter_mask([x, y], step, out_strides=ost).reshape(-1)
        out = np.empty(xb.shape, dt)
        if mask.any():
            out[mask] = vector_pow(xb[mask], yb[mask])
        if not mask.all():
            rest = ~mask
            out[rest] = scalar_pow(np.ascontiguousarray(xb[rest]), np.ascontiguousarray(yb[rest]))
    return out.reshape(shape)


# ------------------------------------------------------------------------------ cumsum / prod
def torch_cumsum(x, axis):
    """torch's cumsum of a float32/float64 array: a running sum in double (acc_type of the CPU
    kernel ``cumsum_cpu_kernel``), each value rounded to the dtype."""
    if x.dtype in (np.complex64, np.complex128):   # (acc_type of complex<float>: complex<double>)
        return np.cumsum(x, axis=axis, dtype=np.complex128).astype(x.dtype)
    if x.dtype not in (np.float32, np.float64):
        return None
    return np.cumsum(x, axis=axis, dtype=np.float64).astype(x.dtype)


def _prod_rows(rows):
    """torch's vectorized_inner_reduction of ``a * b`` over each row of (R, n): blocks of four
    8-lane vectors multiplied down, folded (v0 v1)(v2 v3) then lane by lane, onto the output's
    1, then the leftover values in order."""
    dt = rows.dtype
    r, n = rows.shape
    lanes = _lanes(dt)
    blk = 4 * lanes
    count = n // blk
    out = np.ones(r, dt)
    if count:
        v = rows[:, :count * blk].reshape(r, count, 4, lanes)
        acc = np.multiply.accumulate(v, axis=1)[:, -1]          # (r, 4, lanes)
        a0 = (acc[:, 0] * acc[:, 1]) * (acc[:, 2] * acc[:, 3])
        b = a0[:, 0]
        for k in range(1, lanes):
            b = b * a0[:, k]
        out = out * b
    for j in range(count * blk, n):
        out = out * rows[:, j]
    return out


def torch_prod(x, axis):
    """torch's prod of a float array over the sorted tuple ``axis`` (dropped), where the
    reduced axes are all, the trailing or the leading ones; None otherwise."""
    if x.dtype not in (np.float32, np.float64) or x.size == 0:
        return None
    nd = x.ndim
    axis = tuple(sorted(axis)) if axis else tuple(range(nd))
    a = np.ascontiguousarray(x)
    keep = [i for i in range(nd) if i not in axis]
    out_shape = tuple(a.shape[i] for i in keep)
    with _quiet(all="ignore"):
        if not keep or int(np.prod(out_shape)) == 1:
            flat = a.reshape(1, -1)
            chunks = _parallel_chunks(flat.shape[1], GRAIN) if flat.shape[1] >= GRAIN else [
                (0, flat.shape[1])]
            total = a.dtype.type(1)
            for b, e in chunks:
                total = total * _prod_rows(flat[:, b:e])[0]
            return np.asarray(total, a.dtype).reshape(out_shape)
        if list(axis) == list(range(nd - len(axis), nd)):
            return _prod_rows(a.reshape(int(np.prod(out_shape)), -1)).reshape(out_shape)
        if list(axis) == list(range(len(axis))):
            cols = a.reshape(-1, int(np.prod(out_shape)))
            return np.multiply.accumulate(cols, axis=0)[-1].reshape(out_shape)
    return None
