import paddle
x = paddle.to_tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], stop_gradient=False)
y = paddle.tril(x) * 3 + x.triu(1)
print(y)
y.sum().backward()
print(x.grad)
