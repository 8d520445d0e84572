"""Dropout and bernoulli_ on a transposed tensor draw their randoms in memory order, as torch
fills ``empty_like(input)`` (or the tensor itself); a strided slice is drawn in logical order.
Expected lists were printed by real torch 2.13 (CPU) in this session; torch's uniform stream is
the same on every CPU (mt19937 + the 53-bit double draw), so they hold on any machine."""
import gradrepl.torch as torch
import gradrepl.torch.nn.functional as F


def _ints(t):
    return t.int().flatten().tolist()


def test_dropout_of_a_transposed_batch_keeps_the_layout_and_draws_in_memory_order():
    torch.manual_seed(0)
    y = F.dropout(torch.ones(5, 2, 8).transpose(0, 1), 0.5)
    assert y.stride() == (8, 16, 1)
    assert _ints(y.ne(0)) == [
        0, 0, 1, 0, 0, 0, 1, 1, 1, 1, 0, 0, 1, 0, 1, 0, 1, 1, 1, 0, 0, 1, 0, 1, 0, 0, 0, 1, 1, 0,
        0, 1, 0, 1, 1, 0, 1, 0, 0, 0, 0, 1, 1, 1, 1, 0, 1, 1, 1, 0, 0, 0, 0, 1, 0, 0, 1, 1, 0, 1,
        0, 1, 0, 1, 0, 0, 1, 0, 0, 1, 1, 0, 1, 0, 1, 1, 1, 1, 1, 1]


def test_bernoulli_into_a_transposed_tensor():
    torch.manual_seed(0)
    z = torch.ones(4, 6).t()
    z.bernoulli_(0.3)
    assert z.stride() == (1, 6)
    assert _ints(z) == [0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 1, 0, 1, 1, 0]


def test_a_strided_slice_is_drawn_in_logical_order():
    torch.manual_seed(0)
    assert _ints(F.dropout(torch.ones(4, 6)[:, ::2], 0.5)) == [0, 0, 2, 0, 0, 0, 2, 2, 0, 2, 2, 2]
    torch.manual_seed(0)
    w = torch.ones(4, 6)[:, ::2]
    w.bernoulli_(0.5)
    assert _ints(w) == [0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1]


def test_permuted_input_alpha_dropout_and_the_module():
    torch.manual_seed(0)
    v = torch.ones(2, 3, 4).permute(2, 0, 1)
    assert _ints(F.dropout(v, 0.3).ne(0)) == [
        0, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 0, 1]
    torch.manual_seed(0)
    a = F.alpha_dropout(torch.ones(3, 5).t(), 0.4, True).flatten().tolist()[:6]
    assert a == [-0.9106420278549194, -0.9106420278549194, 1.4703772068023682,
                 -0.9106420278549194, 1.4703772068023682, 1.4703772068023682]
    torch.manual_seed(0)
    m = torch.nn.Dropout(0.5)
    assert m(torch.ones(3, 4).t()).flatten().tolist() == [
        0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 2.0, 2.0, 2.0, 0.0, 2.0, 2.0]
