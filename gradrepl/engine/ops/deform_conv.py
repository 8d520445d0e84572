"""Paddle's deformable convolution (DCN v1/v2, ``paddle.vision.ops.deform_conv2d``) replayed from
its CPU kernels.

Forward: ModulatedDeformableIm2col samples each input channel at the kernel taps moved by the
offsets (bilinear, ``((w1 v1 + w2 v2) + w3 v3) + w4 v4`` in T, the low corner from the tap
rounded to float first), times the mask; then one ``Blas::MatMul`` per group of the filter
[M, K] by the columns [K, im2col_step * Ho * Wo] (the whole batch at once up to 64 samples;
MKL's sgemm/dgemm, each operand where Paddle's buffers place it). A missing mask (v1) is a mask
of ones: every product by it is exact, so the bits are the same.

Backward, one sample at a time (Paddle's im2col_step attribute is 1): the columns' gradient
``W^T dout`` per group; the offsets' and masks' gradients (ModulatedDeformableCol2imCoord: per
offset channel a running sum over the input channels of the deformable group); the input's
gradient (ModulatedDeformableCol2im: each tap's ``weight * grad`` added to its at most four
neighbours, taps in the kernel's thread order); the filter's ``dout cols^T`` added to the
running filter gradient sample by sample (FilterGradAddup).
"""
from __future__ import annotations

import numpy as np

from ..registry import apply, register
from . import conv as _conv


def _mkl_here():
    from .. import cpu, mkl
    from .nn import _mkl_is_this_cpu

    return cpu.cpu_class() != "amd" and _mkl_is_this_cpu() and mkl.load() is not None


def _buffer(a):
    """``a`` as a flat C-contiguous array from a 64-byte boundary (a Paddle tensor's memory)."""
    from .. import mkl

    return mkl.at_64(np.ascontiguousarray(a)).reshape(-1)


def _matmul_at(a, ao, ash, ta, b, bo, bsh, tb, c, co):
    """Paddle's ``Blas::MatMul``: ``op(A) @ op(B)`` written into C (beta 0), each operand the
    (rows, cols) matrix stored at element ``*o`` of its flat buffer (a group's or a sample's
    slice: MKL's bits can follow where an operand starts), by MKL on one thread; numpy's
    product of the same slices without MKL."""
    m, k = (ash[1], ash[0]) if ta else ash
    n = bsh[0] if tb else bsh[1]
    A = a[ao:ao + ash[0] * ash[1]].reshape(ash)
    B = b[bo:bo + bsh[0] * bsh[1]].reshape(bsh)
    if _mkl_here():
        from .. import mkl

        if m == 1 and tb and a.dtype == np.float64:
            # one row times a transposed matrix: the MKL-ML Paddle bundles sums it otherwise
            # than the mkl wheel's dgemm (real 3.3.1/2.6.2 matmul, 40 random (1, k) @ (n, k)^T
            # float64 products: the wheel's one-row dgemm 0 equal, its two-row product's first
            # row 17; the filter gradients of the DCN probes with one output channel a group:
            # all equal this way, 13 of 36 values the other). Not emulated in general.
            a2 = mkl.at_64(np.vstack([(A.T if ta else A).reshape(1, -1)] * 2))
            c2 = mkl.empty_at_64((2 * n,), a.dtype)
            _matmul_at(a2.reshape(-1), 0, (2, k), False, b, bo, bsh, tb, c2, 0)
            c[co:co + n] = c2[:n]
            return
        f = mkl._gemm_function("gemm", a.dtype)
        local = mkl.load().MKL_Set_Num_Threads_Local
        item = a.dtype.itemsize
        prev = local(1)
        try:
            f(101, 112 if ta else 111, 112 if tb else 111, m, n, k, 1.0,
              mkl.address(a) + ao * item, max(ash[1], 1), mkl.address(b) + bo * item,
              max(bsh[1], 1), 0.0, mkl.address(c) + co * item, max(n, 1))
        finally:
            local(prev)
        return
    c[co:co + m * n] = _conv._gemm(A.T if ta else A, B.T if tb else B).reshape(-1)


def out_size(n, k, s, p, d):
    return (n + 2 * p - (d * (k - 1) + 1)) // s + 1


def _taps(offset, shape, kh, kw, stride, padding, dilation, dg):
    """The sampling points h_im, w_im (B, dg, kh*kw, Ho, Wo) in T: ``h_in + i*dil + offset``."""
    b, _, ho, wo = offset.shape
    t = offset.dtype.type
    off = offset.reshape(b, dg, kh * kw, 2, ho, wo)
    ki, kj = np.divmod(np.arange(kh * kw), kw)
    base_h = (np.arange(ho)[:, None] * stride[0] - padding[0])[None, :, :] + \
        (ki * dilation[0])[:, None, None]                                  # (K, Ho, 1)
    base_w = (np.arange(wo)[None, :] * stride[1] - padding[1])[None, :, :] + \
        (kj * dilation[1])[:, None, None]                                  # (K, 1, Wo)
    return base_h.astype(t) + off[:, :, :, 0], base_w.astype(t) + off[:, :, :, 1]


def _bilinear(img, h, w):
    """DmcnIm2colBilinear of every channel plane of ``img`` (B, dg, Cg, H, W) at (h, w)
    (B, dg, K, Ho, Wo), zero outside (-1, H) x (-1, W): (B, dg, Cg, K, Ho, Wo) in T."""
    t = img.dtype.type
    height, width = img.shape[-2:]
    inside = (h > -1) & (w > -1) & (h < height) & (w < width)
    hl = np.floor(h.astype(np.float32)).astype(np.int64)
    wl = np.floor(w.astype(np.float32)).astype(np.int64)
    hh_, wh_ = hl + 1, wl + 1
    lh = h - hl.astype(t)
    lw = w - wl.astype(t)
    one = t(1)
    hh, hw = one - lh, one - lw
    flat = img.reshape(img.shape[:3] + (-1,))
    shape = img.shape[:3] + h.shape[2:]

    def corner(r, c, ok):
        idx = np.where(ok & inside, r * width + c, 0)
        vals = np.take_along_axis(flat, idx.reshape(idx.shape[:2] + (1, -1)), axis=3)
        return np.where(ok[:, :, None], vals.reshape(shape), t(0))

    v1 = corner(hl, wl, (hl >= 0) & (wl >= 0))
    v2 = corner(hl, wh_, (hl >= 0) & (wh_ <= width - 1))
    v3 = corner(hh_, wl, (hh_ <= height - 1) & (wl >= 0))
    v4 = corner(hh_, wh_, (hh_ <= height - 1) & (wh_ <= width - 1))
    w1, w2, w3, w4 = (a[:, :, None] for a in (hh * hw, hh * lw, lh * hw, lh * lw))
    val = w1 * v1 + w2 * v2 + w3 * v3 + w4 * v4
    return np.where(inside[:, :, None], val, t(0))


def _im2col(x, offset, mask, kh, kw, stride, padding, dilation, dg):
    """The column matrix [Cin * kh * kw, B * Ho * Wo] (rows channel-major, then the tap)."""
    b, c, h, w = x.shape
    _, _, ho, wo = offset.shape
    hs, ws = _taps(offset, (h, w), kh, kw, stride, padding, dilation, dg)
    vals = _bilinear(x.reshape(b, dg, c // dg, h, w), hs, ws)       # (B, dg, Cg, K, Ho, Wo)
    vals = vals * mask.reshape(b, dg, 1, kh * kw, ho, wo)
    return vals.reshape(b, c * kh * kw, ho * wo).transpose(1, 0, 2).reshape(c * kh * kw, -1)


def _deform_fwd(x, offset, weight, mask, stride=(1, 1), padding=(0, 0), dilation=(1, 1),
                deformable_groups=1, groups=1):
    from .. import mkl

    b = x.shape[0]
    m, cg, kh, kw = weight.shape
    _, _, ho, wo = offset.shape
    step = min(64, b) if b % min(64, b) == 0 else 1
    g = groups
    mg, k, n = m // g, cg * kh * kw, step * ho * wo
    wbuf = _buffer(weight)
    out = mkl.empty_at_64((b // step, g, mg, n), x.dtype).reshape(-1)
    for i in range(b // step):
        sl = slice(i * step, (i + 1) * step)
        cols = _buffer(_im2col(x[sl], offset[sl], mask[sl], kh, kw, stride, padding, dilation,
                                deformable_groups))
        for gi in range(g):
            _matmul_at(wbuf, gi * mg * k, (mg, k), False, cols, gi * k * n, (k, n), False,
                       out, (i * g + gi) * mg * n)
    out = out.reshape(b // step, m, step, ho * wo).transpose(0, 2, 1, 3)
    return out.reshape(b, m, ho, wo).copy()


def _grad_weight(h, w, ph, pw, height, width, t):
    """DmcnGetGradientWeight of the tap (h, w) for the pixel (ph, pw)."""
    out_of = (h <= -1) | (h >= height) | (w <= -1) | (w >= width)
    hl, wl = np.floor(h).astype(np.int64), np.floor(w).astype(np.int64)
    fh = np.where(ph == hl, (ph + 1).astype(t) - h, h + t(1) - ph.astype(t))
    fw = np.where(pw == wl, (pw + 1).astype(t) - w, w + t(1) - pw.astype(t))
    ok = ((ph == hl) | (ph == hl + 1)) & ((pw == wl) | (pw == wl + 1)) & ~out_of
    return np.where(ok, fh * fw, t(0))


def _col2im(col, offset, mask, xshape, kh, kw, stride, padding, dilation, dg):
    """ModulatedDeformableCol2im for one sample: (Cin, H, W) in T."""
    c, height, width = xshape
    t = col.dtype.type
    _, _, ho, wo = offset.shape
    hs, ws = _taps(offset, (height, width), kh, kw, stride, padding, dilation, dg)
    hs, ws = hs[0], ws[0]                                           # (dg, K, Ho, Wo)
    cg = c // dg
    grad = col.reshape(dg, cg, kh * kw, ho, wo) * mask.reshape(dg, 1, kh * kw, ho, wo)
    hsb = np.broadcast_to(hs[:, None], grad.shape)
    wsb = np.broadcast_to(ws[:, None], grad.shape)
    cur_h = np.trunc(hsb).astype(np.int64)
    cur_w = np.trunc(wsb).astype(np.int64)
    chan = np.broadcast_to(np.arange(c).reshape(dg, cg, 1, 1, 1), grad.shape)
    idx_parts, val_parts = [], []
    for dy in range(-2, 3):
        for dx in range(-2, 3):
            ph, pw = cur_h + dy, cur_w + dx
            ok = ((ph >= 0) & (ph < height) & (pw >= 0) & (pw < width)
                  & (np.abs(hsb - ph.astype(t)) < 1) & (np.abs(wsb - pw.astype(t)) < 1))
            wgt = _grad_weight(hsb, wsb, ph, pw, height, width, t)
            idx_parts.append(np.where(ok, (chan * height + ph) * width + pw, -1))
            val_parts.append(wgt * grad)
    # thread order: (c, i, j, h, w), then (dy, dx) within a thread
    idx = np.stack(idx_parts, -1).reshape(-1)
    val = np.stack(val_parts, -1).reshape(-1)
    keep = idx >= 0
    out = np.zeros(c * height * width, col.dtype)
    np.add.at(out, idx[keep], val[keep])
    return out.reshape(c, height, width)


def _coord_weight(h, w, img, height, width, bp_dir, t):
    """DmcnGetCoordinateWeight for every channel plane of ``img`` (Cg, H, W) at (h, w)
    (K, Ho, Wo): (Cg, K, Ho, Wo) in T."""
    out_of = (h <= -1) | (h >= height) | (w <= -1) | (w >= width)
    hl, wl = np.floor(h).astype(np.int64), np.floor(w).astype(np.int64)
    hh_, wh_ = hl + 1, wl + 1
    flat = img.reshape(img.shape[0], -1)

    def at(r, c, ok):
        ok = ok & ~out_of
        return np.where(ok, flat[:, np.where(ok, r * width + c, 0)], t(0))

    c1, c2 = (hl >= 0) & (wl >= 0), (hl >= 0) & (wh_ <= width - 1)
    c3, c4 = (hh_ <= height - 1) & (wl >= 0), (hh_ <= height - 1) & (wh_ <= width - 1)
    if bp_dir == 0:
        a_low, a_high = (wl + 1).astype(t) - w, w - wl.astype(t)
        terms = ((-a_low) * at(hl, wl, c1), (-a_high) * at(hl, wh_, c2),
                 a_low * at(hh_, wl, c3), a_high * at(hh_, wh_, c4))
    else:
        a_low, a_high = (hl + 1).astype(t) - h, h - hl.astype(t)
        terms = ((-a_low) * at(hl, wl, c1), a_low * at(hl, wh_, c2),
                 (-a_high) * at(hh_, wl, c3), a_high * at(hh_, wh_, c4))
    conds = (c1, c2, c3, c4)
    weight = np.zeros(terms[0].shape, t)
    for term, cond in zip(terms, conds):
        weight = weight + np.where(cond, term, t(0))
    return np.where(out_of, t(0), weight)


def _col2im_coord(col, x, offset, mask, kh, kw, stride, padding, dilation, dg):
    """ModulatedDeformableCol2imCoord for one sample: the offsets' (2*K*dg, Ho, Wo) and the
    masks' (K*dg, Ho, Wo) gradients, each a running sum over the group's input channels."""
    c, height, width = x.shape
    t = col.dtype.type
    _, _, ho, wo = offset.shape
    hs, ws = _taps(offset, (height, width), kh, kw, stride, padding, dilation, dg)
    hs, ws = hs[0], ws[0]                                           # (dg, K, Ho, Wo)
    cg = c // dg
    cols = col.reshape(dg, cg, kh * kw, ho, wo)
    m = mask.reshape(dg, kh * kw, ho, wo)
    d_off = np.zeros((dg, kh * kw, 2, ho, wo), t)
    d_mask = np.zeros((dg, kh * kw, ho, wo), t)
    for gi in range(dg):
        img = x[gi * cg:(gi + 1) * cg]
        h, w = hs[gi], ws[gi]
        inside = ~((h <= -1) | (w <= -1) | (h >= height) | (w >= width))
        samp = _bilinear(img[None, None], h[None, None], w[None, None])[0, 0]  # (Cg, K, Ho, Wo)
        cw = [_coord_weight(h, w, img, height, width, d, t) for d in (0, 1)]
        val = [np.zeros((kh * kw, ho, wo), t), np.zeros((kh * kw, ho, wo), t)]
        mval = np.zeros((kh * kw, ho, wo), t)
        for cnt in range(cg):
            mval = mval + np.where(inside, cols[gi, cnt] * samp[cnt], t(0))
            for d in (0, 1):
                val[d] = val[d] + cw[d][cnt] * cols[gi, cnt] * m[gi]
        d_off[gi, :, 0], d_off[gi, :, 1] = val
        d_mask[gi] = mval
    return d_off.reshape(dg * kh * kw * 2, ho, wo), d_mask.reshape(dg * kh * kw, ho, wo)


def _deform_grad_fwd(g, x, offset, weight, mask, stride=(1, 1), padding=(0, 0),
                     dilation=(1, 1), deformable_groups=1, groups=1):
    from .. import mkl

    b, c, height, width = x.shape
    m, cg, kh, kw = weight.shape
    _, _, ho, wo = offset.shape
    grp = groups
    kc, mr, n = m // grp, cg * kh * kw, ho * wo
    wbuf, gbuf = _buffer(weight), _buffer(g)
    dx = np.zeros(x.shape, x.dtype)
    doff = np.zeros(offset.shape, x.dtype)
    dmask = np.zeros(mask.shape, x.dtype)
    dw = np.zeros(grp * kc * mr, x.dtype)
    colb = mkl.empty_at_64((grp * mr * n,), x.dtype)
    dwb = mkl.empty_at_64((grp * kc * mr,), x.dtype)
    args = (kh, kw, stride, padding, dilation, deformable_groups)
    for i in range(b):
        for gi in range(grp):   # the columns' gradient W^T dout
            _matmul_at(wbuf, gi * kc * mr, (kc, mr), True, gbuf, (i * grp + gi) * kc * n,
                       (kc, n), False, colb, gi * mr * n)
        col = colb.reshape(c * kh * kw, n).copy()
        doff[i], dmask[i] = _col2im_coord(col, x[i], offset[i:i + 1], mask[i], *args)
        dx[i] = _col2im(col, offset[i:i + 1], mask[i], x.shape[1:], *args)
        colb[:] = _im2col(x[i:i + 1], offset[i:i + 1], mask[i:i + 1], *args).reshape(-1)
        for gi in range(grp):   # the filter's dout cols^T, added sample by sample
            _matmul_at(gbuf, (i * grp + gi) * kc * n, (kc, n), False, colb, gi * mr * n,
                       (mr, n), True, dwb, gi * kc * mr)
        dw = dw + dwb
    return dx, doff, dw.reshape(weight.shape), dmask


def _deform_vjp(n, g):
    x, offset, weight, mask = n.inputs
    dx, doff, dw, dmask = apply(DEFORM_CONV_GRAD, (g, x, offset, weight, mask), n.attrs)
    return dx, doff, dw, dmask


def _example_offsets(shape):
    """Offsets whose fractions lie in [0.2, 0.8]: the sampling points stay away from the grid
    lines, where the bilinear sample's gradient jumps (finite differences across one fail)."""
    i = np.arange(int(np.prod(shape)))
    return ((i % 5) - 2 + 0.2 + 0.6 * ((i * 0.618) % 1.0)).reshape(shape)


DEFORM_CONV = register(
    "deformable_conv", _deform_fwd, _deform_vjp, second_order=False,
    legacy_name="DeformableConvBackward",
    examples=[([(2, 2, 4, 4), _example_offsets((2, 18, 4, 4)), (3, 2, 3, 3), (2, 9, 4, 4)],
               {"padding": (1, 1)}),
              ([(1, 4, 5, 4), _example_offsets((1, 36, 3, 1)), (2, 2, 3, 3), (1, 18, 3, 1)],
               {"stride": (2, 2), "padding": (1, 0), "dilation": (1, 1), "deformable_groups": 2,
                "groups": 2})])
DEFORM_CONV_GRAD = register("deformable_conv_grad", _deform_grad_fwd, None, n_outputs=4,
                            check=False)


def deform_conv2d(x, offset, weight, mask, **attrs):
    return apply(DEFORM_CONV, (x, offset, weight, mask), attrs)
