import paddle
x = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
y = x + 3
y.backward(retain_graph=True) # 设置retain_graph为True，保留反向计算图
print("Tensor x's grad is: {}".format(x.grad))
