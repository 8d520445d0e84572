"""Paddle's log_softmax along another axis than the last (gradrepl/engine/ops/nn.py
``_broadcast_log``): its Eigen expression takes the log of the (batch, remain) sums while
broadcasting them over the output, so a value's log is Eigen's vectorised one or the C
library's ``logf`` by where its output packet falls. Before, ``logf`` for all: the forward (and
so the gradient) differed in the last bit in the 3 non-last-axis cases below (the sweep of
issue 28: 6 of 6 along axis 0).

Recorded from real Paddle 3.3.1 and 2.6.2 (equal) on this project's Intel Sapphire Rapids
machine, 2026-12-07 (Eigen's kernels, not MKL's): x and the weights w from
``np.random.RandomState(sum(shape) + axis).randn``, x * 3; y = F.log_softmax(x, axis),
(y * w).sum().backward(); sha256 of y and x.grad, first 16 hex digits.
"""
from __future__ import annotations

import hashlib

import numpy as np
import pytest

_CASES = [((8, 1000), 0, ("134f8888990ac1b6", "8d84f7e9c1326b3e")),
          ((5, 4, 6), 0, ("336ee43b1656130f", "dde350fe26dca5b1")),
          ((3, 7, 33), 1, ("d5179511d9ce651e", "1e2010fe5a7d8b32")),
          ((6, 9), -1, ("eb53b60f1861ea5c", "9992ec292fed2728"))]


def _digest(t):
    return hashlib.sha256(t.numpy().tobytes()).hexdigest()[:16]


@pytest.mark.parametrize("version", ["3", "2.6"])
@pytest.mark.parametrize("shape, axis, want", _CASES)
def test_log_softmax_along_an_axis_as_paddle(version, shape, axis, want):
    from gradrepl.paddle import state

    state.reset(version)
    import gradrepl.paddle as paddle

    try:
        rs = np.random.RandomState(sum(shape) + axis)
        x = paddle.to_tensor((rs.randn(*shape) * 3).astype("float32"), stop_gradient=False)
        y = paddle.nn.functional.log_softmax(x, axis=axis)
        w = paddle.to_tensor(rs.randn(*shape).astype("float32"))
        (y * w).sum().backward()
        got = (_digest(y), _digest(x.grad))
    finally:
        state.reset()
    assert got == want
