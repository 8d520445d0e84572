"""paddle.grad(..., create_graph=True) and a backward of the gradient for ops real Paddle can or
cannot differentiate twice (tests/test_numerics_more.py). Paddle API only: ``python
double_grad_cases.py > double_grad_<version>.json`` with real Paddle records; the test runs
``results(paddle)`` on gradrepl."""
import json
import sys

import numpy as np

CASES = {
    "add": lambda p, F, x, y: x + y, "multiply": lambda p, F, x, y: x * y,
    "maximum": lambda p, F, x, y: p.maximum(x, y), "minimum": lambda p, F, x, y: p.minimum(x, y),
    "exp": lambda p, F, x, y: p.exp(x), "tanh": lambda p, F, x, y: p.tanh(x),
    "leaky_relu": lambda p, F, x, y: F.leaky_relu(x, 0.1), "gelu": lambda p, F, x, y: F.gelu(x),
    "pow_tensor": lambda p, F, x, y: p.pow(x, y), "softmax": lambda p, F, x, y: F.softmax(x),
    "cross_entropy": lambda p, F, x, y: F.cross_entropy(x, p.to_tensor([1, 0, 2])),
    "mse_loss": lambda p, F, x, y: F.mse_loss(x, y), "l1_loss": lambda p, F, x, y: F.l1_loss(x, y),
    "matmul": lambda p, F, x, y: p.matmul(x, y.T), "bmm": lambda p, F, x, y: p.bmm(x[None], y.T[None]),
    "gather": lambda p, F, x, y: p.gather(x * x, p.to_tensor([2, 0])),
    "where": lambda p, F, x, y: p.where(x > 0.5, x * x, y), "kron": lambda p, F, x, y: p.kron(x, y),
    "logsumexp": lambda p, F, x, y: p.logsumexp(x, axis=1), "max": lambda p, F, x, y: p.max(x, axis=1),
    "layer_norm": lambda p, F, x, y: F.layer_norm(x, [4]),
    "group_norm": lambda p, F, x, y: p.nn.GroupNorm(2, 2)(x.reshape([1, 2, 2, 3])),
    "conv2d": lambda p, F, x, y: F.conv2d(x.reshape([1, 1, 3, 4]), y.reshape([1, 1, 3, 4])[:, :, :2, :2]),
    "max_pool2d": lambda p, F, x, y: F.max_pool2d(x.reshape([1, 1, 3, 4]), 2),
    "nearest": lambda p, F, x, y: F.interpolate(x.reshape([1, 1, 3, 4]), scale_factor=2),
    "addmm": lambda p, F, x, y: p.addmm(x[:, :3], x, y.T[:, :3]),
    "cumsum": lambda p, F, x, y: p.cumsum(x * x, axis=1),
}


def one(paddle, f, tanh):
    rs = np.random.RandomState(1)
    x = paddle.to_tensor((rs.rand(3, 4) * 0.6 + 0.2).astype("float32"), stop_gradient=False)
    y = paddle.to_tensor((rs.rand(3, 4) * 0.6 + 0.2).astype("float32"), stop_gradient=False)
    out = f(paddle, paddle.nn.functional, x, y)
    loss = paddle.tanh(out).sum() if tanh else out.sum()
    try:
        (g,) = paddle.grad(loss, [x], create_graph=True)
    except Exception as e:  # noqa: BLE001
        return f"grad | {type(e).__name__} | {e}"
    try:
        g.sum().backward()
    except Exception as e:  # noqa: BLE001
        return f"backward | {type(e).__name__} | {e}"
    if x.grad is None:
        return "ok | None"
    return f"ok | {np.round(x.grad.numpy().ravel()[:2].astype(float), 4).tolist()}"


def results(paddle):
    return {f"{name}-{'tanh' if tanh else 'sum'}": one(paddle, f, tanh)
            for name, f in CASES.items() for tanh in (False, True)}


if __name__ == "__main__":
    import paddle

    json.dump({"paddle": paddle.__version__, "results": results(paddle)}, sys.stdout, indent=0,
              sort_keys=True)
