"""Last-digit regressions found by tools/compare_with_paddle.py, one test per fixed op.

Inputs come from a seeded numpy generator; the expected values were printed by real Paddle
(3.3.1 and 2.6.2 agree on all of them) with the same inputs.
"""
from __future__ import annotations

import numpy as np

import gradrepl.paddle as paddle


def leaf(a):
    return paddle.to_tensor(a, stop_gradient=False)


def test_broadcast_gradients_add_row_major_but_expand_first_axis_fastest():
    """Elementwise grads sum the broadcast elements one by one, last reduced axis fastest;
    expand / broadcast_to grads one by one, first reduced axis fastest."""
    rng = np.random.default_rng(123)
    g = rng.standard_normal((7, 300, 5)).astype("float32")
    x = leaf(np.zeros((7, 300, 5), "float32"))
    y = leaf(np.zeros((1, 300, 1), "float32"))
    (x + y).backward(paddle.to_tensor(g))
    assert y.grad.numpy().ravel()[:6].tolist() == [
        -5.913759231567383, -4.82102108001709, 5.220630645751953, 1.3018591403961182,
        10.654430389404297, -5.462024688720703]
    z = leaf(np.zeros((1, 300, 1), "float32"))
    paddle.expand(z, [7, 300, 5]).backward(paddle.to_tensor(g))
    assert z.grad.numpy().ravel()[:6].tolist() == [
        -5.913759708404541, -4.821021556854248, 5.2206315994262695, 1.3018591403961182,
        10.654430389404297, -5.462027072906494]
    g2 = rng.standard_normal((3, 2000)).astype("float32")
    w = leaf(np.zeros((1,), "float32"))
    (paddle.to_tensor(np.zeros((3, 2000), "float32")) + w).backward(paddle.to_tensor(g2))
    assert w.grad.numpy().tolist() == [102.25865936279297]
