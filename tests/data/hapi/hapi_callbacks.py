import os
import tempfile

import numpy as np
import paddle

paddle.seed(11)
np.random.seed(11)
work = tempfile.mkdtemp()
os.chdir(work)
print("CWD", os.getcwd())


class RandomImages(paddle.io.Dataset):
    def __init__(self, n):
        self.x = np.random.rand(n, 1, 28, 28).astype("float32")
        self.y = np.random.randint(0, 10, (n, 1)).astype("int64")

    def __getitem__(self, i):
        return self.x[i], self.y[i]

    def __len__(self):
        return len(self.x)


class Recorder(paddle.callbacks.Callback):
    def on_epoch_end(self, epoch, logs=None):
        print("epoch_end", epoch, sorted(logs), round(float(logs["loss"][0]), 4))

    def on_eval_end(self, logs=None):
        print("eval_end", sorted(logs), logs["batch_size"], logs["step"])


train = RandomImages(200)
test = RandomImages(40)
net = paddle.nn.Sequential(paddle.nn.Flatten(), paddle.nn.Linear(784, 32),
                           paddle.nn.ReLU(), paddle.nn.Linear(32, 10))
model = paddle.Model(net)
sched = paddle.optimizer.lr.StepDecay(learning_rate=0.01, step_size=5, gamma=0.5)
model.prepare(paddle.optimizer.Adam(learning_rate=sched, parameters=model.parameters()),
              paddle.nn.CrossEntropyLoss(), paddle.metric.Accuracy(topk=(1, 3)))
stop = paddle.callbacks.EarlyStopping(monitor="loss", patience=1, verbose=1)
model.fit(train, test, epochs=6, batch_size=40, verbose=2, log_freq=2,
          save_dir="ck", save_freq=2, callbacks=[Recorder(), stop])
print("lr", round(sched.get_lr(), 6), "last_epoch", sched.last_epoch)
print(sorted(os.listdir("ck")))
loader = paddle.io.DataLoader(test, batch_size=20, shuffle=False)
print(model.evaluate(loader, verbose=2, log_freq=1))
model.fit(loader, epochs=1, verbose=0, shuffle=True)
model.load("ck/best_model")
print(model.evaluate(test, batch_size=40, verbose=0))
model.save("out/m")
print(sorted(os.listdir("out")))
info = model.summary((1, 1, 28, 28))
print(info)
os.chdir(os.path.dirname(work))
import shutil
shutil.rmtree(work)
