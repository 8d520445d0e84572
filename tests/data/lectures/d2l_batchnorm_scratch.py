# d2l "batch normalization" style: batch_norm by hand with moving statistics, the BatchNorm
# module class, and nn.BatchNorm2d in a small LeNet on random images
import torch
from torch import nn

def batch_norm(X, gamma, beta, moving_mean, moving_var, eps, momentum):
    if not torch.is_grad_enabled():
        X_hat = (X - moving_mean) / torch.sqrt(moving_var + eps)
    else:
        assert len(X.shape) in (2, 4)
        if len(X.shape) == 2:
            mean = X.mean(dim=0)
            var = ((X - mean) ** 2).mean(dim=0)
        else:
            mean = X.mean(dim=(0, 2, 3), keepdim=True)
            var = ((X - mean) ** 2).mean(dim=(0, 2, 3), keepdim=True)
        X_hat = (X - mean) / torch.sqrt(var + eps)
        moving_mean = (1.0 - momentum) * moving_mean + momentum * mean
        moving_var = (1.0 - momentum) * moving_var + momentum * var
    Y = gamma * X_hat + beta
    return Y, moving_mean.data, moving_var.data

class BatchNorm(nn.Module):
    def __init__(self, num_features, num_dims):
        super().__init__()
        if num_dims == 2:
            shape = (1, num_features)
        else:
            shape = (1, num_features, 1, 1)
        self.gamma = nn.Parameter(torch.ones(shape))
        self.beta = nn.Parameter(torch.zeros(shape))
        self.moving_mean = torch.zeros(shape)
        self.moving_var = torch.ones(shape)

    def forward(self, X):
        Y, self.moving_mean, self.moving_var = batch_norm(
            X, self.gamma, self.beta, self.moving_mean, self.moving_var, eps=1e-5, momentum=0.1)
        return Y

torch.manual_seed(0)
bn = BatchNorm(3, 4)
X = torch.randn(4, 3, 5, 5) * 2 + 1
Y = bn(X)
print(Y.mean(dim=(0, 2, 3)), Y.std(dim=(0, 2, 3), unbiased=False))
print(bn.moving_mean.flatten(), bn.moving_var.flatten())
ref = nn.BatchNorm2d(3)
Yr = ref(X)
print((Y - Yr).abs().max() < 1e-5)
print(ref.running_mean, ref.running_var)
with torch.no_grad():
    print(bn(X[:1]).flatten()[:5])

net = nn.Sequential(
    nn.Conv2d(1, 6, kernel_size=5), BatchNorm(6, num_dims=4), nn.Sigmoid(),
    nn.AvgPool2d(kernel_size=2, stride=2),
    nn.Conv2d(6, 16, kernel_size=5), BatchNorm(16, num_dims=4), nn.Sigmoid(),
    nn.AvgPool2d(kernel_size=2, stride=2), nn.Flatten(),
    nn.Linear(16 * 4 * 4, 120), BatchNorm(120, num_dims=2), nn.Sigmoid(),
    nn.Linear(120, 10))
imgs = torch.rand(8, 1, 28, 28)
labels = torch.randint(0, 10, (8,))
opt = torch.optim.SGD(net.parameters(), lr=1.0)
for step in range(4):
    opt.zero_grad()
    l = nn.functional.cross_entropy(net(imgs), labels)
    l.backward()
    opt.step()
    print(step, l.item())
print(net[1].gamma.reshape((-1,)), net[1].beta.reshape((-1,)))

net = nn.Sequential(
    nn.Conv2d(1, 6, kernel_size=5), nn.BatchNorm2d(6), nn.Sigmoid(),
    nn.AvgPool2d(kernel_size=2, stride=2),
    nn.Conv2d(6, 16, kernel_size=5), nn.BatchNorm2d(16), nn.Sigmoid(),
    nn.AvgPool2d(kernel_size=2, stride=2), nn.Flatten(),
    nn.Linear(256, 120), nn.BatchNorm1d(120), nn.Sigmoid(),
    nn.Linear(120, 10))
print(net[1], net[9], net[10])
opt = torch.optim.SGD(net.parameters(), lr=1.0)
for step in range(4):
    opt.zero_grad()
    l = nn.functional.cross_entropy(net(imgs), labels)
    l.backward()
    opt.step()
    print(step, l.item())
print(net[1].running_mean, net[1].num_batches_tracked)
net.eval()
print(net(imgs[:2]))
