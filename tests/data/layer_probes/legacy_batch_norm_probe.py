import sys, numpy as np
if sys.argv[1] == "g":
    import gradrepl.paddle as paddle
    paddle.profiles.set_profile("3")
else:
    import paddle
np.set_printoptions(precision=8, linewidth=150)
rng = np.random.default_rng(0)
x = paddle.to_tensor(rng.standard_normal((3, 4, 2, 5)).astype(np.float32), stop_gradient=False)
bn = paddle.nn.BatchNorm(4, act="relu")
print(bn, bn.weight.name, bn._mean.name, [p.name for p in bn.parameters()])
y = bn(x)
y.sum().backward()
print(y.numpy().reshape(-1)[:6], bn._mean.numpy())  # (its input gradient: last-bit differences)
bn.eval()
print(bn(x).numpy().reshape(-1)[:6])
x2 = paddle.to_tensor(rng.standard_normal((3, 4)).astype(np.float32))
print(paddle.nn.BatchNorm(4, is_test=True)(x2).numpy().reshape(-1)[:6])
