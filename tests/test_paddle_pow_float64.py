"""Paddle's float64 ``pow`` op (``x ** factor``): Eigen's packet generic_pow on 4-wide packets,
the tail by the C library's pow, with the factor the op's float32 attribute (engine/ops/
_eigen_pow64.py); was glibc's pow on every value with the factor as a double. Found by PM14B
through a float64 svd gradient (pow(F, -1)). Digests (uint64 view summed mod 1000003) printed
by real Paddle 3.3.1 and 2.6.2 on this machine (they differ where 2.6.2's abs()+0.1 does)."""
import numpy as np
import pytest

import gradrepl.paddle as paddle

REAL = {"3": [240961, 520011, 677576, 246166, 703345, 350786, 369251, 523323],
        "2.6": [240961, 520011, 822225, 16118, 922559, 350786, 369251, 363362]}


def test_float64_pow_and_its_gradient_equal_real_paddle(version):
    rng = np.random.RandomState(3)
    x = paddle.to_tensor(rng.randn(1003) * 5, stop_gradient=False)
    out = []
    for f in [-1.0, 2.0, 0.5, 1.7, -2.5, 3.0]:
        y = paddle.pow(x.abs() + 0.1, f) if f in (0.5, 1.7, -2.5) else paddle.pow(x, f)
        out.append(int(y.numpy().view("uint64").sum() % 1000003))
    (x ** 2.0).sum().backward()
    out.append(int(x.grad.numpy().view("uint64").sum() % 1000003))
    x.clear_grad()
    paddle.pow(x.abs() + 0.1, 1.7).sum().backward()
    out.append(int(x.grad.numpy().view("uint64").sum() % 1000003))
    assert out == REAL[version]
