"""paddle.einsum of complex operands: each operand's gradient is einsum(dout, conj(other)) (the
engine's einsum VJP took no conjugate: the gradients of a two-qubit state built by
einsum('ij,kl->ikjl', ...) were the wrong numbers). Found by PM15A's round-15 Paddle Quantum
extras. Values compared (the last bits of a complex einsum's sums are not yet Paddle's)."""
from __future__ import annotations

import numpy as np

# printed by real Paddle 3.3.1 (2.6.2 the same to these digits): a.grad, b.grad of
# real((einsum('ij,kl->ikjl', a, b) * w).sum()), w = arange(16).reshape(2,2,2,2) * (0.1+0.05j)
REAL_A = [[-0.32500002 - 0.4j, -0.17500001 - 0.50000006j], [0.27500004 - 0.8j, 0.4249999 - 0.9j]]
REAL_B = [[2.08 - 1.09j, 2.365 - 1.395j], [3.22 - 2.31j, 3.505 - 2.615j]]


def test_complex_einsum_gradients_conjugate(version):
    import gradrepl.paddle as paddle

    a = paddle.to_tensor(np.array([[1 + 2j, 0.5 - 1j], [0.3j, 2]]), dtype="complex64",
                         stop_gradient=False)
    b = paddle.to_tensor(np.array([[0.2 - 1j, 1], [1j, -0.4 + 0.1j]]), dtype="complex64",
                         stop_gradient=False)
    w = paddle.to_tensor(np.arange(16).reshape(2, 2, 2, 2) * (0.1 + 0.05j), dtype="complex64")
    paddle.real((paddle.einsum("ij,kl->ikjl", a, b) * w).sum()).backward()
    np.testing.assert_allclose(a.grad.numpy(), np.array(REAL_A), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(b.grad.numpy(), np.array(REAL_B), rtol=1e-6, atol=1e-6)


def test_complex_einsum_gradient_bits_as_mkl(version):
    """On Intel with MKL the two-operand complex einsum and its gradients are MKL's cgemm, as
    Paddle's kernel (the records above, byte for byte)."""
    from conftest import skip_unless_mkl_path

    skip_unless_mkl_path("complex einsum gradient bits (MKL's cgemm)")
    import gradrepl.paddle as paddle

    a = paddle.to_tensor(np.array([[1 + 2j, 0.5 - 1j], [0.3j, 2]]), dtype="complex64",
                         stop_gradient=False)
    b = paddle.to_tensor(np.array([[0.2 - 1j, 1], [1j, -0.4 + 0.1j]]), dtype="complex64",
                         stop_gradient=False)
    w = paddle.to_tensor(np.arange(16).reshape(2, 2, 2, 2) * (0.1 + 0.05j), dtype="complex64")
    paddle.real((paddle.einsum("ij,kl->ikjl", a, b) * w).sum()).backward()
    assert a.grad.numpy().tobytes() == np.array(REAL_A, np.complex64).tobytes()
    assert b.grad.numpy().tobytes() == np.array(REAL_B, np.complex64).tobytes()
