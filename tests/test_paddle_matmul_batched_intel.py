"""Paddle's batched matrix products on Intel (gradrepl/engine/ops/linalg.py ``_mkl_batched_gemm``,
``_matmul_vjp``): one ``Blas::BatchedGEMM``, MKL's ``cblas_?gemm_batch`` on one thread with the
op's own transpose flags (MKL_VERBOSE under real Paddle here: SGEMM_BATCH / DGEMM_BATCH), and the
gradients in the operand order and flags of Paddle's MatmulGradKernel (the x gradient of
``x^T @ y`` is ``y @ G^T``, not the transpose of ``G @ y^T``). In the sweep before the change (other
random values), 4 of these 7 shapes differed in the forward or a gradient (a fused chain per
batch, the swapped gradient forms).

Recorded from real Paddle 3.3.1 and 2.6.2 (equal) on this project's Intel AVX-512 (Sapphire
Rapids) machine, 2026-12-07: x, y and then the weights w drawn from
``np.random.RandomState(sum(x.shape) * 100 + sum(y.shape)).randn``, z = matmul(x, y, flags),
(z * w).sum().backward(); sha256 of z, x.grad, y.grad, first 16 hex digits.
"""
from __future__ import annotations

import hashlib

import numpy as np
import pytest

_CASES = [
    ((3, 33, 64), (3, 64, 17), False, False, "float32",
     ("892a3153f8a3a410", "f01b28215aef419b", "9f79669a56e00663")),
    ((2, 3, 5, 7), (2, 3, 7, 11), False, False, "float32",
     ("e59d5971b0b07781", "ba1331c059e23dab", "c6a5d4871a5fd753")),
    ((3, 4, 50, 1), (3, 4, 50, 20), True, False, "float32",
     ("ea6d2b69ae4c2c8b", "2673d0566880a0a5", "d50e5e2970dd26b7")),
    ((2, 64, 129), (2, 65, 129), False, True, "float32",
     ("35b30f4c9a8e0ca7", "54ddcb1c1931a74c", "41dce3f3d7037800")),
    ((5, 1, 100), (5, 1, 100), False, True, "float32",
     ("c3b16feba84099d1", "3f26f7e5bf71355a", "cbef98343c18e841")),
    ((2, 129, 64), (2, 129, 65), True, False, "float64",
     ("b54f9a66097c6190", "7dd26dfb7de06f3b", "d2fcfafa2d00a905")),
    ((4, 7, 13), (13, 9), False, False, "float32",
     ("0612dfd06bc07dd4", "5ef7a6bcde9412e9", "8c35f3482633e826")),
]


def _digest(t):
    return hashlib.sha256(t.numpy().tobytes()).hexdigest()[:16]


@pytest.mark.parametrize("version", ["3", "2.6"])
@pytest.mark.parametrize("xs, ys, tx, ty, dtype, want", _CASES)
def test_batched_product_and_gradients_as_paddle_on_intel(version, xs, ys, tx, ty, dtype, want):
    from conftest import skip_unless_mkl_path
    from gradrepl.paddle import state

    skip_unless_mkl_path("Paddle's batched products on Intel (MKL's gemm_batch on one thread)")
    state.reset(version)
    import gradrepl.paddle as paddle

    try:
        rs = np.random.RandomState(sum(xs) * 100 + sum(ys))
        x = paddle.to_tensor(rs.randn(*xs).astype(dtype), stop_gradient=False)
        y = paddle.to_tensor(rs.randn(*ys).astype(dtype), stop_gradient=False)
        z = paddle.matmul(x, y, transpose_x=tx, transpose_y=ty)
        w = paddle.to_tensor(rs.randn(*z.shape).astype(dtype))
        (z * w).sum().backward()
        got = (_digest(z), _digest(x.grad), _digest(y.grad))
    finally:
        state.reset()
    assert got == want
