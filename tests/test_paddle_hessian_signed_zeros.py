"""Second derivatives' zeros keep Paddle's signs: ``paddle.grad`` of a ``create_graph`` gradient
with a one-column ``grad_outputs`` (a Hessian's column, as ``paddle.autograd.hessian`` takes it).

Paddle's double-grad node of an op gives each saved input ONE gradient, its formula's (a
multiply's ``dx = dout * ddy``): where the op's other gradient reaches that input, no zeros are
added to it, so a -0. stays -0. gradrepl's VJP is several Tensor ops, each gradient a node of its
own with a zero link to the inputs it does not reach (engine/backward.link_saved_inputs); a link
now gives way when another gradient of the same VJP reaching that input runs in the backward
(``_sibling_sends``). Paddle's tanh double grad is ``-1 * dout * 2 * out * ddx`` (products), not a
scale (whose + 0 made -0. into 0.). Before: sin(x)*x, x*sin(x), sin(x)*cos(x) and tanh(x) gave 0.
where Paddle gives -0. (a batched Hessian of sum(sin(x) * x) printed ``0.`` for ``-0.``).

Recorded from real Paddle 3.3.1 and 2.6.2 on this project's machine, 2026-12-07: float32 bytes
(hex) of the three columns; 2.6.2's sin/cos round differently in the last bit (its own records).
"""
from __future__ import annotations

import numpy as np
import pytest

_X = np.array([[-1.3, 0.7, 2.1], [0.4, -0.2, -2.5]], dtype="float32")
_C = np.array([[-1.0, 2.0, -3.0], [0.5, -0.5, 1.0]], dtype="float32")

_SIN_X = {
    "3": ["76b637bf000000000000008079dad73f0000000000000080",
          "00000000e4138a3f0000008000000000a4cff53f00000080",
          "0000000000000000b9a234c000000000000000004b4d46c0"],
    "2.6": ["76b637bf000000000000008078dad73f0000000000000080",
            "00000000e4138a3f0000008000000000a5cff53f00000080",
            "0000000000000000b9a234c000000000000000004b4d46c0"],
}
_SIN_COS = {
    "3": ["e7f7833f0000008000000000a7a4b7bf0000000000000080",
          "000000006e46fcbf0000000000000080d761473f00000080",
          "0000000000000080951fdf3f0000008000000000107cf5bf"],
    "2.6": ["e8f7833f0000008000000000a6a4b7bf0000000000000080",
            "000000006f46fcbf0000000000000080d761473f00000080",
            "0000000000000080961fdf3f00000080000000000e7cf5bf"],
}
_TANH = ["0329e33e0000008000000080637326bf0000000000000000",
         "00000000566944bf0000008000000080153dc23e00000000",
         "0000000000000080306fe7bd000000800000000081ed563d"]
_TANH_C = ["0329e3be00000000000000006373a6be0000000000000000",
           "000000005669c4bf0000000000000000153d42be00000000",
           "00000000000000006493ad3e000000000000000081ed563d"]
_X_C_X = ["000000c000000000000000000000803f0000000000000000",
          "00000000000080400000000000000000000080bf00000000",
          "00000000000000000000c0c0000000000000000000000040"]


def _cases(paddle, version):
    c = paddle.to_tensor(_C)
    return [(lambda x: paddle.sum(paddle.sin(x) * x), _SIN_X[version]),
            (lambda x: paddle.sum(x * paddle.sin(x)), _SIN_X[version]),
            (lambda x: paddle.sum(paddle.sin(x) * paddle.cos(x)), _SIN_COS[version]),
            (lambda x: paddle.sum(paddle.tanh(x)), _TANH),
            (lambda x: paddle.sum(paddle.tanh(x) * c), _TANH_C),
            (lambda x: paddle.sum(x * c * x), _X_C_X)]


@pytest.mark.parametrize("version", ["3", "2.6"])
@pytest.mark.parametrize("case", range(6))
def test_hessian_columns_keep_paddles_signed_zeros(version, case):
    from gradrepl.paddle import state

    state.reset(version)
    try:
        import gradrepl.paddle as paddle

        f, want = _cases(paddle, version)[case]
        x = paddle.to_tensor(_X, stop_gradient=False)
        g = paddle.grad(f(x), x, create_graph=True)[0]
        got = []
        for j in range(3):
            v = paddle.zeros_like(g)
            v[:, j] = 1.0
            got.append(paddle.grad(g, x, grad_outputs=v, retain_graph=True)[0].numpy()
                       .tobytes().hex())
    finally:
        state.reset()
    assert got == want


def test_batched_hessian_prints_negative_zero():
    """paddle.autograd.hessian(batch_axis=0) of sum(sin(x) * x, axis=1): -0. where cos(x) < 0
    (real 3.3.1: ``[[-0.04601 -0. 0. ] ...``, its off-diagonal zeros from the multiply's node)."""
    from gradrepl.paddle import state

    state.reset("3")
    try:
        import gradrepl.paddle as paddle

        x = paddle.to_tensor(_X, stop_gradient=False)
        y = paddle.sum(paddle.sin(x) * x, axis=1)
        h = paddle.autograd.hessian(y, x, batch_axis=0)[:].numpy()
    finally:
        state.reset()
    off = ~np.eye(3, dtype=bool)
    assert (np.signbit(h[:, off]) == (np.cos(_X)[:, None, :].repeat(3, 1)[:, off] < 0)).all()


# Paddle's pow double grad (PowDoubleGradKernel): dx = scale((dout * ddx) * x.pow(e - 2),
# e * (e - 1)), ddout = scale(ddx * x.pow(e - 1), e); the scale's + 0 gives 0. where the
# composite's products gave -0. (x ** 3 and x ** 2 * c differed before). Recorded from real
# 3.3.1 and 2.6.2 (equal) here, 2026-12-07.
_POW_CASES = {
    "x**3": ["9999f9c000000000000000009a9919400000000000000000",
             "000000006666864000000000000000009a9999bf00000000",
             "0000000000000000999949410000000000000000000070c1"],
    "x**2*c": ["000000c000000000000000000000803f0000000000000000",
               "00000000000080400000000000000000000080bf00000000",
               "00000000000000000000c0c0000000000000000000000040"],
    "pow(x*x+1,2.5)*c": ["028c7ec20000000000000000854e8d400000008000000000",
                         "000000808f86104200000000000000008d463dc000000000",
                         "00000080000000004e9522c400000000000000809204af43"],
}


@pytest.mark.parametrize("version", ["3", "2.6"])
@pytest.mark.parametrize("name", sorted(_POW_CASES))
def test_pow_hessian_columns_are_paddles_double_grad_kernel(version, name):
    from gradrepl.paddle import state

    state.reset(version)
    try:
        import gradrepl.paddle as paddle

        c = paddle.to_tensor(_C)
        f = {"x**3": lambda x: paddle.sum(x ** 3),
             "x**2*c": lambda x: paddle.sum((x ** 2) * c),
             "pow(x*x+1,2.5)*c": lambda x: paddle.sum(paddle.pow(x * x + 1, 2.5) * c)}[name]
        x = paddle.to_tensor(_X, stop_gradient=False)
        g = paddle.grad(f(x), x, create_graph=True)[0]
        got = []
        for j in range(3):
            v = paddle.zeros_like(g)
            v[:, j] = 1.0
            got.append(paddle.grad(g, x, grad_outputs=v, retain_graph=True)[0].numpy()
                       .tobytes().hex())
    finally:
        state.reset()
    assert got == _POW_CASES[name]


@pytest.mark.parametrize("version", ["3", "2.6"])
def test_double_grad_node_names(version):
    """The node of a gradient op x_grad is XDoubleGradNode (real 3.3.1 and 2.6.2:
    TanhDoubleGradNode, SigmoidDoubleGradNode, PowDoubleGradNode, SiluDoubleGradNode; gradrepl
    said TanhGradGradNode, and MultiplyGradNode for pow's)."""
    from gradrepl.paddle import state

    state.reset(version)
    try:
        import gradrepl.paddle as paddle

        x = paddle.to_tensor([1.5, -2.0], stop_gradient=False)
        names = [paddle.grad(paddle.sum(f(x)), x, create_graph=True)[0].grad_fn.name()
                 for f in (paddle.tanh, paddle.nn.functional.sigmoid, lambda t: t ** 3,
                           paddle.nn.functional.silu)]
    finally:
        state.reset()
    assert names == ["TanhDoubleGradNode", "SigmoidDoubleGradNode", "PowDoubleGradNode",
                     "SiluDoubleGradNode"]
