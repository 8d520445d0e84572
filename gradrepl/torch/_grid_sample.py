"""torch 2.13's CPU ``grid_sampler_2d`` kernels (``aten/src/ATen/native/cpu/GridSamplerKernel.cpp``)
in numpy, bilinear, nearest and bicubic, forward and backward, as they run on x86-64.

The kernel is registered with ``REGISTER_DISPATCH``: no AVX-512 build, so its AVX2 build runs on
an AVX-512 CPU too: vectors of 8 floats / 4 doubles. Each batch's grid slice is walked in
row-major order, one vector of grid points at a time. The arithmetic is per lane:

- the location: ``(g + 1) * sf`` (align_corners) or ``(g + 1) * sf - 0.5`` (GCC contracts
  it into one fused multiply-subtract), then clipped (border) or reflected and clipped
  (reflection; ``extra = |in| - flips * twice_span`` fused too);
- bilinear weights ``nw = s * e``, ``ne = s * w``, ``sw = n * e``, ``se = n * w`` with
  ``w = x - floor(x)``, ``e = 1 - w`` (not ``x_e - x``), values gathered where in bounds;
  ``nw_val * nw + ne_val * ne + sw_val * sw + se_val * se`` contracted into a chain of FMAs
  (``a * b + c * d`` is ``fma(c, d, a * b)``: measured);
- backward: the input gradient is scattered (scalar ``+=``) corner by corner for the whole
  vector (nw, ne, sw, se), vector after vector; the grid gradient accumulates over channels
  ``gx + ((ne - nw) * s + (se - sw) * n) * gOut`` (FMAs), times the location's derivative.

Nearest rounds half to even (``Vectorized::round``) and has a zero grid gradient. Bicubic
(A = -0.75) reads its 16 neighbours through the padding mode's coordinates, scatters its input
gradient neighbour by neighbour and accumulates one grid gradient over channels and neighbours;
its location derivative is the bare scaling factor (the padding is not differentiated).
"""
from __future__ import annotations

import numpy as np

from ._sleef64 import fma64


def _lanes(dtype):
    return 8 if dtype == np.float32 else 4


def _fma(a, b, c):
    a, b, c = np.asarray(a), np.asarray(b), np.asarray(c)
    T = np.result_type(a, b, c)
    if T == np.float32:
        return (a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64)).astype(T)
    return fma64(a.astype(np.float64), b.astype(np.float64), c.astype(np.float64))


class _Loc:
    """``ComputeLocation`` of one axis of ``size`` pixels."""

    def __init__(self, size, T, padding, align_corners):
        self.T, self.padding, self.ac = T, padding, align_corners
        self.max_val = T(size - 1)
        if align_corners:
            self.sf = T(T(size - 1) / T(2))
            self.low = T(0)
            self.twice = T(T(size - 1) * T(2))
            self.empty = size <= 1
        else:
            self.sf = T(T(size) / T(2))
            self.low = T(-0.5)
            self.twice = T(T(size) * T(2))
            self.empty = size <= 0

    def unnormalize(self, g):
        T = self.T
        if self.ac:
            return (g + T(1)) * self.sf
        return _fma(g + T(1), self.sf, T(-0.5))

    def _clip(self, v):
        return np.minimum(np.maximum(v, self.T(0)), self.max_val)

    def _reflect(self, v):
        """(reflected value, the sign of its derivative)."""
        T = self.T
        if self.ac and self.empty:
            return np.zeros_like(v), np.zeros_like(v)
        inl = v - self.low if not self.ac else v
        neg = inl < T(0)
        a = np.abs(inl)
        flips = np.trunc(a / self.twice)
        extra = _fma(-flips, self.twice, a)
        refl = self.twice - extra
        flip = extra > refl
        res = np.where(flip, refl, extra)
        if not self.ac:
            res = res + self.low
        return res, np.where(flip ^ neg, T(-1), T(1))

    def apply(self, g):
        v = self.unnormalize(g)
        if self.padding == "border":
            return self._clip(v)
        if self.padding == "reflection":
            return self._clip(self._reflect(v)[0])
        return v

    def apply_get_grad(self, g):
        T = self.T
        v = self.unnormalize(g)
        mult = np.full(v.shape, self.sf, T)
        if self.padding == "zeros":
            return v, mult
        if self.padding == "reflection":
            v, sign = self._reflect(v)
            mult = sign * mult
        lo = np.maximum(v, T(0))
        res = np.minimum(lo, self.max_val)
        inb = (lo != T(0)) & (res != self.max_val)
        return res, np.where(inb, mult, T(0))


def _params(x, y, H, W, padding):
    T = x.dtype.type
    xw, yn = np.floor(x), np.floor(y)
    w = x - xw
    e = T(1) - w
    n = y - yn
    s = T(1) - n
    ix, iy = xw.astype(np.int64), yn.astype(np.int64)
    if padding == "zeros":
        wm, nm = (ix > -1) & (ix < W), (iy > -1) & (iy < H)
        em, sm = (ix + 1 > -1) & (ix + 1 < W), (iy + 1 > -1) & (iy + 1 < H)
        nwm = wm & nm
    else:
        wm = nm = np.ones(x.shape, bool)
        em, sm = ix + 1 < W, iy + 1 < H
        nwm = wm
    weights = {"nw": s * e, "ne": s * w, "sw": n * e, "se": n * w}
    masks = {"nw": nwm, "ne": em & nm, "sw": wm & sm, "se": em & sm}
    corners = {"nw": (iy, ix), "ne": (iy, ix + 1), "sw": (iy + 1, ix), "se": (iy + 1, ix + 1)}
    return n, s, w, e, weights, masks, corners


def _gather(inp, yy, xx, mask):
    """inp (N, C, H, W); yy, xx, mask (N, P): values (N, C, P), 0 where masked out."""
    H, W = inp.shape[2:]
    yc, xc = np.clip(yy, 0, H - 1), np.clip(xx, 0, W - 1)
    bidx = np.arange(inp.shape[0])[:, None]
    vals = np.moveaxis(inp, 1, -1)[bidx, yc, xc]          # (N, P, C)
    vals = np.where(mask[..., None], vals, inp.dtype.type(0))
    return np.moveaxis(vals, -1, 1)


def _points(grid, inp, padding, align_corners, with_grad=False):
    T = inp.dtype.type
    N, Ho, Wo, _ = grid.shape
    H, W = inp.shape[2:]
    g = np.asarray(grid, inp.dtype).reshape(N, Ho * Wo, 2)
    lw, lh = _Loc(W, T, padding, align_corners), _Loc(H, T, padding, align_corners)
    with np.errstate(all="ignore"):
        if with_grad:
            (x, mx), (y, my) = lw.apply_get_grad(g[..., 0]), lh.apply_get_grad(g[..., 1])
            return x, y, mx, my
        return lw.apply(g[..., 0]), lh.apply(g[..., 1])


def forward(inp, grid, mode, padding, align_corners):
    inp = np.asarray(inp)
    N, C, H, W = inp.shape
    _, Ho, Wo, _ = grid.shape
    x, y = _points(grid, inp, padding, align_corners)
    with np.errstate(all="ignore"):
        if mode == "nearest":
            xn, yn = np.rint(x), np.rint(y)
            ix, iy = xn.astype(np.int64), yn.astype(np.int64)
            m = np.ones(x.shape, bool) if padding != "zeros" else \
                (ix > -1) & (ix < W) & (iy > -1) & (iy < H)
            return _gather(inp, iy, ix, m).reshape(N, C, Ho, Wo)
        _, _, _, _, wt, mk, cn = _params(x, y, H, W, padding)
        v = {k: _gather(inp, cn[k][0], cn[k][1], mk[k]) for k in wt}
        out = v["nw"] * wt["nw"][:, None]
        out = _fma(v["ne"], wt["ne"][:, None], out)
        out = _fma(v["sw"], wt["sw"][:, None], out)
        out = _fma(v["se"], wt["se"][:, None], out)
    return out.reshape(N, C, Ho, Wo)


def _scatter(gin, order_keys, N, C, P, lanes, contributions, corners=4):
    """Add ``contributions`` [(corner index k, (iy, ix), mask, values (N, C, P))] into
    ``gin`` (N, C, H, W) in the kernel's order: vector after vector of grid points, within
    one the corners in turn, lane after lane."""
    H, W = gin.shape[2:]
    flat = gin.reshape(-1)
    p = np.arange(P)
    vec, lane = p // lanes, p % lanes
    idx_all, val_all, key_all = [], [], []
    nidx = np.arange(N)[:, None, None]
    cidx = np.arange(C)[None, :, None]
    for k, (iy, ix), m, vals in contributions:
        off = ((nidx * C + cidx) * H + iy[:, None, :]) * W + ix[:, None, :]
        key = (vec * corners + k) * lanes + lane
        sel = np.broadcast_to(m[:, None, :], vals.shape)
        idx_all.append(off[sel])
        val_all.append(vals[sel])
        key_all.append(np.broadcast_to(key, vals.shape)[sel])
    if not idx_all:
        return gin
    idx = np.concatenate(idx_all)
    val = np.concatenate(val_all)
    order = np.argsort(np.concatenate(key_all), kind="stable")
    np.add.at(flat, idx[order], val[order])
    return gin


def backward(inp, grid, gout, mode, padding, align_corners):
    inp = np.asarray(inp)
    T = inp.dtype.type
    N, C, H, W = inp.shape
    _, Ho, Wo, _ = grid.shape
    P = Ho * Wo
    lanes = _lanes(inp.dtype)
    go = np.ascontiguousarray(gout, inp.dtype).reshape(N, C, P)
    gin = np.zeros(inp.shape, inp.dtype)
    with np.errstate(all="ignore"):
        if mode == "nearest":
            x, y = _points(grid, inp, padding, align_corners)
            ix, iy = np.rint(x).astype(np.int64), np.rint(y).astype(np.int64)
            m = np.ones(x.shape, bool) if padding != "zeros" else \
                (ix > -1) & (ix < W) & (iy > -1) & (iy < H)
            _scatter(gin, None, N, C, P, lanes,
                     [(0, (np.clip(iy, 0, H - 1), np.clip(ix, 0, W - 1)), m, go)])
            return gin, np.zeros(grid.shape, inp.dtype)
        x, y, mx, my = _points(grid, inp, padding, align_corners, with_grad=True)
        n, s, w, e, wt, mk, cn = _params(x, y, H, W, padding)
        contrib = []
        for k, name in enumerate(("nw", "ne", "sw", "se")):
            iy, ix = cn[name]
            contrib.append((k, (np.clip(iy, 0, H - 1), np.clip(ix, 0, W - 1)), mk[name],
                            wt[name][:, None] * go))
        _scatter(gin, None, N, C, P, lanes, contrib)
        v = {k: _gather(inp, cn[k][0], cn[k][1], mk[k]) for k in wt}
        gx = np.zeros((N, P), inp.dtype)
        gy = np.zeros((N, P), inp.dtype)
        for c in range(C):
            nw, ne, sw, se = (v[k][:, c] for k in ("nw", "ne", "sw", "se"))
            g = go[:, c]
            ix_ = _fma(se - sw, n, (ne - nw) * s)
            iy_ = _fma(se - ne, w, (sw - nw) * e)
            gx = _fma(ix_, g, gx)
            gy = _fma(iy_, g, gy)
        gg = np.empty((N, P, 2), inp.dtype)
        gg[..., 0] = gx * mx
        gg[..., 1] = gy * my
    return gin, gg.reshape(grid.shape)



# ---------------------------------------------------------------- bicubic
_A = -0.75


def _cubic(t):
    """``get_cubic_coefficients(t)``, A = -0.75. GCC fuses ``a * b + c * d`` as
    ``fma(c, d, a * b)``: where the second term is a product of constants (``5 * A``,
    ``8 * A``, ``4 * A``, exact) nothing is fused with x; ``(...) * x * x + 1`` is one FMA
    (measured on real torch 2.13 with a one-pixel input: the coefficients themselves)."""
    T = t.dtype.type
    A = T(_A)

    def outer(x):
        return ((A * x - T(5 * _A)) * x + T(8 * _A)) * x - T(4 * _A)

    def inner(x):
        return _fma(_fma(T(_A + 2), x, T(-(_A + 3))) * x, x, T(1))
    return outer(t + T(1)), inner(t), inner(T(1) - t), outer(T(2) - t)


def _cubic_grad(t):
    """``get_cubic_coefficients_grad(t)``: every second term a constant product, nothing
    fused."""
    T = t.dtype.type
    x = T(-1) - t
    c0 = (T(-3 * _A) * x - T(10 * _A)) * x - T(8 * _A)
    x = T(0) - t
    c1 = (T(-3 * (_A + 2)) * x - T(2 * (_A + 3))) * x
    x = T(1) - t
    c2 = (T(3 * (_A + 2)) * x - T(2 * (_A + 3))) * x
    x = T(2) - t
    c3 = (T(3 * _A) * x - T(10 * _A)) * x + T(8 * _A)
    return c0, c1, c2, c3


def _bounded(loc, v, size, padding):
    """``get_value_bounded``'s integer coordinate and in-bounds mask of one axis."""
    with np.errstate(all="ignore"):
        if padding == "border":
            v = loc._clip(v)
        elif padding == "reflection":
            v = loc._clip(loc._reflect(v)[0])
        i = np.trunc(v).astype(np.int64)
    m = np.ones(v.shape, bool) if padding != "zeros" else (i > -1) & (i < size)
    return np.clip(i, 0, size - 1), m


def _bicubic_setup(inp, grid, padding, align_corners):
    T = inp.dtype.type
    N, C, H, W = inp.shape
    g = np.asarray(grid, inp.dtype).reshape(N, -1, 2)
    lw, lh = _Loc(W, T, padding, align_corners), _Loc(H, T, padding, align_corners)
    with np.errstate(all="ignore"):
        x, y = lw.unnormalize(g[..., 0]), lh.unnormalize(g[..., 1])
        ix, iy = np.floor(x), np.floor(y)
        xs = [_bounded(lw, ix + T(k - 1), W, padding) for k in range(4)]
        ys = [_bounded(lh, iy + T(k - 1), H, padding) for k in range(4)]
    return lw, lh, x - ix, y - iy, xs, ys


def bicubic_forward(inp, grid, padding, align_corners):
    inp = np.asarray(inp)
    N, C, H, W = inp.shape
    _, Ho, Wo, _ = grid.shape
    _lw, _lh, tx, ty, xs, ys = _bicubic_setup(inp, grid, padding, align_corners)
    with np.errstate(all="ignore"):
        cx, cy = _cubic(tx), _cubic(ty)
        rows = []
        for i in range(4):
            iy, my = ys[i]
            v = [_gather(inp, iy, xs[k][0], xs[k][1] & my) for k in range(4)]
            c = [cx[k][:, None] for k in range(4)]
            # measured: the first two terms fused the other way, the last two not at all
            rows.append((_fma(c[0], v[0], c[1] * v[1]) + c[2] * v[2]) + c[3] * v[3])
        out = None
        for i in range(4):
            out = cy[i][:, None] * rows[i] if out is None else _fma(cy[i][:, None], rows[i], out)
    return out.reshape(N, C, Ho, Wo)


def bicubic_backward(inp, grid, gout, padding, align_corners):
    inp = np.asarray(inp)
    N, C, H, W = inp.shape
    P = grid.shape[1] * grid.shape[2]
    lw, lh, tx, ty, xs, ys = _bicubic_setup(inp, grid, padding, align_corners)
    go = np.ascontiguousarray(gout, inp.dtype).reshape(N, C, P)
    gin = np.zeros(inp.shape, inp.dtype)
    with np.errstate(all="ignore"):
        cx, cy = _cubic(tx), _cubic(ty)
        cxg, cyg = _cubic_grad(tx), _cubic_grad(ty)
        contrib, vals = [], {}
        for i in range(4):
            for j in range(4):
                (ix, mx), (iy, my) = xs[i], ys[j]
                m = mx & my
                contrib.append((i * 4 + j, (iy, ix), m, (go * cx[i][:, None]) * cy[j][:, None]))
                vals[i, j] = _gather(inp, iy, ix, m)
        _scatter(gin, None, N, C, P, _lanes(inp.dtype), contrib, corners=16)
        # one accumulator for all channels: channel after channel, its 16 terms in turn
        gx = np.zeros((N, P), inp.dtype)
        gy = np.zeros((N, P), inp.dtype)
        for c in range(C):
            g = go[:, c]
            for i in range(4):
                for j in range(4):
                    vg = vals[i, j][:, c] * g
                    gx = _fma(-(vg * cxg[i]), cy[j], gx)
                    gy = _fma(-(vg * cyg[j]), cx[i], gy)
        gg = np.empty((N, P, 2), inp.dtype)
        gg[..., 0] = gx * lw.sf
        gg[..., 1] = gy * lh.sf
    return gin, gg.reshape(grid.shape)


# ---------------------------------------------------------------- the dialect's op
def _ok(*arrays):
    return all(np.asarray(a).dtype in (np.float32, np.float64) for a in arrays) and \
        arrays[0].dtype == arrays[1].dtype


def _fwd(x, grid, mode="bilinear", padding_mode="zeros", align_corners=True, round_even=True):
    from ..engine.ops import nn_more as NM

    if x.ndim == 4 and mode == "bicubic" and _ok(x, grid):
        return bicubic_forward(x, grid, padding_mode, align_corners)
    if x.ndim == 4 and mode in ("bilinear", "nearest") and _ok(x, grid):
        return forward(x, grid, mode, padding_mode, align_corners)
    return NM._gs_fwd(x, grid, mode, padding_mode, align_corners, round_even)


def _vjp(n, g):
    from ..engine.ops import nn_more as NM
    from ..engine.ops._util import const

    x, grid = (t.data for t in n.inputs)
    a = n.attrs
    mode, pm = a.get("mode", "bilinear"), a.get("padding_mode", "zeros")
    if x.ndim == 4 and mode == "bicubic" and _ok(x, grid):
        gx, gg = bicubic_backward(x, grid, np.asarray(g.data), pm, a.get("align_corners", True))
        return const(g, gx), const(g, gg)
    if not (x.ndim == 4 and mode in ("bilinear", "nearest") and _ok(x, grid)):
        return NM._gs_vjp(n, g)
    gx, gg = backward(x, grid, np.asarray(g.data), mode, pm, a.get("align_corners", True))
    return const(g, gx), const(g, gg)


_OP = []


def torch_grid_sample_op(named):
    """The dialect's grid_sample: torch's CPU kernels above (float32/float64, 4-d bilinear and
    nearest), the engine's otherwise."""
    if not _OP:
        from ..engine.ops import nn_more as NM

        op = named(NM.GRID_SAMPLE, "GridSampler2DBackward0", forward=_fwd, vjp=_vjp)
        op.diff_inputs = None   # the grid takes a gradient too (a Spatial Transformer's theta)
        _OP.append(op)
    return _OP[0]
