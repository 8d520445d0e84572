"""float64 softplus (forward, backward) and hardswish's backward bit for bit as torch 2.13 on
x86-64 AVX-512 (issue 28, TSWEEP2): softplus_kernel's vector lambda is SLEEF's exp and log1p on
groups of two 8-double vectors, the scalar lambda glibc's (gradrepl/torch/_sigmoid64.py);
hardswish_backward is dy * (x / 3 + 0.5) in double. Hashes and hex literals recorded from real
torch 2.13 (/work/vtorch, 2 threads) on the Intel Sapphire Rapids Xeon; before this change the
sweep's float64 softplus cases (4 of 4) and hardswish backward cases (3 of 4) differed."""
from __future__ import annotations

import hashlib

import numpy as np
import pytest

import gradrepl.torch as torch
import gradrepl.torch.nn.functional as F
from gradrepl.engine.ops import _kernels as K


@pytest.fixture(autouse=True)
def _avx512(monkeypatch):
    # the records' capability (an override is honoured on any CPU: the kernels are emulated)
    monkeypatch.setenv("GRADREPL_TORCH_CAPABILITY", "AVX512")
    if K._LIBM is None:
        pytest.skip("no C library to call: the scalar lambda's glibc exp/log1p is not available")


def _h(a):
    return hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()[:16]


def _x():
    return np.random.default_rng(0).standard_normal(10000) * 5


@pytest.mark.parametrize("beta,threshold,y_h,dx_h", [
    (1.0, 20.0, "69b481a624d4a493", "925a0b923b77d94f"),
    (2.0, 5.0, "8a1edc981176a627", "cd64a4542b2e8d12"),
])
def test_softplus64_10k_equal_real_torch(beta, threshold, y_h, dx_h):
    a = torch.tensor(_x(), requires_grad=True)
    y = F.softplus(a, beta=beta, threshold=threshold)
    y.backward(torch.tensor(np.random.default_rng(1).standard_normal(10000)))
    assert _h(y.detach().numpy()) == y_h
    assert _h(a.grad.numpy()) == dx_h


def test_softplus64_40_values_vector_then_scalar():
    """40 values: 32 by the vector lambda (SLEEF), 8 by the scalar one (glibc)."""
    a = torch.tensor(_x()[:40], requires_grad=True)
    y = F.softplus(a)
    y.backward(torch.ones_like(y))
    pick = [0, 1, 33, 39]
    assert [float(v).hex() for v in y.detach().numpy()[pick]] == [
        '0x1.0e5b4841c9d17p+0', '0x1.aa73fc12e4b3dp-2', '0x1.626ec7ea753d8p+1',
        '0x1.ddef3db505a1bp+2']
    assert [float(v).hex() for v in a.grad.numpy()[pick]] == [
        '0x1.4deb004c18adap-1', '0x1.5ccbf8cd048c5p-2', '0x1.dfe2988486177p-1',
        '0x1.ffb520dd4ecfdp-1']


def test_hardswish64_backward_equal_real_torch():
    a = torch.tensor(_x(), requires_grad=True)
    y = F.hardswish(a)
    y.backward(torch.tensor(np.random.default_rng(1).standard_normal(10000)))
    assert _h(y.detach().numpy()) == "caa6578705f4c057"
    assert _h(a.grad.numpy()) == "9312d27f28150ef4"
