"""torch.cumprod forward (running product in double for float32) and backward (torch's
cumprod_backward: reversed cumsum of output * grad over the input; the zero case by the exact
loop), bit for bit as real torch 2.13, recorded on this machine (2026-12-06) with the same code.
The registry's (Paddle's) backward loop was cubic in the length: 4,000 values never finished."""
from __future__ import annotations

import hashlib

import numpy as np

EXPECTED = {5: ("4dfea9a0d90d", "f52b155a293c"), 40: ("4f1451812641", "ff312d53a255"),
            1000: ("3eea700663eb", "002bb307b2f6"), 4000: ("7d75886179d9", "b9c3c73d101a")}


def md5(t):
    return hashlib.md5(np.ascontiguousarray(t.detach().numpy()).tobytes()).hexdigest()[:12]


def test_cumprod_forward_and_backward_bits():
    import gradrepl.torch as torch

    got = {}
    for n in EXPECTED:
        torch.manual_seed(n)
        x = (torch.randn(n) * 0.1 + 1).requires_grad_()
        y = x.cumprod(0)
        y.backward(torch.ones_like(y))
        got[n] = (md5(y), md5(x.grad))
    assert got == EXPECTED


def test_cumprod_with_zeros_and_second_order():
    import gradrepl.torch as torch

    x = torch.tensor([[1., 2., 0., 3.], [0.5, 0., 0., 2.]], requires_grad=True)
    torch.cumprod(x, 1).sum().backward()
    # d/dx_j of sum_k prod_{i<=k} x_i, by hand for these two rows
    assert x.grad.tolist() == [[3.0, 1.0, 8.0, 0.0], [1.0, 0.5, 0.0, 0.0]]   # as real torch
    x = torch.tensor([[1.5, -2.0], [0.5, 3.0], [2.0, 0.25]], dtype=torch.float64,
                     requires_grad=True)
    g, = torch.autograd.grad(torch.cumprod(x, 0).sum(), x, create_graph=True)
    g.sum().backward()
    a, b, c = x.detach().numpy()[:, 0]
    # column 0: f = a + ab + abc, sum of its gradient = (1 + b + bc) + (a + ac) + ab;
    # its derivatives: d/da = 1 + c + b, d/db = 1 + c + a, d/dc = b + a
    np.testing.assert_allclose(x.grad.numpy()[:, 0], [1 + c + b, 1 + c + a, b + a], rtol=1e-12)
