"""Paddle's float32 GEMM on AMD: the summation order of the MKL its wheels bundle, emulated.

Paddle 3.3.1 and 2.6.2 compute a convolution as im2col and one ``cblas_sgemm`` per sample and
group (``phi/kernels/impl/conv_kernel_impl.h``: ``blas.MatMul``), on one thread, from the MKL-ML
they ship (``paddle/libs/libmklml_intel.so``, the same file in both: "Intel(R) Math Kernel
Library Version 2019.0.5 Product Build 20190808"). On a CPU that is not Intel's, that MKL takes
its generic kernels (``mkl_blas_def_sgemm_*``, seen with gdb here), which round every product to
float32 and add without fusing; the MKL of the ``exact`` extra (2024.2) takes other kernels on
the same CPU and agrees with Paddle on 90,820 of 241,659 convolution outputs measured (this
module: all of them). The order of the additions, found on an AMD EPYC Zen 4 by Paddle's own
library (each output's summation tree read from inputs of 1, 2**40 and -2**40, then checked on
random matrices: every element of 1,600 products of random shapes M 1-23, N 2-49, K 1-299 at the
four alignments of C, plain and with A transposed, equal):

* ``C = A @ B`` (M x K times K x N, row-major) with M >= 8 and N >= 8 runs blocked: the rows
  M // 4 * 4 and the columns N // 8 * 8 form the main part, where K is cut in blocks of 112,
  the last block first and then the others in order; each block is summed from its first
  product on, and added to C;
* the remaining columns of those rows: one running sum over the same block order;
* the remaining rows (every row when M < 8 or N < 8): one running sum over k in order;
* where a run of a row starts off a 16-byte boundary and four or more elements follow, its
  first (1-3) elements take the scalar order: k in groups of 8, the first four added to the
  running sum one by one, the other four summed apart and then added (a K % 8 remainder one
  by one) — except the remaining rows of a blocked product with A transposed.

C's position in its buffer (``offsets``: floats from a 64-byte boundary, mod 4) decides those
first elements; Paddle's tensors start on 64-byte boundaries, so a per-sample slice starts at
``sample * M * N`` floats.

A transposed B (the filter gradient's ``dy @ cols^T``) and ``beta = 1`` take other kernels, not
emulated here (callers keep their own rule).
"""
from __future__ import annotations

import numpy as np

KC = 112          # the generic kernels' block of K


def _blocks(k):
    """K's blocks in the order the blocked kernel adds them: the last one first."""
    blocks = [range(s, min(s + KC, k)) for s in range(0, k, KC)]
    return blocks[-1:] + blocks[:-1]


def _running(a, b, ks, acc=None):
    """``acc`` plus the rounded products a[..., :, k] * b[..., k, :] added one by one."""
    tmp = None
    for k in ks:
        if acc is None:
            acc = np.multiply(a[..., :, k, None], b[..., k, None, :], dtype=np.float32)
            continue
        if tmp is None:
            tmp = np.empty(np.broadcast_shapes(acc.shape, a.shape[:-1] + b.shape[-1:]),
                           np.float32)
        np.multiply(a[..., :, k, None], b[..., k, None, :], out=tmp)
        acc = np.add(acc, tmp, out=acc) if acc.shape == tmp.shape else acc + tmp
    return acc


def _main(a, b, k):
    c = None
    for blk in _blocks(k):
        part = _running(a, b, blk)
        c = part if c is None else np.add(part, c, out=part)
    return c


def _scalar_order(av, bv, blocks, acc=None):
    """The first elements of an unaligned run: (E, K) operands, one output each; within each
    block of K, groups of 8 counted from the block's start; ``acc`` (E,): C, the first term
    (beta = 1), or None."""
    def add(acc, sub):
        for k in sub:
            p = np.multiply(av[:, k], bv[:, k], dtype=np.float32)
            acc = p if acc is None else np.add(acc, p, out=acc)
        return acc
    for blk in blocks:
        ks = list(blk)
        full = len(ks) // 8 * 8
        for g in range(0, full, 8):
            acc = add(acc, ks[g:g + 4])
            acc = np.add(acc, add(None, ks[g + 4:g + 8]), out=acc)
        acc = add(acc, ks[full:])
    return acc


def _fix_heads(a, b, out, starts, blocks, c=None):
    """Recompute in the scalar order the first elements of the rows of ``out`` (..., R, W)
    whose start (floats, ``starts`` (..., R)) is off a 16-byte boundary with 4+ elements after;
    ``c`` (..., R, W): C's values where C is accumulated (beta = 1)."""
    width = out.shape[-1]
    h = (-starts) % 4
    for j in range(3):
        sel = np.nonzero((h > j) & (width - h >= 4))
        if not sel[0].size:
            continue
        av = a[sel]                                                      # (E, K): rows of A
        bv = np.broadcast_to(b[..., None, :, j], starts.shape + b.shape[-2:-1])[sel]  # column j
        init = None if c is None else np.array(c[sel + (j,)], np.float32)
        out[sel + (j,)] = _scalar_order(av, bv, blocks, init)


def sgemm(a, b, offsets=None, trans_a=False):
    """``a @ b`` (float32, (..., M, K) @ (..., K, N), batch axes broadcast) as Paddle's bundled
    MKL sums it on AMD; ``offsets`` (the batch's shape, or None for 0) where each C starts
    (floats from a 64-byte boundary); ``trans_a``: A is passed to sgemm transposed."""
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    m, k = a.shape[-2:]
    n = b.shape[-1]
    a = np.broadcast_to(a, batch + (m, k))
    b = np.broadcast_to(b, batch + (k, n))
    out = np.empty(batch + (m, n), np.float32)
    if k == 0:
        out.fill(0)
        return out
    base = np.zeros(batch, np.int64) if offsets is None else np.broadcast_to(offsets, batch)
    rows = np.arange(m) * n                                       # each row's start in C
    blocked = m >= 8 and n >= 8
    mb, nb = (m // 4 * 4, n // 8 * 8) if blocked else (0, 0)
    if blocked:
        out[..., :mb, :nb] = _main(a[..., :mb, :], b[..., :, :nb], k)
        if nb < n:
            blocks = _blocks(k)
            rest = out[..., :mb, nb:]
            rest[...] = _running(a[..., :mb, :], b[..., :, nb:], [i for bl in blocks for i in bl])
            _fix_heads(a[..., :mb, :], b[..., :, nb:], rest,
                       base[..., None] + rows[:mb] + nb, blocks)
    if mb < m:
        rest = out[..., mb:, :]
        rest[...] = _running(a[..., mb:, :], b, range(k))
        if not (blocked and trans_a):
            _fix_heads(a[..., mb:, :], b, rest, base[..., None] + rows[mb:], [range(k)])
    # (the kernels' sums start from +0: a sum of -0 products is +0, measured)
    return np.add(out, np.float32(0), out=out)


# ---------------------------------------------------------------- C accumulated (beta = 1)
# ``C += A @ B`` (B not transposed, A plain or transposed, beta 1): Paddle's recurrent backward
# (the weight gradients summed over the steps, ``dX += G W_ih``, the GRU cell's three products
# into the previous hidden state's gradient). Found against Paddle's library on an AMD EPYC
# Zen 4 (600 random products, M and N 2-49, K 1-129, random leading dimensions and operand
# positions: every element equal):
#
# * M >= 8, N >= 8 and K >= 8 run blocked (as ``sgemm``, now K >= 8 too): the main part starts
#   from C and adds each block's sum (from its first product on, last block first): C = part + C;
#   its remaining columns: one running sum from C over the same block order;
# * the remaining rows, and every row of a product that is not blocked: one running sum from C
#   over k in order;
# * the first elements of unaligned runs (as ``sgemm``): the scalar order from C; the leading
#   dimensions and where A and B lie do not matter.

def sgemm_acc(c, a, b, trans_a=False, c_offset=0):
    """``c + a @ b`` (float32, 2-D, ``b`` with more than one column) as Paddle's bundled MKL
    computes ``cblas_sgemm`` with beta = 1 on AMD; ``trans_a``: A passed transposed;
    ``c_offset``: where C starts (floats from a 64-byte boundary)."""
    m, k = a.shape
    n = b.shape[-1]
    c = np.asarray(c, np.float32)
    out = np.array(c, np.float32)
    if k == 0:
        return out
    rows = c_offset + np.arange(m) * n
    blocked = m >= 8 and n >= 8 and k >= 8
    mb, nb = (m // 4 * 4, n // 8 * 8) if blocked else (0, 0)
    blocks = _blocks(k)
    if blocked:
        acc = out[:mb, :nb]
        for blk in blocks:   # (each block's sum starts from +0: -0 products give +0)
            part = _running(a[:mb], b[:, :nb], blk)
            np.add(np.add(part, np.float32(0), out=part), acc, out=acc)
        if nb < n:
            out[:mb, nb:] = _running(a[:mb], b[:, nb:], [i for bl in blocks for i in bl],
                                     np.array(c[:mb, nb:]))
            _fix_heads(a[:mb], b[:, nb:], out[:mb, nb:], rows[:mb] + nb, blocks, c[:mb, nb:])
    if mb < m:
        out[mb:] = _running(a[mb:], b, range(k), np.array(c[mb:]))
        if not (blocked and trans_a):
            _fix_heads(a[mb:], b, out[mb:], rows[mb:], [range(k)], c[mb:])
    return out


# ---------------------------------------------------------------- B transposed, C accumulated
# ``C += A @ B`` with B passed transposed (each column of B one row of K in memory) and beta 1:
# the filter gradient's ``dy @ cols^T``, added sample after sample into the gradient. Found the
# same way (summation trees from Paddle's library, then random matrices: 99.7% of the elements
# of 300 random products equal, the rest in the few columns named below):
#
# * M >= 8, N >= 8 and K >= 8 run blocked: the main part (as above) sums each block of K from its
#   first product on and adds C after it;
# * its remaining columns, and every element of a product that is not blocked, are dot products:
#   the row of A is read from its first 16-byte boundary (the 1-3 products before it summed one
#   by one into the first lane), then 4 lanes (k mod 4; columns in full groups of 4) or 8 lanes
#   (the N % 4 last columns) run over whole vectors, the lanes are folded in halves (lane i plus
#   lane i + L/2, repeatedly), the products after the last whole vector are added one by one and
#   C last; in the blocked part each block of K is such a dot product, C after each;
# * the remaining rows of a blocked product, and a one-row product, read the row's first
#   (K - 1) % 4 + 1 products apart with 4 lanes, 4 with 8 lanes (in rows past the last whole
#   group of 4, some of the last columns take another count: not emulated).

def _seq_sum(x, init=None):
    """``init`` (or x[0]) plus x[1], x[2], ... one after the other, over axis 0, float32. x must
    have axis 0 as its largest stride (a C-contiguous array or a slice of one along later axes):
    numpy then adds whole rows in order (its pairwise summation only runs when the reduced axis
    is the inner loop, which a row of one element would make it: those go by accumulate)."""
    if init is not None:
        x = np.concatenate([init[None], x])
    if x.shape[0] == 1:
        return x[0].copy()
    if x[0].size < 2:
        return np.add.accumulate(x, axis=0)[-1]
    # (no dtype= here: with one numpy buffers the iteration and may reorder the additions)
    return np.add.reduce(x, axis=0)


def _dot_lanes0(p, h, lanes, step=None):
    """Dot products of (K, ...) rounded products (K first, C-contiguous): ``h`` read apart (into
    lane 0), then ``lanes`` lanes over whole vectors, folded in halves, the rest one by one;
    ``step``: products a loop round takes (``lanes`` unless two vectors a round)."""
    k = p.shape[0]
    h = min(h, k)
    acc = _seq_sum(p[:h]) if h else None
    step = step or lanes
    nit = (k - h) // step * (step // lanes)
    if nit:
        body = p[h:h + nit * lanes].reshape((nit, lanes) + p.shape[1:])
        lane = _seq_sum(body)                                   # (lanes, ...), each in order
        if acc is not None:               # lane 0 starts from the products read apart
            lane[0] = _seq_sum(body[:, 0], init=acc)
        while lane.shape[0] > 1:
            half = lane.shape[0] // 2
            lane = np.add(lane[:half], lane[half:], dtype=np.float32)
        acc = lane[0]
    rest = p[h + nit * lanes:]
    if rest.shape[0]:
        acc = _seq_sum(rest, init=acc)
    return acc


def _dot_lanes(p, h, lanes):
    """As ``_dot_lanes0`` for (..., K) products (K last)."""
    return _dot_lanes0(np.ascontiguousarray(np.moveaxis(p, -1, 0)), h, lanes)


def _dot_columns(p, heads, end=False, b_heads=None):
    """(K, ..., R, W) products -> one partial (..., R, W) for these columns: full groups of 4
    columns with 4 lanes, the rest with 8; ``heads`` (..., R): the rows' offsets; ``b_heads``
    (..., R): where B starts (floats), for ``end``."""
    w, k = p.shape[-1], p.shape[0]
    out = np.empty(p.shape[1:], np.float32)
    w4 = w // 4 * 4
    for lo, hi, lanes in ((0, w4, 4), (w4, w, 8)):
        if hi <= lo:
            continue
        part = np.ascontiguousarray(p[..., lo:hi])
        if end and lanes == 4:
            # 1-4 products apart so that the vectors end where B's row ends (B's start counts)
            hs = (k - 1 - (0 if b_heads is None else b_heads)) % 4 + 1
            for h in np.unique(hs):
                sel = np.nonzero(np.broadcast_to(hs, heads.shape) == h)
                out[sel + (slice(lo, hi),)] = _dot_lanes0(
                    np.ascontiguousarray(part[(slice(None),) + sel]), int(h), lanes)
            continue
        if end:
            # the last w % 4 columns: the row read from its first 16-byte boundary with 1-4
            # products apart (4 where it starts on one), 8 lanes; but the second of them runs 4
            # lanes two vectors a round (the products after the last whole 8 one by one). Found
            # from the summation trees of Paddle's library (inputs 1, 2**40 and -2**40)
            hs = 4 - heads % 4
            for c in range(lo, hi):
                lanes_c, step = (4, 8) if c == lo + 1 else (8, 8)
                for h in np.unique(hs):
                    sel = np.nonzero(hs == h)
                    out[sel + (c,)] = _dot_lanes0(
                        np.ascontiguousarray(p[(slice(None),) + sel + (c,)]), int(h), lanes_c,
                        step)
            continue
        hs = (-heads) % 4
        uniq = np.unique(hs)
        if len(uniq) == 1:
            out[..., lo:hi] = _dot_lanes0(part, int(uniq[0]), lanes)
            continue
        for h in uniq:
            sel = np.nonzero(hs == h)
            out[sel + (slice(lo, hi),)] = _dot_lanes0(
                np.ascontiguousarray(part[(slice(None),) + sel]), int(h), lanes)
    return out


def sgemm_bt_partials(a, bt, a_offsets=None, b_offsets=None):
    """The parts of ``A @ B`` (A (..., M, K), B given as ``bt`` (..., N, K)) that Paddle's MKL adds
    into C one after the other, for B passed transposed and beta 1: a list of (region, parts)
    with ``region`` the (rows, cols) slices and ``parts`` arrays (..., rows, cols) to add to C in
    order (C = part + C each). ``a_offsets`` (the batch's shape): where each A starts (floats
    from a 64-byte boundary; its rows follow at K apart); ``b_offsets``: where each B starts (the
    remaining rows' dot products depend on it). Each running sum is numpy adding whole
    planes of products in order (long inner loops); the main part's planes are made one at a
    time (a K-first array of them all cost twice the time in memory traffic)."""
    batch = np.broadcast_shapes(a.shape[:-2], bt.shape[:-2])
    m, k = a.shape[-2:]
    n = bt.shape[-2]
    base = np.zeros(batch, np.int64) if a_offsets is None else np.broadcast_to(a_offsets, batch)
    ak = np.moveaxis(np.broadcast_to(a, batch + (m, k)), -1, 0)          # (K, ..., M)
    bk = np.moveaxis(np.broadcast_to(bt, batch + (n, k)), -1, 0)         # (K, ..., N)

    def prods(ks, rs, cs):
        # (K, ..., M, N), C order: numpy would follow the operands' strides (K innermost)
        p = np.empty((ks.stop - ks.start,) + batch + (rs.stop - rs.start, cs.stop - cs.start),
                     np.float32)
        return np.multiply(ak[ks, ..., rs, None], bk[ks, ..., None, cs], out=p)

    def block_sum(blk, rs, cs):
        # the running sum of a block's products over whole planes, one product at a time
        # (no K-first array of them all: the same additions, a tenth of the memory traffic)
        acc = np.multiply(ak[blk.start, ..., rs, None], bk[blk.start, ..., None, cs],
                          dtype=np.float32)
        tmp = np.empty_like(acc)
        for i in range(blk.start + 1, blk.stop):
            np.multiply(ak[i, ..., rs, None], bk[i, ..., None, cs], out=tmp)
            np.add(acc, tmp, out=acc)
        return acc

    rows = base[..., None] + np.arange(m) * k                   # each row of A's start
    regions = []
    blocked = m >= 8 and n >= 8 and k >= 8
    mb, nb = (m // 4 * 4, n // 8 * 8) if blocked else (0, 0)
    if blocked:
        main = [block_sum(blk, slice(0, mb), slice(0, nb)) for blk in _blocks(k)]
        regions.append(((slice(0, mb), slice(0, nb)), main))
        if nb < n:
            regions.append(((slice(0, mb), slice(nb, n)),
                            [_dot_columns(prods(slice(blk.start, blk.stop), slice(0, mb),
                                                slice(nb, n)), rows[..., :mb] + blk.start)
                             for blk in _blocks(k)]))
    if mb < m:
        end = blocked or m == 1
        bbase = (np.zeros(batch, np.int64) if b_offsets is None
                 else np.broadcast_to(b_offsets, batch))
        regions.append(((slice(mb, m), slice(0, n)),
                        [_dot_columns(prods(slice(0, k), slice(mb, m), slice(0, n)),
                                      rows[..., mb:], end=end,
                                      b_heads=np.broadcast_to(bbase[..., None] % 4,
                                                              rows[..., mb:].shape))]))
    return regions
