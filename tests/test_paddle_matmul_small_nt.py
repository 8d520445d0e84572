"""Paddle's float32 x @ y^T with 2 or 3 rows of y on Intel: the wheel's MKL (libmklml) sums each
element as one fused chain over k (up to k ~ 23 m), where the MKL gradrepl loads gives other
last bits below 32 outputs (engine/ops/linalg.py ``_mkl_gemm``). Found by PM14B's round-14
linalg script: the gradient of x @ y (G @ y^T, 3 x 3) was one bit off in 3 of 9 values.
Digests printed by real Paddle 3.3.1 and 2.6.2 (equal) on this project's Intel AVX-512 machine
(the values of ``matmul(a, b, transpose_y=True)`` as uint32, summed mod 1000003)."""
import numpy as np

import gradrepl.paddle as paddle

REAL = [522571, 910520, 626955, 591542, 498692, 21635, 838171, 714195, 364041, 21182]


def test_small_nt_products_and_a_gradient_equal_real_paddle():
    from conftest import skip_unless_mkl_path

    skip_unless_mkl_path("Paddle's float32 products on Intel (the wheel's MKL)")
    rng = np.random.RandomState(8)
    out = []
    for m, k, n in [(3, 3, 3), (2, 5, 2), (4, 17, 3), (9, 100, 2), (10, 200, 3), (15, 64, 2),
                    (2, 2, 3), (2, 64, 2), (11, 17, 3)]:
        a = paddle.to_tensor(rng.randn(m, k).astype("float32"))
        b = paddle.to_tensor(rng.randn(n, k).astype("float32"))
        out.append(int(paddle.matmul(a, b, transpose_y=True).numpy().view("uint32").sum()
                       % 1000003))
    x = paddle.to_tensor(rng.randn(3, 3).astype("float32"), stop_gradient=False)
    y = paddle.to_tensor(rng.randn(3, 3).astype("float32"), stop_gradient=False)
    (x @ y * paddle.to_tensor(rng.randn(3, 3).astype("float32"))).sum().backward()
    out.append(int(x.grad.numpy().view("uint32").sum() % 1000003))
    assert out == REAL
