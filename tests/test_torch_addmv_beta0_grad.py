"""addmv / addmm / baddbmm with beta=0: torch 2.13 ignores the input's values but still gives it
the gradient grad * 0 (derivatives.yaml's maybe_multiply(grad, beta)), signed zeros included;
gradrepl's addmv (through _ops_shape._axpby) gave None before (TSWEEP2's blas family: 2 cases).
Values recorded from real torch 2.13 (/work/vtorch) on this machine (no CPU dependence: products
by zero)."""
from __future__ import annotations

import numpy as np

import gradrepl.torch as torch

REAL = {
    "addmv": [0.0, -0.0, 0.0],
    "addmm": [0.0, 0.0, 0.0, -0.0, -0.0, 0.0],
    "baddbmm": [-0.0, 0.0, -0.0, 0.0, -0.0, 0.0, -0.0, 0.0, 0.0, -0.0, 0.0, 0.0],
}


def test_beta_zero_input_gradient_is_signed_zeros():
    rng = np.random.default_rng(0)
    for f in ("addmv", "addmm", "baddbmm"):
        shp = {"addmv": ((3,), (3, 4), (4,)), "addmm": ((3, 2), (3, 4), (4, 2)),
               "baddbmm": ((2, 3, 2), (2, 3, 4), (2, 4, 2))}[f]
        c, m, v = (torch.tensor(rng.standard_normal(s), requires_grad=True) for s in shp)
        y = getattr(torch, f)(c, m, v, beta=0.0, alpha=2.0)
        y.backward(torch.tensor(rng.standard_normal(tuple(y.shape))))
        got = c.grad.numpy().ravel()
        assert got.tolist() == REAL[f]
        assert [np.signbit(v) for v in got] == [np.signbit(v) for v in REAL[f]]


def test_beta_zero_ignores_nan_input():
    c = torch.tensor([1.0, float("nan"), 3.0], requires_grad=True)
    y = torch.addmv(c, torch.ones(3, 4), torch.ones(4), beta=0.0, alpha=2.0)
    assert y.detach().numpy().tolist() == [8.0, 8.0, 8.0]
