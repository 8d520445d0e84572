import paddle, numpy as np
x = paddle.to_tensor([1.0])
print(x.dtype == 'float32', x.dtype != 'float32', x.dtype == np.float32, x.dtype == paddle.float32, x.dtype in ['float32'], x.dtype == paddle.float64)
print(paddle.float32 == 'float32', str(x.dtype) == 'paddle.float32')
print(paddle.int64 == 'int64', paddle.float32 == np.dtype('float32'))
