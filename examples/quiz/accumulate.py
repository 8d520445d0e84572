# Accumulation: two backward() calls on the same graph add up in x.grad.
# y = x * x at x = 2: each backward() adds dy/dx = 2x = 4, so x.grad is 4 + 4 = 8.
import paddle

x = paddle.to_tensor(2.0, stop_gradient=False)
y = x * x
y.backward(retain_graph=True)
y.backward()
print(x.grad)
