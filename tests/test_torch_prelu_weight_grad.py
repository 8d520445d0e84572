"""F.prelu's weight gradient as torch 2.13 sums it: _prelu_kernel_backward's x * grad (x <= 0)
over the input's shape, then at::sum_to's one sum over the broadcast dims in torch's reduction
order (gradrepl/torch/nn/_act_more._prelu_vjp). sha256 prefixes recorded from real torch 2.13
(/work/vtorch, 2 threads) on the Intel Sapphire Rapids Xeon (TSWEEP2); before this change 9 of
the sweep's 18 PReLU cases had another weight gradient (the engine's sum_to order). Sum order
is torch's own reduction (no CPU-specific library), so the records hold on any x86-64."""
from __future__ import annotations

import hashlib

import numpy as np
import pytest

import gradrepl.torch as torch

REAL = [
    ("float32", (2, 4, 8, 12), 1, "774962a0e09c81cf", "1484bfb6393ca715"),
    ("float64", (2, 8, 8, 12), 8, "bb22c851c600fc2d", "4a6c22f382ece82d"),
    ("float32", (64, 33, 7), 33, "6488180ccda55f64", "ca7f049b25c486c2"),
    ("float32", (64, 33, 7), 1, "6741e879620cc6df", "ca7f049b25c486c2"),
    ("float64", (5, 3), 3, "87231b2184298986", "4363286e56d8214d"),
]


def _h(a):
    return hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()[:16]


@pytest.mark.parametrize("dt,shape,c,w_h,x_h", REAL)
def test_prelu_grads_equal_real_torch(dt, shape, c, w_h, x_h):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(dt)
    g = rng.standard_normal(shape).astype(dt)
    w = torch.tensor(np.full(c, 0.2, dt), requires_grad=True)
    xt = torch.tensor(x, requires_grad=True)
    torch.nn.functional.prelu(xt, w).backward(torch.tensor(g))
    assert (_h(w.grad.numpy()), _h(xt.grad.numpy())) == (w_h, x_h)
