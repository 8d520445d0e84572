import numpy as np
import paddle
paddle.seed(2); np.random.seed(2)
ds = paddle.io.TensorDataset([paddle.rand([12, 6]), paddle.randint(0, 3, [12, 1])])
ev = paddle.io.TensorDataset([paddle.rand([6, 6]), paddle.randint(0, 3, [6, 1])])
net = paddle.nn.Sequential(paddle.nn.Linear(6, 3))
m = paddle.Model(net)
opt = paddle.optimizer.SGD(learning_rate=0.5, parameters=m.parameters())
m.prepare(opt, paddle.nn.CrossEntropyLoss(), paddle.metric.Accuracy())
cb = paddle.callbacks.ReduceLROnPlateau(patience=1, factor=0.5, min_delta=0.5, cooldown=1)
m.fit(ds, ev, batch_size=4, epochs=6, verbose=0, callbacks=[cb])
print(opt.get_lr(), cb.wait, cb.cooldown_counter, cb.epoch)
try:
    paddle.callbacks.ReduceLROnPlateau(factor=1.0)
except ValueError as e:
    print(e)
try:
    paddle.callbacks.WandbCallback()
except ImportError as e:
    print(e)
