"""Paddle's recurrent layers as Paddle builds them: an RNN base is a LayerList of its layers
(``0``, ``1``, ...) that also holds its cells' parameters under the flat names of Paddle's fused
kernel (``weight_ih_l0``, ``bias_hh_l1_reverse``): the same tensors, so ``named_parameters``
lists the flat names, ``state_dict`` both, and the repr shows the layers. The expected outputs
were printed by real Paddle 3.3.1 (and 2.6.2, the same text) on this project's machine."""
from __future__ import annotations

import subprocess
import sys

import pytest

NAMES_SCRIPT = "import paddle, paddle.nn as nn\npaddle.seed(3)\nfor m in [nn.GRU(8, 4), nn.LSTM(8, 4, num_layers=2, direction='bidirect'), nn.SimpleRNN(3, 2)]:\n    print([n for n, _ in m.named_parameters()])\n    print(list(m.state_dict().keys()))\n    print(m)\n"
NAMES_REAL = "['weight_ih_l0', 'weight_hh_l0', 'bias_ih_l0', 'bias_hh_l0']\n['weight_ih_l0', 'weight_hh_l0', 'bias_ih_l0', 'bias_hh_l0', '0.cell.weight_ih', '0.cell.weight_hh', '0.cell.bias_ih', '0.cell.bias_hh']\nGRU(8, 4\n  (0): RNN(\n    (cell): GRUCell(8, 4)\n  )\n)\n['weight_ih_l0', 'weight_hh_l0', 'bias_ih_l0', 'bias_hh_l0', 'weight_ih_l0_reverse', 'weight_hh_l0_reverse', 'bias_ih_l0_reverse', 'bias_hh_l0_reverse', 'weight_ih_l1', 'weight_hh_l1', 'bias_ih_l1', 'bias_hh_l1', 'weight_ih_l1_reverse', 'weight_hh_l1_reverse', 'bias_ih_l1_reverse', 'bias_hh_l1_reverse']\n['weight_ih_l0', 'weight_hh_l0', 'bias_ih_l0', 'bias_hh_l0', 'weight_ih_l0_reverse', 'weight_hh_l0_reverse', 'bias_ih_l0_reverse', 'bias_hh_l0_reverse', 'weight_ih_l1', 'weight_hh_l1', 'bias_ih_l1', 'bias_hh_l1', 'weight_ih_l1_reverse', 'weight_hh_l1_reverse', 'bias_ih_l1_reverse', 'bias_hh_l1_reverse', '0.cell_fw.weight_ih', '0.cell_fw.weight_hh', '0.cell_fw.bias_ih', '0.cell_fw.bias_hh', '0.cell_bw.weight_ih', '0.cell_bw.weight_hh', '0.cell_bw.bias_ih', '0.cell_bw.bias_hh', '1.cell_fw.weight_ih', '1.cell_fw.weight_hh', '1.cell_fw.bias_ih', '1.cell_fw.bias_hh', '1.cell_bw.weight_ih', '1.cell_bw.weight_hh', '1.cell_bw.bias_ih', '1.cell_bw.bias_hh']\nLSTM(8, 4, num_layers=2\n  (0): BiRNN(\n    (cell_fw): LSTMCell(8, 4)\n    (cell_bw): LSTMCell(8, 4)\n  )\n  (1): BiRNN(\n    (cell_fw): LSTMCell(8, 4)\n    (cell_bw): LSTMCell(8, 4)\n  )\n)\n['weight_ih_l0', 'weight_hh_l0', 'bias_ih_l0', 'bias_hh_l0']\n['weight_ih_l0', 'weight_hh_l0', 'bias_ih_l0', 'bias_hh_l0', '0.cell.weight_ih', '0.cell.weight_hh', '0.cell.bias_ih', '0.cell.bias_hh']\nSimpleRNN(3, 2\n  (0): RNN(\n    (cell): SimpleRNNCell(3, 2)\n  )\n)\n"

USE_SCRIPT = 'import paddle, paddle.nn as nn\npaddle.seed(3)\nm = nn.LSTM(4, 3, num_layers=2)\nprint(m[0], m[-1], len(m))\nx = paddle.randn([2, 5, 4])\ny, (h, c) = m(x)\nprint(y.shape, h.shape)\nsd = m.state_dict()\nm2 = nn.LSTM(4, 3, num_layers=2)\nm2.set_state_dict(sd)\nprint(bool((m2(x)[0] == y).all()))\nprint(m.weight_ih_l1 is m[1].cell.weight_ih)\nopt = paddle.optimizer.SGD(0.1, parameters=m.parameters())\nprint(len(m.parameters()))\ny.sum().backward(); opt.step()\nprint(m.weight_ih_l0.grad is not None)\n'
USE_REAL = 'RNN(\n  (cell): LSTMCell(4, 3)\n) RNN(\n  (cell): LSTMCell(3, 3)\n) 2\npaddle.Size([2, 5, 3]) paddle.Size([2, 2, 3])\nTrue\nTrue\n8\nTrue\n'


def _run(tmp_path, text, profile="3"):
    path = tmp_path / "rnn.py"
    path.write_text(text)
    done = subprocess.run([sys.executable, "-m", "gradrepl", "run", "--paddle", profile,
                           str(path)], capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("profile", ["3", "2.6"])
def test_parameter_names_state_dict_and_repr_as_paddle(tmp_path, profile):
    assert _run(tmp_path, NAMES_SCRIPT, profile) == NAMES_REAL


def test_indexing_state_dict_round_trip_and_training(tmp_path):
    assert _run(tmp_path, USE_SCRIPT) == USE_REAL


def test_slicing_an_rnn_fails_as_in_paddle():
    import gradrepl.paddle as paddle

    lstm = paddle.nn.LSTM(4, 3, num_layers=2)
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'hidden_size'"):
        lstm[0:1]
    with pytest.raises(IndexError):
        lstm[2]
