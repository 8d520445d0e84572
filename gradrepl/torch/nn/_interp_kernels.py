"""torch's CPU resampling kernels (``F.interpolate``) in numpy, value for value.

ATen's ``UpSampleKernel.cpp`` / ``UpSampleMoreKernel.cpp`` / ``UpSampleBicubic2d.cpp``, as
torch 2.13's x86-64 build runs them (every value below was checked bit for bit against it):

* indices and weights per axis in the op's math type (float for float32, double for float64):
  ``area_pixel_compute_scale`` (an output of size 1 keeps in/out unless align_corners),
  ``scale * (dst + 0.5) - 0.5`` fused where the file is built with FMA (the kernels) and not
  where it is not (the bicubic backward), ``guard_index_and_lambda``; the cubic coefficients
  (A = -0.75) with the compiler's contraction pattern (measured), Keys' filter for antialias
  (a = -0.5, every step fused);
* forward, ``upsample_generic_Nd``: the axes nested, the last innermost, each
  ``fma(t0, w0, t1 * w1)`` then ``fma(tk, wk, acc)``; 2-d linear goes to
  ``cpu_upsample_linear_channels_last`` for a channels-last input with C > 3, an output with
  H + W <= 128, or one thread and C == 3 (3-d: channels-last and C > 3): products of the lambdas
  as weights, the channels in 32-byte vectors summed from the last corner, the rest from the
  first; nearest there uses ``nearest_idx`` (which special-cases out == in and out == 2 in);
* antialias: separable (the last axis first), each output ``t0 * w0`` then the next terms in
  order, in blocks of a 16-byte vector's count rounded (GCC vectorises their products) and the
  rest fused; torch's vertical pass with a last dim of size 1 repeats its first output;
* backward: the contributions accumulated in raster order of the outputs (corner/tap order
  inside), ``fma(weight, g, acc)`` (linear, antialias), ``acc + g`` (nearest),
  ``acc + (g * wy) * wx`` (bicubic, no FMA there).

``fused`` is whether the build contracts (the x86-64 DEFAULT build does not), ``lanes`` the
values of one 32-byte ``Vectorized`` (these kernels have no AVX512 build)."""
from __future__ import annotations

import math

import numpy as np

F32, F64 = np.float32, np.float64


# ------------------------------------------------------------------------------ one rounding
def _two_sum(a, b):
    """s, e with s = RN(a + b) and s + e = a + b exactly (Knuth)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _odd(s, err):
    """Round-to-odd of x = s + err given s = RN(x): the odd one of the two floats around x."""
    bits = s.view(np.int64)
    adj = (err != 0) & ((bits & 1) == 0)
    if adj.any():
        s = np.where(adj, np.nextafter(s, np.where(err > 0, np.inf, -np.inf)), s)
    return s


_SPLIT = F64(134217729.0)


def _two_prod(a, b):
    """p, e with p = RN(a * b) and p + e = a * b exactly (Dekker's split)."""
    p = a * b
    t = _SPLIT * a
    ah = t - (t - a)
    al = a - ah
    t = _SPLIT * b
    bh = t - (t - b)
    bl = b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def fma(a, b, c, dt, fused=True):
    """``a * b + c`` in ``dt`` rounded once (``fused``; float32 through double with a
    round-to-odd sum, float64 by Boldo and Melquiond's emulation), else the product rounded
    first."""
    a = np.asarray(a, dt)
    b = np.asarray(b, dt)
    c = np.asarray(c, dt)
    if not fused:
        return (a * b).astype(dt) + c
    if dt == F32:
        # the product is exact in double; the double sum rounds again when cast only if it
        # fell exactly halfway between two floats: those few get the round-to-odd fix
        p = np.empty(np.broadcast_shapes(a.shape, b.shape, c.shape), F64)
        np.multiply(a, b, out=p, dtype=F64)
        s = p + c
        flat = s.reshape(-1)
        mid = (flat.view(np.int64) & 0x1FFFFFFF) == 0x10000000
        n_mid = np.count_nonzero(mid)
        if n_mid > flat.size // 64:  # many (short weights): the sum's error everywhere
            bb = s - p
            e = s - bb
            np.subtract(p, e, out=e)
            np.subtract(c, bb, out=bb)
            np.add(e, bb, out=e)
            where = np.flatnonzero(mid & (e.reshape(-1) != 0))
            if where.size:
                flat[where] = _odd(flat[where], e.reshape(-1)[where])
        elif n_mid:
            where = np.flatnonzero(mid)
            ix = np.unravel_index(where, s.shape)
            am, bm, cm = (np.broadcast_to(v, s.shape)[ix].astype(F64) for v in (a, b, c))
            sm, e = _two_sum(am * bm, cm)
            flat[where] = _odd(np.asarray(sm), np.asarray(e))
        return s.astype(F32)
    a, b, c = np.broadcast_arrays(a, b, c)
    uh, ul = _two_prod(a, b)
    th, tl = _two_sum(c, uh)
    v, ve = _two_sum(tl, ul)
    v = _odd(np.asarray(v), np.asarray(ve))
    return th + v


# ------------------------------------------------------------------------------ axis maps


def _scale(n_in, n_out, ac, scale, dt):
    """``area_pixel_compute_scale<dt>``."""
    if ac:
        return dt(dt(n_in - 1) / dt(n_out - 1)) if n_out > 1 else dt(0)
    if scale is not None and scale > 0:
        return dt(1.0 / scale)
    return dt(dt(n_in) / dt(n_out))


def _src(s, n_out, ac, cubic, dt, fused=True):
    """``area_pixel_compute_source_index``: ``s * (dst + 0.5) - 0.5`` in dt (linear: >= 0)."""
    o = np.arange(n_out)
    if ac:
        return (s * o.astype(dt)).astype(dt)
    r = fma(s, (o + 0.5).astype(dt), dt(-0.5), dt, fused)
    return r if cubic else np.maximum(r, dt(0))


def _guard(real, n_in, dt):
    """``guard_index_and_lambda`` (its floorf takes a float)."""
    idx = np.minimum(np.floor(real.astype(F32)).astype(np.int64), n_in - 1)
    lam = np.minimum(np.maximum(real - idx.astype(dt), dt(0)), dt(1)).astype(dt)
    return idx, lam


def nearest_map(n_in, n_out, scale, exact, kernel, fused=True):
    """Source indices of nearest / nearest-exact: ``kernel`` 'generic' (upsample_generic_Nd's
    HelperInterpNearest[Exact]) or 'idx' (nearest_idx / nearest_exact_idx of the channels-last
    kernels and of every backward)."""
    o = np.arange(n_out)
    s = F32(1.0 / scale) if scale is not None and scale > 0 else F32(F32(n_in) / F32(n_out))
    if not exact:
        if kernel == "idx" and n_out == n_in:
            return o
        if kernel == "idx" and n_out == 2 * n_in:
            return o >> 1
        real = (o.astype(F32) * s).astype(F32)
    elif kernel == "idx":
        real = ((o + F32(0.5)).astype(F32) * s).astype(F32)
    else:
        real = (_src(s, n_out, False, False, F32, fused) + F32(0.5)).astype(F32)
    return np.minimum(np.floor(real).astype(np.int64), n_in - 1)


def linear_map(n_in, n_out, ac, scale, dt, fused=True):
    """(index (O, 2), lambda (O, 2)) of ``compute_source_index_and_lambda``."""
    o = np.arange(n_out)
    if n_out == n_in:
        return np.stack([o, o], 1), np.stack([np.ones(n_out, dt), np.zeros(n_out, dt)], 1)
    s = _scale(n_in, n_out, ac, scale, dt)
    i0, l1 = _guard(_src(s, n_out, ac, False, dt, fused), n_in, dt)
    i1 = i0 + (i0 < n_in - 1)
    l0 = (dt(1) - l1).astype(dt)
    return np.stack([i0, i1], 1), np.stack([l0, l1], 1)


def _cc1(x, A, dt, fused):
    """((A + 2) * x - (A + 3)) * x * x + 1: the first step fused, the last two not (measured)"""
    u = fma(dt(A + 2), x, dt(-(A + 3)), dt, fused)
    return (((u * x).astype(dt) * x).astype(dt) + dt(1)).astype(dt)


def _cc2(x, A, dt, fused):
    """((A * x - 5A) * x + 8A) * x - 4A: the first two steps fused, the last not (measured)"""
    q = fma(fma(dt(A), x, dt(-5 * A), dt, fused), x, dt(8 * A), dt, fused)
    return ((q * x).astype(dt) - dt(4 * A)).astype(dt)


def cubic_coeffs(t, dt, fused, A=-0.75):
    """``get_cubic_upsample_coefficients``: (O, 4)."""
    x2 = (1.0 - t.astype(F64)).astype(dt)
    return np.stack([_cc2((t + 1.0).astype(dt), A, dt, fused), _cc1(t, A, dt, fused),
                     _cc1(x2, A, dt, fused), _cc2((x2 + 1.0).astype(dt), A, dt, fused)], 1)


def cubic_map(n_in, n_out, ac, scale, dt, fused):
    """(index (O, 4) clamped to the input, coefficients (O, 4))."""
    s = _scale(n_in, n_out, ac, scale, dt)
    i0, t = _guard(_src(s, n_out, ac, True, dt, fused), n_in, dt)
    idx = np.clip(i0[:, None] + np.arange(-1, 3)[None, :], 0, n_in - 1)
    return idx, cubic_coeffs(t, dt, fused)


def _aa_filter_linear(x, dt):
    """``HelperInterpLinear::aa_filter``: the triangle."""
    x = np.abs(x)
    return np.where(x < 1.0, (1.0 - x.astype(F64)).astype(dt), dt(0)).astype(dt)


def _aa_filter_cubic(x, dt, fused, a=-0.5):
    """HelperInterpCubic::aa_filter (Keys, a = -0.5): every step fused (measured)"""
    x = np.abs(x)
    A = dt(a)
    u = fma(dt(A + 2), x, dt(-(A + 3)), dt, fused)
    v1 = fma((u * x).astype(dt), x, dt(1), dt, fused)
    q = fma(fma(A, x, dt(-5 * A), dt, fused), x, dt(8 * A), dt, fused)
    v2 = fma(q, x, dt(-4 * A), dt, fused)
    return np.where(x < 1.0, v1, np.where(x < 2.0, v2, dt(0))).astype(dt)


def aa_map(n_in, n_out, ac, scale, dt, cubic, fused):
    """(xmin (O,), xsize (O,), weights (O, K)) of ``_compute_indices_min_size_weights_aa``
    (in dt, the input's type: these helpers take no wider math type)."""
    s = _scale(n_in, n_out, ac, scale, dt)
    interp = 4 if cubic else 2
    support = dt(interp * 0.5 * float(s)) if s >= 1.0 else dt(interp * 0.5)
    K = int(np.ceil(float(support))) * 2 + 1
    invscale = dt(1.0 / float(s)) if s >= 1.0 else dt(1.0)
    xmin = np.zeros(n_out, np.int64)
    xsize = np.zeros(n_out, np.int64)
    W = np.zeros((n_out, K), dt)
    for i in range(n_out):
        center = dt(float(s) * (i + 0.5))
        lo = max(int(float(dt(center - support)) + 0.5), 0)
        hi = min(int(float(dt(center + support)) + 0.5), n_in)
        size = min(max(hi - lo, 0), K)
        j = np.arange(size)
        arg = ((dt(j + lo) - center).astype(dt).astype(F64) + 0.5) * float(invscale)
        arg = arg.astype(dt)
        w = _aa_filter_cubic(arg, dt, fused) if cubic else _aa_filter_linear(arg, dt)
        tot = dt(0)
        for v in w:
            tot = dt(tot + v)
        if tot != 0:
            w = (w / tot).astype(dt)
        xmin[i], xsize[i] = lo, size
        W[i, :size] = w
    return xmin, xsize, W


# ------------------------------------------------------------------------------ forward
def tap_pass(x, axis, idx, w, fused):
    """``sum_k x[idx[o, k]] * w[o, k]`` along ``axis`` as ``Interpolate<..>::eval`` (unrolled):
    ``fma(t0, w0, t1 * w1)``, then ``fma(tk, wk, acc)``."""
    dt = x.dtype.type
    shape = [1] * x.ndim
    shape[axis] = -1
    t = [np.take(x, idx[:, k], axis=axis) for k in range(idx.shape[1])]
    wk = [w[:, k].reshape(shape) for k in range(idx.shape[1])]
    acc = fma(t[0], wk[0], (t[1] * wk[1]).astype(dt), dt, fused)
    for k in range(2, len(t)):
        acc = fma(t[k], wk[k], acc, dt, fused)
    return acc


def corner_terms(x, maps):
    """The 2^d corner values (N, C, *out) and weights (*out) of the channels-last kernel in its
    order (i00, i01, i10, i11, ...), each weight the lambdas' product from the first axis."""
    nd = len(maps)
    dt = x.dtype.type
    xs, ws = [], []
    for bits in np.ndindex(*(2,) * nd):
        ix = tuple(maps[d][0][:, bits[d]].reshape((-1,) + (1,) * (nd - 1 - d))
                   for d in range(nd))
        xs.append(x[(Ellipsis,) + ix])
        w = None
        for d in range(nd):
            wd = maps[d][1][:, bits[d]].reshape((-1,) + (1,) * (nd - 1 - d))
            w = wd if w is None else (w * wd).astype(dt)
        ws.append(np.asarray(w, dt))
    return xs, ws


def cl_linear(x, maps, lanes, fused):
    """``cpu_upsample_linear_channels_last``: the channels in blocks of ``lanes`` (its vector
    loop: the terms summed from the last corner), the rest one by one (from the first)."""
    dt = x.dtype.type
    xs, ws = corner_terms(x, maps)
    K = len(xs)

    def f(a, b, c):
        return fma(a, b, c, dt, fused)
    C = x.shape[1]
    nv = C - C % lanes
    out = np.empty(xs[0].shape, dt)
    if nv:
        sl = (slice(None), slice(0, nv))
        acc = f(xs[K - 1][sl], ws[K - 1], (xs[K - 2][sl] * ws[K - 2]).astype(dt))
        for k in range(K - 3, -1, -1):
            acc = f(xs[k][sl], ws[k], acc)
        out[sl] = acc
    if nv < C:
        sl = (slice(None), slice(nv, C))
        acc = f(xs[0][sl], ws[0], (xs[1][sl] * ws[1]).astype(dt))
        for k in range(2, K):
            acc = f(xs[k][sl], ws[k], acc)
        out[sl] = acc
    return out


def aa_pass(x, axis, xmin, xsize, W, fused, block=4):
    """``interpolate_aa_single_dim``: t0 * w0, then the terms j = 1 .. xsize-1 added in order:
    the leading multiple of ``block`` of them as rounded products (GCC vectorises their
    products, an in-order reduction), the rest fused (the scalar epilogue); measured."""
    dt = x.dtype.type
    xm = np.moveaxis(x, axis, -1)
    n_in = xm.shape[-1]
    K = W.shape[1]
    nblk = (xsize - 1) // block * block
    acc = None
    for j in range(K):
        ix = np.minimum(xmin + j, n_in - 1)
        t = xm[..., ix]
        if acc is None:
            acc = (t * W[:, j]).astype(dt)
            continue
        plain = (acc + (t * W[:, j]).astype(dt)).astype(dt)
        fused_v = fma(t, W[:, j], acc, dt, fused)
        acc = np.where(j <= nblk, plain, np.where(j < xsize, fused_v, acc))
    return np.moveaxis(acc, -1, axis)


def aa_forward(x, amaps, fused):
    """``separable_upsample_generic_Nd_kernel_impl``: the last axis first, then the others
    from the last-but-one; an axis whose size does not change is skipped."""
    nd = len(amaps)
    order = [nd - 1] + list(range(nd - 2, -1, -1))
    for d in order:
        xmin, xsize, W, same = amaps[d]
        if same:
            continue
        x = aa_pass(x, x.ndim - nd + d, xmin, xsize, W, fused, 16 // x.itemsize)
        if d != nd - 1 and x.shape[-1] == 1:
            # torch's vertical pass reads the first output's index and weights for every
            # element of its inner loop; with a last dim of size 1 that loop runs along this
            # axis: every output along it is the first one's
            sl = [slice(None)] * x.ndim
            sl[x.ndim - nd + d] = slice(0, 1)
            x = np.broadcast_to(x[tuple(sl)], x.shape).copy()
    return x


# ------------------------------------------------------------------------------ backward
def scatter_seq(g, out_pos, target, n_in, w=None, fused=True, w2=None):
    """grad_input (B, n_in) of the contributions k in the kernel's order, ``g[:, out_pos[k]]``
    into ``target[k]``: ``acc + g`` (w None), ``fma(w[k], g, acc)``, or
    ``acc + (g * w[k]) * w2[k]``. Vectorised by rank: the r-th contributions of the targets
    touch each target once."""
    dt = g.dtype.type
    B = g.shape[0]
    acc = np.zeros((B, n_in), dt)
    K = len(target)
    if K == 0:
        return acc
    order = np.argsort(target, kind="stable")
    st = target[order]
    first = np.r_[0, np.nonzero(np.diff(st))[0] + 1]
    grp = np.repeat(first, np.diff(np.r_[first, K]))
    rank = np.empty(K, np.int64)
    rank[order] = np.arange(K) - grp
    for r in range(int(rank.max()) + 1):
        sel = np.nonzero(rank == r)[0]
        t = target[sel]
        gv = g[:, out_pos[sel]]
        if w is None:
            acc[:, t] = acc[:, t] + gv
        elif w2 is None:
            acc[:, t] = fma(w[sel], gv, acc[:, t], dt, fused)
        else:
            acc[:, t] = acc[:, t] + ((gv * w[sel]).astype(dt) * w2[sel]).astype(dt)
    return acc


# ------------------------------------------------------------------------------ torch's choice
def forward(x, kind, ac, out, scales, antialias, cl_input, threads, lanes, fused):
    """The output of ``x`` (N, C, *in) resized to ``out``; ``kind``: nearest, nearest-exact,
    linear or cubic; ``scales`` the user's scale factors (None: in/out); ``cl_input`` whether
    x is channels-last; ``threads`` torch's thread count."""
    nd = x.ndim - 2
    ins = x.shape[2:]
    dt = x.dtype.type
    C = x.shape[1]
    if nd == 2:
        vec = (cl_input and C > 3) or (out[0] + out[1] <= 128)
    elif nd == 3:
        vec = cl_input and C > 3
    else:
        vec = False
    if x.dtype == np.uint8 and kind in ("linear", "cubic") and nd == 2:
        return uint8_resize(x, kind, ac, out, scales, antialias)
    if kind in ("nearest", "nearest-exact"):
        ker = "idx" if vec else "generic"
        idx = [nearest_map(n, o, s, kind == "nearest-exact", ker, fused)
               for n, o, s in zip(ins, out, scales)]
        return x[np.ix_(*([np.arange(x.shape[0]), np.arange(C)] + idx))]
    if antialias:
        amaps = []
        for n, o, s in zip(ins, out, scales):
            xmin, xsize, W = aa_map(n, o, ac, s, dt, kind == "cubic", fused)
            amaps.append((xmin, xsize, W, n == o))
        if tuple(ins) == tuple(out):
            return x.copy()
        return aa_forward(x, amaps, fused)
    if kind == "cubic":
        maps = [cubic_map(n, o, ac, s, dt, fused) for n, o, s in zip(ins, out, scales)]
    else:
        maps = [linear_map(n, o, ac, s, dt, fused) for n, o, s in zip(ins, out, scales)]
        if nd == 2 and threads == 1 and C == 3:
            vec = True
        if vec:
            return cl_linear(x, maps, lanes, fused)
    for d in range(nd - 1, -1, -1):
        x = tap_pass(x, 2 + d, maps[d][0], maps[d][1], fused)
    return x


def backward(g, kind, ac, ins, scales, antialias, fused):
    """The input gradient (N, C, *ins) of ``forward`` for the output gradient ``g``."""
    nd = g.ndim - 2
    out = g.shape[2:]
    dt = g.dtype.type
    B = g.shape[0] * g.shape[1]
    g2 = np.ascontiguousarray(g).reshape(B, -1)
    nout = int(np.prod(out))
    nin = int(np.prod(ins))
    opos = np.arange(nout)
    if kind in ("nearest", "nearest-exact"):
        idx = [nearest_map(n, o, s, kind == "nearest-exact", "idx")
               for n, o, s in zip(ins, out, scales)]
        tgt = np.ravel_multi_index(np.meshgrid(*idx, indexing="ij"), ins).reshape(-1)
        r = scatter_seq(g2, opos, tgt, nin)
    elif antialias:
        if tuple(ins) == tuple(out):
            return g.copy()
        (ym, ys, wy), (xm, xs, wx) = [aa_map(n, o, ac, s, dt, kind == "cubic", fused)
                                      for n, o, s in zip(ins, out, scales)]
        Ky, Kx = wy.shape[1], wx.shape[1]
        oh, ow = np.meshgrid(np.arange(out[0]), np.arange(out[1]), indexing="ij")
        oh, ow = oh.reshape(-1, 1, 1), ow.reshape(-1, 1, 1)
        jy, jx = np.arange(Ky).reshape(1, -1, 1), np.arange(Kx).reshape(1, 1, -1)
        live = (jy < ys[oh]) & (jx < xs[ow])
        tgt = (ym[oh] + jy) * ins[1] + (xm[ow] + jx)
        w = (wx[ow, jx] * wy[oh, jy]).astype(dt)
        pos = np.broadcast_to(oh * out[1] + ow, live.shape)
        r = scatter_seq(g2, pos[live], tgt[live], nin, w[live], fused)
    elif kind == "cubic":
        if tuple(ins) == tuple(out):
            return g.copy()
        # UpSampleBicubic2d.cpp is not a cpu/ kernel: built without FMA
        (iy, cy), (ix, cx) = [cubic_map(n, o, ac, s, dt, False)
                              for n, o, s in zip(ins, out, scales)]
        oh, ow = np.meshgrid(np.arange(out[0]), np.arange(out[1]), indexing="ij")
        oh, ow = oh.reshape(-1, 1, 1), ow.reshape(-1, 1, 1)
        ii, jj = np.arange(4).reshape(1, -1, 1), np.arange(4).reshape(1, 1, -1)
        tgt = iy[oh, jj] * ins[1] + ix[ow, ii]
        pos = np.broadcast_to(oh * out[1] + ow, tgt.shape)
        r = scatter_seq(g2, pos.reshape(-1), tgt.reshape(-1), nin,
                        np.broadcast_to(cy[oh, jj], tgt.shape).reshape(-1),
                        w2=np.broadcast_to(cx[ow, ii], tgt.shape).reshape(-1))
    else:
        maps = [linear_map(n, o, ac, s, dt, fused) for n, o, s in zip(ins, out, scales)]
        grids = np.meshgrid(*[np.arange(o) for o in out], indexing="ij")
        grids = [gr.reshape(-1) for gr in grids]
        tg, ws = [], []
        for bits in np.ndindex(*(2,) * nd):
            multi = [maps[d][0][grids[d], bits[d]] for d in range(nd)]
            tg.append(np.ravel_multi_index(multi, ins))
            w = None
            for d in range(nd):
                wd = maps[d][1][grids[d], bits[d]]
                w = wd if w is None else (w * wd).astype(dt)
            ws.append(w)
        tgt = np.stack(tg, 1).reshape(-1)
        w = np.stack(ws, 1).reshape(-1)
        pos = np.repeat(opos, 2 ** nd)
        r = scatter_seq(g2, pos, tgt, nin, w, fused)
    return r.reshape(g.shape[:2] + tuple(ins))


# ------------------------------------------------------------------------------ adaptive average
def _windows(n_in, n_out):
    """ATen's start_index / end_index of every output of one axis."""
    o = np.arange(n_out)
    lo = (o * n_in) // n_out
    hi = ((o + 1) * n_in + n_out - 1) // n_out
    return lo, hi - lo


def _per_output_divide(v, ks, lanes, cl, dt):
    """``v / k0 / k1 ...`` (channels-first, and the channels-last kernel's scalar tail) or
    ``v / (k0 * k1 ...)`` (the channels-last kernel's vector lanes) per output."""
    nd = len(ks)
    grids = np.meshgrid(*ks, indexing="ij")
    seq = v
    for k in grids:
        seq = (seq / k.astype(dt)).astype(dt)
    if not cl:
        return seq
    prod = np.prod(np.stack(grids), axis=0).astype(dt)
    vec = (v / prod).astype(dt)
    C = v.shape[1]
    nv = C - C % lanes
    out = seq.copy()
    out[:, :nv] = vec[:, :nv]
    _ = nd
    return out


def adaptive_avg_forward(x, out, cl, lanes):
    """cpu_adaptive_avg_pool{,3d}[_channels_last]: each window summed in raster order from 0,
    then divided (see ``_per_output_divide``; ``cl``: the 2-d channels-last kernel, whose
    vector lanes divide once by the window's size; the 3-d one divides in turn)."""
    dt = x.dtype.type
    nd = len(out)
    ins = x.shape[2:]
    acc = np.zeros(x.shape[:2] + tuple(out), dt)
    if acc.size == 0:
        return acc
    wins = [_windows(n, o) for n, o in zip(ins, out)]
    for offs in np.ndindex(*[int(w[1].max()) for w in wins]):
        ix = []
        live = np.ones(tuple(out), bool)
        for d, (lo, k) in enumerate(wins):
            shape = [1] * nd
            shape[d] = -1
            ix.append(np.minimum(lo + offs[d], ins[d] - 1).reshape(shape))
            live = live & (offs[d] < k).reshape(shape)
        t = x[(Ellipsis,) + tuple(ix)]
        acc = np.where(live, (acc + t).astype(dt), acc)
    return _per_output_divide(acc, [w[1] for w in wins], lanes, cl, dt)


def adaptive_avg_backward(g, ins, cl, lanes):
    """cpu_adaptive_avg_pool{,3d}_backward[_channels_last]: each output's share added to its
    window's inputs in raster order of the outputs, the window's in raster order inside."""
    dt = g.dtype.type
    nd = g.ndim - 2
    out = g.shape[2:]
    wins = [_windows(n, o) for n, o in zip(ins, out)]
    delta = _per_output_divide(np.asarray(g, dt), [w[1] for w in wins], lanes, cl, dt)
    kmax = [int(w[1].max()) for w in wins]
    grids = np.meshgrid(*[np.arange(o) for o in out], indexing="ij")
    pos, tgt = [], []
    flat_out = np.arange(int(np.prod(out))).reshape(out)
    for offs in np.ndindex(*kmax):
        live = np.ones(tuple(out), bool)
        multi = []
        for d, (lo, k) in enumerate(wins):
            live = live & (offs[d] < k[grids[d]])
            multi.append(np.minimum(lo[grids[d]] + offs[d], ins[d] - 1))
        t = np.ravel_multi_index(multi, ins)
        pos.append(np.where(live, flat_out, -1))
        tgt.append(t)
    pos = np.stack(pos, -1).reshape(-1)   # output-major, window offsets in raster order
    tgt = np.stack(tgt, -1).reshape(-1)
    keep = pos >= 0
    B = g.shape[0] * g.shape[1]
    r = scatter_seq(np.ascontiguousarray(delta).reshape(B, -1), pos[keep], tgt[keep],
                    int(np.prod(ins)))
    return r.reshape(g.shape[:2] + tuple(ins))


# ------------------------------------------------------------------------------ uint8
def _u8_filter(x, cubic, a):
    x = abs(x)
    if not cubic:
        return 1.0 - x if x < 1.0 else 0.0
    if x < 1.0:
        return ((a + 2) * x - (a + 3)) * x * x + 1
    if x < 2.0:
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return 0.0


def _u8_axis(n_in, n_out, ac, scale, cubic, aa):
    """(xmin (O,), int16 weights (O, K), precision) of ``_compute_index_ranges_int16_weights``:
    double weights (``_compute_indices_min_size_weights[_aa]``; without antialias the taps
    outside the input add into the edge ones), scaled to int16 at the largest precision that
    keeps them below 2^15."""
    if ac:
        s = (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    else:
        s = 1.0 / scale if scale is not None and scale > 0 else n_in / n_out
    interp = 4 if cubic else 2
    a = -0.5 if aa else -0.75
    if aa:
        support = interp * 0.5 * s if s >= 1.0 else interp * 0.5
        K = int(math.ceil(support)) * 2 + 1
    else:
        K = interp
    rows = []
    for i in range(n_out):
        if aa:
            center = s * (i + 0.5)
            inv = 1.0 / s if s >= 1.0 else 1.0
            lo = max(int(center - support + 0.5), 0)
            size = min(max(min(int(center + support + 0.5), n_in) - lo, 0), K)
            w = [_u8_filter((j + lo - center + 0.5) * inv, cubic, a) for j in range(size)]
            tot = sum(w)  # left to right, as the kernel's loop
            w = [v / tot for v in w] if tot != 0 else w
        else:
            real = s * i if ac else s * (i + 0.5) - 0.5
            if not cubic and real < 0:
                real = 0.0
            idx = min(int(math.floor(real)), n_in - 1)
            lam = min(max(real - idx, 0.0), 1.0)
            sup = K // 2
            umin = idx - sup + 1
            lo = max(umin, 0)
            size = min(max(min(idx + sup + 1, n_in) - lo, 0), K)
            w = [0.0] * K
            wi = 0
            for j in range(K):
                v = _u8_filter((j + 1 - sup) - lam, cubic, a)
                if umin + j <= 0:
                    wi = 0
                elif umin + j >= n_in - 1:
                    wi = size - 1
                w[wi] += v
                wi += 1
            w = w[:size]
        rows.append((lo, w))
    wmax = max((max(w) for _, w in rows if w), default=0.0)
    prec = 0
    for prec in range(22):
        if int(0.5 + wmax * (1 << (prec + 1))) >= (1 << 15):
            break
    xmin = np.array([lo for lo, _ in rows], np.int64)
    W = np.zeros((n_out, K), np.int64)
    for o, (_, w) in enumerate(rows):
        for j, v in enumerate(w):
            v *= 1 << prec
            W[o, j] = int(-0.5 + v) if v < 0 else int(0.5 + v)
    return xmin, W, prec


def uint8_resize(x, kind, ac, out, scales, aa):
    """torch's uint8 bilinear / bicubic (antialias or not): the last axis, then the first, each
    ``clamp(((1 << (p - 1)) + sum_k x * w_k) >> p, 0, 255)`` in integers (exact); an axis whose
    size does not change is left as it is."""
    if tuple(x.shape[2:]) == tuple(out):
        return x.copy()
    for d in (1, 0):
        n_in = x.shape[2 + d]
        if n_in == out[d]:
            continue
        xmin, W, p = _u8_axis(n_in, out[d], ac, scales[d], kind == "cubic", aa)
        xm = np.moveaxis(x, 2 + d, -1).astype(np.int64)
        acc = np.full(xm.shape[:-1] + (out[d],), 1 << (p - 1), np.int64)
        for j in range(W.shape[1]):
            acc += xm[..., np.minimum(xmin + j, n_in - 1)] * W[:, j]
        x = np.moveaxis(np.clip(acc >> p, 0, 255).astype(np.uint8), -1, 2 + d)
    return np.ascontiguousarray(x)
