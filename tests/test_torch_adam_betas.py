"""Adam/AdamW store ``betas`` as a tuple, whatever sequence was passed (torch 2.13's
``betas = tuple(map(_to_scalar, betas))``): Udacity's GAN notebooks pass ``[beta1, beta2]`` and
print the optimizer. Expected text recorded from real torch 2.13 in this session."""
import pytest

import gradrepl.torch as torch


@pytest.mark.parametrize("cls", ["Adam", "AdamW"])
def test_betas_list_becomes_tuple(cls):
    m = torch.nn.Linear(2, 1)
    o = getattr(torch.optim, cls)(m.parameters(), lr=2e-4, betas=[0.5, 0.999])
    assert o.defaults["betas"] == (0.5, 0.999) and type(o.defaults["betas"]) is tuple
    assert type(o.param_groups[0]["betas"]) is tuple
    assert o.state_dict()["param_groups"][0]["betas"] == (0.5, 0.999)
    assert "    betas: (0.5, 0.999)\n" in repr(o)


def test_adamax_keeps_the_list_as_torch_does():
    m = torch.nn.Linear(2, 1)
    o = torch.optim.Adamax(m.parameters(), betas=[0.5, 0.999])
    assert o.defaults["betas"] == [0.5, 0.999]
