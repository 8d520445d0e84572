"""Numeric fidelity found by running tutorials: each case's bits recorded from the real frameworks
(Paddle 3.3.1 / 2.6.2, torch 2.13 CPU) in tests/data/tutorial_numerics/."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

import gradrepl.paddle as paddle
from gradrepl.paddle import profiles

DATA = Path(__file__).parent / "data" / "tutorial_numerics"
VERSIONS = {"3": "3.3.1", "2.6": "2.6.2"}


@pytest.fixture(autouse=True)
def _restore_profile():
    before = profiles.current().key
    yield
    profiles.set_profile(before)


def _digest(x):
    return [str(x.dtype), int(x.size),
            hashlib.sha1(np.ascontiguousarray(x).tobytes()).hexdigest()[:16]]


# ------------------------------------------------------------------- arange / linspace
@pytest.mark.parametrize("key", list(VERSIONS))
def test_arange_accumulates_in_dtype(key):
    """arange's kernel adds the step to a running value in the dtype: element 80 of
    arange(-8, 8, 0.1) is -5.379319e-06 in float32 (not 0 nor -2.8e-14)."""
    profiles.set_profile(key)
    recorded = json.loads((DATA / f"range.{VERSIONS[key]}.json").read_text())["arange"]
    for args, dt, want in recorded:
        try:
            got = _digest(paddle.arange(*args, dtype=dt).numpy())
        except ValueError as ex:
            got = ["ValueError", str(ex)]
        assert got == want, (args, dt)
    x = paddle.arange(-8.0, 8.0, 0.1, dtype="float32").numpy()
    assert x[80] == np.float32(-5.379319e-06)


@pytest.mark.parametrize("key", list(VERSIONS))
def test_linspace_kernel(key):
    """3.x computes float linspace in the dtype, 2.x in float64 (ints: float64, truncated)."""
    profiles.set_profile(key)
    recorded = json.loads((DATA / f"range.{VERSIONS[key]}.json").read_text())["linspace"]
    for (s, e, n), dt, want in recorded:
        assert _digest(paddle.linspace(s, e, n, dtype=dt).numpy()) == want, (s, e, n, dt)


# ------------------------------------------------------------------- torch.randn (n >= 16)
def test_torch_randn_blocks_of_16():
    """torch's float32 normal fill for 16+ values: Box-Muller on blocks of 16 uniforms with
    avx_mathfun's log and sincos (fused multiply-adds), recorded from torch 2.13."""
    import gradrepl.torch as torch

    want = json.loads((DATA / "torch_randn.json").read_text())
    for key, digest in want.items():
        if key == "normal":
            continue
        seed, n = (int(v) for v in key.split(":"))
        torch.manual_seed(seed)
        assert _digest(torch.randn(n).numpy())[2] == digest, key
    torch.manual_seed(7)
    got = torch.normal(2.0, 3.0, size=(21,)).numpy().view(np.int32).tolist()
    assert got == want["normal"]


# ------------------------------------------------------------------- torch pow
def test_torch_pow_kernels_and_backward():
    """Same-shape float32 tensor ** tensor is SLEEF's powf_u10, a broadcast exponent glibc's
    powf; x ** 3's gradient is grad * (3 * x.pow(2)) (torch's pow_backward order)."""
    import gradrepl.torch as torch

    want = json.loads((DATA / "torch_pow.json").read_text())
    x = torch.linspace(-2, 2, 37)
    got = x.unsqueeze(-1).pow(torch.tensor([1, 2, 3])).numpy().view(np.int32).tolist()
    assert got == want["powb"]
    xr = x.clone().requires_grad_()
    (xr ** 3).backward(torch.linspace(-1, 2, 37))
    assert xr.grad.numpy().view(np.int32).tolist() == want["pow3bw"]
    torch.manual_seed(0)
    p = torch.rand(40) * 3
    q = torch.rand(40) * 4 - 2
    assert torch.pow(p, q).numpy().view(np.int32).tolist() == want["pow_same"]
