import sys, numpy as np
if sys.argv[1] == "g":
    import gradrepl.paddle as paddle
    paddle.profiles.set_profile("3")
else:
    import paddle
np.set_printoptions(precision=6)
rng = np.random.default_rng(0)
w = paddle.to_tensor(rng.standard_normal((4, 3, 2)).astype(np.float32), stop_gradient=False)
sn = paddle.nn.SpectralNorm([4, 3, 2], dim=1, power_iters=5)
sn.weight_u.set_value(rng.standard_normal(3).astype(np.float32))
sn.weight_v.set_value(rng.standard_normal(8).astype(np.float32))
out = sn(w)
out.sum().backward()
print(out.shape, out.numpy().reshape(-1)[:6], w.grad.numpy().reshape(-1)[:6])
print(np.linalg.svd(out.numpy().transpose(1, 0, 2).reshape(3, -1), compute_uv=False)[0])
