"""Paddle's LSTM/GRU on Intel (gradrepl/engine/ops/paddle_rnn.py ``_intel_gemm``): every product
of its rnn kernels is MKL's ``cblas_sgemm`` on one thread with the kernel's own transpose flags
and beta (MKL_VERBOSE under real Paddle here: X @ W_ih^T and h @ W_hh^T (N,T), G @ W (N,N),
G^T @ X and the hidden weights' gradient G^T @ h with beta 1 (T,N)). Before, the fused-chain
rule: 19 of the 24 random configurations of the issue-28 sweep differed.

Recorded from real Paddle 3.3.1 and 2.6.2 (equal) on this project's Intel Sapphire Rapids Xeon
(MKL's AVX512_E1 path), 2026-12-07: ``np.random.RandomState(I * 100 + H * 10 + L + B + S)``
draws every parameter (randn * 0.4, in ``layer.parameters()`` order), then x (B, S, I), then the
weights w of y; (y * w).sum().backward(); sha256 (16 hex) of y, x.grad and of all parameter
gradients' bytes joined.
"""
from __future__ import annotations

import hashlib

import numpy as np
import pytest

_CASES = [
    (("LSTM", 3, 16, 1, 1, 4, "forward"), ("d07e2abc2f0360b0", "cb62a41b820320bc", "f912b132893806d3")),
    (("LSTM", 16, 8, 2, 1, 1, "forward"), ("35bcd1d84602f9c2", "a6393b38a31b064c", "2d9bceca0027c3fd")),
    (("GRU", 16, 8, 2, 3, 4, "bidirect"), ("5a22bb9ca49c6a74", "9e3b389532c7d6ec", "0c1744c7552a78e1")),
    (("GRU", 8, 4, 2, 3, 7, "forward"), ("a3993641d38da375", "d11b2361697c9063", "ad9298103e397e4f")),
    (("LSTM", 8, 8, 1, 2, 7, "forward"), ("b2cd493a08eaa8c4", "78e0b9c16e1ab758", "5c0fddf7b4c11d46")),
]


def _digest(t):
    return hashlib.sha256(t.numpy().tobytes()).hexdigest()[:16]


@pytest.mark.parametrize("version", ["3", "2.6"])
@pytest.mark.parametrize("config, want", _CASES)
def test_rnn_outputs_and_gradients_as_paddle_on_intel(version, config, want):
    from conftest import skip_unless_mkl_path
    from gradrepl.paddle import state

    skip_unless_mkl_path("Paddle's rnn products on Intel (MKL's sgemm on one thread)")
    cell, i, h, layers, b, s, direction = config
    state.reset(version)
    import gradrepl.paddle as paddle

    try:
        rs = np.random.RandomState(i * 100 + h * 10 + layers + b + s)
        layer = getattr(paddle.nn, cell)(i, h, num_layers=layers, direction=direction)
        params = list(layer.parameters())
        for p in params:
            p.set_value((rs.randn(*p.shape) * 0.4).astype("float32"))
        x = paddle.to_tensor(rs.randn(b, s, i).astype("float32"), stop_gradient=False)
        y, _ = layer(x)
        w = paddle.to_tensor(rs.randn(*y.shape).astype("float32"))
        (y * w).sum().backward()
        grads = hashlib.sha256(b"".join(p.grad.numpy().tobytes() for p in params)).hexdigest()
        got = (_digest(y), _digest(x.grad), grads[:16])
    finally:
        state.reset()
    assert got == want
