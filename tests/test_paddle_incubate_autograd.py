"""paddle.incubate.autograd (vjp, jvp, Jacobian, Hessian) in dynamic mode, as the higher-order
autograd guide uses it (gradrepl/paddle/incubate/autograd.py). Before: ``paddle.incubate``
raised the not-emulated AttributeError.

The expected outputs are what real Paddle 3.3.1 and 2.6.2 printed for ``_SCRIPT`` on this
project's machine, 2026-12-07 (2.6.2's messages spell "shoule" and "shoud"; the -0.0 of the
batched Jacobian and Hessian are Paddle's).
"""
from __future__ import annotations

import pytest

_SCRIPT = 'import paddle\nimport paddle.incubate.autograd as A\nx = paddle.to_tensor([[1., 2.], [3., 4.]])\ndef f(x):\n    return paddle.multiply(x, x)\nys, r = A.vjp(f, x, paddle.to_tensor([[1., 0.], [0., 2.]]))\nprint(ys.stop_gradient, r)\nprint(A.jvp(f, x, paddle.ones_like(x))[1])\nx1 = paddle.to_tensor([1.0, 2.0, 3.0]); x2 = paddle.to_tensor([0.5, -1.0])\ndef g(a, b):\n    return paddle.concat([a * 2.0, b * a[:2]])\nJ = A.Jacobian(g, [x1, x2])\nprint(J.shape, J[:].numpy().tolist(), J[1].numpy().tolist(), J[:, 3].numpy().tolist())\nxb = paddle.to_tensor([[1.0, 2.0], [3.0, -1.0], [0.5, 0.25]])\nJb = A.Jacobian(lambda t: paddle.tanh(t) * t, xb, is_batched=True)\nprint(Jb.shape, Jb[:].numpy().tolist())\nH = A.Hessian(lambda t: paddle.sum(t * t * t), x1)\nprint(H.shape, H[:].numpy().tolist())\nHb = A.Hessian(lambda t: paddle.sum(t * t * t, axis=1, keepdim=True), xb, is_batched=True)\nprint(Hb.shape, Hb[:].numpy().tolist())\nfor bad in [lambda: A.vjp(1, x), lambda: A.vjp(f, [x, 1]), lambda: A.vjp(f, x, paddle.ones([3])),\n            lambda: A.Hessian(f, x1)[:]]:\n    try:\n        bad()\n    except Exception as e:\n        print(type(e).__name__, e)\n'

_EXPECTED = {
    "3": "False Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=False,\n       [[2. , 0. ],\n        [0. , 16.]])\nTensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=False,\n       [[2., 4.],\n        [6., 8.]])\n(5, 5) [[2.0, 0.0, 0.0, 0.0, 0.0], [0.0, 2.0, 0.0, 0.0, 0.0], [0.0, 0.0, 2.0, 0.0, 0.0], [0.5, 0.0, 0.0, 1.0, 0.0], [0.0, -1.0, 0.0, 0.0, 2.0]] [0.0, 2.0, 0.0, 0.0, 0.0] [0.0, 0.0, 0.0, 1.0, 0.0]\n(3, 2, 2) [[[1.1815685033798218, 0.0], [0.0, 1.1053292751312256]], [[1.0246530771255493, -0.0], [0.0, -1.1815685033798218]], [[0.8553410172462463, 0.0], [0.0, 0.479922354221344]]]\n(3, 3) [[6.0, 0.0, 0.0], [0.0, 12.0, 0.0], [0.0, 0.0, 18.0]]\n(3, 2, 2) [[[6.0, 0.0], [0.0, 12.0]], [[18.0, -0.0], [0.0, -6.0]], [[3.0, 0.0], [0.0, 1.5]]]\nTypeError Expected 'fun' is Callable, but got <class 'int'>.\nTypeError All elements of 'xs' should be Tensor.\nRuntimeError The v[0] has invalid shape: should be paddle.Size([2, 2]) but got paddle.Size([3]).\nRuntimeError The function given to Hessian should return as single element Tensor or batched single element Tensor.\n",
    "2.6": "False Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=False,\n       [[2. , 0. ],\n        [0. , 16.]])\nTensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=False,\n       [[2., 4.],\n        [6., 8.]])\n(5, 5) [[2.0, 0.0, 0.0, 0.0, 0.0], [0.0, 2.0, 0.0, 0.0, 0.0], [0.0, 0.0, 2.0, 0.0, 0.0], [0.5, 0.0, 0.0, 1.0, 0.0], [0.0, -1.0, 0.0, 0.0, 2.0]] [0.0, 2.0, 0.0, 0.0, 0.0] [0.0, 0.0, 0.0, 1.0, 0.0]\n(3, 2, 2) [[[1.1815685033798218, 0.0], [0.0, 1.1053292751312256]], [[1.0246530771255493, -0.0], [0.0, -1.1815685033798218]], [[0.8553410172462463, 0.0], [0.0, 0.479922354221344]]]\n(3, 3) [[6.0, 0.0, 0.0], [0.0, 12.0, 0.0], [0.0, 0.0, 18.0]]\n(3, 2, 2) [[[6.0, 0.0], [0.0, 12.0]], [[18.0, -0.0], [0.0, -6.0]], [[3.0, 0.0], [0.0, 1.5]]]\nTypeError Expected 'fun' is Callable, but got <class 'int'>.\nTypeError All elements of 'xs' shoule be Tensor.\nRuntimeError The v[0] has invalid shape: should be [2, 2] but got [3].\nRuntimeError The function given to Hessian shoud return as single element Tensor or batched single element Tensor.\n",
}


@pytest.mark.parametrize("version", ["3", "2.6"])
def test_incubate_autograd_prints_as_real_paddle(version, tmp_path):
    from gradrepl.runner import run_captured

    path = tmp_path / "incubate_autograd.py"
    path.write_text(_SCRIPT)
    out, error = run_captured(str(path), profile=version)
    assert error is None
    assert out == _EXPECTED[version]


def test_other_incubate_names_are_not_emulated():
    import gradrepl.paddle as paddle

    with pytest.raises(AttributeError, match=r"^module 'paddle.incubate' has no attribute 'nn' "
                       r"\(gradrepl's paddle does not emulate paddle.incubate.nn\)$"):
        paddle.incubate.nn  # noqa: B018
    with pytest.raises(AttributeError, match=r"^module 'paddle.incubate' has no attribute 'nope'$"):
        paddle.incubate.nope  # noqa: B018
