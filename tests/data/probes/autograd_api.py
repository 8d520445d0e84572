import paddle
def tryit(label, f):
    try:
        r = f()
        print(label, "->", r)
    except Exception as e:
        print(label, "EXC", type(e).__name__, str(e).splitlines()[0][:300])
x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
y = x * x
z = paddle.to_tensor([3.0, 4.0])
tryit("grad unused", lambda: paddle.grad((x*2).sum(), [x, paddle.to_tensor([1.0], stop_gradient=False)]))
tryit("grad unused allow", lambda: paddle.grad((x*2).sum(), [x, paddle.to_tensor([1.0], stop_gradient=False)], allow_unused=True))
tryit("grad stopgrad input", lambda: paddle.grad((x*z).sum(), [z]))
tryit("grad nonleaf", lambda: paddle.grad((y*3).sum(), [y]))
tryit("grad output stopgrad", lambda: paddle.grad(z.sum(), [x]))
w = x * 2
(w.sum()).backward()
print("x.grad after nonleaf hook", x.grad.numpy().tolist())
print("w.grad", w.grad)
tryit("hook on stop_gradient", lambda: z.register_hook(lambda g: g))
l = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
l.backward()
print("leaf backward grad", l.grad)
m = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
(m*2).sum().backward()
print("is_leaf", m.is_leaf, (m*2).is_leaf, z.is_leaf)
g = m.grad
(m*3).sum().backward()
print("held grad sees the sum", g.numpy().tolist(), m.grad.numpy().tolist())
print(m.gradient())
m.clear_grad()
print(m.gradient(), m.grad)
n = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
print(n.gradient(), n.grad)
k = paddle.to_tensor(3.0, stop_gradient=False)
tryit("backward create_graph", lambda: paddle.grad(k*k*k, k, create_graph=True)[0].stop_gradient)
d = paddle.to_tensor([1.0,2.0], stop_gradient=False)
e = d.detach()
print("detach shares", e.stop_gradient)
e[0] = 10.0
print(d)
print(paddle.is_grad_enabled())
with paddle.no_grad():
    print(paddle.is_grad_enabled())
