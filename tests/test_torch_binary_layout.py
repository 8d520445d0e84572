"""A binary elementwise op's result is laid out as torch 2.13's TensorIterator lays it out: the
first operand's strides where it decides them (``x.t() - y`` has x.t()'s strides, ``y - x.t()``
is row-major), so a later full sum runs in that memory order (torch/_storage.keeping_first_layout
on add/sub/mul/div; F.mse_loss's fused kernel likewise). Before: every result was row-major and
l1_loss / mse_loss (reduction='sum') of a transposed input had other last bits (TSWEEP2: the old
sweep's l1/mse cases on transposed inputs; float64 binary_cross_entropy_with_logits now runs
torch's double log_sigmoid, the third). Strides and sums recorded from real torch 2.13
(/work/vtorch) on this machine; no CPU-specific library on this path."""
from __future__ import annotations

import numpy as np
import pytest

import gradrepl.torch as torch
from conftest import skip_unless_x86_64

F = torch.nn.functional
STRIDES = ((1, 64), (10, 1), (1, 64), (1, 64), (1, 64))
SUMS = {
    "float32": ('0x1.69a6e80000000p+9', '0x1.69a6e80000000p+9', '0x1.4d72640000000p+10',
                '0x1.84037a0000000p+3', '-0x1.f0d9000000000p-8'),
    "float64": ('0x1.69a6e60b7a402p+9', '0x1.69a6e60b7a402p+9', '0x1.4d72637ce9cdcp+10',
                '0x1.84037fa3c5a29p+3', '-0x1.f0d927fae4a2dp-8'),
}


@pytest.mark.parametrize("dt", ["float32", "float64"])
def test_transposed_first_operand_layout_and_sums(dt):
    rng = np.random.default_rng(4)
    x = torch.tensor(rng.standard_normal((10, 64)).astype(dt))
    t = torch.tensor(rng.standard_normal((64, 10)).astype(dt))
    xv = x.t()
    assert ((xv - t).stride(), (t - xv).stride(), (xv * t).stride(), (xv / t).stride(),
            (xv + t).stride()) == STRIDES
    got = ((xv - t).abs().sum(), F.l1_loss(xv, t, reduction="sum"),
           F.mse_loss(xv, t, reduction="sum"), (xv * t).sum(), (xv + t).mean())
    assert tuple(float(v).hex() for v in got) == SUMS[dt]


def test_bce_with_logits_float64_equals_real_torch():
    """float64 binary_cross_entropy_with_logits: torch's double log_sigmoid (SLEEF), weights
    and pos_weight, every reduction (digests of y and x.grad from real torch 2.13)."""
    skip_unless_x86_64("float64 BCE-with-logits (SLEEF double log_sigmoid)")
    import hashlib

    real = ("c44df2f7 feda95a5 4f9ddf07 354754ef 849c2879 0dbfb867 63c618dd 51cf196a 16e78d9a "
            "e4f2a5e2 15db4e29 0cbfd768").split()
    # torch's AVX2 kernels (16 -> 8 lanes: the (1000,) mean's partial sums) differ in one case:
    # real torch 2.13 here with ATEN_CPU_CAPABILITY=avx2 MKL_ENABLE_INSTRUCTIONS=AVX2
    from gradrepl.torch import _capability

    real_here = list(real)
    if _capability.capability() == "AVX2":
        real_here[6] = "3dfb8890"
    for seed in range(12):
        rng = np.random.default_rng(seed)
        shp = [(7,), (64, 10), (5, 3, 33), (1000,)][seed % 4]
        x = torch.tensor(rng.standard_normal(shp) * 3, requires_grad=True)
        t = torch.tensor(rng.random(shp))
        kw = {}
        if seed % 3 == 1:
            kw["pos_weight"] = torch.tensor(rng.uniform(0.5, 2, shp[-1:]))
        if seed % 3 == 2:
            kw["weight"] = torch.tensor(rng.uniform(0.5, 2, shp))
        y = F.binary_cross_entropy_with_logits(x, t, reduction=["none", "mean", "sum"][seed % 3],
                                               **kw)
        y.backward(torch.ones_like(y))
        h = hashlib.sha256(y.detach().numpy().tobytes() + x.grad.numpy().tobytes())
        assert h.hexdigest()[:8] == real_here[seed], seed
