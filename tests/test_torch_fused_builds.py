"""Which torch builds fuse ``a * b + c`` (issue 28, the suite run on other CPU classes).

Found running the suite on aarch64 (Debian 12 arm64 under qemu-user): real torch 2.9.1 there
(capability DEFAULT, its only build) printed the *fused* bits of the x86-64 AVX512 build for
``normal_`` (9 and 40 float64 values), ``addcmul``, ``addcdiv`` and ``linspace`` (float32 and
float64) and float64 ``uniform_``, where gradrepl took x86-64's DEFAULT rule (no FMA) for every
DEFAULT build: torch's aarch64 build is compiled with contraction (GCC's default there).
``_capability.fused()`` now says so; a ``GRADREPL_TORCH_CAPABILITY`` override still stands for
x86-64's builds (``default``: not fused). Found on the way, on x86-64 itself: float64
``uniform_`` is fused in the AVX2/AVX512 builds (``x * (to - from) + from``), gradrepl rounded
the product first.

The md5s are of the results' bytes, recorded in this session from real torch 2.13.0 on this
project's machine (AMD EPYC Zen 4), plain (AVX512) and with ``ATEN_CPU_CAPABILITY=avx2`` /
``default``; and from real torch 2.9.1 on aarch64 under qemu-user. The computations are numpy's
and exact, so the tests hold on any machine.
"""
from __future__ import annotations

import hashlib

import numpy as np
import pytest

from gradrepl.engine import cpu
from gradrepl.torch import _capability


def md5(t):
    return hashlib.md5(np.ascontiguousarray(t.numpy()).tobytes()).hexdigest()


@pytest.fixture
def torch(monkeypatch):
    for var in ("GRADREPL_TORCH_CAPABILITY", "ATEN_CPU_CAPABILITY", "GRADREPL_CPUINFO"):
        monkeypatch.delenv(var, raising=False)
    _capability.detected.cache_clear()
    import gradrepl.torch as torch
    yield torch
    _capability.detected.cache_clear()


def _as_aarch64(monkeypatch):
    monkeypatch.setattr(cpu, "x86", lambda: False)
    _capability.detected.cache_clear()


# (seed, n, from, to): md5 fused (AVX512 and AVX2 builds, and aarch64's), md5 x86-64 DEFAULT
UNIFORM64 = [((5, 1003, -2.5, 3.5), "53f930e45df7b0627eeab1a4f3af85b5",
              "47110b3a20f5cd6d68adcc31ee84b27f"),
             ((1, 7, 0.1, 0.7), "b971121d657d9753a3f72f293a18f5b8",
              "3ae027e28aef9131479b5c5abe3df189"),
             ((2, 40, -1e-3, 1e3), "f02fe3157d5040a130ce76695c7f1837",
              "f81415b9a85666f4bd591900d64a5e34")]


def _uniform64(torch, seed, n, lo, hi):
    torch.manual_seed(seed)
    return torch.empty(n, dtype=torch.float64).uniform_(lo, hi)


@pytest.mark.parametrize("case, fused, unfused", UNIFORM64)
@pytest.mark.parametrize("build", ["avx512", "avx2", "default"])
def test_float64_uniform_as_each_x86_build(torch, monkeypatch, case, fused, unfused, build):
    monkeypatch.setenv("GRADREPL_TORCH_CAPABILITY", build)
    assert md5(_uniform64(torch, *case)) == (unfused if build == "default" else fused)


def test_the_fused_and_unfused_draws_differ_only_by_the_rounding(torch, monkeypatch):
    monkeypatch.setenv("GRADREPL_TORCH_CAPABILITY", "avx512")
    a = _uniform64(torch, *UNIFORM64[0][0]).numpy()
    monkeypatch.setenv("GRADREPL_TORCH_CAPABILITY", "default")
    b = _uniform64(torch, *UNIFORM64[0][0]).numpy()
    # the product x * 6 (< 6) rounded once more: within one ulp of 8 (the sum's own rounding too)
    assert (a != b).any() and np.all(np.abs(a - b) <= np.spacing(8.0))


def test_which_builds_fuse(torch, monkeypatch):
    monkeypatch.setattr(cpu, "x86", lambda: True)
    for build, fuses in (("avx512", True), ("avx2", True), ("default", False)):
        monkeypatch.setenv("GRADREPL_TORCH_CAPABILITY", build)
        assert _capability.fused() is fuses, build
    monkeypatch.delenv("GRADREPL_TORCH_CAPABILITY")
    _as_aarch64(monkeypatch)
    assert _capability.capability() == "DEFAULT" and _capability.fused()
    monkeypatch.setenv("GRADREPL_TORCH_CAPABILITY", "default")   # x86-64's DEFAULT build
    assert not _capability.fused()


def test_aarch64_draws_and_products_are_fused(torch, monkeypatch):
    """What real torch 2.9.1 printed on aarch64 (equal to 2.13's AVX512 build on x86-64)."""
    _as_aarch64(monkeypatch)
    torch.manual_seed(3)
    assert md5(torch.empty(9, dtype=torch.float64).normal_(-1.25, 2.7)) == \
        "d8a3ae321edaa3de94c09756b46859c8"
    torch.manual_seed(4)
    assert md5(torch.empty(40, dtype=torch.float64).normal_(0.3, 1.7)) == \
        "a05c8a5ab1ee04371418459af60cb72c"
    assert md5(_uniform64(torch, *UNIFORM64[0][0])) == UNIFORM64[0][1]
    rng = np.random.default_rng(0)
    a = torch.tensor(rng.standard_normal(1003).astype(np.float32) * 100)
    b = torch.tensor(rng.standard_normal(1003).astype(np.float32) * 10)
    c = torch.tensor(rng.standard_normal(1003).astype(np.float32))
    assert md5(a.addcmul(b, c, value=0.01)).startswith("d0059090b625")
    assert md5(torch.linspace(-1, 1, 7, dtype=torch.float64)).startswith("0f2a2250aee4")
