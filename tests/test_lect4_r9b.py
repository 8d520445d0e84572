"""Lecture round nine B (torch): what the unseen CMU 11-785 / CS230 / Raschka / sentdex / CS182
lecture scripts found (measured in /tmp/r9_b, outside the repository).

- ``nn.Embedding`` / ``F.embedding`` as ATen: ``max_norm`` renormalises the looked-up rows in
  place (CS182-style embedding check), ``scale_grad_by_freq`` divides each row's gradient by
  its count, the ``padding_idx`` row is returned as stored (only its gradient is left out),
  torch's IndexError, the double-backward node ``EmbeddingDenseBackwardBackward0``, the
  module's repr with its options, ``from_pretrained``'s options;
- float64 p-norms (p not 0/1/2/inf) take ``|x|^p`` and the root with the C library's pow (as
  ATen's NormOps), not numpy's power;
- ``torch.Tensor([ndarray, ...])`` and the other constructors of nested data warn once that a
  list of numpy arrays is slow (sentdex's cats-vs-dogs loading); a 0-d numpy array first in
  the data has no length (TypeError).

Literals are recorded from real torch 2.13.0+cpu in this session (2026-12-07) on the AMD EPYC
Zen 4 machine; the cases are exact products/sums (or chosen by CPU capability where not).
"""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import gradrepl.torch as torch
import gradrepl.torch.nn.functional as F


def _hex(t):
    return [float(v).hex() for v in t.detach().reshape(-1).tolist()]


def test_padding_row_is_read_as_stored_and_gets_no_gradient():
    # real torch 2.13: from_pretrained(..., padding_idx=1) returns row 1's values
    w = torch.tensor([[1., 2.], [3., 4.], [5., 6.]])
    e = torch.nn.Embedding.from_pretrained(w.clone(), freeze=False, padding_idx=1)
    o = e(torch.tensor([1, 0, 1, 2]))
    assert o.tolist() == [[3.0, 4.0], [1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
    (o * torch.tensor([[1., 2.]])).sum().backward()
    assert e.weight.grad.tolist() == [[1.0, 2.0], [0.0, 0.0], [1.0, 2.0]]


def test_scale_grad_by_freq_exact_counts():
    # real torch 2.13 (counts 1, 2, 4: exact scales)
    W = torch.zeros(4, 3, requires_grad=True)
    ids = torch.tensor([0, 1, 1, 2, 2, 2, 2, 3])
    F.embedding(ids, W, scale_grad_by_freq=True).backward(torch.arange(24.).view(8, 3) * 0.1)
    assert _hex(W.grad) == [
        '0x0.0p+0', '0x1.99999a0000000p-4', '0x1.99999a0000000p-3', '0x1.ccccce0000000p-2',
        '0x1.19999a0000000p-1', '0x1.4ccccc0000000p-1', '0x1.59999a0000000p+0',
        '0x1.7333340000000p+0', '0x1.8ccccc0000000p+0', '0x1.0cccce0000000p+1',
        '0x1.19999a0000000p+1', '0x1.2666660000000p+1']
    # the same as the unscaled gradient divided by the counts
    V = torch.zeros(4, 3, requires_grad=True)
    F.embedding(ids, V).backward(torch.arange(24.).view(8, 3) * 0.1)
    counts = torch.tensor([[1.], [2.], [4.], [1.]])
    assert torch.allclose(W.grad, V.grad / counts)


def test_scale_grad_by_freq_count_three_is_atens_fused_add():
    from gradrepl.torch import _capability

    if not _capability.fused():
        pytest.skip("torch's add kernel fuses (fmadd) only where its build does; this CPU class "
                    "adds in two roundings, the literal was recorded on a fusing x86-64")
    W = torch.zeros(2, 5, requires_grad=True)
    g = torch.tensor([[0.1, 0.7, 1.3, 2.9, 3.3], [0.2, 0.5, 1.1, 2.3, 4.7],
                      [0.3, 0.9, 1.7, 2.2, 5.1], [1.0, 1.0, 1.0, 1.0, 1.0]])
    F.embedding(torch.tensor([0, 0, 0, 1]), W, scale_grad_by_freq=True).backward(g)
    # real torch 2.13
    assert _hex(W.grad) == [
        '0x1.99999a0000000p-3', '0x1.6666660000000p-1', '0x1.5dddde0000000p+0',
        '0x1.3bbbbc0000000p+1', '0x1.1777780000000p+2'] + ['0x1.0000000000000p+0'] * 5


def test_max_norm_renormalises_looked_up_rows_in_place():
    W = torch.tensor([[3., 4.], [0.3, 0.4], [1., 1.], [6., 8.]], requires_grad=True)
    o = F.embedding(torch.tensor([0, 1, 2, 0]), W, max_norm=1.0)
    # real torch 2.13: rows 0 and 2 scaled by max_norm / (norm + 1e-7), row 3 not looked up
    assert _hex(o) == ['0x1.3333340000000p-1', '0x1.99999a0000000p-1', '0x1.3333340000000p-2',
                       '0x1.99999a0000000p-2', '0x1.6a09e60000000p-1', '0x1.6a09e60000000p-1',
                       '0x1.3333340000000p-1', '0x1.99999a0000000p-1']
    assert _hex(W)[-2:] == ['0x1.8000000000000p+2', '0x1.0000000000000p+3']
    assert _hex(W)[:2] == _hex(o)[:2]
    assert W._version == 1          # one in-place op, not one per row
    o.sum().backward()              # the saved ids only: no version error
    assert W.grad.tolist() == [[2.0, 2.0], [1.0, 1.0], [1.0, 1.0], [0.0, 0.0]]


@pytest.mark.parametrize("dtype, norm_type, max_norm, ids, expected", [
    # real torch 2.13
    ("float64", 1.0, 2.0, [0, 1], ['0x1.b6db6d4dac9d1p-1', '-0x1.249248de73136p+0',
                                   '0x1.0000000000000p+0', '0x1.0000000000000p+0']),
    ("float32", float("inf"), 0.5, [[0]], ['0x1.8000000000000p-2', '-0x1.0000000000000p-1',
                                           '0x1.0000000000000p+0', '0x1.0000000000000p+0']),
])
def test_max_norm_norm_types(dtype, norm_type, max_norm, ids, expected):
    W = torch.tensor([[3., -4.], [1., 1.]], dtype=getattr(torch, dtype))
    F.embedding(torch.tensor(ids), W, max_norm=max_norm, norm_type=norm_type)
    assert _hex(W) == expected


def test_embedding_module_options_repr_and_from_pretrained():
    # real torch 2.13's reprs
    e = torch.nn.Embedding(6, 3, padding_idx=-1, max_norm=2.0, scale_grad_by_freq=True,
                           sparse=True)
    assert repr(e) == ("Embedding(6, 3, padding_idx=5, max_norm=2.0, scale_grad_by_freq=True, "
                       "sparse=True)")
    assert repr(torch.nn.Embedding(6, 3, max_norm=1.5, norm_type=1.0)) == \
        "Embedding(6, 3, max_norm=1.5, norm_type=1.0)"
    w = torch.tensor([[3., 4.], [0.6, 0.8]])
    p = torch.nn.Embedding.from_pretrained(w, max_norm=1.0)
    assert repr(p) == "Embedding(2, 2, max_norm=1.0)" and not p.weight.requires_grad
    out = p(torch.tensor([0, 1]))
    assert math.isclose(float(out[0].norm()), 1.0, rel_tol=1e-6)
    assert out[1].tolist() == pytest.approx([0.6, 0.8])


def test_embedding_errors_as_torch():
    W = torch.randn(5, 3)
    for bad in ([5], [-1]):
        with pytest.raises(IndexError, match=r"^index out of range in self$"):
            F.embedding(torch.tensor(bad), W)
    with pytest.raises(RuntimeError, match="Expected tensor for argument #1 'indices'"):
        F.embedding(torch.tensor([0.0]), W)


def test_create_graph_node_and_unscaled_double_backward():
    W = torch.tensor([[1., 2.], [3., 4.], [5., 6.]], requires_grad=True)
    o = F.embedding(torch.tensor([0, 2, 2]), W, scale_grad_by_freq=True)
    assert type(o.grad_fn).__name__ == "EmbeddingBackward0"
    g, = torch.autograd.grad((o ** 2).sum(), W, create_graph=True)
    # real torch 2.13: the first backward scales, the double backward does not
    assert g.tolist() == [[2.0, 4.0], [0.0, 0.0], [10.0, 12.0]]
    assert type(g.grad_fn).__name__ == "EmbeddingDenseBackwardBackward0"
    (g * torch.tensor([[1., 10.]])).sum().backward()
    assert W.grad.tolist() == [[2.0, 20.0], [0.0, 0.0], [2.0, 20.0]]


def test_float64_p_norm_uses_the_c_library_pow():
    x = torch.linspace(-2.3, 3.1, 37, dtype=torch.float64).view(1, 37) * 1.37
    # real torch 2.13 (AMD Zen 4): the p=3 norm's last bit differed with numpy's power
    assert _hex(torch.linalg.vector_norm(x, 3.0, dim=-1)) == ['0x1.097e0dfa195adp+3']
    assert _hex(x.norm(2.5)) == ['0x1.43681b4353bcdp+3']
    # ATen's NormOps, independently: acc += pow(|x|, p) in order, then pow(acc, 1 / p)
    for p in (3.0, 2.5, 0.7):
        acc = 0.0
        for v in x.reshape(-1).tolist():
            acc += math.pow(abs(v), p)
        assert float(torch.linalg.vector_norm(x, p)) == math.pow(acc, 1.0 / p)


def test_list_of_ndarrays_warns_once_and_0d_first_item_has_no_length():
    from gradrepl.torch import _creation, _ops_shape

    _creation._NDARRAY_ITEMS[0] = False
    _ops_shape._warn_once.__defaults__[0].discard(_creation._NDARRAY_ITEMS_WARNING)
    data = [np.ones(2), np.zeros(2)]
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        t = torch.Tensor(data)
        torch.tensor(data)
        torch.FloatTensor([[1.0, 2.0], np.ones(2)])
    msgs = [str(w.message) for w in rec if "numpy.ndarrays" in str(w.message)]
    # real torch 2.13: TORCH_WARN_ONCE, a UserWarning at the calling line
    assert msgs == ["Creating a tensor from a list of numpy.ndarrays is extremely slow. Please "
                    "consider converting the list to a single numpy.ndarray with numpy.array() "
                    "before converting to a tensor. (Triggered internally at "
                    "/__w/pytorch/pytorch/torch/csrc/utils/tensor_new.cpp:252.)"]
    assert t.tolist() == [[1.0, 1.0], [0.0, 0.0]] and t.dtype == torch.float32
    with pytest.raises(TypeError, match="len\\(\\) of unsized object"):
        torch.tensor([np.array(1.0), np.array(2.0)])
    assert torch.tensor([1.0, np.array(2.0)]).tolist() == [1.0, 2.0]
    # a numpy array itself (not nested) and numpy scalars do not warn
    _creation._NDARRAY_ITEMS[0] = False
    _ops_shape._warn_once.__defaults__[0].discard(_creation._NDARRAY_ITEMS_WARNING)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        torch.tensor(np.ones(3))
        torch.Tensor([np.float64(1.0), np.float32(2.0)])
    assert not [w for w in rec if "numpy.ndarrays" in str(w.message)]


# ---------------------------------------------------------------- fake quantization (CS182 b04)
_FQ_X = [[0.05, 0.15, 0.25, -0.05, 1e9, -3.3], [0.71, -0.49, 1.234, 0.3, -0.8, 0.0]]


def test_fake_quantize_per_tensor_values_and_straight_through_gradient():
    x = torch.tensor(_FQ_X, requires_grad=True)
    y = torch.fake_quantize_per_tensor_affine(x, 0.1, 3, -8, 7)
    # real torch 2.13 (0.05 * 10 = 0.5 rounds to even 0; 1e9 clamps to quant_max)
    assert _hex(y) == [
        '0x0.0p+0', '0x1.99999a0000000p-3', '0x1.99999a0000000p-3', '0x0.0p+0',
        '0x1.99999a0000000p-2', '-0x1.19999a0000000p+0', '0x1.99999a0000000p-2',
        '-0x1.0000000000000p-1', '0x1.99999a0000000p-2', '0x1.3333340000000p-2',
        '-0x1.99999a0000000p-1', '0x0.0p+0']
    assert type(y.grad_fn).__name__ == "FakeQuantizePerTensorAffineCachemaskBackward0"
    y.backward(torch.arange(12.).view(2, 6))
    assert x.grad.tolist() == [[0.0, 1.0, 2.0, 3.0, 0.0, 0.0], [0.0, 7.0, 0.0, 9.0, 10.0, 11.0]]
    # float64: the per-tensor product is a float's (real torch 2.13)
    yd = torch.fake_quantize_per_tensor_affine(x.detach().double(), 0.3, 0, -8, 7)
    assert yd.dtype == torch.float64
    assert _hex(yd)[4:6] == ['0x1.0cccce0000000p+1', '-0x1.3333340000000p+1']
    # tensor qparams: its own node name (real torch 2.13)
    yt = torch.fake_quantize_per_tensor_affine(x, torch.tensor(0.25),
                                               torch.tensor(2, dtype=torch.int32), 0, 15)
    assert type(yt.grad_fn).__name__ == \
        "FakeQuantizePerTensorAffineCachemaskTensorQparamsBackward0"
    assert _hex(yt)[4:7] == ['0x1.a000000000000p+1', '-0x1.0000000000000p-1',
                             '0x1.8000000000000p-1']


def test_fake_quantize_per_channel_and_errors():
    xd = torch.tensor(_FQ_X).double().requires_grad_()
    y = torch.fake_quantize_per_channel_affine(xd, torch.tensor([0.3, 0.07]),
                                               torch.tensor([1, -2], dtype=torch.int32), 0, -8, 7)
    # real torch 2.13: per channel the product is a double's
    assert _hex(y) == [
        '0x0.0p+0', '0x1.3333340000000p-2', '0x1.3333340000000p-2', '0x0.0p+0',
        '0x1.ccccce0000000p+0', '-0x1.59999a8000000p+1', '0x1.428f5c4000000p-1',
        '-0x1.ae147b0000000p-2', '0x1.428f5c4000000p-1', '0x1.1eb8520000000p-2',
        '-0x1.ae147b0000000p-2', '0x0.0p+0']
    assert type(y.grad_fn).__name__ == "FakeQuantizePerChannelAffineCachemaskBackward0"
    y.sum().backward()
    inv = (np.float32(1) / np.array([[0.3], [0.07]], np.float32)).astype(np.float64)
    q = np.rint(np.array(_FQ_X, np.float32).astype(np.float64) * inv) + np.array([[1], [-2]])
    assert xd.grad.numpy().tolist() == ((q >= -8) & (q <= 7)).astype(float).tolist()
    x = torch.tensor(_FQ_X)
    with pytest.raises(RuntimeError, match="^`zero_point` must be between `quant_min` and "):
        torch.fake_quantize_per_tensor_affine(x, 0.1, 300, 0, 255)
    with pytest.raises(RuntimeError, match="^`quant_min` should be less than or         equal"):
        torch.fake_quantize_per_tensor_affine(x, 0.1, 0, 5, 2)


def test_weight_norm_deprecation_names_torchs_own_line_once():
    import gradrepl.torch.nn as nn
    from gradrepl import _libsite

    _libsite._registries.clear()
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("default")
        nn.utils.weight_norm(nn.Linear(3, 2))
        nn.utils.weight_norm(nn.Linear(3, 2))   # another line: still once (torch's registry)
    fw = [w for w in rec if w.category is FutureWarning]
    # real torch 2.13: WeightNorm.apply is @deprecated, shown at torch/nn/utils/weight_norm.py:144
    assert len(fw) == 1
    assert fw[0].filename.endswith("torch/nn/utils/weight_norm.py") and fw[0].lineno == 144
    assert str(fw[0].message) == ("`torch.nn.utils.weight_norm` is deprecated in favor of "
                                  "`torch.nn.utils.parametrizations.weight_norm`.")


def test_torch_embedding_renorm_is_one_inplace_op():
    W = torch.tensor([[3., 4.], [0.3, 0.4], [1., 1.], [6., 8.]])
    out = torch.embedding_renorm_(W, torch.tensor([0, 1, 2, 0]), 1.0, 2.0)
    # real torch 2.13: the same rows as F.embedding(max_norm=1.0) leaves, version 1 (was 2)
    assert out is W and W._version == 1
    assert _hex(W) == ['0x1.3333340000000p-1', '0x1.99999a0000000p-1', '0x1.3333340000000p-2',
                       '0x1.99999a0000000p-2', '0x1.6a09e60000000p-1', '0x1.6a09e60000000p-1',
                       '0x1.8000000000000p+2', '0x1.0000000000000p+3']
    p = torch.tensor([[3., 4.]], requires_grad=True)
    with pytest.raises(RuntimeError, match="^a leaf Variable that requires grad is being used"):
        torch.embedding_renorm_(p, torch.tensor([0]), 1.0, 2.0)
    with torch.no_grad():
        torch.embedding_renorm_(p, torch.tensor([0]), 1.0, 2.0)
    assert p._version == 1
