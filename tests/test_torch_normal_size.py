"""torch.normal with a size and 0-d tensor mean/std (d2l's statistics appendix:
``torch.normal(mu, sigma, size=(1000,))`` with ``mu = torch.tensor(5.0)``): torch's argument
parser takes 0-d tensors as the numbers of the (float mean, float std, size) overload and draws
``size`` values; gradrepl returned one 0-d value (TM15B s20: ``len() of a 0-d tensor``). Expected
bytes recorded from real torch 2.13.0+cpu on this machine (the same values on any CPU: the draw
is torch's mt19937 normal, gradrepl's _random)."""
import pytest

import gradrepl.torch as torch


def test_zero_dim_tensors_with_size_draw_size_values():
    torch.manual_seed(0)
    s = torch.normal(torch.tensor(5.0), torch.tensor(2.0), size=(4,))
    # real torch 2.13: tensor([8.0820, 4.4131, 0.6424, 6.1369]) torch.Size([4])
    assert repr(s) == "tensor([8.0820, 4.4131, 0.6424, 6.1369])" and s.shape == (4,)
    assert torch.normal(torch.tensor(5.0), 2.0, size=(3,)).shape == (3,)
    assert torch.normal(5.0, torch.tensor(2.0), size=(3,)).shape == (3,)
    assert torch.normal(torch.zeros(2), torch.ones(2)).shape == (2,)


def test_tensor_mean_std_with_size_is_torch_type_error():
    msg = ("normal() received an invalid combination of arguments - got (Tensor, Tensor, "
           "size=tuple), but expected one of:\n"
           " * (Tensor mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)\n"
           " * (Tensor mean, float std = 1, *, torch.Generator generator = None, Tensor out = None)\n"
           " * (float mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)\n"
           " * (float mean, float std, tuple of ints size, *, torch.Generator generator = None, "
           "Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device "
           "device = None, bool pin_memory = False, bool requires_grad = False)\n")
    with pytest.raises(TypeError) as e:
        torch.normal(torch.zeros(2), torch.ones(2), size=(3,))
    assert str(e.value) == msg    # real torch 2.13's message
