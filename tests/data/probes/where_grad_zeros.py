import paddle
x = paddle.to_tensor([1.0, -2.0, 3.0, -4.0], stop_gradient=False)
y = paddle.to_tensor([10.0, 20.0, 30.0, 40.0], stop_gradient=False)
z = paddle.where(x > 0, x, y)
z.backward(paddle.to_tensor([-1.0, -2.0, 0.5, -0.0]))
print(x.grad.numpy().tolist(), y.grad.numpy().tolist())
print(x.grad, y.grad)
