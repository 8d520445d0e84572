"""``paddle.logcumsumexp`` and its gradient are Paddle's CPU kernels (gradrepl/paddle/tensor/
math_ext.py): a scan of ``log1p(exp(min - max)) + max`` from the dtype's lowest value with the C
library's expf/log1pf, and the gradient's two reversed scans of ``log(+-g) - out``. Records:
real Paddle 3.3.1 and 2.6.2 on this project's Intel machine, 2026-12-07 (both the same); sha256
(first 12 hex digits) of the results' bytes. Before: numpy's float64 logaddexp (forward 150 of
300 values differed) and a torch-style gradient (107 of 120)."""
from __future__ import annotations

import hashlib

import numpy as np
import pytest

_RECORD = ["0f67b1ba97d1", "b1bbd3155868", "d663aab21970", "cabfab8ae680", "382f27c35e15",
           "b47d93647a26"]


def h(a):
    return hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()[:12]


@pytest.mark.parametrize("version", ["3", "2.6"])
def test_logcumsumexp_and_gradient(version):
    from gradrepl.paddle import state

    state.reset(version)
    import gradrepl.paddle as paddle

    try:
        rs = np.random.RandomState(0)
        x = (rs.randn(6, 50) * 3).astype("float32")
        got = [h(paddle.logcumsumexp(paddle.to_tensor(x), axis=1).numpy()),
               h(paddle.logcumsumexp(paddle.to_tensor(x), axis=0).numpy()),
               h(paddle.logcumsumexp(paddle.to_tensor(x)).numpy()),
               h(paddle.logcumsumexp(paddle.to_tensor(x.astype("float64") * 1.37), axis=1).numpy())]
        xt = paddle.to_tensor((rs.randn(4, 30) * 3).astype("float32"), stop_gradient=False)
        (paddle.logcumsumexp(xt, axis=1) * paddle.to_tensor(rs.randn(4, 30).astype("float32"))
         ).sum().backward()
        x2 = paddle.to_tensor(rs.randn(7), stop_gradient=False)
        paddle.logcumsumexp(x2).sum().backward()
        got += [h(xt.grad.numpy()), h(x2.grad.numpy())]
        small = paddle.logcumsumexp(paddle.to_tensor([0., 1., 2.])).numpy().tolist()
        inf = paddle.logcumsumexp(paddle.to_tensor([float("-inf"), 0., float("-inf")]))
    finally:
        state.reset()
    assert got == _RECORD
    assert small == [0.0, 1.3132617473602295, 2.4076061248779297]
    assert inf.numpy().tolist() == [-3.4028234663852886e+38, 0.0, 0.0]  # the lowest float32


def test_no_double_grad_as_paddle():
    """Real 3.3.1: paddle.grad(..., create_graph=True) through logcumsumexp raises RuntimeError
    "(Unavailable) The Op logcumsumexp_grad doesn't have any grad op. ..."."""
    from gradrepl.paddle import state

    state.reset("3")
    import gradrepl.paddle as paddle

    try:
        x = paddle.to_tensor([0.5, -1.0, 2.0], stop_gradient=False)
        with pytest.raises(RuntimeError, match="logcumsumexp_grad doesn't have any grad op"):
            paddle.grad(paddle.logcumsumexp(x).sum(), x, create_graph=True)
    finally:
        state.reset()
