"""``avx_sum`` (Paddle's vec_sum<float, avx>, used by the last-axis softmax) against a plain
replay of its eight lane accumulators, for every layout the fast forms take."""
from __future__ import annotations

import numpy as np
import pytest

from gradrepl.engine.ops.nn import avx_sum


def _reference(row):
    """One row, as the AVX code adds it: lanes, the hadd/permute/hadd fold, then the tail."""
    f = np.float32
    n = row.size
    if n < 8:
        s = row[0]
        for v in row[1:]:
            s = f(s + v)
        return s
    end = n - n % 8
    lanes = [f(f(0) + row[j]) for j in range(8)]
    for i in range(8, end, 8):
        lanes = [f(lanes[j] + row[i + j]) for j in range(8)]
    h = [f(lanes[2 * j] + lanes[2 * j + 1]) for j in range(4)]
    s = f(f(h[0] + h[2]) + f(h[1] + h[3]))
    for v in row[end:]:
        s = f(s + v)
    return s


@pytest.mark.parametrize("shape", [(5,), (8,), (13,), (4, 3), (4, 8), (6, 10), (3, 17), (5, 32),
                                   (4, 33), (3, 100), (2, 3, 24), (2, 2, 41), (1, 1000)])
def test_avx_sum_equals_the_lane_replay(shape):
    rng = np.random.default_rng(sum(shape))
    x = (rng.standard_normal(shape) * 10.0 ** rng.integers(-4, 5, shape)).astype(np.float32)
    x.reshape(-1)[:2] = -0.0
    got = avx_sum(x)
    rows = x.reshape(-1, shape[-1])
    want = np.array([_reference(r) for r in rows], np.float32).reshape(shape[:-1] + (1,))
    assert got.shape == want.shape and got.dtype == np.float32
    assert (got.view(np.uint32) == want.view(np.uint32)).all()


def test_avx_sum_does_not_write_its_input():
    x = np.arange(40, dtype=np.float32).reshape(2, 20)
    before = x.copy()
    avx_sum(x)
    assert (x == before).all()
