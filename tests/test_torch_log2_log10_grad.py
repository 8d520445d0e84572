"""torch.log2 / torch.log10 gradients as torch 2.13's derivatives.yaml writes them:
``grad / (self * 0.6931471805599453)`` (log10: 2.3025850929940456), the constant in the
gradient's dtype, ``self * number`` a MulBackward1 node whose own gradient is one again. The
engine's VJP divided by float32's ln 2, so float64 gradients were off by about 1e-8 relatively
(4.808983456415583 for 4.808983469629878). Literals from real torch 2.13 (/work/vtorch)."""
from __future__ import annotations

import gradrepl.torch as torch


def test_log2_log10_float64_gradients_and_second_order():
    x = torch.tensor([0.3, 0.7, 1.2, 2.0], dtype=torch.float64, requires_grad=True)
    torch.log2(x).sum().backward()
    assert x.grad.tolist() == [4.808983469629878, 2.060992915555662, 1.2022458674074694,
                               0.7213475204444817]
    g, = torch.autograd.grad(torch.log10(x).sum(), x, create_graph=True)
    assert g.grad_fn.name() == "DivBackward0"
    assert g.tolist() == [1.4476482730108395, 0.620420688433217, 0.3619120682527099,
                          0.21714724095162594]
    gg, = torch.autograd.grad(g.sum(), x, create_graph=True)
    assert gg.grad_fn.name() == "MulBackward1"
    assert gg.tolist() == [-4.825494243369465, -0.8863152691903099, -0.30159339021059156,
                           -0.10857362047581295]
    g2, = torch.autograd.grad(torch.log2(x).sum(), x, create_graph=True)
    gg2, = torch.autograd.grad(g2.sum(), x)
    assert gg2.tolist() == [-16.029944898766257, -2.944275593650946, -1.001871556172891,
                            -0.36067376022224085]


def test_exp2_gradient_nodes_as_torch():
    """exp2's ``grad * result * M_LN2``: the number by mul.Scalar (MulBackward1, twice)."""
    x = torch.tensor([0.3, 0.7, 1.2, 2.0], dtype=torch.float64, requires_grad=True)
    g, = torch.autograd.grad(torch.exp2(x).sum(), x, create_graph=True)
    gg, = torch.autograd.grad(g.sum(), x, create_graph=True)
    assert g.grad_fn.name() == gg.grad_fn.name() == "MulBackward1"
    assert g.tolist() == [0.8533642789721566, 1.1260209168747677, 1.5924340521600837,
                          2.772588722239781]
    assert gg.tolist() == [0.591507043960121, 0.7804982237832697, 1.1037911734824108,
                           1.9218120556728056]
