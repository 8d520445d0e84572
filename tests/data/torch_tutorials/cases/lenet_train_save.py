# A LeNet written in torch style (the blitz neural-networks tutorial's calls): print it,
# forward, backward with a given gradient, MSELoss and its grad_fn chain, one SGD step,
# torch.save / torch.load of the state_dict (weights_only), of the whole model, reload.
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

torch.manual_seed(0)


class LeNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


net = LeNet()
print(net)
params = list(net.parameters())
print(len(params), params[0].size(), net.conv1.weight[0, 0, 0])
inp = torch.randn(1, 1, 32, 32)
out = net(inp)
print(out)
net.zero_grad()
out.backward(torch.randn(1, 10))
print(net.conv1.bias.grad)
output = net(inp)
target = torch.randn(10).view(1, -1)
criterion = nn.MSELoss()
loss = criterion(output, target)
print(loss)
fn = loss.grad_fn
print(fn.name(), fn.next_functions[0][0].name(), fn.next_functions[0][0].next_functions[0][0].name())
net.zero_grad()
print(net.conv1.bias.grad)
loss.backward()
print(net.conv1.bias.grad)
optimizer = optim.SGD(net.parameters(), lr=0.01)
optimizer.zero_grad()
loss = criterion(net(inp), target)
loss.backward()
optimizer.step()
print(net.conv1.weight[0, 0, 0], net.fc3.bias)
with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "lenet.pth")
    torch.save(net.state_dict(), path)
    net2 = LeNet()
    print(net2.load_state_dict(torch.load(path, weights_only=True)))
    print(torch.equal(net2(inp), net(inp)), net2(inp))
    sd = torch.load(path)
    print(type(sd).__name__, list(sd)[:4], sd["fc3.bias"].requires_grad)
    print(net2.load_state_dict({k: v for k, v in sd.items() if k != "fc3.bias"}, strict=False))
    torch.save(net, path)
    whole = torch.load(path, weights_only=False)
    print(type(whole).__name__, whole.fc3, torch.equal(whole(inp), net(inp)))
    try:
        torch.load(path)
    except Exception as e:  # noqa: BLE001
        print(type(e).__name__, str(e).splitlines()[-3][:120])
    torch.save({"epoch": 3, "t": torch.arange(4), "x": [torch.ones(2, dtype=torch.float64)]}, path)
    print(torch.load(path))
