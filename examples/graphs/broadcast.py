# Broadcasting: b (shape [3]) is added to every row of x (shape [2, 3]); in the backward pass the
# gradient of b is the sum of out_grad over the broadcast axis.
import paddle

x = paddle.to_tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], stop_gradient=False)
b = paddle.to_tensor([10.0, 20.0, 30.0], stop_gradient=False)
y = x + b
loss = y.sum()
loss.backward()
print(b.grad)
