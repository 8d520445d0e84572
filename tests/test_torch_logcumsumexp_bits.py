"""torch.logcumsumexp forward and backward as torch 2.13 computes them on CPU: the kernel's
running value in acc_type (double, for float32 too) with the C library's exp/log1p
(gradrepl/torch/_logcumsumexp.py), the backward FunctionsManual's logcumsumexp_backward with
the dialect's ops. Before: both differed (TSWEEP2 widened sweep, 2 cases; this probe 8 of 8).
Digests of y and x.grad recorded from real torch 2.13 (/work/vtorch) on this machine (glibc's
exp/log1p; no MKL on this path)."""
from __future__ import annotations

import hashlib

import numpy as np

import gradrepl.torch as torch
from gradrepl.engine.ops import _kernels as K
from conftest import skip_unless_mkl_path

REAL = "bfd734a50c 1f22434a2b 52ceaaf67f cb151bbecd b575baecd3 d5af82e547 4b221aa5b4 " \
       "d82a37270d"


def test_logcumsumexp_equals_real_torch():
    skip_unless_mkl_path("logcumsumexp's record (MKL's math functions in the torch dialect)")
    if K._LIBM is None:
        import pytest
        pytest.skip("no C library to call: the kernel's exp/log1p are glibc's")
    out = []
    for dt in ("float32", "float64"):
        rng = np.random.default_rng(3)
        for shp, d in (((5, 9), -1), ((64, 10), 0), ((1000,), 0), ((3, 4, 5), 1)):
            x = torch.tensor((rng.standard_normal(shp) * 3).astype(dt), requires_grad=True)
            y = torch.logcumsumexp(x, d)
            g = rng.standard_normal(shp).astype(dt)
            y.backward(torch.tensor(g))
            out.append(hashlib.sha256(y.detach().numpy().tobytes() + x.grad.numpy().tobytes())
                       .hexdigest()[:10])
    assert out == REAL.split()
