# d2l "concise softmax regression" and "concise MLP" style: nn.Flatten, init via apply,
# CrossEntropyLoss(reduction='none'), optim.SGD
import torch
from torch import nn
from torch.utils import data

torch.manual_seed(3)
centers = torch.randn(10, 64)
labels = torch.randint(0, 10, (400,))
images = (centers[labels] + 0.8 * torch.randn(400, 64)).reshape(400, 1, 8, 8)
train_iter = data.DataLoader(data.TensorDataset(images[:320], labels[:320]), batch_size=32, shuffle=True)
test_iter = data.DataLoader(data.TensorDataset(images[320:], labels[320:]), batch_size=40)

def init_weights(m):
    if type(m) == nn.Linear:
        nn.init.normal_(m.weight, std=0.01)

def accuracy(y_hat, y):
    return float((y_hat.argmax(axis=1).type(y.dtype) == y).type(y.dtype).sum())

def evaluate(net, it):
    net.eval()
    right, total = 0.0, 0
    with torch.no_grad():
        for X, y in it:
            right += accuracy(net(X), y)
            total += y.numel()
    return right / total

def train(net, num_epochs, lr):
    loss = nn.CrossEntropyLoss(reduction='none')
    trainer = torch.optim.SGD(net.parameters(), lr=lr)
    for epoch in range(num_epochs):
        net.train()
        total, n, right = 0.0, 0, 0.0
        for X, y in train_iter:
            y_hat = net(X)
            l = loss(y_hat, y)
            trainer.zero_grad()
            l.mean().backward()
            trainer.step()
            total += float(l.sum())
            right += accuracy(y_hat, y)
            n += y.numel()
        print(f'epoch {epoch + 1}: loss {total / n:.5f} train acc {right / n:.4f} test acc {evaluate(net, test_iter):.4f}')

net = nn.Sequential(nn.Flatten(), nn.Linear(64, 10))
net.apply(init_weights)
print(net)
train(net, 4, 0.1)

net = nn.Sequential(nn.Flatten(), nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10))
net.apply(init_weights)
print(net)
train(net, 4, 0.1)
print(net[1].weight.shape, net[1].bias[:4])
X = images[:2]
print(net(X))
print(nn.functional.softmax(net(X), dim=1).sum(1))
print(type(net[2]).__name__, net[3].out_features)
