"""A d2l (0.17.6, paddle flavour) training run on synthetic data, for tests/test_d2l.py: linear
regression from scratch (synthetic_data, load_array, linreg, squared_loss, sgd), then a softmax
classifier with train_epoch_ch3 / evaluate_accuracy / train_ch3. Run with real Paddle and with
`gradrepl run`; the printed lines are compared."""
import numpy as np
import paddle
from paddle import nn

from d2l import paddle as d2l

paddle.seed(7)
np.random.seed(7)
timer = d2l.Timer()

# --- linear regression from scratch
true_w = paddle.to_tensor([2, -3.4])
true_b = 4.2
features, labels = d2l.synthetic_data(true_w, true_b, 200)
print("features", features.shape, features.dtype, "labels", labels.shape)
data_iter = d2l.load_array((features, labels), 10)
X, y = next(iter(data_iter))
print("batch", type(X).__name__, X.shape, y.shape, X.stop_gradient)
w = paddle.normal(0, 0.01, shape=(2, 1))
b = paddle.zeros(shape=[1])
w.stop_gradient = False
b.stop_gradient = False
lr, num_epochs, batch_size = 0.03, 3, 10
for epoch in range(num_epochs):
    for X, y in data_iter:
        loss = d2l.squared_loss(d2l.linreg(X, w, b), y)
        loss.sum().backward()
        d2l.sgd([w, b], lr, batch_size)
    with paddle.no_grad():
        train_l = d2l.squared_loss(d2l.linreg(features, w, b), labels)
        print(f"epoch {epoch + 1}, loss {float(train_l.mean()):f}")
print("w error", [round(float(v), 3) for v in (true_w - w.reshape(true_w.shape)).numpy()])
print("b error", round(true_b - float(b.numpy()[0]), 3))

# --- a softmax classifier on three separable clusters
centers = paddle.to_tensor([[2.0, 0.0, 0.0, 1.0], [0.0, 2.0, 0.0, -1.0], [0.0, 0.0, 2.0, 0.0]])


def clusters(n):
    y = paddle.randint(0, 3, [n])
    X = paddle.gather(centers, y) + 0.7 * paddle.randn([n, 4])
    return X, y


train_iter = d2l.load_array(clusters(240), 16)
test_iter = d2l.load_array(clusters(90), 16, is_train=False)
net = nn.Sequential(nn.Flatten(), nn.Linear(4, 3))
net[1].weight.set_value(paddle.normal(0, 0.01, shape=[4, 3]))
net[1].bias.set_value(paddle.zeros([3]))
loss = nn.CrossEntropyLoss(reduction="none")
trainer = paddle.optimizer.SGD(learning_rate=0.1, parameters=net.parameters())
print("initial test acc", d2l.evaluate_accuracy(net, test_iter))
for epoch in range(3):
    train_loss, train_acc = d2l.train_epoch_ch3(net, train_iter, loss, trainer)
    test_acc = d2l.evaluate_accuracy(net, test_iter)
    print(f"epoch {epoch + 1}: loss {train_loss:.6f}, train acc {train_acc:.4f}, "
          f"test acc {test_acc:.4f}")
d2l.train_ch3(net, train_iter, test_iter, loss, 2, trainer)
metric = d2l.Accumulator(2)
for X, y in test_iter:
    metric.add(d2l.accuracy(net(X), y), y.numel())
print("after train_ch3", metric[0], metric[1], metric[0] / metric[1])
timer.stop()
print("timer", len(timer.times), timer.sum() > 0)
