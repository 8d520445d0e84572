"""Samplers Paddle runs in C++ kernels that gradrepl's paddle namespace lacks (standard_gamma,
dirichlet, poisson, binomial, multinomial). Each uses ``paddle.<name>`` when the dialect has it. Otherwise: multinomial
(Categorical, Multinomial) draws one paddle.rand double per sample as Paddle's kernel does (the
same indices as real Paddle 3.3.1 and 2.6.2 on the checks), poisson follows libstdc++ for means
below 12; the rest draw from numpy seeded by paddle's generator: reproducible after paddle.seed,
but not the numbers real Paddle's kernels give."""
from __future__ import annotations

import numpy as np

from .distribution import _paddle


def _rng():
    paddle = _paddle()
    seed = paddle.randint(0, 2 ** 31 - 1, [2], dtype="int64").numpy()
    return np.random.default_rng([int(s) for s in seed])


def _tensor(arr, dtype):
    return _paddle().to_tensor(np.asarray(arr).astype(dtype))


def _np_dtype(x):
    return str(x.dtype).split(".")[-1]


def standard_gamma(x):
    paddle = _paddle()
    if hasattr(paddle, "standard_gamma"):
        return paddle.standard_gamma(x)
    conc = x.numpy().astype(np.float64)
    return _tensor(_rng().standard_gamma(conc), _np_dtype(x))


def dirichlet(concentration):
    """Paddle's dirichlet kernel: a Gamma(alpha_i, 1) value per element in order, from the
    GammaSampler that paddle.standard_gamma uses (the global engine), each divided by its row's
    sum, in the concentration's dtype (Beta and Dirichlet samples equal to real 3.3.1/2.6.2's)."""
    from ..tensor.samplers import _standard_gamma_fwd

    conc = concentration.numpy()
    if conc.dtype not in (np.float32, np.float64):
        conc = conc.astype(np.float32)
    g = np.asarray(_standard_gamma_fwd(np.ascontiguousarray(conc)), conc.dtype)
    total = g[..., 0].copy()
    for k in range(1, g.shape[-1]):
        total = (total + g[..., k]).astype(conc.dtype)
    return _tensor((g / total[..., None]).astype(conc.dtype), _np_dtype(concentration))


def _engine():
    from ..tensor.creation import _RNG

    return _RNG[0].engine


def poisson(rate):
    """Paddle's CPU kernel: ``std::poisson_distribution<int>(x[i])(engine)`` per element, in
    order. libstdc++'s method for a mean below 12 (multiply canonical doubles until the product
    falls to exp(-mean)) is reproduced word for word; larger means (libstdc++'s rejection
    method) are drawn by numpy instead (not Paddle's numbers)."""
    from .. import random_engine

    paddle = _paddle()
    if hasattr(paddle, "poisson"):
        return paddle.poisson(rate)
    means = rate.numpy().astype(np.float64)
    flat = means.ravel()
    out = np.empty(flat.size, np.float64)
    engine = _engine()
    big = []
    for i, mean in enumerate(flat.tolist()):
        if not mean < 12:
            big.append(i)
            continue
        threshold = np.exp(-mean)
        count, prod = 0, 1.0
        while True:
            prod *= float(random_engine.canonical(engine.draw(1), np.float64)[0])
            count += 1
            if not prod > threshold:
                break
        out[i] = count - 1
    if big:
        out[big] = _rng().poisson(flat[big])
    return _tensor(out.reshape(means.shape), _np_dtype(rate))


def binomial(count, prob):
    paddle = _paddle()
    if hasattr(paddle, "binomial"):
        return paddle.binomial(count, prob)
    out = _rng().binomial(count.numpy().astype(np.int64), prob.numpy().astype(np.float64))
    return _tensor(out, "int64")


def multinomial(probs, num_samples, replacement=True):
    """int64 indices (rows, num_samples) or (num_samples,) for a 1-D ``probs``."""
    paddle = _paddle()
    if hasattr(paddle, "multinomial"):
        return paddle.multinomial(probs, num_samples, replacement)
    p = probs.numpy().astype(np.float64)
    rows = p.reshape(-1, p.shape[-1])
    cdf = np.cumsum(rows, axis=-1)
    cdf /= cdf[:, -1:]
    u = paddle.rand([rows.shape[0], int(num_samples)], dtype="float64").numpy()
    idx = (u[..., None] >= cdf[:, None, :]).sum(-1)
    idx = np.minimum(idx, rows.shape[1] - 1).astype(np.int64)
    return paddle.to_tensor(idx.reshape(p.shape[:-1] + (int(num_samples),)))
