"""``F.gelu`` / ``nn.GELU`` (exact form, float32) and their gradient, bit for bit as torch 2.13
computes them (issue 28: a transformer lecture's GELU differed in 20-60% of values).

torch sends a contiguous float32 input to oneDNN (AVX-512: a piecewise minimax polynomial;
AVX2: Abramowitz-Stegun erf with oneDNN's exp; the backward A-S on both) and a strided view to
ATen's kernel (A-S erf with SLEEF's expf on pairs of vectors, glibc's erff on the rest).
gradrepl/torch/_gelu_kernels.py emulates both, so each class is checked on any x86-64 machine by
choosing torch's capability. The md5s were recorded from real torch 2.13.0 on this project's
machine (AMD EPYC Zen 4) with the same code, 2026-12-06: as it runs (AVX512), and with
ATEN_CPU_CAPABILITY=avx2 ONEDNN_MAX_CPU_ISA=AVX2 (what an AVX2 machine runs).
"""
from __future__ import annotations

import hashlib
import platform

import numpy as np
import pytest

from conftest import skip_without_avx512
from gradrepl.torch import _mkl

RECORDS = {
    "AVX512": {1: ("aae384ca39b1f953feeb322b7e418275", "334763d6c15a603a271aec59b042c164"),
               7: ("cf9ee0476f8877aa7780614866fd69fe", "41e55db80ee5d01462bdc71daebf7ab4"),
               33: ("accc9a70798d50ab1957d214d1881d39", "65857178112ae81e5ca8be72f266eff6"),
               1000: ("b3378ed9e6e50ffdeacac75fe7b5b6ff", "92a1ac218e49447be0929ad6aef4465e"),
               "T": "19f61716c8053f2c0b6f779fe6b5d496",
               "slice": "efa96a4ceea2c2f1ed60629e018cba13",
               "step": "9dbdb6d1e2a0b058d16a2e704810070b"},
    "AVX2": {1: ("aae384ca39b1f953feeb322b7e418275", "334763d6c15a603a271aec59b042c164"),
             7: ("aebcd45e4047b4e41f297161f08a8f55", "41e55db80ee5d01462bdc71daebf7ab4"),
             33: ("34c59bac7043bb26333c0f4c2410451f", "65857178112ae81e5ca8be72f266eff6"),
             1000: ("54a8d679acfb9f7d9fa7e262fecd73bf", "92a1ac218e49447be0929ad6aef4465e"),
             "T": "88fb10a01993105f89d4a0fa3d60412c",
             "slice": "bcd9ea33c7f1fb0a45d03bf0c1c6bdf6",
             "step": "9dbdb6d1e2a0b058d16a2e704810070b"},
}
x86 = pytest.mark.skipif(platform.machine().lower() not in ("x86_64", "amd64"),
                         reason="torch's x86-64 kernels (oneDNN's JIT, ATen's AVX code) are "
                         "emulated; an aarch64 torch runs other ones")


def md5(t):
    return hashlib.md5(np.ascontiguousarray(t.detach().numpy()).tobytes()).hexdigest()


@x86
@pytest.mark.parametrize("capability", ["AVX512", "AVX2"])
def test_gelu_forward_and_backward_equal_real_torch(monkeypatch, capability):
    monkeypatch.setenv("GRADREPL_TORCH_CAPABILITY", capability)
    import gradrepl.torch as torch

    rec = RECORDS[capability]
    torch.manual_seed(11)
    for n in (1, 7, 33, 1000):
        x = (torch.randn(n) * 3).requires_grad_()
        y = torch.nn.functional.gelu(x)
        y.backward(torch.randn(n))
        assert (md5(y), md5(x.grad)) == rec[n], (capability, n)
    a = torch.randn(30, 50) * 3
    b = torch.randn(30, 64) * 3
    assert md5(torch.nn.functional.gelu(a.t())) == rec["T"]          # ATen, memory order
    assert md5(torch.nn.functional.gelu(b[:, :50])) == rec["slice"]  # ATen, rows of 50
    assert md5(torch.nn.functional.gelu(b[:, ::2])) == rec["step"]   # ATen, scalar code


def test_the_kernels_agree_with_erf_to_float_precision():
    """Independent of any record: every path is GELU = x Phi(x) to a few float32 ulps."""
    from math import erf

    from gradrepl.torch import _gelu_kernels as G

    x = np.linspace(-9, 9, 4001, dtype=np.float32)
    exact = np.array([v * 0.5 * (1 + erf(v / np.sqrt(2))) for v in x.astype(np.float64)])
    for got in (G._forward_avx512(x), G._forward_avx2(x), G._aten_vec(x)):
        np.testing.assert_allclose(got, exact, rtol=2e-6, atol=1e-6)
    d = G._onednn_backward(x, np.ones_like(x))
    pdf = np.exp(-x.astype(np.float64) ** 2 / 2) / np.sqrt(2 * np.pi)
    cdf = (exact / np.where(x == 0, 1, x)).astype(np.float64)
    cdf[x == 0] = 0.5
    np.testing.assert_allclose(d, cdf + x * pdf, rtol=1e-5, atol=1e-6)


def test_other_forms_keep_the_engine_kernel(monkeypatch):
    from gradrepl.torch import _gelu_kernels as G

    monkeypatch.setenv("GRADREPL_TORCH_CAPABILITY", "AVX512")
    assert G.applies(np.zeros(3, np.float32), False)
    assert not G.applies(np.zeros(3, np.float32), True)        # approximate='tanh'
    assert not G.applies(np.zeros(3, np.float64), False)
    monkeypatch.setenv("GRADREPL_TORCH_CAPABILITY", "DEFAULT")
    assert not G.applies(np.zeros(3, np.float32), False)


@pytest.mark.skipif(not _mkl.available(), reason="the mkl wheel is not installed: the Linear "
                    "layers' gemm bits come from MKL")
def test_gelu_mlp_gradient(monkeypatch):
    skip_without_avx512("MKL's gemm bits")
    monkeypatch.setenv("GRADREPL_TORCH_CAPABILITY", "AVX512")
    import gradrepl.torch as torch

    torch.manual_seed(11)
    for n in (1, 7, 33, 1000):
        torch.randn(n), torch.randn(n)
    torch.randn(30, 50), torch.randn(30, 64)
    m = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.GELU(), torch.nn.Linear(16, 1))
    m(torch.randn(4, 8)).sum().backward()
    from conftest import record_for_mkl_branch

    # real torch 2.13 on each MKL code path (AUTO: AMD EPYC Zen 4; AVX512_E1: Intel Sapphire
    # Rapids Xeon): the Linear layers' sgemm gives other bits
    assert md5(m[0].weight.grad) == record_for_mkl_branch("MKL's gemm bits", {
        "AUTO": "506baf56d6afcd3d14b297f24721976d", "AVX512_E1": "8059bf95e1b8757f991d0766ec3a7c41"})
