import torch, hashlib
import torch.nn as nn
import torch.nn.functional as F
def h(t): return hashlib.md5(t.detach().numpy().tobytes()).hexdigest()[:12]
torch.manual_seed(0)
d = nn.Dropout2d(0.4)
for shape in [(6, 5), (4, 3, 5), (2, 3, 4, 4), (2, 2, 2, 3, 3)]:
    x = torch.randn(*shape, requires_grad=True)
    y = d(x)
    y.sum().backward()
    print(shape, h(y), h(x.grad), y.grad_fn.name(), (y == 0).sum().item())
print(F.dropout2d(torch.ones(4, 6), 0.5))
print(F.dropout2d(torch.ones(3, 2, 2), 0.5, training=True))
d.eval()
print(d(torch.ones(2, 3)).sum().item())
print(F.dropout2d(torch.ones(2, 3), 1.0), F.dropout2d(torch.ones(2, 3), 0.0))
x = torch.ones(3, 4)
F.dropout2d(x, 0.5, inplace=True)
print(x)
try:
    F.dropout2d(torch.ones(5), 0.5)
except Exception as e:
    print(type(e).__name__, e)
print(F.dropout3d(torch.ones(2, 3), 0.5))
print(nn.Dropout3d(0.5)(torch.ones(2, 3)))
