"""torch.matmul of a vector or matrix times an N-D (N >= 3) tensor as ATen's _matmul_impl runs
it: should_fold (the smaller operand requires grad, or other^T views as a matrix) folds other^T
into a matrix for one mv / mm (a matrix product transposed back and made contiguous:
CloneBackward0), else the batched path with the vector's row dropped by the final view (no
SqueezeBackward1). Before: always the expanded bmm: 6 of 8 widened-sweep cases (TSWEEP2) had
other bits. Digests and node names recorded from real torch 2.13 (/work/vtorch, 2 threads) on
the Intel Sapphire Rapids Xeon (MKL's gemv/gemm on its AVX512_E1 path: recorded for that MKL
branch, skipped elsewhere)."""
from __future__ import annotations

import hashlib

import numpy as np
import pytest

import gradrepl.torch as torch
from conftest import record_for_mkl_branch

REAL_E1 = (
    "c798e2de:UnsafeViewBackward0 9a834572:CloneBackward0 1b0fd807:UnsafeViewBackward0 "
    "d165af65:UnsafeViewBackward0 d2815e28:UnsafeViewBackward0 a46c8f97:CloneBackward0 "
    "6d893314:UnsafeViewBackward0 2c5341ef:CloneBackward0 d3da473a:UnsafeViewBackward0 "
    "307e9e42:UnsafeViewBackward0 57012a91:UnsafeViewBackward0 70c20ec1:CloneBackward0 "
).split()
CASES = (((7,), (2, 7, 5), True), ((3, 7), (3, 1, 7, 4), True), ((7,), (3, 1, 7, 4), True),
         ((7,), (2, 7, 5), False), ((16,), (4, 16, 33), True), ((5, 16), (2, 16, 9), True))


def test_matmul_folded_equals_real_torch():
    real = record_for_mkl_branch("matmul fold (MKL gemv/gemm)", {"AVX512_E1": REAL_E1})
    out = []
    for dt in ("float32", "float64"):
        rng = np.random.default_rng(9)
        for sa, sb, rg in CASES:
            a = torch.tensor(rng.standard_normal(sa).astype(dt), requires_grad=rg)
            b = torch.tensor(rng.standard_normal(sb).astype(dt), requires_grad=True)
            y = torch.matmul(a, b)
            y.backward(torch.tensor(rng.standard_normal(tuple(y.shape)).astype(dt)))
            h = y.detach().numpy().tobytes() + b.grad.numpy().tobytes() + \
                (a.grad.numpy().tobytes() if rg else b"")
            out.append(hashlib.sha256(h).hexdigest()[:8] + ":" + y.grad_fn.name())
    assert out == real
