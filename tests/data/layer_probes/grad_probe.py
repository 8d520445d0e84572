import sys, numpy as np
if sys.argv[1] == "g":
    import gradrepl.paddle as paddle
    paddle.profiles.set_profile("3")
else:
    import paddle
F = paddle.nn.functional
np.set_printoptions(precision=8, linewidth=150)
rng = np.random.default_rng(0)
for f in [lambda x: F.max_pool3d(x, (2, 3, 3), (1, 2, 2), padding=1, ceil_mode=True),
          lambda x: F.avg_pool3d(x, (2, 2, 3), 1, padding=(1, 0, 1), exclusive=False),
          lambda x: F.avg_pool3d(x, 3, 2, padding=1), lambda x: F.adaptive_avg_pool3d(x, (2, 4, 3)),
          lambda x: F.adaptive_max_pool3d(x, (3, 4, 5))]:
    x = paddle.to_tensor(rng.standard_normal((2, 3, 5, 6, 7)).astype(np.float32), stop_gradient=False)
    o = f(x)
    (o * o).sum().backward()
    g = x.grad.numpy()
    print(g.reshape(-1)[:8], float(np.abs(g).sum()))
