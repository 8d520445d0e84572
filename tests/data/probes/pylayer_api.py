import paddle
from paddle.autograd import PyLayer
def T(f):
    try:
        r = f()
        print(r if isinstance(r, (paddle.Tensor, str)) else repr(r))
    except Exception as e:
        print(type(e).__name__, str(e).splitlines()[0][:160] if str(e) else '')
class Cube(PyLayer):
    @staticmethod
    def forward(ctx, x, k=2.0):
        ctx.save_for_backward(x)
        ctx.k = k
        return x ** 3 * k
    @staticmethod
    def backward(ctx, dy):
        x, = ctx.saved_tensor()
        return dy * 3 * x ** 2 * ctx.k
x = paddle.to_tensor([1., 2.], stop_gradient=False)
y = Cube.apply(x, k=3.0)
print(y, y.stop_gradient, y.grad_fn.name() if y.grad_fn else None)
y.sum().backward(); print(x.grad)
class Two(PyLayer):
    @staticmethod
    def forward(ctx, a, b):
        return a + b, a * b
    @staticmethod
    def backward(ctx, g1, g2):
        print('g', g1, g2)
        return g1, g2
a = paddle.to_tensor(2., stop_gradient=False); b = paddle.to_tensor(3., stop_gradient=False)
s, p = Two.apply(a, b)
s.backward()
print(a.grad, b.grad)
class ND(PyLayer):
    @staticmethod
    def forward(ctx, x):
        y = x * 2
        idx = paddle.to_tensor([0])
        ctx.mark_non_differentiable(idx)
        return y, idx
    @staticmethod
    def backward(ctx, g, gi):
        print('gi', gi)
        return g
u = paddle.to_tensor([1., 2.], stop_gradient=False)
y, idx = ND.apply(u)
print(idx.stop_gradient, y.stop_gradient)
y.sum().backward(); print(u.grad)
class NoneGrad(PyLayer):
    @staticmethod
    def forward(ctx, x, w):
        return x * w
    @staticmethod
    def backward(ctx, g):
        return g, None
x2 = paddle.to_tensor([1.], stop_gradient=False); w2 = paddle.to_tensor([2.], stop_gradient=False)
NoneGrad.apply(x2, w2).backward(); print(x2.grad, w2.grad)
class Bad(PyLayer):
    @staticmethod
    def forward(ctx, x, w):
        return x * w
    @staticmethod
    def backward(ctx, g):
        return g
x3 = paddle.to_tensor([1.], stop_gradient=False); w3 = paddle.to_tensor([2.], stop_gradient=False)
T(lambda: Bad.apply(x3, w3).backward())
class BadShape(PyLayer):
    @staticmethod
    def forward(ctx, x):
        return x * 2
    @staticmethod
    def backward(ctx, g):
        return paddle.ones([5])
x4 = paddle.to_tensor([1., 2.], stop_gradient=False)
T(lambda: Cube.apply(paddle.to_tensor([1.])).stop_gradient)
class NoBack(PyLayer):
    @staticmethod
    def forward(ctx, x):
        return x * 2
T(lambda: NoBack.apply(x4).sum().backward())
T(lambda: Cube.forward(None, x4))
class Dbl(PyLayer):
    @staticmethod
    def forward(ctx, x):
        return x.clone()
    @staticmethod
    def backward(ctx, g):
        return g * 2
x5 = paddle.to_tensor([1.], stop_gradient=False)
class RetNone(PyLayer):
    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        return x * 1, x * 2
    @staticmethod
    def backward(ctx, g1, g2):
        print('g2', g2)
        return g1
x6 = paddle.to_tensor([1.], stop_gradient=False)
o1, o2 = RetNone.apply(x6); o1.backward(); print(x6.grad)
