"""SLEEF's double tanh and expm1 (Sleef_tanhd8_u10 / Sleef_expm1d8_u10, gradrepl/torch/
_sleef_more.tanhd / expm1d: expk2 in double-double with its POLY10 polynomial) as torch 2.13
uses them on x86-64 AVX-512: torch.expm1 of float64 (every value), float64 mish (vector
groups; glibc's on the rest) and elu's / gelu-tanh's vector groups; GeluKernel splits its
forward over threads by its own grain (numel / threads above 16,384 elements: each range has
its own scalar tail; the backward takes the default grain), float32 too. Real torch 2.13's
bits and digests (/work/vtorch, 2 threads) recorded on the Intel Sapphire Rapids Xeon (TSWEEP2:
activation family 48/52 -> 52/52; before, numpy's expm1 differed on 1 value in 1,000 and
float64 mish ran the engine's formula)."""
from __future__ import annotations

import hashlib

import numpy as np
import pytest

import gradrepl.torch as torch
from gradrepl.engine.ops import _kernels as K

F = torch.nn.functional
EDGE = [0.0, -0.0, -1.0, -40.0, -36.7, 709.0, 709.79, 710.0, np.inf, -np.inf, np.nan, 1e-300,
        5e-324, -5e-324, 1e-17, 20.0, -700.0, -1000.5, 0.5, -0.5, 18.7, 18.72, -18.72]
REAL_EXPM1 = [
    '0x0.0p+0', '-0x0.0p+0', '-0x1.43a54e4e98864p-1', '-0x1.0000000000000p+0',
    '-0x1.fffffffffffffp-1', '0x1.d422d2be5dc9bp+1022', 'inf', 'inf', 'inf',
    '-0x1.0000000000000p+0', 'nan', '0x1.56e1fc2f8f359p-997', '0x0.0000000000001p-1022',
    '-0x0.0000000000001p-1022', '0x1.70ef54646d497p-57', '0x1.ceb088a68e804p+28',
    '-0x1.0000000000000p+0', '-0x1.0000000000000p+0', '0x1.4c2531c3c0d38p-1',
    '-0x1.92e9a0720d3ecp-2', '0x1.f863f6e7dac30p+26', '0x1.014a38869425ap+27',
    '-0x1.ffffffc052243p-1',
]
REAL_MISH = [
    '0x0.0p+0', '-0x0.0p+0', '-0x1.36aedf68a4414p-2', '-0x1.87d76dc01e0adp-53',
    '-0x1.309b1d63ce5f2p-48', '0x1.6280000000000p+9', '0x1.62e51eb851eb8p+9',
    '0x1.6300000000000p+9', 'inf', 'nan', 'nan', '0x1.9b759505df0d1p-998',
    '0x0.0000000000001p-1022', '-0x0.0000000000001p-1022', '0x1.bab8cbabb6582p-58',
    '0x1.4000000000000p+4', '-0x1.7aa3cdf7f304ep-1001', '-0x0.0p+0', '0x1.804047da23fa3p-2',
    '-0x1.c4154fe765f00p-3', '0x1.2b33333333332p+4', '0x1.2b851eb851eb8p+4',
    '-0x1.2a04b2a477089p-23', '0x0.0p+0', '-0x0.0p+0', '-0x1.36aedf68a4414p-2',
    '-0x1.87d76dc01e0adp-53', '-0x1.309b1d63ce5f2p-48', '0x1.6280000000000p+9',
    '0x1.62e51eb851eb8p+9', '0x1.6300000000000p+9', 'inf', 'nan', 'nan', '0x1.9b759505df0d1p-998',
    '0x0.0000000000001p-1022', '-0x0.0000000000001p-1022', '0x1.bab8cbabb6582p-58',
    '0x1.4000000000000p+4', '-0x1.7aa3cdf7f304ep-1001', '-0x0.0p+0', '0x1.804047da23fa2p-2',
    '-0x1.c4154fe765f00p-3', '0x1.2b33333333332p+4', '0x1.2b851eb851eb7p+4',
    '-0x1.2a04b2a477089p-23',
]
REAL_30K = "fa7d665e84e0bc6a 04a44adeecce82aa e0a1275d87320a86".split()
REAL_GELU = (
    "5cf299/54a38c 13a676/dcffd6 e694eb/091317 363a68/59c66e 63a3ff/8e6631 01cdc4/d6cb0b "
    "4cad41/ba94f0 a550ed/46cfef 2c4c94/764054 a6f7a2/6624b5 bd4089/8c3e94 f4645d/076949 "
).split()


@pytest.fixture(autouse=True)
def _avx512(monkeypatch):
    monkeypatch.setenv("GRADREPL_TORCH_CAPABILITY", "AVX512")
    if K._LIBM is None:
        pytest.skip("no C library to call: the scalar lambda's glibc functions are not there")


def _h(b):
    return hashlib.sha256(b).hexdigest()[:16]


def test_expm1_and_mish_float64_edges():
    x = np.array(EDGE)
    assert [float(v).hex() for v in torch.expm1(torch.tensor(x)).numpy()] == REAL_EXPM1
    got = F.mish(torch.tensor(np.concatenate([x] * 2))).numpy()
    assert [float(v).hex() for v in got] == REAL_MISH


def test_expm1_mish_gelu_tanh_30k_float64():
    y = np.random.default_rng(5).standard_normal(30000) * 10
    t = torch.tensor(y, requires_grad=True)
    m = F.mish(t)
    m.backward(torch.ones_like(m))
    g = F.gelu(torch.tensor(y), approximate="tanh")
    got = [_h(torch.expm1(torch.tensor(y)).numpy().tobytes()),
           _h(m.detach().numpy().tobytes() + t.grad.numpy().tobytes()), _h(g.numpy().tobytes())]
    assert got == REAL_30K


def test_gelu_tanh_thread_split_by_its_own_grain():
    out = []
    for dt in ("float32", "float64"):
        for n in (16000, 16385, 20001, 30000, 50000, 70001):
            y = np.random.default_rng(n).standard_normal(n).astype(dt) * 3
            t = torch.tensor(y, requires_grad=True)
            g = F.gelu(t, approximate="tanh")
            g.backward(torch.ones_like(g))
            out.append(hashlib.sha256(g.detach().numpy().tobytes()).hexdigest()[:6] + "/" +
                       hashlib.sha256(t.grad.numpy().tobytes()).hexdigest()[:6])
    assert out == REAL_GELU
