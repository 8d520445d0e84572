"""Paddle's conv3d on Intel: its products are MKL's cblas_sgemm on one thread per sample and
group, as conv2d's (gradrepl/engine/ops/conv.py ``_mkl_products`` for the forward and input
gradient, ``_grad_filter_mkl`` for the filter gradient, dW += dy @ vol2col^T with beta 1; called
from conv3d.py). With the filter gradient as one product over the whole batch's positions (as
before), 2 of these 4 filter gradients differed (143 of 216 and 63 of 81 values).

Recorded from real Paddle 3.3.1 and 2.6.2 (equal) on this project's Intel Sapphire Rapids Xeon
(MKL's AVX512_E1 path), 2026-12-07: ``np.random.RandomState(i)`` draws x, w (* 0.3) and the
weights of y; y = F.conv3d(x, w, stride, padding, groups), (y * w_y).sum().backward(); sha256
(16 hex) of y, x.grad, w.grad.
"""
from __future__ import annotations

import hashlib

import numpy as np
import pytest

_CASES = [
    ((1, 2, 5, 6, 7), (4, 2, 3, 3, 3), 1, 1, 1, ("a0c903e87332cbdf", "43a4a2030640ebf7", "53c27a5c391e46b8")),
    ((2, 4, 4, 5, 5), (6, 2, 2, 3, 3), 2, 0, 2, ("76e26d9508cec0cf", "80ad601602e8041f", "c8a17b7851801980")),
    ((1, 3, 6, 6, 6), (5, 3, 1, 1, 1), 1, 0, 1, ("40acfc161d9c239b", "01a392c02d2081eb", "0b273c57972ad93a")),
    ((2, 1, 7, 7, 7), (3, 1, 3, 3, 3), 2, 1, 1, ("9d8366675978ccf8", "ff0d918666d09905", "7e9f34a9d1f28479")),
]


def _digest(t):
    return hashlib.sha256(t.numpy().tobytes()).hexdigest()[:16]


@pytest.mark.parametrize("version", ["3", "2.6"])
@pytest.mark.parametrize("index", range(len(_CASES)))
def test_conv3d_and_gradients_as_paddle_on_intel(version, index):
    from conftest import skip_unless_mkl_path
    from gradrepl.paddle import state

    skip_unless_mkl_path("Paddle's conv3d products on Intel (MKL's sgemm on one thread)")
    xs, ws, stride, padding, groups, want = _CASES[index]
    state.reset(version)
    import gradrepl.paddle as paddle

    try:
        rs = np.random.RandomState(index)
        x = paddle.to_tensor(rs.randn(*xs).astype("float32"), stop_gradient=False)
        w = paddle.to_tensor((rs.randn(*ws) * 0.3).astype("float32"), stop_gradient=False)
        y = paddle.nn.functional.conv3d(x, w, stride=stride, padding=padding, groups=groups)
        wy = paddle.to_tensor(rs.randn(*y.shape).astype("float32"))
        (y * wy).sum().backward()
        got = (_digest(y), _digest(x.grad), _digest(w.grad))
    finally:
        state.reset()
    assert got == want
