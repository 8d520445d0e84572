"""torch's float32 CPU convolutions as oneDNN's direct JIT kernels sum them (AVX-512 machines).

For a batch of two or more samples torch 2.13 hands a float32 convolution to oneDNN
(``mkldnn_convolution``; a single sample usually takes ATen's im2col + sgemm path instead), and
oneDNN 3.12 picks, on an ``avx512_core`` CPU, among its kernels by the problem's shape. Measured
here with ``ONEDNN_VERBOSE=1`` on about 900 random shapes (1-, 2- and 3-d, 1 to 256 channels,
batches 2 to 64, strides, paddings, dilations) and with the outputs compared bit for bit:

* ``jit:avx512_core`` (the direct kernel) computes the forward whenever the kernel is not 1x1
  without padding (``jit_1x1``) and every padding is smaller than the dilated kernel extent
  ``(k - 1) * d + 1`` (else ``x64:gemm:jit``, oneDNN's im2col + its own sgemm);
* a transposed convolution runs as the backward-data pass of the swapped convolution
  (``conv:any+jit:avx512_core``) under the same rule when every stride is 1 (strided ones go to
  ``brgconv_strided``).

The direct kernels' sum for one output: the input channels in blocks of 16 (the ``nChw16c``
layout); each block one fused multiply-add chain from zero over the kernel offsets (depth,
height, width, in order) and, innermost, the block's channels; the blocks' sums added to the
output in order, the bias after the first block (forward) or at the end (transposed). Every
jit:avx512_core case measured (forward: 80 of 80 shapes; transposed: 70 of 70) is bit-equal
under this rule; the other kernels keep gradrepl's general path.

The rule is AVX-512's (``avx512_core``); on other CPUs oneDNN runs other kernels (8-channel
blocks on AVX2), not measured, and the general path is used.

The gradients: the input gradient (stride 1) is the transposed convolution's kernel again; the
filter and bias gradients the backward-weights kernel, whose sums are split over the batch (or
a 2-d one's output rows) by oneDNN's thread balance; ``_onednn_conv_bwd_w`` says which kernel
runs (strided, padded, dilated and 3-d ones too) and where it cuts.

Where torch does not call oneDNN (float64 always; float32 for one sample, mostly) it runs
ATen's slow convolution, im2col and MKL's gemm per sample (``slow_conv``): the same MKL call
here gives its bits where the ``mkl`` wheel is installed.
"""
from __future__ import annotations

import math
import os

import numpy as np

BLOCK = 16                # input channels per block (nChw16c) on avx512_core
#: Past this many multiply-adds the exact chain costs more than it shows (about 2 s per 10^9 on
#: the shared 2-core machine); the two largest torch docstring examples (conv3d, 2.0e9;
#: conv_transpose3d, 3.9e9) are under it.
LIMIT = 1 << 32
#: The filter gradient's chains are as long as the batch times the output positions (one numpy
#: call a step, 3-10 us, where they are replayed): past this many steps the general path.
STEPS = 1 << 16
#: ... unless numpy's BLAS sums them (``_fma_gemm``, checked per shape): then up to this many
#: (a batch of 128 or 256 MNIST images' first convolution is 100K-200K steps).
BLAS_STEPS = 1 << 22
#: The slow path's column matrices of a whole batch (one buffer, as ATen's): past this many
#: bytes the general path.
SLOW_BYTES = 256 << 20


def isa() -> str:
    """oneDNN's ISA class here: ``avx512_core`` (avx512f/bw/vl/dq), else ``other``;
    ``GRADREPL_ONEDNN_ISA`` overrides (tests)."""
    forced = os.environ.get("GRADREPL_ONEDNN_ISA", "").strip().lower()
    if forced:
        return forced
    from .. import _capability

    return "avx512_core" if _capability.detected() == "AVX512" else "other"


def direct_applies(n, ksize, pads_before, dilation, stride, groups, dtype, transposed=False,
                   macs=0, output_padding=None):
    """Whether real torch here runs this convolution on oneDNN's direct JIT kernel (the rule in
    the module docstring); ``pads_before`` the leading padding per spatial axis."""
    if isa() != "avx512_core" or np.dtype(dtype) != np.float32 or groups != 1 or n < 1:
        return False
    if transposed and n < 2:
        return False      # (a forward's single sample: oneDNN where use_mkldnn says so)
    if macs > LIMIT:
        return False
    if all(k == 1 for k in ksize) and all(p == 0 for p in pads_before):
        return False                                   # jit_1x1
    if any(p >= (k - 1) * d + 1 for k, p, d in zip(ksize, pads_before, dilation)):
        return False                                   # x64:gemm:jit
    if transposed and (any(s != 1 for s in stride) or any(output_padding or ())):
        return False                                   # brgconv_strided
    return True


def _lift(a, nd):
    return a.reshape(a.shape[:2] + (1,) * (3 - nd) + a.shape[2:])


def _ones(nd, t):
    return (1,) * (3 - nd) + tuple(t)


#: Elements of one group's sums (samples x channels x positions): small convolutions run a
#: whole group of samples per numpy call (fewer calls), large ones a sample at a time (cache).
GROUP = 1 << 18


def _per_group(n, per_sample, fn):
    """``fn(a, b)`` for slices of samples of about ``GROUP`` elements, the slices shared among
    torch's threads (the persistent pool, ``engine.workers``; numpy lets go of the GIL)."""
    from .. import _capability
    from ...engine import workers

    step = max(1, GROUP // max(per_sample, 1))
    slices = [(a, min(n, a + step)) for a in range(0, n, step)]

    def part(bounds):
        for a, b in slices[bounds[0]:bounds[1]]:
            fn(a, b)

    workers.run(part, workers.split(len(slices), _capability.threads()))


def conv_forward(x, w, bias, stride, pads, dilation, block=BLOCK):
    """Forward convolution, ``x`` (N, C, *S), ``w`` (O, C, *K) float32, 1 to 3 spatial axes;
    ``pads`` (before, after) per axis. The direct kernel's order (module docstring): each step
    of a chain is ``float32(acc + x * w)`` computed in float64, where the product of two float32
    values is exact and the sum rounded once: the fused multiply-add. One sample at a time
    (its sums stay in cache), the samples on torch's threads."""
    nd = x.ndim - 2
    stride, dilation = _ones(nd, stride), _ones(nd, dilation)
    pads = [(0, 0)] * (3 - nd) + [tuple(p) for p in pads]
    X, W = _lift(x, nd), _lift(w, nd)
    n, c = X.shape[:2]
    o = W.shape[0]
    ks = W.shape[2:]
    outs = tuple((s + pb + pa - d * (k - 1) - 1) // st + 1
                 for s, (pb, pa), d, k, st in zip(X.shape[2:], pads, dilation, ks, stride))
    got = _native_chains(X, W, bias, stride, pads, dilation, outs, block, False)
    if got is None:
        got = _blas_forward(X, W, bias, stride, pads, dilation, outs, block)
    if got is not None:
        return got.reshape(got.shape[:2] + outs[3 - nd:])
    xp = np.zeros((n, c) + tuple(s + pb + pa for s, (pb, pa) in zip(X.shape[2:], pads)))
    xp[(slice(None), slice(None)) + tuple(slice(pb, pb + s)
                                          for s, (pb, _) in zip(X.shape[2:], pads))] = X
    w64 = np.ascontiguousarray(np.moveaxis(W.astype(np.float64), 0, -1))[..., None]  # C,*K,O,1
    out = np.empty((n, o) + outs, np.float32)
    size = math.prod(outs)
    wins = [(k3, tuple(slice(k * d, k * d + st * (m - 1) + 1, st) for k, d, st, m in
                       zip(k3, dilation, stride, outs)))
            for k3 in np.ndindex(*ks)]


    def one(a, b):
        m = b - a
        acc = np.empty((m, o, size), np.float32)
        tmp = np.empty((m, o, size))
        for cb in range(0, c, block):
            ce = min(c, cb + block)
            acc[...] = 0
            for k3, win in wins:
                cols = xp[(slice(a, b), slice(cb, ce)) + win].reshape(m, ce - cb, 1, size)
                for ci in range(cb, ce):
                    np.multiply(w64[(ci,) + k3], cols[:, ci - cb], out=tmp)
                    np.add(acc, tmp, out=acc, casting="unsafe")
            res = acc.reshape((m, o) + outs)
            if cb == 0:
                out[a:b] = res
                if bias is not None:
                    out[a:b] += bias.astype(np.float32).reshape(-1, 1, 1, 1)
            else:
                out[a:b] += res

    _per_group(n, o * size, one)
    return out.reshape(out.shape[:2] + outs[3 - nd:])


def conv_backward_data(g, w, bias, stride, pads, dilation, out_size, block=BLOCK):
    """Transposed convolution (the backward-data pass): ``g`` (N, C_in, *S), ``w`` (C_in, O,
    *K) float32; ``pads`` (before, after) per axis, ``out_size`` the output's spatial size.
    Each input channel's contribution is added into the strided window of the output its kernel
    offset reaches, in the direct kernel's order (as ``conv_forward``)."""
    nd = g.ndim - 2
    if any(s != 1 for s in stride):
        raise ValueError("conv_backward_data: the direct kernel's order is emulated for stride 1")
    stride, dilation = _ones(nd, stride), _ones(nd, dilation)
    pads = [(0, 0)] * (3 - nd) + [tuple(p) for p in pads]
    out_size = (1,) * (3 - nd) + tuple(out_size)
    got = _native_chains(_lift(g, nd), _lift(w, nd), bias, stride, pads, dilation, out_size,
                         block, True)
    if got is not None:
        return got.reshape(got.shape[:2] + out_size[3 - nd:])
    G, W = _lift(g, nd).astype(np.float64), _lift(w, nd)
    n, c = G.shape[:2]
    o = W.shape[1]
    ks = W.shape[2:]
    sp = G.shape[2:]
    full = tuple(max((m - 1) * st + d * (k - 1) + 1, pb + s) for m, st, d, k, (pb, _), s in
                 zip(sp, stride, dilation, ks, pads, out_size))
    # (stride 1 only, as direct_applies asks): the output as one flat buffer of rows of the
    # full width, the input laid out on the same grid (zeros past its end), so that a kernel
    # offset is one shift of the flat buffer; the zeros add nothing to the sums they reach
    fd, fh, fw = full
    grid = np.zeros((n, c, sp[0], fh, fw))
    grid[:, :, :, :sp[1], :sp[2]] = G
    grid = grid.reshape(n, c, -1)
    length = grid.shape[2]
    offs = [(k3, k3[0] * dilation[0] * fh * fw + k3[1] * dilation[1] * fw + k3[2] * dilation[2])
            for k3 in np.ndindex(*ks)]
    w64 = np.ascontiguousarray(W.astype(np.float64))[..., None]          # C, O, *K, 1
    crop = (slice(None),) + tuple(slice(pb, pb + s) for (pb, _), s in zip(pads, out_size))
    out = np.empty((n, o) + out_size, np.float32)

    got = _blas_backward_data(grid, W, bias, [off for _, off in offs], full, crop, length,
                              block)
    if got is not None:
        return got.reshape(got.shape[:2] + out_size[3 - nd:])

    def one(a, b):
        m = b - a
        acc = np.empty((m, o, fd * fh * fw + fh * fw), np.float32)
        tmp = np.empty((m, o, length))
        for cb in range(0, c, block):
            acc[...] = 0
            for k3, off in offs:
                view = acc[:, :, off:off + length]
                for ci in range(cb, min(c, cb + block)):
                    np.multiply(w64[(ci, slice(None)) + k3], grid[a:b, ci, None], out=tmp)
                    np.add(view, tmp, out=view, casting="unsafe")
            res = acc[:, :, :fd * fh * fw].reshape((m, o) + full)[(slice(None),) + crop]
            if cb == 0:
                out[a:b] = res
            else:
                out[a:b] += res
        if bias is not None:
            out[a:b] += bias.astype(np.float32).reshape(-1, 1, 1, 1)

    _per_group(n, o * fd * fh * fw, one)
    return out.reshape(out.shape[:2] + out_size[3 - nd:])


def _native_chains(x, w, bias, stride, pads, dilation, outs, block, transposed):
    """The direct kernel's chains compiled (``_cnative.conv_chains_f32``: each output's fused
    multiply-add chains in the order ``conv_forward`` replays, on the padded input), the
    samples split over torch's threads as oneDNN's (each sample's sums are the same whichever
    thread computes them). Lifted arrays of one depth plane: ``x`` (N, C, 1, H, W), ``w`` (O,
    C, 1, KH, KW), or for the stride-1 input gradient (``transposed``) the gradient and ``w``
    (C, O, 1, KH, KW); ``outs`` the output's (1, H, W). (N, O, 1, OH, OW) float32, or None (not
    built, strided, a depth axis, a value not finite)."""
    from ...engine import _native

    fn = getattr(_native.lib, "conv_chains_f32", None)
    if fn is None or x.shape[2] != 1 or w.shape[2] != 1 or tuple(pads[0]) != (0, 0) \
            or outs[0] != 1 or any(s != 1 for s in stride) or x.dtype != np.float32 \
            or w.dtype != np.float32 or not (np.isfinite(x).all() and np.isfinite(w).all()) \
            or (bias is not None and not np.isfinite(bias).all()):
        return None
    from .. import _capability

    n, c, _, h, wd = x.shape
    kh, kw = w.shape[3:]
    dh, dw = dilation[1:]
    o = w.shape[1] if transposed else w.shape[0]
    oh, ow = outs[1:]
    hp, wp = oh + (kh - 1) * dh, ow + (kw - 1) * dw
    if transposed:   # out[y, x] reads the gradient at (y + ph - kh * dh, x + pw - kw * dw)
        top, left = (kh - 1) * dh - pads[1][0], (kw - 1) * dw - pads[2][0]
        geo = (-dh * wp, -dw, (kh - 1) * dh * wp + (kw - 1) * dw, kh * kw, o * kh * kw, kw, 1)
    else:            # ... the input at (y + kh * dh - ph, x + kw * dw - pw)
        top, left = pads[1][0], pads[2][0]
        geo = (dh * wp, dw, 0, c * kh * kw, kh * kw, kw, 1)
    if top < 0 or left < 0:
        return None
    flat = np.zeros(n * c * hp * wp + 64, np.float32)   # (64 more: the last chunk's reads)
    xp = flat[:n * c * hp * wp].reshape(n, c, hp, wp)
    rows, cols = max(0, min(h, hp - top)), max(0, min(wd, wp - left))
    xp[:, :, top:top + rows, left:left + cols] = x[:, :, 0, :rows, :cols]
    w = np.ascontiguousarray(w, np.float32)
    b = None if bias is None else np.ascontiguousarray(bias, np.float32).reshape(-1)
    dims = (c, hp * wp, wp, o, oh, ow, kh, kw) + geo + (block, 0 if b is None else 2 if
                                                        transposed else 1)
    out = np.empty((n, o, 1, oh, ow), np.float32)
    fn(flat, w, b, out, dims + (0, n), _capability.threads() if n * o * oh * ow >= SPLIT else 1)
    return out


#: Elements of the column matrices of one BLAS call (``_blas_forward``, ``_blas_backward_data``):
#: past it the samples go in groups.
COLUMNS = 1 << 23


def offset_columns(x, ksize, stride, pads, dilation, outs):
    """The input's values each kernel offset meets: (K, C, N, *outs) float32, the offsets in
    row-major order (a slab of the padded input each)."""
    n, c = x.shape[:2]
    xp = np.zeros((n, c) + tuple(s + pb + pa for s, (pb, pa) in zip(x.shape[2:], pads)),
                  np.float32)
    xp[(slice(None), slice(None)) + tuple(slice(pb, pb + s)
                                          for s, (pb, _) in zip(x.shape[2:], pads))] = x
    cols = np.empty((math.prod(ksize), c, n) + tuple(outs), np.float32)
    for j, k3 in enumerate(np.ndindex(*ksize)):
        win = tuple(slice(k * d, k * d + st * (m - 1) + 1, st)
                    for k, d, st, m in zip(k3, dilation, stride, outs))
        cols[j] = np.swapaxes(xp[(slice(None), slice(None)) + win], 0, 1)
    return cols


def _blocks(w_by_offset, c, block=BLOCK):
    """The filter of each 16-channel block as one (O, K * block) matrix, the kernel offsets
    outer and the block's channels inner (the chain's order); ``w_by_offset`` (O, *K, C)."""
    o = w_by_offset.shape[0]
    return [(cb, min(c, cb + block),
             np.ascontiguousarray(w_by_offset[..., cb:min(c, cb + block)]).reshape(o, -1))
            for cb in range(0, c, block)]


def _blas_blocks(cols_of, n, c, o, size, kk, w_by_offset, bias=None, block=BLOCK):
    """Each block's chains (``_fma_gemm.chains``) over groups of samples, the blocks' sums added
    in order (``bias`` after the first); ``cols_of(a, b)`` the samples' columns (K, C, m, size)
    float32. (N, O, size) float32, or None. On this thread: numpy's small products split over
    Python threads gained nothing (their GIL hand-offs cost more under load; the compiled
    chains, ``_native_chains``, split their samples natively)."""
    from ._fma_gemm import chains

    step = max(1, COLUMNS // max(1, kk * c * size))
    blocks = _blocks(w_by_offset, c, block)
    out = np.empty((n, o, size), np.float32)

    def part(bounds):
        for a in range(bounds[0], bounds[1], step):
            b = min(bounds[1], a + step)
            cols = cols_of(a, b)
            for cb, ce, wm in blocks:
                got = chains(wm[None], cols[:, cb:ce].reshape(1, kk * (ce - cb), -1),
                             finite=True)
                if got is None:
                    return False
                res = got[0].reshape(o, b - a, size).transpose(1, 0, 2)
                if cb == 0:
                    out[a:b] = res
                    if bias is not None:
                        out[a:b] += bias.astype(np.float32).reshape(-1, 1)
                else:
                    out[a:b] += res
        return True

    return out if part((0, n)) else None


#: Outputs of a convolution past which its samples are shared among torch's threads.
SPLIT = 1 << 14


def _blas_forward(x, w, bias, stride, pads, dilation, outs, block=BLOCK):
    """``conv_forward``'s chains by numpy's BLAS where it is checked to sum them in order
    (``_fma_gemm``): per 16-channel block one product of the block's filter and the columns
    (offsets outer, channels inner), the blocks added in order, the bias after the first. None
    where not checked (or a value is not finite). Lifted to 3 spatial axes."""
    if not (np.isfinite(x).all() and np.isfinite(w).all()):
        return None
    n, c = x.shape[:2]
    o = w.shape[0]
    size = math.prod(outs)
    ksize = w.shape[2:]

    def cols_of(a, b):
        return offset_columns(x[a:b], ksize, stride, pads, dilation, outs)

    out = _blas_blocks(cols_of, n, c, o, size, math.prod(ksize), np.moveaxis(w, 1, -1), bias,
                       block)
    return None if out is None else out.reshape((n, o) + tuple(outs))


def _blas_backward_data(grid, W, bias, offs, full, crop, length, block=BLOCK):
    """``conv_backward_data``'s chains by numpy's BLAS where checked (as ``_blas_forward``):
    the columns of an output position are the gradient's values its kernel offsets reach on
    the flat grid (zeros past its ends); blocks added in order, the bias at the end."""
    if not (np.isfinite(grid).all() and np.isfinite(W).all()):
        return None
    n, c = grid.shape[:2]
    o = W.shape[1]
    size = math.prod(full)
    most = max(offs)
    flat = np.zeros((c, n, most + max(length, size)), np.float32)
    flat[:, :, most:most + length] = np.swapaxes(grid, 0, 1)

    def cols_of(a, b):
        cols = np.empty((len(offs), c, b - a, size), np.float32)
        for j, off in enumerate(offs):
            cols[j] = flat[:, a:b, most - off:most - off + size]
        return cols

    out = _blas_blocks(cols_of, n, c, o, size, len(offs), np.moveaxis(W, 0, -1), block=block)
    if out is None:
        return None
    out = np.ascontiguousarray(out.reshape((n, o) + tuple(full))[(slice(None),) + crop])
    if bias is not None:
        out += bias.astype(np.float32).reshape(-1, 1, 1, 1)
    return out


def macs(n, c_in, c_out, ksize, out_spatial):
    return n * c_in * c_out * math.prod(ksize) * math.prod(out_spatial)


def im2col(x, ksize, stride, pads, dilation):
    """ATen's column matrix of one sample ``x`` (C, *S): rows ``c, k...`` (kernel offsets in
    order), columns the output positions; and the output's spatial size."""
    c = x.shape[0]
    xp = np.zeros((c,) + tuple(s + pb + pa for s, (pb, pa) in zip(x.shape[1:], pads)), x.dtype)
    xp[(slice(None),) + tuple(slice(pb, pb + s) for s, (pb, _) in zip(x.shape[1:], pads))] = x
    outs = tuple((s - d * (k - 1) - 1) // st + 1
                 for s, d, k, st in zip(xp.shape[1:], dilation, ksize, stride))
    cols = np.empty((c,) + tuple(ksize) + outs, x.dtype)
    for k3 in np.ndindex(*ksize):
        win = tuple(slice(k * d, k * d + st * (m - 1) + 1, st)
                    for k, d, st, m in zip(k3, dilation, stride, outs))
        cols[(slice(None),) + k3] = xp[(slice(None),) + win]
    return cols.reshape(c * math.prod(ksize), math.prod(outs)), outs


def _aligned(shape, dtype, align=64):
    """An empty array whose data starts on a 64-byte boundary, as torch's allocator gives."""
    size = math.prod(shape) * np.dtype(dtype).itemsize
    raw = np.empty(size + align, np.uint8)
    skip = (-raw.ctypes.data) % align
    return raw[skip:skip + size].view(dtype).reshape(shape)


def slow_conv(x, w, bias, stride, pads, dilation):
    """ATen's own convolution (``slow_conv2d``/``slow_conv3d``/``slow_conv_dilated``: what
    torch runs where it does not call oneDNN, a single sample or float64): the column matrices
    of all samples in one buffer, the output likewise, and per sample MKL's gemm of the filter
    and the sample's columns onto the bias (beta 1), each operand where torch has it (MKL's
    kernels follow the operands' alignment: a float64 batch measured here differs on 3 of 945
    elements when the buffers are placed otherwise). None without MKL."""
    from .. import _gemm, _mkl

    kernel = _gemm._kernel(x.dtype)
    if kernel is None:
        return None
    f = kernel[0]
    n, o = x.shape[0], w.shape[0]
    kk = w.size // o
    wm = _aligned((o, kk), x.dtype)
    wm[...] = w.reshape(o, kk)
    first, outs = im2col(x[0], w.shape[2:], stride, pads, dilation)
    size = first.shape[1]
    if n * kk * size * x.itemsize > SLOW_BYTES:
        return None
    cols = _aligned((n, kk, size), x.dtype)
    cols[0] = first
    for i in range(1, n):
        cols[i] = im2col(x[i], w.shape[2:], stride, pads, dilation)[0]
    out = _aligned((n, o, size), x.dtype)
    out[...] = 0 if bias is None else bias.astype(x.dtype).reshape(1, o, 1)
    beta = 0.0 if bias is None else 1.0
    local = _mkl._load().MKL_Set_Num_Threads_Local
    prev = local(1 if n > 1 else 0)    # (a batch: inside ATen's parallel loop, one thread)
    try:
        for i in range(n):
            f(101, 111, 111, o, size, kk, 1.0, _mkl.address(wm), kk, _mkl.address(cols[i]),
              size, beta, _mkl.address(out[i]), size)
    finally:
        local(prev)
    return out.reshape((n, o) + outs)


def grouped_block(x_shape, w_shape, stride, pads, dilation, groups, dtype):
    """The channel block of oneDNN's direct kernel on a grouped (not depthwise) float32
    convolution here, or None where another kernel runs: each group's input and output channel
    counts multiples of 16, else of 8 or 4 (``ok_to_try_lower_zmm``: the kernel's narrower
    vectors; the chains then cut at that many channels), and no padding reaching the dilated
    kernel extent (else ``x64:gemm:jit``). A grouped 1x1 filter without padding runs it too
    (jit_1x1 takes no groups here: ONEDNN_VERBOSE). Checked with real torch 2.13: forward and
    stride-1 input gradient of groups 2 (16 channels each), 3 (16), 32 (4)."""
    if isa() != "avx512_core" or np.dtype(dtype) != np.float32 or groups < 2:
        return None
    ci, co = x_shape[1] // groups, w_shape[0] // groups
    if ci * groups != x_shape[1] or co * groups != w_shape[0] or w_shape[1] != ci:
        return None
    if ci == 1 and co == 1:
        return None                                    # jit_dw (_onednn_dw_conv)
    block = next((s for s in (16, 8, 4) if ci % s == 0 and co % s == 0), None)
    if block is None:
        return None
    if any(pb >= (k - 1) * d + 1 for k, (pb, _), d in zip(w_shape[2:], pads, dilation)):
        return None
    outs = [(s + pb + pa - d * (k - 1) - 1) // st + 1 for s, (pb, pa), d, k, st in
            zip(x_shape[2:], pads, dilation, w_shape[2:], stride)]
    if min(outs) < 1 or macs(x_shape[0], ci, co * groups, w_shape[2:], outs) > LIMIT:
        return None
    return block


def _grouped_direct_weights(x, g, w_shape, stride, pads, dilation, groups):
    """(dw, db) of a grouped convolution with 16- (or 8-) channel groups on the direct kernel's
    backward-weights pass (jit:avx512_core): with at least as many groups as threads each
    group on one thread, its sums as the ungrouped kernel's on a team of one
    (``conv_backward_weights``; checked with real torch 2.13: groups 2 and 3 of 16 channels,
    3x3 and 1x1; 8-channel groups, whose pass oneDNN runs on jit:avx2, sum alike: groups 4 of
    16 -> 8 channels, stride 2). (None, None) elsewhere."""
    from .. import _capability

    threads = _capability.threads()
    n, ci, co = x.shape[0], x.shape[1] // groups, w_shape[0] // groups
    steps = n * math.prod(g.shape[2:])
    if groups < threads or steps > BLAS_STEPS or \
            macs(n, ci, co * groups, w_shape[2:], g.shape[2:]) > LIMIT:
        return None, None
    dws, dbs = [], []
    for i in range(groups):
        dw, db = conv_backward_weights(np.ascontiguousarray(x[:, i * ci:(i + 1) * ci]),
                                       np.ascontiguousarray(g[:, i * co:(i + 1) * co]),
                                       w_shape[2:], stride, pads, dilation, 1, 1,
                                       replay=steps <= STEPS)
        if dw is None:
            return None, None
        dws.append(dw)
        dbs.append(db)
    return np.concatenate(dws), np.concatenate(dbs)


def slow_path(n, dtype, groups, transposed):
    """Whether torch 2.13 runs ATen's slow convolution here rather than oneDNN: float64 always
    (oneDNN takes float32 only), float32 for a single sample (measured here: 220 of 227 single
    samples of the shapes tried; the others, larger images, went to oneDNN)."""
    if transposed or groups != 1:
        return False
    return np.dtype(dtype) == np.float64 or (np.dtype(dtype) == np.float32 and n == 1)


def try_conv(x, w, bias, nd, transposed, stride, padding, dilation, groups, out_size=None):
    """The convolution as torch's kernel here computes it (oneDNN's direct kernel, or ATen's
    slow path through MKL), or None where torch runs another kernel. The geometry as the
    engine's kernels take it (``_conv_more._kernel_geom``: ``padding`` flat (before, after)
    pairs; a 1-d one lifted to 2-d with a leading height 1)."""
    if x.dtype != w.dtype or (bias is not None and bias.dtype != x.dtype):
        return None
    if groups > 1 and not transposed and x.dtype == np.float64 and x.size and w.size:
        from ._onednn_conv_gemm import by_groups

        return by_groups(lambda xg, wg, bg: try_conv(xg, wg, bg, nd, False, stride, padding,
                                                     dilation, 1), x, w, bias, groups)
    stride, dilation = tuple(stride)[-nd:], tuple(dilation)[-nd:]
    flat = tuple(padding)[-2 * nd:]
    pads = [(flat[2 * i], flat[2 * i + 1]) for i in range(nd)]
    ksize = w.shape[2:]
    from . import _onednn_conv_gemm  # (ATen's use_mkldnn rule)

    if _onednn_conv_gemm.aten_slow(x.shape, w.shape, stride, dilation, groups, transposed,
                                   x.dtype) and x.size and w.size:
        return slow_conv(x, w, bias, stride, pads, dilation)
    if x.dtype != np.float32:
        return None
    from . import _onednn_dw_conv as dw  # (depthwise: jit_dw)

    if not transposed and x.size and dw.forward_applies(x.shape, w.shape, stride, pads, dilation,
                                                        groups, x.dtype):
        return dw.forward(x, w, bias, stride, pads, dilation)
    block = grouped_block(x.shape, w.shape, stride, pads, dilation, groups, x.dtype) \
        if not transposed and groups > 1 and x.size and w.size else None
    if block:  # (grouped: the direct kernel on each group, blocks of its simd width)
        from ._onednn_conv_gemm import by_groups

        return by_groups(lambda xg, wg, bg: conv_forward(xg, wg, bg, stride, pads, dilation,
                                                         block), x, w, bias, groups)
    if not transposed and groups > 1:  # (small groups: x64:gemm:jit per group)
        return _onednn_conv_gemm.try_grouped_gemm(x, w, bias, stride, pads, dilation, groups)
    if transposed:
        out_size = tuple(out_size)[-nd:]
        work = macs(x.shape[0], x.shape[1], w.shape[1], ksize, x.shape[2:])
        least = tuple((m - 1) * s - pb - pa + d * (k - 1) + 1 for m, s, (pb, pa), d, k in
                      zip(x.shape[2:], stride, pads, dilation, ksize))
        extra = tuple(o - e for o, e in zip(out_size, least))
        if not direct_applies(x.shape[0], ksize, [p[0] for p in pads], dilation, stride, groups,
                              x.dtype, True, work, extra):
            return None
        return conv_backward_data(x, w, bias, stride, pads, dilation, out_size)
    y = _onednn_conv_gemm.try_forward(x, w, bias, stride, pads, groups, dilation)
    if y is not None:
        return y
    outs = tuple((s + pb + pa - d * (k - 1) - 1) // st + 1 for s, (pb, pa), d, k, st in
                 zip(x.shape[2:], pads, dilation, ksize, stride))
    work = macs(x.shape[0], x.shape[1], w.shape[0], ksize, outs)
    if not direct_applies(x.shape[0], ksize, [p[0] for p in pads], dilation, stride, groups,
                          x.dtype, False, work):  # (x64:gemm:jit where its sums are known)
        return _onednn_conv_gemm.try_gemm_forward(x, w, bias, stride, pads, dilation, groups)
    return conv_forward(x, w, bias, stride, pads, dilation)


def _parts(n, team):
    """oneDNN's ``balance211``: ``n`` items over ``team`` threads, the first ones one more
    (``engine.workers.split``, which the pool's kernels use too)."""
    from ...engine import workers

    return workers.split(n, team)


def conv_backward_weights(x, g, ksize, stride, pads, dilation, team_w, team_b=None,
                          rows_w=None, rows_b=None, replay=True):
    """The filter and bias gradients of a forward convolution as oneDNN's JIT backward-weights
    kernels sum them: the reduction (samples, and output depth planes of a 3-d one, in order)
    split over ``team_w`` threads (``balance211``); on each thread one fused multiply-add chain
    per weight over its part, output rows and columns in order (the bias a plain sum in the same
    order, over ``team_b`` threads); the threads' partial sums added in thread order.
    ``rows_w``/``rows_b``: the reduction's units per sample that the split keeps whole (default
    1, a 3-d one's output depth; ``_onednn_conv_bwd_w.plan``: a 2-d one's output rows).
    ``x`` (N, C, *S), ``g`` (N, O, *P) float32; ``pads`` (before, after) per axis.
    ``replay`` False: the filter gradient None where numpy's BLAS does not sum the chains."""
    n, c = x.shape[:2]
    o = g.shape[1]
    outs = g.shape[2:]
    kk = math.prod(ksize)
    size = math.prod(outs)
    from ._onednn_conv_bwd_w import fma_chains

    # the columns by kernel offset, then channel (slabs of the padded input, rows whole), and
    # the gradient by channel: the chains' terms in their order (samples, rows, columns); the
    # sums come back by (offset, channel) and are put in (channel, offset) order at the end
    rows = outs[0] if len(outs) == 3 else 1                # (a 3-d one: samples x depth)
    units = n * (rows if rows_w is None else rows_w)
    per = n * size // units
    bounds = [(a * per, b * per) for a, b in _parts(units, team_w)]
    pos = _by_position(g)     # (the native kernels' layout of the gradient, or None)
    sums = None if pos is None else _native_weights(x, pos, g.shape, ksize, stride, pads,
                                                    dilation, bounds)
    gt = None
    if sums is None:
        gt = np.ascontiguousarray(np.swapaxes(g.reshape(n, o, size), 0, 1)).reshape(o, n * size)
        cols = offset_columns(x, ksize, stride, pads, dilation, outs).reshape(kk * c, n * size)
        sums = fma_chains(gt.T, cols.T, bounds, replay)
    dw = None if sums is None else sums[0]
    for part in [] if sums is None else sums[1:]:
        dw = dw + part
    if dw is not None:
        dw = np.ascontiguousarray(dw.reshape(o, kk, c).transpose(0, 2, 1))
    db = None
    units = n * (rows if rows_b is None else rows_b)
    per = n * size // units
    parts = _parts(units, team_w if team_b is None else team_b)
    sums = None if pos is None else _native_bias(pos, g.shape,
                                                 [(a * per, b * per) for a, b in parts])
    if sums is None and gt is None:
        gt = np.ascontiguousarray(np.swapaxes(g.reshape(n, o, size), 0, 1)).reshape(o, n * size)
    for i, (a, b) in enumerate(parts):
        part = sums[i] if sums is not None else \
            np.add.accumulate(gt[:, a * per:b * per], axis=1, dtype=np.float32)[:, -1] \
            + np.float32(0) if b > a else np.zeros(o, np.float32)   # (from a +0 accumulator)
        db = part if db is None else db + part
    return None if dw is None else dw.reshape((o, c) + tuple(ksize)), db


def _by_position(g):
    """A 2-D convolution's float32 output gradient (N, O, OH, OW) as (N * OH * OW, O), the
    native filter and bias kernels' layout; None where they do not run (not built, not 2-D or
    float32, a value not finite)."""
    from ...engine import _native

    if getattr(_native.lib, "conv_wgrad_chains_f32", None) is None or g.ndim != 4 or \
            g.dtype != np.float32 or not np.isfinite(g).all():
        return None
    return np.ascontiguousarray(np.moveaxis(g, 1, -1)).reshape(-1, g.shape[1])


def _native_weights(x, gt, g_shape, ksize, stride, pads, dilation, bounds):
    """``conv_backward_weights``' per-thread chains compiled (``_cnative.conv_wgrad_chains_f32``:
    each weight's fused multiply-add chain over its thread's output positions in order, on the
    padded input), the threads' parts on the native intra-op pool; ``gt`` the gradient by
    position (``_by_position``). (parts, O, C * K) float32 in (offset, channel) order as
    ``fma_chains`` gives, or None (x not 2-D float32 or not finite)."""
    from ...engine import _native

    if x.ndim != 4 or x.dtype != np.float32 or not np.isfinite(x).all():
        return None
    n, c, h, wd = x.shape
    o, oh, ow = g_shape[1:]
    kh, kw = ksize
    (ph, pha), (pw, pwa) = pads
    hp = max(h + ph + max(pha, 0), (oh - 1) * stride[0] + (kh - 1) * dilation[0] + 1)
    wp = max(wd + pw + max(pwa, 0), (ow - 1) * stride[1] + (kw - 1) * dilation[1] + 1)
    xp = np.zeros((n, c, hp, wp), np.float32)
    xp[:, :, ph:ph + h, pw:pw + wd] = x
    dims = (c, hp, wp, o, oh, ow, kh, kw, stride[0], stride[1], dilation[0], dilation[1])

    out = np.empty((len(bounds), c * kh * kw, o), np.float32)
    _native.lib.conv_wgrad_chains_f32(xp, gt, out, dims, tuple(q for bound in bounds for q in bound))
    # (channel, offset) rows -> (O, offset, channel), as fma_chains orders its sums
    return out.reshape(len(bounds), c, kh * kw, o).transpose(0, 3, 2, 1).reshape(
        len(bounds), o, kh * kw * c)


def _native_bias(gt, g_shape, bounds):
    """The bias gradient's per-thread sums (a plain float32 sum from +0 over the thread's
    output positions in order) by the filter kernel's chains with an input of ones: ``fma(g,
    1, acc)`` is ``acc + g`` rounded once; ``gt`` as ``_native_weights``'. (parts, O) float32."""
    from ...engine import _native

    n, o, oh, ow = g_shape
    ones = np.ones((n, 1, oh, ow), np.float32)
    out = np.empty((len(bounds), 1, o), np.float32)
    _native.lib.conv_wgrad_chains_f32(ones, gt, out, (1, oh, ow, o, oh, ow, 1, 1, 1, 1, 1, 1),
       tuple(q for bound in bounds for q in bound))
    return out[:, 0]


def backward_weights_teams(x_shape, w_shape, out_shape, stride, threads, pads_before=None,
                           dilation=None):
    """(weights, bias) threads sharing the reduction in oneDNN's backward-weights pass
    (``_onednn_conv_bwd_w.plan``, which also says what they share: samples or output rows; a
    bias team of 0: not emulated); None where oneDNN runs a kernel not emulated.
    ``pads_before`` by default the symmetric padding that gives ``out_shape``."""
    from ._onednn_conv_bwd_w import plan

    nd = len(x_shape) - 2
    dilation = dilation or (1,) * nd
    if pads_before is None:
        pads_before = tuple(max(0, -(-((o - 1) * s + (k - 1) * d + 1 - i) // 2)) for o, s, k, d, i
                            in zip(out_shape[2:], stride, w_shape[2:], dilation, x_shape[2:]))
    cuts = plan(x_shape, w_shape, out_shape, stride, pads_before, dilation, threads)
    return None if cuts is None else (cuts.team_w, cuts.team_b)


def backward_applies(x_shape, w_shape, stride, dilation, pads_before, groups, dtype):
    """(input gradient, filter gradient) emulated: the forward on the direct kernel; the input
    gradient stride 1 (strided: ``_onednn_convT``); the filter gradient where
    ``_onednn_conv_bwd_w.plan`` knows the kernel's sums (jit:avx512_core, jit:avx2, part of
    x64:gemm:jit)."""
    from . import _onednn_conv_gemm

    if _onednn_conv_gemm.aten_slow(x_shape, w_shape, stride, dilation, groups, False, dtype):
        return False, False
    if not direct_applies(x_shape[0], w_shape[2:], pads_before, dilation, stride, groups, dtype):
        return False, False
    return all(s == 1 for s in stride), True


def try_backward(x, w, g, nd, stride, padding, dilation, groups, want=(True, True, True)):
    """(dx, dw, db) of a forward convolution as oneDNN computes them here, each None where
    another kernel would (the caller's general path then) or not ``want``-ed. Geometry as
    ``try_conv``."""
    from . import _onednn_conv_gemm  # (ATen's slow convolution; jit_1x1; the gemm kernel)

    got = _onednn_conv_gemm.try_slow_backward(x, w, g, nd, stride, padding, dilation, groups,
                                              want)
    if got is not None:
        return got
    if x.dtype != np.float32 or w.dtype != np.float32 or g.dtype != np.float32:
        return None, None, None
    stride, dilation = tuple(stride)[-nd:], tuple(dilation)[-nd:]
    flat = tuple(padding)[-2 * nd:]
    pads = [(flat[2 * i], flat[2 * i + 1]) for i in range(nd)]
    got = _onednn_conv_gemm.try_backward(x, w, g, stride, pads, groups, want, dilation)
    if got is not None:
        return got
    from . import _onednn_dw_conv  # (depthwise: jit_dw)

    if _onednn_dw_conv.is_depthwise(x.shape, w.shape, groups, x.dtype):
        return _onednn_dw_conv.try_backward(x, w, g, stride, pads, dilation, groups, want)
    block = grouped_block(x.shape, w.shape, stride, pads, dilation, groups, x.dtype) \
        if groups > 1 and x.size and g.size else None
    if groups > 1:  # (the direct kernel's input gradient at stride 1 per group; the filter
        dx = None   # gradient's grouped kernels are not emulated: the general path)
        if block and want[0] and all(s == 1 for s in stride):
            from ._onednn_conv_gemm import by_groups

            dx = by_groups(lambda gg, wg, _: conv_backward_data(gg, wg, None, stride, pads,
                                                                 dilation, x.shape[2:], block),
                           g, w, None, groups)
        elif want[0] and not block:  # (small groups: x64:gemm:jit)
            dx = _onednn_conv_gemm.try_grouped_gemm(x, w, None, stride, pads, dilation, groups,
                                                    g)
        dw = db = None
        if block in (16, 8) and any(want[1:]):
            dw, db = _grouped_direct_weights(x, g, w.shape, stride, pads, dilation, groups)
        if (not block or block == 4) and any(want[1:]):  # (4-channel groups: gemm too)
            dw, db = _onednn_conv_gemm.grouped_gemm_bwd_w(
                x, g, w.shape, stride, pads, dilation, groups, len(want) > 1 and want[1],
                len(want) > 2 and want[2])
        return dx, dw, db
    work = macs(x.shape[0], x.shape[1], w.shape[0], w.shape[2:], g.shape[2:])
    if work > LIMIT:
        return None, None, None
    ax, aw = backward_applies(x.shape, w.shape, stride, dilation, [p[0] for p in pads], groups,
                              x.dtype)
    dx = dw = db = None
    if ax and want[0]:
        dx = conv_backward_data(g, w, None, stride, pads, dilation, x.shape[2:])
    steps = x.shape[0] * math.prod(g.shape[2:])
    if aw and any(want[1:]) and steps <= BLAS_STEPS:
        from .. import _capability
        from ._onednn_conv_bwd_w import gemm_weights, plan

        cuts = plan(x.shape, w.shape, g.shape, stride, [p[0] for p in pads], dilation,
                    _capability.threads())
        if cuts is not None and cuts.kernel == "x64:gemm:jit":
            if steps <= STEPS:
                dw = gemm_weights(x, g, w.shape[2:], stride, pads, dilation, cuts)
        elif cuts is not None:    # (past STEPS: only where numpy's BLAS sums the chains)
            dw, db = conv_backward_weights(x, g, w.shape[2:], stride, pads, dilation,
                                           cuts.team_w, cuts.team_b, cuts.rows_w, cuts.rows_b,
                                           replay=steps <= STEPS)
    if dx is None and want[0]:  # (x64:gemm:jit's backward data)
        dx = _onednn_conv_gemm.try_gemm_backward_data(x.shape, w, g, stride, pads, dilation,
                                                      groups)
    want_w, want_b = len(want) > 1 and want[1] and dw is None, len(want) > 2 and want[2] \
        and db is None
    if want_w or want_b:  # (x64:gemm:jit: its small-N sgemm, its bias loop)
        gw, gb = _onednn_conv_gemm.gemm_bwd_w(x, g, w.shape, stride, pads, dilation, groups,
                                              want_w, want_b)
        dw, db = (gw if dw is None else dw), (gb if db is None else db)
    return dx, dw, db
