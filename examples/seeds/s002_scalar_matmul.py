# The article's interactive session (printed there with Place(gpu:0); the 2.2 CPU build prints CPUPlace).
import paddle
TT = paddle.to_tensor
x = paddle.to_tensor([1], dtype='float32', stop_gradient=False)
y = paddle.to_tensor([2], dtype='float32')
z = paddle.matmul(x, y)
print("x: {}".format(x),"y: {}".format(y),"z: {}".format(z))
print("x.grad: {}".format(x.grad), "y.grad: {}".format(y.grad), "z.grad: {}".format(z.grad))
paddle.autograd.backward(z, paddle.to_tensor([3], dtype='float32'))
print("x.grad: {}".format(x.grad), "y.grad: {}".format(y.grad), "z.grad: {}".format(z.grad))
try:
    paddle.autograd.backward(z, paddle.to_tensor([3], dtype='float32'))
except RuntimeError as e:
    print("RuntimeError:", str(e).splitlines()[0])
x.clear_grad()
y.clear_grad()
z.clear_grad()
x = paddle.to_tensor([1], dtype='float32', stop_gradient=False)
z = paddle.matmul(x, y)
paddle.autograd.backward(z, TT([3], dtype='float32'), retain_graph=True)
print("x.grad: {}".format(x.grad), "y.grad: {}".format(y.grad), "z.grad: {}".format(z.grad))
paddle.autograd.backward(z, TT([3], dtype='float32'), retain_graph=True)
print("x.grad: {}".format(x.grad), "y.grad: {}".format(y.grad), "z.grad: {}".format(z.grad))
