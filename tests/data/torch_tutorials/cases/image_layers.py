# The image layers: torch's default initialisation from the torch generator, reprs, grad_fn
# names, values of conv / pools / batch norm (train and eval, running statistics), dropout's
# masks, F.conv2d's padding forms, gradients through them.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
conv = nn.Conv2d(1, 6, 5)
print(conv, conv.weight[0], conv.bias, sep="\n")
for m in [nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.Conv2d(3, 8, (3, 5), bias=False,
                                                                padding="same"),
          nn.Conv2d(4, 8, 3, groups=2, dilation=2), nn.MaxPool2d(2),
          nn.MaxPool2d((2, 2), stride=1, padding=1), nn.MaxPool2d(3, 2, ceil_mode=True),
          nn.AvgPool2d(2), nn.AvgPool2d(3, stride=2, padding=1, count_include_pad=False),
          nn.AdaptiveAvgPool2d((1, 1)), nn.AdaptiveAvgPool2d(5), nn.AdaptiveMaxPool2d(2),
          nn.BatchNorm1d(3), nn.BatchNorm2d(4, momentum=0.2, affine=False),
          nn.BatchNorm2d(4, track_running_stats=False), nn.Dropout(0.2), nn.Dropout2d(),
          nn.Flatten(), nn.Flatten(0, 1), nn.LayerNorm(4), nn.Conv1d(2, 3, 3)]:
    print(m)
x = torch.randn(2, 1, 8, 8, requires_grad=True)
y = conv(x)
print(y.grad_fn.name(), y.shape, y[0, 0, 0])
p = F.max_pool2d(y, 2)
print(p.grad_fn.name(), p[1, 2])
print(F.avg_pool2d(y, 2).grad_fn.name(), F.avg_pool2d(y, 3, 1, 1)[0, 0, 0])
print(F.adaptive_avg_pool2d(y, 1).grad_fn.name(), F.adaptive_avg_pool2d(y, 1)[0, :, 0, 0])
print(F.adaptive_avg_pool2d(y, (3, 2)).grad_fn.name(), F.adaptive_avg_pool2d(y, (3, 2))[0, 0])
print(F.adaptive_max_pool2d(y, 2).grad_fn.name())
bn = nn.BatchNorm2d(6)
z = bn(y)
print(z.grad_fn.name(), z[0, 0, 0], bn.running_mean, bn.running_var, bn.num_batches_tracked)
print(list(bn.state_dict()))
bn.eval()
print(bn(y)[1, 5, 3])
print(nn.BatchNorm1d(3)(torch.randn(4, 3)))
(p.sum() + z.pow(2).sum()).backward()
print(x.grad[0, 0, :2], conv.bias.grad, conv.weight.grad[0, 0, 0])
print(F.conv2d(x, conv.weight, conv.bias, padding=1).shape, F.conv2d(x, conv.weight).grad_fn.name())
print(F.conv2d(x, conv.weight.detach(), padding="same").shape, F.conv2d(x[0], conv.weight).shape)
try:
    F.conv2d(torch.randn(1, 2, 8, 8), conv.weight)
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    nn.BatchNorm2d(3)(torch.randn(2, 3))
except ValueError as e:
    print("ValueError:", e)
print(F.dropout(torch.ones(10), 0.3))
drop = nn.Dropout(0.5)
print(drop(torch.ones(2, 8)))
drop.eval()
print(drop(torch.ones(3)))
print(F.dropout2d(torch.ones(2, 3, 1, 2), 0.5))
print(torch.bernoulli(torch.full((8,), 0.5)), torch.rand(2))
seq = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
                    nn.Flatten(), nn.Dropout(0.25), nn.Linear(4 * 4 * 4, 3))
print(seq)
print(seq(torch.randn(2, 1, 8, 8)))
ln = nn.LayerNorm(4)
print(ln(torch.arange(8.).reshape(2, 4)), ln(torch.arange(8.).reshape(2, 4)).grad_fn.name())
