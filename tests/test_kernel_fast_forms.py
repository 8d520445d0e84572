"""Fast forms of kernels against their plain forms, bit for bit: ``avx_sum`` (Paddle's
vec_sum<float, avx>, used by the last-axis softmax) against a replay of its eight lane
accumulators; relu's forward against numpy's maximum with a scalar."""
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


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("shape", [(3, 16), (2, 3, 40), (300,), (5,), (4, 7)])
def test_relu_forward_matches_maximum_with_a_scalar(shape, dtype):
    """relu's forward (a row of zeros broadcast, for speed) gives the bits of np.maximum(x, 0),
    signed zeros, infinities and nan payloads included."""
    from gradrepl.engine.ops.math import _relu_fwd
    rng = np.random.default_rng(len(shape))
    x = rng.standard_normal(shape).astype(dtype)
    flat = x.reshape(-1)
    special = np.array([-0.0, 0.0, np.nan, -np.nan, np.inf, -np.inf], dtype)
    flat[: min(flat.size, 6)] = special[: min(flat.size, 6)]
    got, want = _relu_fwd(x), np.maximum(x, 0).astype(dtype)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == want.tobytes()
