"""Tensor.new_empty/new_zeros/new_ones/new_full (Paddle 3.x; AttributeError under 2.x, as real
2.6.2), from the docstring examples of Paddle 3.3.1."""
import numpy as np
import pytest

import gradrepl.paddle as paddle


@pytest.fixture
def p3():
    paddle.profiles.set_profile("3")
    yield
    paddle.profiles.set_profile("2.2")


def test_new_tensors_take_this_tensors_dtype(p3):
    x = paddle.ones([2, 2], dtype="float64")
    assert list(x.new_empty(3, 3).shape) == [3, 3]
    assert x.new_zeros([2, 3]).dtype == paddle.float64
    np.testing.assert_array_equal(x.new_ones(3, 3).numpy(), np.ones((3, 3)))
    full = x.new_full([3, 3], 5.0, dtype="float32")
    assert full.dtype == paddle.float32 and (full.numpy() == 5).all()
    assert full.stop_gradient and not x.new_ones(2, requires_grad=True).stop_gradient


def test_new_tensors_are_3x_only():
    paddle.profiles.set_profile("2.6")
    try:
        with pytest.raises(AttributeError, match="has no attribute 'new_full'"):
            paddle.ones([1]).new_full([2], 1.0)
    finally:
        paddle.profiles.set_profile("2.2")
