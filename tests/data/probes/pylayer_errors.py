import paddle
from paddle.autograd import PyLayer
class NoBack(PyLayer):
    @staticmethod
    def forward(ctx, x):
        return x * 2
x4 = paddle.to_tensor([1., 2.], stop_gradient=False)
try:
    NoBack.apply(x4).sum().backward()
except Exception as e: print(type(e).__name__, str(e).splitlines()[0])
class Many(PyLayer):
    @staticmethod
    def forward(ctx, x):
        return x * 2
    @staticmethod
    def backward(ctx, g):
        return g, g
try:
    Many.apply(x4).sum().backward()
except Exception as e: print(type(e).__name__, str(e).splitlines()[0])
class NoFwd(PyLayer):
    pass
try:
    NoFwd.apply(x4)
except Exception as e: print(type(e).__name__, str(e).splitlines()[0])
class BadRet(PyLayer):
    @staticmethod
    def forward(ctx, x):
        return x * 2
    @staticmethod
    def backward(ctx, g):
        return 5
try:
    BadRet.apply(x4).sum().backward()
except Exception as e: print(type(e).__name__, str(e).splitlines()[0])
class NonT(PyLayer):
    @staticmethod
    def forward(ctx, x):
        return 3
    @staticmethod
    def backward(ctx, g):
        return g
try:
    print(NonT.apply(x4))
except Exception as e: print(type(e).__name__, str(e).splitlines()[0])
