"""Forward-mode AD of the activation family as torch 2.13 (issue 28): the tangent's value,
requires_grad and grad_fn (torch's formulas: ``elu_backward(self_t, ...)``,
``gelu_backward(self_t, self)``, ``sigmoid_backward(self_t, result)``, silu's and mish's
infinitely differentiable composites ...). Literals recorded from real torch 2.13
(/work/vtorch) in this session: x = [-1.5, -0.2, 0.3, 2.0], tangent [1, 2, 3, 4], float32."""
from __future__ import annotations

import pytest

import gradrepl.torch as torch
import gradrepl.torch.autograd.forward_ad as fwAD
import gradrepl.torch.nn.functional as F


@pytest.fixture(autouse=True)
def _avx512(monkeypatch):
    # the records' kernels (torch's AVX-512 build; an override is honoured on any CPU, the
    # kernels being emulated): on aarch64 / without AVX the last bits would be another build's
    monkeypatch.setenv("GRADREPL_TORCH_CAPABILITY", "AVX512")

# name: (function, tangent grad_fn when the tangent requires grad, tangent values)
REAL = {
    "relu": (torch.relu, "ThresholdBackwardBackward0", [0.0, 0.0, 3.0, 4.0]),
    "sigmoid": (torch.sigmoid, "SigmoidBackwardBackward0",
                [0.14914646744728088, 0.4950331747531891, 0.7333749532699585,
                 0.41997450590133667]),
    "relu6": (F.relu6, "HardtanhBackwardBackward0", [0.0, 0.0, 3.0, 4.0]),
    "elu": (F.elu, "EluBackwardBackward0", [0.22313016653060913, 1.637461543083191, 3.0, 4.0]),
    "selu": (F.selu, "EluBackwardBackward0",
             [0.39228498935699463, 2.8788199424743652, 3.1521029472351074, 4.202804088592529]),
    "celu": (F.celu, "EluBackwardBackward0", [0.22313016653060913, 1.637461543083191, 3.0, 4.0]),
    "gelu": (F.gelu, "GeluBackwardBackward0",
             [-0.12746915221214294, 0.6850634217262268, 2.1969833374023438, 4.340927600860596]),
    "gelu_tanh": (lambda x: F.gelu(x, approximate="tanh"), "GeluBackwardBackward0",
                  [-0.12771081924438477, 0.6850836277008057, 2.1968865394592285,
                   4.344397068023682]),
    "silu": (F.silu, "MulBackward0",
             [-0.0412941612303257, 0.8013253808021545, 1.9433399438858032, 4.363137245178223]),
    "mish": (F.mish, "MulBackward0",
             [-0.06409783661365509, 0.9430605173110962, 2.3484818935394287, 4.277271270751953]),
    "softplus": (F.softplus, "SoftplusBackwardBackward0",
                 [0.18242551386356354, 0.900331974029541, 1.7233277559280396,
                  3.523188352584839]),
    "logsigmoid": (F.logsigmoid, "LogSigmoidBackwardBackward0",
                   [0.8175745010375977, 1.099668025970459, 1.27667236328125,
                    0.4768116772174835]),
    "hardtanh": (F.hardtanh, "HardtanhBackwardBackward0", [0.0, 2.0, 3.0, 0.0]),
    "hardswish": (F.hardswish, "HardswishBackwardBackward0",
                  [0.0, 0.8666666746139526, 1.8000000715255737, 4.6666669845581055]),
    "softshrink": (F.softshrink, "SoftshrinkBackwardBackward0", [1.0, 0.0, 0.0, 4.0]),
    "hardshrink": (F.hardshrink, "HardshrinkBackwardBackward0", [1.0, 0.0, 0.0, 4.0]),
    "threshold": (lambda x: F.threshold(x, 0.1, 20.), "ThresholdBackwardBackward0",
                  [0.0, 0.0, 3.0, 4.0]),
    "prelu": (lambda x: F.prelu(x, torch.tensor([0.25])), None, [0.25, 0.5, 3.0, 4.0]),
}


def _tangent(f, tangent_grad, primal_grad=False):
    x = torch.tensor([-1.5, -0.2, 0.3, 2.0], requires_grad=primal_grad)
    v = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=tangent_grad)
    with fwAD.dual_level():
        return fwAD.unpack_dual(f(fwAD.make_dual(x, v))).tangent


def _same_values(name, got, want):
    """The recorded bits; mish's tanh is MKL's (vsTanh) as in torch: without MKL (the lean
    install) or off x86-64 (aarch64) its last bits differ, and the values are compared to 1e-6."""
    from gradrepl.engine import cpu
    from gradrepl.torch import _mkl

    if name == "mish" and not (cpu.x86() and _mkl.available()):
        print("mish tangent: recorded with MKL's tanh on x86-64; without it the last bits "
              "differ, values compared to 1e-6")
        assert got == pytest.approx(want, rel=1e-6)
    else:
        assert got == want


@pytest.mark.parametrize("name", sorted(REAL))
def test_tangent_values_and_plain_when_nothing_requires_grad(name):
    f, _, want = REAL[name]
    t = _tangent(f, False)
    assert t is not None, f"{name}: no tangent"
    _same_values(name, t.tolist(), want)
    assert (t.requires_grad, t.grad_fn) == (False, None)


@pytest.mark.parametrize("name", sorted(k for k, v in REAL.items() if v[1]))
@pytest.mark.parametrize("primal_grad", [False, True])
def test_tangent_recorded_with_torchs_node(name, primal_grad):
    f, node, want = REAL[name]
    t = _tangent(f, True, primal_grad)
    assert t.requires_grad and type(t.grad_fn).__name__ == node
    _same_values(name, t.tolist(), want)


@pytest.mark.parametrize("name", ["sigmoid", "elu", "gelu", "silu", "mish", "softplus",
                                  "logsigmoid", "hardtanh", "hardswish", "softshrink",
                                  "hardshrink", "threshold"])
def test_tangent_recorded_when_only_the_primal_requires_grad(name):
    """torch's formula reads the primal (or the result), so the tangent of a primal that
    requires grad requires grad too (real torch 2.13: same node names as above)."""
    f, node, want = REAL[name]
    t = _tangent(f, False, True)
    assert t.requires_grad and type(t.grad_fn).__name__ == node
    _same_values(name, t.tolist(), want)


def test_sigmoid_tangent_gradients():
    """Reverse over forward through SigmoidBackwardBackward0 (real torch 2.13)."""
    x = torch.tensor([-1.5, -0.2, 0.3, 2.0], requires_grad=True)
    v = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    with fwAD.dual_level():
        t = fwAD.unpack_dual(torch.sigmoid(fwAD.make_dual(x, v))).tangent
    gx, gv = torch.autograd.grad(t.sum(), (x, v))
    assert gx.tolist() == [0.09473021328449249, 0.04933895170688629, -0.10918853431940079,
                           -0.3198500871658325]
    assert gv.tolist() == [0.14914646744728088, 0.24751658737659454, 0.24445831775665283,
                           0.10499362647533417]


# real torch 2.13: F.x(a * 1.0, inplace=True) for a = [1, -2, 3.5, -4] (requires grad)
INPLACE = {
    "silu": ("SiluBackward0", [0.7311, -0.2384, 3.3974, -0.0719],
             [0.9277, -0.0908, 1.0703, -0.0527]),
    "mish": ("MishBackward0", [0.8651, -0.2525, 3.4940, -0.0726],
             [1.0490, -0.1084, 1.0099, -0.0538]),
    "hardswish": ("HardswishBackward0", [0.6667, -0.3333, 3.5, 0.0],
                  [0.8333, -0.1667, 1.0, 0.0]),
    "relu6": ("HardtanhBackward0", [1.0, 0.0, 3.5, 0.0], [1.0, 0.0, 1.0, 0.0]),
    "hardsigmoid": ("HardsigmoidBackward0", [0.6667, 0.1667, 1.0, 0.0],
                    [0.1667, 0.1667, 0.0, 0.0]),
}
_MODULES = {"silu": "SiLU", "mish": "Mish", "hardswish": "Hardswish", "relu6": "ReLU6",
            "hardsigmoid": "Hardsigmoid"}


@pytest.mark.parametrize("name", sorted(INPLACE))
def test_inplace_activations_write_their_input(name):
    node, want, grad = INPLACE[name]
    f = getattr(F, name)
    a = torch.tensor([1., -2., 3.5, -4.], requires_grad=True)
    c = a * 1.0
    r = f(c, inplace=True)
    assert r is c and c._version == 1 and type(c.grad_fn).__name__ == node
    assert [round(v, 4) for v in c.tolist()] == want
    c.sum().backward()
    assert [round(v, 4) for v in a.grad.tolist()] == grad
    e = torch.tensor([1., -2., 3.5, -4.])
    getattr(torch.nn, _MODULES[name])(inplace=True)(e)
    assert [round(v, 4) for v in e.tolist()] == want
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used "
                                           "in an in-place operation."):
        f(torch.tensor([1., -2.], requires_grad=True), inplace=True)


@pytest.mark.parametrize("name", ["softshrink", "hardshrink", "threshold"])
def test_create_graph_gradient_node_of_the_masked_activations(name):
    """Reverse mode: the create_graph gradient is torch's XBackwardBackward0 (was a where);
    its gradients zeros for x, the mask for v (real torch 2.13)."""
    f, node, want = REAL[name]
    x = torch.tensor([-1.5, -0.2, 0.3, 2.0], requires_grad=True)
    v = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    g, = torch.autograd.grad(f(x), x, v, create_graph=True)
    assert type(g.grad_fn).__name__ == node and g.tolist() == want
    gx, gv = torch.autograd.grad(g.sum(), (x, v))
    assert gx.tolist() == [0.0] * 4 and gv.tolist() == [1.0 if w else 0.0 for w in want]


def test_selu_second_order_keeps_the_scale():
    """Gradients of selu's create_graph gradient (EluBackwardBackward0's own VJP: elu_backward
    for grad_output, elu_double_backward for self); sha256 prefixes of real torch 2.13's."""
    import hashlib

    import numpy as np

    rng = np.random.default_rng(7)
    x = torch.tensor(rng.standard_normal(1000).astype(np.float32) * 3, requires_grad=True)
    v = torch.tensor(rng.standard_normal(1000).astype(np.float32), requires_grad=True)
    g, = torch.autograd.grad(F.selu(x), x, v, create_graph=True)
    gx, gv = torch.autograd.grad((g * g).sum(), (x, v))

    def h(t):
        return hashlib.sha256(t.detach().numpy().tobytes()).hexdigest()[:16]
    assert (h(g), h(gx), h(gv)) == ("8f2e9ec87df5afcc", "cf737d01b08b2b4c", "49543f492afa4970")
