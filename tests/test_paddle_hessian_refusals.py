"""A create_graph backward through relu's, softplus's, square's or sqrt's gradient op refuses as
real Paddle does: their double-grad ops (relu_double_grad ...) have no grad op, and
``paddle.autograd.hessian`` differentiates with create_graph, so the Hessian of a function with
one of them raises (sigmoid's, tanh's, pow's, sin's, cos's go on). gradrepl computed these
Hessians before. sqrt and square are the ops sqrt_grad / square_grad (their double-grad
kernels' formulas; second-order values were and are equal to real Paddle's).

Expected: what real Paddle 3.3.1 and 2.6.2 printed for ``_SCRIPT`` on this project's machine,
2026-12-07 (the message names the nodes.cc line of each version).
"""
from __future__ import annotations

import pytest

_SCRIPT = 'import paddle\nimport paddle.nn.functional as F\nx = paddle.to_tensor([1.5, -2.0, 0.3], stop_gradient=False)\nfor name, f in [("relu", lambda t: paddle.sum(F.relu(t) * t)), ("softplus", lambda t: paddle.sum(F.softplus(t))),\n                ("square", lambda t: paddle.sum(paddle.square(t) * t)), ("sqrt", lambda t: paddle.sum(paddle.sqrt(t * t + 1)))]:\n    try:\n        paddle.autograd.hessian(f(x), x)[:]\n    except RuntimeError as e:\n        print(repr((name, str(e))))\n'

_EXPECTED = {"3": '(\'relu\', "(Unavailable) The Op relu_double_grad doesn\'t have any grad op. If you don\'t intend calculating higher order derivatives, please set `create_graph`to False. (at /paddle/paddle/fluid/eager/api/generated/eager_generated/backwards/nodes.cc:50306)\\n")\n(\'softplus\', "(Unavailable) The Op softplus_double_grad doesn\'t have any grad op. If you don\'t intend calculating higher order derivatives, please set `create_graph`to False. (at /paddle/paddle/fluid/eager/api/generated/eager_generated/backwards/nodes.cc:59197)\\n")\n(\'square\', "(Unavailable) The Op square_double_grad doesn\'t have any grad op. If you don\'t intend calculating higher order derivatives, please set `create_graph`to False. (at /paddle/paddle/fluid/eager/api/generated/eager_generated/backwards/nodes.cc:61207)\\n")\n(\'sqrt\', "(Unavailable) The Op sqrt_double_grad doesn\'t have any grad op. If you don\'t intend calculating higher order derivatives, please set `create_graph`to False. (at /paddle/paddle/fluid/eager/api/generated/eager_generated/backwards/nodes.cc:60816)\\n")\n', "2.6": '(\'relu\', "(Unavailable) The Op relu_double_grad doesn\'t have any gradop. If you don\'t intend calculating higher orderderivatives, please set `create_graph`to False. (at /paddle/paddle/fluid/eager/api/generated/eager_generated/backwards/nodes.cc:21173)\\n")\n(\'softplus\', "(Unavailable) The Op softplus_double_grad doesn\'t have any gradop. If you don\'t intend calculating higher orderderivatives, please set `create_graph`to False. (at /paddle/paddle/fluid/eager/api/generated/eager_generated/backwards/nodes.cc:25520)\\n")\n(\'square\', "(Unavailable) The Op square_double_grad doesn\'t have any gradop. If you don\'t intend calculating higher orderderivatives, please set `create_graph`to False. (at /paddle/paddle/fluid/eager/api/generated/eager_generated/backwards/nodes.cc:26628)\\n")\n(\'sqrt\', "(Unavailable) The Op sqrt_double_grad doesn\'t have any gradop. If you don\'t intend calculating higher orderderivatives, please set `create_graph`to False. (at /paddle/paddle/fluid/eager/api/generated/eager_generated/backwards/nodes.cc:26337)\\n")\n'}


@pytest.mark.parametrize("version", ["3", "2.6"])
def test_hessian_through_ops_without_a_triple_grad_refuses(version, tmp_path):
    from gradrepl.runner import run_captured

    path = tmp_path / "hessian_refusals.py"
    path.write_text(_SCRIPT)
    out, error = run_captured(str(path), profile=version)
    assert error is None
    assert out == _EXPECTED[version]


# rsqrt is the op rsqrt_grad with RsqrtGradGradFunctor's formulas (d/d(out) = (3 / out) * dx *
# ddx, d/d(dout) = ddx * -0.5 * out^3): second-order digests differed in both cases before, and
# its Hessian did not refuse. Recorded from real 3.3.1 and 2.6.2 (equal digests) here: x = 3 *
# randn(300), w, v = randn(300) from RandomState(13), float32.
_RSQRT = {"rsqrt": ("19c5f4358aa97674", "b07c91e9f1f0feaa"),
          "rsqrt*x": ("4f8539e1b4fdf8e8", "2f458a9938afe4b7")}
_RSQRT_REFUSAL = {"3": "(Unavailable) The Op rsqrt_double_grad doesn't have any grad op. If you don't intend calculating higher order derivatives, please set `create_graph`to False. (at /paddle/paddle/fluid/eager/api/generated/eager_generated/backwards/nodes.cc:53514)\n", "2.6": "(Unavailable) The Op rsqrt_double_grad doesn't have any gradop. If you don't intend calculating higher orderderivatives, please set `create_graph`to False. (at /paddle/paddle/fluid/eager/api/generated/eager_generated/backwards/nodes.cc:22311)\n"}


@pytest.mark.parametrize("version", ["3", "2.6"])
def test_rsqrt_second_order_and_hessian_refusal(version):
    import hashlib

    import numpy as np

    from gradrepl.paddle import state

    state.reset(version)
    try:
        import gradrepl.paddle as paddle

        rs = np.random.RandomState(13)
        x0 = rs.randn(300).astype("float32") * 3
        w = paddle.to_tensor(rs.randn(300).astype("float32"))
        v = paddle.to_tensor(rs.randn(300).astype("float32"))
        got = {}
        for name, f in [("rsqrt", lambda x: paddle.sum(paddle.rsqrt(x * x + 1) * w)),
                        ("rsqrt*x", lambda x: paddle.sum(paddle.rsqrt(x * x + 0.5) * x))]:
            x = paddle.to_tensor(x0, stop_gradient=False)
            g = paddle.grad(f(x), x, create_graph=True)[0]
            h = paddle.grad(g, x, grad_outputs=v)[0]
            got[name] = tuple(hashlib.sha256(a.numpy().tobytes()).hexdigest()[:16] for a in (g, h))
        x = paddle.to_tensor([1.5, -2.0, 0.3], stop_gradient=False)
        with pytest.raises(RuntimeError) as e:
            paddle.autograd.hessian(paddle.sum(paddle.rsqrt(x * x + 1)), x)[:]
    finally:
        state.reset()
    assert got == _RSQRT
    assert str(e.value) == _RSQRT_REFUSAL[version]
