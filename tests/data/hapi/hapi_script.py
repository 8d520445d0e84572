import numpy as np
import paddle

paddle.seed(7)
np.random.seed(7)


class RandomImages(paddle.io.Dataset):
    def __init__(self, n):
        self.x = np.random.rand(n, 1, 28, 28).astype("float32")
        self.y = np.random.randint(0, 10, (n, 1)).astype("int64")

    def __getitem__(self, i):
        return self.x[i], self.y[i]

    def __len__(self):
        return len(self.x)


train = RandomImages(200)
test = RandomImages(60)
net = paddle.nn.Sequential(paddle.nn.Flatten(), paddle.nn.Linear(784, 32),
                           paddle.nn.ReLU(), paddle.nn.Linear(32, 10))
model = paddle.Model(net)
model.prepare(paddle.optimizer.Adam(learning_rate=0.001, parameters=model.parameters()),
              paddle.nn.CrossEntropyLoss(), paddle.metric.Accuracy())
model.fit(train, epochs=2, batch_size=16, verbose=1, shuffle=False, log_freq=5)
model.fit(train, test, epochs=1, batch_size=32, verbose=2, shuffle=False, log_freq=3)
res = model.evaluate(test, batch_size=16, verbose=1)
print(res, type(res["loss"]), type(res["loss"][0]), type(res["acc"]))
res = model.evaluate(test, batch_size=16, verbose=0)
print(res)
out = model.predict(test, batch_size=16)
print(type(out), len(out), len(out[0]), type(out[0][0]), out[0][0].shape, out[0][-1].shape)
print(np.round(out[0][0][:2], 3))
out = model.predict(test, batch_size=16, stack_outputs=True, verbose=0)
print(len(out), out[0].shape)
x = paddle.to_tensor(test.x[:4])
y = paddle.to_tensor(test.y[:4])
loss, acc = model.train_batch([x], [y])
print(type(loss), type(loss[0]), loss[0].dtype, loss[0].shape, "%.5f" % loss[0], acc)
loss, acc = model.eval_batch([x], [y])
print(type(loss), type(loss[0]), loss[0].dtype, loss[0].shape, "%.5f" % loss[0], acc)
pb = model.predict_batch([x])
print(type(pb), len(pb), pb[0].shape, np.round(pb[0][0], 3))
