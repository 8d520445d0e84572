"""Paddle's float32 matrix product of a transposed tensor on Intel: ``x.t()``, ``x.T`` and
``paddle.transpose`` give Paddle a contiguous tensor, so MKL's sgemm takes it without a transpose
flag; only matmul's own ``transpose_x``/``transpose_y`` pass an operand transposed
(gradrepl/engine/ops/linalg.py ``_mkl_gemm``). gradrepl's transpose is a numpy view, which was
passed to MKL with the transpose flag: other last bits in 2 of these 6 (a (2, 200) @ (200, 1)
logistic-regression gradient ``X.t() @ (y - p)`` among them).

Recorded from real Paddle 3.3.1 and 2.6.2 (equal) on this project's Intel AVX-512 (Sapphire
Rapids) machine, 2026-12-07: a then b drawn from ``np.random.RandomState(m * 1000 + k).randn`` as
float32, stored (k, m) where x is transposed ("x"), (n, k) where y is; x = to_tensor(a).t(),
y = paddle.transpose(to_tensor(b), [1, 0]); sha256 of ``paddle.matmul(x, y)`` (the same as
``x @ y``), first 16 digits.
"""
from __future__ import annotations

import hashlib

import numpy as np
import pytest

_CASES = [(2, 200, 1, "x", "3928e2bc455a41b8"), (16, 300, 10, "x", "365277ddd65c6174"),
          (5, 64, 3, "xy", "663ed87fb8146434"), (33, 70, 5, "y", "e6bbba120c4d6136"),
          (1, 128, 9, "xy", "eeabcf0790a74c0c"), (40, 9, 12, "x", "e7c2e9212c460f99")]


@pytest.mark.parametrize("version", ["3", "2.6"])
@pytest.mark.parametrize("m, k, n, which, want", _CASES)
def test_product_of_transposed_tensors_is_contiguous_sgemm(version, m, k, n, which, want):
    from conftest import skip_unless_mkl_path
    from gradrepl.paddle import state

    skip_unless_mkl_path("Paddle's float32 products on Intel (MKL's sgemm on one thread)")
    state.reset(version)
    import gradrepl.paddle as paddle

    try:
        rs = np.random.RandomState(m * 1000 + k)
        a = rs.randn(*((k, m) if "x" in which else (m, k))).astype("float32")
        b = rs.randn(*((n, k) if "y" in which else (k, n))).astype("float32")
        x, y = paddle.to_tensor(a), paddle.to_tensor(b)
        x = x.t() if "x" in which else x
        y = paddle.transpose(y, [1, 0]) if "y" in which else y
        c = paddle.matmul(x, y).numpy()
        assert (c == (x @ y).numpy()).all()
    finally:
        state.reset()
    assert hashlib.sha256(c.tobytes()).hexdigest()[:16] == want
