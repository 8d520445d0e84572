import sys
sys.stderr = sys.stdout  # (the warnings in order with the prints)
import torch, torch.nn as nn
import torch, torch.nn as nn
torch.manual_seed(1)
def show(tag):
    def h(m, gi, go):
        print(tag, type(m).__name__, 'gi', [None if g is None else (tuple(g.shape), round(g.sum().item(), 4)) for g in gi],
              'go', [None if g is None else (tuple(g.shape), round(g.sum().item(), 4)) for g in go])
    return h
lin = nn.Linear(3, 2)
h = lin.register_backward_hook(show('lin'))
x = torch.randn(4, 3)
lin(x).pow(2).sum().backward()
xr = torch.randn(4, 3, requires_grad=True)
lin(xr).pow(2).sum().backward()
lin(torch.randn(3)).sum().backward()
h.remove()
lin(x).sum().backward()
print('removed ok')
seq = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
seq.register_backward_hook(show('seq'))
seq[1].register_backward_hook(show('tanh'))
seq(xr).sum().backward()
# replacement: zero the input gradient
relu = nn.ReLU()
def zero(m, gi, go):
    return tuple(torch.zeros_like(g) if g is not None else None for g in gi)
relu.register_backward_hook(zero)
xr.grad = None
relu(xr * 2).sum().backward()
print(xr.grad)
# elementwise broadcasting module
class Scale(nn.Module):
    def __init__(self):
        super().__init__()
        self.s = nn.Parameter(torch.ones(3))
    def forward(self, x):
        return x * self.s
sc = Scale()
sc.register_backward_hook(show('scale'))
sc(xr).sum().backward()
lstm = nn.LSTM(3, 2)
lstm.register_backward_hook(show('lstm'))
out, (hh, cc) = lstm(torch.randn(5, 1, 3))
out.sum().backward()
try:
    lin.register_full_backward_hook(show('x'))
except RuntimeError as e:
    print('RuntimeError:', e)
conv = nn.Conv2d(1, 2, 3)
conv.register_backward_hook(show('conv'))
conv(torch.randn(1, 1, 5, 5, requires_grad=True)).sum().backward()
bn = nn.BatchNorm1d(3)
bn.register_backward_hook(show('bn'))
bn(xr).pow(2).sum().backward()
emb = nn.Embedding(5, 2)
emb.register_backward_hook(show('emb'))
emb(torch.tensor([1, 2, 1])).sum().backward()

print('--- conv + in-place ReLU (GradCAM style)')
torch.manual_seed(0)
conv = nn.Conv2d(2, 2, 3, padding=1)
relu = nn.ReLU(inplace=True)
store = {}
def fh(m, i, o): store['act'] = o.detach()
def bh(m, gi, go):
    store['go'] = go[0].detach()
    print('n gi', len(gi), [None if g is None else tuple(g.shape) for g in gi])
    print('n go', len(go), [tuple(g.shape) for g in go])
conv.register_forward_hook(fh)
conv.register_backward_hook(bh)
x = torch.randn(1, 2, 3, 3, requires_grad=True)
y = relu(conv(x))
print(store['act'])
(y * torch.arange(18.).view(1, 2, 3, 3)).sum().backward()
print(store['go'])

print('--- grad_fn.register_hook')
a = torch.tensor([1., 2.], requires_grad=True)
b = torch.tensor([3., 4.], requires_grad=True)
c = a * b
h = c.grad_fn.register_hook(lambda gi, go: print('post', gi, go))
print(type(h).__name__)
c.sum().backward()
d = (a * 2).exp()
d.grad_fn.register_hook(lambda gi, go: (gi[0] * 10,))
d.sum().backward()
print(a.grad)
e = a + b
def bad(gi, go):
    return (gi[0],)
e.grad_fn.register_hook(bad)
try:
    e.sum().backward()
except Exception as ex:
    print(type(ex).__name__, ex)
f = a * 3
f.grad_fn.register_hook(lambda gi, go: gi[0])
try:
    f.sum().backward()
except Exception as ex:
    print(type(ex).__name__, ex)
g = a.sum()
h2 = g.grad_fn.register_hook(lambda gi, go: print('never'))
h2.remove()
g.backward()
print('done')
