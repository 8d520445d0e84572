import sys, numpy as np
if sys.argv[1] == "g":
    import gradrepl.paddle as paddle
    paddle.profiles.set_profile("3")
else:
    import paddle
F = paddle.nn.functional
np.set_printoptions(precision=8, linewidth=150)
rng = np.random.default_rng(0)
x = np.abs(rng.standard_normal((1, 2, 5, 6))).astype(np.float32) + 0.1
for args in [(2.0, 2, 2), (3.0, 2, 2), (1.5, (3, 2), 1, 1), (2.0, 3, 2, 1, True)]:
    t = paddle.to_tensor(x, stop_gradient=False)
    y = F.lp_pool2d(t, *args)
    y.sum().backward()
    print(y.shape, y.numpy().reshape(-1)[:6])  # (gradients: last-bit differences)
x1 = paddle.to_tensor(x[0])
print(F.lp_pool1d(x1, 2.0, 3, 2).numpy().reshape(-1)[:5])
print(paddle.nn.LPPool2D(2, 3), paddle.nn.LPPool1D(3.0, 2, 1))
