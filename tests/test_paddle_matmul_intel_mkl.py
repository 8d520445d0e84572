"""Paddle's float32 matrix product on Intel: MKL's sgemm on one thread with each operand's
transpose flag (gradrepl/engine/ops/linalg.py ``_mkl_gemm``).

Recorded from real Paddle 3.3.1 and 2.6.2 (equal) on this project's Intel AVX-512 (Sapphire
Rapids) machine, 2026-12-07: ``paddle.matmul(a, b, transpose_x=tx, transpose_y=ty)`` with a then
b drawn from ``np.random.RandomState(m * 1000 + k).randn`` as float32 in their stored shapes;
sha256 of the result, first 16 digits. The fused chain (numpy's BLAS past its limit) gave other
last bits for all but the last case.
"""
from __future__ import annotations

import hashlib

import numpy as np
import pytest

_CASES = [(16, 512, 64, False, False, "12f851fbdd266818"),
          (200, 784, 10, False, False, "6fc262fd18980513"),
          (9, 519, 106, False, True, "a8cb17b64c542d35"),
          (7, 106, 113, True, True, "99f7c6ce7778749e"),
          (1, 512, 64, False, False, "411b844b5825dc77"),
          (33, 70, 5, True, False, "703c3f16fcc89370")]


@pytest.mark.parametrize("version", ["3", "2.6"])
@pytest.mark.parametrize("m, k, n, tx, ty, want", _CASES)
def test_matmul_is_mkl_sgemm_on_intel(version, m, k, n, tx, ty, want):
    from conftest import skip_unless_mkl_path
    from gradrepl.paddle import state

    skip_unless_mkl_path("Paddle's float32 products on Intel (MKL's sgemm on one thread)")
    state.reset(version)
    import gradrepl.paddle as paddle

    rs = np.random.RandomState(m * 1000 + k)
    a = rs.randn(*((k, m) if tx else (m, k))).astype("float32")
    b = rs.randn(*((n, k) if ty else (k, n))).astype("float32")
    c = paddle.matmul(paddle.to_tensor(a), paddle.to_tensor(b), transpose_x=tx,
                      transpose_y=ty).numpy()
    state.reset()
    assert hashlib.sha256(c.tobytes()).hexdigest()[:16] == want
