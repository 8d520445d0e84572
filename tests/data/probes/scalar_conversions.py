import paddle, numpy as np, math
def T(f):
    try:
        r = f()
        print(r if isinstance(r, (paddle.Tensor, str)) else repr(r))
    except Exception as e:
        print(type(e).__name__, str(e).splitlines()[0][:150] if str(e) else '')
def it():
    for v in paddle.to_tensor(3.0):
        print(v)
T(it)
for v in [[2.5], [[2]], 2.5, [0.0], 0, [3]]:
  for dt in ['float32', 'int64', 'bool']:
    t = paddle.to_tensor(v, dtype=dt)
    T(lambda: float(t)); T(lambda: int(t)); T(lambda: bool(t)); T(lambda: '%.2f' % t); T(lambda: complex(t))
    T(lambda: [10,20,30,40][t]); T(lambda: t.__index__())
    T(lambda: '{:.2f}'.format(t))
    T(lambda: '{:>10}'.format(t))
    T(lambda: math.floor(t))
t = paddle.to_tensor([1,2])
T(lambda: int(t)); T(lambda: complex(t)); T(lambda: [1,2][t]); T(lambda: t.item(5))
T(lambda: paddle.to_tensor([1.,2.]).item(5))
T(lambda: paddle.to_tensor([1.,2.]).item(0, 0))
T(lambda: paddle.to_tensor([[1.,2.]]).item(0, 1))
T(lambda: paddle.to_tensor([]).item())
T(lambda: paddle.to_tensor(np.zeros([0,3])).item())
T(lambda: math.floor(paddle.to_tensor(2.5)))
T(lambda: round(paddle.to_tensor(2.567), 2))
T(lambda: round(paddle.to_tensor([2.567])))
T(lambda: abs(paddle.to_tensor(-2.5)))
