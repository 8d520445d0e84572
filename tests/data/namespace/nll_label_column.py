import paddle, numpy as np
y = paddle.nn.functional.log_softmax(paddle.to_tensor(np.arange(12, dtype='float32').reshape(4, 3) / 7))
lab = paddle.to_tensor(np.array([[0], [2], [1], [1]], dtype='int64'))
print(paddle.nn.functional.nll_loss(y, lab))
print(paddle.nn.functional.nll_loss(y, lab, reduction='none'))
print(paddle.nn.functional.nll_loss(y, lab.flatten()))
