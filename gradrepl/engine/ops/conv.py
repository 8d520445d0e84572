"""Convolution, pooling and normalisation: each one registry op (one node in the graph).

Convolution (2-D, NCHW; 1-D convolutions are 2-D ones with a height of 1, as in Paddle) is
im2col: the padded input is viewed as sliding windows (``as_strided``, no copy), laid out once as
a column matrix, and multiplied with the filter in one BLAS matrix product (batch and groups are
the batch axes of that one ``matmul``). Three ops close under differentiation, so gradients of
gradients work:

* ``conv2d(x, w)``: the forward convolution;
* ``conv2d_transpose(x, w)``: the adjoint of ``conv2d`` in its input (Paddle's conv2d_transpose,
  also the input gradient of ``conv2d``): one matrix product, then col2im (one strided add per
  kernel offset);
* ``conv2d_grad_filter(x, dy)``: the filter gradient, one matrix product of ``dy`` with the
  column matrix of ``x``.

d conv2d = (conv2d_transpose(g, w), conv2d_grad_filter(x, g));
d conv2d_transpose = (conv2d(g, w), conv2d_grad_filter(g, x));
d conv2d_grad_filter = (conv2d_transpose(dy, G), conv2d(x, G)).

Rounding: Paddle's CPU conv is im2col + a GEMM per sample and group over the column index
``c*KH*KW + kh*KW + kw``; small float32 products are summed as it sums them
(``plain_chain_matmul``), larger ones by numpy's BLAS (float32 all the same). col2im adds the
kernel offsets in row-major order, as Paddle's Col2Im does.

Pooling is ``pool2d`` (max or avg, plain or adaptive, Paddle's one op) with ``pool2d_grad`` and
``pool2d_double_grad``; each is a loop over the kernel offsets (never over pixels) of strided
views of the padded input, or of gathers for adaptive windows of unequal sizes. Averages add the
window's values one after the other (rows outer) and divide by the window size, as Paddle's
Pool2dFunctor; max picks the first maximum in the window, and its gradient goes there.

Normalisation (``batch_norm``, ``layer_norm``; ``group_norm`` in ``group_norm.py``) is one op
each whose VJP is written with Tensor ops (mean, variance and the normalised input recomputed
from ``x``), so it differentiates again.
"""
from __future__ import annotations

import contextvars
import functools

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..registry import apply, exact_first_order, needs_grad as _needs, register
from .conv_family import family_vjps, geom_attrs
from ..tuning import empty_huge
from .linalg import _CHAIN_LIMIT, _UNFUSED_LIMIT, unfused_chain  # (past them: BLAS)
from . import _mkl_generic
from .. import cpu
from .pooling import (Windows, _axis_windows, appliers, double_grad_by,  # noqa: F401
                      first_max_index, grad_by, picker, pool_out_size, register_pool_ops,
                      select_or_zero, values_by)


# ====================================================================== geometry
def conv_out_size(n, k, s, p0, p1, d):
    """Output length of a convolution along one axis (Paddle's ConvOutSize)."""
    return (n + p0 + p1 - (d * (k - 1) + 1)) // s + 1


def _pad2d(x, pads, value=0.0, min_hw=None):
    """``x`` (N, C, H, W) padded by (top, bottom, left, right) with ``value``; at least
    ``min_hw`` rows/columns (extra at the bottom/right)."""
    pt, pb, pl, pr = pads
    n, c, h, w = x.shape
    hp, wp = h + pt + pb, w + pl + pr
    if min_hw is not None:
        hp, wp = max(hp, min_hw[0]), max(wp, min_hw[1])
    if (hp, wp) == (h, w):
        return x
    out = np.full((n, c, hp, wp), value, x.dtype)
    out[:, :, pt:pt + h, pl:pl + w] = x
    return out


def _windows(xp, kh, kw, oh, ow, stride, dilation):
    """The sliding windows of the padded input as a view (N, C, KH, KW, OH, OW) (no copy)."""
    sn, sc, sh_, sw_ = xp.strides
    sh, sw = stride
    dh, dw = dilation
    n, c = xp.shape[:2]
    return as_strided(xp, (n, c, kh, kw, oh, ow),
                      (sn, sc, sh_ * dh, sw_ * dw, sh_ * sh, sw_ * sw), writeable=False)




def plain_chain_matmul(a, b):
    """``a @ b`` in float32 summed as Paddle's CPU conv kernels sum it (measured on 3.3.1): each
    output one sequential chain over the column index, every product rounded to float32 before
    it is added (no fused multiply-add). Bit for bit on the small convolutions measured (the
    forward and the input gradient); the filter gradient and large products may differ in the
    last bit (their sums are blocked inside MKL)."""
    return unfused_chain(a, b)


# How many multiply-adds a product may have and still be summed as Paddle's convolution kernels
# sum it (the unfused chain). The torch dialect, whose convolutions oneDNN computes (not
# reproducible here), runs them under the older, smaller limit its recorded bits were made with
# (``with_chain_limit``).
_CHAIN_LIMIT_NOW = contextvars.ContextVar("conv_chain_limit", default=None)


def with_chain_limit(limit):
    """Decorator: run the function with ``limit`` as the conv products' chain limit."""
    def wrap(fn):
        @functools.wraps(fn)
        def inner(*args, **kwargs):
            token = _CHAIN_LIMIT_NOW.set(limit)
            try:
                return fn(*args, **kwargs)
            finally:
                _CHAIN_LIMIT_NOW.reset(token)
        return inner
    return wrap


# On AMD (Paddle's bundled MKL takes its generic kernels there) a float32 product of up to this
# many multiply-adds is summed as those kernels sum it (``_mkl_generic``: one multiply and one
# add per k over the whole batch; vgg-size products past it go to BLAS). 16M: a LeNet's 28->32
# 3x3 convolution at batch 8 (10.9M, ~40 ms forward, ~30 ms filter gradient) is exact.
_GENERIC_LIMIT = 1 << 24
# The filter gradient's emulation (``_mkl_generic.sgemm_bt_partials``, every running sum numpy
# adding whole planes product by product) costs ~3 ms per M multiply-adds:
# exact to the forward's limit (a LeNet's first convolution at batch 32, 2.8M: ~7 ms, where the
# chain took ~110 ms; an MNIST conv 8->8 5x5 at batch 16, 5M: ~7 ms).
_GENERIC_BT_LIMIT = _GENERIC_LIMIT


def _gemm(a, b, blas=False, trans_a=False, own_buffer=False):
    """``a @ b``: Paddle's summation order for small float32 products, else numpy's BLAS
    (``blas``: BLAS whatever the size, for a part of a product too large for the chain).
    On AMD Paddle's order is its MKL's generic kernels' (``_mkl_generic``), which depends on
    ``trans_a`` (A passed transposed to sgemm) and where each product's C starts: slices of one
    output tensor, or (``own_buffer``) each in a column buffer of its own."""
    if a.ndim > 2 and all(s == 1 for s in a.shape[:-2]) and all(s == 1 for s in b.shape[:-2]):
        lead = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        out = _gemm(a.reshape(a.shape[-2:]), b.reshape(b.shape[-2:]), blas, trans_a, own_buffer)
        return out.reshape(lead + out.shape)
    if a.dtype != b.dtype:
        dt = np.result_type(a, b)
        a, b = a.astype(dt), b.astype(dt)
    if a.dtype in (np.float32, np.float64) and _CHAIN_LIMIT_NOW.get() is None:
        out = _mkl_products(a, b)
        if out is not None:
            return out
    if a.dtype == np.float32 and not blas:
        batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        size = int(np.prod(batch, dtype=np.int64)) * a.shape[-2] * a.shape[-1] * b.shape[-1]
        limit = _CHAIN_LIMIT_NOW.get()
        if (limit is None and b.shape[-1] > 1 and size <= _GENERIC_LIMIT
                and cpu.cpu_class() == "amd"):
            offsets = None if own_buffer else (
                np.arange(int(np.prod(batch, dtype=np.int64))).reshape(batch)
                * (a.shape[-2] * b.shape[-1])) % 4
            return _mkl_generic.sgemm(a, b, offsets, trans_a)
        if (limit is None and b.shape[-1] == 1 and not trans_a and size <= _GENERIC_LIMIT
                and cpu.cpu_class() == "amd"):
            # one output position (a conv to 1x1, DCGAN's discriminator head): MKL takes the
            # matrix-times-column path, as matmul's (linalg._dot_kernel)
            return _column_products(a, b)
        if size <= (_UNFUSED_LIMIT if limit is None else limit):
            return plain_chain_matmul(a, b)
    shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + (a.shape[-2], b.shape[-1])
    return np.matmul(a, b, out=empty_huge(shape, np.result_type(a, b)))


def _mkl_products(a, b):
    """(..., M, K) @ (..., K, N) as Paddle's conv kernels compute it on Intel: one
    ``Blas::MatMul`` per sample and group, MKL's ``cblas_sgemm`` on one thread (beta 0), each
    operand passed as it is stored (the filter transposed for the input gradient and the
    transposed convolution), the filter, the columns and the output each from a 64-byte
    boundary as Paddle's tensors are, every product written into its slice of the output.
    None on AMD (its own rules above), where this process stands for another CPU class, or
    without MKL."""
    from .nn import _mkl_is_this_cpu
    from .. import mkl

    if cpu.cpu_class() == "amd" or not _mkl_is_this_cpu() or not mkl.load():
        return None

    def aligned(x):
        if x.flags.c_contiguous:
            return mkl.at_64(x)
        xt = np.swapaxes(x, -1, -2)
        if xt.flags.c_contiguous:
            return np.swapaxes(mkl.at_64(xt), -1, -2)
        return mkl.at_64(np.ascontiguousarray(x))

    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = np.broadcast_to(aligned(a), batch + a.shape[-2:])
    b = np.broadcast_to(aligned(b), batch + b.shape[-2:])
    if a.dtype == np.float64:  # DGEMM: each operand as stored (a transposed view: trans)
        out = np.empty(batch + (a.shape[-2], b.shape[-1]), np.float64)
        for i in np.ndindex(*batch):
            ta, tb = not a[i].flags.c_contiguous, not b[i].flags.c_contiguous
            r = mkl.gemm_one_thread(np.ascontiguousarray(a[i].T if ta else a[i]),
                                    np.ascontiguousarray(b[i].T if tb else b[i]), ta, tb)
            if r is None:
                return None
            out[i] = r
        return out
    out = mkl.empty_at_64(batch + (a.shape[-2], b.shape[-1]), np.float32)
    for i in np.ndindex(*batch):
        if mkl.sgemm_one_thread(a[i], b[i], into=out[i], overwrite=True) is None:
            return None
    return out


def _column_products(a, b):
    """(..., M, K) @ (..., K, 1), each product as Paddle's matmul of a matrix by one column."""
    from .linalg import _dot_kernel

    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = np.broadcast_to(a, batch + a.shape[-2:])
    b = np.broadcast_to(b, batch + b.shape[-2:])
    out = np.empty(batch + (a.shape[-2], 1), np.float32)
    for i in np.ndindex(*batch):
        col = _dot_kernel(np.ascontiguousarray(a[i]), np.ascontiguousarray(b[i]), False, False)
        out[i] = plain_chain_matmul(a[i], b[i]) if col is None else col
    return out


#: A batch's column matrices are made this many bytes at a time at most (a batch of 32 at 112 x
#: 112 with 64 channels would otherwise lay out 0.9 GB at once); each sample's product is the
#: same BLAS call either way.
CHUNK_BYTES = 32 << 20


def sample_chunks(n, per_sample_bytes):
    """(start, stop) ranges of samples whose columns fit in ``CHUNK_BYTES`` (one at least), or
    None when the whole batch fits (no chunking)."""
    if n * per_sample_bytes <= CHUNK_BYTES:
        return None
    step = max(1, CHUNK_BYTES // max(per_sample_bytes, 1))
    return [(i, min(n, i + step)) for i in range(0, n, step)]


def _check_out(oh, ow, what):
    if oh <= 0 or ow <= 0:
        raise ValueError(
            f"(InvalidArgument) The output of {what} has a non-positive size [{oh}, {ow}]: "
            f"the input is too small for the kernel, padding and stride")


# ====================================================================== conv2d
def _conv2d_fwd(x, w, stride=(1, 1), padding=(0, 0, 0, 0), dilation=(1, 1), groups=1):
    n, c, h, wd = x.shape
    m, cg, kh, kw = w.shape
    g = groups
    oh = conv_out_size(h, kh, stride[0], padding[0], padding[1], dilation[0])
    ow = conv_out_size(wd, kw, stride[1], padding[2], padding[3], dilation[1])
    _check_out(oh, ow, "conv2d")
    xp = _pad2d(x, padding)
    win = _windows(xp, kh, kw, oh, ow, stride, dilation)
    k, positions = cg * kh * kw, oh * ow
    wm = w.reshape(g, m // g, k)
    chunks = sample_chunks(n, g * k * positions * x.itemsize)
    if chunks is None:
        cols = win.reshape(n, g, k, positions)               # the column matrices (one copy)
        return _gemm(wm, cols).reshape(n, m, oh, ow)          # (N, G, M/G, OH*OW)
    dt = np.result_type(x, w)
    if x.dtype != dt or w.dtype != dt:  # (as _gemm would: both in the common dtype)
        win = _windows(_pad2d(x.astype(dt), padding), kh, kw, oh, ow, stride, dilation)
        wm = wm.astype(dt)
    out = empty_huge((n, g, m // g, positions), dt)
    # one column buffer for every chunk, and each chunk's product written in place: a chunk's
    # columns past 32 MB were mapped and faulted in anew each time (the input gradient of
    # vgg11's second conv at batch 32 as a convolution: 1.8 s -> 0.86 s); the same BLAS call
    buf = np.empty((chunks[0][1] - chunks[0][0]) * g * k * positions, dt)
    for a, b in chunks:
        cols = buf[:(b - a) * g * k * positions].reshape(b - a, g, cg, kh, kw, oh, ow)
        np.copyto(cols, win[a:b].reshape(cols.shape))
        np.matmul(wm, cols.reshape(b - a, g, k, positions), out=out[a:b])
    return out.reshape(n, m, oh, ow)


_conv2d_vjp, _conv2d_transpose_vjp, _conv2d_grad_filter_vjp = family_vjps(
    2, lambda: (conv2d, conv2d_transpose, conv2d_grad_filter), "out_hw")


CONV2D = register(
    "conv2d", _conv2d_fwd, _conv2d_vjp, legacy_name="Conv2dBackward", saves_output=False,
    node_name="Conv2dGradNodeFinal",   # (real 3.3.1 and 2.6.2 print this name)
    examples=[([(1, 2, 5, 5), (3, 2, 3, 3)], {"padding": (1, 1, 1, 1)}),
              ([(2, 4, 5, 6), (4, 2, 2, 3)],
               {"stride": (2, 1), "padding": (0, 1, 1, 0), "dilation": (1, 2), "groups": 2}),
              ([(1, 1, 4, 5), (2, 1, 1, 2)], {"stride": (1, 2)})])
# Paddle's conv double grad links no zero gradient where the input took none (real 3.3.1 and
# 2.6.2: w.grad None after a second backward through conv(data, w); conv_family._paddle_grad_out)
CONV2D.double_grad_links = lambda node: node.edges[0] is not None
# Paddle's F.conv2d picks its depthwise_conv2d op where groups == channels != 1 and the filters
# are a multiple of the channels: the same values here, its own node (DepthwiseConv2dGradNode)
DEPTHWISE_CONV2D = register(
    "depthwise_conv2d", _conv2d_fwd, _conv2d_vjp, legacy_name="Conv2dBackward",
    saves_output=False,
    examples=[([(1, 2, 5, 5), (4, 1, 3, 3)], {"padding": (1, 1, 1, 1), "groups": 2})])


# ====================================================================== conv2d_transpose
def _conv2d_transpose_fwd(x, w, stride=(1, 1), padding=(0, 0, 0, 0), dilation=(1, 1), groups=1,
                          out_hw=None):
    """The adjoint of conv2d in its input: ``w`` is [C_in, M/groups, KH, KW]; ``out_hw`` the
    output's height and width (default: the smallest, no output padding)."""
    n, cin, h, wd = x.shape
    _, mg, kh, kw = w.shape
    g = groups
    cig = cin // g
    sh, sw = stride
    dh, dw = dilation
    pt, pb, pl, pr = padding
    full_h = (h - 1) * sh + dh * (kh - 1) + 1
    full_w = (wd - 1) * sw + dw * (kw - 1) + 1
    if out_hw is None:
        out_hw = (full_h - pt - pb, full_w - pl - pr)
    oh, ow = out_hw
    _check_out(oh, ow, "conv2d_transpose")
    if _as_convolution(x, w, stride, dilation, groups, padding, (oh, ow), (full_h, full_w)):
        # stride 1: the adjoint is a convolution of x with the filter turned half a turn,
        # its two channel axes swapped, padded by k - 1 - p
        flipped = np.ascontiguousarray(np.swapaxes(w, 0, 1)[:, :, ::-1, ::-1])
        return _conv2d_fwd(x, flipped, padding=(kh - 1 - pt, kh - 1 - pb, kw - 1 - pl,
                                                kw - 1 - pr))
    wt = np.swapaxes(w.reshape(g, cig, mg * kh * kw), -1, -2)   # (G, MG*KH*KW, CIG), a view
    xm = x.reshape(n, g, cig, h * wd)
    hp, wp = max(full_h, oh + pt + pb), max(full_w, ow + pl + pr)
    outp = np.zeros((n, g, mg, hp, wp), np.result_type(x, w))
    chunks = sample_chunks(n, g * mg * kh * kw * h * wd * outp.itemsize)
    for a, b in chunks or [(0, n)]:
        cols = _gemm(wt, xm[a:b], blas=chunks is not None,   # (n, G, MG*KH*KW, H*W)
                     trans_a=True, own_buffer=kh * kw * sh * sw * dh * dw > 1 or any(padding))
        cols = cols.reshape(b - a, g, mg, kh, kw, h, wd)
        part = outp[a:b]
        for i in range(kh):                                 # col2im: kernel offsets in order
            for j in range(kw):
                part[:, :, :, i * dh:i * dh + sh * (h - 1) + 1:sh,
                     j * dw:j * dw + sw * (wd - 1) + 1:sw] += cols[:, :, :, i, j]
    out = outp.reshape(n, g * mg, hp, wp)[:, :, pt:pt + oh, pl:pl + ow]
    return np.ascontiguousarray(out)


#: Past this many bytes of column matrices for the whole batch, a stride-1 transposed
#: convolution (conv2d's input gradient) runs as a convolution instead of a product and col2im:
#: the col2im's nine passes then stream from memory. Measured on vgg11's input gradients at
#: batch 32, col2im -> convolution: 14 x 14 x 512: 474 -> 215 ms; 28 x 28 x 512: 1221 -> 695;
#: 56 x 56 x 256: 1325 -> 898; 112 x 112 (128 -> 64 channels): 1069 -> 860. At batch 1 (no
#: layer past it) col2im is the faster: 17 against 24 ms at 112 x 112. Only products that go
#: to BLAS anyway switch: the small ones keep Paddle's order of additions, bit for bit.
DIRECT_DX_BYTES = 32 << 20


def _as_convolution(x, w, stride, dilation, groups, padding, out_hw, full_hw):
    n, cin, h, wd = x.shape
    _, mg, kh, kw = w.shape
    pt, pb, pl, pr = padding
    if (tuple(stride) != (1, 1) or tuple(dilation) != (1, 1) or groups != 1
            or max(pt, pb) > kh - 1 or max(pl, pr) > kw - 1
            or tuple(out_hw) != (full_hw[0] - pt - pb, full_hw[1] - pl - pr)
            or x.dtype != w.dtype or x.dtype.kind != "f"):
        return False
    # (columns past 32 MB: a product far past the chain's limit, so BLAS either way)
    return n * mg * kh * kw * h * wd * x.itemsize > DIRECT_DX_BYTES


CONV2D_TRANSPOSE = register(
    "conv2d_transpose", _conv2d_transpose_fwd, _conv2d_transpose_vjp,
    legacy_name="Conv2dTransposeBackward", saves_output=False,
    examples=[([(1, 2, 3, 3), (2, 3, 3, 3)], {"stride": (2, 2), "padding": (1, 1, 1, 1)}),
              ([(1, 2, 3, 3), (2, 1, 3, 3)],
               {"stride": (2, 2), "padding": (1, 1, 1, 1), "out_hw": (6, 6)}),
              ([(2, 4, 3, 2), (4, 1, 2, 2)], {"groups": 2, "dilation": (2, 1)})])


# ====================================================================== conv2d_grad_filter
def _conv2d_grad_filter_fwd(x, dy, stride=(1, 1), padding=(0, 0, 0, 0), dilation=(1, 1),
                            groups=1, ksize=(1, 1)):
    """The gradient of conv2d in its filter: sum over samples and positions of dy times the
    input's windows, one matrix product (the samples' positions form the summed axis)."""
    n, c, h, wd = x.shape
    _, m, oh, ow = dy.shape
    kh, kw = ksize
    g = groups
    cg, mg = c // g, m // g
    xp = _pad2d(x, padding)
    win = _windows(xp, kh, kw, oh, ow, stride, dilation)   # (N, C, KH, KW, OH, OW)
    k = cg * kh * kw
    if (x.dtype == np.float32 and dy.dtype == np.float32 and _CHAIN_LIMIT_NOW.get() is None
            and n * m * k * oh * ow <= _GENERIC_BT_LIMIT and cpu.cpu_class() == "amd"):
        return _grad_filter_generic(win, dy, g, k, mg).reshape(m, cg, kh, kw)
    if (x.dtype == dy.dtype and x.dtype in (np.float32, np.float64)
            and _CHAIN_LIMIT_NOW.get() is None and cpu.cpu_class() != "amd"):
        dw = _grad_filter_mkl(win, dy, g, k, mg)
        if dw is not None:
            return dw.reshape(m, cg, kh, kw)
    chunks = sample_chunks(n, g * k * oh * ow * x.itemsize)
    dw = None
    # (a batch too large for one column matrix: the chunks' products summed one after the
    # other, much as Paddle's kernel adds each sample's GEMM into the filter gradient)
    for a, b in chunks or [(0, n)]:
        cols, dy2 = _columns_for_filter(win[a:b], dy[a:b], g, k, mg)
        # dW = dy @ cols^T, in the filter's own layout: computing dW^T and transposing it
        # costs a transposed copy as long as the product itself (10 ms for a 4608 x 512 filter)
        part = _gemm(dy2, np.swapaxes(cols, -1, -2), blas=chunks is not None)  # (G, M/G, K)
        dw = part if dw is None else np.add(dw, part, out=dw)
    return dw.reshape(m, cg, kh, kw)


def _grad_filter_mkl(win, dy, g, k, mg):
    """The filter gradient as Paddle computes it on Intel: per sample and group, ``dW += dy @
    cols^T`` by MKL's ``cblas_sgemm`` on one thread (beta = 1, the columns passed transposed),
    the samples added in order; None without MKL or where this process stands for another CPU
    class. Measured on Intel AVX-512 against real 3.3.1: 3x3 filters of 16x3x32x32, 4x16x16x16
    and 2x3x8x8 inputs, every value equal (the one-chain product gave 412/432, 4157/4608, 82/108
    others)."""
    from .. import mkl
    from .linalg import mklml_small_nt
    from .nn import _mkl_is_this_cpu

    if not _mkl_is_this_cpu() or not mkl.load():
        return None
    n, positions = win.shape[0], dy.shape[2] * dy.shape[3]
    dw = np.zeros((g, mg, k), dy.dtype)
    for i in range(n):
        cols = np.ascontiguousarray(win[i]).reshape(g, k, positions)
        dys = np.ascontiguousarray(dy[i]).reshape(g, mg, positions)
        for j in range(g):
            if dw.dtype == np.float64:  # DGEMM, beta 1 (float64 conv3d/conv3d_transpose)
                r = mkl.gemm_one_thread(dys[j], cols[j], trans_b=True, c=dw[j])
                if r is None:
                    return None
                dw[j] = r
                continue
            small = mklml_small_nt(dys[j], cols[j])
            if small is not None:
                dw[j] += small
            elif mkl.sgemm_one_thread(dys[j], cols[j].T, into=dw[j]) is None:
                return None
    return dw


def _grad_filter_generic(win, dy, g, k, mg):
    """The filter gradient as Paddle computes it on AMD: per sample and group, ``dW += dy @
    cols^T`` by its MKL's generic kernels (``_mkl_generic.sgemm_bt_partials``: dy's rows read
    from where they lie in dy), the samples added in order; a few samples at a time."""
    n, positions = win.shape[0], dy.shape[2] * dy.shape[3]
    dw = np.zeros((g, mg, k), np.float32)
    step = max(1, (1 << 22) // max(g * mg * k * positions, 1))   # (products: 16 MB at most)
    for s in range(0, n, step):
        e = min(n, s + step)
        cols = win[s:e].reshape(e - s, g, k, positions)
        dys = dy[s:e].reshape(e - s, g, mg, positions)
        offs = (np.arange(s * g, e * g).reshape(e - s, g) * (mg * positions)) % 4
        regions = _mkl_generic.sgemm_bt_partials(dys, cols, offs)
        for i in range(e - s):
            for (rs, cs), parts in regions:
                for part in parts:
                    dw[:, rs, cs] = np.add(part[i], dw[:, rs, cs], dtype=np.float32)
    return dw


def _columns_for_filter(win, dy, g, k, mg):
    """The column matrix (G, K, samples x positions) and dy (G, M/G, samples x positions)."""
    n, positions = win.shape[0], dy.shape[2] * dy.shape[3]
    if n == 1:
        return win.reshape(g, k, positions), dy.reshape(g, mg, positions)
    cols = win.transpose(1, 2, 3, 0, 4, 5).reshape(g, k, n * positions)
    dy2 = dy.reshape(n, g, mg, positions).transpose(1, 2, 0, 3).reshape(g, mg, n * positions)
    return cols, dy2


CONV2D_GRAD_FILTER = register(
    "conv2d_grad_filter", _conv2d_grad_filter_fwd, _conv2d_grad_filter_vjp,
    legacy_name="Conv2dGradFilterBackward", saves_output=False,
    examples=[([(1, 2, 5, 5), (1, 3, 5, 5)], {"padding": (1, 1, 1, 1), "ksize": (3, 3)}),
              ([(2, 4, 5, 6), (2, 4, 3, 3)],
               {"stride": (2, 1), "padding": (0, 1, 1, 0), "dilation": (1, 2), "groups": 2,
                "ksize": (2, 3)})])


def conv2d(x, w, stride=(1, 1), padding=(0, 0, 0, 0), dilation=(1, 1), groups=1,
           depthwise=False):
    """2-D convolution (cross-correlation) of ``x`` [N, C, H, W] with ``w`` [M, C/groups, KH, KW];
    ``padding`` is (top, bottom, left, right); ``depthwise``: recorded as Paddle's
    depthwise_conv2d op."""
    return apply(DEPTHWISE_CONV2D if depthwise else CONV2D, (x, w),
                 geom_attrs(stride, padding, dilation, groups))


def conv2d_transpose(x, w, stride=(1, 1), padding=(0, 0, 0, 0), dilation=(1, 1), groups=1,
                     out_hw=None):
    """Transposed convolution of ``x`` [N, C, H, W] with ``w`` [C, M/groups, KH, KW]."""
    attrs = geom_attrs(stride, padding, dilation, groups)
    if out_hw is not None:
        attrs["out_hw"] = (int(out_hw[0]), int(out_hw[1]))
    return apply(CONV2D_TRANSPOSE, (x, w), attrs)


def conv2d_grad_filter(x, dy, stride=(1, 1), padding=(0, 0, 0, 0), dilation=(1, 1), groups=1,
                       ksize=(1, 1)):
    attrs = geom_attrs(stride, padding, dilation, groups)
    attrs["ksize"] = (int(ksize[0]), int(ksize[1]))
    return apply(CONV2D_GRAD_FILTER, (x, dy), attrs)


# ====================================================================== pooling
# (the windows' helpers, the three ops' values and their registration: pooling.py, shared
# with pool3d)
class _Pool(Windows):
    """The windows of one pool2d call: offsets (dh, dw), strided views of the padded input when
    every window has the kernel's size, gathers otherwise (adaptive windows of unequal sizes)."""

    def __init__(self, in_hw, a):
        h, w = in_hw
        kh, kw = a["ksize"]
        sh, sw = a.get("stride", (1, 1))
        pt, pb, pl, pr = a.get("padding", (0, 0, 0, 0))
        ceil = a.get("ceil_mode", False)
        adaptive = a.get("adaptive", False)
        self.in_hw = (h, w)
        if adaptive:
            oh, ow = a["ksize"]  # for an adaptive pool the "kernel" is the output size
            self.regular = h % oh == 0 and w % ow == 0
            if self.regular:  # equal windows: a plain pool with kernel = stride = n / out
                kh, kw, sh, sw = h // oh, w // ow, h // oh, w // ow
                adaptive = False
        else:
            oh = ow = None
            self.regular = True
        self.oh, hs, he, hfull = _axis_windows(h, kh, sh, pt, pb, ceil, adaptive, oh)
        self.ow, ws, we, wfull = _axis_windows(w, kw, sw, pl, pr, ceil, adaptive, ow)
        _check_out(self.oh, self.ow, "pool2d")
        self.out = (self.oh, self.ow)
        self.rows, self.cols = (hs, he), (ws, we)
        if self.regular:
            self.k = (kh, kw)
            self.s = (sh, sw)
            self.pads = (pt, pb, pl, pr) if not a.get("adaptive", False) else (0, 0, 0, 0)
            self.min_hw = ((self.oh - 1) * sh + kh, (self.ow - 1) * sw + kw)
        else:
            self.k = (int((he - hs).max()), int((we - ws).max()))
        self.exclusive_size = np.outer(he - hs, we - ws)
        self.full_size = np.outer(hfull, wfull)

    def bounds(self):
        return [self.rows, self.cols]

    def offsets(self):
        kh, kw = self.k
        for i in range(kh):
            for j in range(kw):
                yield i * kw + j, (i, j)

    def prepare(self, x, fill):
        return _pad2d(x, self.pads, fill, self.min_hw) if self.regular else x

    def slab(self, xp, offs, fill):
        """The values at kernel offset (i, j) of every window: (N, C, OH, OW)."""
        i, j = offs
        if self.regular:
            sh, sw = self.s
            return xp[:, :, i:i + sh * (self.oh - 1) + 1:sh, j:j + sw * (self.ow - 1) + 1:sw]
        (hs, he), (ws, we) = self.rows, self.cols
        r, c = hs + i, ws + j
        valid = (r < he)[:, None] & (c < we)[None, :]
        h, w = self.in_hw
        v = xp[:, :, np.minimum(r, h - 1)[:, None], np.minimum(c, w - 1)[None, :]]
        return np.where(valid, v, np.asarray(fill, xp.dtype))

    def zeros_like_input(self, shape, dtype):
        n, c = shape[:2]
        if self.regular:
            h, w = self.in_hw
            pt, pb, pl, pr = self.pads
            hp = max(h + pt + pb, self.min_hw[0])
            wp = max(w + pl + pr, self.min_hw[1])
            return np.zeros((n, c, hp, wp), dtype)
        return np.zeros(shape, dtype)

    def scatter_add(self, dxp, offs, vals):
        i, j = offs
        if self.regular:
            sh, sw = self.s
            dxp[:, :, i:i + sh * (self.oh - 1) + 1:sh, j:j + sw * (self.ow - 1) + 1:sw] += vals
            return
        (hs, he), (ws, we) = self.rows, self.cols
        r, c = hs + i, ws + j
        valid = (r < he)[:, None] & (c < we)[None, :]
        h, w = self.in_hw
        vals = np.where(valid, vals, np.zeros((), vals.dtype))
        rr = np.broadcast_to(np.minimum(r, h - 1)[:, None], valid.shape)
        cc = np.broadcast_to(np.minimum(c, w - 1)[None, :], valid.shape)
        np.add.at(dxp, (slice(None), slice(None), rr, cc), vals)

    def crop(self, dxp):
        if not self.regular:
            return dxp
        h, w = self.in_hw
        pt, _, pl, _ = self.pads
        return np.ascontiguousarray(dxp[:, :, pt:pt + h, pl:pl + w])


#: Pooling works plane by plane (each sample's channel alone), so a large input is pooled a
#: block of planes at a time, about this many bytes of input each, and each block's dozen passes
#: over its windows run in cache instead of streaming from memory. vgg11 at batch 32, the max
#: pools' gradients: 224 x 224 x 64: 911 -> 460 ms; 112 x 112 x 128: 366 -> 208; 56 x 56 x 256:
#: 206 -> 109 (blocks of 256 KiB and 4 MiB were slower). Every plane's values are the same.
TILE_BYTES = 1 << 20


def _by_planes(kernel, x, dy, attrs):
    """``kernel(x, dy, **attrs)`` (``dy`` None: ``kernel(x, **attrs)``) a block of planes at a
    time when ``x`` is past two tiles; the results stacked back into (N, C, ...)."""
    n, c, h, w = x.shape
    plane = h * w * x.itemsize
    if n * c < 2 or n * c * plane <= 2 * TILE_BYTES:
        return None
    step = max(1, TILE_BYTES // max(plane, 1))
    xr = x.reshape(n * c, 1, h, w)
    dyr = None if dy is None else dy.reshape((n * c, 1) + dy.shape[2:])
    out = None
    for a in range(0, n * c, step):
        part = kernel(xr[a:a + step], **attrs) if dy is None else \
            kernel(xr[a:a + step], dyr[a:a + step], **attrs)
        if out is None:
            out = np.empty((n * c,) + part.shape[1:], part.dtype)
        out[a:a + step] = part
    return out.reshape((n, c) + out.shape[2:])


_pool2d_planes = values_by(_Pool)
_pool2d_grad_planes = grad_by(_Pool)


def _pool2d_fwd(x, **attrs):
    tiled = _by_planes(_pool2d_planes, x, None, attrs)
    return _pool2d_planes(x, **attrs) if tiled is None else tiled


def _pool2d_grad_fwd(x, dy, **attrs):
    tiled = _by_planes(_pool2d_grad_planes, x, dy, attrs)
    return _pool2d_grad_planes(x, dy, **attrs) if tiled is None else tiled


_POOL_EXAMPLES = [
    {"ksize": (3, 3), "stride": (2, 2), "padding": (1, 1, 1, 1)},
    {"ksize": (3, 3), "stride": (2, 2), "ceil_mode": True},
    {"ksize": (2, 3), "stride": (1, 2), "padding": (0, 1, 1, 0), "pooling_type": "avg"},
    {"ksize": (3, 3), "stride": (2, 2), "padding": (1, 1, 1, 1), "pooling_type": "avg",
     "exclusive": False, "ceil_mode": True},
    {"ksize": (3, 3), "adaptive": True},
    {"ksize": (3, 2), "adaptive": True, "pooling_type": "avg"},
]
_POOL_IN = [(1, 2, 5, 5), (1, 1, 6, 6), (2, 1, 4, 5), (1, 1, 6, 6), (1, 2, 5, 5), (1, 1, 5, 4)]

POOL2D, POOL2D_GRAD, POOL2D_DOUBLE_GRAD = register_pool_ops(
    "pool2d", _Pool, _pool2d_fwd, _pool2d_grad_fwd, double_grad_by(_Pool), _POOL_IN,
    _POOL_EXAMPLES, saves_output=False)


def pool_attrs(ksize, stride=(1, 1), padding=(0, 0, 0, 0), ceil_mode=False, exclusive=True,
               adaptive=False, pooling_type="max"):
    return {"ksize": (int(ksize[0]), int(ksize[1])), "stride": (int(stride[0]), int(stride[1])),
            "padding": tuple(int(v) for v in padding), "ceil_mode": bool(ceil_mode),
            "exclusive": bool(exclusive), "adaptive": bool(adaptive),
            "pooling_type": pooling_type}


pool2d, pool2d_grad, pool2d_double_grad = appliers(POOL2D, POOL2D_GRAD, POOL2D_DOUBLE_GRAD)
pool2d.__doc__ = """Max or average pooling of ``x`` [N, C, H, W] (``attrs`` from ``pool_attrs``;
    an adaptive pool's ``ksize`` is its output size)."""


def max_pool2d_mask(x, attrs):
    """The flat index (h * W + w, int32) of each window's maximum in the unpadded input, as
    Paddle's max_pool2d_with_index returns it (no gradient)."""
    p = _Pool(x.shape[2:], attrs)
    idx = p.argmax(x)
    kh, kw = p.k
    di, dj = idx // kw, idx % kw
    h, w = p.in_hw
    if p.regular:
        sh, sw = p.s
        pt, _, pl, _ = p.pads
        r = (np.arange(p.oh) * sh)[:, None] + di - pt
        c = (np.arange(p.ow) * sw)[None, :] + dj - pl
    else:
        r = p.rows[0][:, None] + di
        c = p.cols[0][None, :] + dj
    return (r * w + c).astype(np.int32)


# ====================================================================== normalisation
def _bshape(ndim, axis, size):
    """The shape that broadcasts a per-channel vector along ``axis`` of an ndim tensor."""
    s = [1] * ndim
    s[axis] = size
    return tuple(s)


def _moments(x, axes):
    """Mean and biased variance over ``axes`` (kept), as sums divided by the count."""
    count = 1
    for a in axes:
        count *= x.shape[a]
    c = x.dtype.type(count)
    mean = np.sum(x, axis=axes, keepdims=True, dtype=x.dtype) / c
    xc = x - mean
    var = np.sum(xc * xc, axis=axes, keepdims=True, dtype=x.dtype) / c
    return mean, var


def _eigen_redux_sums(rows, offsets):
    """Eigen's vectorised ``.sum()`` of each row of ``rows`` (R, S) (Eigen core's linear
    vectorised redux, AVX packets of 32 bytes, no FMA): the row's first elements up to a 32-byte
    boundary (``offsets`` are the rows' element offsets in their buffer, the buffer itself
    aligned) are set aside; two packet accumulators take alternate packets, then are added, then
    one leftover packet; the packet is folded ((a0+a4)+(a2+a6)) + ((a1+a5)+(a3+a7)); then the set
    aside head and the tail are added one by one. Measured against Paddle 3.3.1's batch_norm."""
    from .reduce import _predux, _seq

    r, size = rows.shape
    p = 32 // rows.dtype.itemsize
    out = np.empty(r, rows.dtype)
    starts = np.minimum((p - offsets % p) % p, size)
    for a in np.unique(starts):
        sel = np.nonzero(starts == a)[0]
        x = rows[sel]
        aligned = ((size - a) // p) * p
        aligned2 = ((size - a) // (2 * p)) * (2 * p)
        if aligned == 0:
            res = x[:, 0].copy()
            for i in range(1, size):
                res = res + x[:, i]
            out[sel] = res
            continue
        acc0 = x[:, a:a + p].copy()
        if aligned > p:
            acc1 = x[:, a + p:a + 2 * p].copy()
            body = x[:, a + 2 * p:a + aligned2]
            if body.shape[1]:
                blocks = body.reshape(len(sel), -1, 2, p).transpose(1, 2, 0, 3)  # k, 2, R, p
                acc0 = _seq(np.concatenate([acc0[None], blocks[:, 0]]), np.add)
                acc1 = _seq(np.concatenate([acc1[None], blocks[:, 1]]), np.add)
            acc0 = acc0 + acc1
            if aligned > aligned2:
                acc0 = acc0 + x[:, a + aligned2:a + aligned]
        res = _predux(acc0.T, np.add)
        for i in range(a):
            res = res + x[:, i]
        for i in range(a + aligned, size):
            res = res + x[:, i]
        out[sel] = res
    return out


def _bn_moments(x, axis):
    """The batch's mean and biased variance as Paddle's CPU batch_norm kernel sums them:
    NCHW, per (sample, channel) an Eigen vectorised sum over the positions, the samples added
    in order, divided by the count; channels last (and 2-D input) a running sum over the
    positions in order. Returned with the kept axes of size 1."""
    dt = x.dtype.type
    shp = _bshape(x.ndim, axis, x.shape[axis])
    if axis == 1 and x.ndim > 2:
        n, c = x.shape[:2]
        cols = np.ascontiguousarray(x).reshape(n * c, -1)
        count = dt(cols.shape[1] * n)
        offsets = np.arange(n * c) * cols.shape[1]
        sums = _eigen_redux_sums(cols, offsets).reshape(n, c)
        mean = np.zeros(c, x.dtype)
        for i in range(n):
            mean = mean + sums[i]
        mean = mean / count
        dev = cols - np.tile(mean, n)[:, None]
        # (x - mean).squaredNorm(): an expression, which Eigen sums from its start (no head)
        sq = _eigen_redux_sums(dev * dev, np.zeros(n * c, np.int64)).reshape(n, c)
        var = np.zeros(c, x.dtype)
        for i in range(n):
            var = var + sq[i]
        var = var / count
        return mean.reshape(shp), var.reshape(shp)
    from .reduce import _seq

    xl = np.moveaxis(x, axis, -1).reshape(-1, x.shape[axis])      # positions, C
    count = dt(xl.shape[0])
    mean = _seq(np.concatenate([np.zeros((1, xl.shape[1]), x.dtype), xl]), np.add) / count
    dev = xl - mean
    var = _seq(np.concatenate([np.zeros((1, xl.shape[1]), x.dtype), dev * dev]), np.add) / count
    return mean.reshape(shp), var.reshape(shp)


def _bn_axes(ndim, axis):
    return tuple(i for i in range(ndim) if i != axis)


def _eigen_sqrt(v):
    """The per-channel sqrt of the CPU kernel, an Eigen expression: the fast packet sqrt on each
    run of 8 channels, exact on the rest (``_kernels.sqrt``; measured on AMD EPYC: BatchNorm2D of
    8 channels equal to real Paddle 3.3.1, np.sqrt differed in 112 of 512 outputs)."""
    from . import _kernels as K

    flat = np.ascontiguousarray(v).reshape(-1)
    return K.sqrt(flat).reshape(v.shape) if v.dtype == np.float32 else np.sqrt(v)


def _batch_norm_fwd(x, scale, bias, mean, var, epsilon=1e-5, training=True, axis=1):
    """Paddle's batch_norm: (y, the batch's mean, the batch's biased variance) in training,
    (y, mean, var) with the given statistics otherwise. y = x * (scale / sqrt(var + eps)) +
    (bias - mean * scale / sqrt(var + eps)), as the CPU kernel regroups it."""
    axes = _bn_axes(x.ndim, axis)
    shp = _bshape(x.ndim, axis, x.shape[axis])
    # epsilon is the op's float attribute: float64 adds its float32 value (1e-5 as 9.99999974738e-06)
    one, eps = x.dtype.type(1), x.dtype.type(np.float32(epsilon) if x.dtype == np.float64
                                             else epsilon)
    if training:
        if x.dtype.kind == "f" and x.size:
            m, v = _bn_moments(x, axis % x.ndim)
        else:
            m, v = _moments(x, axes)
        inv = _eigen_sqrt(one / (v + eps))        # the kernel's (var + eps).inverse().sqrt()
    else:
        m, v = mean.reshape(shp).astype(x.dtype), var.reshape(shp).astype(x.dtype)
        inv = one / _eigen_sqrt(v + eps)          # (var + eps).sqrt().inverse()
    if training and x.size == x.shape[axis]:
        # one value per channel: Paddle's kernel returns early with y = x (the statistics
        # untouched: the dialect skips the running update)
        return x.copy(), m.reshape(-1), v.reshape(-1)
    new_scale = inv * scale.reshape(shp)
    new_bias = bias.reshape(shp) - (m * inv) * scale.reshape(shp)
    y = x * new_scale + new_bias
    return y, m.reshape(-1), v.reshape(-1)


def _normalized(x, axes, eps, mean=None, var=None):
    """(x - mean) / sqrt(var + eps) written with Tensor ops (differentiable again); the mean
    and variance over ``axes`` unless given (constants)."""
    from .math import multiply, rsqrt, scale, subtract
    from .reduce import mean as rmean

    if mean is None:
        mean = rmean(x, axes, keepdim=True)
        xc = subtract(x, mean)
        var = rmean(multiply(xc, xc), axes, keepdim=True)
    else:
        xc = subtract(x, mean)
    inv = rsqrt(scale(var, 1.0, float(eps)))
    return multiply(xc, inv), inv


def _norm_input_grad(g_scaled, xhat, inv, axes):
    """dx of y = xhat * s for batch statistics: inv * (gs - mean(gs) - xhat * mean(gs * xhat))."""
    from .math import multiply, subtract
    from .reduce import mean as rmean

    m1 = rmean(g_scaled, axes, keepdim=True)
    m2 = rmean(multiply(g_scaled, xhat), axes, keepdim=True)
    return multiply(inv, subtract(subtract(g_scaled, m1), multiply(xhat, m2)))


def _bn_grad_kernel(x, dy, scale, epsilon):
    """Paddle's CPU batch_norm_grad for float32 NCHW batch statistics
    (``phi/kernels/cpu/batch_norm_grad_kernel.cc``), as Eigen evaluates it: per (sample,
    channel) plane Eigen's vectorised sums (dy's plane from its 32-byte boundary, the
    expression ``(x - mean) * inv_std * dy`` from its start), the samples added in order;
    inv_std the forward's ``(var + eps).inverse().sqrt()``; dx = (scale * inv_std / (N*S)) *
    (dy * N * S - sum dy - (x - mean) * sum(...) * inv_std), each operation rounded to float32."""
    n, c = x.shape[:2]
    s = x[0, 0].size
    f = x.dtype.type
    if n * s == 1:   # the kernel copies dy to dx and leaves the zeroed scale/bias gradients
        return dy.copy(), np.zeros(c, f), np.zeros(c, f)
    mean, var = _bn_moments(x, 1)
    mean, var = mean.reshape(c), var.reshape(c)
    inv = _eigen_sqrt(f(1) / (var + f(np.float32(epsilon))))
    xs, dys, dy_sum, dot_sum = _bn_grad_sums(x, dy, mean, inv)
    coeff = f(n * s)
    k = (scale.astype(f) * inv) / coeff
    body = (dys * f(n)) * f(s) - dy_sum[:, None]
    body = body - ((xs - mean[:, None]) * dot_sum[:, None]) * inv[:, None]
    dx = (k[:, None] * body).reshape(x.shape)
    return dx, dot_sum, dy_sum


def _bn_grad_sums(x, dy, mean, inv):
    """The batch_norm_grad kernel's Eigen sums per channel: of dy and of ``(x - mean) * inv * dy``
    (each plane's sum from its start, the samples then added in order); with x and dy as
    (N, C, S) arrays."""
    n, c = x.shape[:2]
    s = x[0, 0].size
    f = x.dtype.type
    xs = np.ascontiguousarray(x).reshape(n, c, s)
    dys = np.ascontiguousarray(dy).reshape(n, c, s)
    planes = n * c
    sums = _eigen_redux_sums(dys.reshape(planes, s), np.arange(planes) * s).reshape(n, c)
    expr = ((xs - mean[:, None]) * inv[:, None]) * dys
    dots = _eigen_redux_sums(expr.reshape(planes, s), np.zeros(planes, np.int64)).reshape(n, c)
    dy_sum = np.zeros(c, f)
    dot_sum = np.zeros(c, f)
    for i in range(n):
        dy_sum = dy_sum + sums[i]
        dot_sum = dot_sum + dots[i]
    return xs, dys, dy_sum, dot_sum


def _bn_grad_kernel_last(x, dy, scale, epsilon, mean=None, var=None):
    """The same kernel for channels last (NLC, NHWC, NDHWC): x and dy seen as (positions, C),
    each channel's sums of dy and of ``(x - mean) * inv_std * dy`` run position after position
    from zero (a C-wide Eigen column added per step), dx as the NCHW case. With ``mean`` and
    ``var`` given: the global-statistics branch (inv_std ``(var + eps).sqrt().inverse()``,
    dx = (scale * inv_std) * dy). Measured against real 3.3.1 here: BatchNorm2D(data_format=
    'NHWC') and BatchNorm1D('NLC') scale/bias gradients 1-2 ulp off before (the NCHW path's
    per-plane sums)."""
    from .reduce import _seq

    c = x.shape[-1]
    f = x.dtype.type
    xl = np.ascontiguousarray(x).reshape(-1, c)
    dyl = np.ascontiguousarray(dy).reshape(-1, c)
    zero = np.zeros((1, c), f)
    if mean is None:
        m, v = _bn_moments(x, x.ndim - 1)
        m = m.reshape(c)
        inv = _eigen_sqrt(f(1) / (v.reshape(c) + f(np.float32(epsilon))))
    else:
        m = mean.reshape(c).astype(f)
        inv = f(1) / _eigen_sqrt(var.reshape(c).astype(f) + f(np.float32(epsilon)))
    dy_sum = _seq(np.concatenate([zero, dyl]), np.add)
    dot_sum = _seq(np.concatenate([zero, ((xl - m) * inv) * dyl]), np.add)
    if mean is not None:
        return ((scale.astype(f) * inv) * dyl).reshape(x.shape), dot_sum, dy_sum
    n = x.shape[0]
    s = xl.shape[0] // n
    if n * s == 1:   # the kernel copies dy to dx and leaves the zeroed scale/bias gradients
        return dy.copy(), np.zeros(c, f), np.zeros(c, f)
    k = (scale.astype(f) * inv) / f(n * s)
    body = (dyl * f(n)) * f(s) - dy_sum
    body = body - ((xl - m) * dot_sum) * inv
    return (k * body).reshape(x.shape), dot_sum, dy_sum


def _bn_grad_kernel_global(x, dy, scale, mean, var, epsilon):
    """The same kernel with the given (running) statistics, as ``F.batch_norm(training=False)``
    runs it (use_global_stats): inv_std = ``(var + eps).sqrt().inverse()``, the same Eigen sums
    for the scale and bias gradients, dx = (scale * inv_std) * dy. Measured against real 3.3.1
    here (sweep of 24 NCHW and 2-D shapes, eval mode: dx, dscale, dbias 0 of 24 equal before)."""
    c = x.shape[1]
    f = x.dtype.type
    mean = mean.reshape(c).astype(f)
    inv = f(1) / _eigen_sqrt(var.reshape(c).astype(f) + f(np.float32(epsilon)))
    xs, dys, dy_sum, dot_sum = _bn_grad_sums(x, dy, mean, inv)
    dx = ((scale.astype(f) * inv)[:, None] * dys).reshape(x.shape)
    return dx, dot_sum, dy_sum


@exact_first_order
def _batch_norm_vjp(n, g, _gm=None, _gv=None):
    from .math import multiply
    from .reduce import sum as rsum
    from .shape import reshape
    from ..grad_mode import is_grad_enabled

    x, scale_t, bias_t, mean_t, var_t = n.inputs
    a = n.attrs
    axis = a.get("axis", 1)
    ndim = x.data.ndim
    kernel_dtype = (x.data.dtype in (np.float32, np.float64) and g.data.dtype == x.data.dtype
                    and scale_t.data.dtype == x.data.dtype)
    if (not is_grad_enabled() and ndim > 2 and axis % ndim == ndim - 1 and x.data.size
            and kernel_dtype
            and (a.get("training", True) or mean_t.data.size == x.data.shape[-1])):
        # channels last, first order: the kernel's NHWC arithmetic
        from ._util import const

        stats = () if a.get("training", True) else (mean_t.data, var_t.data)
        dx, dscale, dbias = _bn_grad_kernel_last(x.data, g.data, scale_t.data,
                                                 a.get("epsilon", 1e-5), *stats)
        return (const(g, dx) if _needs(n, 0) else None, const(g, dscale) if _needs(n, 1) else None,
                const(g, dbias) if _needs(n, 2) else None, None, None)
    if (not is_grad_enabled() and a.get("training", True) and axis == 1 and ndim >= 2
            and kernel_dtype and x.data.size):
        # first order (no create_graph): the kernel's own arithmetic, bit for bit
        from ._util import const

        dx, dscale, dbias = _bn_grad_kernel(x.data, g.data, scale_t.data, a.get("epsilon", 1e-5))
        return (const(g, dx) if _needs(n, 0) else None, const(g, dscale) if _needs(n, 1) else None,
                const(g, dbias) if _needs(n, 2) else None, None, None)
    if (not is_grad_enabled() and not a.get("training", True) and axis == 1 and ndim >= 2
            and kernel_dtype and x.data.size and mean_t.data.size == x.data.shape[1]):
        from ._util import const

        dx, dscale, dbias = _bn_grad_kernel_global(x.data, g.data, scale_t.data, mean_t.data,
                                                   var_t.data, a.get("epsilon", 1e-5))
        return (const(g, dx) if _needs(n, 0) else None, const(g, dscale) if _needs(n, 1) else None,
                const(g, dbias) if _needs(n, 2) else None, None, None)
    axes = _bn_axes(ndim, axis)
    c = x.data.shape[axis]
    shp = _bshape(ndim, axis, c)
    if a.get("training", True):
        xhat, inv = _normalized(x, axes, a.get("epsilon", 1e-5))
    else:
        xhat, inv = _normalized(x, axes, a.get("epsilon", 1e-5), reshape(mean_t, shp),
                                reshape(var_t, shp))
    dx = dscale = dbias = None
    if _needs(n, 0):
        gs = multiply(g, reshape(scale_t, shp))
        dx = _norm_input_grad(gs, xhat, inv, axes) if a.get("training", True) \
            else multiply(gs, inv)
    if _needs(n, 1):
        dscale = reshape(rsum(multiply(g, xhat), axes), (c,))
    if _needs(n, 2):
        dbias = reshape(rsum(g, axes), (c,))
    return dx, dscale, dbias, None, None


_BN_STATS = (np.array([0.1, -0.2]), np.array([0.8, 1.3]))
BATCH_NORM = register(
    "batch_norm", _batch_norm_fwd, _batch_norm_vjp, n_outputs=3, diff_inputs=(0, 1, 2),
    diff_outputs=(0,), legacy_name="BatchNormBackward", domain="distinct",
    examples=[([(3, 2, 2), (2,), (2,), *_BN_STATS], {}),
              ([(2, 2, 2, 1), (2,), (2,), *_BN_STATS], {"training": False, "epsilon": 0.01}),
              ([(4, 2), (2,), (2,), *_BN_STATS], {"axis": 1})])


def batch_norm(x, scale, bias, mean, var, epsilon=1e-5, training=True, axis=1):
    """(y, batch mean, batch variance); only y carries gradient."""
    return apply(BATCH_NORM, (x, scale, bias, mean, var),
                 {"epsilon": float(epsilon), "training": bool(training), "axis": int(axis)})


def _avx_row_sums(rows):
    """Each row's sum as Paddle's AVX layer-norm kernel adds it (``jit`` LayerNorm, 8 float
    lanes): the row's 8-wide blocks added in order into the lanes, the last ``right % 8``
    values into the top lanes, the lanes folded (l0 + l4) ... then ((s0 + s1) + (s2 + s3))."""
    n_rows, right = rows.shape
    rest = right % 8
    end = right - rest
    if end:
        acc = np.add.reduce(rows[:, :end].reshape(n_rows, end // 8, 8), axis=1)
    else:
        acc = np.zeros((n_rows, 8), np.float32)
    if rest:
        acc[:, 8 - rest:] += rows[:, end:]
    s = acc[:, :4] + acc[:, 4:]
    return (s[:, 0] + s[:, 1]) + (s[:, 2] + s[:, 3])


def _layer_norm_stats(x, begin_norm_axis):
    """The forward's mean and variance of each row (left,) for float32 and float64, or None
    (other dtypes: ``_moments``)."""
    right = int(np.prod(x.shape[begin_norm_axis:], dtype=np.int64))
    if x.dtype == np.float32 and right >= 8 and x.size:
        # Paddle's CPU kernel for float32 rows of 8 or more (its AVX jit kernel, on every x86
        # CPU with AVX): mean and variance as lane sums times 1/right; measured equal to
        # Paddle 3.3.1 on 6 shapes (rows 8 to 100).
        rows = np.ascontiguousarray(x).reshape(-1, right)
        inv_n = np.float32(1) / np.float32(right)
        m = _avx_row_sums(rows) * inv_n
        d = rows - m[:, None]
        return m, _avx_row_sums(d * d) * inv_n
    if x.dtype in (np.float32, np.float64) and x.size and right:
        # the reference kernel (float64, shorter float32 rows): each row added in order and
        # divided by the count, then the squares of x - mean the same way (float64 rows of 5,
        # 16, 100: every value equal to real Paddle 3.3.1; numpy's pairwise sums were not)
        from .reduce import _seq

        rows = np.ascontiguousarray(x).reshape(-1, right)
        c = x.dtype.type(right)
        m = _seq(rows.T, np.add) / c
        d = rows - m[:, None]
        return m, _seq((d * d).T, np.add) / c
    return None


def _layer_norm_eps(epsilon, dtype):
    """The epsilon attribute as the kernel has it: a float32 (so float64 adds 1e-5 rounded to
    float32, 1.0000000000000001e-05 -> 9.999999747378752e-06)."""
    return dtype.type(np.float32(epsilon))


def _layer_norm_fwd(x, scale, bias, epsilon=1e-5, begin_norm_axis=1, has_bias=True):
    tail = x.shape[begin_norm_axis:]
    stats = _layer_norm_stats(x, begin_norm_axis)
    if stats is not None:   # then (x - mean) / sqrt(var + eps)
        m, v = stats
        rows = np.ascontiguousarray(x).reshape(m.size, -1)
        d = rows - m[:, None]
        xhat = (d / np.sqrt(v[:, None] + _layer_norm_eps(epsilon, x.dtype))).reshape(x.shape)
    else:   # (other dtypes: sums divided by the count)
        m, v = _moments(x, tuple(range(begin_norm_axis, x.ndim)))
        xhat = (x - m) / np.sqrt(v + x.dtype.type(epsilon))
    out = xhat * scale.reshape(tail)
    # without a bias the kernel adds none: a -0. (x equal to its mean, a negative scale) stays
    # -0. (real 3.3.1: [[-0.], [-0.]]; with bias 0 it prints 0.)
    return out + bias.reshape(tail) if has_bias else out


def _layer_norm_kernel_grads(n, g):
    """First order (no create_graph), float32/float64: Paddle's layer_norm_grad kernel bit for
    bit (``_layer_norm_grad``), or None."""
    from ..grad_mode import is_grad_enabled
    from ._layer_norm_grad import layer_norm_grad
    from ._util import const

    x, scale_t, _ = n.inputs
    if (is_grad_enabled() or x.data.dtype not in (np.float32, np.float64)
            or g.data.dtype != x.data.dtype or not x.data.size):
        return None
    b = n.attrs.get("begin_norm_axis", 1)
    eps = n.attrs.get("epsilon", 1e-5)
    stats = _layer_norm_stats(x.data, b)
    if stats is None:
        return None
    m, v = stats
    rows = np.ascontiguousarray(x.data).reshape(m.size, -1)
    dy = np.ascontiguousarray(g.data).reshape(rows.shape)
    dx, ds, db = layer_norm_grad(rows, dy, scale_t.data.reshape(-1).astype(rows.dtype), m, v,
                                 _layer_norm_eps(eps, rows.dtype), _needs(n, 1), _needs(n, 2))
    return (const(g, dx.reshape(x.data.shape)) if _needs(n, 0) else None,
            None if ds is None else const(g, ds.reshape(scale_t.data.shape)),
            None if db is None else const(g, db.reshape(n.inputs[2].data.shape)))


@exact_first_order
def _layer_norm_vjp(n, g):
    from .math import multiply
    from .reduce import sum as rsum
    from .shape import reshape

    kernel = _layer_norm_kernel_grads(n, g)
    if kernel is not None:
        return kernel
    x, scale_t, bias_t = n.inputs
    b = n.attrs.get("begin_norm_axis", 1)
    shape = x.data.shape
    axes = tuple(range(b, len(shape)))
    lead = tuple(range(b))
    tail = shape[b:]
    xhat, inv = _normalized(x, axes, n.attrs.get("epsilon", 1e-5))
    dx = dscale = dbias = None
    if _needs(n, 0):
        dx = _norm_input_grad(multiply(g, reshape(scale_t, tail)), xhat, inv, axes)
    if _needs(n, 1):
        dscale = reshape(rsum(multiply(g, xhat), lead), scale_t.data.shape)
    if _needs(n, 2):
        dbias = reshape(rsum(g, lead), bias_t.data.shape)
    return dx, dscale, dbias


LAYER_NORM = register(
    "layer_norm", _layer_norm_fwd, _layer_norm_vjp, legacy_name="LayerNormBackward",
    domain="distinct",
    examples=[([(2, 3, 4), (4,), (4,)], {"begin_norm_axis": 2}),
              ([(2, 2, 3), (6,), (6,)], {"begin_norm_axis": 1, "epsilon": 0.01})])


def layer_norm(x, scale, bias, epsilon=1e-5, begin_norm_axis=1, has_bias=True):
    """Normalise over the axes from ``begin_norm_axis`` on; ``scale`` and ``bias`` are flat
    vectors of their product's size (``has_bias=False``: the caller gave none, so none is
    added)."""
    attrs = {"epsilon": float(epsilon), "begin_norm_axis": int(begin_norm_axis)}
    if not has_bias:
        attrs["has_bias"] = False
    return apply(LAYER_NORM, (x, scale, bias), attrs)


from .group_norm import _group_norm_fwd, group_norm  # noqa: E402,F401  (Paddle's kernels: own module)


__all__ = ["conv2d", "conv2d_transpose", "conv2d_grad_filter", "pool2d", "pool2d_grad",
           "pool2d_double_grad", "pool_attrs", "max_pool2d_mask", "batch_norm", "layer_norm",
           "group_norm", "conv_out_size", "pool_out_size"]
