"""paddle.dot adds the rounded products one after another (Paddle's CPU dot kernel is a plain
loop, not fused) on every CPU class, float32 and float64, 1-D and row by row. Digest printed by
real Paddle 3.3.1 and 2.6.2 (the same bytes) on the Intel Sapphire Rapids machine of this stop
(/tmp script, not committed); numpy's pairwise sum, used on Intel before, gave other last bits
(33 random vectors: 14 of 33 float32, 13 of 33 float64 equal)."""
from __future__ import annotations

import hashlib

import numpy as np
import pytest


@pytest.fixture
def paddle(profile):  # conftest's profile: Paddle 3 and 2.6
    import gradrepl.paddle as p

    return p


def test_dot_sums_in_order(paddle):
    rng = np.random.RandomState(7)
    h = hashlib.sha256()
    for dt in ["float32", "float64"]:
        for n in [1, 2, 3, 7, 8, 9, 16, 31, 64, 100, 257, 1000]:
            x, y = rng.randn(n).astype(dt), rng.randn(n).astype(dt)
            h.update(paddle.dot(paddle.to_tensor(x), paddle.to_tensor(y)).numpy().tobytes())
            xs, ys = rng.randn(3, n).astype(dt), rng.randn(3, n).astype(dt)
            h.update(paddle.dot(paddle.to_tensor(xs), paddle.to_tensor(ys)).numpy().tobytes())
    assert h.hexdigest() == "538336f8d63f77f55b82a330407dd3a8dd20ca3f1fcb8af9fa1d0699d83ccc89"
    x = paddle.to_tensor(np.linspace(-1, 1, 32).astype("float32") ** 3)
    y = paddle.to_tensor(np.cos(np.arange(32)).astype("float32"))
    assert paddle.dot(x, y).item() == -0.4201873540878296
