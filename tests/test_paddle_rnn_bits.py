"""Paddle's nn.LSTM / nn.GRU / nn.SimpleRNN on the CPU run one fused ``rnn`` op
(``gradrepl/engine/ops/paddle_rnn.py``): its forward and backward take the order of operations
of Paddle's kernels, so outputs and gradients have Paddle's last bits.

Every expected value here was printed by real Paddle 3.3.1 and 2.6.2 (the same bits from both)
on this project's AMD EPYC (Zen 4) machine: a sha256 (first 16 hex digits) over the float32
bytes of the named arrays, and a few values as Python floats.

- ``test_one_step_*`` needs no matrix-product order (one input feature, one time step, zero
  initial states: every sum it takes has one term or adds zeros), so it holds for every CPU
  class: it checks the bias additions, the gates' Eigen functors (8-wide packets from each row's
  start, ``expf`` on the row's tail: hidden size 10), the cell updates and the bias gradients.
- The others depend on how Paddle's MKL sums a product, which follows the CPU: the records are
  AMD's, so they run with ``GRADREPL_CPU_CLASS=amd`` (the rounded products added in order,
  emulated in numpy on any machine). Sizes are multiples of 8 with batch 8, where that rule is
  MKL's on AMD (other shapes: MKL's result there depends on the operands' alignment).
"""
from __future__ import annotations

import hashlib

import numpy as np
import pytest

import gradrepl.paddle as paddle
from gradrepl.engine import cpu
from gradrepl.engine.ops import paddle_rnn as R


def _digest(arrays):
    data = b"".join(np.ascontiguousarray(a).tobytes() for a in arrays)
    return hashlib.sha256(data).hexdigest()[:16]


# real Paddle 3.3.1 and 2.6.2 (AMD EPYC): name -> (digest, out[2, 0, 9], bias_hh_l0.grad[-1])
ONE_STEP = {
    "LSTM": ("f5c2d647eaf820c3", -0.03628602623939514, 0.005430394783616066),
    "GRU": ("70a5f5b21d32b1e2", 0.10704504698514938, -0.2899857759475708),
    "tanh": ("fdd2ad516d5493bd", 0.9449385404586792, 1.1396243572235107),
    "relu": ("363fdcc92cb85782", 2.864262342453003, 17.065486907958984),
}


def _one_step_results():
    rs = np.random.RandomState(5)
    out = {}
    for name, cls, kw in (("LSTM", paddle.nn.LSTM, {}), ("GRU", paddle.nn.GRU, {}),
                          ("tanh", paddle.nn.SimpleRNN, {}),
                          ("relu", paddle.nn.SimpleRNN, {"activation": "relu"})):
        m = cls(1, 10, **kw)
        for p in m.parameters():
            p.set_value(rs.standard_normal(p.shape).astype("float32"))
        x = paddle.to_tensor(rs.standard_normal((3, 1, 1)).astype("float32"))
        o, st = m(x)
        h = st[0] if name == "LSTM" else st
        g = paddle.to_tensor(rs.standard_normal((3, 1, 10)).astype("float32"))
        loss = (o * g).sum() + (h * h).sum()
        if name == "LSTM":
            loss = loss + (st[1] * 3.0).sum()
        loss.backward()
        parts = [o.numpy(), h.numpy()] + ([st[1].numpy()] if name == "LSTM" else []) + \
            [m.bias_ih_l0.grad.numpy(), m.bias_hh_l0.grad.numpy()]
        out[name] = (_digest(parts), float(o[2, 0, 9]), float(m.bias_hh_l0.grad[-1]))
    return out


@pytest.mark.parametrize("cls", ["intel-avx512", "amd"])
def test_one_step_bits_as_paddle_on_every_cpu_class(monkeypatch, cls):
    monkeypatch.setenv("GRADREPL_CPU_CLASS", cls)
    assert _one_step_results() == ONE_STEP


# real Paddle 3.3.1 and 2.6.2 (AMD EPYC): paddle.seed(7); 3-layer bidirectional, dropout 0.3,
# training: out, x.grad and every parameter's gradient; then paddle.rand([2]) (the generator's
# position after the kernel's dropout draws)
DROPOUT = {
    "LSTM": ("9226e60c8c6a2a51", [0.25472593, 0.17921343]),
    "GRU": ("07c1be5d9ad50935", [0.6121114, 0.40790498]),
    "SimpleRNN": ("483d95d4384b08d8", [0.6336992, 0.24733302]),
}


def test_three_layers_bidirectional_with_dropout_as_paddle_amd(monkeypatch):
    monkeypatch.setenv("GRADREPL_CPU_CLASS", "amd")
    paddle.seed(7)
    for cls in (paddle.nn.LSTM, paddle.nn.GRU, paddle.nn.SimpleRNN):
        m = cls(8, 16, num_layers=3, dropout=0.3, direction="bidirect")
        x = paddle.randn([8, 5, 8])
        x.stop_gradient = False
        o, _ = m(x)
        o.sum().backward()
        after = paddle.rand([2]).numpy()
        parts = [o.numpy(), x.grad.numpy()] + [p.grad.numpy() for p in m.parameters()]
        digest, rand = DROPOUT[cls.__name__]
        assert _digest(parts) == digest, cls.__name__
        assert after.tolist() == np.float32(rand).tolist()


# real Paddle 3.3.1 and 2.6.2 (AMD EPYC): paddle.seed(11); 2 layers, bidirectional, initial
# states and sequence_length [6, 3, 5, 6, 1, 2, 6, 4]; loss (out * out).sum(); out, x.grad,
# h0.grad and every parameter's gradient
SEQUENCE_LENGTH = {"LSTM": "00046ab91569815b", "GRU": "1d58fa99a4334108",
                   "SimpleRNN": "85441bbad42fd12a"}


def test_sequence_length_and_initial_states_as_paddle_amd(monkeypatch):
    monkeypatch.setenv("GRADREPL_CPU_CLASS", "amd")
    paddle.seed(11)
    for cls, kw in ((paddle.nn.LSTM, {}), (paddle.nn.GRU, {}),
                    (paddle.nn.SimpleRNN, {"activation": "relu"})):
        m = cls(16, 24, num_layers=2, direction="bidirect", **kw)
        x = paddle.randn([8, 6, 16])
        x.stop_gradient = False
        h0 = paddle.randn([4, 8, 24])
        h0.stop_gradient = False
        init = (h0, paddle.randn([4, 8, 24])) if cls is paddle.nn.LSTM else h0
        lens = paddle.to_tensor([6, 3, 5, 6, 1, 2, 6, 4])
        o, _ = m(x, init, lens)
        (o * o).sum().backward()
        parts = [o.numpy(), x.grad.numpy(), h0.grad.numpy()] + \
            [p.grad.numpy() for p in m.parameters()]
        assert _digest(parts) == SEQUENCE_LENGTH[cls.__name__], cls.__name__


def test_masked_steps_output_signed_zeros():
    # past a sequence's end the output is the cell's output times 0: -0. where it was negative
    # (real Paddle 3.3.1 printed the sign bits below and [0. , 0. , ..., -0., 0. , 0. , -0.])
    paddle.seed(3)
    m = paddle.nn.SimpleRNN(2, 8)
    o, _ = m(paddle.randn([1, 3, 2]), None, paddle.to_tensor([1]))
    tail = o.numpy()[0, 1:]
    assert (tail == 0).all()
    assert np.signbit(tail).astype(int).tolist() == [[1, 0, 0, 0, 1, 0, 0, 0],
                                                     [0, 0, 0, 0, 1, 0, 0, 1]]


def test_sigmoid_rows_restart_packets_per_row():
    # a row of 10: packets on 0..7, expf on 8..9; the flat kernel would cut at 16 of 20
    x = np.linspace(-3, 3, 20, dtype=np.float32).reshape(2, 10)
    rows = R._sigmoid_rows(x)
    one = np.float32(1)
    for r in range(2):
        head = one / (one + R.K.packet_exp(-x[r, :8]))
        tail = one / (one + R._scalar_exp(-x[r, 8:]))
        assert rows[r].tobytes() == np.concatenate([head, tail]).tobytes()


def test_column_sum_keeps_negative_zero():
    a = np.array([[-0.0, 1.0], [-0.0, 2.0], [-0.0, 3.0]], np.float32)
    s = R._colsum(a)
    assert np.signbit(s[0]) and s[1] == 6.0


def test_without_biases_the_layers_step_their_cells():
    # Paddle's could_use_cudnn is False without biases: no fused op, the Python cells run
    m = paddle.nn.GRU(3, 4, bias_ih_attr=False, bias_hh_attr=False)
    assert m._fused_weights() is None
    o, h = m(paddle.randn([2, 5, 3]))
    assert o.shape == [2, 5, 4] and h.shape == [1, 2, 4]
    assert paddle.nn.LSTM(3, 4)._fused_weights() is not None


def test_the_cpu_class_of_the_records():
    # (documents the choice above: products are emulated per class, whatever this machine is)
    assert cpu.CLASSES[2] == "amd"


def test_float64_default_dtype_weights_and_values():
    # real Paddle 3.3.1 printed these (paddle.seed(5), default dtype float64, bidirectional GRU)
    paddle.seed(5)
    paddle.set_default_dtype("float64")
    try:
        m = paddle.nn.GRU(4, 10, direction="bidirect")
        x = paddle.randn([3, 5, 4])
        x.stop_gradient = False
        o, _ = m(x)
        o.sum().backward()
        assert str(m.weight_hh_l0.dtype) == "paddle.float64"
        # (the values' line of the repr; the header's place differs by profile)
        assert str(o[0, 0, :5]).splitlines()[1] == \
            "       [ 0.10408287, -0.11923968, -0.08994706, -0.02544612, -0.23787313])"
        assert str(m.weight_hh_l0.grad[0, :5]).splitlines()[1] == \
            "       [-0.02553277,  0.09614541, -0.00743774, -0.08686670,  0.06616458])"
    finally:
        paddle.set_default_dtype("float32")


# d2l's concise RNN chapters, in their Paddle form: one-hot tokens into nn.SimpleRNN / nn.GRU /
# nn.LSTM (time_major), a Linear head, SGD with global-norm clipping, the state carried over
D2L_SCRIPT = '# d2l (Paddle) rnn-concise style: one-hot tokens, nn.SimpleRNN/GRU/LSTM(time_major=True), Linear head\nimport paddle, paddle.nn as nn, paddle.nn.functional as F\npaddle.seed(0)\nvocab, hid, T, B = 28, 32, 10, 8\nX = paddle.randint(0, vocab, [B, T]); Y = paddle.randint(0, vocab, [B, T])\nfor layer in (nn.SimpleRNN(vocab, hid, time_major=True), nn.GRU(vocab, hid, time_major=True), nn.LSTM(vocab, hid, time_major=True)):\n    head = nn.Linear(hid, vocab)\n    params = layer.parameters() + head.parameters()\n    opt = paddle.optimizer.SGD(learning_rate=1.0, parameters=params, grad_clip=nn.ClipGradByGlobalNorm(1.0))\n    state = None\n    for step in range(3):\n        x = F.one_hot(X.T, vocab)\n        out, state = layer(x, state)\n        if isinstance(state, tuple):\n            state = tuple(s.detach() for s in state)\n        else:\n            state = state.detach()\n        logits = head(out.reshape([-1, hid]))\n        loss = F.cross_entropy(logits, Y.T.reshape([-1]))\n        opt.clear_grad(); loss.backward(); opt.step()\n        print(type(layer).__name__, step, f"{float(loss):.6f}", f"{float(paddle.exp(loss)):.4f}")\n    print(out[0, 0, :4])\n'
# what real Paddle 3.3.1 (and 2.6.2, the same) printed on the AMD machine
D2L_REAL = 'SimpleRNN 0 3.387733 29.5988\nSimpleRNN 1 3.275754 26.4632\nSimpleRNN 2 3.203972 24.6302\nTensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=False,\n       [-0.11740275,  0.00895868,  0.14507815, -0.32718095])\nGRU 0 3.351833 28.5550\nGRU 1 3.305588 27.2646\nGRU 2 3.263649 26.1448\nTensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=False,\n       [-0.28058705, -0.06643786,  0.00262107, -0.29985327])\nLSTM 0 3.319321 27.6416\nLSTM 1 3.299695 27.1044\nLSTM 2 3.278238 26.5290\nTensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=False,\n       [ 0.13982642, -0.04594505,  0.08023825,  0.03395052])\n'


def test_d2l_style_training_prints_as_paddle_amd(tmp_path):
    import os
    import subprocess
    import sys

    path = tmp_path / "d2l_rnn.py"
    path.write_text(D2L_SCRIPT)
    env = dict(os.environ, GRADREPL_CPU_CLASS="amd")
    done = subprocess.run([sys.executable, "-m", "gradrepl", "run", "--paddle", "3", str(path)],
                          capture_output=True, text=True, timeout=240, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout == D2L_REAL


def test_backward_after_an_eval_forward_fails_as_paddle():
    # real Paddle 3.3.1: in eval mode the rnn kernel keeps no reserve; backward raises
    # RuntimeError: (PreconditionNotMet) Tensor holds no memory. Call Tensor::mutable_data ...
    m = paddle.nn.GRU(4, 8)
    m.eval()
    x = paddle.randn([2, 3, 4])
    x.stop_gradient = False
    o, _ = m(x)
    with pytest.raises(RuntimeError, match=r"\(PreconditionNotMet\) Tensor holds no memory"):
        o.sum().backward()
    with paddle.no_grad():
        assert m(x)[0].shape == [2, 3, 8]
