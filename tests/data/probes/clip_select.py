import paddle, numpy as np
x = paddle.to_tensor([0.0, 0.5, 2.0, -2.0, 0.3], stop_gradient=False)
y = paddle.clip(x, -1.0, 1.0)
g = paddle.to_tensor([-0.0, -0.0, float('nan'), float('nan'), -1.0])
y.backward(g)
print(x.grad.numpy().tolist())
