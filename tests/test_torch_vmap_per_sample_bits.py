"""Per-sample gradients with ``vmap(grad(loss))`` (benchmarks/lecture_loops.py's vmap_grads loop,
PyTorch's per-sample-gradients tutorial): torch's bits and one batched program.

Real torch 2.13 runs ``f`` once on batched tensors: Linear's products are one addmm over the
batch, ``log_softmax``'s backward its kernel (``_log_softmax_backward_data``) on the batch,
nll_loss's gradient a one-hot of each sample's target. gradrepl printed other last bits (the
samples' programs differed in nll_loss's target, so every sample ran alone: 1-row products;
and the traced log_softmax backward kept the engine formula's values, not the kernel's). The
records below are real torch 2.13's (/work/vtorch on the Intel Sapphire Rapids Xeon, MKL's
AVX512_E1 path): sha256 prefixes of each step's per-sample gradients, the loss after 3 steps."""
from __future__ import annotations

import hashlib

import gradrepl.torch as torch
import gradrepl.torch.nn as nn
import gradrepl.torch.nn.functional as F
from gradrepl.torch import _vmap
from gradrepl.torch.func import functional_call, grad, vmap

# real torch 2.13 here: step -> {name: sha256(grads[name].numpy().tobytes())[:12]}
TORCH = {
    0: {"0.weight": "4cf6e2b45092", "0.bias": "f7a946aa240a", "2.weight": "c5439632bcf8",
        "2.bias": "b740023580e1"},
    1: {"0.weight": "dedf33d044f1", "0.bias": "8f001b5f9dc1", "2.weight": "f81492efb91f",
        "2.bias": "8948bad21849"},
    2: {"0.weight": "526834dd7c8d", "0.bias": "3c9af2ed7c24", "2.weight": "eb47468841fd",
        "2.bias": "c73b42d0aa73"},
}
TORCH_LOSS = "0x1.e7674e0000000p+0"


def _setup():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(20, 64), nn.Tanh(), nn.Linear(64, 5))
    params = {k: v.detach() for k, v in model.named_parameters()}
    x = torch.randn(32, 20)
    y = torch.randint(0, 5, (32,))

    def loss_fn(p, xi, yi):
        out = functional_call(model, p, (xi.unsqueeze(0),))
        return F.cross_entropy(out, yi.unsqueeze(0))
    return params, x, y, loss_fn


def test_per_sample_gradients_are_torchs_bits():
    from conftest import skip_unless_mkl_path

    skip_unless_mkl_path("vmap(grad) of an MLP (MKL sgemm products, torch's log_softmax kernels)")
    params, x, y, loss_fn = _setup()
    per_sample = vmap(grad(loss_fn), in_dims=(None, 0, 0))
    for step in range(3):
        grads = per_sample(params, x, y)
        got = {k: hashlib.sha256(g.numpy().tobytes()).hexdigest()[:12] for k, g in grads.items()}
        assert got == TORCH[step], step
        with torch.no_grad():
            for k in params:
                params[k] = params[k] - 0.1 * grads[k].mean(0)
    assert loss_fn(params, x[0], y[0]).item().hex() == TORCH_LOSS


def test_per_sample_gradients_trace_one_sample(monkeypatch):
    """The function is traced on two samples the first time (the same program: checked), then
    on one; its ops run once on the batch (torch's vmap runs f once)."""
    from gradrepl.torch import func as func_mod

    monkeypatch.setattr(func_mod, "_CHECKED", set())
    params, x, y, loss_fn = _setup()
    per_sample = vmap(grad(loss_fn), in_dims=(None, 0, 0))
    calls = []
    real = _vmap.trace
    monkeypatch.setattr(_vmap, "trace", lambda *a: calls.append(1) or real(*a))
    first = per_sample(params, x, y)
    assert len(calls) == 2
    again = per_sample(params, x, y)
    assert len(calls) == 3
    for k in first:
        assert torch.equal(first[k], again[k])
        ref = torch.stack([grad(loss_fn)(params, x[i], y[i])[k] for i in range(32)])
        assert torch.allclose(first[k], ref, rtol=1e-5, atol=1e-6)


def test_targets_change_between_calls():
    """nll_loss's targets are followed through the trace: other targets, other gradients."""
    params, x, y, loss_fn = _setup()
    per_sample = vmap(grad(loss_fn), in_dims=(None, 0, 0))
    per_sample(params, x, y)
    y2 = (y + 1) % 5
    got = per_sample(params, x, y2)["2.bias"]
    ref = torch.stack([grad(loss_fn)(params, x[i], y2[i])["2.bias"] for i in range(32)])
    assert torch.allclose(got, ref, rtol=1e-5, atol=1e-6)


# real torch 2.13 here (/tmp script: a 12-16-7 MLP, seed 1, 10 samples of 3 rows, two targets
# ignored (-100), class weights rand(7) + 0.5): sha256[:10] of the per-sample gradients and of
# grad_and_value's values
SWEEP = {
    "ce_mean_N3": ("358af5883d b15d75f66c efa8fd694e 42ac0360fb", "c62d60a71a"),
    "ce_sum_N3": ("93dda3fbba a67d37630b 8038c5f5ac 7578d5b7ac", "3853196bca"),
    "ce_weighted": ("cff7cbfd7d 8370ae0b5a 99e80462ae 7845a46333", "d43415f13a"),
    "softmax_mse": ("62353a05ae 760d0c723d 480f1e51b3 84005386d8", "d832923b5e"),
    "logsm_dim0": ("3a5b549db7 474e6d6d8b 66bdfb4199 a04460b4c2", "463ee40ae9"),
    "nll_logsm": ("a7c5cc73dc f46b38597d dff95abf7f aa5a45aefb", "6d946e92b4"),
}


def _sweep_case(name):
    from gradrepl.torch.func import grad_and_value

    torch.manual_seed(1)
    model = nn.Sequential(nn.Linear(12, 16), nn.Tanh(), nn.Linear(16, 7))
    params = {k: v.detach() for k, v in model.named_parameters()}
    x = torch.randn(10, 3, 12)
    y = torch.randint(0, 7, (10, 3))
    y[2, 1] = -100
    y[5, 0] = -100
    w = torch.rand(7) + 0.5
    out = lambda p, xi: functional_call(model, p, (xi,))  # noqa: E731
    fs = {
        "ce_mean_N3": lambda p, xi, yi: F.cross_entropy(out(p, xi), yi),
        "ce_sum_N3": lambda p, xi, yi: F.cross_entropy(out(p, xi), yi, reduction="sum"),
        "ce_weighted": lambda p, xi, yi: F.cross_entropy(out(p, xi), yi, weight=w),
        "softmax_mse": lambda p, xi, yi: (out(p, xi).softmax(-1) ** 2).mean(),
        "logsm_dim0": lambda p, xi, yi: F.log_softmax(out(p, xi), dim=0).sum(),
        "nll_logsm": lambda p, xi, yi: F.nll_loss(F.log_softmax(out(p, xi), 1),
                                                  yi.clamp(min=0)),
    }
    f = fs[name]
    g = vmap(grad(f), in_dims=(None, 0, 0))(params, x, y)
    _, v = vmap(grad_and_value(f), in_dims=(None, 0, 0))(params, x, y)
    digest = lambda t: hashlib.sha256(t.numpy().tobytes()).hexdigest()[:10]  # noqa: E731
    return " ".join(digest(g[k]) for k in g), digest(v)


def test_batched_losses_are_torchs_bits():
    """nll_loss under vmap as torch's batch rule computes it (the batch flattened into rows,
    each sample's torch sum, divided by its count or torch's sum of its weights; the gradient
    weight * -(1 / total)); softmax and log_softmax along either dim, their backward kernels.
    Before: 5 of these 6 differed (the loss values or the weight gradients)."""
    from conftest import skip_unless_mkl_path

    skip_unless_mkl_path("vmap of MLP losses (MKL sgemm products, torch's softmax kernels)")
    for name, expected in SWEEP.items():
        assert _sweep_case(name) == expected, name


_W = torch.randn(5, 4, generator=torch.Generator().manual_seed(3))
_TABLE = torch.randn(10, 4, generator=torch.Generator().manual_seed(4))
SAMPLE_READERS = {   # functions whose values depend on the sample outside plain arithmetic
    "cmp_float": lambda v: v * (1 + (v.sum() > 0).float()),
    "where": lambda v: torch.where(v > 0, v, v * 0.1),
    "masked_fill": lambda v: v.masked_fill(v < 0, 0.0).sum(),
    "argmax_take": lambda v: v[v.argmax()],
    "index_by_int": lambda v: _TABLE[(v.abs().sum() * 3).long() % 10],
    "topk": lambda v: v.topk(2).values.sum(),
    "grad_max": grad(lambda v: v.max()),
    "grad_relu": grad(lambda v: F.relu(_W @ v).sum()),
    "grad_where": grad(lambda v: torch.where(v > 0, v * v, -v).sum()),
    "grad_sort": grad(lambda v: (v.sort().values * torch.arange(4.)).sum()),
    "nanmedian": lambda v: v.nanmedian(),                  # (an index attribute from values)
    "grad_median": grad(lambda v: v.median()),
    "kthvalue": lambda v: v.kthvalue(2).values,
    # (a value read with .item(), ``v ** round(v[0].item())``, is refused as real torch refuses
    # it: tests/test_torch_vmap_refusals.py)
}


def test_one_trace_never_answers_for_other_samples():
    """vmap(f)(X) is the stack of f(X[i]) (torch's contract, to rounding) over several calls
    with new data, where f's constants come from the sample (comparisons, indices, sorting):
    one traced sample must not stand for the others."""
    gen = torch.Generator().manual_seed(5)
    for name, f in SAMPLE_READERS.items():
        for _ in range(4):
            X = torch.randn(9, 4, generator=gen)
            ref = torch.stack([f(X[i]) for i in range(9)])
            assert torch.allclose(vmap(f)(X), ref, rtol=1e-5, atol=1e-6), name


# real torch 2.13 here: a 8-32-1 ReLU MLP, seed 2, 64 samples; 3 steps (lr 0.05 on the mean
# per-sample gradient) with ((out - y) ** 2).mean(), then 3 more with F.mse_loss on the rows
# unsqueezed; sha256[:10] of each step's per-sample gradients
MSE = ["48731dd094 06aa0fc566 605576006f fc0834f2c6",
       "89ca9b036d 4c3f466fd5 bcb038c306 c98e98f1b4",
       "036e124727 e453cc26dc 064418ae02 3364971746",
       "08718ef916 c676c8eb14 fedaa2082d c0671bb6c8",
       "1bfad481f2 82b665696e 7aaa70d597 874c97c246",
       "2cb11497af edeb8ef26f a9e6000493 5ecf427f61"]


def _mse_digests():
    torch.manual_seed(2)
    model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 1))
    params = {k: v.detach() for k, v in model.named_parameters()}
    x, y = torch.randn(64, 8), torch.randn(64, 1)

    def mse(p, xi, yi):
        return ((functional_call(model, p, (xi,)) - yi) ** 2).mean()

    def mse2(p, xi, yi):
        return F.mse_loss(functional_call(model, p, (xi.unsqueeze(0),)), yi.unsqueeze(0))
    out = []
    for f in (mse, mse2):
        for _ in range(3):
            g = vmap(grad(f), in_dims=(None, 0, 0))(params, x, y)
            out.append(" ".join(hashlib.sha256(v.numpy().tobytes()).hexdigest()[:10]
                                for v in g.values()))
            params = {k: params[k] - 0.05 * g[k].mean(0) for k in params}
    return out


def test_regression_per_sample_gradients(monkeypatch):
    """``((out - y) ** 2).mean()`` and ``F.mse_loss`` per sample: torch's bits, one trace a
    call after the first (the power's factor and the mean's count are the code's and the
    shapes' numbers, not the sample's)."""
    from conftest import skip_unless_mkl_path

    from gradrepl.torch import func as func_mod

    skip_unless_mkl_path("vmap(grad) of a ReLU MLP's squared error (MKL sgemm products)")
    monkeypatch.setattr(func_mod, "_CHECKED", set())
    calls = []
    real = _vmap.trace
    monkeypatch.setattr(_vmap, "trace", lambda *a: calls.append(1) or real(*a))
    assert _mse_digests() == MSE
    assert len(calls) == 8   # each function: 2 traces, then 1 a call


def test_model_ensembling_values_are_torchs_bits():
    """Model ensembling (stack_module_state + functional_call over a meta copy, vmap over the
    stacked parameters, which require grad): the outputs keep a graph back to the stacked
    parameters and carry the batched values torch computes (bmm of the batched weights; the
    samples' own addmm products rounded otherwise). Records: real torch 2.13 here, sha256[:10]
    of the outputs (the tree before printed fc5822361d and 90e6eecb31)."""
    import copy

    from conftest import skip_unless_mkl_path

    from gradrepl.torch.func import stack_module_state

    skip_unless_mkl_path("an ensemble of MLPs (MKL's batched products)")
    torch.manual_seed(3)
    nn.Linear(10, 16), nn.LayerNorm(16), nn.Linear(16, 3)   # (the record script's draws)
    x = torch.randn(12, 10)
    models = [nn.Sequential(nn.Linear(10, 8), nn.ReLU(), nn.Linear(8, 3)) for _ in range(4)]
    params, buffers = stack_module_state(models)
    base = copy.deepcopy(models[0]).to("meta")

    def fmodel(params, buffers, xx):
        return functional_call(base, (params, buffers), (xx,))
    digest = lambda t: hashlib.sha256(t.detach().numpy().tobytes()).hexdigest()[:10]  # noqa
    same_x = vmap(fmodel, in_dims=(0, 0, None))(params, buffers, x)
    assert same_x.requires_grad and digest(same_x) == "4e2ca72147"
    assert digest(vmap(fmodel)(params, buffers, torch.randn(4, 12, 10))) == "7f0815c252"
    same_x.sum().backward()
    assert params["0.weight"].grad is not None


def test_embedding_per_sample_gradients_are_torchs_bits():
    """Per-sample gradients through F.embedding (a repeated token in a sample): the indices are
    followed through the trace by identity, the weight's gradient replayed per sample. Real
    torch 2.13 here (sha256[:10] of the three gradients, two calls); the tree before differed
    (62d8b21d7c ... : the indices' copy was a constant, every sample ran alone)."""
    from conftest import skip_unless_mkl_path

    skip_unless_mkl_path("per-sample gradients of an embedding + Linear (MKL products)")
    torch.manual_seed(4)
    emb, lin = nn.Embedding(20, 6), nn.Linear(6, 4)
    p = {"w": emb.weight.detach(), "W": lin.weight.detach(), "b": lin.bias.detach()}
    tok = torch.randint(0, 20, (12, 5))
    tok[3, 1] = tok[3, 2]

    def f(p, t):
        return F.linear(F.embedding(t, p["w"]).mean(0), p["W"], p["b"]).pow(2).sum()
    got = []
    for _ in range(2):
        g = vmap(grad(f), in_dims=(None, 0))(p, tok)
        got.append(" ".join(hashlib.sha256(v.numpy().tobytes()).hexdigest()[:10]
                            for v in g.values()))
        tok = torch.randint(0, 20, (12, 5))
    assert got == ["22bb3a03eb 1945e95d9c bc0a518217", "08850dc47f e396821be8 7b5216e20f"]


def test_batched_jacobians_are_torchs_bits():
    """The jacobians tutorial's batch jacobian: vmap(jacrev / jacfwd(predict)) of a tanh
    layer over 64 inputs, and jacrev w.r.t. the weight. torch batches jacrev's basis too, so a
    product of a sample's value and a basis row is a bmm there (its own loop from +0: no -0.
    for the zero products; gradrepl's rows were separate products, -0.). Real torch 2.13 here:
    sha256[:10] of the jacobians, 528 zeros none negative."""
    from conftest import skip_unless_mkl_path

    from gradrepl.torch.func import jacfwd, jacrev

    skip_unless_mkl_path("batched jacobians of a tanh layer (MKL products)")
    torch.manual_seed(0)
    weight, bias, x = torch.randn(16, 16), torch.randn(16), torch.randn(64, 16)

    def predict(weight, bias, x):
        return F.linear(x, weight, bias).tanh()
    digest = lambda t: hashlib.sha256(t.numpy().tobytes()).hexdigest()[:10]  # noqa: E731
    j1 = vmap(jacrev(predict, argnums=2), in_dims=(None, None, 0))(weight, bias, x)
    j2 = vmap(jacfwd(predict, argnums=2), in_dims=(None, None, 0))(weight, bias, x)
    assert (digest(j1), digest(j2)) == ("1287e26b01", "fd1b7e55f9")
    assert int((j1 == 0).sum()) == 528 and not bool(torch.signbit(j1[j1 == 0]).any())
    jw = vmap(jacrev(predict, argnums=0), in_dims=(None, None, 0))(weight, bias, x[:4])
    assert digest(jw) == "3c711a412d"
