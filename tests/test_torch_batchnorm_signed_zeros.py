"""torch BatchNorm backward's signed zeros (issues 28/29, BNGRAD): the fused
``(dy - grad_mean) - (x - mean) * k`` gives +0 where both sides are +0, the per-channel sums
start from a +0 accumulator; and a convolution's bias gradient of -0s is +0.

Expected digests: real torch 2.13.0 (/work/vtorch) on this machine (Intel AVX-512, 2 threads),
printed by the same code with ``import torch``. The batch-norm kernels have no AVX512 build
(ATEN_CPU_CAPABILITY=avx2 gave the same bytes); the 2-D ones depend on torch's 2 threads
(conftest's GRADREPL_TORCH_THREADS=2)."""
from __future__ import annotations

import hashlib

import numpy as np
import pytest

import gradrepl.torch as torch


def sha(t):
    return hashlib.sha1(np.ascontiguousarray(t.detach().numpy()).tobytes()).hexdigest()[:12]


def case(shape, dtype, affine):
    rs = np.random.RandomState(sum(shape))
    c = shape[1]
    x = (rs.randn(*shape) * 3 + 1).astype(dtype)
    x[:, 1] = 1.5                                   # a constant channel: x - mean == 0
    g = (rs.randn(*shape) * np.arange(c).reshape((1, c) + (1,) * (len(shape) - 2))).astype(dtype)
    g[:, 2] = -0.0                                  # a channel of -0 gradients (and channel 0: +-0)
    cls = torch.nn.BatchNorm1d if len(shape) < 4 else torch.nn.BatchNorm2d
    bn = cls(c, affine=affine).to(getattr(torch, np.dtype(dtype).name))
    if affine:
        with torch.no_grad():
            bn.weight.copy_(torch.tensor(np.linspace(-1, 1, c).astype(dtype)))
    xt = torch.tensor(x, requires_grad=True)
    bn(xt).backward(torch.tensor(g))
    out = [sha(xt.grad)]
    if affine:
        out += [sha(bn.weight.grad), sha(bn.bias.grad)]
    return out


# real torch 2.13 here (dx[, dweight, dbias]); before the fix every case here failed (dx
# differed only in zero signs)
RECORDED = [
    (((32, 16), np.float32, True), ['567ff0ea3ae4', '5cec16ae571e', 'cec16c7e1311']),
    (((32, 200), np.float32, False), ['208e52afbac2']),
    (((5, 9, 7), np.float32, True), ['6da38d64ef72', '4a1158d38954', '5c730eeb59d9']),
    (((4, 8, 3, 5), np.float32, True), ['786118c441cb', '9c4b38de097d', 'dd859d54c75c']),
    (((6, 17), np.float64, True), ['a96afaacfae7', 'c1a0c188c1b2', 'f6da87d3cd77']),
]


@pytest.mark.parametrize("args,expected", RECORDED, ids=[str(a[0]) for a, _ in RECORDED])
def test_batchnorm_backward_bytes_are_real_torchs(args, expected):
    assert case(*args) == expected


def test_conv_bias_gradient_of_negative_zeros_is_positive_zero():
    # real torch 2.13: conv2d's bias gradient from an all -0 output gradient is +0 (all four)
    x = torch.tensor(np.random.RandomState(3).randn(2, 3, 9, 9).astype(np.float32),
                     requires_grad=True)
    w = torch.tensor(np.random.RandomState(4).randn(4, 3, 3, 3).astype(np.float32))
    b = torch.zeros(4, requires_grad=True)
    y = torch.nn.functional.conv2d(x, w, b, stride=2)
    y.backward(-torch.zeros_like(y))
    assert np.signbit(b.grad.numpy()).tolist() == [False] * 4
