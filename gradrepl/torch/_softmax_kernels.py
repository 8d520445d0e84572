"""torch 2.13's CPU softmax / log_softmax / nll_loss kernels in numpy (float32), so that
``F.softmax``, ``F.log_softmax``, ``F.cross_entropy`` and their gradients round as torch's do.

What torch does along a contiguous last dim (``aten/src/ATen/native/cpu/SoftMaxKernel.cpp``,
vectorised with AVX-512 ``Vectorized<float>``: 16 lanes; checked bit for bit against torch 2.13
on this machine):

- the row maximum, then ``exp(x - max)`` by SLEEF's ``expf_u10`` (``vexp`` below: a Cody-Waite
  reduction by ln 2 in two fused steps, a degree-6 polynomial in fused multiply-adds, the
  scale by two powers of two);
- the row sum of those exponentials as 16-lane vectors (the last partial vector added into the
  first lanes), the lanes folded pairwise 8, 4, 2, 1; rows shorter than 16 add in order;
- softmax: ``e * (1 / sum)``; log_softmax: ``(x - max) - log(sum)`` with SLEEF's ``logf_u10``
  (``vlog``: AVX-512's getexp/getmant split, double-float arithmetic);
- backward: softmax ``(g - sum(g * y)) * y``, log_softmax ``g - exp(y) * sum(g)`` (one fused
  multiply-add) (sums as above);
- nll_loss: ``-x[target]`` added in a cascade of 8 partial sums, divided by the count (mean).

Only float32 rows are handled here (``supported``); other dtypes use the engine's kernels."""
from __future__ import annotations

import numpy as np

from ._norm_kernels import fma

F32 = np.float32
LANES = 16

_R_LN2 = F32(1.442695040888963407359924681001892137426645954152985934135449406931)
_L2U, _L2L = F32(0.693145751953125), F32(1.428606765330187045e-06)
_EXP_P = [F32(v) for v in (0.000198527617612853646278381, 0.00139304355252534151077271,
                           0.00833336077630519866943359, 0.0416664853692054748535156,
                           0.166666671633720397949219, 0.5)]
_LN2_HI, _LN2_LO = F32(0.69314718246459960938), F32(-1.904654323148236017e-09)
_LOG_P = [F32(v) for v in (0.3027294874, 0.3996108174, 0.6666694880)]


def supported(x) -> bool:
    return x.dtype == F32 and x.size > 0


def _pow2i(q):
    return ((q + 0x7F).astype(np.int32) << 23).view(F32)


def vexp(d):
    """SLEEF's float expf (1-ulp version) as the AVX-512 build computes it."""
    d = np.asarray(d, F32)
    with np.errstate(all="ignore"):
        q = np.rint(d * _R_LN2).astype(np.int32)
        qf = q.astype(F32)
        s = fma(qf, -_L2U, d)
        s = fma(qf, -_L2L, s)
        u = np.full(d.shape, _EXP_P[0], F32)
        for c in _EXP_P[1:]:
            u = fma(u, s, c)
        u = F32(1) + fma(s * s, u, s)
        h = q >> 1
        u = (u * _pow2i(h)) * _pow2i(q - h)
        u = np.where(d < F32(-104), F32(0), u)
        u = np.where(d > F32(100), F32(np.inf), u)
    return np.asarray(u, F32)


def _two_sum(x, y):          # dfadd2_vf2_vf_vf
    rx = x + y
    v = rx - x
    return rx, (x - (rx - v)) + (y - v)


def vlog(d):
    """SLEEF's float logf (1-ulp version) for positive finite d, AVX-512 build."""
    d = np.asarray(d, F32)
    with np.errstate(all="ignore"):
        _f, ex = np.frexp(d * F32(1.0 / 0.75))
        e = (ex - 1).astype(F32)                                   # getexp
        f, _ex = np.frexp(d)
        m = (f * 2).astype(F32)                                    # mantissa in [1, 2)
        m = np.where(m >= F32(1.5), m * F32(0.5), m).astype(F32)   # getmant [0.75, 1.5)
        sx = _LN2_HI * e                                           # dfmul_vf2_vf2_vf
        sy = fma(_LN2_LO, e, fma(_LN2_HI, e, -sx))
        nx, ny = _two_sum(F32(-1), m)
        dx, dy = _two_sum(F32(1), m)
        t = F32(1) / dx                                            # dfdiv_vf2_vf2_vf2
        qx = nx * t
        u = fma(t, nx, -qx)
        qy = fma(-dy, t, fma(-dx, t, F32(1)))
        qy = fma(qx, qy, fma(ny, t, u))
        x2 = qx * qx
        tt = fma(fma(np.full(d.shape, _LOG_P[0], F32), x2, _LOG_P[1]), x2, _LOG_P[2])
        ax, ay = qx * F32(2), qy * F32(2)                          # dfscale
        rx = sx + ax                                               # dfadd_vf2_vf2_vf2
        ry = (((sx - rx) + ax) + sy) + ay
        w = (x2 * qx) * tt
        r2x = rx + w                                               # dfadd_vf2_vf2_vf
        r2y = ((rx - r2x) + w) + ry
        r = r2x + r2y
    return np.asarray(r, F32)


def vsum(rows):
    """rows (R, n) float32 -> (R,): each row's reduce_all with + (16 lanes, pairwise fold)."""
    r, n = rows.shape
    if n < LANES:
        acc = rows[:, 0].copy()
        for k in range(1, n):
            acc = acc + rows[:, k]
        return acc
    m = n - n % LANES
    acc = rows[:, :LANES].copy()
    for i in range(LANES, m, LANES):
        acc = acc + rows[:, i:i + LANES]
    if n > m:
        acc[:, :n - m] = acc[:, :n - m] + rows[:, m:]
    w = LANES
    while w > 1:
        w //= 2
        acc = acc[:, :w] + acc[:, w:2 * w]
    return acc[:, 0]


def _rows(x, axis):
    """x moved so that ``axis`` is last, as contiguous (R, n) rows, and the way back."""
    moved = np.moveaxis(x, axis, -1)
    shape = moved.shape
    rows = np.ascontiguousarray(moved).reshape(-1, shape[-1])
    return rows, lambda r: np.moveaxis(r.reshape(shape), -1, axis)


def softmax(x, axis):
    rows, back = _rows(x, axis)
    with np.errstate(all="ignore"):
        e = vexp(rows - rows.max(axis=1, keepdims=True))
        inv = F32(1) / vsum(e)
        return back(e * inv[:, None])


def log_softmax(x, axis):
    rows, back = _rows(x, axis)
    with np.errstate(all="ignore"):
        sh = rows - rows.max(axis=1, keepdims=True)
        ls = vlog(vsum(vexp(sh)))
        return back(sh - ls[:, None])


def softmax_backward(y, g, axis):
    yr, back = _rows(y, axis)
    gr, _ = _rows(g, axis)
    s = vsum(gr * yr)
    return back((gr - s[:, None]) * yr)


def log_softmax_backward(y, g, axis):
    yr, back = _rows(y, axis)
    gr, _ = _rows(g, axis)
    s = vsum(gr)
    return back(fma(-vexp(yr), s[:, None], gr))


def cascade_sum(values, valid):
    """torch's nll_loss sum of ``values`` where ``valid``: 8 levels of partial sums, a carry
    after every 16th position (skipped positions carry nothing)."""
    levels, power = 8, 4
    mask = (1 << power) - 1
    acc = [F32(0)] * levels
    for b in range(len(values)):
        if not valid[b]:
            continue
        acc[0] = F32(acc[0] + values[b])
        for j in range(levels - 1):
            if b & (mask << (j * power)):
                break
            acc[j + 1] = F32(acc[j + 1] + acc[j])
            acc[j] = F32(0)
    out = F32(0)
    for a in acc:
        out = F32(out + a)
    return out
