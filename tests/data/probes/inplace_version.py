import paddle
x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
y = x * 2
z = y * y
y.add_(paddle.to_tensor([1.0, 1.0]))
try:
    z.sum().backward()
    print("no error", x.grad)
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[0])
a = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
b = a * 2
c = b.exp()
b.add_(paddle.to_tensor([1.0, 1.0]))
try:
    c.sum().backward()
    print("no error", a.grad)
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[0])
print(b.inplace_version if hasattr(b, 'inplace_version') else '-')
