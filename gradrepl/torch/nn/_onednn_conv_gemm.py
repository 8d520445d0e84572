"""torch's convolutions outside oneDNN's direct JIT kernels, as they sum: oneDNN's 1x1 kernel
(``jit_1x1:avx512_core``), oneDNN's gemm convolution (``x64:gemm:jit``, its own sgemm) on an
``avx512_core`` CPU, and ATen's slow convolution (im2col and MKL's gemm; any x86-64 CPU with
the ``mkl`` wheel).

Which runs (``use_mkldnn``, ATen's rule; ``aten_slow``): float64 always ATen's; float32 a 1x1
filter with fewer than 16 samples on one thread, and a single sample unless its kernel is larger
than 3x3 both ways or its input has more than 20480 values, ATen's too; the rest oneDNN's:
``jit_1x1`` for a 1x1 filter without padding (stride 1, or a stride that tiles the input), the
gemm convolution where a padding reaches the dilated kernel extent (forward; backward data at
stride 1, and for a dilated strided one) and where ``_onednn_conv_bwd_w`` finds no JIT
backward-weights kernel. Read from oneDNN 3.12's sources (the version torch 2.13 links) and
ATen's (``ConvolutionMM2d.cpp``, ``NaiveDilatedConvolution.cpp``), checked against real torch
2.13 here with ``ONEDNN_VERBOSE=1`` on random shapes (tests/test_torch_conv_gemm_bits.py):

* ``jit_1x1`` (torch's blocked ``nChw16c`` layout): ``jit_avx512_common_1x1_conv_kernel_t``.
  The forward sums each output in one fused multiply-add chain over the input channels
  *starting from the bias*, cut into chunks of ``reduce_blocking`` channels (``init_conf``: 80,
  256 or 512 by the output height, fewer when the input would alias in the cache), each later
  chunk a chain from zero added to the output; the input gradient likewise over the output
  channels, from zero. The filter gradient: the positions of each sample cut into blocks of
  ``reduce_block`` (``best_divider``), the reduction over (sample, block) pairs split over
  ``nthr_mb`` threads (``balance``: its memory cost model), each thread one chain per kernel
  call (up to ``nb_reduce_blocking`` blocks of one sample) whose sums it adds to its partial in
  order; the partials added in thread order. The bias: a plain sum per sample and position,
  the samples split by ``cpu_reducer``'s balance.
* ``x64:gemm:jit`` (ncsp), per sample im2col and oneDNN's sgemm: the forward
  ``("N", "N", positions, oc, ic*k)`` and the input gradient ``("N", "T", positions, ic*k,
  oc)`` on the no-copy kernel: one chain per K cut (``gemm_k_chunks``: 384s, the rest in two
  halves), each cut one kernel call adding into C; the bias added after; ``col2im`` in
  kernel-offset order. The filter gradient ``("T", "N", ic*k, oc, positions)`` with beta 1
  after the first sample: 2 to 15 output channels on ``jit_avx512_core_gemm_smalln_tn_f32``
  (each weight 16 lanes, lane ``l`` a chain over the positions ``l, l+16, ...``, then the
  kernel's 16-way shuffle-and-add reduction emulated instruction by instruction:
  ``vshuff32x4``, ``vpermi2ps``, ``vshufpd``; columns in kernels of 2 or 3 (``partitions``),
  rows in blocks of 8 from each thread's first row), 16 or more on the copy-based / no-copy
  kernels' chains; the samples split over the threads when the positions per thread are fewer
  than 256 (``outer_threading``), the threads' sums added in order. Its bias gradient: each
  output row summed from zero, the rows' sums added in order. Not emulated: one output
  channel's gemv, a threaded sgemm's filter gradient, oneDNN's input-channel blocking of large
  forwards (``calc_max_icb``), 3-d ones.
* ATen's ``slow_conv2d`` backward (and ``slow_conv_dilated2d``'s): MKL's column-major gemm per
  sample where torch calls it (``slow_conv2d_backward``), ``col2im`` in kernel-offset order,
  the bias by torch's reduction (dilated: per-sample spatial sums added in order).
"""
from __future__ import annotations

import math

import numpy as np

SIMD = 16
L1_BYTES = 32 * 1024          # per-core L1 data cache (oneDNN's platform query; Zen 4, Intel)
#: The smallest per-core L2 of an avx512_core CPU (512 KiB): oneDNN's gemm forward blocks its
#: input channels by the L2 it finds (``l2_floats``), this one where the kernel says nothing
L2_DEFAULT = 512 * 1024
_L2 = []


def l2_floats():
    """The per-core L2 cache in floats (``/sys``'s cpu0 level-2 size, as oneDNN's cpuid query
    gives on Linux; ``L2_DEFAULT`` where not readable): under ``ic * (stride * P + k * P +
    k * O) + O * P`` of it the gemm forward's input-channel block (``calc_max_icb``) is all
    the channels, whatever blocking oneDNN chooses."""
    if not _L2:
        size = L2_DEFAULT
        try:
            with open("/sys/devices/system/cpu/cpu0/cache/index2/size") as f:
                text = f.read().strip().upper()
            size = int(text.rstrip("KMB")) * (1 << 20 if text.endswith("M") else 1 << 10)
        except (OSError, ValueError):
            pass
        _L2.append(size // 4)
    return _L2[0]


def _up(a, b):
    return -(-a // b)


def best_divider(value, min_divider, max_divider, find_max, step=1):
    """``jit_uni_1x1_conv_utils.hpp::best_divider`` (its loss in float32)."""
    max_divider = max(1, min(max_divider, value))
    min_divider = max(1, min(min_divider, max_divider))
    min_loss = np.float32(np.inf)
    x = max_divider
    for d in range(max_divider, min_divider - 1, -step):
        r = _up(value, d) * d
        loss = np.float32(r - value) / np.float32(r)
        if (find_max and loss < min_loss) or (not find_max and loss <= min_loss):
            min_loss, x = loss, d
    return x


# ------------------------------------------------------------------------- jit_1x1 forward
def fwd_reduce_chunk(mb, ic, oc, oh, os_, threads):
    """Input channels per chain of the 1x1 forward (``init_conf``, forward): reduce_blocking."""
    spatial = oh
    if (8 * mb) // threads >= 1:
        if oc <= 256 and 10 < spatial < 28:
            rb = min(ic, 80)
        elif spatial > 10:
            rb = min(ic, 512)
        else:
            rb = min(ic, 256)
    else:
        nb_reduce = _up(ic, SIMD)
        rb = nb_reduce
        if spatial <= 10 and ic >= 1024:
            rb = 16
        elif spatial > 10 and ic >= 1024:
            rb = 8
        rb = best_divider(nb_reduce, 1, rb, True) * SIMD
    way, max_hits = (64 * 1024) // 4, 7
    if os_ * rb > way * max_hits:
        ur = _fwd_ur(mb, threads, oc, oh, os_)
        nrb = rb // SIMD
        wl = way // SIMD
        done = False
        for start in range(ur):
            off, hits = start, 0
            while off < os_ * nrb:
                if off % os_ >= ur:
                    off += wl
                    continue
                hits += 1
                if hits < max_hits:
                    off += wl
                    continue
                rb = min(rb, SIMD * max(1, (off + wl) // os_))
                done = True
                break
            if done:
                break
    return _up(rb, SIMD) * SIMD


def _fwd_ur(mb, threads, oc, spatial, os_):
    if (8 * mb) // threads >= 1:
        max_regs, min_regs, size = 9, 6, 14
        if 128 < oc < 256 and 10 < spatial < 28:
            max_regs, min_regs = 6, 5
    else:
        max_regs, min_regs, size = 30, 9, 14
    for ur in range(max_regs, min_regs - 1, -1):
        if (spatial >= size and spatial % ur == 0) or (spatial < size and os_ % ur == 0):
            return ur
    ur, tail = min(max_regs, os_), os_ % max_regs
    for i in range(max_regs, min_regs - 1, -1):
        t = os_ % i
        if t > tail or t == 0:
            ur, tail = i, t
            if t == 0:
                break
    return ur


def _chains_from(init, w, x, chunk):
    """``init`` (N, O, P) float32 (bias or zeros) then, per chunk of ``chunk`` reduction
    channels, one fused multiply-add chain (the first from ``init``, later ones from zero and
    added): ``w`` (O, C), ``x`` (N, C, P)."""
    got = _blas_chains_from(init, w, x, chunk)
    if got is not None:
        return got
    n, c = x.shape[:2]
    out = None
    w64 = w.astype(np.float64)
    tmp = np.empty(init.shape)
    for cb in range(0, c, chunk):
        acc = init.copy() if cb == 0 else np.zeros_like(init)
        for ci in range(cb, min(c, cb + chunk)):
            np.multiply(w64[None, :, ci, None], x[:, ci, None, :], out=tmp)
            np.add(acc, tmp, out=acc, casting="unsafe")
        out = acc if out is None else out + acc
    return out


def _blas_chains_from(init, w, x, chunk):
    """``_chains_from`` by numpy's BLAS where ``_fma_gemm`` checked it sums the chains so (the
    first chunk from ``init``: the identity in front of the chunk's columns, ``1 * init`` added
    to zero first), else None."""
    from ._fma_gemm import chains

    if not (np.isfinite(init).all() and np.isfinite(w).all() and np.isfinite(x).all()):
        return None
    if np.signbit(init[init == 0]).any():
        return None          # (a chain from -0 keeps it where every product is -0; 0 + -0 not)
    n, c = x.shape[:2]
    o = w.shape[0]
    from_init = bool(init.any())
    out = None
    for cb in range(0, c, chunk):
        wc = np.asarray(w[:, cb:cb + chunk], np.float32)
        xc = np.asarray(x[:, cb:cb + chunk], np.float32)
        if cb == 0 and from_init:
            wc = np.concatenate([np.eye(o, dtype=np.float32), wc], axis=1)
            xc = np.concatenate([np.asarray(init, np.float32), xc], axis=1)
        acc = chains(np.broadcast_to(wc, (n,) + wc.shape), xc, finite=True)
        if acc is None:
            return None
        out = acc if out is None else out + acc
    return out


def conv1x1_forward(x, w, bias, stride, threads):
    """``x`` (N, C, *S) float32, ``w`` (O, C, 1...) float32; no padding, any stride."""
    xs = x[(slice(None), slice(None)) + tuple(slice(None, None, s) for s in stride)]
    n, c = xs.shape[:2]
    o = w.shape[0]
    outs = xs.shape[2:]
    size = math.prod(outs)
    oh = outs[-2] if len(outs) >= 2 else 1
    if len(outs) == 3:
        oh = outs[0] * outs[1]
    chunk = fwd_reduce_chunk(n, c, o, oh, size, threads)
    init = np.zeros((n, o, size), np.float32)
    if bias is not None:
        init += bias.astype(np.float32).reshape(1, o, 1)
    x64 = np.ascontiguousarray(xs, dtype=np.float64).reshape(n, c, size)
    return _chains_from(init, w.reshape(o, c), x64, chunk).reshape((n, o) + outs)


def conv1x1_backward_data(g, w, x_shape, stride, threads):
    """The input gradient of a 1x1 convolution (stride 1): chains over the output channels in
    chunks (the forward's rule with the roles swapped), from zero."""
    n, o = g.shape[:2]
    c = w.shape[1]
    outs = g.shape[2:]
    size = math.prod(outs)
    oh = outs[-2] if len(outs) >= 2 else 1
    if len(outs) == 3:
        oh = outs[0] * outs[1]
    chunk = fwd_reduce_chunk(n, o, c, oh, size, threads)
    g64 = np.ascontiguousarray(g, dtype=np.float64).reshape(n, o, size)
    dx = _chains_from(np.zeros((n, c, size), np.float32), w.reshape(o, c).T, g64, chunk)
    return dx.reshape((n, c) + outs)


# ------------------------------------------------------------------ jit_1x1 backward weights
def plan_1x1_bwd_w(mb, ic, oc, oh, ow, threads, l1=L1_BYTES):
    """(reduce_block, nb_reduce, nb_reduce_blocking, nb_reduce_blocking_max, nthr_mb, nthr)
    of the 1x1 backward-weights pass (``init_conf`` backward_weights and ``balance``)."""
    is_ = oh * ow
    rblk = best_divider(is_, 7, 16, True)
    if is_ % rblk:
        rblk = best_divider(ow, 4, ow, False)
    if rblk > 256:
        rblk = 1
    ur = SIMD // 2 if rblk <= 19 else SIMD
    l1cap = l1 // 4
    max_rb = min(l1cap // ur, is_)
    min_rb = min(l1cap // ur, max(ow, oh))
    rb = best_divider(is_, min_rb, max_rb, True)
    rb = max(rb // rblk * rblk, rblk)
    rb_max = (rb * 3 // 2) // rblk * rblk
    nb_reduce = _up(is_, rblk)
    nb_bcast, nb_load = _up(ic, SIMD), _up(oc, SIMD)

    def cost(m, o, i):
        return (_up(mb * nb_reduce, m) * _up(nb_bcast, i) * SIMD * rblk
                + _up(mb * nb_reduce, m) * _up(nb_load, o) * SIMD * rblk
                + 12 * _up(nb_load, o) * _up(nb_bcast, i) * SIMD * SIMD)

    best = (1, 1, 1)
    best_cost = cost(1, 1, 1)
    for m in range(1, min(threads, mb * nb_reduce) + 1):
        par = threads // m
        for o in range(1, min(par, nb_load) + 1):
            i = min(par // o, nb_bcast)
            c = cost(m, o, i)
            if c <= best_cost:
                best_cost, best = c, (m, o, i)
    m, o, i = best
    if threads // 2 < m < threads:
        m = min(mb, threads)
    return rblk, nb_reduce, _up(rb, rblk), _up(rb_max, rblk), m, m * o * i


def conv1x1_backward_weights(x, g, stride, threads):
    """(dw, db) of a 1x1 convolution without padding as ``jit_1x1`` sums them (module
    docstring). ``x`` (N, C, *S), ``g`` (N, O, *P) float32."""
    from ._onednn_conv import _parts
    from ._onednn_conv_bwd_w import fma_chains, reducer_team

    xs = x[(slice(None), slice(None)) + tuple(slice(None, None, s) for s in stride)]
    n, c = xs.shape[:2]
    o = g.shape[1]
    outs = g.shape[2:]
    xs = xs[(slice(None), slice(None)) + tuple(slice(0, m) for m in outs)]
    size = math.prod(outs)
    oh, ow = (1,) * (2 - len(outs[-2:])) + tuple(outs[-2:])
    if len(outs) == 3:
        oh = outs[0] * outs[1]
    rblk, nb_reduce, step, step_max, nthr_mb, nthr = plan_1x1_bwd_w(n, c, o, oh, ow, threads)
    calls = []                    # per thread: the (start, end) rows of each kernel call
    for a, b in _parts(n * nb_reduce, nthr_mb):
        mine, u = [], a
        while u < b:
            img, sp = divmod(u, nb_reduce)
            rem = min(nb_reduce - sp, b - u)
            k = rem if rem < step_max else step
            lo = img * size + sp * rblk
            mine.append((lo, min(img * size + size, lo + k * rblk)))
            u += k
        calls.append(mine)
    cols = np.moveaxis(xs.reshape(n, c, size), 1, 2).reshape(n * size, c).astype(np.float64)
    g2 = np.moveaxis(g.reshape(n, o, size), 1, 2).reshape(n * size, o)
    flat = [bd for mine in calls for bd in mine]
    sums = fma_chains(g2.astype(np.float64), cols, flat)
    total, i = None, 0
    for mine in calls:
        part = sums[i]
        for j in range(1, len(mine)):
            part = part + sums[i + j]
        i += len(mine)
        total = part if total is None else total + part
    team_b = reducer_team(nthr, SIMD, _up(o, SIMD), n, nthr * 3 * 5 * 5 * 16 * 16)
    db = None
    for a, b in _parts(n, team_b):
        part = np.add.accumulate(g2[a * size:b * size], axis=0, dtype=np.float32)[-1]
        db = part if db is None else db + part
    return total.reshape(_w_shape(o, c, len(outs))), db


def _w_shape(o, c, nd):
    return (o, c) + (1,) * nd


# ------------------------------------------------------------------------------ dispatch
def use_mkldnn(x_shape, w_shape, stride, dilation, groups, threads):
    """ATen's ``ConvParams::use_mkldnn`` for a float32 CPU convolution (not transposed): a 1x1
    filter goes to oneDNN only when strided, dilated, 16 samples or more, or more than one
    thread ("THNN is faster when single-threaded"); and then with groups, a kernel larger than
    3x3 both ways, two samples or more, or more than 20480 input elements (of the first four
    dims; a 1-d convolution is viewed as 2-d with height 1)."""
    x4 = tuple(x_shape) if len(x_shape) >= 4 else (x_shape[0], x_shape[1], 1) + tuple(
        x_shape[2:])
    kw, kh = w_shape[-1], (w_shape[-2] if len(w_shape) >= 4 else 1)
    first = (any(s != 1 for s in stride) or any(d != 1 for d in dilation) or x4[0] >= 16
             or kw != 1 or kh != 1 or threads > 1)
    return first and (groups > 1 or (kw > 3 and kh > 3) or x4[0] > 1
                      or x4[0] * x4[1] * x4[2] * x4[3] > 20480)


def aten_slow(x_shape, w_shape, stride, dilation, groups, transposed, dtype):
    """Whether torch runs ATen's own slow convolution (im2col and MKL's gemm) here rather than
    oneDNN: float64 always, float32 where ``use_mkldnn`` says no (not transposed, no groups:
    the other cases keep their paths)."""
    from .. import _capability

    if transposed or groups != 1:
        return False
    if np.dtype(dtype) == np.float64:
        return True
    return np.dtype(dtype) == np.float32 and not use_mkldnn(
        x_shape, w_shape, stride, dilation, groups, _capability.threads())


def onexone_kind(x_shape, w_shape, out_shape, stride, pads, groups, dtype, dilation=None):
    """Which oneDNN kernel real torch here runs a 1x1 convolution without padding on:
    ``"1x1"`` (``jit_1x1``: stride 1, or a stride that tiles the input exactly, oneDNN's
    ``rtus``: output size times stride equal to the input size), ``"direct"`` (another stride:
    the direct kernel, ``jit:avx512_core``/``jit:avx2``), ``"dilated"`` (strided and dilated:
    the direct forward, the gemm convolution's backward passes), or None (not a 1x1 convolution
    without padding, not avx512_core float32 without groups in 1 or 2 spatial axes, or ATen's
    own slow convolution: ``use_mkldnn``)."""
    from ._onednn_conv import isa

    if isa() != "avx512_core" or np.dtype(dtype) != np.float32 or groups != 1:
        return None
    if x_shape[0] < 1 or len(x_shape) not in (3, 4) or any(k != 1 for k in w_shape[2:]):
        return None
    if any(p for pair in pads for p in pair):
        return None
    from .. import _capability

    if not use_mkldnn(x_shape, w_shape, stride, dilation or (1,) * len(stride), groups,
                      _capability.threads()):
        return None                       # (ATen's own slow convolution)
    if all(s == 1 for s in stride) or all(
            o * s == i for o, s, i in zip(out_shape[2:], stride, x_shape[2:])):
        return "1x1"
    if any(d != 1 for d in dilation or ()):
        return "dilated"                  # (the direct forward, the gemm backward passes)
    return "direct"


def onexone_applies(x_shape, w_shape, out_shape, stride, pads, groups, dtype):
    """Whether real torch here runs this convolution on ``jit_1x1`` (``onexone_kind``)."""
    return onexone_kind(x_shape, w_shape, out_shape, stride, pads, groups, dtype) == "1x1"


def _out_shape(x, w, stride):
    return x.shape[:1] + w.shape[:1] + tuple((i - 1) // s + 1 for i, s in
                                             zip(x.shape[2:], stride))


def try_forward(x, w, bias, stride, pads, groups, dilation=None):
    """The forward of a 1x1 convolution without padding where oneDNN runs it (``jit_1x1``, or
    the direct kernel for a stride ``rtus`` does not take), else None."""
    from .. import _capability
    from ._onednn_conv import LIMIT, conv_forward, macs

    out = _out_shape(x, w, stride)
    kind = onexone_kind(x.shape, w.shape, out, stride, pads, groups, x.dtype, dilation)
    if kind is None or macs(x.shape[0], x.shape[1], w.shape[0], w.shape[2:], out[2:]) > LIMIT:
        return None
    if kind in ("direct", "dilated"):
        return conv_forward(x, w, bias, stride, pads, (1,) * len(stride))
    return conv1x1_forward(x, w, bias, stride, _capability.threads())


def try_backward(x, w, g, stride, pads, groups, want, dilation=None):
    """(dx, dw, db) of a 1x1 convolution without padding where oneDNN computes them
    (``jit_1x1``; dx at stride 1 only, a strided one's is ``brgconv_strided``'s; a stride
    ``rtus`` does not take: the backward-weights kernel ``_onednn_conv_bwd_w.plan`` names),
    else None."""
    from .. import _capability
    from ._onednn_conv import LIMIT, STEPS, conv_backward_weights, macs

    kind = onexone_kind(x.shape, w.shape, g.shape, stride, pads, groups, x.dtype, dilation)
    if kind in (None, "dilated"):
        return None
    size = math.prod(g.shape[2:])
    if macs(x.shape[0], x.shape[1], w.shape[0], w.shape[2:], g.shape[2:]) > LIMIT:
        return None
    threads = _capability.threads()
    dx = dw = db = None
    if kind == "direct":
        from ._onednn_conv_bwd_w import plan

        nd = len(stride)
        cuts = plan(x.shape, w.shape, g.shape, stride, (0,) * nd, (1,) * nd, threads)
        if any(want[1:]) and x.shape[0] * size <= STEPS and cuts is not None and \
                cuts.kernel != "x64:gemm:jit":
            dw, db = conv_backward_weights(x, g, w.shape[2:], stride, pads, (1,) * nd,
                                           cuts.team_w, cuts.team_b, cuts.rows_w, cuts.rows_b)
        return dx, dw, db
    if want[0] and all(s == 1 for s in stride):
        dx = conv1x1_backward_data(g, w, x.shape, stride, threads)
    if any(want[1:]) and x.shape[0] * size <= STEPS:
        dw, db = conv1x1_backward_weights(x, g, stride, threads)
    return dx, dw, db


# ------------------------------------------------------- oneDNN's sgemm, small-N TN kernel
#: ``xbyak_gemm_smalln_tn_t``'s permutation tables (vpermi2ps indices)
_PERM_AB = np.array([0, 1, 2, 3, 16, 17, 18, 19, 8, 9, 10, 11, 24, 25, 26, 27])
_PERM_BA = np.array([4, 5, 6, 7, 20, 21, 22, 23, 12, 13, 14, 15, 28, 29, 30, 31])
_PERM_AB1 = np.array([0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10, 26, 12, 28, 14, 30])
_PERM_BA1 = np.array([1, 17, 3, 19, 5, 21, 7, 23, 9, 25, 11, 27, 13, 29, 15, 31])
#: ``partitions``: the columns (N up to 15) as kernels of 2 or 3 columns
_PARTS = {1: (0, 1), 2: (0, 2), 3: (0, 3), 4: (0, 2, 4), 5: (0, 3, 5), 6: (0, 3, 6),
          7: (0, 2, 4, 7), 8: (0, 3, 6, 8), 9: (0, 3, 6, 9), 10: (0, 2, 4, 7, 10),
          11: (0, 3, 6, 9, 11), 12: (0, 3, 6, 9, 12), 13: (0, 2, 4, 7, 10, 13),
          14: (0, 3, 6, 9, 12, 14), 15: (0, 3, 6, 9, 12, 15)}


def _shuff(a, b, imm):
    """vshuff32x4 / vshuff64x2 (512-bit): 128-bit lanes 0, 1 from ``a``, 2, 3 from ``b``."""
    qa, qb = a.reshape(-1, 4, 4), b.reshape(-1, 4, 4)
    out = np.concatenate([qa[:, imm & 3], qa[:, (imm >> 2) & 3], qb[:, (imm >> 4) & 3],
                          qb[:, (imm >> 6) & 3]], axis=1)
    return out.reshape(a.shape)


def _permi2(idx, a, b):
    """vpermi2ps: element ``i`` is ``(b if idx[i] & 16 else a)[idx[i] & 15]``."""
    both = np.concatenate([a, b], axis=-1)
    return both[..., idx]


def _shufpd(a, b, imm):
    """vshufpd with imm 0 (even doubles of a, b per 128-bit lane) or 0xff (odd ones)."""
    da, db = a.reshape(-1, 4, 2, 2), b.reshape(-1, 4, 2, 2)
    k = 1 if imm else 0
    return np.stack([da[:, :, k], db[:, :, k]], axis=2).reshape(a.shape)


def _reduce_16x16(R):
    """``reduction_16x16``: R[16..23] and R[24..31] (rows 0-7 of columns 0 and 1) to R[24]."""
    for ii in range(8):
        R[ii + 8] = _shuff(R[ii + 16], R[ii + 24], 0b01000100)
        R[ii + 9] = _shuff(R[ii + 16], R[ii + 24], 0b11101110)
        R[ii + 24] = R[ii + 8] + R[ii + 9]
    for ii in range(4):
        R[ii + 24] = (_permi2(_PERM_AB, R[ii + 24], R[ii + 28])
                      + _permi2(_PERM_BA, R[ii + 24], R[ii + 28]))
    for ii in range(2):
        R[ii + 24] = _shufpd(R[ii + 24], R[ii + 26], 0) + _shufpd(R[ii + 24], R[ii + 26], 0xff)
    R[24] = _permi2(_PERM_AB1, R[24], R[25]) + _permi2(_PERM_BA1, R[24], R[25])


def _reduce_8(R):
    """The 3-column kernel's 8-way reduction of R[0..7] (column 2) to R[16]."""
    for ii in range(8):
        lo, hi = _shuff(R[ii], R[ii], 0b01000100), _shuff(R[ii], R[ii], 0b11101110)
        R[ii + 16] = lo + hi
    for ii in range(4):
        R[ii + 16] = (_permi2(_PERM_AB, R[ii + 16], R[ii + 20])
                      + _permi2(_PERM_BA, R[ii + 16], R[ii + 20]))
    for ii in range(2):
        R[ii + 16] = _shufpd(R[ii + 16], R[ii + 18], 0) + _shufpd(R[ii + 16], R[ii + 18], 0xff)
    R[16] = _permi2(_PERM_AB1, R[16], R[17]) + _permi2(_PERM_BA1, R[16], R[17])


def _lanes(a, b):
    """The kernel's accumulators: ``a`` (M, K), ``b`` (N, K) float32 -> (M, N, 16) float32,
    lane ``l`` one fused multiply-add chain over ``k = l, l + 16, ...``."""
    m, k = a.shape
    steps = _up(k, SIMD)
    pa = np.zeros((m, steps * SIMD))
    pa[:, :k] = a
    pb = np.zeros((b.shape[0], steps * SIMD))
    pb[:, :k] = b
    a3, b3 = pa.reshape(m, steps, SIMD), pb.reshape(-1, steps, SIMD)
    from ._fma_gemm import chains     # (each lane's chain by numpy's BLAS where checked)

    got = chains(np.transpose(a3, (2, 0, 1)), np.transpose(b3, (2, 1, 0)))
    if got is not None:
        return np.ascontiguousarray(np.transpose(got, (1, 2, 0)))
    acc = np.zeros((m, b.shape[0], SIMD), np.float32)
    tmp = np.empty(acc.shape)
    for j in range(steps):
        np.multiply(a3[:, None, j, :], b3[None, :, j, :], out=tmp)
        np.add(acc, tmp, out=acc, casting="unsafe")
    return acc


def _kernel_cols(acc, ncols):
    """One 2- or 3-column kernel over rows in blocks of 8 (``acc`` (M, ncols, 16), the rows
    from the calling thread's first): the reduced sums (M, ncols) float32."""
    m = acc.shape[0]
    blocks = _up(m, 8)
    full = np.zeros((blocks * 8, ncols, SIMD), np.float32)
    full[:m] = acc
    full = full.reshape(blocks, 8, ncols, SIMD)
    R = [np.zeros((blocks, SIMD), np.float32) for _ in range(32)]
    for ii in range(8):
        R[16 + ii] = full[:, ii, 0].copy()
        R[24 + ii] = full[:, ii, 1].copy()
        if ncols == 3:
            R[ii] = full[:, ii, 2].copy()
    _reduce_16x16(R)
    out = np.empty((blocks, 8, ncols), np.float32)
    out[:, :, 0] = R[24][:, :8]
    out[:, :, 1] = R[24][:, 8:]
    if ncols == 3:
        _reduce_8(R)
        out[:, :, 2] = R[16][:, :8]
    return out.reshape(blocks * 8, ncols)[:m]


def smalln_threads(m, k, nthr):
    """``smalln_set_num_threads``."""
    if m * k <= 8192:
        return 1
    if m % 16 == 0:
        n16 = m >> 4
        while n16 > nthr and n16 % 2 == 0:
            n16 >>= 1
        n16 = min(n16, nthr)
        use_orig = (not n16 <= nthr) if m // n16 <= 16 else 4 * n16 <= 3 * nthr
        return nthr if use_orig else n16
    while m // nthr < 16 and nthr > 1:
        nthr -= 1
    return nthr


def sgemm_smalln_tn(a, b, threads):
    """``C = A^T-kernel`` of ``jit_avx512_core_gemm_smalln_tn_f32``: ``a`` (M, K) (the
    transposed operand's rows), ``b`` (N, K), 2 <= N <= 15: (M, N) float32 without C's old
    value (the caller adds it: beta 1 adds the old value after the reduction)."""
    m, k = a.shape
    n = b.shape[0]
    acc = _lanes(a, b)
    out = np.empty((m, n), np.float32)
    nthr = smalln_threads(m, k, threads)
    mid = m // nthr
    bounds = [(i * mid, (i + 1) * mid if i < nthr - 1 else m) for i in range(nthr)]
    cuts = _PARTS[n]
    for lo, hi in bounds:
        for c0, c1 in zip(cuts, cuts[1:]):
            out[lo:hi, c0:c1] = _kernel_cols(acc[lo:hi, c0:c1], c1 - c0)
    return out


def gemm_weights_smalln(x, g, ksize, stride, pads, dilation, threads):
    """The filter gradient of ``x64:gemm:jit`` (ncsp) with 2 to 15 output channels: per sample
    im2col and the small-N sgemm with beta 1 after the thread's first sample; the samples
    split over the threads when the positions per thread are fewer than 256 (then each sgemm
    single-threaded), the threads' sums added in order; else one thread, the sgemm's rows split
    over ``smalln_threads``. ``x`` (N, C, *S), ``g`` (N, O, *P) float32."""
    from ._onednn_conv import _parts
    from ._onednn_conv_bwd_w import _columns

    n, o = g.shape[:2]
    outs = g.shape[2:]
    size = math.prod(outs)
    cols = _columns(x, ksize, stride, pads, dilation, outs)        # (N, P, C*K) float64
    g2 = g.reshape(n, o, size)
    outer = size / threads < 256 and n != 1
    team = min(n, threads) if outer and threads > 1 else 1
    inner = 1 if outer else threads
    total = None
    for a, b in _parts(n, team):
        part = None
        for i in range(a, b):
            c = sgemm_smalln_tn(cols[i].T, g2[i], inner)
            part = c if part is None else c + part
        total = part if total is None else total + part
    return total.T.reshape((o, x.shape[1]) + tuple(ksize))


def _hsum8(acc):
    """The gemv kernel's horizontal sum of its 8-lane accumulators (vhaddps, vperm2f128 and
    vaddps, vhaddps): ((a0 + a1) + (a4 + a5)) + ((a2 + a3) + (a6 + a7)), float32."""
    p = [acc[..., 2 * i] + acc[..., 2 * i + 1] for i in range(4)]
    return (p[0] + p[2]) + (p[1] + p[3])


def sgemv_t(a, x, y=None):
    """``y + A^T x`` as oneDNN's ``jit_avx_gemv_t_f32_kern`` (the sgemm of one column, N == 1,
    transposed A: ``jump_to_gemv``): ``a`` (K, M), ``x`` (K,) float32; each output's dot product
    over the first multiple of 16 of K in 8 lanes (lane l: k = l, l + 8, ... in order, fused
    multiply-adds from zero), the lanes summed (``_hsum8``) and added to y; then the rest in
    pieces of 8, 4, 2, 1 (as the remainder's bits say), each from zero, summed and added."""
    k, m = a.shape
    a64, x64 = a.astype(np.float64), x.astype(np.float64)
    y = np.zeros(m, np.float32) if y is None else y.astype(np.float32)
    main = k - k % 16
    pieces = ([(0, main)] if main else [])
    start = main
    for ux in (8, 4, 2, 1):
        if (k - main) & ux:
            pieces.append((start, start + ux))
            start += ux
    tmp = np.empty((m, 8))
    for lo, hi in pieces:
        acc = np.zeros((m, 8), np.float32)
        for t in range(lo, hi, 8):
            e = min(hi, t + 8)
            np.multiply(a64[t:e].T, x64[t:e], out=tmp[:, :e - t])
            np.add(acc[:, :e - t], tmp[:, :e - t], out=acc[:, :e - t], casting="unsafe")
        y = (y.astype(np.float64) + _hsum8(acc)).astype(np.float32)
    return y


def gemm_weights_gemv(x, g, ksize, stride, pads, dilation, threads):
    """The filter gradient of ``x64:gemm:jit`` (ncsp) with one output channel: per sample
    im2col and the sgemm with N 1, which is ``sgemv_t`` (beta 1 after the thread's first
    sample); the samples split over the threads as ``gemm_weights_smalln``'s, the threads'
    sums added in order. ``x`` (N, C, *S), ``g`` (N, 1, *P) float32."""
    from ._onednn_conv import _parts
    from ._onednn_conv_bwd_w import _columns

    n = g.shape[0]
    outs = g.shape[2:]
    size = math.prod(outs)
    cols = _columns(x, ksize, stride, pads, dilation, outs)        # (N, P, C*K) float64
    g2 = g.reshape(n, size)
    outer = size / threads < 256 and n != 1
    team = min(n, threads) if outer and threads > 1 else 1
    total = None
    for a, b in _parts(n, team):
        part = None
        for i in range(a, b):
            part = sgemv_t(cols[i], g2[i], part)
        total = part if total is None else total + part
    return total.reshape((1, x.shape[1]) + tuple(ksize))


def gemm_kernel_runs(x_shape, w_shape, out_shape, stride, pads, dilation, groups, dtype):
    """Whether oneDNN's backward-weights pass runs ``x64:gemm:jit`` here (avx512_core,
    float32, no groups, 1 or 2 spatial axes, use_mkldnn, and ``_onednn_conv_bwd_w`` finds no
    JIT kernel and it is not a 1x1 filter without padding)."""
    from .. import _capability
    from ._onednn_conv import isa
    from ._onednn_conv_bwd_w import _avx2_ok, _avx512_ok, _geometry

    if isa() != "avx512_core" or np.dtype(dtype) != np.float32 or groups != 1:
        return False
    if len(x_shape) not in (3, 4):
        return False
    if not use_mkldnn(x_shape, w_shape, stride, dilation, groups, _capability.threads()):
        return False
    if all(k == 1 for k in w_shape[2:]) and not any(p for pair in pads for p in pair) and \
            onexone_kind(x_shape, w_shape, out_shape, stride, pads, groups, dtype,
                         dilation) != "dilated":
        return False                                           # (jit_1x1 / direct)
    geo = _geometry(x_shape, w_shape, out_shape, stride, [p[0] for p in pads], dilation)
    return not (_avx512_ok(geo) or _avx2_ok(geo))


def gemm_bwd_w(x, g, w_shape, stride, pads, dilation, groups, want_w=True, want_b=True):
    """(dw, db) where oneDNN's backward-weights pass runs ``x64:gemm:jit``, each None where
    not emulated: the bias gradient per output channel each output row summed in order from
    zero (``execute_backward_weights_ncsp``: the OpenMP SIMD reduction's private sum; no
    vector lanes: 43 of 43 measured shapes) and the rows' sums added in order (samples, depth,
    rows); the filter gradient (``gemm_weights_smalln`` for 2 to 15 output channels,
    ``gemm_weights_wide`` for 16 or more). ``pads`` (before, after) per spatial axis."""
    from .. import _capability
    from ._onednn_conv import STEPS

    if x.dtype != np.float32 or g.dtype != np.float32 or not x.size or not g.size:
        return None, None
    if not gemm_kernel_runs(x.shape, w_shape, g.shape, stride, pads, dilation, groups,
                            x.dtype):
        return None, None
    threads = _capability.threads()
    outer = math.prod(g.shape[2:]) / threads < 256 and x.shape[0] != 1
    if not gemm_scratch_ok(x.shape, w_shape, g.shape, threads, threads if outer else 1, True):
        return None, None
    dw = db = None
    if want_b:
        o, ow = g.shape[1], g.shape[-1]
        rows = np.moveaxis(g, 1, 0).reshape(o, -1, ow)
        sums = np.add.accumulate(rows, axis=2, dtype=np.float32)[:, :, -1]   # each row from 0
        db = np.add.accumulate(sums, axis=1, dtype=np.float32)[:, -1].copy()
    small = x.shape[0] * math.prod(g.shape[2:]) <= STEPS and \
        x.size * math.prod(w_shape[2:]) <= 1 << 26
    if want_w and w_shape[0] == 1 and small:
        dw = gemm_weights_gemv(x, g, w_shape[2:], stride, pads, dilation, _capability.threads())
    elif want_w and 2 <= w_shape[0] <= 15 and small:
        dw = gemm_weights_smalln(x, g, w_shape[2:], stride, pads, dilation,
                                 _capability.threads())
    elif want_w and w_shape[0] >= 16 and small:
        dw = gemm_weights_wide(x, g, w_shape[2:], stride, pads, dilation,
                               _capability.threads())
    return dw, db


def gemm_weights_wide(x, g, ksize, stride, pads, dilation, threads):
    """The filter gradient of ``x64:gemm:jit`` with 16 or more output channels, where its
    sgemm ``("T", "N", ic*k, oc, positions)`` runs single-threaded (the samples split over
    the threads, or one thread) and takes the copy-based or the no-copy kernel with the same
    cut of the positions (fewer than 768: one chain, or two halves past 384): each weight one
    fused multiply-add chain per cut, each cut's sum added into the weights in order (one
    kernel call with beta 1 per cut and sample), the threads' sums in order. None elsewhere."""
    from ._onednn_conv import _parts
    from ._onednn_conv_bwd_w import _columns, fma_chains

    n, o = g.shape[:2]
    outs = g.shape[2:]
    size = math.prod(outs)
    m = x.shape[1] * math.prod(ksize)
    outer = size / threads < 256 and n != 1
    if not (outer or threads == 1) or size >= 768:
        return None
    copy = m > 100 and m < 1200 and o < 200 and size < 1200
    if not copy and 1.0 / m + 1.0 / o < 0.00196:
        return None
    cols = _columns(x, ksize, stride, pads, dilation, outs).reshape(n * size, m)
    g64 = np.moveaxis(g.reshape(n, o, size), 1, 2).reshape(n * size, o).astype(np.float64)
    cuts = gemm_k_chunks(size)
    bounds = [(i * size + lo, i * size + hi) for i in range(n) for lo, hi in cuts]
    acc = fma_chains(cols, g64, bounds)                             # (n * len(cuts), M, O)
    total = None
    for a, b in _parts(n, min(n, threads) if outer else 1):
        part = acc[a * len(cuts)]               # (each cut one kernel call adding into C)
        for u in range(a * len(cuts) + 1, b * len(cuts)):
            part = part + acc[u]
        total = part if total is None else total + part
    return total.T.reshape((o, x.shape[1]) + tuple(ksize))


# ------------------------------------------------------- ATen's slow convolution, backward
def _mkl_gemm_colmajor(f, ta, tb, m, n, k, a, lda, b, ldb, beta, c, ldc):
    from .. import _mkl

    f(102, ta, tb, m, n, k, 1.0, _mkl.address(a), lda, _mkl.address(b), ldb, beta,
      _mkl.address(c), ldc)


def slow_conv2d_backward(x, w, g, stride, pads, want, threads, dilation=None):
    """(dx, dw, db) as ATen's ``slow_conv2d_backward_out_cpu`` computes them (contiguous NCHW,
    no dilation; MKL's gemm where torch calls it, each operand 64-byte aligned as torch's
    allocator gives): the input gradient per sample, ``W^T @ G`` (``gemm(N, T, P, kk, O)``, the
    samples on torch's threads, one MKL thread each; a single sample: MKL's threads) then
    ``unfolded2d_acc`` adding the columns into the input, kernel offsets in order; the filter
    gradient ``G @ columns^T`` (``gemm(T, N, kk, O, P)``, beta 1) per sample in order on MKL's
    threads; the bias gradient ``sum(0, 2, 3)`` (torch's reduction). With ``dilation``
    (``slow_conv_dilated2d``, every sample in turn on MKL's threads): the same products, the
    bias gradient the samples' spatial sums added in order. None without MKL."""
    from .. import _gemm, _mkl
    from .._kernels import torch_sum
    from ._onednn_conv import _aligned, im2col

    kernel = _gemm._kernel(x.dtype)
    if kernel is None:
        return None
    f = kernel[0]
    n, c = x.shape[:2]
    o = w.shape[0]
    ksize = w.shape[2:]
    kk = c * math.prod(ksize)
    outs = g.shape[2:]
    size = math.prod(outs)
    dt = x.dtype
    g3 = _aligned((n, o, size), dt)
    g3[...] = g.reshape(n, o, size)
    wm = _aligned((o, kk), dt)
    wm[...] = w.reshape(o, kk)
    local = _mkl._load().MKL_Set_Num_Threads_Local
    dx = dw = db = None
    no, tr = 111, 112
    dil = tuple(dilation) if dilation is not None else (1,) * len(ksize)
    if want[0]:
        dx = np.zeros((n, c) + tuple(s + pb + pa for s, (pb, pa) in zip(x.shape[2:], pads)), dt)
        fg = _aligned((kk, size), dt)
        prev = local(1 if n > 1 and threads > 1 and dilation is None else 0)
        try:
            for i in range(n):
                _mkl_gemm_colmajor(f, no, tr, size, kk, o, g3[i], size, wm, kk, 0.0, fg, size)
                cols = fg.reshape((c,) + tuple(ksize) + tuple(outs))
                for k3 in np.ndindex(*ksize):
                    win = tuple(slice(kq * dq, kq * dq + st * (m - 1) + 1, st)
                                for kq, dq, st, m in zip(k3, dil, stride, outs))
                    dx[(i, slice(None)) + win] += cols[(slice(None),) + k3]
        finally:
            local(prev)
        dx = np.ascontiguousarray(dx[(slice(None), slice(None)) + tuple(
            slice(pb, pb + s) for s, (pb, _) in zip(x.shape[2:], pads))])
    if want[1]:
        gw = _aligned((o, kk), dt)
        gw[...] = 0
        cols = _aligned((kk, size), dt)
        for i in range(n):
            cols[...] = im2col(x[i], ksize, stride, pads, dil)[0]
            _mkl_gemm_colmajor(f, tr, no, kk, o, size, cols, size, g3[i], size, 1.0, gw, kk)
        dw = gw.reshape(w.shape).copy()
    if len(want) > 2 and want[2] and dilation is None:
        db = torch_sum(g, (0,) + tuple(range(2, g.ndim)))
    elif len(want) > 2 and want[2]:
        db = np.zeros(o, dt)
        for i in range(n):
            db = db + torch_sum(g[i], tuple(range(1, g.ndim - 1)))
    return dx, dw, db


def by_groups(conv, x, w, bias, groups, transposed=False):
    """ATen's convolution of ``groups`` groups outside oneDNN (``_convolution``: float64):
    each group's input channels (made contiguous, as the slow kernels make them) convolved on
    their own by ``conv(x_g, w_g, bias_g)``, the outputs concatenated; None if one is.
    ``transposed``: a transposed convolution's weights (C_in, C_out/groups, *K), sliced by
    input channels."""
    ci = x.shape[1] // groups
    co = w.shape[1] if transposed else w.shape[0] // groups
    wi = ci if transposed else co
    outs = []
    for i in range(groups):
        y = conv(np.ascontiguousarray(x[:, i * ci:(i + 1) * ci]), w[i * wi:(i + 1) * wi],
                 None if bias is None else bias[i * co:(i + 1) * co])
        if y is None:
            return None
        outs.append(y)
    return np.concatenate(outs, axis=1)


def _backward_by_groups(x, w, g, nd, stride, padding, dilation, groups, want):
    """``try_slow_backward`` of each group (``convolution_backward``'s per-group calls on the
    group's contiguous input, weight and output gradient), the gradients concatenated."""
    ci, co = x.shape[1] // groups, w.shape[0] // groups
    got = []
    for i in range(groups):
        part = try_slow_backward(np.ascontiguousarray(x[:, i * ci:(i + 1) * ci]),
                                 np.ascontiguousarray(w[i * co:(i + 1) * co]),
                                 np.ascontiguousarray(g[:, i * co:(i + 1) * co]), nd, stride,
                                 padding, dilation, 1, want)
        if part is None:
            return None
        got.append(part)
    out = []
    for j, axis in enumerate((1, 0, 0)):
        pieces = [p[j] if j < len(p) else None for p in got]
        out.append(None if any(a is None for a in pieces) else np.concatenate(pieces, axis))
    return tuple(out)


def try_slow_backward(x, w, g, nd, stride, padding, dilation, groups, want):
    """(dx, dw, db) where torch runs ATen's ``slow_conv2d`` (float64; float32 where
    ``use_mkldnn`` says no), no dilation, 1 or 2 spatial axes; else None."""
    from .. import _capability

    if groups > 1 and x.dtype == np.float64 and x.size and w.size and g.size:
        return _backward_by_groups(x, w, g, nd, stride, padding, dilation, groups, want)

    if nd not in (1, 2, 3) or groups != 1 or not x.size or not w.size or not g.size:
        return None
    if x.dtype != w.dtype or g.dtype != x.dtype or x.dtype not in (np.float32, np.float64):
        return None
    if nd == 3 and any(d != 1 for d in tuple(dilation)[-3:]):
        return None   # (slow_conv3d: the products per sample as slow_conv2d's; dilated: not here)
    stride, dilation = tuple(stride)[-nd:], tuple(dilation)[-nd:]
    dilated = any(d != 1 for d in dilation)
    flat = tuple(padding)[-2 * nd:]
    pads = [(flat[2 * i], flat[2 * i + 1]) for i in range(nd)]
    if any(a != b for a, b in pads):
        return None                      # (asymmetric padding: torch pads the input first)
    if not aten_slow(x.shape, w.shape, stride, dilation, groups, False, x.dtype):
        return None
    if x.shape[0] * x.shape[1] * math.prod(w.shape[2:]) * math.prod(g.shape[2:]) > 1 << 27:
        return None
    if nd == 1:                          # (ATen views a 1-d convolution as 2-d, height 1)
        got = slow_conv2d_backward(x[:, :, None], w[:, :, None], g[:, :, None],
                                   (1,) + stride, [(0, 0)] + pads, want, _capability.threads(),
                                   (1,) + dilation if dilated else None)
        return None if got is None else tuple(
            None if a is None else (a if a.ndim == 1 else a[:, :, 0]) for a in got)
    return slow_conv2d_backward(x, w, g, stride, pads, want, _capability.threads(),
                                dilation if dilated else None)


# ------------------------------------------------ x64:gemm:jit forward and backward data
def gemm_k_chunks(k, bk=384):
    """How oneDNN's no-copy sgemm driver (``sgemm_nocopy_driver``, avx512) cuts the reduction
    of length ``k``: blocks of ``bk`` while two or more remain, then the rest in two halves
    (the first rounded up) when longer than ``bk``."""
    out, start = [], 0
    while start < k:
        size = k - start
        if size >= 2 * bk:
            size = bk
        elif size > bk:
            size = (size + 1) // 2
        out.append((start, start + size))
        start += size
    return out


def _chunked_chains(lhs, rhs, k, out_shape):
    """sum over ``k`` of ``lhs(k) * rhs(k)`` (float64 arrays broadcasting to ``out_shape``,
    float32 values) as the no-copy kernel sums: one fused multiply-add chain per K chunk
    (``gemm_k_chunks``), the chunks' sums added in order (beta 1)."""
    out = None
    tmp = np.empty(out_shape)
    for lo, hi in gemm_k_chunks(k):
        acc = np.zeros(out_shape, np.float32)
        for j in range(lo, hi):
            np.multiply(lhs(j), rhs(j), out=tmp)
            np.add(acc, tmp, out=acc, casting="unsafe")
        out = acc if out is None else out + acc
    return out


def gemm_forward(x, w, bias, stride, pads, dilation):
    """The forward as ``x64:gemm:jit`` computes it (ncsp): per sample im2col and
    ``sgemm("N", "N", positions, oc, ic*k)`` (the no-copy kernel: each output one chain over
    the input channels and kernel offsets, cut by ``gemm_k_chunks``), then the bias added."""
    from ._onednn_conv_bwd_w import _columns

    n, o = x.shape[0], w.shape[0]
    ksize = w.shape[2:]
    outs = tuple((s + pb + pa - d * (k - 1) - 1) // st + 1 for s, (pb, pa), d, k, st in
                 zip(x.shape[2:], pads, dilation, ksize, stride))
    cols = _columns(x, ksize, stride, pads, dilation, outs)          # (N, P, K) float64
    wm = w.reshape(o, -1).astype(np.float64)
    size = cols.shape[1]
    y = _chunked_chains(lambda j: wm[None, :, j, None], lambda j: cols[:, None, :, j],
                        wm.shape[1], (n, o, size))
    if bias is not None:
        y = y + bias.astype(np.float32).reshape(1, o, 1)
    return y.reshape((n, o) + outs)


def gemm_backward_data(g, w, x_shape, stride, pads, dilation):
    """The input gradient as ``x64:gemm:jit`` computes it (ncsp): per sample
    ``sgemm("N", "T", positions, ic*k, oc)`` (one chain over the output channels, cut by
    ``gemm_k_chunks``) into columns, then ``col2im`` adding them into the zeroed input
    gradient, kernel offsets in order."""
    n, o = g.shape[:2]
    c = w.shape[1]
    ksize = w.shape[2:]
    outs = g.shape[2:]
    size = math.prod(outs)
    g64 = g.reshape(n, o, size).astype(np.float64)
    wm = w.reshape(o, -1).astype(np.float64)
    cols = _chunked_chains(lambda j: g64[:, j, :, None], lambda j: wm[None, None, j, :], o,
                           (n, size, wm.shape[1]))
    cols = np.moveaxis(cols, 1, 2).reshape((n, c) + tuple(ksize) + tuple(outs))
    dx = np.zeros((n, c) + tuple(s + pb + pa for s, (pb, pa) in zip(x_shape[2:], pads)),
                  np.float32)
    for k3 in np.ndindex(*ksize):
        win = tuple(slice(kq * dq, kq * dq + st * (m - 1) + 1, st)
                    for kq, dq, st, m in zip(k3, dilation, stride, outs))
        dx[(slice(None), slice(None)) + win] += cols[(slice(None), slice(None)) + k3]
    return np.ascontiguousarray(dx[(slice(None), slice(None)) + tuple(
        slice(pb, pb + s) for s, (pb, _) in zip(x_shape[2:], pads))])


def _nocopy(m, n, k, lda, transb):
    """Whether the sgemm driver (avx512, one thread) takes the no-copy kernel for these
    sizes (``nocopy_checker_avx512``'s cases met by a convolution; None: not worked out)."""
    if m <= 1 or n <= 1:
        return None                              # (gemv)
    if not transb and lda % 1024 == 0 and k > 500 and n > 100:
        return False
    if transb and lda % 1024 == 0:
        # ("N", "T") with a leading dimension a multiple of 1024: the crude small-size rule is
        # skipped; a leading dimension that is a multiple of 256 sends m >= 32 with n > 16 (or
        # n == 16 and k >= 6400 or m == 4096) to the copy-based kernels; then, on one thread,
        # large k with small m, n (or large m and k) copy, small m (at least n), small n or
        # k == 1 take the no-copy kernel, the rest copy
        if m >= 32 and (n > 16 or n == 16 and (k >= 6400 or m == 4096)):
            return False
        if k >= 378 and (m <= 378 and n <= 378 or m >= 378):
            return False
        return n >= 1 and (n <= m <= 28 or n <= 28 or k <= 1)
    return 1.0 / m + 1.0 / n >= 0.00196 or None


def _threads():
    from .. import _capability

    return _capability.threads()


def gemm_scratch_ok(x_shape, w_shape, out_shape, threads, nthr=None, weights=False):
    """Whether the gemm convolution's column buffers (one im2col of a sample per thread, and
    the per-thread weights of the filter gradient) fit oneDNN's scratchpad limit (``init_conf``:
    1 GiB or 15 x threads x the input, weights and output bytes); past it oneDNN cuts the
    positions into blocks (backward) or refuses the kernel (forward: ``ref:any``), neither
    emulated. ``nthr``: the threads holding buffers (default all); ``weights``: the filter
    gradient's per-thread weights too."""
    ks = math.prod(w_shape[2:])
    col = x_shape[1] * ks * math.prod(out_shape[2:])
    tensors = math.prod(x_shape) + math.prod(w_shape) + math.prod(out_shape)
    need = (threads if nthr is None else nthr) * (col + (math.prod(w_shape) if weights else 0))
    return need * 4 <= min(1 << 30, 15 * threads * tensors * 4)


def _gemm_geometry_ok(x_shape, w_shape, stride, dilation, groups, dtype, out_shape=None):
    from .. import _capability
    from ._onednn_conv import isa

    threads = _capability.threads()
    return (isa() == "avx512_core" and np.dtype(dtype) == np.float32 and groups == 1
            and len(x_shape) in (3, 4) and threads < 8
            and not aten_slow(x_shape, w_shape, stride, dilation, groups, False, dtype)
            and (out_shape is None or gemm_scratch_ok(x_shape, w_shape, out_shape, threads)))


def try_gemm_forward(x, w, bias, stride, pads, dilation, groups):
    """The forward where oneDNN runs ``x64:gemm:jit`` (a padding at least the dilated kernel
    extent; a 1x1 filter with padding) and its no-copy sgemm, else None."""
    from ._onednn_conv import LIMIT, macs

    if not _gemm_geometry_ok(x.shape, w.shape, stride, dilation, groups, x.dtype):
        return None
    ksize = w.shape[2:]
    if not any(pb >= (k - 1) * d + 1 for (pb, _), k, d in zip(pads, ksize, dilation)):
        return None
    outs = tuple((s + pb + pa - d * (k - 1) - 1) // st + 1 for s, (pb, pa), d, k, st in
                 zip(x.shape[2:], pads, dilation, ksize, stride))
    size, kk, o = math.prod(outs), x.shape[1] * math.prod(ksize), w.shape[0]
    if not x.size or not w.size or size == 0:
        return None
    if not gemm_scratch_ok(x.shape, w.shape, x.shape[:1] + (o,) + outs, _threads()):
        return None
    ks, ic, sw = math.prod(ksize), x.shape[1], math.prod(stride)
    if macs(x.shape[0], ic, o, ksize, outs) > LIMIT or x.shape[0] * size * kk > 1 << 26 or \
            ic * (sw * size + ks * size + ks * o) + o * size > l2_floats():
        return None   # (calc_max_icb might cut the input channels into blocks: not emulated)
    if o == 1 and kk > 384 or _nocopy(size, o, kk, size, False) is not True and o > 1:
        return None
    if size == 1:
        return None
    return gemm_forward(x, w, bias, stride, pads, dilation)


def try_gemm_backward_data(x_shape, w, g, stride, pads, dilation, groups):
    """The input gradient where oneDNN's backward-data pass runs ``x64:gemm:jit`` (stride 1
    with a padding at least the dilated kernel extent; a dilated strided convolution), else
    None."""
    if not _gemm_geometry_ok(x_shape, w.shape, stride, dilation, groups, g.dtype):
        return None
    if not gemm_scratch_ok(x_shape, w.shape, g.shape, _threads(),
                           _threads() if x_shape[0] != 1 else 1):
        return None
    ksize = w.shape[2:]
    padbig = any(pb >= (k - 1) * d + 1 for (pb, _), k, d in zip(pads, ksize, dilation))
    strided, dilated = any(s != 1 for s in stride), any(d != 1 for d in dilation)
    if not ((padbig and not strided) or (strided and dilated)):
        return None
    size, o = math.prod(g.shape[2:]), w.shape[0]
    kk = w.shape[1] * math.prod(ksize)
    if not g.size or not w.size or size <= 1 or g.shape[0] * size * kk > 1 << 26:
        return None
    if kk == 1 and o > 384 or kk > 1 and _nocopy(size, kk, o, size, True) is not True:
        return None
    return gemm_backward_data(g, w, x_shape, stride, pads, dilation)


def try_grouped_gemm(x, w, bias, stride, pads, dilation, groups, g=None):
    """A grouped float32 convolution where oneDNN runs ``x64:gemm:jit`` (a group's channel
    counts not both multiples of 4: ``_onednn_conv.grouped_block`` None; not depthwise): each
    group as the ungrouped gemm convolution (``gemm_convolution``'s loop over groups: the
    group's im2col and sgemm per sample), the forward, or with ``g`` the input gradient; None
    where the ungrouped kernel's guards (``try_gemm_forward``/``try_gemm_backward_data``, but
    any padding) fail for the group's shapes. Checked with real torch 2.13 here: 22 of the 23
    grouped 1-d/2-d forward and input gradients of the torch sweep (tsweep3)."""
    from ._onednn_conv import LIMIT, macs

    n, ci, co = x.shape[0], x.shape[1] // groups, w.shape[0] // groups
    if ci * groups != x.shape[1] or co * groups != w.shape[0] or w.shape[1] != ci:
        return None
    xs, ws = (n, ci) + tuple(x.shape[2:]), (co, ci) + tuple(w.shape[2:])
    from ._onednn_conv import isa

    # (as _gemm_geometry_ok, but a single sample too: torch hands every grouped float32
    # convolution to oneDNN)
    if isa() != "avx512_core" or x.dtype != np.float32 or w.dtype != x.dtype or \
            x.ndim not in (3, 4) or _threads() >= 8 or not x.size or not w.size or \
            (ci == 1 and co == 1):
        return None
    ksize = w.shape[2:]
    outs = tuple((s + pb + pa - d * (k - 1) - 1) // st + 1 for s, (pb, pa), d, k, st in
                 zip(x.shape[2:], pads, dilation, ksize, stride))
    size, kk = math.prod(outs), ci * math.prod(ksize)
    if size <= 1 or not gemm_scratch_ok(xs, ws, (n, co) + outs, _threads()) or \
            n * size * kk > 1 << 26 or macs(n, ci, co, ksize, outs) > LIMIT:
        return None
    ks, sw = math.prod(ksize), math.prod(stride)
    if g is None:
        if ci * (sw * size + ks * size + ks * co) + co * size > l2_floats():
            return None   # (calc_max_icb)
        if co == 1 and kk > 384 or _nocopy(size, co, kk, size, False) is not True and co > 1:
            return None
        return by_groups(lambda a, b, c: gemm_forward(a, b, c, stride, pads, dilation), x, w,
                         bias, groups)
    if g.dtype != x.dtype or tuple(g.shape[2:]) != outs:
        return None
    if kk == 1 and co > 384 or kk > 1 and _nocopy(size, kk, co, size, True) is not True:
        return None
    return by_groups(lambda a, b, _: gemm_backward_data(a, b, xs, stride, pads, dilation), g, w,
                     None, groups)


def grouped_gemm_bwd_w(x, g, w_shape, stride, pads, dilation, groups, want_w=True,
                       want_b=True):
    """(dw, db) of a grouped float32 convolution whose backward-weights pass runs
    ``x64:gemm:jit`` (the groups ``try_grouped_gemm`` takes), each None where not emulated.
    ``execute_backward_weights_ncsp`` gives each group to one thread when the groups are at
    least the threads (``bwd_weights_balance``: nthr_mb 1, no reduction over samples), whose
    sgemm runs single-threaded: each group's filter gradient is the ungrouped one on one thread
    (``gemm_weights_smalln``/``gemm_weights_wide``); the bias as ``gemm_bwd_w``'s (each output
    row from zero, the rows' sums in order)."""
    from .. import _capability
    from ._onednn_conv import STEPS

    threads = _capability.threads()
    n, ci, co = x.shape[0], x.shape[1] // groups, w_shape[0] // groups
    if ci * groups != x.shape[1] or co * groups != w_shape[0] or w_shape[1] != ci:
        return None, None
    from ._onednn_conv import isa

    if isa() != "avx512_core" or x.dtype != np.float32 or g.dtype != np.float32 or not x.size or not g.size or \
            x.ndim not in (3, 4) or min(n, threads // min(groups, threads)) > 1:
        return None, None
    xs, ws = (n, ci) + tuple(x.shape[2:]), (co, ci) + tuple(w_shape[2:])
    if not gemm_scratch_ok(xs, ws, (n, co) + tuple(g.shape[2:]), threads, 1, True):
        return None, None
    dw = db = None
    if want_b:
        o, ow = g.shape[1], g.shape[-1]
        rows = np.moveaxis(g, 1, 0).reshape(o, -1, ow)
        sums = np.add.accumulate(rows, axis=2, dtype=np.float32)[:, :, -1]   # each row from 0
        db = np.add.accumulate(sums, axis=1, dtype=np.float32)[:, -1].copy()
    small = n * math.prod(g.shape[2:]) <= STEPS and \
        n * ci * math.prod(x.shape[2:]) * math.prod(w_shape[2:]) <= 1 << 26
    if want_w and small:
        fn = gemm_weights_gemv if co == 1 else gemm_weights_smalln if co <= 15 else \
            gemm_weights_wide
        parts = []
        for i in range(groups):
            part = fn(np.ascontiguousarray(x[:, i * ci:(i + 1) * ci]),
                      np.ascontiguousarray(g[:, i * co:(i + 1) * co]), w_shape[2:], stride,
                      pads, dilation, 1)
            if part is None:
                parts = None
                break
            parts.append(part)
        dw = None if parts is None else np.concatenate(parts, axis=0)
    return dw, db
