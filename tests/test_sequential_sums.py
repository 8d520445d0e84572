"""The one-at-a-time sums behind broadcast gradients and reductions keep their order when they
use numpy's row reduction (checked against an explicit loop, bit for bit)."""
import numpy as np
import pytest

from gradrepl.engine.ops.broadcast import _sequential_sum
from gradrepl.engine.ops.reduce import _seq


def _loop(blocks, op):
    acc = blocks[0].copy()
    for row in blocks[1:]:
        acc = op(acc, row).astype(blocks.dtype)
    return acc


@pytest.mark.parametrize("shape", [(1000,), (1000, 1), (257, 2), (300, 3, 5), (64, 256)])
@pytest.mark.parametrize("op", [np.add, np.multiply])
def test_row_reduction_is_sequential(shape, op):
    rng = np.random.default_rng(len(shape) * 7 + shape[0])
    if op is np.add:
        blocks = (rng.standard_normal(shape) * rng.uniform(0, 1e4, shape)).astype(np.float32)
    else:
        blocks = rng.uniform(0.9, 1.1, shape).astype(np.float32)
    assert _seq(blocks, op).tobytes() == _loop(blocks, op).tobytes()


@pytest.mark.parametrize("shape,axes", [((256, 10), (0,)), ((256, 1), (0,)), ((4, 300, 3), (0, 1)),
                                        ((500,), (0,))])
def test_broadcast_gradient_sum_is_sequential(shape, axes):
    rng = np.random.default_rng(3)
    x = (rng.standard_normal(shape) * rng.uniform(0, 1e4, shape)).astype(np.float32)
    rest = [i for i in range(x.ndim) if i not in axes]
    blocks = np.transpose(x, list(axes) + rest).reshape((-1,) + tuple(x.shape[i] for i in rest))
    assert _sequential_sum(x, axes, False).tobytes() == _loop(blocks, np.add).tobytes()


@pytest.mark.parametrize("shape", [(256, 10), (256, 256), (3, 2), (1000, 7)])
def test_bias_gradient_sum_to_is_sequential(shape):
    """``sum_to`` of a (batch, n) gradient to (n,) (its short path) adds the rows in order."""
    from gradrepl.engine.ops.broadcast import _sum_to_fwd

    rng = np.random.default_rng(shape[0])
    x = (rng.standard_normal(shape) * rng.uniform(0, 1e4, shape)).astype(np.float32)
    got = _sum_to_fwd(x, (shape[1],))
    assert got.shape == (shape[1],) and got.tobytes() == _loop(x, np.add).tobytes()
    assert _sum_to_fwd(x, (1, shape[1])).tobytes() == got.tobytes()  # the general path agrees
