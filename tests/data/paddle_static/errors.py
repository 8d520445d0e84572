# Misuse of static mode, as Paddle reports it. Our own cases.
import numpy as np
import paddle

paddle.enable_static()
x = paddle.static.data(name="x", shape=[None, 2], dtype="float32")
y = x * 2.0
exe = paddle.static.Executor()
cases = [
    lambda: exe.run(feed={"x": np.ones((1, 2), "float32")}, fetch_list=["missing"]),
    lambda: exe.run(feed={}, fetch_list=[y]),
    lambda: x.numpy(),
]
try:
    x[0] = 1.0
    print("setitem recorded")
except RuntimeError as e:
    print("RuntimeError", e)
for case in cases:
    try:
        print(case())
    except Exception as e:  # noqa: BLE001
        print(type(e).__name__, str(e).splitlines()[0])
paddle.disable_static()
for case in [lambda: x + 1, lambda: paddle.add(x, x), lambda: paddle.exp(x)]:
    try:
        print(case())
    except Exception as e:  # noqa: BLE001
        print(type(e).__name__, str(e).splitlines()[0])
print(x.shape)
print(paddle.ones([2]) + 1)
