"""Issue 28, round four (helper R4-TA): PyTorch's own tutorials site (Learn the Basics, NLP From
Scratch, Deep Learning for NLP, DCGAN, REINFORCE), retyped as a student would and run under real
torch 2.13 and gradrepl. What stopped them or printed other bytes is checked here.

Literals marked "recorded" were printed by real torch 2.13.0+cpu in this session on an AMD EPYC
Zen 4 (CPU capability AVX512). The add/sub(alpha=) bits depend only on torch's build fusing
``a * b + c`` (the AVX2 and AVX512 kernels) and on its vector block of 16 floats: they are
compared where gradrepl stands for those builds and skip with the reason elsewhere.
"""
from __future__ import annotations

import hashlib

import numpy as np
import pytest

import gradrepl.torch as torch
from gradrepl.torch import _capability


def _md5(t):
    return hashlib.md5(np.ascontiguousarray(t.detach().numpy()).tobytes()).hexdigest()


def _fused_build():
    if _capability.capability() not in ("AVX2", "AVX512"):
        pytest.skip("recorded against torch's x86-64 AVX2/AVX512 kernels (fused multiply-add); "
                    f"the {_capability.capability()} build here computes a * b + c otherwise "
                    "(x86-64's rounds it twice; aarch64's fuses, but its add(alpha) and lerp "
                    "kernels gave other bits: real torch 2.9.1 there, under qemu-user)")


# ------------------------------------------------------------ add/sub with alpha (char-RNN SGD)
def test_add_alpha_is_one_fused_multiply_add(monkeypatch):
    # NLP From Scratch's loop: ``p.data.add_(p.grad.data, alpha=-learning_rate)``; the engine
    # rounded alpha * grad before the add, and the run's losses drifted from step 11 on
    _fused_build()
    monkeypatch.setenv("GRADREPL_TORCH_THREADS", "2")
    torch.manual_seed(0)
    a = torch.randn(1000)
    b = torch.randn(1000)
    r = a.clone()
    r.add_(b, alpha=-0.005)
    assert _md5(r) == "3a21d136c1599f895034529f3c57cc0e"                       # recorded
    assert _md5(a.sub(b, alpha=0.37)) == "3919c7aa6247b050ba1625d994d32c87"    # recorded
    assert _md5(a.double().add(b.double(), alpha=0.37)) == "3f246a36923778e49f252cac25421e74"
    assert _md5(torch.randn(5, 7).add(torch.randn(7), alpha=0.3)) == \
        "7d9708b020a6fe92e9c55b28a0cd273b"                                      # recorded
    # a scalar operand: the vector loop fuses, the scalar tail adds the product computed once
    assert _md5(a.add(0.3, alpha=0.7)) == "6c4b1522c6917784d57713153b8e8ecc"   # recorded
    assert _md5(a.sub(0.1, alpha=3.3)) == "117ebc06a190e9cfbfe9c4e8ef3c17d8"   # recorded
    assert _md5(torch.add(a, torch.tensor(0.3), alpha=0.7)) == \
        "6c4b1522c6917784d57713153b8e8ecc"                                      # recorded
    assert _md5(torch.add(a, a[:1], alpha=1.7)) == "eebcd7a80d1619568c6d25d975802449"
    big = torch.randn(70000)   # two threads' ranges, each with its own tail
    assert _md5(big.add(0.3, alpha=0.7)) == "c4153701a5185f2573a8d205fb354ba9"  # recorded
    # issue 28's RMSprop value, through add(alpha=): recorded 4773.42578125
    assert torch.tensor([4777.458984375]).add(torch.tensor([-403.3435363769531]),
                                              alpha=0.01).item() == 4773.42578125


def test_add_alpha_half_vector_and_scalar_loops(monkeypatch):
    # float16: the vector loop (32 halves) fuses in float with alpha rounded to half, the scalar
    # tail is c10::Half arithmetic; rows of a broadcast each have their own tail
    _fused_build()
    monkeypatch.setenv("GRADREPL_TORCH_THREADS", "2")
    torch.manual_seed(0)
    a = torch.randn(300).half()
    b = torch.randn(300).half()
    assert _md5(a.add(b, alpha=0.37)) == "ca844bd95c50a06b8d77fe62c75fe5d6"   # recorded
    assert _md5(a.sub(b, alpha=1.3)) == "998085716a8387ebdd1bf77e2e27fae0"    # recorded
    x = torch.randn(5, 70).half()
    y = torch.randn(70).half()
    assert _md5(x.add(y, alpha=0.3)) == "51b20754df71544f3d592396717f1a61"    # recorded
    # the scalar loop, by hand: half(1/3) * y rounded to half, then the sum rounded to half
    xs = np.array([1.0, 2.0, 3.0], np.float16)
    ys = np.array([0.1, 0.2, 0.3], np.float16)
    h = np.float32(np.float16(1 / 3))
    by_hand = (xs.astype(np.float32) + (h * ys.astype(np.float32)).astype(np.float16)
               .astype(np.float32)).astype(np.float16)
    got = torch.tensor(xs).add(torch.tensor(ys), alpha=1 / 3).numpy()
    assert got.tolist() == by_hand.tolist() == [1.033203125, 2.06640625, 3.099609375]


def test_add_alpha_fused_against_an_exact_sum():
    # independent: a float32 fma is the exact x + a*y (a*y exact in double) rounded once;
    # values chosen so that the double sum is not a float32 tie
    _fused_build()
    x = np.array([1.0, 2.0, 3.0, 4777.458984375], np.float32)
    y = np.array([0.1, 0.2, 0.3, -403.3435363769531], np.float32)
    a = np.float32(1 / 3)
    exact = (x.astype(np.float64) + np.float64(a) * y.astype(np.float64)).astype(np.float32)
    got = torch.tensor(x).add(torch.tensor(y), alpha=1 / 3).numpy()
    assert got.tolist() == exact.tolist()
    assert got[:3].tolist() == [1.0333333015441895, 2.066666603088379, 3.0999999046325684]


def test_add_alpha_graph_and_gradients_unchanged():
    x = torch.randn(4, 3, requires_grad=True)
    y = torch.randn(3, requires_grad=True)
    z = torch.add(x, y, alpha=0.3)
    z.sum().backward()
    assert type(z.grad_fn).__name__ == "AddBackward0"
    np.testing.assert_array_equal(x.grad.numpy(), np.ones((4, 3), np.float32))
    np.testing.assert_array_equal(y.grad.numpy(), np.full(3, np.float32(4) * np.float32(0.3)))
    w = torch.randn(3, requires_grad=True)
    s = w.sub(2.0, alpha=3)
    assert type(s.grad_fn).__name__ == "SubBackward0"
    assert s.grad_fn.next_functions[1] == (None, 0)   # the number: no edge, as torch
    i = torch.arange(6)
    assert i.add(i, alpha=3).tolist() == [0, 4, 8, 12, 16, 20]
    assert i.sub(2, alpha=2).tolist() == [-4, -3, -2, -1, 0, 1]


# ------------------------------------------------------------ scatter_ with a 0-d index
def test_scatter_with_zero_dim_index_is_one_hot():
    # Learn the Basics, Transforms: Lambda(lambda y: torch.zeros(10, dtype=torch.float)
    #     .scatter_(0, torch.tensor(y), value=1)) raised IndexError
    oh = torch.zeros(10, dtype=torch.float).scatter_(0, torch.tensor(3), value=1)
    assert oh.tolist() == [0, 0, 0, 1, 0, 0, 0, 0, 0, 0]
    assert torch.zeros(5).scatter_(0, torch.tensor(3), 2.0).tolist() == [0, 0, 0, 2, 0]
    assert torch.zeros(5).scatter_(0, torch.tensor(2), torch.tensor([5.0, 6.0])).tolist() == \
        [0, 0, 5, 0, 0]
    assert torch.zeros(3).scatter_add_(0, torch.tensor(1), torch.tensor([4.0])).tolist() == \
        [0, 4, 0]
    g = torch.tensor([1., 2., 3.]).gather(0, torch.tensor(2))
    assert g.shape == () and g.item() == 3.0
    x = torch.zeros(4, requires_grad=True)
    y = x.scatter(0, torch.tensor(1), value=2.0)
    assert type(y.grad_fn).__name__ == "ScatterBackward1" and y.tolist() == [0, 2, 0, 0]
    # recorded: the message of ATen's scatter shape check
    with pytest.raises(RuntimeError, match="^Index tensor must have the same number of "
                       "dimensions as self tensor$"):
        torch.zeros(2, 3).scatter_(0, torch.tensor(1), value=2.0)


# ------------------------------------------------------------ nn.LSTM's oneDNN node names
def _names(cls, x, **kw):
    torch.manual_seed(0)
    out, h = cls(3, 4, **kw)(x)
    hn = h[0] if isinstance(h, tuple) else h
    return type(out.grad_fn).__name__, type(hn.grad_fn).__name__


def test_lstm_output_is_the_onednn_layer_node():
    # DL for NLP, Sequence models: ``print(out)`` of an nn.LSTM shows
    # grad_fn=<MkldnnRnnLayerBackward0> in torch 2.13's CPU wheel (recorded for every case below)
    x = torch.randn(5, 2, 3)
    nn = torch.nn
    assert _names(nn.LSTM, x) == ("MkldnnRnnLayerBackward0", "StackBackward0")
    assert _names(nn.LSTM, x, num_layers=2) == ("MkldnnRnnLayerBackward0", "StackBackward0")
    assert _names(nn.LSTM, x, batch_first=True) == ("TransposeBackward0", "StackBackward0")
    assert _names(nn.LSTM, x, bidirectional=True) == ("CatBackward0", "StackBackward0")
    assert _names(nn.LSTM, x, proj_size=2) == ("StackBackward0", "StackBackward0")
    assert _names(nn.LSTM, x.double(), dtype=torch.float64) == ("StackBackward0",
                                                                "StackBackward0")
    assert _names(nn.GRU, x) == ("StackBackward0", "StackBackward0")
    assert _names(nn.GRU, x, batch_first=True) == ("TransposeBackward1", "StackBackward0")
    assert _names(nn.RNN, x) == ("StackBackward0", "StackBackward0")
    torch.manual_seed(0)
    out, _ = nn.LSTM(3, 4)(x[:, 0])          # unbatched: squeezed afterwards
    assert type(out.grad_fn).__name__ == "SqueezeBackward1"
    packed = nn.utils.rnn.pack_padded_sequence(x, [5, 3])
    out, _ = nn.LSTM(3, 4)(packed)
    assert type(out.data.grad_fn).__name__ == "CatBackward0"
    # the values and gradients are still the engine's (oneDNN's kernels are not replayed)
    torch.manual_seed(0)
    m = nn.LSTM(3, 4)
    out, (h, c) = m(x)
    np.testing.assert_array_equal(out[-1].detach().numpy(), h[0].detach().numpy())
    out.sum().backward()
    assert m.weight_ih_l0.grad.shape == (16, 3)


# ------------------------------------------------------------ torch.nn.parallel (DCGAN)
def test_nn_parallel_on_a_cpu_torch():
    import gradrepl.torch.nn.parallel as parallel

    nn = torch.nn
    m = nn.Linear(3, 2)
    dp = nn.DataParallel(m, list(range(0)))
    assert parallel.DataParallel is nn.DataParallel
    assert repr(dp) == ("DataParallel(\n  (module): Linear(in_features=3, out_features=2, "
                        "bias=True)\n)")                                         # recorded
    assert dp.module is m and dp.device_ids == []
    x = torch.randn(4, 3)
    assert torch.equal(dp(x), m(x))
    assert [n for n, _ in dp.named_parameters()] == ["module.weight", "module.bias"]
    with pytest.raises(RuntimeError, match="^device type could not be determined$"):
        parallel.data_parallel(m, x)
    with pytest.raises(ValueError, match="^Default process group has not been initialized"):
        parallel.DistributedDataParallel(m)


# ------------------------------------------------------------ add_(Number alpha, Tensor other)
def test_deprecated_number_first_add_overload(monkeypatch):
    # older NLP From Scratch: ``p.data.add_(-learning_rate, p.grad.data)``: TypeError before
    from gradrepl.torch import _deprecated_overloads as dep

    monkeypatch.setattr(dep, "_WARNED", [])
    p = torch.ones(3)
    g = torch.tensor([0.1, 0.2, 0.3])
    with pytest.warns(UserWarning, match=r"^This overload of add_ is deprecated:\n\tadd_\(Number "
                      r"alpha, Tensor other\)\nConsider using one of the following signatures "
                      r"instead:\n\tadd_\(Tensor other, \*, Number alpha = 1\) \(Triggered"):
        p.add_(-0.5, g)
    # recorded: tensor([0.9500, 0.9000, 0.8500]); torch warns once a process, whichever overload
    assert p.tolist() == torch.ones(3).add(g, alpha=-0.5).tolist()
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        q = p.sub(2, g)
    assert q.tolist() == p.sub(g, alpha=2).tolist()


# ------------------------------------------------------------ factories with out=
def test_factories_write_into_out_in_its_dtype():
    # Introduction to PyTorch Tensors: ``torch.rand(2, 2, out=c)`` then ``print(c)``: c stayed
    # zeros (the factories took out= and dropped it). Values recorded from real torch 2.13
    torch.manual_seed(0)
    c = torch.zeros(2, 2)
    r = torch.rand(2, 2, out=c)
    assert r is c
    assert c.tolist() == torch.tensor([[0.49625658988952637, 0.7682217955589294],
                                       [0.08847743272781372, 0.13203048706054688]]).tolist()
    torch.manual_seed(0)
    e = torch.empty(2, dtype=torch.float64)
    torch.rand(2, out=e)             # doubles drawn as doubles, not floats cast
    torch.manual_seed(0)
    assert e.tolist() == torch.rand(2, dtype=torch.float64).tolist()
    g = torch.empty(3)
    torch.ones(3, out=g)
    assert g.tolist() == [1, 1, 1]
    k = torch.empty(5)
    torch.arange(5, out=k)
    assert k.dtype == torch.float32 and k.tolist() == [0, 1, 2, 3, 4]
    torch.linspace(0, 1, 5, out=k)
    assert k.tolist() == [0, 0.25, 0.5, 0.75, 1]
    p = torch.empty(3, dtype=torch.int64)
    torch.manual_seed(0)
    torch.randperm(3, out=p)
    assert sorted(p.tolist()) == [0, 1, 2]
    m = torch.empty(0)
    torch.full((2, 3), 3.5, out=m)   # zero elements: resized without a warning
    assert m.shape == (2, 3) and m.tolist() == [[3.5] * 3] * 2


# ------------------------------------------------------------ warnings under a default device
def test_copy_construct_warning_from_the_device_mode():
    # Neural Transfer: after torch.set_default_device(device), torch.tensor(a_tensor) warns from
    # torch/utils/_device.py:122 (the mode's ``return func(*args, **kwargs)``), recorded
    import warnings

    t = torch.tensor([0.485, 0.456, 0.406])
    torch.set_default_device("cpu")
    try:
        with warnings.catch_warnings(record=True) as got:
            warnings.simplefilter("always")
            torch.tensor(t)
    finally:
        torch.set_default_device(None)
    assert len(got) == 1
    w = got[0]
    assert w.filename.replace("\\", "/").endswith("torch/utils/_device.py") and w.lineno == 122
    assert str(w.message).startswith("To copy construct from a tensor")
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        torch.tensor(t)
    assert got[0].filename == __file__          # no default device: the user's line


# ------------------------------------------------------------ Spatial Transformer Networks
def _mkl_recording_cpu():
    from gradrepl.engine import cpu, mkl

    if cpu.detected() != "amd" or not mkl.load():
        pytest.skip("recorded with MKL's batched gemm on AMD EPYC Zen 4 (torch's bmm); its "
                    "kernels follow the CPU, bytes not compared here")


def test_grid_sample_gives_the_grid_its_gradient():
    # the STN tutorial trains its localization net through grid_sample's grid: gradrepl gave
    # the grid no gradient unless the input required one (and the loss diverged at step 2)
    F = torch.nn.functional
    torch.manual_seed(0)
    x = torch.rand(2, 1, 6, 7)
    theta = torch.tensor([[[0.8, -0.2, 0.1], [0.3, 0.9, -0.1]],
                          [[1.1, 0.1, -0.2], [-0.1, 0.7, 0.3]]], requires_grad=True)
    y = F.grid_sample(x, F.affine_grid(theta, x.size(), align_corners=False),
                      align_corners=False)
    assert type(y.grad_fn).__name__ == "GridSampler2DBackward0"
    y.sum().backward()
    # recorded from real torch 2.13 (4 digits printed)
    np.testing.assert_allclose(theta.grad.numpy(), [[[-4.2388, -0.5654, -9.6514],
                                                     [-1.0259, -1.6696, 7.0847]],
                                                    [[-8.9123, -0.2939, 6.9429],
                                                     [1.4221, -5.3117, -11.8231]]], atol=1e-4)


def test_grid_sample_nearest_rounds_half_to_even():
    # torch's nearest: nearbyint (2.5 -> 2); the engine's C round() picked 3 (Paddle's)
    F = torch.nn.functional
    x = torch.arange(42.).view(1, 1, 6, 7)
    g = torch.tensor([[[[-1.0, -1.0], [-0.5, 0.25], [0.0, 0.0], [1 / 7, 1 / 6]]]])
    got = F.grid_sample(x, g, mode="nearest", align_corners=False)
    assert got.flatten().tolist() == [0, 22, 17, 25]          # recorded


def test_grid_sample_and_affine_grid_warn_without_align_corners():
    import warnings

    F = torch.nn.functional
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        grid = F.affine_grid(torch.eye(2, 3).unsqueeze(0), (1, 1, 3, 3))
        F.grid_sample(torch.ones(1, 1, 3, 3), grid)
    assert [str(w.message)[:40] for w in got] == ["Default grid_sample and affine_grid beha"] * 2
    assert all(w.filename == __file__ for w in got)


def test_affine_grid_as_atens_generator(monkeypatch):
    _mkl_recording_cpu()
    monkeypatch.setenv("GRADREPL_CPU_CLASS", "amd")
    F = torch.nn.functional
    theta = torch.tensor([[[1., 0., 0.], [0., 1., 0.]]]).repeat(2, 1, 1)
    assert _md5(F.affine_grid(theta, (2, 1, 28, 28), align_corners=False)) == \
        "d07f501f409dc6fd84353fa0ab1555ff"                                     # recorded
    torch.manual_seed(0)
    th = torch.randn(3, 2, 3, requires_grad=True)
    g = F.affine_grid(th, (3, 1, 5, 7), align_corners=True)
    assert type(g.grad_fn).__name__ == "AffineGridGeneratorBackward0"
    assert _md5(g) == "bdcb70a79abb6dd3416c974b3d70ae17"                        # recorded
    g.backward(torch.randn(g.shape))
    assert _md5(th.grad) == "9ae37bd09405e4595e5cc5e6245ef557"                  # recorded


# ------------------------------------------------------------ torch.nn.utils.prune
def test_pruning_tutorial_reparametrizes_with_a_mask():
    import gradrepl.torch.nn.utils.prune as prune

    nn = torch.nn
    torch.manual_seed(0)
    conv = nn.Conv2d(1, 6, 3)
    w0 = conv.weight.detach().clone()
    prune.random_unstructured(conv, name="weight", amount=0.3)
    assert [n for n, _ in conv.named_parameters()] == ["bias", "weight_orig"]
    assert [n for n, _ in conv.named_buffers()] == ["weight_mask"]
    mask = conv.weight_mask.numpy()
    assert mask.sum() == 54 - round(0.3 * 54)
    np.testing.assert_array_equal(conv.weight.detach().numpy(), w0.numpy() * mask)
    hooks = conv._forward_pre_hooks
    assert type(hooks[next(iter(hooks))]).__module__ == "torch.nn.utils.prune"
    # L1 on the bias: the 3 smallest magnitudes go (independent: numpy's argsort)
    b0 = conv.bias.detach().numpy().copy()
    prune.l1_unstructured(conv, name="bias", amount=3)
    keep = np.ones(6)
    keep[np.argsort(np.abs(b0))[:3]] = 0
    np.testing.assert_array_equal(conv.bias_mask.numpy(), keep)
    # Ln structured on top: a container; half of the 6 filters (the smallest L2 norms) go
    prune.ln_structured(conv, name="weight", amount=0.5, n=2, dim=0)
    hook = [h for h in conv._forward_pre_hooks.values() if h._tensor_name == "weight"][0]
    assert [type(m).__name__ for m in hook] == ["RandomUnstructured", "LnStructured"]
    wm = conv.weight_mask.numpy()
    norms = np.sqrt(((w0.numpy() * mask) ** 2).reshape(6, -1).sum(1))
    dropped = np.argsort(-norms)[3:]
    assert (wm[dropped] == 0).all()
    prune.remove(conv, "weight")
    assert [n for n, _ in conv.named_parameters()] == ["bias_orig", "weight"]
    assert [n for n, _ in conv.named_buffers()] == ["bias_mask"]
    np.testing.assert_array_equal(conv.weight.detach().numpy(), w0.numpy() * wm)
    assert prune.is_pruned(conv)


def test_global_unstructured_ranks_all_tensors_together():
    import gradrepl.torch.nn.utils.prune as prune

    nn = torch.nn
    torch.manual_seed(0)
    a, b = nn.Linear(4, 5), nn.Linear(5, 3)
    allw = np.concatenate([a.weight.detach().numpy().ravel(), b.weight.detach().numpy().ravel()])
    prune.global_unstructured(((a, "weight"), (b, "weight")),
                              pruning_method=prune.L1Unstructured, amount=0.2)
    zeros = np.concatenate([a.weight_mask.numpy().ravel(), b.weight_mask.numpy().ravel()]) == 0
    assert zeros.sum() == round(0.2 * 35)
    assert np.abs(allw[zeros]).max() <= np.abs(allw[~zeros]).min()


def test_hook_handles_count_from_zero_across_modules_and_tensors():
    # torch.utils.hooks.RemovableHandle.next_id: one counter (the Pruning tutorial prints
    # module._forward_pre_hooks: OrderedDict([(0, <...RandomUnstructured object ...>)]) in a
    # fresh process); ids increase by one whichever kind of hook takes one
    from gradrepl.torch.autograd._engine import RemovableHandle

    m = torch.nn.Linear(2, 2)
    h1 = m.register_forward_pre_hook(lambda mod, inp: None)
    t = torch.ones(2, requires_grad=True)
    h2 = t.register_hook(lambda g: g)
    h3 = m.register_forward_hook(lambda mod, inp, out: None)
    assert (h2.id, h3.id) == (h1.id + 1, h1.id + 2)
    assert RemovableHandle._next_id == h3.id + 1
    assert list(m._forward_pre_hooks) == [h1.id]


def test_transformer_encoder_nested_tensor_warnings_are_torchs_texts():
    # recorded from torch 2.13 (transformer.py): note "was not True(use" without a space
    import warnings

    nn = torch.nn
    cases = [
        (lambda: nn.TransformerEncoderLayer(8, 2), "encoder_layer.self_attn.batch_first was "
         "not True(use batch_first for better inference performance)"),
        (lambda: nn.TransformerEncoderLayer(8, 2, batch_first=True, norm_first=True),
         "encoder_layer.norm_first was True"),
        (lambda: nn.TransformerEncoderLayer(8, 1, batch_first=True),
         "encoder_layer.self_attn.num_heads is odd"),
        (lambda: nn.TransformerEncoderLayer(8, 2, batch_first=True, bias=False),
         "encoder_layer.self_attn was passed bias=False"),
    ]
    for make, why in cases:
        with warnings.catch_warnings(record=True) as got:
            warnings.simplefilter("always")
            nn.TransformerEncoder(make(), 1)
        assert [str(w.message) for w in got] == [
            "enable_nested_tensor is True, but self.use_nested_tensor is False because " + why]


def test_numpy_of_a_grad_tensor_allowed_without_grad_mode():
    # torch checks requires_grad() && GradMode::is_enabled(): the torch.func tutorial's
    # NumpySort calls x.cpu().numpy() in an autograd.Function's forward (grad mode off there)
    x = torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="^Can't call numpy\\(\\) on Tensor that requires "
                       "grad. Use tensor.detach\\(\\).numpy\\(\\) instead.$"):
        x.numpy()
    with torch.no_grad():
        assert x.numpy().tolist() == [1.0, 1.0]

    class Twice(torch.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            return torch.tensor(t.numpy() * 2)

        @staticmethod
        def backward(ctx, g):
            return g * 2

    y = Twice.apply(x)
    assert y.tolist() == [2.0, 2.0] and type(y.grad_fn).__name__ == "TwiceBackward"
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_lstm_with_projections_warns_once_from_rnn_py(monkeypatch):
    # recorded (torch 2.13): a float32, unpacked LSTM(proj_size=...) warns once a process, at
    # torch/nn/modules/rnn.py:1164 (``result = _VF.lstm(``); packed input and float64 do not
    import warnings

    from gradrepl.torch.nn import _recurrent

    monkeypatch.setattr(_recurrent, "_PROJ_WARNED", [])
    nn = torch.nn
    m = nn.LSTM(3, 4, proj_size=2)
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        m(nn.utils.rnn.pack_padded_sequence(torch.randn(5, 2, 3), [5, 3]))
        nn.LSTM(3, 4, proj_size=2, dtype=torch.float64)(torch.randn(5, 2, 3).double())
        assert got == []
        m(torch.randn(5, 2, 3))
        m(torch.randn(5, 2, 3))
    assert len(got) == 1
    assert got[0].filename.replace("\\", "/").endswith("torch/nn/modules/rnn.py")
    assert got[0].lineno == 1164
    assert str(got[0].message).startswith("LSTM with projections is not supported with oneDNN.")


# ------------------------------------------------------------ saved tensors hooks
def test_saved_tensor_hooks_order_values_and_raw_saved():
    # the "Hooks for autograd saved tensors" tutorial; orders and values recorded from torch 2.13
    log = []
    a = torch.tensor([1., 2.], requires_grad=True)
    b = torch.tensor([3., 4.], requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(lambda t: log.append(("p", t.tolist())) or t,
                                                  lambda t: log.append(("u", t.tolist())) or t):
        y = a * b          # MulBackward0 saves other, then self
        v = a.pow(b)       # PowBackward1: exponent, self, then the result
    (y.sum() + v.sum()).backward()
    assert log[:5] == [("p", [3.0, 4.0]), ("p", [1.0, 2.0]), ("p", [3.0, 4.0]),
                       ("p", [1.0, 2.0]), ("p", [1.0, 16.0])]
    # an unpack hook's value is what the backward uses (torch.zeros(n): the gradient is 0)
    x = torch.ones(5, requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t.numel(), lambda n: torch.zeros(n)):
        z = x * x
    z.sum().backward()
    assert x.grad.tolist() == [0.0] * 5
    # _raw_saved_self: a SavedTensor; register_hooks packs now and unpacks in the backward
    x = torch.randn(5, requires_grad=True)
    y = x.pow(2)
    raw_saved = y.grad_fn._raw_saved_self
    assert type(raw_saved).__module__ == "torch._C._autograd"
    assert type(raw_saved).__name__ == "SavedTensor"
    seen = []
    raw_saved.register_hooks(lambda t: seen.append("pack") or t,
                             lambda t: seen.append("unpack") or t * 0)
    y.sum().backward()
    assert seen == ["pack", "unpack"] and x.grad.tolist() == [0.0] * 5
