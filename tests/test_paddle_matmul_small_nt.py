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


REAL_CONV = """plain 1 2 1 412869 388000 450606
wn 1 2 1 409521 655401 291591
plain 1 0 1 693548 408238 220087
wn 1 0 1 694554 315371 567697
plain 2 2 1 527392 741043 573753
wn 2 2 1 522694 651850 392654
plain 1 4 2 181265 940624 191071
wn 1 4 2 178431 672957 647603"""


def test_conv1d_filter_gradient_of_one_input_channel():
    """A Conv1D of one input channel (PM14B's TCN script: its weight_norm'd first layer): each
    sample's dW += dy @ cols^T is an 8 x L times (3 x L)^T product, summed as one chain."""
    from conftest import skip_unless_mkl_path

    skip_unless_mkl_path("Paddle's conv filter gradient on Intel (the wheel's MKL)")
    import gradrepl.paddle.nn as nn
    from gradrepl.paddle.nn.utils import weight_norm

    def dig(t):
        return int(t.numpy().view(np.uint32).sum() % 1000003)

    rng = np.random.RandomState(0)
    rng.randn(50, 1, 24)
    lines = []
    for cin, pad, dil in [(1, 2, 1), (1, 0, 1), (2, 2, 1), (1, 4, 2)]:
        xx = paddle.to_tensor(rng.randn(50, cin, 24).astype("float32"))
        paddle.seed(1)
        c = nn.Conv1D(cin, 8, 3, padding=pad, dilation=dil)
        y = c(xx)
        g = paddle.to_tensor(rng.randn(*y.shape).astype("float32"))
        (y * g).sum().backward()
        lines.append(f"plain {cin} {pad} {dil} {dig(y)} {dig(c.weight.grad)} {dig(c.bias.grad)}")
        paddle.seed(1)
        c = weight_norm(nn.Conv1D(cin, 8, 3, padding=pad, dilation=dil))
        y = c(xx)
        (y * g).sum().backward()
        lines.append(f"wn {cin} {pad} {dil} {dig(y)} {dig(c.weight_v.grad)} "
                     f"{dig(c.weight_g.grad)}")
    assert "\n".join(lines) == REAL_CONV     # real 3.3.1 (cin = 2 was equal before)


def test_batched_small_nt_products_equal_real_paddle():
    """The batched x @ y^T (Paddle's batched sgemm) sums each product as the 2-D one does
    (found through the batched svd gradient's Vh term)."""
    from conftest import skip_unless_mkl_path

    skip_unless_mkl_path("Paddle's float32 batched products on Intel (the wheel's MKL)")
    rng = np.random.RandomState(9)
    out = []
    for B, m, k, n in [(2, 3, 3, 3), (3, 6, 17, 2), (2, 9, 60, 3), (4, 2, 5, 2), (2, 5, 7, 4)]:
        a = paddle.to_tensor(rng.randn(B, m, k).astype("float32"))
        b = paddle.to_tensor(rng.randn(B, n, k).astype("float32"))
        out.append(int(paddle.matmul(a, b, transpose_y=True).numpy().view("uint32").sum()
                       % 1000003))
    x = paddle.to_tensor(rng.randn(2, 3, 3).astype("float32"), stop_gradient=False)
    y = paddle.to_tensor(rng.randn(2, 3, 3).astype("float32"), stop_gradient=False)
    (paddle.matmul(x, y) * paddle.to_tensor(rng.randn(2, 3, 3).astype("float32"))).sum().backward()
    out.append(int(x.grad.numpy().view("uint32").sum() % 1000003))
    assert out == [449365, 642782, 150584, 157427, 73005, 177301]   # real 3.3.1 and 2.6.2
