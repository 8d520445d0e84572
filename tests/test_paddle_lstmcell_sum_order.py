"""Paddle's nn.LSTMCell sums its gates as ((x W_ih^T + b_ih) + h W_hh^T) + b_hh (paddle/nn/layer/
rnn.py, 3.3.1 and 2.6.2 alike); gradrepl added (x W_ih^T + b_ih) + (h W_hh^T + b_hh), as
SimpleRNNCell and GRUCell do. Equal while h is zero; from the second step on, gates, h and c
were off in the last bits (Ng C5W3 date translation's post-attention LSTMCell, PM17B s11:
every training loss after the first moved).

Recorded from real Paddle 3.3.1 and 2.6.2 (equal) on this project's Intel Sapphire Rapids
machine, 2026-12-07: the steps below; sha256 of the stacked outputs, the last c, x.grad,
weight_hh.grad and bias_hh.grad, first 16 hex digits. The tree before this change gave
9b0ad24350d8767b 416de0be93ada0db b025dc29da40d59d 62ce9924c2e7feee 5e9de4281a12279f.
The products are MKL's sgemm where MKL takes its AVX512_E1 path: compared only there.
"""
from __future__ import annotations

import hashlib

import numpy as np
import pytest

from conftest import skip_unless_mkl_path

_WANT = ("d6d23e4f018c4734", "6513e0f4de9846ed", "c88dfa441be8049f", "3c32a44e40fb3888",
         "1acffd9d69737fd7")


def _digest(t):
    return hashlib.sha256(t.numpy().tobytes()).hexdigest()[:16]


@pytest.mark.parametrize("version", ["3", "2.6"])
def test_lstmcell_steps_as_paddle(version):
    skip_unless_mkl_path("Paddle LSTMCell steps (matmul by MKL's sgemm on Intel)")
    from gradrepl.paddle import state

    state.reset(version)
    import gradrepl.paddle as paddle

    try:
        paddle.seed(5)
        cell = paddle.nn.LSTMCell(7, 13)
        rs = np.random.RandomState(0)
        x = paddle.to_tensor(rs.randn(4, 5, 7).astype("float32"), stop_gradient=False)
        h = paddle.to_tensor(rs.randn(4, 13).astype("float32"))
        c = paddle.to_tensor(rs.randn(4, 13).astype("float32"))
        outs = []
        for t in range(5):
            y, (h, c) = cell(x[:, t], (h, c))
            outs.append(y)
        out = paddle.stack(outs, 1)
        (out * paddle.to_tensor(rs.randn(4, 5, 13).astype("float32"))).sum().backward()
        got = (_digest(out), _digest(c), _digest(x.grad), _digest(cell.weight_hh.grad),
               _digest(cell.bias_hh.grad))
    finally:
        state.reset()
    assert got == _WANT
