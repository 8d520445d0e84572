"""torch's strided float32 transposed convolutions (``conv_transpose1d``/``2d``, stride > 1) as
oneDNN 3.12 sums them on an ``avx512_core`` CPU: the forward, the input gradient and the bias
gradient (the filter gradient is the backward-weights kernel of ``_onednn_conv``); the
gradients of stride-1 ones too (their forward is ``_onednn_conv``'s).

Measured here with ``ONEDNN_VERBOSE=1`` on about 350 random shapes (kernels 2 to 7, stride 2,
paddings, output paddings, 1 to 128 channels, batches 1 to 64) and compared bit for bit with
real torch 2.13, then read in oneDNN's sources (``jit_brgemm_conv_bwd_strided.cpp``,
``jit_brgemm_conv_bwd_utils.cpp``, ``ref_deconvolution.cpp``):

* the forward runs as the backward-data pass of the swapped convolution on the brgemm kernel
  ``brgconv_strided`` (``brg_deconv:avx512_core+...`` or ``conv:any+...``; channels-last).
  Each output point is one or more fused multiply-add chains from zero over the kernel taps
  that reach it (rows, then columns, in order) and, innermost, all the input channels; where
  the chains are several, each is added to the sum so far (a brgemm call with beta 1), and
  the bias is added at the end. One chain when the output width is not a multiple of the
  stride (``exec_trans``: a zero-padded copy of the input, every column tap in one call);
  otherwise (``exec_base``) the output row is cut into blocks of ``iw_block`` columns, and in
  each block the column taps valid over the whole block make one chain while every other tap
  (cut by the left or right edge) is a call, a chain, of its own, in increasing tap order.
  ``iw_block`` is the whole width unless oneDNN's thread balance asks for more blocks (an odd
  number of samples times channel blocks): then the fewest blocks of an even width.
* the input gradient is a strided forward convolution on the direct JIT kernel
  (``_onednn_conv.conv_forward``; bit-equal on every measured shape).
* the bias gradient (``ref_deconvolution``): per output channel one float32 sum over the
  samples and positions in order when the gradient is in a blocked layout (4 or more output
  channels), or each sample's positions summed from zero and those sums added in order (1 to
  3 output channels: the plain layout, ``compute_bwd_bias_ncdhw``).

Grouped and dilated float32 ones oneDNN runs as ``ref_deconvolution`` over a convolution
(ONEDNN_VERBOSE=1 here): the forward the swapped convolution's backward-data pass on
``x64:gemm:jit`` (grouped, a group's channels not both multiples of 4; dilated and strided:
``gemm_forward``) or ``jit_dw`` (undilated depthwise: ``dw_forward``), then the bias; the input
gradient the swapped convolution's forward and the filter gradient its backward-weights pass,
on the kernels ``_onednn_conv`` picks (``_swapped_backward``); not emulated: grouped forwards
with 4/8/16-channel groups (jit:avx512_core), dilated stride-1 forwards.

Torch hands a float32 transposed convolution to oneDNN unless it has a single sample and a
kernel not larger than 3 in both axes (and is small); that one, and every float64 one, runs
ATen's ``slow_conv_transpose2d``: per sample MKL's gemm into a column buffer and ``col2im``
(``slow_forward``/``slow_backward``, where the ``mkl`` wheel is installed; bit-equal on the 40
measured shapes, forward and gradients). The same kernel runs a strided convolution's input
gradient (``conv_input_grad``). On other CPUs oneDNN runs other kernels (not measured):
``applies`` is False there and the caller's general path runs (the slow path is MKL's on every
CPU)."""
from __future__ import annotations

import math

import numpy as np

from . import _onednn_conv as O

#: multiply-adds past which the emulation costs more than it shows (about 6 s per 10^9 in
#: the forward on the shared 2-core machine, the backward about 1.5 times that)
LIMIT = 1 << 30


def _lift(shape_or_tuple, nd, fill):
    t = tuple(shape_or_tuple)
    return (fill,) * (2 - nd) + t


def uses_onednn(n, c, spatial, ksize):
    """torch 2.13's ``use_mkldnn`` for a float32 strided transposed convolution (2-d view)."""
    kh, kw = ksize
    return n > 1 or (kh > 3 and kw > 3) or n * c * math.prod(spatial) > 20480


def applies(x_shape, w_shape, stride, pads, dilation, groups, dtype, out_pad, onednn=None):
    """Whether real torch here runs this transposed convolution on ``brgconv_strided``, as
    emulated (``x_shape``/``w_shape`` 2-d views; ``pads`` before-paddings; ``onednn`` whether
    torch calls oneDNN, if the caller knows)."""
    if O.isa() != "avx512_core" or np.dtype(dtype) != np.float32 or groups != 1:
        return False
    if all(s == 1 for s in stride) or any(d != 1 for d in dilation):
        return False
    n, c, h, w = x_shape
    co, kh, kw = w_shape[1:]
    if onednn is None:
        onednn = uses_onednn(n, c, (h, w), (kh, kw))
    if not onednn:
        return False
    if any(p >= k for p, k in zip(pads, (kh, kw))) or any(o >= s for o, s in zip(out_pad, stride)):
        return False
    oh, ow = ((i - 1) * s - 2 * p + k + o for i, s, p, k, o in
              zip((h, w), stride, pads, (kh, kw), out_pad))
    if co == 1 and (ow < 2 or w < 2):
        return False                   # (measured: jit:avx2 or gemm for some of these)
    if co == 1 and ow % stride[1] and max(kh, kw) > 5:
        return False                   # (measured: jit:avx512_core)
    return n * c * co * kh * kw * h * w <= LIMIT


def bias_applies(x_shape, w_shape, pads, dilation, groups, dtype):
    """Whether the bias gradient is ``ref_deconvolution``'s (any stride): oneDNN runs the
    transposed convolution (2-d views), its direct or brgemm kernels (padding smaller than
    the kernel), on this CPU class."""
    if O.isa() != "avx512_core" or np.dtype(dtype) != np.float32 or groups != 1:
        return False
    if any(d != 1 for d in dilation) or any(p >= k for p, k in zip(pads, w_shape[2:])):
        return False
    return uses_onednn(x_shape[0], x_shape[1], x_shape[2:], w_shape[2:])


def iw_block(n, co, oh, ow, sw, threads=2):
    """oneDNN's block of output columns (exec_base). Its efficiency model, simplified and
    fitted to the measured shapes: the jobs (samples x 16-channel blocks x row blocks) shared
    evenly by the threads: the whole row; else the fewest equal blocks (a multiple of the
    stride wide) whose extra jobs raise the thread balance by a third (blocks of 3 or more
    columns per phase) or by 60 % (narrower ones); else the whole row."""
    jobs = n * -(-co // 16)
    if jobs < threads and oh > 1:                      # rows split for the threads
        rows = -(-oh // threads)
        while (rows % 2 or (oh % 2 == 0 and oh % rows)) and rows < oh:
            rows += 1
        jobs *= -(-oh // rows)

    def balance(j):
        return j / (-(-j // threads) * threads)
    if jobs % threads == 0 or oh == 1:
        return ow
    for parts in range(2, ow + 1):
        b = ow // parts
        if ow % parts or b % sw:
            continue
        gain = balance(jobs * parts) / balance(jobs)
        if gain >= 1.6 or (gain >= 1.33 and b // sw >= 3):
            return b
    return ow


def _threads():
    from .. import _capability

    return max(1, _capability.threads())


def _tdiv(a, b):
    """C++ integer division (toward zero)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def _iw_range(iw, kw, lp, sw, ow_n, m, iw_n):
    """``brgemm_convolution_bwd_utils::get_iw_range``: the first column and the number of
    columns of a block's phase that kernel column ``kw`` reaches inside the input."""
    ow = _tdiv(iw - kw + lp, sw)
    r_ovf = ow + (m - 1) - ow_n + 1
    ker = 0
    iw_s = iw
    if ow < 0:
        ker += -ow
        iw_s += ker
    if r_ovf > 0:
        ker += r_ovf
    iw_f = iw_s + (m - ker)
    iw_s = min(iw_s, iw + m)
    iw_f = min(max(iw_f, iw_s), iw + m)
    count = iw_f - iw_s
    first = iw
    while _tdiv(first - kw + lp, sw) < 0 and first + sw < iw_n:
        first += sw
    return first, count


def _calls(iw, lp, sw, kw_n, ow_n, m, iw_n):
    """The brgemm calls of one block phase (``ker_base``): (first column, columns, kernel
    columns), in order."""
    ks = kfs = kff = kf = -1
    for kw in range(kw_n):
        _, cnt = _iw_range(iw, kw, lp, sw, ow_n, m, iw_n)
        if cnt > 0:
            if ks == -1:
                ks = kw
            kf = kw + 1
            if cnt == m:
                if kfs == -1:
                    kfs = kw
                kff = kw + 1
    if kf == -1:
        return []
    if kff == -1:
        kfs = kff = kf
    s = 0
    while (iw + lp - s) % sw:
        s += 1
    while ks % sw != s:
        ks += 1
    while kfs % sw != s:
        kfs += 1
    out = []

    def call(kb, ke):
        if ke - kb <= 0 or kb >= kw_n:
            return
        first, cnt = _iw_range(iw, kb, lp, sw, ow_n, m, iw_n)
        if cnt > 0:
            out.append((first, cnt, list(range(kb, ke, sw))))
    for kw in range(ks, kfs, sw):
        call(kw, kw + 1)
    if kfs < kff:
        call(kfs, kff)
    for kw in range(kff, kf, sw):
        call(kw, kw + 1)
    return out


def forward(x, w, bias, stride, pads, out_pad):
    """The transposed convolution (2-d views: ``x`` (N, C, H, W), ``w`` (C, O, KH, KW)
    float32; ``pads`` the paddings, ``out_pad`` the output paddings, per axis)."""
    n, c, h, wd = x.shape
    co, kh, kw = w.shape[1:]
    (sy, sx), (py, px), (oy, ox) = stride, pads, out_pad
    oh = (h - 1) * sy - 2 * py + kh + oy
    ow = (wd - 1) * sx - 2 * px + kw + ox
    trans = ow % sx != 0
    block = ow if trans else iw_block(n, co, oh, ow, sx, _threads())
    pad_y, pad_x = kh + 1, kw + 1
    xp = np.zeros((n, c, h + 2 * pad_y, wd + 2 * pad_x))
    xp[:, :, pad_y:pad_y + h, pad_x:pad_x + wd] = x
    w64 = np.ascontiguousarray(np.moveaxis(w.astype(np.float64), 1, -1))[..., None, None]
    out = np.zeros((n, co, oh, ow), np.float32)
    plan = []          # (ry, rx, j0, cols, [[(dy, dx, ky, kx), ...] per call])
    for ry in range(sy):
        kys = [ky for ky in range(kh) if (ry + py - ky) % sy == 0]
        if ry >= oh:
            continue
        for rx in range(sx):
            if rx >= ow:
                continue
            kxs = [kx for kx in range(kw) if (rx + px - kx) % sx == 0]
            dx_of = {kx: (rx + px - kx) // sx for kx in kxs}
            taps = lambda kx_list: [((ry + py - ky) // sy + pad_y, dx_of[kx] + pad_x, ky, kx)
                                    for ky in kys for kx in kx_list]
            if trans:
                cols = len(range(rx, ow, sx))
                plan.append((ry, rx, 0, cols, [taps(kxs)]))
                continue
            m = block // sx
            for b0 in range(0, ow, block):
                iw = b0 + rx
                for first, cnt, kl in _calls(iw, px, sx, kw, wd, m, ow):
                    j0 = (first - rx) // sx
                    plan.append((ry, rx, j0, cnt, [taps([k for k in kl if k in dx_of])]))

    finite = bool(np.isfinite(x).all() and np.isfinite(w).all())
    w_taps = np.moveaxis(w, 1, -1)                                    # (C, KH, KW, O)

    def by_blas(a, b, rows, cols, j0, tp):
        """One call's chains (taps outer, channels inner, from zero) by numpy's BLAS where
        ``_fma_gemm`` checked it sums them so: (m, O, rows, cols), or None."""
        from ._fma_gemm import chains

        if not finite or not tp:
            return None
        m_ = b - a
        cols_ = np.empty((len(tp), c, m_, rows, cols), np.float32)
        for t, (dy, dx, _, _) in enumerate(tp):
            cols_[t] = np.swapaxes(xp[a:b, :, dy:dy + rows, dx + j0:dx + j0 + cols], 0, 1)
        wm = np.stack([w_taps[:, ky, kx] for _, _, ky, kx in tp]).reshape(len(tp) * c, co)
        got = chains(np.ascontiguousarray(wm.T)[None], cols_.reshape(1, len(tp) * c, -1),
                     finite=True)
        return None if got is None else \
            got[0].reshape(co, m_, rows, cols).transpose(1, 0, 2, 3)

    def one(a, b):
        m_ = b - a
        for ry, rx, j0, cols, calls in plan:
            rows = len(range(ry, oh, sy))
            view = out[a:b, :, ry::sy, rx::sx][:, :, :, j0:j0 + cols]
            acc = np.empty((m_, co, rows, cols), np.float32)
            tmp = np.empty((m_, co, rows, cols))
            for tp in calls:
                got = by_blas(a, b, rows, cols, j0, tp)
                if got is not None:
                    view += got
                    continue
                acc[...] = 0
                for dy, dx, ky, kx in tp:
                    win = xp[a:b, :, dy:dy + rows, dx + j0:dx + j0 + cols]
                    for ci in range(c):
                        np.multiply(w64[ci, ky, kx], win[:, ci, None], out=tmp)
                        np.add(acc, tmp, out=acc, casting="unsafe")
                view += acc
        if bias is not None:
            out[a:b] += bias.astype(np.float32).reshape(1, -1, 1, 1)

    O._per_group(n, co * oh * ow, one)
    return out


def bias_grad(g, plain=None):
    """The bias gradient of a transposed convolution from the output gradient ``g``
    (N, O, *S), as ``ref_deconvolution`` sums it (module docstring); ``plain`` whether oneDNN
    holds ``g`` in the plain layout (default: 1 to 3 channels)."""
    n, o = g.shape[:2]
    gs = g.reshape(n, o, -1)
    if gs.shape[2] == 0 or n == 0:
        return np.zeros(o, np.float32)
    if plain is None:
        plain = o < 4
    if plain:
        rows = np.add.accumulate(gs, axis=2, dtype=np.float32)[:, :, -1]
        return np.add.accumulate(rows, axis=0, dtype=np.float32)[-1]
    flat = np.moveaxis(gs, 1, 2).reshape(-1, o)
    return np.add.accumulate(flat, axis=0, dtype=np.float32)[-1]


def _views(x, w, nd, stride, padding, out_pad):
    stride = _lift(tuple(stride)[-nd:], nd, 1)
    flat = tuple(padding)[-2 * nd:]
    pads = _lift(tuple(flat[2 * i] for i in range(nd)), nd, 0)
    out_pad = _lift(tuple(out_pad)[-nd:], nd, 0)
    if nd == 1:
        x = x[:, :, None]
        w = w[:, :, None]
    return x, w, stride, pads, out_pad


def output_padding(x_shape, w_shape, nd, stride, padding, out_size, dilation=None):
    """The output padding implied by the output size (the engine keeps the size)."""
    flat = tuple(padding)[-2 * nd:]
    dil = (1,) * nd if dilation is None else tuple(dilation)[-nd:]
    return tuple(o - ((i - 1) * s - flat[2 * a] - flat[2 * a + 1] + d * (k - 1) + 1)
                 for a, (o, i, s, k, d) in enumerate(zip(tuple(out_size)[-nd:], x_shape[2:],
                                                         tuple(stride)[-nd:], w_shape[2:], dil)))


def slow_applies(x_shape, w_shape, dtype, groups, dilation):
    """Whether torch runs ATen's ``slow_conv_transpose2d`` (2-d views): float64 always (any
    dilation; groups one by one, ``try_forward``), float32 where it does not call oneDNN."""
    if groups != 1:
        return False
    if np.dtype(dtype) == np.float64:
        return True
    return np.dtype(dtype) == np.float32 and not uses_onednn(
        x_shape[0], x_shape[1], x_shape[2:], w_shape[2:])


def slow_forward(x, w, bias, stride, pads, out_pad, dilation=(1, 1)):
    """ATen's ``slow_conv_transpose2d`` (2-d views): per sample MKL's gemm (column-major,
    ``gemm('n', 't')``) of the sample and the weight into one column buffer, ``col2im`` adding
    the columns into the zeroed output in order (output channel, kernel row, kernel column),
    then the bias added. None without MKL."""
    from .. import _gemm, _mkl

    kernel = _gemm._kernel(x.dtype)
    if kernel is None:
        return None
    f = kernel[0]
    n, ci, h, wd = x.shape
    co, kh, kw = w.shape[1:]
    (sy, sx), (py, px), (oy, ox) = stride, pads, out_pad
    dy, dx_ = dilation
    oh = (h - 1) * sy - 2 * py + dy * (kh - 1) + 1 + oy
    ow = (wd - 1) * sx - 2 * px + dx_ * (kw - 1) + 1 + ox
    m, size = co * kh * kw, h * wd
    if (m * size + n * ci * size) * x.itemsize > O.SLOW_BYTES:
        return None
    wm = O._aligned((ci, m), x.dtype)
    wm[...] = w.reshape(ci, m)
    xs = O._aligned((n, ci, size), x.dtype)
    xs[...] = x.reshape(n, ci, size)
    cols = O._aligned((m, size), x.dtype)
    full = np.zeros((n, co, max((h - 1) * sy + dy * (kh - 1) + 1, py + oh),
                     max((wd - 1) * sx + dx_ * (kw - 1) + 1, px + ow)), x.dtype)
    local = _mkl._load().MKL_Set_Num_Threads_Local
    prev = local(0)
    try:
        for i in range(n):
            f(102, 111, 112, size, m, ci, 1.0, _mkl.address(xs[i]), size, _mkl.address(wm), m,
              0.0, _mkl.address(cols), size)
            c3 = cols.reshape(co, kh, kw, h, wd)
            for a in range(kh):
                for b in range(kw):
                    ay, bx = a * dy, b * dx_
                    view = full[i, :, ay:ay + sy * (h - 1) + 1:sy, bx:bx + sx * (wd - 1) + 1:sx]
                    view += c3[:, a, b]
    finally:
        local(prev)
    out = np.ascontiguousarray(full[:, :, py:py + oh, px:px + ow])
    if bias is not None:
        out += bias.astype(x.dtype).reshape(1, -1, 1, 1)
    return out


def slow_backward(x, w, g, stride, pads, want, dilation=(1, 1)):
    """The gradients of ATen's ``slow_conv_transpose2d`` (2-d views): per sample ``im2col`` of
    the output's gradient, MKL's gemm with the weight (input gradient) and, accumulated over the
    samples with beta 1, with the sample (filter gradient); the bias gradient torch's sum over
    (0, 2, 3). Each None where MKL is absent or not ``want``-ed."""
    from .. import _gemm, _mkl
    from .._kernels import torch_sum

    n, ci, h, wd = x.shape
    co, kh, kw = w.shape[1:]
    (sy, sx), (py, px) = stride, pads
    db = torch_sum(g, (0, 2, 3)) if len(want) > 2 and want[2] else None
    kernel = _gemm._kernel(x.dtype)
    if kernel is None or not any(want[:2]):
        return None, None, db
    f = kernel[0]
    m, size = co * kh * kw, h * wd
    if (m * size + 2 * n * ci * size) * x.itemsize > O.SLOW_BYTES:
        return None, None, db
    wm = O._aligned((ci, m), x.dtype)
    wm[...] = w.reshape(ci, m)
    xs = O._aligned((n, ci, size), x.dtype)
    xs[...] = x.reshape(n, ci, size)
    cols = O._aligned((m, size), x.dtype)
    gi = O._aligned((n, ci, size), x.dtype) if want[0] else None
    gw = O._aligned((ci, m), x.dtype) if want[1] else None
    if gw is not None:
        gw[...] = 0
    local = _mkl._load().MKL_Set_Num_Threads_Local
    prev = local(0)
    try:
        for i in range(n):
            c, outs = O.im2col(g[i], (kh, kw), (sy, sx), [(py, py), (px, px)], tuple(dilation))
            if tuple(outs) != (h, wd):
                return None, None, db
            cols[...] = c
            if gi is not None:
                f(102, 111, 111, size, ci, m, 1.0, _mkl.address(cols), size, _mkl.address(wm),
                  m, 0.0, _mkl.address(gi[i]), size)
            if gw is not None:
                f(102, 112, 111, m, ci, size, 1.0, _mkl.address(cols), size,
                  _mkl.address(xs[i]), size, 1.0, _mkl.address(gw), m)
    finally:
        local(prev)
    dx = None if gi is None else gi.reshape(x.shape)
    dw = None if gw is None else gw.reshape(w.shape)
    return dx, dw, db


def _backward_by_groups(x, w, g, nd, stride, padding, dilation, groups, want):
    """``try_backward`` of each group (contiguous input, weight and output-gradient channels),
    the gradients concatenated (input channels, weights, bias)."""
    ci, co = x.shape[1] // groups, w.shape[1]
    got = []
    for i in range(groups):
        got.append(try_backward(np.ascontiguousarray(x[:, i * ci:(i + 1) * ci]),
                                np.ascontiguousarray(w[i * ci:(i + 1) * ci]),
                                np.ascontiguousarray(g[:, i * co:(i + 1) * co]), nd, stride,
                                padding, dilation, 1, want))
    out = []
    for j, axis in enumerate((1, 0, 0)):
        pieces = [p[j] for p in got]
        out.append(None if any(a is None for a in pieces) else np.concatenate(pieces, axis))
    return tuple(out)


def try_forward(x, w, bias, nd, stride, padding, dilation, groups, out_size):
    """The strided transposed convolution as torch computes it here, or None (another kernel:
    the caller's general path). Geometry as ``_onednn_conv.try_conv``."""
    if nd not in (1, 2) or x.dtype != w.dtype or x.dtype not in (np.float32, np.float64):
        return None
    if bias is not None and bias.dtype != x.dtype:
        return None
    if groups > 1 and x.dtype == np.float64 and x.size and w.size:
        from ._onednn_conv_gemm import by_groups

        return by_groups(lambda xg, wg, bg: try_forward(
            xg, wg, bg, nd, stride, padding, dilation, 1, out_size), x, w, bias, groups,
            transposed=True)
    flat = tuple(padding)[-2 * nd:]
    if any(flat[2 * i] != flat[2 * i + 1] for i in range(nd)) or x.size == 0 or w.size == 0:
        return None
    op = output_padding(x.shape, w.shape, nd, stride, padding, out_size, dilation)
    xv, wv, st, pads, opv = _views(x, w, nd, stride, padding, op)
    dil = _lift(tuple(dilation)[-nd:], nd, 1)
    if slow_applies(xv.shape, wv.shape, x.dtype, groups, dil):
        y = slow_forward(xv, wv, bias, st, pads, opv, dil)
        return None if y is None else (y[:, :, 0] if nd == 1 else y)
    if x.dtype == np.float32 and gemm_applies(x.shape, w.shape, stride, dilation, groups, nd):
        return gemm_forward(x, w, bias, nd, stride, padding, dilation, groups, op)
    if x.dtype == np.float32 and groups > 1 and O.isa() == "avx512_core":
        y = dw_forward(x, w, bias, nd, stride, padding, dilation, groups, op)
        if y is not None:
            return y
    if x.dtype != np.float32 or not applies(xv.shape, wv.shape, st, pads, dil, groups,
                                            x.dtype, opv):
        return None
    y = forward(xv, wv, bias, st, pads, opv)
    return y[:, :, 0] if nd == 1 else y


def try_backward(x, w, g, nd, stride, padding, dilation, groups, want):
    """(dx, dw, db) of a transposed convolution (any stride) as torch computes them here, each
    None where another kernel would (or not ``want``-ed). ``x`` the input, ``w`` (C, O, *K), ``g``
    the output's gradient; geometry as ``try_forward``."""
    none = (None, None, None)
    if nd not in (1, 2) or not (x.dtype == w.dtype == g.dtype) or \
            x.dtype not in (np.float32, np.float64):
        return none
    if groups > 1 and x.dtype == np.float64 and x.size and w.size and g.size:
        return _backward_by_groups(x, w, g, nd, stride, padding, dilation, groups, want)
    flat = tuple(padding)[-2 * nd:]
    if any(flat[2 * i] != flat[2 * i + 1] for i in range(nd)) or x.size == 0 or w.size == 0:
        return none
    op = output_padding(x.shape, w.shape, nd, stride, padding, g.shape[2:], dilation)
    xv, wv, st, pads, opv = _views(x, w, nd, stride, padding, op)
    dil = _lift(tuple(dilation)[-nd:], nd, 1)
    if slow_applies(xv.shape, wv.shape, x.dtype, groups, dil):
        gv = g[:, :, None] if nd == 1 else g
        dx, dw, db = slow_backward(xv, wv, gv, st, pads, want, dil)
        if nd == 1:
            dx = None if dx is None else dx[:, :, 0]
            dw = None if dw is None else dw[:, :, 0]
        return dx, dw, db
    if x.dtype != np.float32:
        return none
    if (groups > 1 or any(v != 1 for v in dil)) and O.isa() == "avx512_core":
        return _swapped_backward(x, w, g, nd, stride, padding, dilation, groups, want, op)
    db = None
    if len(want) > 2 and want[2] and bias_applies(xv.shape, wv.shape, pads, dil, groups,
                                                  x.dtype):
        db = bias_grad(g, _plain_layout(g, w, x, nd, stride, flat, op))
    if any(v != 1 for v in st):
        if not applies(xv.shape, wv.shape, st, pads, dil, groups, x.dtype, opv):
            return None, None, db
    elif not bias_applies(xv.shape, wv.shape, pads, dil, groups, x.dtype):
        return None, None, db          # (stride 1: the forward is _onednn_conv's)
    dx = dw = None
    strd = tuple(stride)[-nd:]
    cpads = [(flat[2 * i], flat[2 * i]) for i in range(nd)]
    if want[0]:
        ks = w.shape[2:]
        work = O.macs(g.shape[0], w.shape[1], w.shape[0], ks, x.shape[2:])
        if O.direct_applies(max(2, g.shape[0]), ks, [p for p, _ in cpads], (1,) * nd, strd, 1,
                            g.dtype, False, work):
            dx = O.conv_forward(g, w, None, strd, cpads, (1,) * nd)
    if len(want) > 1 and want[1]:
        # the swapped convolution's filter gradient: input g, filter (C, O, *K), output x
        # (its right padding p - output_padding; negative: the rows no tap reaches cut off)
        after = [flat[2 * i] - op[i] for i in range(nd)]
        gc = g[(Ellipsis,) + tuple(slice(0, g.shape[2 + i] + min(0, after[i]))
                                   for i in range(nd))]
        conv_pad = tuple(v for i in range(nd) for v in (flat[2 * i], max(0, after[i])))
        try:
            gc = np.ascontiguousarray(gc)
            if x.shape[0] == 1:     # (one sample: oneDNN here, the swapped conv's rule says not)
                dw = _one_sample_weights(gc, w, x, nd, strd, conv_pad)
            else:
                dw = O.try_backward(gc, w, x, nd, strd, conv_pad, (1,) * nd, groups,
                                    (False, True, False))[1]
        except (TypeError, ValueError, ImportError):   # (a helper's signature changed)
            dw = None
    return dx, dw, db


def gemm_applies(x_shape, w_shape, stride, dilation, groups, nd):
    """Whether oneDNN runs this float32 transposed convolution's forward on ``x64:gemm:jit``
    (``ref_deconvolution`` over the gemm convolution's backward-data pass; ONEDNN_VERBOSE=1
    here): grouped, not depthwise, a group's channel counts not both multiples of 4 (torch
    hands every grouped one to oneDNN), or ungrouped, dilated and strided (torch's
    ``use_mkldnn``: more than one sample, or a large one)."""
    if O.isa() != "avx512_core" or nd not in (1, 2):
        return False
    from ._onednn_dw_conv import is_depthwise

    ci, co = w_shape[0] // groups, w_shape[1]
    dil, strd = tuple(dilation)[-nd:], tuple(stride)[-nd:]
    if groups > 1:
        if is_depthwise(x_shape, (w_shape[0], 1), groups, np.float32) and co == 1:
            return any(d != 1 for d in dil)      # (undilated: jit_dw, ``dw_forward``)
        return not (ci % 4 == 0 and co % 4 == 0)
    if all(d == 1 for d in dil) or all(v == 1 for v in strd):
        return False
    ks = _lift(tuple(w_shape[2:]), nd, 1)
    return uses_onednn(x_shape[0], x_shape[1], _lift(tuple(x_shape[2:]), nd, 1), ks)


def gemm_forward(x, w, bias, nd, stride, padding, dilation, groups, op):
    """The forward ``gemm_applies`` names: per group the gemm convolution's input gradient of
    the swapped convolution (``_onednn_conv_gemm.gemm_backward_data``: input ``x`` as its
    output gradient, ``w`` as its filter), then the bias added (``ref_deconvolution``)."""
    from ._onednn_conv_gemm import by_groups, gemm_backward_data

    flat = tuple(padding)[-2 * nd:]
    strd, dil = tuple(stride)[-nd:], tuple(dilation)[-nd:]
    pads = [(flat[2 * i], max(0, flat[2 * i] - op[i])) for i in range(nd)]
    outs = tuple((i - 1) * s - 2 * flat[2 * a] + d * (k - 1) + 1 + op[a] for a, (i, s, k, d) in
                 enumerate(zip(x.shape[2:], strd, w.shape[2:], dil)))
    co = w.shape[1]
    y = by_groups(lambda xg, wg, _: gemm_backward_data(
        xg, wg, (x.shape[0], co) + outs, strd, pads, dil), x, w, None, groups, transposed=True)
    if y is not None and bias is not None:
        y += bias.astype(np.float32).reshape((1, -1) + (1,) * nd)
    return y


def dw_forward(x, w, bias, nd, stride, padding, dilation, groups, op):
    """An undilated depthwise transposed convolution's forward, as oneDNN runs it: the
    swapped convolution's backward-data pass on ``jit_dw`` (``_onednn_dw_conv.backward_data``),
    the bias added after (``ref_deconvolution``); None where that kernel does not run."""
    from . import _onednn_dw_conv as D

    if not D.is_depthwise(x.shape, (w.shape[0], 1), groups, x.dtype) or w.shape[1] != 1 or \
            any(d != 1 for d in tuple(dilation)[-nd:]):
        return None
    flat = tuple(padding)[-2 * nd:]
    strd = tuple(stride)[-nd:]
    pads = [(flat[2 * i], flat[2 * i] - op[i]) for i in range(nd)]
    outs = tuple((i - 1) * s - 2 * flat[2 * a] + k + op[a] for a, (i, s, k) in
                 enumerate(zip(x.shape[2:], strd, w.shape[2:])))
    y_shape = (x.shape[0], w.shape[0]) + outs
    if not D.backward_data_applies(y_shape, w.shape, strd, pads, (1,) * nd, groups, x.dtype):
        return None
    y = D.backward_data(x, w, y_shape, strd, pads)
    if bias is not None:
        y += bias.astype(np.float32).reshape((1, -1) + (1,) * nd)
    return y


def _swapped_backward(x, w, g, nd, stride, padding, dilation, groups, want, op):
    """(dx, dw, db) of a float32 grouped or dilated transposed convolution oneDNN runs
    (``ref_deconvolution`` over a convolution): the input gradient the swapped convolution's
    forward (``g`` with ``w`` as its filter), the filter gradient its backward-weights pass
    (input ``g``, output gradient ``x``), each on the kernel ``_onednn_conv`` picks for that
    convolution; the bias gradient ``bias_grad`` in the layout oneDNN holds ``g`` in."""
    flat = tuple(padding)[-2 * nd:]
    strd, dil = tuple(stride)[-nd:], tuple(dilation)[-nd:]
    dx = dw = db = None
    if want[0]:
        dx = O.try_conv(g, w, None, nd, False, strd, padding, dil, groups)
    after = [flat[2 * i] - op[i] for i in range(nd)]
    gc = np.ascontiguousarray(g[(Ellipsis,) + tuple(
        slice(0, g.shape[2 + i] + min(0, after[i])) for i in range(nd))])
    conv_pad = tuple(v for i in range(nd) for v in (flat[2 * i], max(0, after[i])))
    if len(want) > 1 and want[1]:
        dw = O.try_backward(gc, w, x, nd, strd, conv_pad, dil, groups, (False, True, False))[1]
    if len(want) > 2 and want[2]:
        # (the layout oneDNN holds g in for the backward-weights pass, ONEDNN_VERBOSE=1 here:
        # blocked under jit_dw's (depthwise, where it runs); plain under the gemm kernel's,
        # every other grouped or dilated one measured)
        from ._onednn_dw_conv import backward_weights_applies

        plain = not backward_weights_applies(
            gc.shape, w.shape, strd, [(conv_pad[2 * i], conv_pad[2 * i + 1]) for i in range(nd)],
            dil, groups, np.float32)
        db = bias_grad(g, plain)
    return dx, dw, db


def _plain_layout(g, w, x, nd, stride, flat, op):
    """Whether oneDNN holds the output gradient in the plain layout for the backward-weights
    pass (measured): under its gemm kernel, or 1 to 3 channels under jit:avx512_core (the
    jit:avx2 one takes 8-channel blocks); the kernel as ``_onednn_conv_bwd_w.plan`` names it
    for the swapped convolution."""
    kernel = None
    try:
        from ._onednn_conv_bwd_w import plan

        shape = tuple(g.shape[:2]) + tuple(s + min(0, flat[2 * i] - op[i])
                                           for i, s in enumerate(g.shape[2:]))
        cuts = plan(shape, w.shape, x.shape, tuple(stride)[-nd:],
                    [flat[2 * i] for i in range(nd)], (1,) * nd, _threads())
        kernel = None if cuts is None else cuts.kernel
    except (ImportError, TypeError, ValueError):
        pass
    if kernel == "x64:gemm:jit":
        return True
    if kernel is not None and "avx2" in kernel:
        return False
    return g.shape[1] < 4


def _one_sample_weights(g, w, x, nd, stride, conv_pad):
    """The swapped convolution's filter gradient for one sample, on the backward-weights
    kernel ``_onednn_conv_bwd_w.plan`` names (as ``_onednn_conv.try_backward`` for a batch)."""
    from ._onednn_conv_bwd_w import plan

    pads = [(conv_pad[2 * i], conv_pad[2 * i + 1]) for i in range(nd)]
    if O.macs(1, g.shape[1], w.shape[0], w.shape[2:], x.shape[2:]) > O.LIMIT or \
            math.prod(x.shape[2:]) > O.STEPS:
        return None
    cuts = plan(g.shape, w.shape, x.shape, stride, [p for p, _ in pads], (1,) * nd, _threads())
    if cuts is None or cuts.kernel == "x64:gemm:jit":
        return None
    dw, _ = O.conv_backward_weights(g, x, w.shape[2:], stride, pads, (1,) * nd, cuts.team_w,
                                    cuts.team_b, cuts.rows_w, cuts.rows_b)
    return dw


def conv_input_grad(x_shape, w, g, nd, stride, padding, dilation, groups):
    """The input gradient of a strided forward convolution (``x_shape`` its input's shape,
    ``w`` (O, C, *K), ``g`` the output's gradient): oneDNN's backward-data pass on the same
    ``brgconv_strided`` kernel, i.e. the transposed convolution of ``g`` with ``w`` (output
    padding from the input's size); None where another kernel runs."""
    if nd not in (1, 2) or not (w.dtype == g.dtype == np.float32) or g.size == 0:
        return None
    flat = tuple(padding)[-2 * nd:]
    if any(flat[2 * i] != flat[2 * i + 1] for i in range(nd)):
        return None
    strd = tuple(stride)[-nd:]
    ks = w.shape[2:]
    op = tuple(i - ((o - 1) * s - 2 * flat[2 * a] + k) for a, (i, o, s, k) in
               enumerate(zip(x_shape[2:], g.shape[2:], strd, ks)))
    if any(v < 0 for v in op):
        return None
    gv, wv, st, pads, opv = _views(g, w, nd, strd, padding, op)
    dil = _lift(tuple(dilation)[-nd:], nd, 1)
    kv = wv.shape[2:]
    xs = _lift(tuple(x_shape[2:]), nd, 1)
    onednn = uses_onednn(x_shape[0], x_shape[1], xs, kv)
    if not applies(gv.shape, wv.shape, st, pads, dil, groups, g.dtype, opv, onednn):
        return None
    y = forward(gv, wv, None, st, pads, opv)
    return y[:, :, 0] if nd == 1 else y
