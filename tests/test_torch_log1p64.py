"""torch.log1p of float64 as torch 2.13 computes it on x86-64: SLEEF's Sleef_log1pd8_u10 over
every value (gradrepl/torch/_ops._log1p_f64; numpy's log1p before: 22 of 1,000 values differed,
glibc's would 77). Real torch 2.13's bits (/work/vtorch) recorded on the Intel Sapphire Rapids
Xeon (TSWEEP2: F.soft_margin_loss float64 reduction='none' 2 cases fixed by it); the edge
values (signed zeros, -1, below -1, infinities, NaN, subnormals, near DBL_MAX) included."""
from __future__ import annotations

import hashlib

import numpy as np

import gradrepl.torch as torch
from conftest import skip_unless_x86_64

EDGE = [0.0, -0.0, -1.0, -1.5, np.inf, -np.inf, np.nan, 1e-300, 5e-324, 1e308, 1.7e308,
        -0.999999, 1e-17, 3e15, 2.0 ** 60]
REAL_EDGE = ['0x0.0p+0', '-0x0.0p+0', '-inf', 'nan', 'inf', 'nan', 'nan',
             '0x1.56e1fc2f8f359p-997', '0x0.0p+0', '0x1.62991d5d62a5ep+9', '0x1.62dd08fdc6f88p+9',
             '-0x1.ba18a998fc064p+3', '0x1.70ef54646d497p-57', '0x1.1d195f3cf67ddp+5',
             '0x1.4cb5ecf0a9650p+5']


def test_log1p64_edges_equal_real_torch():
    got = torch.log1p(torch.tensor(np.array(EDGE))).numpy()
    assert [float(v).hex() for v in got] == REAL_EDGE


def test_log1p64_23k_values_equal_real_torch():
    skip_unless_x86_64("float64 log1p (SLEEF Sleef_log1pd8_u10)")
    rng = np.random.default_rng(5)
    y = rng.standard_normal(20000) * 50
    # wide positive values built exactly: numpy's own exp, which made them before, follows
    # numpy's SIMD path (AVX-512 or AVX2: 550 of the inputs differed), so the inputs did
    big = np.ldexp(rng.random(20000) + 1.0, rng.integers(-60, 100, 20000))
    y = np.concatenate([y, big, -np.random.default_rng(6).random(3000)])
    out = torch.log1p(torch.tensor(y)).numpy()
    # real torch 2.13 here, as AVX-512 and as AVX2 (ATEN_CPU_CAPABILITY=avx2,
    # MKL_ENABLE_INSTRUCTIONS=AVX2, numpy's AVX-512 off): the same bits
    assert hashlib.sha256(out.tobytes()).hexdigest()[:16] == "8c6f50c9087bc4d0"
