import numpy as np
import paddle
paddle.seed(5); np.random.seed(5)
ds = paddle.io.TensorDataset([paddle.rand([10, 6]), paddle.randint(0, 3, [10, 1])])
net = paddle.nn.Sequential(paddle.nn.Linear(6, 3))
m = paddle.Model(net)
m.prepare(paddle.optimizer.SGD(learning_rate=0.5, parameters=m.parameters()), paddle.nn.CrossEntropyLoss(), paddle.metric.Accuracy())
m.fit(ds, batch_size=3, epochs=2, verbose=2, log_freq=1, accumulate_grad_batches=2, shuffle=True)
m.fit(ds, ds, batch_size=3, epochs=5, verbose=2, log_freq=1, num_iters=6)
print(m.stop_training)
m.fit(ds, batch_size=3, epochs=3, verbose=2, log_freq=2)
print(m.evaluate(ds, batch_size=2, verbose=2, log_freq=1, num_iters=3))
print(np.round(net[0].weight.numpy(), 4))
