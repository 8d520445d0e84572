import paddle
x = paddle.to_tensor([1., 2.], stop_gradient=False)
n = paddle.to_tensor([1., 2.])
print(x.grad_fn is None, n.grad_fn is None)
print(x.grad_fn.name(), (x*2).grad_fn.name(), (x*x).grad_fn.name())
print([type(f).__name__ for f in (x*x).grad_fn.next_functions])
print([f.name() for f in (x*x+1).grad_fn.next_functions])
with paddle.no_grad():
    print((x*2).grad_fn is None)
