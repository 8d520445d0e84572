"""Paddle's CPU ``layer_norm_grad`` kernel (``phi/kernels/cpu/layer_norm_grad_kernel.cc``), its
arithmetic step by step on the (left, right) matrix of rows being normalised.

* ``x_norm = (x - mean) / sqrt(var + eps)`` from the forward's saved mean and variance
  (``DivAndSqrtFunctor``);
* ``d_bias`` and ``d_scale`` are ``ColwiseSum`` of ``dy`` and ``x_norm * dy``: the rows added one
  after the other;
* ``d_x``: ``t = dy * scale`` (or ``dy``), ``t - rowmean(t)``, then ``- x_norm * rowmean(t *
  x_norm)``, then divided by ``sqrt(var + eps)``; ``RowwiseMean`` adds each row in order and
  multiplies the float sum by the double ``1.0 / right``.

The kernel takes the scale into d_x only where the scale's own gradient is asked for: with a
weight that does not need a gradient, real Paddle 3.3.1 and 2.6.2 compute ``d_x`` as if the
scale were 1 (its ``else`` branch), and so does this.

No BLAS and no CPU-dependent kernel: measured equal to real Paddle 3.3.1 and 2.6.2 (AMD Zen 4)
in every value of d_x, d_scale, d_bias on 12 shapes from (2, 1) to (64, 32), (4, 512).
"""
from __future__ import annotations

import numpy as np


def _row_mean(a):
    s = np.zeros(a.shape[0], a.dtype)
    for j in range(a.shape[1]):
        s = s + a[:, j]
    return (s.astype(np.float64) * (1.0 / a.shape[1])).astype(a.dtype)[:, None]


def _col_sum(a):
    s = a[0].copy()
    for i in range(1, a.shape[0]):
        s += a[i]
    return s


def layer_norm_grad(x, dy, scale, mean, var, epsilon, want_scale, want_bias):
    """(d_x, d_scale, d_bias) of (left, right) arrays ``x``, ``dy``; ``scale`` (right,) or None;
    ``mean``, ``var`` (left,) as the forward saved them; d_scale/d_bias None unless wanted."""
    eps = x.dtype.type(epsilon)
    sq = np.sqrt(var[:, None] + eps)
    xn = (x - mean[:, None]) / sq
    d_bias = _col_sum(dy) if want_bias else None
    d_scale = _col_sum(xn * dy) if want_scale else None
    t = dy * scale if (want_scale and scale is not None) else dy
    dx = t - _row_mean(t)
    dx = dx - xn * _row_mean(t * xn)
    return dx / sq, d_scale, d_bias
