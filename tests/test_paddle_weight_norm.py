"""``paddle.nn.utils.weight_norm`` / ``remove_weight_norm`` (gradrepl/paddle/nn/weight_norm.py):
the script below printed these bytes under real Paddle 3.3.1 on this project's Intel machine,
2026-12-07 (real 2.6.2 the same but ``[4, 3]`` for ``paddle.Size([4, 3])``): Linear (dim 0),
Conv2D (dim 1), Conv1D (dim None), three Adam steps, the removal, the random stream after the
parameters the hook makes, and the error for a second hook."""
from __future__ import annotations

import pytest
from conftest import skip_unless_mkl_path

_SCRIPT = 'paddle.seed(17)\nlin = nn.utils.weight_norm(nn.Linear(4, 3))\nprint([n for n, _ in lin.named_parameters()])\nprint(lin.weight_g, lin.weight_v.shape)\nprint(lin(paddle.ones([1, 4])))\nconv = nn.Conv2D(2, 3, 3)\nconv = nn.utils.weight_norm(conv, dim=1)\nprint(conv.weight_g)\nx = paddle.randn([2, 2, 5, 5])\ny = conv(x)\nprint(y.sum())\nc2 = nn.utils.weight_norm(nn.Conv1D(3, 4, 2), dim=None)\nprint(c2.weight_g, c2(paddle.randn([1, 3, 6])).mean())\nopt = paddle.optimizer.Adam(0.1, parameters=lin.parameters())\nfor i in range(3):\n    loss = (lin(paddle.randn([5, 4])) ** 2).mean()\n    loss.backward(); opt.step(); opt.clear_grad()\n    print(i, loss.item())\nprint(lin.weight_g.grad, lin.weight)\nnn.utils.remove_weight_norm(lin)\nprint([n for n, _ in lin.named_parameters()], lin.weight)\nprint(paddle.randn([2]))\ntry:\n    nn.utils.weight_norm(c2, dim=None)\nexcept Exception as e:\n    print(type(e).__name__, e)\n'

_EXPECTED = "['bias', 'weight_v', 'weight_g']\nParameter containing:\nTensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=False,\n       [1.47258270, 0.68578136, 1.07372344, 1.35543191]) paddle.Size([4, 3])\nTensor(shape=[1, 3], dtype=float32, place=Place(cpu), stop_gradient=False,\n       [[ 0.68146026,  0.57529014, -1.20152676]])\nParameter containing:\nTensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=False,\n       [1.66925347, 1.94281447])\nTensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=False,\n       1.99651909)\nParameter containing:\nTensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=False,\n       3.07089138) Tensor(shape=[], dtype=float32, place=Place(cpu), stop_gradient=False,\n       1.77385104)\n0 2.5798354148864746\n1 2.4053425788879395\n2 1.2304784059524536\nTensor(shape=[4], dtype=float32, place=Place(cpu), stop_gradient=False,\n       [0., 0., 0., 0.]) Tensor(shape=[4, 3], dtype=float32, place=Place(cpu), stop_gradient=False,\n       [[ 0.93552291,  0.65401191, -0.57532287],\n        [-0.34083542, -0.32354173,  0.12649895],\n        [ 0.81354672, -0.28098154,  0.14979626],\n        [-0.71751523,  0.66761583, -0.62630177]])\n['bias', 'weight'] Parameter containing:\nTensor(shape=[4, 3], dtype=float32, place=Place(cpu), stop_gradient=False,\n       [[ 0.90767229,  0.57741845, -0.48849395],\n        [-0.32071626, -0.22334361,  0.14900832],\n        [ 0.74821228, -0.21416058,  0.09096291],\n        [-0.64800495,  0.62588340, -0.60871392]])\nTensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,\n       [0.10578713, 1.30568969])\nRuntimeError Cannot register two weight_norm hooks on the same parameter weight\n"


@pytest.mark.parametrize("version", ["3", "2.6"])
def test_weight_norm_script(version, capsys):
    skip_unless_mkl_path("weight_norm's script (its products are MKL sgemm bits)")
    from gradrepl.paddle import state

    state.reset(version)
    import gradrepl.paddle as paddle

    try:
        exec(_SCRIPT, {"paddle": paddle, "nn": paddle.nn})
    finally:
        state.reset()
    expected = _EXPECTED if version == "3" else _EXPECTED.replace("paddle.Size([4, 3])", "[4, 3]")
    assert capsys.readouterr().out == expected
