import sys, numpy as np
if sys.argv[1] == "g":
    import gradrepl.paddle as paddle
    paddle.profiles.set_profile("3")
else:
    import paddle
F = paddle.nn.functional
np.set_printoptions(precision=7, linewidth=150)
rng = np.random.default_rng(0)
x = paddle.to_tensor(rng.standard_normal((2, 3, 5, 6, 7)).astype(np.float32), stop_gradient=False)
outs = [F.max_pool3d(x, 2, 2), F.max_pool3d(x, (2, 3, 3), (1, 2, 2), padding=1, ceil_mode=True),
        F.avg_pool3d(x, 3, 2, padding=1), F.avg_pool3d(x, (2, 2, 3), 1, padding=(1, 0, 1), exclusive=False),
        F.avg_pool3d(x, 2, 2, ceil_mode=True, divisor_override=3),
        F.adaptive_avg_pool3d(x, (2, 4, 3)), F.adaptive_max_pool3d(x, (3, 4, 5)),
        F.max_pool3d(x, 3, 2, padding="SAME"), F.avg_pool3d(x, 2, data_format="NDHWC")]
for o in outs:
    print(o.shape, o.numpy().reshape(-1)[:6])
loss = (outs[1] * outs[1]).sum() + (outs[3] * outs[3]).sum()
loss.backward()
print(x.grad.numpy().reshape(-1)[:12])
o, m = F.max_pool3d(x, 2, 2, return_mask=True)
print(m.dtype, m.numpy().reshape(-1)[:10])
o, m = F.adaptive_max_pool3d(x, (3, 4, 5), return_mask=True)
print(m.numpy().reshape(-1)[:10])
for L in [paddle.nn.MaxPool3D(2, 2), paddle.nn.AvgPool3D(3, 1, 1), paddle.nn.AdaptiveAvgPool3D((1, 2, 3)), paddle.nn.AdaptiveMaxPool3D(2)]:
    print(L, L(x).shape)
for bad in [lambda: F.max_pool3d(x[0], 2), lambda: F.avg_pool3d(x, 2, data_format="NCHW")]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
