"""Paddle's batch_norm gradient in eval mode (``F.batch_norm(training=False)``, a BatchNorm layer
after ``.eval()``): its CPU kernel with the running statistics (use_global_stats), Eigen's
vectorised sums for the scale and bias gradients, dx = (scale * inv_std) * dy
(gradrepl/engine/ops/conv.py ``_bn_grad_kernel_global``). Before, gradrepl differentiated the
formula with Tensor ops: other last bits in dx, dscale or dbias of all 24 eval-mode shapes of the
issue-28 sweep.

Recorded from real Paddle 3.3.1 and 2.6.2 (equal) on this project's Intel Sapphire Rapids
machine, 2026-12-07 (the kernel is Eigen's, not MKL's): x, scale, bias, running mean, running
variance and the weights w from ``np.random.RandomState(sum(shape))``, y = batch_norm(x, ...,
training=False), (y * w).sum().backward(); sha256 of y, x.grad, scale.grad, bias.grad (16 hex).
"""
from __future__ import annotations

import hashlib

import numpy as np
import pytest

_CASES = [
    ((4, 8, 2, 5), ("d40a09d2b36ff52b", "600a53e41a85599e", "f55dada71175b1ec", "b9d732cc8457c0ea")),
    ((2, 3, 5, 5), ("ece88d438ec93b32", "3d52883b28be1db7", "77e980050ec3702b", "afb8e2ab9a473b54")),
    ((16, 32), ("cd8fc05aaf55abda", "33de07886d9591f8", "a58a53dbf519b3aa", "e7bb4ac966ae5a5d")),
    ((7, 10), ("861f68b024efedaa", "d441779befa6e8ee", "7b9ea52f8d723dbc", "22795aec617b46c5")),
    ((8, 16, 2, 3), ("96c23dbea10f4d13", "8eddfc251fcfeb8e", "4a226999289dabd6", "1540d0e074f1282c")),
]


def _digest(t):
    return hashlib.sha256(t.numpy().tobytes()).hexdigest()[:16]


@pytest.mark.parametrize("version", ["3", "2.6"])
@pytest.mark.parametrize("shape, want", _CASES)
def test_eval_mode_batch_norm_gradients_as_paddle(version, shape, want):
    from gradrepl.paddle import state

    state.reset(version)
    import gradrepl.paddle as paddle

    F = paddle.nn.functional
    try:
        rs = np.random.RandomState(sum(shape))
        c = shape[1]
        x = paddle.to_tensor((rs.randn(*shape) * 2 + 0.5).astype("float32"), stop_gradient=False)
        g = paddle.to_tensor(rs.randn(c).astype("float32"), stop_gradient=False)
        b = paddle.to_tensor(rs.randn(c).astype("float32"), stop_gradient=False)
        rm = paddle.to_tensor((rs.randn(c) * 0.1).astype("float32"))
        rv = paddle.to_tensor((rs.rand(c) + 0.5).astype("float32"))
        y = F.batch_norm(x, rm, rv, weight=g, bias=b, training=False)
        w = paddle.to_tensor(rs.randn(*shape).astype("float32"))
        (y * w).sum().backward()
        got = (_digest(y), _digest(x.grad), _digest(g.grad), _digest(b.grad))
    finally:
        state.reset()
    assert got == want
