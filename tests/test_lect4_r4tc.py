"""Issue 28, unseen lectures round four (torch dialect, helper R4-TC): Karpathy's makemore parts
3-5, "Let's build GPT", nanoGPT's model.py and d2l-en chapters (linear/softmax regression, MLP,
CNN, RNN, modern RNN, attention/transformer/ViT, lr schedulers), retyped and run under real
torch 2.13 and gradrepl. What printed other bytes is checked here, by family:

- torch.histogram / histogramdd / bincount(weights) on a tensor that requires grad: outputs with
  ``grad_fn=<NotImplemented>`` (makemore part 3 prints ``torch.histogram(t, density=True)`` of
  activations that require grad);
- module ``__name__`` under the import mapping (d2l's ``scheduler.__module__ ==
  lr_scheduler.__name__``);
- Lazy layers materialise their UninitializedParameters in place (d2l builds the optimizer, or
  a student does, before the first forward: the ViT never trained).

Literals marked "recorded" were printed by real torch 2.13.0+cpu in this session.
"""
from __future__ import annotations

import importlib

import numpy as np
import pytest

import gradrepl.torch as torch
from gradrepl.importhook import torch_modules

nn = torch.nn


# ------------------------------------------------------------------ histogram family: grad_fn
def _t():
    return torch.linspace(-1, 1, 7, requires_grad=True)


def test_histogram_outputs_carry_notimplemented_grad_fn():
    t = _t()
    r = torch.histogram(t, bins=2)
    assert r.hist.requires_grad and r.bin_edges.requires_grad
    assert type(r.hist.grad_fn).__name__ == "NotImplemented"
    assert repr(r) == ("torch.return_types.histogram(\n"
                       "hist=tensor([4., 3.], grad_fn=<NotImplemented>),\n"
                       "bin_edges=tensor([-1.,  0.,  1.], grad_fn=<NotImplemented>))")  # recorded
    # makemore part 3 prints a slice of the density histogram
    hy, hx = torch.histogram(t, bins=3, density=True)
    assert str(hy[:2]) == "tensor([0.4286, 0.4286], grad_fn=<SliceBackward0>)"  # recorded
    with pytest.raises(RuntimeError, match=r"^derivative for aten::histogram is not implemented$"):
        hy.sum().backward()


def test_histogram_without_grad_has_no_node():
    t = _t()
    with torch.no_grad():
        r = torch.histogram(t, 2)
    assert r.hist.grad_fn is None and not r.hist.requires_grad
    r = torch.histogram(t.detach(), torch.tensor([-1.0, 0.0, 1.0]))
    assert r.hist.grad_fn is None
    assert r.hist.tolist() == [4.0, 3.0]


def test_histogramdd_and_bincount_weights_and_histc():
    t = _t()
    r = torch.histogramdd(t.view(-1, 1), bins=[2])
    assert repr(r) == ("torch.return_types.histogramdd(\n"
                       "hist=tensor([4., 3.], grad_fn=<NotImplemented>),\n"
                       "bin_edges=(tensor([-1.,  0.,  1.], grad_fn=<NotImplemented>),))")  # recorded
    with pytest.raises(RuntimeError, match="aten::histogramdd"):
        r.hist.sum().backward()
    b = torch.bincount(torch.tensor([0, 1, 1]), weights=t[:3])
    assert str(b) == "tensor([-1.0000, -1.0000], grad_fn=<NotImplemented>)"  # recorded
    # histc is not differentiable in torch: no node at all (recorded)
    assert str(torch.histc(t, bins=4)) == "tensor([2., 1., 2., 2.])"
    assert str(t.histogram(2).hist) == "tensor([4., 3.], grad_fn=<NotImplemented>)"


# ------------------------------------------------------------------ module names under the mapping
def test_module_names_are_torch_names_while_mapped():
    with torch_modules():
        ls = importlib.import_module("torch.optim.lr_scheduler")
        T = importlib.import_module("torch")
        assert ls.__name__ == "torch.optim.lr_scheduler"
        assert T.nn.__name__ == "torch.nn" and T.nn.functional.__name__ == "torch.nn.functional"
        assert T.__name__ == "torch" and T.optim.__name__ == "torch.optim"
        # d2l's train(): `if scheduler.__module__ == lr_scheduler.__name__: scheduler.step()`
        opt = T.optim.SGD([T.nn.Parameter(T.zeros(1))], lr=0.3)
        sch = ls.CosineAnnealingLR(opt, T_max=10, eta_min=0.01)
        assert sch.__module__ == ls.__name__
        with pytest.raises(AttributeError, match=r"^module 'torch.nn' has no attribute 'nosuch'$"):
            T.nn.nosuch  # noqa: B018  (recorded message)
    # the gradrepl modules keep their own names outside the mapping
    assert importlib.import_module("gradrepl.torch.optim.lr_scheduler").__name__ == \
        "gradrepl.torch.optim.lr_scheduler"
    assert torch.nn.__name__ == "gradrepl.torch.nn"


# ------------------------------------------------------------------ lazy layers: in place
_LAZY = [  # (make, input shape, losses of 3 SGD(lr=0.01) steps on (m(x)**2).sum(), shapes)
    (lambda: nn.LazyLinear(3), (2, 4), [1.8621, 1.5822, 1.3454], [(3, 4), (3,)]),
    (lambda: nn.LazyConv2d(2, 3), (1, 2, 5, 5), [1.8411, 0.2798, 0.2521], [(2, 2, 3, 3), (2,)]),
    (lambda: nn.LazyConvTranspose1d(2, 3), (1, 2, 5), [0.8654, 0.6353, 0.5042],
     [(2, 2, 3), (2,)]),
    (lambda: nn.LazyBatchNorm1d(), (4, 3), [11.998, 10.1554, 8.5958], [(3,), (3,)]),
    (lambda: nn.LazyInstanceNorm2d(affine=True), (2, 3, 4, 4), [95.9881, 12.4455, 1.6137],
     [(3,), (3,)]),
]


def test_optimizer_built_before_first_call_trains_lazy_layers():
    # recorded: torch.manual_seed(0), the five inputs x = torch.rand(shape) drawn first, then
    # for each layer in turn the optimizer made from its UninitializedParameters, 3 steps; the
    # same Parameter objects after
    torch.manual_seed(0)
    xs = [torch.rand(*shape) for _, shape, _, _ in _LAZY]
    for (make, shape, losses, shapes), x in zip(_LAZY, xs):
        m = make()
        ps = list(m.parameters())
        assert all(type(p).__name__ == "UninitializedParameter" for p in ps)
        opt = torch.optim.SGD(m.parameters(), lr=0.01)
        got = []
        for _ in range(3):
            loss = (m(x) ** 2).sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
            got.append(round(loss.item(), 4))
        assert all(p is q for p, q in zip(ps, m.parameters())), type(m).__name__
        assert [type(p).__name__ for p in ps] == ["Parameter", "Parameter"]
        assert got == losses, type(m).__name__
        assert [tuple(p.shape) for p in ps] == shapes


def test_lazy_dtype_and_uninitialized_buffers():
    m = nn.LazyLinear(2, dtype=torch.float64)
    w = m.weight
    m(torch.rand(1, 3, dtype=torch.float64))
    assert w is m.weight and w.dtype == torch.float64 and tuple(w.shape) == (2, 3)
    bn = nn.LazyBatchNorm1d()
    assert repr(bn.running_mean) == "<UninitializedBuffer>"  # recorded
    assert repr(bn.weight) == "<UninitializedParameter>"
    bn(torch.rand(4, 3))
    assert type(bn.running_mean).__name__ == "Tensor" and not bn.running_mean.requires_grad
    assert bn.num_features == 3


def test_load_state_dict_into_lazy_norm_then_forward():
    torch.manual_seed(0)
    src = nn.Sequential(nn.Linear(3, 2), nn.BatchNorm1d(2))
    with torch.no_grad():
        src[1].weight.fill_(2.0)
        src[1].bias.fill_(0.5)
    dst = nn.Sequential(nn.LazyLinear(2), nn.LazyBatchNorm1d())
    dst.load_state_dict(src.state_dict())  # the checkpoint sizes the buffers too
    x = torch.rand(4, 3)
    np.testing.assert_array_equal(dst(x).detach().numpy(), src(x).detach().numpy())
    # recorded: torch sizes them from the checkpoint and leaves num_features at 0
    assert repr(dst[1]) == ("BatchNorm1d(0, eps=1e-05, momentum=0.1, affine=True, bias=True, "
                            "track_running_stats=True)")
    assert repr(dst[0]) == "Linear(in_features=3, out_features=2, bias=True)"


# ------------------------------------------------------------------ SDPA: torch's CPU flash kernel
def _h(t):
    import hashlib

    return hashlib.md5(np.ascontiguousarray(t.detach().numpy()).tobytes()).hexdigest()[:16]


@pytest.fixture
def flash_cpu(monkeypatch):
    # the products are MKL's own sgemm (its bits are the CPU's: recorded on AVX-512, Zen 4)
    from gradrepl.engine import mkl
    from gradrepl.torch import _capability

    if not mkl.load() or _capability.detected() != "AVX512":
        pytest.skip("the flash kernel's products are MKL's gemm on an AVX-512 CPU (the exact "
                    "extra on such a machine): recorded there")
    monkeypatch.setenv("GRADREPL_TORCH_CAPABILITY", "AVX512")


_SDPA = [  # (B, H, L, S, E, is_causal, mask kind) -> md5 of out, q.grad, k.grad, v.grad (recorded)
    ((2, 2, 37, 37, 16, True, None),
     ('8957531f42f01f4e', 'c088ce02f7ce0ded', '6851b348d55cd40f', '781982a0aaca50c0')),
    ((1, 3, 10, 20, 8, False, "float"),
     ('de4ae0bb663832f5', '3e0ccd727a532fbb', '783ef9bca8e4bd66', '9f1af1e894cf5cca')),
    ((2, 2, 40, 40, 8, False, "bool"),
     ('712807f59f458642', '2442d22841604165', '4d31f3d3339022d5', '2c68141cee768f9f')),
]
# the same cases on MKL's AVX512_E1 path (real torch 2.13 on the Intel Sapphire Rapids Xeon;
# _SDPA's were recorded on the AMD EPYC Zen 4, MKL's AUTO path): MKL's sgemm gives other bits
_SDPA_AVX512_E1 = [
    ('8957531f42f01f4e', 'c088ce02f7ce0ded', '6851b348d55cd40f', '781982a0aaca50c0'),
    ('732a9b255eb4040a', 'd8af86a3fe3402a2', '61ab8713124e67aa', '9da373b117add0dd'),
    ('2cd9c79ee0602f18', 'ab11cb10dd5ad21b', 'e43333f2f5bafaa7', '3302d2d308c72964'),
]


def test_sdpa_forward_and_backward_bits_as_torchs_flash_kernel(flash_cpu):
    # build-nanogpt's CausalSelfAttention: the gradients of q, k, v were off in the last bits
    # (autograd of the composed softmax); now the kernel's own backward (exp(s - lse), dsum)
    from conftest import record_for_mkl_branch

    wants = record_for_mkl_branch("the flash kernel's MKL sgemm bits", {
        "AUTO": [w for _, w in _SDPA], "AVX512_E1": _SDPA_AVX512_E1})
    F = torch.nn.functional
    torch.manual_seed(0)
    for ((B, H, L, S, E, causal, mask), _), want in zip(_SDPA, wants):
        q = (torch.randn(B, H, L, E) * 2).requires_grad_()
        k = (torch.randn(B, H, S, E) * 2).requires_grad_()
        v = torch.randn(B, H, S, E).requires_grad_()
        m = None if mask is None else (torch.randn(L, S) if mask == "float"
                                       else torch.rand(B, 1, L, S) > 0.3)
        o = F.scaled_dot_product_attention(q, k, v, attn_mask=m, is_causal=causal)
        o.backward(torch.linspace(-1, 1, o.numel()).view(o.shape))
        assert (_h(o), _h(q.grad), _h(k.grad), _h(v.grad)) == want
        assert o.stride() == q.grad.stride() == (H * L * E, L * E, E, 1)  # recorded


def test_sdpa_on_transposed_heads_and_double_backward(flash_cpu):
    F = torch.nn.functional
    torch.manual_seed(0)
    x = torch.randn(2, 5, 16).view(2, 5, 2, 8).transpose(1, 2).requires_grad_()
    o = F.scaled_dot_product_attention(x, x, x, is_causal=True)
    o.sum().backward()
    from conftest import record_for_mkl_branch

    assert (_h(o), _h(x.grad)) == record_for_mkl_branch(  # recorded on each MKL path
        "the flash kernel's MKL sgemm bits", {"AUTO": ('98871178996e3810', '9d07afc0e43ead04'),
                                              "AVX512_E1": ('24395975fb447a48',
                                                            'ff6e48a9408b3e02')})
    assert x.grad.stride() == (80, 8, 16, 1)  # recorded: the grad keeps x's layout
    assert o.grad_fn.name() == "ScaledDotProductFlashAttentionForCpuBackward0"
    g, = torch.autograd.grad(F.scaled_dot_product_attention(x, x, x).sum(), x,
                             create_graph=True)
    with pytest.raises(RuntimeError, match=r"^derivative for aten::_scaled_dot_product_flash_"
                                           r"attention_for_cpu_backward is not implemented$"):
        g.sum().backward()


def test_exp_u20_matches_its_definition():
    # exp_u20 (the flash forward's exponential): 2 * 2^(n-1) * p(r); within its 20 ULP of
    # float64 exp where 2^(n-1) is a normal float (independent check), 0 below ln(FLT_MIN)
    from gradrepl.torch.nn._flash_attention import exp_u20

    x = np.linspace(-80, 80, 20001, dtype=np.float32)
    got = exp_u20(x).astype(np.float64)
    want = np.exp(x.astype(np.float64))
    ok = want > np.finfo(np.float32).tiny
    assert np.all(np.abs(got[ok] - want[ok]) <= 20 * np.spacing(want[ok].astype(np.float32)))
    assert exp_u20(np.array([-200.0, -np.inf], np.float32)).tolist() == [0.0, 0.0]


# ------------------------------------------------------------------ clip_grad_norm_ as torch
def test_clip_grad_norm_total_and_scaled_grads_as_torch(monkeypatch):
    # build-nanogpt printed `norm: 1.4846` one step late: the total came from a float64 norm;
    # torch takes each gradient's linalg.vector_norm (float32), then the norm of their stack,
    # and multiplies every gradient by clamp(max_norm * (1 / (total + 1e-6)), max=1)
    import hashlib

    monkeypatch.setenv("GRADREPL_TORCH_CAPABILITY", "AVX512")

    def h(t):
        return hashlib.md5(t.detach().numpy().tobytes()).hexdigest()[:16]

    torch.manual_seed(10)
    ps = [nn.Parameter(torch.randn(s)) for s in [(37, 5), (5,), (3, 4, 7)]]
    for p in ps:
        p.grad = torch.randn_like(p) * 0.3
    total = nn.utils.clip_grad_norm_(ps, 1.0)
    assert repr(total.item()) == "5.100118160247803"   # recorded (float64 gave ...8637...)
    assert [h(p.grad) for p in ps] == ['1786a6d53298ba1a', 'd91bd48cd22222f0',
                                       '9331466af7f58f60']  # recorded
    torch.manual_seed(0)
    ps = [nn.Parameter(torch.randn(4, 3)), nn.Parameter(torch.randn(3))]
    for p in ps:
        p.grad = torch.randn_like(p) * 0.1
    t = nn.utils.clip_grad_norm_(ps, 5.0)   # no clipping: the gradients times 1.0
    assert repr(t.item()) == "0.34251976013183594" and t.dtype == torch.float32  # recorded
    assert [h(p.grad) for p in ps] == ['2212891c8fbca187', '80effa60c5e896a0']
    t = nn.utils.clip_grad_norm_(ps, 0.5, norm_type=float("inf"))
    assert repr(t.item()) == "0.15091077983379364"  # recorded


def test_sdpa_without_mkl_keeps_the_composed_form(monkeypatch):
    from gradrepl.torch.nn import _flash_attention

    monkeypatch.setattr(_flash_attention, "_kernel", lambda dtype, routine="gemm": None)
    torch.manual_seed(0)
    q = torch.randn(1, 2, 5, 4, requires_grad=True)
    o = torch.nn.functional.scaled_dot_product_attention(q, q, q, is_causal=True)
    o.sum().backward()
    assert o.grad_fn.name() == "ScaledDotProductFlashAttentionForCpuBackward0"
    # first row attends to itself only: the output's row 0 is q's row 0
    np.testing.assert_allclose(o[0, :, 0].detach().numpy(), q[0, :, 0].detach().numpy(),
                               rtol=1e-6)
    assert q.grad.shape == q.shape
