"""bfloat16 cases run in real Paddle (record.py) and in gradrepl (tests/test_bfloat16.py).

Each case is Python source run with ``paddle`` and ``np`` in scope and the tensors of
``SETUP``; its outcome is the repr of the value of its last line, or the exception's type and
message (first line). Cases starting ``bw:`` take ``x = [1.5, -2.25, 3.1]`` (bfloat16, needing
a gradient), evaluate the expression, call ``backward()`` and give ``x.grad`` and the node's name.
"""
import numpy as np

SETUP = """
x = paddle.to_tensor([1.5, -2.25, 3.0], dtype='bfloat16')
f = paddle.to_tensor([1.0, 2.0, 3.0])
v = paddle.to_tensor([0.1] * 7 + [3.3, 100.7, 0.013], dtype='bfloat16')
m = paddle.to_tensor([[1.5, -2.25], [3.0, 0.5]], dtype='bfloat16')
"""

CASES = [
    "repr(paddle.bfloat16)", "str(paddle.bfloat16)", "x.dtype == paddle.bfloat16", "x",
    "x.numpy()", "x.tolist()", "x[0].item()", "float(x[1])", "v.item(0)", "int(v[8])", "v",
    "paddle.to_tensor([0.1, 1/3, 2.0, -1e-3, 3e38, 1e-40], dtype='bfloat16')",
    "paddle.to_tensor([0.1, 1/3, 2.0, -1e-3, 3e38, 1e-40], dtype='bfloat16').numpy()",
    "paddle.to_tensor(np.array([16256, 16384], np.uint16))",
    "paddle.to_tensor(np.array([3, 4], np.uint16), dtype='float32')",
    "paddle.to_tensor([1, 2], dtype='uint16')", "x.astype('uint16')",
    "paddle.to_tensor([1.00390625, 1.01171875], dtype='bfloat16').numpy()",
    "paddle.to_tensor(1.00390625, dtype='bfloat16').numpy()",
    "paddle.to_tensor([1.00390625, 1.01171875, 1.0078125, -1.00390625, 3.4e38, 65504.], "
    "'float32').astype('bfloat16').numpy()",
    "paddle.to_tensor([float('nan'), float('inf'), -float('inf'), 0.0, -0.0], "
    "dtype='bfloat16').numpy()",
    "paddle.to_tensor([257, 3], dtype='bfloat16')", "paddle.to_tensor([True], dtype='bfloat16')",
    "paddle.to_tensor(2.5, dtype='bfloat16')", "paddle.to_tensor(np.float32(0.1), dtype='bfloat16')",
    "paddle.to_tensor(np.array([0.1, 0.2]), dtype='bfloat16')", "paddle.to_tensor(x, dtype='float32')",
    "paddle.full([2], 0.1, 'bfloat16')", "paddle.zeros([2], 'bfloat16')",
    "paddle.ones([2], paddle.bfloat16)", "paddle.full_like(x, 2.3)", "paddle.zeros_like(x)",
    "paddle.cast(x, 'float64')", "paddle.cast(f, 'bfloat16')", "paddle.cast(x, 'int32')",
    "paddle.to_tensor([1, 2], dtype='int64').astype('bfloat16')", "v.astype('float16')",
    "x.astype('bool')", "paddle.is_floating_point(x)", "paddle.finfo(paddle.bfloat16)",
    # the kernels Paddle has
    "x - x", "x * x", "x * 3", "x + 1", "-x", "x - 1", "1 - x", "x / 2", "x * 1.1", "x + 0.1",
    "x * True", "v * 1.3 + 0.7", "paddle.scale(v, 1.3, 0.7)",
    "paddle.scale(v, 1.3, 0.7, bias_after_scale=False)", "v - 0.3", "0.3 - v", "v / 3", "v * v",
    "v - v * 1.7", "paddle.log(v)", "paddle.subtract(x, x)", "paddle.multiply(x, x)",
    "x.sum()", "v.sum()", "m.sum(axis=0)", "m.sum(axis=1, keepdim=True)", "x.sum(dtype='float32')",
    "paddle.to_tensor([0.1] * 1000, dtype='bfloat16').sum()",
    "paddle.to_tensor(np.arange(1, 300) / 7., dtype='bfloat16').sum()",
    "paddle.to_tensor(np.arange(300, 1, -1) / 7., dtype='bfloat16').sum()",
    "x == x", "x == 1.5", "x != x", "x < x", "x > 1", "paddle.equal(x, x)",
    "paddle.concat([x, x])", "m.reshape([4])", "x[1:]", "m[1]", "paddle.stack([x, x])",
    "x.unsqueeze(0)", "m.flatten()", "m.transpose([1, 0])", "x.expand([2, 3])",
    "x.gather(paddle.to_tensor([0]))", "paddle.clone(x)", "paddle.isnan(x)",
    # mixing dtypes
    "x * f", "f * x", "x + f", "x - f", "x * paddle.to_tensor([2.], dtype='float64')",
    "x * paddle.to_tensor([2., 2., 2.], dtype='float16')", "x * paddle.to_tensor(2.)",
    "paddle.to_tensor(2.) * x", "x * paddle.to_tensor([2, 2, 2], dtype='int64')",
    # the kernels it lacks
    "x + x", "x / x", "x ** 2", "2 / x", "paddle.add(x, x)", "paddle.divide(x, x)",
    "paddle.pow(x, 2)", "x.mean()", "x.max()", "x.min()", "paddle.exp(x)", "paddle.sqrt(x)",
    "paddle.tanh(x)", "paddle.nn.functional.sigmoid(x)", "paddle.nn.functional.relu(x)",
    "paddle.abs(x)", "paddle.nn.functional.softmax(x)", "paddle.matmul(x, x)", "paddle.sign(x)",
    "paddle.square(x)", "paddle.clip(x, 0, 1)", "x.cumsum()", "x.prod()", "x.argmax()",
    "x.tile([2])", "paddle.sin(x)", "paddle.rsqrt(x)", "paddle.nn.functional.gelu(x)",
    "paddle.floor(x)", "paddle.ceil(x)",
    # random numbers: the float32 draw rounded as the version rounds
    "(paddle.seed(0), paddle.rand([2], dtype='bfloat16'))[1]",
    "(paddle.seed(0), paddle.randn([3], 'bfloat16'))[1]",
    "(paddle.seed(0), paddle.uniform([3], 'bfloat16', -2, 2))[1]",
    "(paddle.seed(1), paddle.rand([1000], 'bfloat16').astype('float32').sum())[1]",
    # sums along an axis (2.x: truncated partial sums, element by element)
    "paddle.to_tensor(np.arange(240).reshape(6, 40) / 7., dtype='bfloat16').sum(axis=0)",
    "paddle.to_tensor(np.arange(240).reshape(6, 40) / 7., dtype='bfloat16').sum(axis=1)",
    "paddle.to_tensor(np.arange(240).reshape(6, 40) / 7., dtype='bfloat16').sum(axis=[0, 1])",
    # the default dtype
    "(paddle.set_default_dtype('bfloat16'), paddle.to_tensor([1.1]), paddle.get_default_dtype(),"
    " paddle.set_default_dtype('float32'))[1:3]",
    # gradients
    "bw2:(x*x).sum()",
    "bw:(x*x).sum()", "bw:(x*3).sum()", "bw:(x-x*x).sum()", "bw:(x+0.1).sum()",
    "bw:x.astype('float32').sum()", "bw:(x*x)[1]", "bw:x.sum()*1.1", "bw:(-x).sum()",
    "bw:(1-x).sum()", "bw:(x.reshape([3,1])*x).sum()", "bw:paddle.log(x*x).sum()",
    "bw:paddle.concat([x,x]).sum()",
]


def run_case(paddle, case, env):
    """The outcome of one case as text (see the module docstring)."""
    try:
        if case.startswith("bw2:"):  # two backward passes: the second adds into x.grad
            x = paddle.to_tensor([1.5, -2.25, 3.1], dtype='bfloat16', stop_gradient=False)
            eval(case[4:], {"paddle": paddle, "np": np, "x": x}).backward()
            eval(case[4:], {"paddle": paddle, "np": np, "x": x}).backward()
            return repr(x.grad)
        if case.startswith("bw:"):
            expr = case[3:]
            x = paddle.to_tensor([1.5, -2.25, 3.1], dtype='bfloat16', stop_gradient=False)
            y = eval(expr, {"paddle": paddle, "np": np, "x": x})
            y.backward()
            return f"{x.grad!r} {y.grad_fn.name()}"
        return repr(eval(case, {"paddle": paddle, "np": np, **env}))
    except Exception as e:  # noqa: BLE001 - the outcome is the error
        return f"!! {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"


def setup(paddle):
    env = {"paddle": paddle, "np": np}
    exec(SETUP, env)
    return env
