import paddle
from paddle.autograd import PyLayer
class Bad(PyLayer):
    @staticmethod
    def forward(ctx, x, w):
        return x * w
    @staticmethod
    def backward(ctx, g):
        return g
x3 = paddle.to_tensor([1.], stop_gradient=False); w3 = paddle.to_tensor([2.], stop_gradient=False)
try: Bad.apply(x3, w3).backward()
except Exception as e: print(type(e).__name__, str(e).splitlines()[0])
print(x3.grad)
w4 = paddle.to_tensor([2.])
Bad.apply(x3, w4).backward(); print(x3.grad)
