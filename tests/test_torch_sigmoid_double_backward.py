"""sigmoid's gradient under create_graph as torch 2.13 records it: one node,
SigmoidBackwardBackward0 (``sigmoid_backward(grad, y)``; was the engine's multiplies,
MulBackward0), whose own gradient is derivatives.yaml's (grad_output: sigmoid_backward again;
output: ``gg * grad_output * (-2 * y + 1)``), next_functions in torch's order (grad_output's,
then output's). Values and names recorded from real torch 2.13 (/work/vtorch, float64)."""
from __future__ import annotations

import gradrepl.torch as torch


def test_sigmoid_second_and_third_order_as_torch():
    x = torch.tensor([0.3, 0.7, 1.2, 2.0], dtype=torch.float64, requires_grad=True)
    y = torch.sigmoid(x)
    g, = torch.autograd.grad(y.sum(), x, create_graph=True)
    gg, = torch.autograd.grad(g.sum(), x, create_graph=True)
    ggg, = torch.autograd.grad(gg.sum(), x)
    assert g.grad_fn.name() == gg.grad_fn.name() == "SigmoidBackwardBackward0"
    assert [f.name() for f, _ in gg.grad_fn.next_functions] == ["MulBackward0",
                                                                 "SigmoidBackward0"]
    assert g.tolist() == [0.24445831169074586, 0.22171287329310904, 0.17789444064680576,
                          0.10499358540350662]
    assert gg.tolist() == [-0.03639618395557626, -0.07457878844034183, -0.09553813232072468,
                           -0.07996250105615312]
    assert ggg.tolist() == [-0.11410088523739327, -0.0732267158102083, -0.011984151431433627,
                            0.03885166754820599]


def test_nn_sigmoid_gradient_node_prints_as_torch():
    v = torch.tensor([0.5, -1.0], requires_grad=True)
    d, = torch.autograd.grad(torch.nn.Sigmoid()(v), v, torch.ones(2), create_graph=True)
    assert "grad_fn=<SigmoidBackwardBackward0>" in repr(d)
