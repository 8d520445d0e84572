"""torch's float32 depthwise convolutions as oneDNN's ``jit_dw:avx512_core`` kernels sum them.

A convolution with one input and one output channel per group (``groups == C_in == C_out``:
MobileNet's, ConvNeXt's and EfficientNet's depthwise layers) goes, in torch 2.13 on an
``avx512_core`` CPU, to oneDNN's depthwise kernels (``jit_uni_dw_convolution``; torch asks
oneDNN for every grouped float32 convolution, a single sample too). Read from oneDNN's
``jit_uni_dw_conv_kernel_f32.cpp``/``jit_uni_dw_convolution.cpp``/``..._kernel_utils.cpp``
and checked bit for bit against real torch 2.13 here (``ONEDNN_VERBOSE=1`` names the kernel):

* forward (2-d; a 1-d one runs as 2-d of height 1): each output one fused multiply-add chain
  *starting from the bias* (zero without), over the kernel rows, then columns, in order; taps
  in the padding skipped. Applies where no padding reaches the dilated kernel extent and the
  left/right paddings are at most the width unroll (``ur_w = min(6, OW)``).
* input gradient (no dilation): each input value a chain from zero over the kernel offsets
  (rows, then columns, in order) whose output position exists.
* filter gradient (no dilation, kernel width at most 3, paddings at most half the kernel, a
  padding over 1 a multiple of the stride): the channel blocks of 16 over
  ``nthr_g = min(blocks, threads)`` threads and the samples over ``nthr_mb = min(threads //
  nthr_g, N)`` (``balance211``); on each thread each weight one chain over its samples, then
  per kernel call 15 output rows, within it the output columns in blocks (one block up to 30
  columns; else blocks of 15, a short tail merged into the block before it), then the rows,
  then the block's columns; the bias gradient a plain sum over samples, rows and columns; the
  threads' partial sums added in order. Wider kernels run oneDNN's gemm kernel (not here).

Other CPUs (AVX2's 8-channel blocks, aarch64, no AVX-512) keep gradrepl's general path.
"""
from __future__ import annotations

import math

import numpy as np

BLOCK = 16            # channels per block (nChw16c / Goihw16g) on avx512_core
UR_W = 6              # the forward's width unroll on avx512_core (float32)
OH_BLOCK = 15         # output rows per backward-weights kernel call (harness_mb_reduction)
MAX_UNROLL_W = 30     # the backward-weights kernel's width unroll
W_BLOCK = 15
#: Values of the filter gradient's terms held at a time (samples go in groups past it).
COLUMNS = 1 << 23


def _end_pad(before, out, size, stride, ext):
    return (out - 1) * stride + ext - (size + before)


def is_depthwise(x_shape, w_shape, groups, dtype):
    """float32, 1 or 2 spatial axes, one input and one output channel per group, on an
    avx512_core CPU (``_onednn_conv.isa``)."""
    from ._onednn_conv import isa

    return (isa() == "avx512_core" and np.dtype(dtype) == np.float32 and len(x_shape) in (3, 4)
            and groups > 1 and x_shape[1] == groups and w_shape[0] == groups
            and w_shape[1] == 1)


def _geom(x_shape, w_shape, stride, pads, dilation):
    """(H, W, KH, KW, stride, (t, b, l, r) paddings as oneDNN counts them, dilation, OH, OW),
    a 1-d one lifted to height 1."""
    nd = len(x_shape) - 2
    sp = (1,) * (2 - nd) + tuple(x_shape[2:])
    ks = (1,) * (2 - nd) + tuple(w_shape[2:])
    st = (1,) * (2 - nd) + tuple(stride)
    dl = (1,) * (2 - nd) + tuple(dilation)
    pd = [(0, 0)] * (2 - nd) + [tuple(p) for p in pads]
    outs = tuple((s + pb + pa - d * (k - 1) - 1) // t + 1
                 for s, (pb, pa), d, k, t in zip(sp, pd, dl, ks, st))
    ends = tuple(_end_pad(pb, o, s, t, (k - 1) * d + 1)
                 for (pb, _), o, s, t, k, d in zip(pd, outs, sp, st, ks, dl))
    return sp, ks, st, (pd[0][0], ends[0], pd[1][0], ends[1]), dl, outs


def forward_applies(x_shape, w_shape, stride, pads, dilation, groups, dtype):
    if not is_depthwise(x_shape, w_shape, groups, dtype):
        return False
    sp, ks, st, (t, b, l, r), dl, (oh, ow) = _geom(x_shape, w_shape, stride, pads, dilation)
    if oh < 1 or ow < 1:
        return False
    ext = [(k - 1) * d + 1 for k, d in zip(ks, dl)]
    if ext[1] <= l or ext[1] <= r or ext[0] <= t or ext[0] <= b:
        return False                                  # kernel_outside_src
    ur_w = min(UR_W, ow)
    tail = ow % ur_w
    r_no_tail = max(0, _end_pad(l, ow - tail, sp[1], st[1], ext[1]))
    return l <= ur_w and r_no_tail <= ur_w


def backward_data_applies(x_shape, w_shape, stride, pads, dilation, groups, dtype):
    if not is_depthwise(x_shape, w_shape, groups, dtype) or any(d != 1 for d in dilation):
        return False
    return forward_applies(x_shape, w_shape, stride, pads, dilation, groups, dtype)


def backward_weights_applies(x_shape, w_shape, stride, pads, dilation, groups, dtype):
    if not is_depthwise(x_shape, w_shape, groups, dtype) or any(d != 1 for d in dilation):
        return False
    sp, (kh, kw), (sh, sw), (t, b, l, r), _, (oh, ow) = _geom(x_shape, w_shape, stride, pads,
                                                              dilation)
    if oh < 1 or ow < 1 or kw > 3 or sw > kw:
        return False
    b, r = max(0, b), max(0, r)
    if oh != (sp[0] + t + b - kh) // sh + 1 or ow != (sp[1] + l + r - kw) // sw + 1:
        return False
    hp, wp = kh // 2, kw // 2
    return (t <= hp and b <= hp and l <= wp and r <= wp
            and sp[0] >= kh + (-t) % sh
            and (t <= 1 or t % sh == 0) and (b <= 1 or b % sh == 0))


def _lift(a):
    return a.reshape(a.shape[:2] + (1,) * (4 - a.ndim) + a.shape[2:])


def _padded(x, t, b, l, r):
    n, c, h, w = x.shape
    xp = np.zeros((n, c, h + t + max(b, 0), w + l + max(r, 0)), np.float64)
    xp[:, :, t:t + h, l:l + w] = x
    return xp


def forward(x, w, bias, stride, pads, dilation):
    """``x`` (N, C, *S), ``w`` (C, 1, *K) float32; ``pads`` (before, after) per axis."""
    shape = x.shape
    sp, (kh, kw), (sh, sw), (t, b, l, r), (dh, dw), (oh, ow) = _geom(
        x.shape, w.shape, stride, pads, dilation)
    X, W = _lift(x), _lift(w).astype(np.float64)
    n, c = X.shape[:2]
    xp = _padded(X, t, b, l, r)
    acc = np.empty((n, c, oh, ow), np.float32)
    acc[...] = 0 if bias is None else bias.astype(np.float32).reshape(1, c, 1, 1)
    tmp = np.empty((n, c, oh, ow))
    for i in range(kh):
        for j in range(kw):
            win = xp[:, :, i * dh:i * dh + sh * (oh - 1) + 1:sh, j * dw:j * dw + sw * (ow - 1) + 1:sw]
            np.multiply(win, W[:, 0, i, j].reshape(1, c, 1, 1), out=tmp)
            np.add(acc, tmp, out=acc, casting="unsafe")
    return acc.reshape(shape[:2] + (oh, ow)[4 - len(shape):])


def backward_data(g, w, x_shape, stride, pads):
    """The input gradient: ``g`` (N, C, *P), ``w`` (C, 1, *K) float32."""
    sp, (kh, kw), (sh, sw), (t, b, l, r), _, (oh, ow) = _geom(x_shape, w.shape, stride, pads,
                                                              (1,) * (len(x_shape) - 2))
    G, W = _lift(g).astype(np.float64), _lift(w).astype(np.float64)
    n, c = G.shape[:2]
    hp, wp = max(sp[0] + t, (oh - 1) * sh + kh), max(sp[1] + l, (ow - 1) * sw + kw)
    acc = np.zeros((n, c, hp, wp), np.float32)
    tmp = np.empty((n, c, oh, ow))
    for i in range(kh):
        for j in range(kw):
            view = acc[:, :, i:i + sh * (oh - 1) + 1:sh, j:j + sw * (ow - 1) + 1:sw]
            np.multiply(G, W[:, 0, i, j].reshape(1, c, 1, 1), out=tmp)
            np.add(view, tmp, out=view, casting="unsafe")
    dx = np.ascontiguousarray(acc[:, :, t:t + sp[0], l:l + sp[1]])
    return dx.reshape(tuple(x_shape))


def _w_blocks(ow, r):
    """The backward-weights kernel's output-column blocks (``calculate_w_unrolling``)."""
    if ow <= MAX_UNROLL_W:
        return [(0, ow)]
    unroll = min(W_BLOCK, ow)
    trips, tail = ow // unroll, ow % unroll
    if (tail == 0 and r != 0) or (r > 0 and r >= tail):
        if trips > 1:
            tail += unroll
            trips -= 1
        else:
            tail += unroll - unroll // 2
            unroll //= 2
    out = [(k * unroll, (k + 1) * unroll) for k in range(trips)]
    if tail:
        out.append((trips * unroll, trips * unroll + tail))
    return out


def term_order(oh, ow, r):
    """The flat output positions of one sample in the filter gradient's chain order."""
    order = []
    for h0 in range(0, oh, OH_BLOCK):
        for w0, w1 in _w_blocks(ow, r):
            for h in range(h0, min(oh, h0 + OH_BLOCK)):
                order.extend(h * ow + v for v in range(w0, w1))
    return np.array(order, np.intp)


def teams(c, n, threads):
    """(nthr_g, nthr_mb) of ``balance`` (harness_mb_reduction)."""
    nb = -(-c // BLOCK)
    nthr_g = min(nb, threads)
    return nthr_g, min(max(1, threads // nthr_g), n)


def backward_weights(x, g, ksize, stride, pads, threads, with_bias=True, replay_steps=None):
    """(dw (C, 1, *K), db (C,) or None) float32; None where numpy's BLAS does not sum a
    part's chains and the part is longer than ``replay_steps``."""
    from ._fma_gemm import chains, replay
    from ._onednn_conv import _parts

    shape_w = (x.shape[1], 1) + tuple(ksize)
    sp, (kh, kw), (sh, sw), (t, b, l, r), _, (oh, ow) = _geom(x.shape, shape_w, stride, pads,
                                                              (1,) * (x.ndim - 2))
    X, G = _lift(x), _lift(g)
    n, c = X.shape[:2]
    xp = _padded(X, t, b, l, r).astype(np.float32)
    order = term_order(oh, ow, r)
    size, kk = oh * ow, kh * kw
    # the terms of every weight's chain, a few samples at a time (COLUMNS values): the
    # gradient values (C, m * positions) and their inputs (C, m * positions, KH * KW), each
    # group's chains continuing the last (its sums in front: 1 * sum from zero is exact)
    step = max(1, COLUMNS // max(1, c * size * kk))

    def terms(a, e):
        cols = np.empty((c, e - a, size, kk), np.float32)
        for i in range(kh):
            for j in range(kw):
                win = xp[a:e, :, i:i + sh * (oh - 1) + 1:sh, j:j + sw * (ow - 1) + 1:sw]
                cols[:, :, :, i * kw + j] = np.swapaxes(win, 0, 1).reshape(c, e - a, size)
        gs = np.swapaxes(G[a:e].reshape(e - a, c, size), 0, 1)[:, :, order]
        return gs.reshape(c, 1, -1), cols[:, :, order].reshape(c, -1, kk)

    _, nthr_mb = teams(c, n, threads)
    if replay_steps is not None and n * size > replay_steps and \
            chains(*terms(0, 1)) is None:
        return None                      # (numpy's BLAS does not sum these chains in order)
    dw = db = None
    for a, e in _parts(n, nthr_mb):
        part = None
        for s0 in range(a, e, step):
            ga, ca = terms(s0, min(e, s0 + step))
            if part is not None:
                ga = np.concatenate([np.ones((c, 1, 1), np.float32), ga], axis=2)
                ca = np.concatenate([part[:, :, None, :].reshape(c, 1, kk), ca], axis=1)
            got = chains(ga, ca)
            part = (replay(ga, ca) if got is None else got)
        dw = part if dw is None else dw + part
        if with_bias:  # (rows, then columns: not the filter's column blocks)
            rows = np.swapaxes(G.reshape(n, c, -1)[a:e], 0, 1).reshape(c, -1)
            pb = np.add.accumulate(rows, axis=1, dtype=np.float32)[:, -1]
            db = pb if db is None else db + pb
    return dw.reshape(shape_w), db


#: Past this many chain steps (samples x output positions) a filter gradient whose chains
#: numpy's BLAS does not sum in order is left to the general path (the replay is a numpy call
#: a step).
STEPS = 1 << 16


def try_backward(x, w, g, stride, pads, dilation, groups, want):
    """(dx, dw, db) of a depthwise convolution as the jit_dw kernels compute them, each None
    where another kernel runs (the caller's general path) or not ``want``-ed."""
    from .. import _capability

    dx = dw = db = None
    if not (x.size and g.size):
        return None, None, None
    if want[0] and backward_data_applies(x.shape, w.shape, stride, pads, dilation, groups,
                                         x.dtype):
        dx = backward_data(g, w, x.shape, stride, pads)
    if any(want[1:]) and backward_weights_applies(x.shape, w.shape, stride, pads, dilation,
                                                  groups, x.dtype):
        got = backward_weights(x, g, w.shape[2:], stride, pads, _capability.threads(),
                               len(want) > 2 and want[2],
                               replay_steps=STEPS)
        if got is not None:
            dw, db = got
    elif any(want[1:]):  # (oneDNN's gemm kernel: its bias; the filter's gemv is not emulated)
        from ._onednn_conv_gemm import grouped_gemm_bwd_w

        dw, db = grouped_gemm_bwd_w(x, g, w.shape, stride, pads, dilation, groups,
                                    len(want) > 1 and want[1], len(want) > 2 and want[2])
    return dx, dw, db
