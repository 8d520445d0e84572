"""torch's AbsBackward0 is derivatives.yaml's ``grad * self.sgn()``: under create_graph the first
gradient has a MulBackward0 node whose second input is a SgnBackward0 node (Fleuret's 14x050
autograd lecture prints it: ``tensor([-1.], grad_fn=<MulBackward0>)``; gradrepl printed no
grad_fn), sgn of NaN is 0 (so NaN's gradient is 0, not NaN), and the second gradient is zeros.
Literals marked "recorded" were printed by real torch 2.13.0 (CPU) on this machine; they are
exact (products with +-1 and 0), so no CPU guard."""
import gradrepl.torch as torch


def test_abs_first_gradient_has_torch_nodes_under_create_graph():
    x = torch.tensor([-3.], requires_grad=True)
    g, = torch.autograd.grad(x.abs(), x, create_graph=True)
    assert repr(g) == "tensor([-1.], grad_fn=<MulBackward0>)"  # recorded
    nxt = g.grad_fn.next_functions
    assert nxt[0] == (None, 0)
    assert type(nxt[1][0]).__name__ == "SgnBackward0" and nxt[1][1] == 0  # recorded


def test_abs_gradient_nan_zero_and_second_order():
    x = torch.tensor([-3., 0., float('nan'), 2.], requires_grad=True)
    g, = torch.autograd.grad(x.abs(), x, torch.tensor([-1., -2., 3., 4.]), create_graph=True)
    assert str(g) == "tensor([1., -0., 0., 4.], grad_fn=<MulBackward0>)"  # recorded
    h, = torch.autograd.grad(g.sum(), x, allow_unused=True)
    assert str(h) == "tensor([0., 0., 0., 0.])"  # recorded
    x2 = torch.tensor([-3., 0., float('nan'), 2.], requires_grad=True)
    x2.abs().backward(torch.tensor([-1., -2., 3., 4.]))
    assert str(x2.grad) == "tensor([1., -0., 0., 4.])"  # recorded


def test_abs_float64_and_product_rule():
    z = torch.tensor([-1.5, 2.], dtype=torch.float64, requires_grad=True)
    gz, = torch.autograd.grad(z.abs().sum(), z, create_graph=True)
    assert str(gz) == "tensor([-1.,  1.], dtype=torch.float64, grad_fn=<MulBackward0>)"  # recorded
    w = torch.tensor([1., -2.], requires_grad=True)
    assert str(torch.autograd.grad((w.abs() * w).sum(), w, create_graph=True)) == \
        "(tensor([2., 4.], grad_fn=<AddBackward0>),)"  # recorded
    assert str(torch.autograd.grad(w.abs().sum(), w)) == "(tensor([ 1., -1.]),)"  # recorded
