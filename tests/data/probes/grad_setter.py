import paddle
def T(f):
    try:
        r = f()
        print(r if isinstance(r, (paddle.Tensor, str)) else repr(r))
    except Exception as e:
        print(type(e).__name__, str(e).splitlines()[0])
x = paddle.to_tensor([1., 2.], stop_gradient=False)
(x*2).sum().backward()
x.grad = paddle.to_tensor([5., 5.])
print(x.grad.numpy(), x.grad.stop_gradient)
(x*2).sum().backward()
print(x.grad.numpy())
y = paddle.to_tensor([1., 2.], stop_gradient=False)
y.grad = paddle.to_tensor([5., 5.])
print(y.grad.numpy())
(y*2).sum().backward()
print(y.grad.numpy())
T(lambda: setattr(y, 'grad', [1., 2.]))
z = paddle.to_tensor([1., 2.], stop_gradient=False)
(z * z).sum().backward()
z.detach_()
print(z.stop_gradient, z.grad)
