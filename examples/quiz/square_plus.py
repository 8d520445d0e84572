# One tensor, three paths: y = x * x + x at x = 3. dy/dx = 3 + 3 + 1 = 7
# (x as the left operand of x * x, x as the right operand, and x itself).
import paddle

x = paddle.to_tensor(3.0, stop_gradient=False)
y = x * x + x
y.backward()
print(x.grad)
