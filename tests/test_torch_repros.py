"""Reproducers a student ran into (issue 28), with real torch 2.13's answers recorded on an AMD
EPYC (Zen 4) machine: the values below are the bits torch printed there."""
import pytest

import gradrepl.torch as torch


def _seeded(seed=2147483647):
    return torch.Generator().manual_seed(seed)


def test_multinomial_one_sample_is_the_exponential_race():
    p = torch.tensor([.1, .2, .3, .4])
    g = _seeded()
    assert [torch.multinomial(p, 1, True, generator=g).item() for _ in range(8)] == \
        [3, 3, 3, 3, 2, 0, 2, 3]


def test_multinomial_with_replacement_many_samples():
    g = _seeded()
    p = torch.tensor([.1, .2, .3, .4])
    assert torch.multinomial(p, 10, True, generator=g).tolist() == [3, 3, 3, 0, 0, 3, 3, 0, 3, 3]


def test_multinomial_without_replacement_and_rows():
    p = torch.tensor([.1, .2, .3, .4])
    g = _seeded()
    assert torch.multinomial(p.repeat(3, 1), 1, True, generator=g).tolist() == [[3], [3], [3]]
    g = _seeded()
    assert torch.multinomial(p, 1, False, generator=g).tolist() == [3]
    assert torch.multinomial(p, 2, False, generator=g).tolist() == [3, 0]
    with pytest.raises(RuntimeError, match="without replacement"):
        torch.multinomial(p, 5, False)


def test_setitem_drops_leading_ones_of_the_value():
    t = torch.zeros(2, 3)
    t[0] = torch.ones(1, 3)
    assert t.tolist() == [[1.0, 1.0, 1.0], [0.0, 0.0, 0.0]]
    t[:, 1] = torch.full((1, 1, 2), 5.0)
    assert t.tolist() == [[1.0, 5.0, 1.0], [0.0, 5.0, 0.0]]
    with pytest.raises(RuntimeError, match="shape mismatch"):
        t[0] = torch.ones(2, 3)


def test_setitem_leading_ones_keep_the_gradient():
    v = torch.ones(1, 3, requires_grad=True)
    t = torch.zeros(2, 3)
    t[1] = v * 2
    t.sum().backward()
    assert v.grad.tolist() == [[2.0, 2.0, 2.0]]


def test_two_live_nodes_never_share_an_address():
    a = torch.ones(2, requires_grad=True)
    b, c = a * 2, a * 3
    assert repr(b.grad_fn) != repr(c.grad_fn)
    assert b.grad_fn is b.grad_fn
    assert repr(b.grad_fn).startswith("<MulBackward0 object at 0x")
