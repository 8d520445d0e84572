"""hardshrink's zeros keep the framework's sign: Paddle multiplies by the mask (-0. for a small
negative x), torch selects 0 (+0.). Recorded from real Paddle 3.3.1 and 2.6.2 and real torch 2.13
on this machine: for x = [-0.3, 0.2, -1.0, 0.7], Paddle's signbits [True, False, True, False],
torch's [False, False, True, False]."""
from __future__ import annotations

import numpy as np
import pytest

from gradrepl.paddle import profiles


@pytest.mark.parametrize("key", ["3", "2.6"])
def test_paddle_hardshrink_negative_zero(key):
    profiles.set_profile(key)
    import gradrepl.paddle as paddle

    y = paddle.nn.functional.hardshrink(paddle.to_tensor([-0.3, 0.2, -1.0, 0.7])).numpy()
    assert np.signbit(y).tolist() == [True, False, True, False]
    np.testing.assert_array_equal(y, np.array([0.0, 0.0, -1.0, 0.7], np.float32))


def test_torch_hardshrink_positive_zero():
    import gradrepl.torch as torch

    x = torch.tensor([-0.3, 0.2, -1.0, 0.7], requires_grad=True)
    y = torch.nn.functional.hardshrink(x)
    assert np.signbit(y.detach().numpy()).tolist() == [False, False, True, False]
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 1.0, 1.0]
