"""A create_graph backward through a strided slice (x[:, ::2], x[..., ::-1], paddle.strided_slice)
refuses as real Paddle: strided_slice_grad has no grad op (a unit-step slice's has). gradrepl
differentiated it. Found by a HW15-style MAML script (inner loop by paddle.grad(create_graph=True)
over a model that subsampled with h[:, :, ::2, ::2]). Expected: what real Paddle 3.3.1 and 2.6.2
printed for ``_SCRIPT`` on this project's machine (each version's nodes.cc line)."""
from __future__ import annotations

import pytest

_SCRIPT = "import paddle\nx = paddle.to_tensor([[1.0, 2.0, 3.0, 4.0], [0.5, -1.0, 2.5, 0.0]], stop_gradient=False)\nfor name, f in [('step', lambda t: t[:, ::2]), ('plain', lambda t: t[:, 1:3]), ('neg', lambda t: t[..., ::-1]),\n                ('api', lambda t: paddle.strided_slice(t, axes=[1], starts=[0], ends=[4], strides=[2]))]:\n    try:\n        g = paddle.grad(paddle.tanh(f(x)).sum(), x, create_graph=True)[0]\n        print(name, 'ok', g.shape)\n    except RuntimeError as e:\n        print(repr((name, str(e))))\n"

_EXPECTED = {"3": '(\'step\', "(Unavailable) The Op strided_slice_grad doesn\'t have any grad op. If you don\'t intend calculating higher order derivatives, please set `create_graph`to False. (at /paddle/paddle/fluid/eager/api/generated/eager_generated/backwards/nodes.cc:62720)\\n")\nplain ok paddle.Size([2, 4])\n(\'neg\', "(Unavailable) The Op strided_slice_grad doesn\'t have any grad op. If you don\'t intend calculating higher order derivatives, please set `create_graph`to False. (at /paddle/paddle/fluid/eager/api/generated/eager_generated/backwards/nodes.cc:62720)\\n")\n(\'api\', "(Unavailable) The Op strided_slice_grad doesn\'t have any grad op. If you don\'t intend calculating higher order derivatives, please set `create_graph`to False. (at /paddle/paddle/fluid/eager/api/generated/eager_generated/backwards/nodes.cc:62720)\\n")\n',
             "2.6": '(\'step\', "(Unavailable) The Op strided_slice_grad doesn\'t have any gradop. If you don\'t intend calculating higher orderderivatives, please set `create_graph`to False. (at /paddle/paddle/fluid/eager/api/generated/eager_generated/backwards/nodes.cc:39556)\\n")\nplain ok [2, 4]\n(\'neg\', "(Unavailable) The Op strided_slice_grad doesn\'t have any gradop. If you don\'t intend calculating higher orderderivatives, please set `create_graph`to False. (at /paddle/paddle/fluid/eager/api/generated/eager_generated/backwards/nodes.cc:39556)\\n")\n(\'api\', "(Unavailable) The Op strided_slice_grad doesn\'t have any gradop. If you don\'t intend calculating higher orderderivatives, please set `create_graph`to False. (at /paddle/paddle/fluid/eager/api/generated/eager_generated/backwards/nodes.cc:39556)\\n")\n'}


@pytest.mark.parametrize("version", ["3", "2.6"])
def test_strided_slice_refuses_a_second_order(version, tmp_path):
    from gradrepl.runner import run_captured

    path = tmp_path / "strided_slice_double_grad.py"
    path.write_text(_SCRIPT)
    out, error = run_captured(str(path), profile=version)
    assert error is None
    assert out == _EXPECTED[version]
