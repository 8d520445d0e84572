"""Paddle's complex64/complex128 matmul on Intel: MKL's cblas_cgemm/zgemm (and ?gemm_batch) on
one thread, as its Blas::GEMM; numpy's BLAS summed otherwise in 15 of these 18 products. Found
by PM15A's round-15 Paddle Quantum scripts (state vectors U @ psi, Hamiltonians)."""
from __future__ import annotations

import hashlib

import numpy as np

SHAPES = [((4, 4), (4, 4)), ((4, 4), (4, 1)), ((2, 3), (3, 5)), ((8, 8), (8, 8)),
          ((1, 4), (4, 4)), ((5, 4, 4), (4, 1)), ((3, 16, 7), (3, 7, 9)), ((2, 2), (2, 2)),
          ((1, 4), (4, 1))]
# md5 (first 12 hex) of paddle.matmul(a, b).numpy() in real 3.3.1 and 2.6.2 here (identical), for
# complex64 then complex128 over SHAPES, a and b drawn in this order from default_rng(1) as
# standard_normal(shape) + 1j * standard_normal(shape)
REAL = ['92050121d379', 'e0132de667ba', 'be2f5f51a63b', '76e6cdeda772', '9b1a7a192149',
        'f04519c6416a', 'fa2ef602fa19', 'd6e5da891a27', 'd4d29d0208b7', 'd96900ed95da',
        'df82159a52a6', '75dedb455902', '4ec6afb6e21a', '33d65754e2b0', '2b3b174ab6d5',
        'f09681331a6d', 'ddd8a82f5787', '87d4b1ca72f7']


def test_complex_matmul_as_mkl(version):
    from conftest import skip_unless_mkl_path

    skip_unless_mkl_path("complex matmul digests (MKL's cgemm/zgemm)")
    import gradrepl.paddle as paddle

    rng = np.random.default_rng(1)
    got = []
    for dt in ("complex64", "complex128"):
        for sa, sb in SHAPES:
            a = rng.standard_normal(sa) + 1j * rng.standard_normal(sa)
            b = rng.standard_normal(sb) + 1j * rng.standard_normal(sb)
            out = paddle.matmul(paddle.to_tensor(a, dtype=dt), paddle.to_tensor(b, dtype=dt))
            got.append(hashlib.md5(out.numpy().tobytes()).hexdigest()[:12])
    assert got == REAL
