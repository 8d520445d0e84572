import paddle
from IPython.lib.pretty import pretty
net = paddle.nn.Linear(2, 2)
print(type(net.bias.value))
print(net.bias.value)
v = net.bias.value(); print(type(v), v is net.bias)
for x, y in [('complex64', 'float64'), ('complex64', 'float32'), ('complex128', 'float32'), ('float64', 'complex64')]:
    a = paddle.ones([2], dtype=x); b = paddle.ones([2], dtype=y); print(x, y, (a + b).dtype, (a * b).dtype)
print(pretty(type(paddle.ones([1]))), pretty(paddle.nn.Linear))
class N(paddle.nn.Layer):
    pass
print(pretty(N))
