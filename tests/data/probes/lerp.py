import paddle
x = paddle.to_tensor([1.0, 2.0, 3.5], stop_gradient=False)
y = paddle.to_tensor([4.0, -1.0, 0.25], stop_gradient=False)
w = paddle.to_tensor([0.3, 0.7, 0.1], stop_gradient=False)
z = paddle.lerp(x, y, w)
print(z)
(z * paddle.to_tensor([1.5, -2.0, 0.3])).sum().backward()
print(x.grad, y.grad, w.grad)
print(paddle.lerp(x, y, 0.5))
