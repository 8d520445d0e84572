"""Round seven of unseen Paddle lectures (helper P7FIX): what the measure-only round found.

* a Python ``range`` as a tensor index, read and written (Paddle's parse_index turns it into a
  list), as in d2l's ``bilinear_kernel`` (``weight[range(c), range(c), :, :] = filt``);

Literals were printed by real Paddle 3.3.1 (/work/vpaddle) and 2.6.2 (/work/vpaddle26) in this
session; no real Paddle is imported here.
"""
from __future__ import annotations

import numpy as np
import pytest


# ================================================================ range as an index
def test_range_index_reads(profile):
    import gradrepl.paddle as paddle

    x = paddle.arange(24, dtype="float32").reshape([2, 3, 4])
    # recorded from real 3.3.1 and 2.6.2 (same on both)
    assert x[:, range(0, 3, 2), range(1, 3)].numpy().tolist() == [[1.0, 10.0], [13.0, 22.0]]
    assert list(x[range(1, -1, -1)].shape) == [2, 3, 4]
    assert list(x[range(0)].shape) == [0, 3, 4]
    assert x[..., range(3, 0, -1)].numpy()[1].tolist() == [[15.0, 14.0, 13.0],
                                                           [19.0, 18.0, 17.0],
                                                           [23.0, 22.0, 21.0]]
    np.testing.assert_array_equal(x[range(1, 2)].numpy(), x.numpy()[[1]])


def test_range_index_writes_and_gradients(profile):
    import gradrepl.paddle as paddle

    w = paddle.zeros([3, 3, 2, 2])
    w[range(3), range(3), :, :] = paddle.to_tensor([[1., 2.], [3., 4.]])
    assert w.sum().item() == 30.0
    assert w[1, 1].numpy().tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert w[0, 1].numpy().tolist() == [[0.0, 0.0], [0.0, 0.0]]
    a = paddle.to_tensor([1., 2., 3., 4.], stop_gradient=False)
    y = a * 1.0
    y[range(1, 3)] = 0.0
    (y * paddle.to_tensor([1., 2., 3., 4.])).sum().backward()
    assert y.numpy().tolist() == [1.0, 0.0, 0.0, 4.0]
    assert a.grad.numpy().tolist() == [1.0, 0.0, 0.0, 4.0]
    b = paddle.to_tensor([1., 2., 3., 4.], stop_gradient=False)
    (b[range(3)] * b[range(1, 4)]).sum().backward()
    assert b.grad.numpy().tolist() == [2.0, 4.0, 6.0, 3.0]
