# Second-order gradients: paddle.grad with create_graph=True builds the backward ops as a graph
# of their own, which can be differentiated again. `gradrepl graph second_order.py --tensor dx`
# colours the ops the first backward made (derivative order 2).
import paddle

x = paddle.to_tensor(3.0, stop_gradient=False)
y = x * x * x
(dx,) = paddle.grad(y, x, create_graph=True)
(ddx,) = paddle.grad(dx, x)
print("dy/dx =", dx.numpy(), " d2y/dx2 =", ddx.numpy())
