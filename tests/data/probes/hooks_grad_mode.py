import paddle
def T(f):
    try:
        r = f()
        print(r if isinstance(r, (paddle.Tensor, str)) else repr(r))
    except Exception as e:
        print(type(e).__name__, str(e).splitlines()[0][:160] if str(e) else '')
x = paddle.to_tensor([1., 2.], stop_gradient=False)
h = x.register_hook(lambda g: g * 10)
y = x * x
hy = y.register_hook(lambda g: print('hook y', g.numpy()))
y2 = y.register_hook(lambda g: g + 1)
y.sum().backward()
print(x.grad, y.grad)
print(h.remove(), hy.remove(), y2.remove())
T(lambda: h.remove())
x.clear_grad()
(x * x).sum().backward(); print(x.grad)
T(lambda: paddle.to_tensor([1.]).register_hook(lambda g: g))
z = x * 2
z.retain_grads()
w = z * 3
w.sum().backward()
print(z.grad, w.grad, z.is_leaf, w.is_leaf)
d = x.detach(); print(d.stop_gradient, d.is_leaf, d.grad)
d[0] = 100.; print(x)
c = x.clone(); print(c.stop_gradient, c.is_leaf, c.grad_fn is not None)
with paddle.no_grad():
    e = x * 2
print(e.stop_gradient, e.is_leaf)
paddle.set_grad_enabled(False)
print((x*2).stop_gradient, paddle.is_grad_enabled())
paddle.set_grad_enabled(True)
with paddle.set_grad_enabled(False):
    print((x*2).stop_gradient)
@paddle.no_grad()
def f(a): return a * 2
print(f(x).stop_gradient)
with paddle.no_grad():
    with paddle.enable_grad():
        print((x*2).stop_gradient)
x.stop_gradient = True
print((x*2).stop_gradient)
x.stop_gradient = False
g = x * 1
g.stop_gradient = True
T(lambda: g.sum().backward())
print(x.grad)
q = paddle.to_tensor([3.], stop_gradient=False)
r = q * 2
T(lambda: r.backward(retain_graph=True))
r.register_hook(lambda g: g * 0)
T(lambda: r.backward())
print(q.grad)
hk = q.register_hook(lambda g: None)
print(x.grad_fn is None, (x*2).grad_fn.name())
