"""torch's complex log2 / log10 / acos / expm1 / rsqrt / sigmoid / reciprocal and division on the CPU as ATen computes them (issue 28,
gradrepl/torch/_complex_c10.py). Digests: real torch 2.13 on this Intel AVX-512 machine (ATen's
Vectorized<c10::complex> AVX-512 kernels, glibc's clog/cacosf/casin), 3,000 values a dtype drawn
below; sha256 of the result's bytes, first 16 hex digits. Before: numpy's formulas
(log2/log10 one rounding off, acos complex128 and expm1 by ulps; the divisions unfused)."""
from __future__ import annotations

import hashlib

import numpy as np
import pytest

from conftest import skip_without_avx512

torch = pytest.importorskip("gradrepl.torch")

REAL = {  # real torch 2.13 here
    ("complex64", "log2"): "f60faa73ba8cfd41", ("complex64", "log10"): "78ae0bc208d8b6cf",
    ("complex64", "acos"): "9dc3b01cce0917ba", ("complex64", "expm1"): "f5af5efc6ab55608",
    ("complex128", "log2"): "3a08d92092822ca9", ("complex128", "log10"): "4e72da03ac07108d",
    ("complex128", "acos"): "78e0425150cb8700", ("complex128", "expm1"): "8e2dfddb9fb783b0",
    ("complex64", "rsqrt"): "712cf78e4cca133c", ("complex64", "sigmoid"): "52bfc3dbec337ed2",
    ("complex64", "reciprocal"): "607e5c9d9a2cbc6e", ("complex64", "div"): "2f6e18803d19920a",
    ("complex128", "rsqrt"): "810f38dfa4b2faac", ("complex128", "sigmoid"): "a952cd683f9b2b50",
    ("complex128", "reciprocal"): "98bc7ab26d2fc630", ("complex128", "div"): "3ebffe262709a72d",
}


def _values():
    rng = np.random.default_rng(5)
    z = (rng.standard_normal(3000) * np.exp(rng.uniform(-4, 3, 3000))) + 1j * (
        rng.standard_normal(3000) * np.exp(rng.uniform(-4, 3, 3000)))
    z[:200] = rng.uniform(-0.6, 0.6, 200) + 1j * rng.uniform(-0.6, 0.6, 200)
    return z


@pytest.mark.parametrize("dtype,fn", sorted(REAL))
def test_complex_kernel_bits_as_real_torch(dtype, fn):
    skip_without_avx512("ATen's AVX-512 complex kernels (the record's machine)")
    z = _values()
    t = torch.from_numpy(z.astype(dtype))
    if fn == "div":   # (a divisor of every magnitude, 40 of them real)
        w = z[::-1].copy() * (0.5 - 2j)
        w[:40] = w[:40].real
        r = t / torch.from_numpy(w.astype(dtype))
    else:
        r = getattr(torch, fn)(t)
    got = hashlib.sha256(r.numpy().tobytes()).hexdigest()[:16]
    assert got == REAL[dtype, fn]
