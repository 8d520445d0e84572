"""torch 2.13's CPU batch-norm kernels in numpy, so that ``nn.BatchNorm1d/2d`` round their
float32 results as torch does (Paddle's kernel, which the engine's ``batch_norm`` op follows,
rounds differently in the last bits).

What torch does (``aten/src/ATen/native/cpu/batch_norm_kernel.cpp`` and ``Normalization.cpp``,
for contiguous float32 input; checked bit for bit against torch 2.13 on this machine):

- batch statistics per channel: with more than one position per sample (``image_size > 1``) a
  plain loop adds the values in double (samples, then positions, in memory order); the mean is
  that sum over the count, rounded to float; ``var_sum`` adds the float squares
  ``(x - mean) ** 2`` in double. With one position per sample (2-D input, or 1x1 images) and more
  rows than threads, each thread adds its block of rows in float (``(x - mean) ** 2`` fused into
  the running sum), the threads' partial sums are then added in double; with as many rows as
  threads (2) the same float path runs as one block for up to 16 channels, the double loop for
  more (measured: torch 2.13 on 2 threads).
- ``invstd = 1 / sqrt(var_sum / n + eps)`` in double (``var_sum / n`` in float), stored as float;
  in eval mode ``1 / sqrt(running_var + eps)`` in float.
- the output is ``x * alpha + beta`` fused (one rounding), ``alpha = invstd * weight``,
  ``beta = bias - mean * alpha`` fused.
- running stats: ``m * mean + (1 - m) * running_mean`` in float (``1 - m`` rounded from float
  ``m``), ``running_var = fma(m, var_sum / (n - 1), (1 - m) * running_var)``.
- backward (``image_size > 1``): per (sample, channel) plane, the gradient's sum and the dot
  ``(x - mean) . dy`` as 8-lane vectors (the dot's last partial vector fused), the lanes folded
  as a butterfly (4, 2, 1), the planes added in double; ``k = dotp * invstd * invstd / n``,
  ``dx = ((dy - dy_mean) - (x - mean) * k) * invstd * w`` (the inner product fused).
  With one position per sample: float per-thread sums (the dot fused), added in double; the
  inner product of ``dx`` fused for the channels in full 8-lane vectors only.

Threads: the reference torch ran 2 (``THREADS``); only the one-position-per-sample paths depend
on it. Other dtypes than float32 use the engine's kernel (``supported``)."""
from __future__ import annotations

import numpy as np

from ..engine._native import lib as _NATIVE   # (None: the numpy replays alone)
from ._capability import threads as _threads

THREADS = _threads()   # at::get_num_threads() (the reference torch: 2, a 2-core CPU)
LANES = 8       # float lanes of the vectorised reductions (AVX2 Vectorized<float>)
SMALL_C = 16    # rows <= THREADS: up to this many channels take the float path, one block

_f32, _f64 = np.float32, np.float64


def supported(x) -> bool:
    """Whether these kernels apply: float32 or float64 input with at least one value."""
    return (x.dtype == _f32 or x.dtype == _f64) and x.size > 0 and x.ndim >= 2


# (numpy scalars: comparing an array with a Python int or float costs 2-4 us more a call)
_LOW29, _TIE29 = np.int64(0x1FFFFFFF), np.int64(0x10000000)
_TINY, _ZERO = _f64(2.0 ** -125), _f64(0)


_nd, _i64 = np.ndarray, np.int64
_TINY2 = _f64(2.0 ** -250)   # s * s below this (and not 0): |s| < 2 ** -125
_count, _and, _equal = np.count_nonzero, np.bitwise_and, np.equal


def _d(v):
    return v.astype(_f64) if type(v) is _nd else float(v)


def fma(a, b, c):
    """float32 ``a * b + c`` with one rounding (a fused multiply-add). The product of two
    floats is exact in double; the double sum rounds to the right float unless it lands exactly
    on a float midpoint (or in the subnormal range): those few are redone with the sum's
    error term, rounded to odd, so that the final rounding is correct. (The engine's
    ``_kernels._fma`` skips that repair: 4x faster, right on all but those ties; the norms'
    sums hit such a tie in a measured case, so they take this one.)

    The common case (no tie, nothing tiny: the SLEEF replays call this 26 times a char-MLP
    step on 864 values) in 11 numpy calls, each same-dtype (numpy's mixed float32/float64
    loops and ``.any()`` cost 2-4 us a call more on such arrays); anything else is
    ``_fma_repaired``. Three float32 arrays of one shape, C-contiguous, all finite: the
    native ``fmaf`` (``_cnative.fma_f32``, the same correctly rounded results; a batch norm's
    backward makes ~65 such calls on a row of 200)."""
    native = getattr(_NATIVE, "fma_f32", None)
    if native is not None and type(a) is _nd and type(b) is _nd and type(c) is _nd and \
            a.dtype == _f32 and b.dtype == _f32 and c.dtype == _f32 and \
            a.shape == b.shape == c.shape and a.flags.c_contiguous and b.flags.c_contiguous \
            and c.flags.c_contiguous:
        out = np.empty(a.shape, _f32)
        if not native(a, b, c, out):   # (1: a value not finite, left to numpy)
            return out
    s = _d(a) * _d(b) + _d(c)
    if type(s) is _nd:
        sq = s * s
        if not (_count(_equal(_and(s.view(_i64), _LOW29), _TIE29))
                or _count((sq < _TINY2) & (sq > _ZERO))):
            return s.astype(_f32)
    return _fma_repaired(a, b, c)


def _fma_repaired(a, b, c):
    p = np.multiply(a, b, dtype=_f64)
    s = p + np.asarray(c, _f64)
    bits = np.asarray(s).view(np.int64)
    odd = (bits & _LOW29) == _TIE29
    # (an exact zero sum needs no repair: the double sum of two doubles is zero only when it is
    # exactly zero; the error terms of the exact kernels (vlog, vexp's q = 0) are often zero)
    tiny = np.abs(s)
    odd |= (tiny < _TINY) & (tiny != _ZERO)
    if odd.any():
        s = np.array(s, _f64, copy=True)
        pp = np.broadcast_to(p, s.shape)[odd]
        cc = np.broadcast_to(np.asarray(c, _f64), s.shape)[odd]
        with np.errstate(invalid="ignore", over="ignore"):
            ss = pp + cc
            bb = ss - pp
            err = (pp - (ss - bb)) + (cc - bb)
        fix = (err != 0) & ((ss.view(np.int64) & 1) == 0) & np.isfinite(ss)
        s[odd] = np.where(fix, np.nextafter(ss, np.where(err > 0, np.inf, -np.inf)), ss)
    return np.asarray(s).astype(_f32)


def _seq64(rows):
    """rows (R, K) -> (R,) float64: each row added in order in double to torch's zero-initialised
    accumulator (``0 + a + b ...``: a row of -0 sums to +0; the + 0.0 does just that)."""
    if rows.shape[1] == 0:
        return np.zeros(rows.shape[0], _f64)
    return np.cumsum(rows.astype(_f64), axis=1)[:, -1] + _f64(0)


def _chunks(n):
    """at::parallel_for's blocks of ``range(n)`` over THREADS threads (grain 1)."""
    t = min(THREADS, n)
    step = -(-n // t)
    return [(i, min(n, i + step)) for i in range(0, n, step)]


def _planes(x):
    n, c = x.shape[:2]
    return n, c, x.size // (n * c)


# ------------------------------------------------------------------------ statistics
def batch_stats(x):
    """(mean, var_sum) per channel (float32, float64) as torch's collect_stats kernel gives
    them."""
    _f32, LANES, fma = _kind(x)   # noqa: N806  (the scalar type: float32 or float64)
    n0, c, img = _planes(x)
    count = x.size // c
    if img > 1 or (count <= THREADS and c > SMALL_C):
        rows = np.ascontiguousarray(np.moveaxis(x.reshape(n0, c, img), 1, 0)).reshape(c, -1)
        mean = (_seq64(rows) / count).astype(_f32)
        d = rows - mean[:, None]
        return mean, _seq64(d * d).astype(_f32)
    xl = x.reshape(count, c)
    blocks = _chunks(count) if count > THREADS else [(0, count)]
    parts = [np.add.accumulate(xl[a:e], axis=0)[-1] for a, e in blocks]
    mean = (_seq64(np.stack(parts, 1)) / count).astype(_f32)
    parts = []
    for a, e in blocks:
        acc = np.zeros(c, _f32)
        for i in range(a, e):
            d = xl[i] - mean
            acc = fma(d, d, acc)
        parts.append(acc)
    return mean, _seq64(np.stack(parts, 1)).astype(_f32)


def train_invstd(var_sum, count, eps):
    """``1 / sqrt(var_sum / count + eps)``: the quotient in the input's type, the rest in
    double."""
    t = _f64 if np.asarray(var_sum).dtype == _f64 else _f32
    var = (var_sum / t(count)).astype(t)
    return (1.0 / np.sqrt(var.astype(_f64) + float(eps))).astype(t)


def eval_invstd(running_var, eps, double=False):
    """The forward's (float) or the backward's (double, then float) ``1 / sqrt(var + eps)``."""
    rv = np.asarray(running_var)
    if rv.dtype == _f64:
        return 1.0 / np.sqrt(rv + float(eps))
    rv = rv.astype(_f32, copy=False)
    if double:
        return (1.0 / np.sqrt(rv.astype(_f64) + float(eps))).astype(_f32)
    return (_f32(1) / np.sqrt(rv + _f32(eps))).astype(_f32)


def update_running(running_mean, running_var, mean, var_sum, count, momentum):
    """torch's running-average update, in place (either may be None)."""
    _f32, _lanes, fma = _kind(np.asarray(mean))   # noqa: N806
    m = _f32(momentum)
    keep = _f32(1) - m
    if running_mean is not None:
        running_mean[...] = m * mean + keep * running_mean.astype(_f32)
    if running_var is not None:
        unbiased = (var_sum / _f32(count - 1)).astype(_f32)
        if _f32 is _f64:   # (float64: not fused, measured against real torch)
            running_var[...] = m * unbiased + keep * running_var
        else:
            running_var[...] = fma(m, unbiased, keep * running_var.astype(_f32))


# ------------------------------------------------------------------------ forward
def transform(x, weight, bias, mean, invstd):
    """``x * alpha + beta`` per channel, torch's rounding."""
    _f32, _lanes, fma = _kind(x)   # noqa: N806
    c = x.shape[1]
    w = np.ones(c, _f32) if weight is None else np.asarray(weight, _f32)
    b = np.zeros(c, _f32) if bias is None else np.asarray(bias, _f32)
    alpha = (invstd * w).astype(_f32)
    beta = -fma(mean, alpha, -b)
    shp = (1, c) + (1,) * (x.ndim - 2)
    return fma(x, alpha.reshape(shp), beta.reshape(shp))


# ------------------------------------------------------------------------ backward
def _butterfly(acc):
    """Fold the lanes (R, L) -> (R,) as torch's vec_reduce_all: lane i + lane i^h, h = L/2..1."""
    lanes = acc.shape[-1]
    h = lanes // 2
    while h >= 1:
        acc = acc + acc[..., np.arange(lanes) ^ h]
        h //= 2
    return acc[..., 0]


def _kind(a):
    """(scalar type, lanes of one AVX2-build ``Vectorized``, fused multiply-add) for the dtype
    of ``a``: float32's 8 lanes, float64's 4 (the norm kernels have no AVX512 build)."""
    if a.dtype == _f64:
        from ._sleef64 import fma64
        return _f64, LANES // 2, fma64
    return _f32, LANES, fma


def _vec_sums(terms, extra=None):
    """torch's reduce_all (``extra`` None) or map2_reduce_all of products ``terms * extra``
    (the last partial vector fused) over each row of (R, S), in float32 (float64: 4 lanes)."""
    r, s = terms.shape
    _t, LANES, fma = _kind(terms)   # noqa: N806
    if s < LANES:
        prod = terms if extra is None else terms * extra
        return np.add.accumulate(prod, axis=1)[:, -1]
    full = s - s % LANES
    body = terms[:, :full] if extra is None else terms[:, :full] * extra[:, :full]
    acc = np.add.accumulate(body.reshape(r, full // LANES, LANES), axis=1)[:, -1].copy()
    t = s - full
    if t:
        if extra is None:
            acc[:, :t] = acc[:, :t] + terms[:, full:]
        else:
            acc[:, :t] = fma(terms[:, full:], extra[:, full:], acc[:, :t])
    if acc.dtype == _f64:   # (vec_reduce_all has no SIMD fold for double: lanes in order)
        return np.add.accumulate(acc, axis=1)[:, -1]
    return _butterfly(acc)


def backward(x, g, weight, mean, invstd, training, want=(True, True, True)):
    """(grad_input, grad_weight, grad_bias) of torch's batch_norm backward; ``mean`` and
    ``invstd`` are the saved ones (training) or the running mean and ``eval_invstd(..., True)``."""
    _f32, LANES, fma = _kind(x)   # noqa: N806  (the scalar type: float32 or float64)
    n0, c, img = _planes(x)
    count = x.size // c
    w = np.ones(c, _f32) if weight is None else np.asarray(weight, _f32)
    if img > 1:
        xr, gr = x.reshape(n0 * c, img), g.reshape(n0 * c, img)
        sums = _vec_sums(gr).reshape(n0, c).T
        dots = _vec_sums(xr - np.tile(mean, n0)[:, None], gr).reshape(n0, c).T
        sum64, dot64 = _seq64(sums), _seq64(dots)
        gb = sum64.astype(_f32)
        gw = (dot64 * invstd.astype(_f64)).astype(_f32)
        dotp = dot64.astype(_f32)
        grad_mean = (sum64 / count).astype(_f32)
        shp = (1, c, 1)
        x3, g3 = x.reshape(n0, c, img), g.reshape(n0, c, img)
    else:
        xl, gl = x.reshape(count, c), g.reshape(count, c)
        sparts, dparts = [], []
        for a, e in _chunks(count):
            s = np.zeros(c, _f32)
            d = np.zeros(c, _f32)
            for i in range(a, e):
                s = s + gl[i]
                d = fma(xl[i] - mean, gl[i], d)
            sparts.append(s)
            dparts.append(d)
        gb = _seq64(np.stack(sparts, 1)).astype(_f32)
        dotp = _seq64(np.stack(dparts, 1)).astype(_f32)
        gw = (dotp * invstd).astype(_f32)
        grad_mean = (gb / _f32(count)).astype(_f32)
        shp = (1, c)
        x3, g3 = xl, gl
    gx = None
    if want[0]:
        inv, wv = invstd.reshape(shp), w.reshape(shp)
        if training:
            k = (dotp * invstd * invstd / _f32(count)).astype(_f32).reshape(shp)
            xm = x3 - mean.reshape(shp)
            dd = g3 - grad_mean.reshape(shp)
            t = fma(-xm, k, dd)   # (-(xm * k) + dd: +0 where dd and xm * k are +0, as torch's
            #                     fused subtraction; -fma(xm, k, -dd) gave -0 there)
            if img == 1 and c % LANES:     # the channels past the last full vector: scalar code
                tail = c - c % LANES
                t[:, tail:] = dd[:, tail:] - xm[:, tail:] * k[:, tail:]
            gx = t * inv * wv
        else:
            gx = g3 * inv * wv
        gx = gx.astype(_f32).reshape(x.shape)
    return gx, (gw if want[1] else None), (gb if want[2] else None)


# ------------------------------------------------------------------------ layer norm
# torch's layer_norm kernel (``aten/src/ATen/native/cpu/layer_norm_kernel.cpp``, moments from
# ``moments_utils.h``), float32, rows of the trailing ``normalized_shape`` values; checked bit
# for bit against torch 2.13 (rows of 1..5000 values, with and without weight).
_CHUNK = 16     # kChunkSize: vectors per Welford chunk


def _add_moments_vec(m0a, m1a, m2a, st, kind=(_f32, LANES, fma)):
    """AddMomentsVec: merge (count m0a, mean m1a, m2 m2a) into the stack entry ``st``."""
    _f32, _lanes, fma = kind   # noqa: N806  (the scalar type: float32 or float64)
    m0, m1, m2 = st
    n = m0 + m0a
    c = _f32(0) if n == 0 else _f32(_f32(m0a) / _f32(n))
    delta = m1a - m1
    m2t = m2 + m2a
    cd = c * delta
    st[1] = m1 + cd
    st[2] = fma(delta * _f32(m0), cd, m2t)
    st[0] = n


def _welford_chunks(x, n):
    """UpdateMomentsVec of each chunk of ``_CHUNK`` vectors: [(count, m1, m2)], (R, LANES) each."""
    _f32, LANES, fma = _kind(x)   # noqa: N806
    r = x.shape[0]
    out = []
    full = n // _CHUNK
    spans = [(0, full, _CHUNK)] if full else []
    if n % _CHUNK:
        spans.append((full, 1, n % _CHUNK))
    for first, count, m0 in spans:
        start = first * _CHUNK * LANES
        blk = x[:, start:start + count * m0 * LANES].reshape(r, count, m0, LANES)
        m1 = np.zeros((r, count, LANES), _f32)
        m2 = np.zeros((r, count, LANES), _f32)
        for j in range(m0):
            xv = blk[:, :, j]
            d = xv - m1
            m1 = fma(_f32(_f32(1) / _f32(j + 1)), d, m1)
            m2 = fma(d, xv - m1, m2)
        out.extend((m0, m1[:, k], m2[:, k]) for k in range(count))
    return out


def row_moments(x):
    """torch's RowwiseMoments of each row of (R, N) float32 or float64: (mean, biased variance)."""
    kind = _kind(x)
    _f32, LANES, fma = kind   # noqa: N806
    r, size = x.shape
    n = size // LANES
    chunks = _welford_chunks(x, n)
    depth = 0 if len(chunks) <= 1 else int(len(chunks) - 1).bit_length()
    zero = np.zeros((r, LANES), _f32)
    stk = [[0, zero, zero] for _ in range(max(depth, 1))]
    for i, (m0, m1, m2) in enumerate(chunks):
        _add_moments_vec(m0, m1, m2, stk[0], kind)
        mask, j = i + 1, 1
        while j < depth and (mask & 1) == 0:
            _add_moments_vec(*stk[j - 1], stk[j], kind)
            stk[j - 1] = [0, zero, zero]
            mask >>= 1
            j += 1
    for i in range(1, depth):
        _add_moments_vec(*stk[i], stk[0], kind)
    lanes1, lanes2 = stk[0][1], stk[0][2]
    m0, m1, m2 = 0, np.zeros(r, _f32), np.zeros(r, _f32)
    for i in range(n * LANES, size):          # the leftover values: scalar Welford
        xi = x[:, i]
        d = xi - m1
        m0 += 1
        m1 = m1 + d / _f32(m0)
        m2 = m2 + d * (xi - m1)
    for i in range(LANES):                    # then the lanes (AddMoments, fused)
        tot = m0 + n
        c = _f32(0) if tot == 0 else _f32(_f32(n) / _f32(tot))
        d = lanes1[:, i] - m1
        m1 = fma(c, d, m1)
        m2 = m2 + fma((d * d) * c, _f32(m0), lanes2[:, i])
        m0 = tot
    return m1, (m2 / _f32(size)).astype(_f32)


def layer_norm(x, weight, bias, eps):
    """(y, mean, rstd) of (R, N) rows: ``y = fma((x - mean) * rstd, weight, bias)``."""
    _f32, _lanes, fma = _kind(x)   # noqa: N806
    mean, var = row_moments(x)
    rstd = (_f32(1) / np.sqrt(var + _f32(eps))).astype(_f32)
    t = (x - mean[:, None]) * rstd[:, None]
    if weight is None and bias is None:
        return t, mean, rstd
    w = np.ones(x.shape[1], _f32) if weight is None else np.asarray(weight, _f32).reshape(-1)
    b = np.zeros(x.shape[1], _f32) if bias is None else np.asarray(bias, _f32).reshape(-1)
    return fma(t, w, b), mean, rstd


def _row_dot(a, b):
    """map2_reduce_all(a * b, +) over each row (the last partial vector fused)."""
    return _vec_sums(np.ascontiguousarray(a), np.ascontiguousarray(b))


def layer_norm_backward(x, g, weight, mean, rstd, want=(True, True, True)):
    """(dx, dweight, dbias) of torch's layer_norm backward over (R, N) rows."""
    _f32, _lanes, fma = _kind(x)   # noqa: N806
    r, size = x.shape
    w = None if weight is None else np.asarray(weight, _f32).reshape(-1)
    a = rstd[:, None]
    mu = mean[:, None]
    dx = dw = db_ = None
    if want[0]:
        scale = _f32(_f32(1) / _f32(size))
        if w is None:
            ds, db, t = _row_dot(g, x), _vec_sums(g), a * g
        else:
            wb = np.broadcast_to(w, x.shape)
            ds, db, t = _row_dot(g * x, wb), _row_dot(g, wb), (a * g) * w
        ds, db = ds[:, None], db[:, None]
        b = fma(db, mu, -ds) * a * a * a * scale
        c = fma(-b, mu, -(db * a * scale))
        dx = (fma(b, x, t) + c).astype(_f32)
    if want[1] or want[2]:
        blocks = _chunks(r)
        pb = [np.add.accumulate(g[s:e], axis=0)[-1] for s, e in blocks]
        db_ = pb[0]
        for p in pb[1:]:
            db_ = db_ + p
        if want[1]:
            inner = fma(a, x, -a * mu)              # a * x + b, b = -rstd * mean
            pw = _thread_fma_sums(g, inner, blocks)
            dw = pw[0]
            for p in pw[1:]:
                dw = dw + p
    return dx, (dw if want[1] else None), (db_ if want[2] else None)


def _thread_fma_sums(u, v, blocks):
    """Per block of rows, ``acc = fma(u[i], v[i], acc)`` down the rows (float32), the blocks
    side by side (each thread's buffer); a shorter last block stops early."""
    _f32, _lanes, fma = _kind(u)   # noqa: N806
    steps = blocks[0][1] - blocks[0][0]
    acc = np.zeros((len(blocks),) + u.shape[1:], _f32)
    starts = np.array([s for s, _e in blocks])
    lens = np.array([e - s for s, e in blocks])
    for k in range(steps):
        live = lens > k
        if live.all():
            idx = starts + k
            acc = fma(u[idx], v[idx], acc)
        else:
            idx = starts[live] + k
            acc[live] = fma(u[idx], v[idx], acc[live])
    return list(acc)


# ------------------------------------------------------------------------ group norm
# torch's group_norm kernel (``group_norm_kernel.cpp``, contiguous NCHW, float32): the moments
# of each (sample, group) as layer_norm's rows; checked bit for bit against torch 2.13.
def group_norm(x, weight, bias, groups, eps, affine=True):
    """(y, mean, rstd) of (N, C, ...) over ``groups`` groups of channels; ``affine`` False: no
    weight and no bias (``(x - mean) * rstd``), else ``fma(scale, x, beta - scale * mean)``
    with ``scale = rstd * weight``. float32 or float64."""
    _f32, _lanes, fma = _kind(x)   # noqa: N806  (the scalar type: float32 or float64)
    n, c = x.shape[:2]
    d = c // groups
    rows = np.ascontiguousarray(x).reshape(n * groups, -1)
    mean, var = row_moments(rows)
    rstd = (1.0 / np.sqrt(np.maximum(var, 0).astype(_f64) + float(eps))).astype(_f32)
    x3 = rows.reshape(n, c, -1)
    m = np.repeat(mean.reshape(n, groups), d, axis=1)[:, :, None]
    r = np.repeat(rstd.reshape(n, groups), d, axis=1)[:, :, None]
    if not affine:
        return ((x3 - m) * r).reshape(x.shape), mean, rstd
    w = np.ones(c, _f32) if weight is None else np.asarray(weight, _f32)
    b = np.zeros(c, _f32) if bias is None else np.asarray(bias, _f32)
    scale = r * w[None, :, None]
    return fma(scale, x3, fma(-scale, m, b[None, :, None])).reshape(x.shape), mean, rstd


def group_norm_backward(x, g, weight, mean, rstd, groups, want=(True, True, True)):
    """(dx, dweight, dbias) of torch's group_norm backward (a None weight counts as ones)."""
    _f32, LANES, fma = _kind(x)   # noqa: N806  (float32's 8 lanes, float64's 4)
    n, c = x.shape[:2]
    d = c // groups
    x2 = np.ascontiguousarray(x).reshape(n * c, -1)
    g2 = np.ascontiguousarray(g).reshape(n * c, -1)
    hw = x2.shape[1]
    if x.dtype == _f64:   # (float64: the last partial vector's products fused, as measured)
        ds = _vec_sums(g2, x2).reshape(n, c)
    else:                 # ComputeInternalGradients: no fused ops
        ds = _vec_sums(g2 * x2).reshape(n, c)
    db = _vec_sums(g2).reshape(n, c)
    w = np.ones(c, _f32) if weight is None else np.asarray(weight, _f32)
    mg = np.repeat(mean.reshape(n, groups), d, axis=1)
    rg = np.repeat(rstd.reshape(n, groups), d, axis=1)
    dx = dw = dbias = None
    if want[0]:
        rows = n * groups
        dsr, dbr = ds.reshape(rows, d), db.reshape(rows, d)
        wr = np.tile(w.reshape(groups, d), (n, 1))
        full = d - d % LANES
        sv = np.zeros(rows, _f32)
        bv = np.zeros(rows, _f32)
        if full:                                    # CalcDsDb: fused 8-lane sums, lanes in order
            acc_s = np.zeros((rows, LANES), _f32)
            acc_b = np.zeros((rows, LANES), _f32)
            for j in range(0, full, LANES):
                acc_s = fma(dsr[:, j:j + LANES], wr[:, j:j + LANES], acc_s)
                acc_b = fma(dbr[:, j:j + LANES], wr[:, j:j + LANES], acc_b)
            for k in range(LANES):
                sv = sv + acc_s[:, k]
                bv = bv + acc_b[:, k]
        for j in range(full, d):                    # the leftover channels, fused
            sv = fma(dsr[:, j], wr[:, j], sv)
            bv = fma(dbr[:, j], wr[:, j], bv)
        s = _f32(_f32(1) / _f32(d * hw))
        c2 = fma(bv, mean, -sv) * rstd * rstd * rstd * s
        c3 = fma(-(bv * rstd), s, -c2 * mean)
        c1 = (rg * w[None, :])[:, :, None]
        c2c = np.repeat(c2.reshape(n, groups), d, axis=1)[:, :, None]
        c3c = np.repeat(c3.reshape(n, groups), d, axis=1)[:, :, None]
        x3, g3 = x2.reshape(n, c, hw), g2.reshape(n, c, hw)
        dx = (fma(c1, g3, c2c * x3) + c3c).astype(_f32).reshape(x.shape)
    if want[1]:
        dw = np.zeros(c, _f32)
        for i in range(n):                          # GammaBackward, over the samples in order
            dw = fma(-fma(db[i], mg[i], -ds[i]), rg[i], dw)
    if want[2]:
        dbias = np.add.accumulate(db, axis=0)[-1]
    return dx, dw, dbias
