"""torch dialect: torch.nn.utils (rnn packing, weight/spectral norm, parametrize,
parametrizations, fusion, parameter vectors, clipping, skip_init, stateless); expected texts
recorded from real torch 2.13 (CPU) in this session."""
import warnings

import numpy as np
import pytest

import gradrepl.torch as torch
from gradrepl.torch import nn
from gradrepl.torch.nn.utils import parametrize as P
from gradrepl.torch.nn.utils.rnn import (PackedSequence, pack_padded_sequence, pack_sequence,
                                         pad_packed_sequence, pad_sequence, unpack_sequence,
                                         unpad_sequence)


def _np(t):
    return np.asarray(t.detach().numpy(), np.float64)


def test_pack_sequence_repr_and_unpack():
    a, b, c = torch.tensor([1, 2, 3]), torch.tensor([4, 5]), torch.tensor([6])
    packed = pack_sequence([a, b, c])
    assert repr(packed) == ("PackedSequence(data=tensor([1, 4, 6, 2, 5, 3]), batch_sizes="
                            "tensor([3, 2, 1]), sorted_indices=None, unsorted_indices=None)")
    assert isinstance(packed, PackedSequence) and type(packed).__module__ == "torch.nn.utils.rnn"
    assert [t.tolist() for t in unpack_sequence(packed)] == [[1, 2, 3], [4, 5], [6]]


def test_pack_padded_unsorted_and_pad_back():
    seq = torch.tensor([[1, 2, 0], [3, 0, 0], [4, 5, 6]])
    packed = pack_padded_sequence(seq, [2, 1, 3], batch_first=True, enforce_sorted=False)
    assert repr(packed) == ("PackedSequence(data=tensor([4, 1, 3, 5, 2, 6]), batch_sizes="
                            "tensor([3, 2, 1]), sorted_indices=tensor([2, 0, 1]), "
                            "unsorted_indices=tensor([1, 2, 0]))")
    padded, lengths = pad_packed_sequence(packed, batch_first=True)
    assert padded.tolist() == seq.tolist() and lengths.tolist() == [2, 1, 3]
    padded, _ = pad_packed_sequence(packed, batch_first=True, total_length=5, padding_value=9)
    assert padded.shape == torch.Size([3, 5]) and padded[1].tolist() == [3, 9, 9, 9, 9]
    with pytest.raises(RuntimeError, match="`lengths` array must be sorted in decreasing order"):
        pack_padded_sequence(seq, [2, 1, 3], batch_first=True)
    with pytest.raises(ValueError, match="Expected total_length to be at least"):
        pad_packed_sequence(packed, total_length=1)


def test_pad_sequence_and_unpad_grad():
    a = torch.randn(3, 2, requires_grad=True)
    b = torch.randn(2, 2, requires_grad=True)
    p = pad_sequence([a, b])
    assert p.shape == torch.Size([3, 2, 2]) and type(p.grad_fn).__name__ == "CopySlices"
    left = pad_sequence([a, b], batch_first=True, padding_side="left", padding_value=-1)
    np.testing.assert_array_equal(_np(left[1, 0]), [-1, -1])
    np.testing.assert_array_equal(_np(left[1, 1:]), _np(b))
    packed = pack_padded_sequence(p, [3, 2])
    assert type(packed.data.grad_fn).__name__ == "PackPaddedSequenceBackward0"
    packed.data.sum().backward()
    np.testing.assert_array_equal(_np(a.grad), np.ones((3, 2)))
    out = unpad_sequence(p, torch.tensor([3, 2]))
    assert p.shape == torch.Size([2, 3, 2])  # transposed in place, as torch does
    np.testing.assert_array_equal(_np(out[1]), _np(b))


def test_weight_norm_and_remove():
    m = nn.Linear(4, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nn.utils.weight_norm(m)
    assert m.weight_g.shape == torch.Size([3, 1]) and m.weight_v.shape == torch.Size([3, 4])
    v, g = _np(m.weight_v), _np(m.weight_g)
    np.testing.assert_allclose(_np(m.weight), g * v / np.linalg.norm(v, axis=1, keepdims=True),
                               rtol=1e-6)
    m(torch.randn(2, 4))
    assert repr(nn.utils.remove_weight_norm(m)) == "Linear(in_features=4, out_features=3, bias=True)"
    assert [n for n, _ in m.named_parameters()] == ["bias", "weight"]
    with pytest.raises(ValueError, match="weight_norm of 'weight' not found in"):
        nn.utils.remove_weight_norm(m)


def test_spectral_norm_hook_and_parametrization():
    torch.manual_seed(0)
    m = nn.utils.spectral_norm(nn.Linear(6, 5))
    assert m.weight_u.shape == torch.Size([5]) and m.weight_v.shape == torch.Size([6])
    for _ in range(50):
        m(torch.randn(1, 6))
    assert abs(np.linalg.svd(_np(m.weight), compute_uv=False)[0] - 1) < 1e-3
    assert repr(nn.utils.remove_spectral_norm(m)) == ("Linear(in_features=6, out_features=5, "
                                                      "bias=True)")
    snm = nn.utils.parametrizations.spectral_norm(nn.Linear(6, 5))
    # 15 power iterations at registration
    assert abs(np.linalg.svd(_np(snm.weight), compute_uv=False)[0] - 1) < 1e-2
    assert repr(snm) == """ParametrizedLinear(
  in_features=6, out_features=5, bias=True
  (parametrizations): ModuleDict(
    (weight): ParametrizationList(
      (0): _SpectralNorm()
    )
  )
)"""


def test_parametrizations_weight_norm_and_orthogonal():
    m = nn.utils.parametrizations.weight_norm(nn.Linear(20, 40), name="weight")
    assert m.parametrizations.weight.original0.size() == torch.Size([40, 1])
    assert m.parametrizations.weight.original1.size() == torch.Size([40, 20])
    assert "(0): _WeightNorm()" in repr(m)
    o = nn.utils.parametrizations.orthogonal(nn.Linear(20, 40))
    Q = _np(o.weight)
    np.testing.assert_allclose(Q.T @ Q, np.eye(20), atol=1e-5)
    assert "(0): _Orthogonal()" in repr(o)
    sq = nn.utils.parametrizations.orthogonal(nn.Linear(5, 5), orthogonal_map="householder")
    np.testing.assert_allclose(_np(sq.weight) @ _np(sq.weight).T, np.eye(5), atol=1e-5)


class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).T

    def right_inverse(self, A):
        return A.triu()


def test_register_and_remove_parametrization():
    m = nn.Linear(5, 5)
    P.register_parametrization(m, "weight", Symmetric())
    assert type(m).__name__ == "ParametrizedLinear" and P.is_parametrized(m)
    assert P.is_parametrized(m, "weight") and not P.is_parametrized(m, "bias")
    assert P.type_before_parametrizations(m) is nn.Linear
    w = _np(m.weight)
    np.testing.assert_array_equal(w, w.T)
    A = torch.rand(5, 5)
    A = A + A.T
    m.weight = A
    np.testing.assert_allclose(_np(m.weight), _np(A), rtol=1e-6)
    with P.cached():
        assert m.weight is m.weight
    assert m.weight is not m.weight
    P.remove_parametrizations(m, "weight")
    assert type(m) is nn.Linear and isinstance(m.weight, nn.Parameter)
    np.testing.assert_allclose(_np(m.weight), _np(A), rtol=1e-6)
    with pytest.raises(ValueError, match="does not have a parametrization on weight"):
        P.remove_parametrizations(m, "weight")


def test_fuse_conv_bn_eval_and_linear():
    torch.manual_seed(1)
    conv = nn.Conv2d(2, 3, 3).eval()
    bn = nn.BatchNorm2d(3).eval()
    bn.running_mean.copy_(torch.randn(3))
    bn.running_var.copy_(torch.rand(3) + 0.5)
    fused = nn.utils.fuse_conv_bn_eval(conv, bn)
    x = torch.randn(1, 2, 5, 5)
    np.testing.assert_allclose(_np(fused(x)), _np(bn(conv(x))), rtol=1e-5, atol=1e-5)
    lin = nn.Linear(4, 3).eval()
    bn1 = nn.BatchNorm1d(3).eval()
    bn1.running_var.copy_(torch.rand(3) + 0.5)
    f = nn.utils.fuse_linear_bn_eval(lin, bn1)
    x = torch.randn(2, 4)
    np.testing.assert_allclose(_np(f(x)), _np(bn1(lin(x))), rtol=1e-5, atol=1e-6)


def test_vectors_clipping_skip_init_functional_call():
    m = nn.Linear(3, 2)
    vec = nn.utils.parameters_to_vector(m.parameters())
    assert vec.shape == torch.Size([8])
    nn.utils.vector_to_parameters(torch.arange(8.0), m.parameters())
    assert m.bias.tolist() == [6.0, 7.0]
    m(torch.ones(1, 3)).sum().backward()
    total = nn.utils.clip_grad_norm_(m.parameters(), 1.0)
    assert abs(float(total) - np.sqrt(8)) < 1e-5
    assert abs(float(nn.utils.get_total_norm([p.grad for p in m.parameters()])) - 1) < 1e-4
    nn.utils.clip_grad_value_(m.parameters(), 0.1)
    assert float(m.bias.grad.abs().max()) <= float(np.float32(0.1))
    torch.manual_seed(0)
    s = nn.utils.skip_init(nn.Linear, 5, 1)
    after = torch.rand(1)
    torch.manual_seed(0)
    assert float(torch.rand(1)) == float(after)  # skip_init drew nothing
    assert s.weight.shape == torch.Size([1, 5])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = nn.utils.stateless.functional_call(
            m, {"weight": torch.zeros(2, 3), "bias": torch.ones(2)}, (torch.ones(1, 3),))
    assert out.tolist() == [[1.0, 1.0]]
