"""torch.func.vmap of a function that closes over tensors requiring grad (a parameter, a
module): the result keeps a graph, and backward reaches what the function closed over, as in
torch 2.13 (it printed ``element 0 of tensors does not require grad`` here: the batched run
returned results without history). Values recorded from real torch 2.13 (this file's script in
/work/vtorch). The gradients are compared to a tolerance: torch differentiates the batched ops
and reduces the batch dim with its sum (w.grad[0] 0.0809049904346466), gradrepl accumulates the
samples' gradients one by one (0.08090496063232422): a last-bit gap left open; torch's node names
(SumBackward1, AddBackward0) are the batched ops', gradrepl's StackBackward0."""
from __future__ import annotations

import numpy as np

import gradrepl.torch as torch


def test_vmap_closing_over_a_parameter_backpropagates():
    from conftest import skip_without_mkl

    skip_without_mkl("sin of a vmap's samples (MKL's vsSin)")
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 2)
    w = torch.randn(3, requires_grad=True)
    x = torch.randn(5, 3)
    out = torch.func.vmap(lambda v: (v * w).sin().sum())(x)
    assert out.requires_grad
    assert out.tolist() == [-0.10610200464725494, 0.012290924787521362, 0.11712199449539185,
                            -0.2742527723312378, 1.056923270225525]
    out.sum().backward()
    np.testing.assert_allclose(w.grad.tolist(), [0.0809049904346466, 0.3586706519126892,
                                                 -0.7040810585021973], rtol=1e-6)
    out2 = torch.func.vmap(lambda v: model(v), out_dims=1)(torch.randn(4, 3))
    assert out2.shape == (2, 4) and out2.requires_grad
    # Linear's product is MKL's sgemm, whose last bits follow MKL's code path: real torch 2.13
    # on MKL's AVX2 path (qemu-x86_64-static -cpu Haswell-v4 on the Sapphire Rapids Xeon) printed
    # the first list; elsewhere (AVX512_E1 here) the second
    from gradrepl.engine import mkl

    assert out2.tolist() == ([[0.13330793380737305, -0.04064968228340149, -0.48032212257385254,
                               -0.2042188197374344],
                              [-0.08414220809936523, 0.085269033908844, 0.7067098617553711,
                               1.056796908378601]] if mkl.branch() == "AVX2" else
                             [[0.13330791890621185, -0.04064968228340149, -0.48032212257385254,
                               -0.2042188048362732],
                              [-0.08414214849472046, 0.085269033908844, 0.7067099213600159,
                               1.056796908378601]])
    out2.pow(2).mean().backward()
    np.testing.assert_allclose(
        model.weight.grad.tolist(), [[0.08799544721841812, 0.11541052162647247,
                                      -0.07555525749921799],
                                     [-0.3432849645614624, -0.12002220004796982,
                                      0.21413098275661469]], rtol=1e-6)
    assert model.bias.grad.tolist() == [-0.14797067642211914, 0.4411584138870239]
    with torch.no_grad():
        assert not torch.func.vmap(lambda v: model(v))(torch.randn(4, 3)).requires_grad


def test_vmap_of_grad_with_detached_params_has_no_history():
    """The per-sample-gradients tutorial: params detached, grad inside vmap: no grad_fn (torch
    prints none); the transform's own leaves are not the caller's."""
    from gradrepl.torch.func import functional_call, grad, vmap

    torch.manual_seed(0)
    model = torch.nn.Linear(3, 2)
    params = {k: v.detach() for k, v in model.named_parameters()}

    def loss(p, x, y):
        out = functional_call(model, p, (x.unsqueeze(0),))
        return torch.nn.functional.mse_loss(out, y.unsqueeze(0))

    g = vmap(grad(loss), in_dims=(None, 0, 0))(params, torch.randn(4, 3), torch.randn(4, 2))
    assert g["weight"].shape == (4, 2, 3) and g["weight"].grad_fn is None
