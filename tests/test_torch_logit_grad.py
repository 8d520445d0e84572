"""torch.logit's gradient as torch 2.13: NaN outside [0, 1] without eps (the engine's VJP gave
finite values there), 0 outside [eps, 1 - eps] with it, a WhereBackward0 node under create_graph.
Literals from real torch 2.13 (/work/vtorch). Left open: torch's second-order gradient at a point
outside the range is -0.0 where gradrepl's is 0.0."""
from __future__ import annotations

import math

import gradrepl.torch as torch


def _same(a, b):
    return all((math.isnan(u) and math.isnan(v)) or u == v for u, v in zip(a, b))


def test_logit_gradient_range_and_node():
    x = torch.tensor([-0.5, 0.0, 0.05, 0.3, 0.95, 1.0, 1.5], dtype=torch.float64,
                     requires_grad=True)
    g, = torch.autograd.grad(torch.logit(x).sum(), x, create_graph=True)
    assert g.grad_fn.name() == "WhereBackward0"
    assert _same(g.tolist(), [math.nan, math.inf, 21.05263157894737, 4.761904761904762,
                              21.05263157894735, math.inf, math.nan])
    x.grad = None
    torch.logit(x, 0.1).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0, 4.761904761904762, 0.0, 0.0, 0.0]
