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


# Products with a vector: Paddle's MatMulFunction calls Blas::GEMV (MKL's cblas_?gemv, one thread).
# Recorded from real 3.3.1 and 2.6.2 (equal) here, 2026-12-07: x (k,), w (k, n), v (k,), g (n,)
# drawn in that order from RandomState(k * 1000 + n).randn; sha256[:16] of x @ w, of x's gradient
# of sum(x @ w * g), of matmul(w, x, transpose_x=True); float32 also of w^T (stored (n, k)) @ x, of
# matmul(x, w^T, transpose_y=True) and of x @ v. Before (the dot-kernel rules measured on AMD):
# x @ w equal in 50 of 70 random shapes, its gradient 21, x @ v 34. float64's x gradient is Paddle's
# own older MKL-ML order, not MKL 2024's: not compared.
_VECTOR_CASES = {
    (400, 50, "float32"): ["75bb3ccf85ba6657", "66856bd41fa2d4ae", "75bb3ccf85ba6657",
                           "7fd0ba7707281d7b", "7fd0ba7707281d7b", "7949a5ce20a5b55b"],
    (400, 50, "float64"): ["13599f2ee2f4d6e3", None, "13599f2ee2f4d6e3"],
    (271, 33, "float32"): ["a49f2eca6708981a", "91d54d02930b6f06", "a49f2eca6708981a",
                           "1a47487590513e29", "1a47487590513e29", "278d22b87ad12f03"],
    (271, 33, "float64"): ["2dba48fb54398153", None, "2dba48fb54398153"],
    (1000, 7, "float32"): ["c38f5b96d6d6cb95", "e6f6ca617442c3d3", "c38f5b96d6d6cb95",
                           "70c09c9ddec1bf4d", "70c09c9ddec1bf4d", "9ff5948dace7007a"],
    (17, 129, "float32"): ["1abe928992153608", "fe94fe44c5bb1030", "1abe928992153608",
                           "7494f688a2cbe5c0", "7494f688a2cbe5c0", "23a3f8026995c84c"],
}


@pytest.mark.parametrize("version", ["3", "2.6"])
@pytest.mark.parametrize("case", list(_VECTOR_CASES))
def test_products_with_a_vector_are_mkl_gemv_on_intel(version, case):
    from conftest import skip_unless_mkl_path
    from gradrepl.paddle import state

    skip_unless_mkl_path("Paddle's products with a vector on Intel (MKL's gemv on one thread)")
    state.reset(version)
    import gradrepl.paddle as paddle

    def h(t):
        return hashlib.sha256(t.numpy().tobytes()).hexdigest()[:16]

    k, n, dt = case
    rs = np.random.RandomState(k * 1000 + n)
    x, w, v = rs.randn(k).astype(dt), rs.randn(k, n).astype(dt), rs.randn(k).astype(dt)
    g = rs.randn(n).astype(dt)
    a, b = paddle.to_tensor(x, stop_gradient=False), paddle.to_tensor(w)
    wt = paddle.to_tensor(np.ascontiguousarray(w.T))
    y = paddle.matmul(a, b)
    (y * paddle.to_tensor(g)).sum().backward()
    got = [h(y), h(a.grad), h(paddle.matmul(b, a, transpose_x=True))]
    if dt == "float32":
        got += [h(paddle.matmul(wt, a)), h(paddle.matmul(a, wt, transpose_y=True)),
                h(paddle.matmul(a, paddle.to_tensor(v)))]
    state.reset()
    want = _VECTOR_CASES[case]
    assert [g_ for g_, w_ in zip(got, want) if w_ is not None] == [w_ for w_ in want if w_]
