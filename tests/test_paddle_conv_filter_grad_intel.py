"""Paddle's conv2d filter gradient on Intel: per sample and group ``dW += dy @ cols^T`` by MKL's
sgemm on one thread, beta = 1 (gradrepl/engine/ops/conv.py ``_grad_filter_mkl``).

Recorded from real Paddle 3.3.1 and 2.6.2 (equal) on this project's Intel AVX-512 machine,
2026-12-07: for each case in order, x = (randint(0, 256, (n, c, h, h)) / 255 * 2 - 1) as float32,
then r = randn(n, o, oh, oh), then w = randn(o, c/groups, k, k) * 0.2, all from one
``np.random.RandomState(3)``; the loss ``sum(conv2d(x, w, padding, groups) * r)``; sha256 of
w's gradient, first 16 digits. The one-chain product before gave other last bits in most values.
"""
from __future__ import annotations

import hashlib

import numpy as np
import pytest

_CASES = [((16, 3, 32, 16, 3, 1, 1), "0f789e33f9ddb190"), ((4, 16, 16, 32, 3, 1, 1), "10f186a86f13277d"),
          ((2, 3, 8, 4, 3, 1, 1), "d85fea37a6d0fa39"), ((3, 6, 12, 16, 5, 0, 1), "4c9285f3859e3ce6"),
          ((2, 4, 9, 6, 3, 1, 2), "c41511bd410a14a0")]


@pytest.mark.parametrize("version", ["3", "2.6"])
def test_conv_filter_gradient_is_mkl_per_sample_on_intel(version):
    from conftest import skip_unless_mkl_path
    from gradrepl.paddle import state

    skip_unless_mkl_path("Paddle's conv2d filter gradient on Intel (MKL's sgemm per sample)")
    state.reset(version)
    import gradrepl.paddle as paddle

    rs = np.random.RandomState(3)
    got = []
    for (n, c, h, o, k, pad, groups), _ in _CASES:
        x = (rs.randint(0, 256, (n, c, h, h)) / 255.0 * 2 - 1).astype("float32")
        r = rs.randn(n, o, h + 2 * pad - k + 1, h + 2 * pad - k + 1).astype("float32")
        w = (rs.randn(o, c // groups, k, k) * 0.2).astype("float32")
        wt = paddle.to_tensor(w, stop_gradient=False)
        y = paddle.nn.functional.conv2d(paddle.to_tensor(x), wt, padding=pad, groups=groups)
        (y * paddle.to_tensor(r)).sum().backward()
        got.append(hashlib.sha256(wt.grad.numpy().tobytes()).hexdigest()[:16])
    state.reset()
    assert got == [want for _, want in _CASES]
