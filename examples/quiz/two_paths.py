# Two paths to w: the loss uses w twice. L = (w * x + w) * y at w = 2, x = 3, y = 5.
# dL/dw = x * y + y = 15 + 5 = 20: a path through w * x and a path through "+ w".
import paddle

w = paddle.to_tensor(2.0, stop_gradient=False)
x = paddle.to_tensor(3.0)
y = paddle.to_tensor(5.0)
h = w * x + w
L = h * y
L.backward()
print(w.grad)
