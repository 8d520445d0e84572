import sys, numpy as np
if sys.argv[1] == "g":
    import gradrepl.paddle as paddle
    paddle.profiles.set_profile("3")
else:
    import paddle
F = paddle.nn.functional
np.set_printoptions(precision=8, linewidth=150)
rng = np.random.default_rng(0)
for shape, fmt in [((2, 6, 4), "NCL"), ((2, 5, 3, 4), "NCHW"), ((2, 3, 4, 5), "NHWC"), ((1, 4, 2, 3, 2), "NCDHW")]:
    x = paddle.to_tensor(rng.standard_normal(shape).astype(np.float32), stop_gradient=False)
    y = F.local_response_norm(x, 3, data_format=fmt)
    y.sum().backward()
    print(y.shape, y.numpy().reshape(-1)[:5], x.grad.numpy().reshape(-1)[:5])
m = paddle.nn.LocalResponseNorm(5, data_format="NHWC")
print(m)
print(paddle.nn.LocalResponseNorm(3))
