"""F.silu's gradient under create_graph as torch 2.13: derivatives.yaml's
infinitely_differentiable_silu_backward, grad * s * (1 + x * (1 - s)) with s = sigmoid(x), as
separate nodes (MulBackward0 ...; was one SiluBackwardBackward0 node, its second-order values
off in the last bit). Plain backward keeps silu_backward's kernel. Literals from real torch 2.13
(/work/vtorch, float64)."""
from __future__ import annotations

import gradrepl.torch as torch
import gradrepl.torch.nn.functional as F


def test_silu_second_order_as_torch():
    x = torch.tensor([0.3, 0.7, 1.2, 2.0], dtype=torch.float64, requires_grad=True)
    g, = torch.autograd.grad(F.silu(x).sum(), x, create_graph=True)
    assert g.grad_fn.name() == "MulBackward0"
    assert g.tolist() == [0.6477800103188829, 0.8233867834733425, 0.9819981122751844,
                          1.0907842487848955]
    gg, = torch.autograd.grad(g.sum(), x, create_graph=True)
    assert gg.grad_fn.name() == "AddBackward0"
    assert gg.tolist() == [0.4779977681948189, 0.3912205946779789, 0.2411431225087419,
                           0.05006216869470701]


def test_mish_second_order_nodes_as_torch():
    """mish under create_graph: infinitely_differentiable_mish_backward's nodes (real torch 2.13:
    MulBackward0, then AddBackward0 at second order)."""
    x = torch.tensor([0.3, 0.7, 1.2, 2.0], dtype=torch.float64, requires_grad=True)
    g, = torch.autograd.grad(F.mish(x).sum(), x, create_graph=True)
    gg, = torch.autograd.grad(g.sum(), x, create_graph=True)
    assert (g.grad_fn.name(), gg.grad_fn.name()) == ("MulBackward0", "AddBackward0")
    assert g.tolist() == [0.7828272995511304, 0.9687948682001859, 1.0763507310949068,
                          1.0693179342794896]
