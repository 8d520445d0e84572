"""Paddle's batch_norm with the channels last (NLC, NHWC, NDHWC) and with one value per channel,
as its CPU kernels (gradrepl/engine/ops/conv.py ``_bn_grad_kernel_last``, the early returns):
channels last, the scale/bias gradient sums run position after position from zero (a C-wide
column added per step) and dx uses them as the NCHW case; one value per channel (N * H * W
== 1) in training, the forward copies x to y and leaves the running statistics, the backward
copies dy to dx with zero scale/bias gradients. Before, gradrepl summed channels-last
gradients as the NCHW path's planes (1-2 ulp off: an Ng C4W1 'happy model' lecture script
with BatchNorm2D(data_format='NHWC'), PM17B s15, drifted in training and printed other eval
predictions) and normalised the single values. Sweep of 36 float32 cases vs real Paddle here
(train/eval/use_global_stats x NHWC/NLC/NDHWC/NCHW/NC, incl. one value per channel): 10 -> 36
equal. float64 (the same sweep's 36 float64 cases): 0 -> 36 equal, the epsilon attribute
taken as its float32 value and the kernels above run in float64.

Recorded from real Paddle 3.3.1 and 2.6.2 (equal) on this project's Intel Sapphire Rapids
machine, 2026-12-07 (Eigen's kernels, not MKL's): x * 2 + 0.5, the weights w, running mean and
variance (+ 0.5), scale and bias from ``np.random.RandomState(sum(shape))``; y = F.batch_norm(x,
..., training=mode == 'train', data_format, use_global_stats=True for 'global'),
(y * w).sum().backward(); sha256 of y, x.grad, scale.grad, bias.grad, running mean (16 hex).
All 9 differed on the tree before this change.
"""
from __future__ import annotations

import hashlib

import numpy as np
import pytest

_CASES = [
    ('NHWC', (4, 5, 5, 3), 'train',
     ('5f6e55040ff8b956', '2ce66b87c33eef35', '6f19b4531fcbbd71', 'f59a6eb254a5a788', 'ca01f19c37dabcca')),
    ('NHWC', (8, 3, 3, 64), 'train',
     ('479b6def894d8597', '190926cac8670d86', 'eb1d5ceee6acd7d6', '0842508cc0d55b8d', 'e4519efc52b06a0c')),
    ('NLC', (4, 30, 8), 'train',
     ('2f7ad9c4e2c808e3', 'c9dd4d01b8e9f1f1', '97c737d26c66efa4', '9d7499a47c272c94', '5db37a8f7bb996d3')),
    ('NDHWC', (2, 3, 4, 5, 6), 'train',
     ('2419b779586e73e6', '14c5d364e440ba8b', 'adb1aff6330db3e7', '113056890c96914e', 'eaf9b791320a9947')),
    ('NHWC', (2, 7, 9, 20), 'eval',
     ('fb397407d4169e6d', 'cfa0102f62c47b08', 'ab1f7693205d0667', 'd07f4bffe9776e9a', '327951bd89e66a04')),
    ('NLC', (4, 30, 8), 'global',
     ('b4a0b571bb41f94e', '77a6218273bf5e37', '0cd6f80a48ce5ad0', '9d7499a47c272c94', '9a09395fb6c9d90f')),
    ('NC', (1, 5), 'train',
     ('b3055638af24eada', '3ee2ee9b01f97e6a', 'de47c9b27eb8d300', 'de47c9b27eb8d300', '9a78918461e30091')),
    ('NCHW', (1, 4, 1, 1), 'train',
     ('9729b8a3efd66b35', 'f794c431805b4df0', '374708fff7719dd5', '374708fff7719dd5', '674ebd016e6fb685')),
    ('NHWC', (1, 1, 1, 4), 'train',
     ('9729b8a3efd66b35', 'f794c431805b4df0', '374708fff7719dd5', '374708fff7719dd5', '674ebd016e6fb685')),
]

# float64: the op's float epsilon attribute enters as its float32 value, and the same
# kernels as float32 (4-double Eigen packets); every value differed before (the forward too)
_CASES64 = [
    ('NCHW', (4, 6, 5, 5), 'train',
     ('247f25cfeb9ea947', 'b938587b9a1e5037', '179be3bfbbaab500', '5b1e151f23f6fa2f', 'aa3345c35d343f33')),
    ('NC', (12, 7), 'train',
     ('af345e162a48664b', '48bc656b11d7e01b', 'cb9328bf351c6a9f', '66b236c32241a964', '567fe5514a73c98b')),
    ('NHWC', (4, 5, 5, 3), 'train',
     ('8cb377c83822827b', 'be15b081a33437b4', '7fd713d7cc8be489', '0c750e6232ba857e', '545b0ad343b65128')),
    ('NCHW', (4, 6, 5, 5), 'eval',
     ('14bb48e131fcf17c', '343748325ff65c4f', 'd748b13d80059cc0', '5b1e151f23f6fa2f', '62c5624300be11cc')),
    ('NLC', (4, 30, 8), 'global',
     ('5cc88f0ee2a64c93', '9c8e1570289a8398', '9c14f89e3269c530', '7f09447a13b6cd90', 'c8988f66d295b9b4')),
]


def _digest(t):
    return hashlib.sha256(t.numpy().tobytes()).hexdigest()[:16]


@pytest.mark.parametrize("version", ["3", "2.6"])
@pytest.mark.parametrize("dtype, fmt, shape, mode, want",
                         [("float32", *c) for c in _CASES] + [("float64", *c) for c in _CASES64])
def test_batch_norm_channels_last_and_single_values_as_paddle(version, dtype, fmt, shape, mode,
                                                              want):
    from gradrepl.paddle import state

    state.reset(version)
    import gradrepl.paddle as paddle

    F = paddle.nn.functional
    try:
        rs = np.random.RandomState(sum(shape))
        c = shape[1] if fmt in ("NC", "NCHW") else shape[-1]
        x = paddle.to_tensor((rs.randn(*shape) * 2 + 0.5).astype(dtype), stop_gradient=False)
        w = paddle.to_tensor(rs.randn(*shape).astype(dtype))
        rm = paddle.to_tensor(rs.rand(c).astype(dtype))
        rv = paddle.to_tensor((rs.rand(c) + 0.5).astype(dtype))
        sc = paddle.to_tensor(rs.randn(c).astype(dtype), stop_gradient=False)
        bi = paddle.to_tensor(rs.randn(c).astype(dtype), stop_gradient=False)
        y = F.batch_norm(x, rm, rv, sc, bi, training=(mode == "train"), data_format=fmt,
                         use_global_stats=(True if mode == "global" else None))
        (y * w).sum().backward()
        got = (_digest(y), _digest(x.grad), _digest(sc.grad), _digest(bi.grad), _digest(rm))
    finally:
        state.reset()
    assert got == want
