"""torch's CPU samplers that the dialect's random module lacks, drawing from the same mt19937
stream in the same order as ATen's kernels (``aten/src/ATen/native/Distributions.{h,cpp}``,
``cpu/MultinomialKernel.cpp``, ``cpu/DistributionTemplates.h``):

- ``standard_gamma``: Marsaglia-Tsang with double uniforms and double Box-Muller normals (the
  generator's cached second normal is used and left as torch leaves it); ``alpha < 1`` boosted
  by ``(1 - u) ** (1 / alpha)``; ``d = alpha - 1/3`` rounded as torch's ``float`` literals are;
- ``dirichlet``: gammas in double, normalised by their double sum, clamped to (tiny, 1);
- ``poisson``: Knuth's product of uniforms below 10, Hoermann's transformed rejection above;
- ``binomial``: inversion below ``n p = 10``, BTRS above (with torch's float arithmetic);
- ``cauchy``: ``median + sigma * tan(pi * (u - 0.5))`` with a double uniform;
- ``multinomial``: without replacement (or one sample) ``argmax / topk`` of ``p / Exp(1)``;
  with replacement a binary search in the normalised cumulative sum, one double uniform each.
"""
from __future__ import annotations

import math

import numpy as np

from .. import _random

_F32 = np.float32


def _gen(generator):
    return _random.DEFAULT if generator is None else generator


def _u(g):
    """One ``uniform_real_distribution<double>(0, 1)`` draw."""
    r = int(g.random64(1)[0]) & ((1 << 53) - 1)
    return r * (1.0 / (1 << 53))


def _n(g):
    """One ``normal_distribution<double>(0, 1)`` draw (with the generator's cache)."""
    return float(_random._normal_serial(g, 1, 0.0, 1.0)[0])


def _gamma_one(alpha, is_f32, g):
    """``sample_gamma<scalar_t, double>``: ``alpha`` holds the scalar_t value (a Python float)."""
    scale = 1.0
    if alpha < 1.0:
        if alpha == 0.0:
            return 0.0
        inv = float(_F32(1.0) / _F32(alpha)) if is_f32 else 1.0 / alpha
        scale *= math.pow(1.0 - _u(g), inv)
        alpha = float(_F32(alpha) + _F32(1.0)) if is_f32 else alpha + 1.0
    third = float(_F32(1.0) / _F32(3.0))
    d = float(_F32(alpha) - _F32(third)) if is_f32 else alpha - third
    c = 1.0 / math.sqrt(9.0 * d)
    k0331 = float(_F32(0.0331))
    while True:
        while True:
            x = _n(g)
            y = 1.0 + c * x
            if y > 0:
                break
        v = y * y * y
        u = 1.0 - _u(g)
        xx = x * x
        if u < 1.0 - k0331 * xx * xx:
            return scale * d * v
        if math.log(u) < 0.5 * xx + d * (1.0 - v + math.log(v)):
            return scale * d * v


def standard_gamma(alpha, generator=None):
    """``torch._standard_gamma``: one draw per element of the array ``alpha``."""
    g = _gen(generator)
    a = np.asarray(alpha)
    dt = a.dtype if a.dtype.kind == "f" else np.dtype(np.float32)
    is_f32 = dt == np.float32
    flat = a.astype(dt).reshape(-1)
    out = np.empty(flat.shape, dt)
    tiny = np.finfo(dt).tiny
    for i, av in enumerate(flat.tolist()):
        s = dt.type(_gamma_one(av, is_f32, g))
        out[i] = max(tiny, s)
    return out.reshape(a.shape)


def dirichlet(alpha, generator=None):
    """``torch._sample_dirichlet`` over the last axis."""
    g = _gen(generator)
    a = np.asarray(alpha)
    dt = a.dtype
    flat = a.astype(np.float64).reshape(-1)
    gam = np.empty(flat.shape, np.float64)
    dmin = np.finfo(np.float64).tiny
    for i, av in enumerate(flat.tolist()):
        gam[i] = max(dmin, _gamma_one(av, False, g))
    gam = gam.reshape(a.shape)
    total = np.zeros(a.shape[:-1] + (1,), np.float64)
    for j in range(a.shape[-1]):  # sequential sum as the reduction of a short row
        total[..., 0] += gam[..., j]
    ret = (gam / total).astype(dt)
    hi = np.nextafter(dt.type(1.0), dt.type(0.0))
    return np.minimum(hi, np.maximum(np.finfo(dt).tiny, ret))


def _poisson_one(lam, g):
    if lam >= 10:
        slam = math.sqrt(lam)
        loglam = math.log(lam)
        b = 0.931 + 2.53 * slam
        a = -0.059 + 0.02483 * b
        invalpha = 1.1239 + 1.1328 / (b - 3.4)
        vr = 0.9277 - 3.6224 / (b - 2)
        while True:
            U = _u(g) - 0.5
            V = _u(g)
            us = 0.5 - abs(U)
            k = math.floor((2 * a / us + b) * U + lam + 0.43)
            if us >= 0.07 and V <= vr:
                return k
            if k < 0 or (us < 0.013 and V > us):
                continue
            if (math.log(V) + math.log(invalpha) - math.log(a / (us * us) + b)
                    <= -lam + k * loglam - math.lgamma(k + 1.0)):
                return k
    if lam == 0:
        return 0
    enlam = math.exp(-lam)
    x = 0
    prod = 1.0
    while True:
        prod *= _u(g)
        if prod > enlam:
            x += 1
        else:
            return x


def poisson(rate, generator=None):
    g = _gen(generator)
    a = np.asarray(rate)
    if (a < 0).any():
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    out = np.array([_poisson_one(float(v), g) for v in a.reshape(-1).tolist()], np.float64)
    return out.astype(a.dtype).reshape(a.shape)


_TAIL = [0.0810614667953272, 0.0413406959554092, 0.0276779256849983, 0.02079067210376509,
         0.0166446911898211, 0.0138761288230707, 0.0118967099458917, 0.0104112652619720,
         0.00925546218271273, 0.00833056343336287]


def _stirling_tail(k):
    if k <= 9:
        return _TAIL[int(k)]
    kp1sq = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)


def _binom_inversion(count, prob, T, g):
    logprob = float(np.log1p(T(-prob)))
    geom_sum = 0.0
    num = T(0)
    while True:
        geom = math.ceil(math.log(_u(g)) / logprob)
        geom_sum += geom
        if geom_sum > count:
            break
        num = T(num + T(1))
    return num


def _btrs(count, prob, T, g):
    c_, p_ = T(count), T(prob)
    stddev = float(np.sqrt(T(c_ * p_ * (T(1) - p_))))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * float(p_)
    c = float(T(c_ * p_)) + 0.5
    v_r = 0.92 - 4.2 / b
    r = float(T(p_ / (T(1) - p_)))
    alpha = (2.83 + 5.1 / b) * stddev
    m = float(np.floor(T((c_ + T(1)) * p_)))
    cnt = float(c_)
    while True:
        U = _u(g) - 0.5
        V = _u(g)
        us = 0.5 - abs(U)
        k = T(math.floor((2 * a / us + b) * U + c))
        if k < 0 or k > c_:
            continue
        if us >= 0.07 and V <= v_r:
            return k
        V = math.log(V * alpha / (a / (us * us) + b))
        kf = float(k)
        cmk1 = float(T(T(c_ - k) + T(1)))
        ub = ((m + 0.5) * math.log((m + 1) / (r * (cnt - m + 1)))
              + float(T(c_ + T(1))) * math.log((cnt - m + 1) / cmk1)
              + (kf + 0.5) * math.log(r * cmk1 / float(T(k + T(1))))
              + _stirling_tail(m) + _stirling_tail(cnt - m)
              - _stirling_tail(kf) - _stirling_tail(float(T(c_ - k))))
        if V <= ub:
            return k


def _binomial_one(count, prob, T, g):
    if count <= 0.0 or prob <= 0.0:
        return T(0)
    if prob >= 1.0:
        return T(count)
    if prob <= 0.5:
        if float(T(T(count) * T(prob))) >= 10.0:
            return _btrs(count, prob, T, g)
        return _binom_inversion(count, prob, T, g)
    if prob > 0.5:
        q = T(T(1.0) - T(prob))
        if float(T(T(count) * q)) >= 10.0:
            return T(T(count) - _btrs(count, q, T, g))
        return T(T(count) - _binom_inversion(count, q, T, g))
    return T(np.nan)


def binomial(count, prob, generator=None):
    g = _gen(generator)
    c = np.asarray(count)
    p = np.asarray(prob)
    shape = np.broadcast_shapes(c.shape, p.shape)
    dt = c.dtype if c.dtype.kind == "f" else p.dtype
    T = dt.type
    cs = np.broadcast_to(c, shape).astype(dt).reshape(-1)
    ps = np.broadcast_to(p, shape).astype(dt).reshape(-1)
    out = np.empty(cs.shape, dt)
    for i in range(cs.size):
        out[i] = _binomial_one(T(cs[i]), T(ps[i]), T, g)
    return out.reshape(shape)


def cauchy(shape, dtype, median=0.0, sigma=1.0, generator=None):
    g = _gen(generator)
    n = int(np.prod(shape)) if len(shape) else 1
    vals = [median + sigma * math.tan(math.pi * (_u(g) - 0.5)) for _ in range(n)]
    return np.asarray(vals, np.float64).astype(dtype).reshape(tuple(shape))


def multinomial(probs, num_samples, replacement=False, generator=None):
    """``torch.multinomial`` of a 1-D or 2-D array (torch's CPU algorithm)."""
    g = _gen(generator)
    a = np.asarray(probs)
    dt = a.dtype if a.dtype.kind == "f" else np.dtype(np.float32)
    a = a.astype(dt)
    rows = a.reshape(-1, a.shape[-1])
    n_cat = rows.shape[-1]
    if (rows < 0).any():
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if not np.isfinite(rows).all():
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if (rows.sum(-1) <= 0).any():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    if not replacement and num_samples > n_cat:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                           "replacement")
    if not replacement or num_samples == 1:
        u = _random.uniform(rows.shape, np.dtype(np.float64), 0.0, 1.0, g)
        q = (-np.log1p(-u)).astype(dt)
        q = (rows / q).astype(dt)
        if num_samples == 1:
            res = np.argmax(q, axis=-1)[:, None]
        else:
            res = np.argsort(-q, axis=-1, kind="stable")[:, :num_samples]
        return res.astype(np.int64).reshape(a.shape[:-1] + (num_samples,))
    T = dt.type
    res = np.empty((rows.shape[0], num_samples), np.int64)
    for i, row in enumerate(rows):
        cum = np.empty(n_cat, dt)
        s = T(0)
        for j in range(n_cat):
            s = T(s + row[j])
            cum[j] = s
        cum = (cum / s).astype(dt)
        cum[-1] = 1
        for j in range(num_samples):
            u = _u(g)
            lo, hi = 0, n_cat
            while hi - lo > 0:
                mid = lo + (hi - lo) // 2
                if float(cum[mid]) < u:
                    lo = mid + 1
                else:
                    hi = mid
            res[i, j] = lo
    return res.reshape(a.shape[:-1] + (num_samples,))
