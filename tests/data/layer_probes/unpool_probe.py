import sys, numpy as np
if sys.argv[1] == "g":
    import gradrepl.paddle as paddle
    paddle.profiles.set_profile("3")
else:
    import paddle
F = paddle.nn.functional
np.set_printoptions(precision=8, linewidth=150)
rng = np.random.default_rng(0)
x = paddle.to_tensor(rng.standard_normal((1, 2, 4, 6)).astype(np.float32), stop_gradient=False)
o, idx = F.max_pool2d(x, 2, 2, return_mask=True)
u = F.max_unpool2d(o, idx, 2, 2)
print(u.shape, u.numpy().reshape(-1)[:12])
(u * u).sum().backward()
print(x.grad.numpy().reshape(-1)[:12])
print(F.max_unpool2d(o, idx, 2, 2, output_size=[5, 7]).shape)
x3 = paddle.to_tensor(rng.standard_normal((1, 1, 4, 4, 6)).astype(np.float32))
o3, i3 = F.max_pool3d(x3, 2, 2, return_mask=True)
print(F.max_unpool3d(o3, i3, 2, 2).numpy().reshape(-1)[:10])
x1 = paddle.to_tensor(rng.standard_normal((1, 3, 8)).astype(np.float32))
o1, i1 = F.max_pool1d(x1, 2, 2, return_mask=True)
print(F.max_unpool1d(o1, i1, 2, 2).numpy().reshape(-1)[:10], F.max_unpool1d(o1, i1, 2, 2, output_size=[1, 3, 9]).shape)
print(paddle.nn.MaxUnPool2D(2, 2), paddle.nn.MaxUnPool1D(2, output_size=[1, 3, 9]))
for bad in [lambda: F.max_unpool2d(o, idx, 2, 2, output_size=[9, 9]), lambda: F.max_unpool2d(o[0], idx, 2)]:
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
