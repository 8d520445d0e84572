"""torch's norm layers print real torch 2.13's bytes: BatchNorm1d/2d outputs, running statistics
and gradients (input, weight, bias) over training steps and eval passes, LayerNorm outputs and
gradients, bit for bit (md5 of the float32 bytes recorded from real torch by
tests/data/torch_norm/record.py, from the same cases file); group_norm and instance_norm too."""
import hashlib
import os
import sys

import numpy as np
import pytest

import gradrepl.torch as torch
from gradrepl.torch import _norm_kernels as K
from gradrepl.torch.nn import _spatial as S

DATA = os.path.join(os.path.dirname(__file__), "data", "torch_norm")
sys.path.insert(0, os.path.dirname(DATA))
import md5_table  # noqa: E402  (tests/data/md5_table.py: the recorded table)
from conftest import skip_without_avx512  # noqa: E402

CASES, EXPECTED = md5_table.load_table(DATA, "torch_norm_cases")


def _check(name, got):
    md5_table.check(EXPECTED, name, got)


def test_issue_lenet_conv_then_batchnorm(monkeypatch):
    # recorded from real torch running its AVX512 kernels: chosen on any machine (aarch64: DEFAULT);
    # the conv's sums follow numpy's OpenBLAS kernels (torch's: oneDNN's), AVX-512 ones here
    skip_without_avx512("the lenet conv + BatchNorm2d record")
    monkeypatch.setenv("GRADREPL_TORCH_CAPABILITY", "AVX512")
    _check("lenet", CASES.run_lenet(torch))


@pytest.mark.parametrize("spec", CASES.BN, ids=[s[0] for s in CASES.BN])
def test_batchnorm_bits(spec):
    _check(spec[0], CASES.run_bn(torch, *spec))


@pytest.mark.parametrize("spec", CASES.LN, ids=[s[0] for s in CASES.LN])
def test_layernorm_bits(spec):
    _check(spec[0], CASES.run_ln(torch, *spec))


@pytest.mark.parametrize("spec", CASES.GN, ids=[s[0] for s in CASES.GN])
def test_group_and_instance_norm_bits(spec):
    # the functionals live in nn/_spatial.py (torch.nn.functional does not export them yet)
    _check(spec[0], CASES.run_gn(torch, S.group_norm, S.instance_norm, *spec))


def test_group_norm_error():
    with pytest.raises(RuntimeError, match=r"divisible by num_groups, but got input of shape "
                                           r"\[2, 6, 5, 5\] and num_groups=4"):
        S.group_norm(torch.zeros(2, 6, 5, 5), 4)


def test_recorded_cases_all_tested():
    assert set(EXPECTED) == ({"lenet"} | {s[0] for s in CASES.BN} | {s[0] for s in CASES.LN}
                             | {s[0] for s in CASES.GN})


def test_fma_rounds_once():
    # 1 + 2**-24 is a tie for float32: the fused result keeps the low product bits
    a = np.float32(1 + 2 ** -12)
    assert K.fma(a, a, np.float32(-1)) == np.float32(2 ** -11 + 2 ** -24)
    assert (a * a - np.float32(1)) == np.float32(2 ** -11)
    assert K.fma(np.float32(3), np.float32(2), np.float32(np.inf)) == np.inf
    # the double sum lands on a float midpoint 2**-34 above the exact value: round down
    a, b = np.float32(0.25 * (1 + 2 ** -15)), np.float32(0.25 * (1 - 2 ** -15))
    c = np.float32(2 ** 20 + 0.125)
    assert float(np.float32(float(a) * float(b) + float(c))) == 2 ** 20 + 0.25
    assert float(K.fma(a, b, c)) == 2 ** 20 + 0.125
    assert float(K.fma(-a, b, -c)) == -(2 ** 20 + 0.125)


def test_create_graph_through_batchnorm():
    # the kernel path is for plain backward; create_graph keeps a differentiable VJP
    bn = torch.nn.BatchNorm1d(3)
    x = torch.tensor([[1.0, 2.0, 0.5], [3.0, -1.0, 2.0], [0.0, 4.0, 1.0], [2.0, 1.0, -2.0]],
                     requires_grad=True)
    y = bn(x)
    (gx,) = torch.autograd.grad((y * y * y).sum(), x, create_graph=True)
    assert gx.requires_grad
    gx.pow(2).sum().backward()
    # values from real torch 2.13 (the same calls), to float32 precision
    want_gx = [[-2.1465995, -1.5360858, -1.9015181], [2.1465995, 1.5360858, 1.9925402],
               [2.1465995, 1.5360858, -1.072135], [-2.1465995, -1.536086, 0.9811125]]
    np.testing.assert_allclose(gx.detach().numpy(), want_gx, rtol=1e-5, atol=1e-5)
    want_xg = [[20.2746, -3.7511, -5.3634], [-5.5292, 3.0250, 5.0641],
               [5.5292, -3.0250, -8.7479], [-20.2746, 3.7511, 9.0472]]
    np.testing.assert_allclose(x.grad.numpy(), want_xg, atol=2e-4)


def test_layernorm_create_graph():
    ln = torch.nn.LayerNorm(4)
    x = torch.tensor([[1.0, 2.0, 0.5, -1.0], [3.0, -1.0, 2.0, 0.0]], requires_grad=True)
    (gx,) = torch.autograd.grad((ln(x) ** 3).sum(), x, create_graph=True)
    gx.pow(2).sum().backward()
    # real torch 2.13, to float32 precision (the second order runs on Tensor ops)
    np.testing.assert_allclose(gx.detach().numpy(),
                               [[-2.1283197, 2.8377466, -2.8377552, 2.1283283],
                                [1.1384131, 1.1384133, -1.1384130, -1.1384130]], atol=2e-5)
    np.testing.assert_allclose(x.grad.numpy(), [[-23.151871, -2.683917, 2.6842535, 23.151531],
                                                [0.6912165, -0.6912165, -6.566309, 6.566309]],
                               atol=3e-3)


def test_float64_keeps_working():
    bn = torch.nn.BatchNorm1d(2).double()
    x = torch.tensor([[1.0, 2.0], [3.0, 5.0], [2.0, -1.0]], dtype=torch.float64,
                     requires_grad=True)
    y = bn(x)
    y.sum().backward()
    np.testing.assert_allclose(y.detach().numpy().mean(0), [0.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(bn.running_mean.numpy(), [0.2, 0.2])


def test_functional_exports_group_and_instance_norm_with_torch_bits():
    """F.group_norm / F.instance_norm forward and backward, md5 prefixes recorded from real
    torch 2.13 (same script run in the oracle)."""
    import gradrepl.torch as torch
    import gradrepl.torch.nn.functional as F

    torch.manual_seed(0)
    x = torch.randn(4, 6, 5, 5, requires_grad=True)
    w = torch.randn(6, requires_grad=True)
    b = torch.randn(6, requires_grad=True)
    y = F.group_norm(x, 3, w, b)
    z = F.instance_norm(x, weight=w, bias=b)
    (y.sum() + (z * z).sum()).backward()
    got = [hashlib.md5(t.detach().numpy().tobytes()).hexdigest()[:10]
           for t in (y, z, x.grad, w.grad, b.grad)]
    assert got == ["be63ddd88a", "f6252c3ce1", "0bcd45b942", "624e013f38", "201ce07da4"]
