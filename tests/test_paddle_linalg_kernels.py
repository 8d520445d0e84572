"""Paddle's CPU linalg kernels bit for bit (PSWEEP3, issue 28): each expectation is a digest of
what real Paddle 3.3.1 (/work/vpaddle) and 2.6.2 (/work/vpaddle26) computed on this machine for
the same inputs (both versions printed the same digests unless a test says otherwise)."""
import hashlib

import numpy as np

import gradrepl.paddle as paddle


def _h(t):
    return hashlib.sha256(np.ascontiguousarray(t.numpy()).tobytes()).hexdigest()[:16]


def test_float64_det_inverse_solve_are_eigens_unblocked_lu(version):
    # Paddle's det, inverse and solve are Eigen's PartialPivLU in float64 as in float32 (plain
    # multiply and subtract, no fused steps): numpy's LAPACK differed in last bits
    rng = np.random.default_rng(5)
    a = rng.standard_normal((2, 5, 5)) + 2 * np.eye(5)
    b = rng.standard_normal((2, 5, 3))
    w = rng.standard_normal((2,))
    x = paddle.to_tensor(a, stop_gradient=False)
    d = paddle.linalg.det(x)
    inv = paddle.linalg.inv(x)
    s = paddle.linalg.solve(x, paddle.to_tensor(b))
    (d * paddle.to_tensor(w)).sum().backward()
    assert (_h(d), _h(x.grad), _h(inv), _h(s)) == (
        "7eb0271041e8b4ee", "e8517d1f73d1e14e", "2b9a1560d20e1a7d", "04a3dea5004da690")
