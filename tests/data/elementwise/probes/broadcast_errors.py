import paddle
try:
    paddle.to_tensor([1.0, 2.0, 3.0]) + paddle.to_tensor([1.0, 2.0])
except Exception as e:
    print(type(e).__name__, str(e).split("\n")[0])
try:
    paddle.to_tensor([[1.0, 2.0, 3.0]]) * paddle.to_tensor([[1.0], [2.0]]).reshape([1,2,1]).expand([2,2,4])
except Exception as e:
    print(type(e).__name__, str(e).split("\n")[0])
