"""After ``paddle.grad(..., create_graph=True)`` and a second backward, an input that the
gradient reaches only through the op's saved inputs gets zeros, not None, as Paddle's double-grad
nodes give (recorded with Paddle 3.3.1 and 2.6.2); matmul's stays None, as in Paddle; the 2.2
profile keeps None (not measured there)."""
import pytest

import gradrepl.paddle as paddle

F = paddle.nn.functional

# (name, f, which input the first gradient is taken in) -> Paddle 3.3.1's x.grad, y.grad
CASES = [
    ("mul", lambda x, y: (x * y).sum(), 0, [0.0, 0.0], [1.0, 1.0]),
    ("mul", lambda x, y: (x * y).sum(), 1, [1.0, 1.0], [0.0, 0.0]),
    ("add", lambda x, y: (x + y).sum(), 0, None, None),
    ("div", lambda x, y: (x / y).sum(), 0, [0.0, 0.0], [-0.25, -0.1111111119389534]),
    ("div", lambda x, y: (x / y).sum(), 1, [-0.25, -0.1111111119389534],
     [0.125, -0.1111111119389534]),
    ("matmul", lambda x, y: paddle.matmul(x, y), 0, None, [1.0, 1.0]),
    ("matmul", lambda x, y: paddle.matmul(x, y), 1, [1.0, 1.0], None),
    ("tanh", lambda x, y: (paddle.tanh(x) * y).sum(), 0,
     [-1.4537239074707031, 0.9813982844352722], [0.7864477038383484, 0.18070673942565918]),
    ("tanh", lambda x, y: (paddle.tanh(x) * y).sum(), 1,
     [0.7864477038383484, 0.18070673942565918], [0.0, 0.0]),
    ("square", lambda x, y: (x * x * y).sum(), 1, [1.0, -3.0], [0.0, 0.0]),
    ("exp", lambda x, y: (paddle.exp(x) * y).sum(), 1,
     [1.6487212181091309, 0.22313016653060913], [0.0, 0.0]),
    ("relu", lambda x, y: (F.relu(x) * y).sum(), 0, [0.0, 0.0], [1.0, 0.0]),
    ("relu", lambda x, y: (F.relu(x) * y).sum(), 1, [1.0, 0.0], [0.0, 0.0]),
    # sigmoid's double grad rounds as Paddle's: ((1 - 2*out) * dout) * ddx
    ("sigmoid", lambda x, y: (F.sigmoid(x) * y).sum(), 0,
     [-0.11511360108852386, 0.2841906249523163], [0.23500370979309082, 0.14914646744728088]),
    ("sigmoid", lambda x, y: (F.sigmoid(x) * y).sum(), 1,
     [0.23500370979309082, 0.14914646744728088], [0.0, 0.0]),
]


def _grads(f, wrt):
    x = paddle.to_tensor([0.5, -1.5], stop_gradient=False)
    y = paddle.to_tensor([2.0, 3.0], stop_gradient=False)
    (g,) = paddle.grad(f(x, y), [(x, y)[wrt]], create_graph=True)
    g.sum().backward()
    return [None if t.grad is None else t.grad.numpy().ravel().tolist() for t in (x, y)]


@pytest.mark.parametrize("name,f,wrt,x_grad,y_grad", CASES, ids=[f"{c[0]}-{c[2]}" for c in CASES])
def test_second_backward_matches_paddle_3(name, f, wrt, x_grad, y_grad):
    paddle.profiles.set_profile("3")
    try:
        assert _grads(f, wrt) == [x_grad, y_grad]
    finally:
        paddle.profiles.set_profile("2.2")


def test_the_issues_log_softmax_example_under_2_6_and_3():
    for key in ("2.6", "3"):
        paddle.profiles.set_profile(key)
        try:
            x0 = paddle.to_tensor([[0.5], [1.5], [-2.0]], stop_gradient=False)
            x1 = paddle.ones([3, 1]) * 0.3
            x1.stop_gradient = False
            w = paddle.to_tensor([2.0], stop_gradient=False)
            loss = paddle.mean(F.log_softmax(x1, -1) * x0 * w)
            (g,) = paddle.grad(loss, [x0], create_graph=True)
            g.sum().backward()
            assert x0.grad.numpy().tolist() == [[0.0], [0.0], [0.0]]
            assert w.grad.numpy().tolist() == [0.0]
        finally:
            paddle.profiles.set_profile("2.2")


def test_profile_2_2_keeps_none():
    paddle.profiles.set_profile("2.2")
    assert _grads(lambda x, y: (x * y).sum(), 0) == [None, [1.0, 1.0]]
