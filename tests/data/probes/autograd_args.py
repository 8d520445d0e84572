import paddle
def T(f):
    try:
        r = f()
        print(r if isinstance(r, (paddle.Tensor, str)) else repr(r))
    except Exception as e:
        print(type(e).__name__, str(e).splitlines()[0][:160] if str(e) else '')
x = paddle.to_tensor([1., 2., 3.], stop_gradient=False)
y = x * x
T(lambda: y.backward([1., 1., 1.]))
y.backward(paddle.to_tensor([1., 0.5, 2.]))
print(x.grad)
T(lambda: y.backward())
z = (x * 2).sum()
z.backward(retain_graph=True); z.backward()
print(x.grad)
x.clear_grad(); print(x.grad)
x.clear_gradient(); print(x.grad)
(x*3).sum().backward(); print(x.gradient())
x.clear_gradient(False); print(x.grad)
x.clear_grad(set_to_zero=False) if False else None
a = paddle.to_tensor(2., stop_gradient=False)
T(lambda: paddle.grad(a*a, a))
T(lambda: paddle.grad([a*a], [a], grad_outputs=[paddle.to_tensor(3.)]))
b = paddle.to_tensor(5., stop_gradient=False)
T(lambda: paddle.grad(a*a, [a, b]))
T(lambda: paddle.grad(a*a, [a, b], allow_unused=True))
c = a * a
g = paddle.grad(c, a, create_graph=True)[0]
print(g, g.stop_gradient, g.is_leaf)
g2 = paddle.grad(g, a)[0]; print(g2)
T(lambda: paddle.grad(c, a))
d = a * b
T(lambda: paddle.grad(d, a, no_grad_vars=[b]))
e = a * 3
T(lambda: paddle.grad(e, a, retain_graph=True)); T(lambda: paddle.grad(e, a))
T(lambda: paddle.grad(e, a))
n = paddle.to_tensor(1.)
T(lambda: paddle.grad(n * 2, n))
T(lambda: (n*2).backward())
T(lambda: paddle.autograd.backward([a*a, b*b], [paddle.to_tensor(1.), None]))
print(a.grad, b.grad)
T(lambda: paddle.autograd.backward([a*a, b*b], [paddle.to_tensor(1.)]))
T(lambda: paddle.autograd.backward(a*a, paddle.to_tensor(2.)))
print(a.grad)
v = paddle.to_tensor([1., 2.], stop_gradient=False)
w = v * 2
T(lambda: w.backward())
print(v.grad)
