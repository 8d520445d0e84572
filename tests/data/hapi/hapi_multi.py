import numpy as np
import paddle
paddle.seed(8); np.random.seed(8)
class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.a = paddle.nn.Linear(4, 3)
        self.b = paddle.nn.Linear(2, 3)
    def forward(self, x1, x2):
        h = self.a(x1) + self.b(x2)
        return h, h * 2
def loss_fn(o1, o2, label):
    return paddle.nn.functional.cross_entropy(o1, label), paddle.mean(o2 ** 2) * 0.01
ds = paddle.io.TensorDataset([paddle.rand([9, 4]), paddle.rand([9, 2]), paddle.randint(0, 3, [9, 1])])
m = paddle.Model(Net())
m.prepare(paddle.optimizer.Momentum(learning_rate=0.1, parameters=m.parameters()), loss_fn, [paddle.metric.Accuracy(topk=(1, 2)), paddle.metric.Accuracy(name='a2')])
m.fit(ds, ds, batch_size=4, epochs=2, verbose=2, log_freq=1, shuffle=False)
out = m.predict(ds, batch_size=4, stack_outputs=True, verbose=0)
print(len(out), out[0].shape, out[1].shape, np.round(out[1][:2], 4))
res = m.evaluate(ds, batch_size=5, verbose=0)
print([round(v, 5) for v in res['loss']], {k: float(v) for k, v in res.items() if k != 'loss'})
loader = paddle.io.DataLoader(ds, batch_size=4)
print([len(o) for o in m.predict(loader, verbose=0)])
