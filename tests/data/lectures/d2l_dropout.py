# d2l "dropout" style: dropout_layer by hand, a Net class with is_training, nn.Dropout
import torch
from torch import nn

def dropout_layer(X, dropout):
    assert 0 <= dropout <= 1
    if dropout == 1:
        return torch.zeros_like(X)
    if dropout == 0:
        return X
    mask = (torch.rand(X.shape) > dropout).float()
    return mask * X / (1.0 - dropout)

torch.manual_seed(0)
X = torch.arange(16, dtype=torch.float32).reshape((2, 8))
print(X)
print(dropout_layer(X, 0.))
print(dropout_layer(X, 0.5))
print(dropout_layer(X, 1.))

num_inputs, num_outputs, num_hiddens1, num_hiddens2 = 12, 4, 32, 32
dropout1, dropout2 = 0.2, 0.5

class Net(nn.Module):
    def __init__(self, num_inputs, num_outputs, num_hiddens1, num_hiddens2, is_training=True):
        super(Net, self).__init__()
        self.num_inputs = num_inputs
        self.training = is_training
        self.lin1 = nn.Linear(num_inputs, num_hiddens1)
        self.lin2 = nn.Linear(num_hiddens1, num_hiddens2)
        self.lin3 = nn.Linear(num_hiddens2, num_outputs)
        self.relu = nn.ReLU()

    def forward(self, X):
        H1 = self.relu(self.lin1(X.reshape((-1, self.num_inputs))))
        if self.training:
            H1 = dropout_layer(H1, dropout1)
        H2 = self.relu(self.lin2(H1))
        if self.training:
            H2 = dropout_layer(H2, dropout2)
        return self.lin3(H2)

net = Net(num_inputs, num_outputs, num_hiddens1, num_hiddens2)
print(net)
Xs = torch.randn(200, num_inputs)
ys = (Xs[:, 0] > 0).long() + 2 * (Xs[:, 1] > 0).long()
loss = nn.CrossEntropyLoss()
trainer = torch.optim.SGD(net.parameters(), lr=0.5)
for epoch in range(5):
    for i in range(0, 200, 25):
        l = loss(net(Xs[i:i + 25]), ys[i:i + 25])
        trainer.zero_grad()
        l.backward()
        trainer.step()
    net.eval()
    with torch.no_grad():
        acc = (net(Xs).argmax(1) == ys).float().mean().item()
    net.train()
    print(f'epoch {epoch + 1}: last loss {l.item():.4f}, acc {acc:.3f}')

net = nn.Sequential(nn.Flatten(),
                    nn.Linear(num_inputs, num_hiddens1), nn.ReLU(), nn.Dropout(dropout1),
                    nn.Linear(num_hiddens1, num_hiddens2), nn.ReLU(), nn.Dropout(dropout2),
                    nn.Linear(num_hiddens2, num_outputs))
print(net)
h = torch.ones(3, 10)
drop = nn.Dropout(0.3)
print(drop(h))
drop.eval()
print(drop(h))
print(drop.training, net.training)
net.eval()
out1 = net(Xs[:3])
out2 = net(Xs[:3])
print(torch.equal(out1, out2), out1)
net.train()
print(torch.equal(net(Xs[:3]), net(Xs[:3])))
print(nn.functional.dropout(torch.ones(2, 6), p=0.5, training=True))
