# d2l "MLP from scratch" and "weight decay" style
import torch
from torch import nn
from torch.utils import data

def relu(X):
    a = torch.zeros_like(X)
    return torch.max(X, a)

x = torch.arange(-4.0, 4.0, 1.0, requires_grad=True)
y = torch.relu(x)
y.backward(torch.ones_like(x), retain_graph=True)
print(relu(x.detach()), x.grad)
x.grad.data.zero_()
y = torch.sigmoid(x)
y.backward(torch.ones_like(x))
print(y.detach(), x.grad)
x.grad.data.zero_()
torch.tanh(x).backward(torch.ones_like(x))
print(x.grad)

torch.manual_seed(7)
num_inputs, num_outputs, num_hiddens = 20, 3, 16
Xall = torch.randn(300, num_inputs)
yall = (Xall[:, :3].argmax(1))
train_iter = data.DataLoader(data.TensorDataset(Xall[:240], yall[:240]), batch_size=30, shuffle=True)
W1 = nn.Parameter(torch.randn(num_inputs, num_hiddens, requires_grad=True) * 0.01)
b1 = nn.Parameter(torch.zeros(num_hiddens, requires_grad=True))
W2 = nn.Parameter(torch.randn(num_hiddens, num_outputs, requires_grad=True) * 0.01)
b2 = nn.Parameter(torch.zeros(num_outputs, requires_grad=True))
params = [W1, b1, W2, b2]
print(W1.shape, type(W1).__name__, W1.requires_grad, W1.is_leaf)

def net(X):
    X = X.reshape((-1, num_inputs))
    H = relu(X @ W1 + b1)
    return H @ W2 + b2

loss = nn.CrossEntropyLoss(reduction='none')
updater = torch.optim.SGD(params, lr=0.5)
for epoch in range(6):
    tot = 0.0
    for X, y in train_iter:
        l = loss(net(X), y)
        updater.zero_grad()
        l.mean().backward()
        updater.step()
        tot += l.sum().item()
    acc = (net(Xall[240:]).argmax(1) == yall[240:]).float().mean()
    print(f'epoch {epoch + 1} loss {tot / 240:.4f} test acc {acc:.4f}')

# weight decay on a high-dimensional linear regression
n_train, n_test, num_inputs, batch_size = 20, 100, 200, 5
true_w, true_b = torch.ones((num_inputs, 1)) * 0.01, 0.05
Xw = torch.normal(0, 1, (n_train + n_test, num_inputs))
yw = Xw @ true_w + true_b + torch.normal(0, 0.01, (n_train + n_test, 1))
train_w = data.DataLoader(data.TensorDataset(Xw[:n_train], yw[:n_train]), batch_size, shuffle=True)

def l2_penalty(w):
    return torch.sum(w.pow(2)) / 2

def train(lambd):
    w = torch.normal(0, 1, size=(num_inputs, 1), requires_grad=True)
    b = torch.zeros(1, requires_grad=True)
    for epoch in range(20):
        for X, y in train_w:
            l = (X @ w + b - y) ** 2 / 2 + lambd * l2_penalty(w)
            l.sum().backward()
            with torch.no_grad():
                for p in (w, b):
                    p -= 0.003 * p.grad / batch_size
                    p.grad.zero_()
    test_l = ((Xw[n_train:] @ w + b - yw[n_train:]) ** 2 / 2).mean()
    print('lambda', lambd, 'L2 norm of w:', torch.norm(w).item(), 'test loss', f'{test_l.item():.5f}')

train(lambd=0)
train(lambd=3)

def train_concise(wd):
    net = nn.Sequential(nn.Linear(num_inputs, 1))
    for param in net.parameters():
        param.data.normal_()
    trainer = torch.optim.SGD([{"params": net[0].weight, 'weight_decay': wd},
                               {"params": net[0].bias}], lr=0.003)
    lossf = nn.MSELoss(reduction='none')
    for epoch in range(20):
        for X, y in train_w:
            trainer.zero_grad()
            l = lossf(net(X), y)
            l.mean().backward()
            trainer.step()
    print('wd', wd, 'L2 norm of w:', net[0].weight.norm().item())
    print(len(trainer.param_groups), trainer.param_groups[0]['weight_decay'], trainer.param_groups[1]['weight_decay'])

train_concise(0)
train_concise(3)
