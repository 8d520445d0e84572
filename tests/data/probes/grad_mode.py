import paddle
x = paddle.to_tensor([1.0], stop_gradient=False)
@paddle.no_grad()
def g(t): return t * 2
print(g(x).stop_gradient, (x*2).stop_gradient)
with paddle.no_grad():
    with paddle.enable_grad():
        print((x*2).stop_gradient)
    print((x*2).stop_gradient)
paddle.set_grad_enabled(False)
print((x*2).stop_gradient, paddle.is_grad_enabled())
paddle.set_grad_enabled(True)
with paddle.set_grad_enabled(False):
    print((x*2).stop_gradient)
print((x*2).stop_gradient)
