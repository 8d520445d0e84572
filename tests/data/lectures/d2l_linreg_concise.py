# d2l "concise linear regression" style: TensorDataset, DataLoader, nn.Sequential, optim.SGD
import torch
from torch import nn
from torch.utils import data

torch.manual_seed(1)
true_w = torch.tensor([2, -3.4])
true_b = 4.2
X = torch.normal(0, 1, (1000, len(true_w)))
y = torch.matmul(X, true_w) + true_b
y += torch.normal(0, 0.01, y.shape)
features, labels = X, y.reshape((-1, 1))

def load_array(data_arrays, batch_size, is_train=True):
    dataset = data.TensorDataset(*data_arrays)
    return data.DataLoader(dataset, batch_size, shuffle=is_train)

batch_size = 10
data_iter = load_array((features, labels), batch_size)
print(len(data_iter), len(data_iter.dataset))
print(next(iter(data_iter)))

net = nn.Sequential(nn.Linear(2, 1))
print(net)
net[0].weight.data.normal_(0, 0.01)
net[0].bias.data.fill_(0)
print(net[0].weight.data, net[0].bias.data)
loss = nn.MSELoss()
print(loss)
trainer = torch.optim.SGD(net.parameters(), lr=0.03)
print(trainer)

num_epochs = 3
for epoch in range(num_epochs):
    for X, y in data_iter:
        l = loss(net(X), y)
        trainer.zero_grad()
        l.backward()
        trainer.step()
    l = loss(net(features), labels)
    print(f'epoch {epoch + 1}, loss {l:f}')

w = net[0].weight.data
print('error in estimating w:', true_w - w.reshape(true_w.shape))
b = net[0].bias.data
print('error in estimating b:', true_b - b)
print(net[0].weight.grad)
print([name for name, _ in net.named_parameters()])
print(net.state_dict().keys())

# the same model with Huber loss, as in the exercises
net2 = nn.Sequential(nn.Linear(2, 1))
trainer2 = torch.optim.SGD(net2.parameters(), lr=0.03)
huber = nn.HuberLoss()
for epoch in range(2):
    for X, y in data_iter:
        l = huber(net2(X), y)
        trainer2.zero_grad()
        l.backward()
        trainer2.step()
    print(f'huber epoch {epoch + 1}, loss {huber(net2(features), labels).item():.6f}')
print(net2[0].weight.data, net2[0].bias.data)
