# micrograd lecture style: check a hand-derived neuron and a tiny MLP against torch autograd
import random
import torch

x1 = torch.Tensor([2.0]).double(); x1.requires_grad = True
x2 = torch.Tensor([0.0]).double(); x2.requires_grad = True
w1 = torch.Tensor([-3.0]).double(); w1.requires_grad = True
w2 = torch.Tensor([1.0]).double(); w2.requires_grad = True
b = torch.Tensor([6.8813735870195432]).double(); b.requires_grad = True
n = x1 * w1 + x2 * w2 + b
o = torch.tanh(n)
print(o.data.item())
o.backward()
print('---')
print('x2', x2.grad.item())
print('w2', w2.grad.item())
print('x1', x1.grad.item())
print('w1', w1.grad.item())
print(o.grad_fn.name(), n.grad_fn.name())
print(x1.dtype, o.shape, o.requires_grad, x1.is_leaf, o.is_leaf)

# the same neuron with the exp form of tanh
e = (2 * n.detach()).exp()
print(((e - 1) / (e + 1)).item())

# a tiny MLP written with torch tensors as parameters
random.seed(1337)

class Neuron:
    def __init__(self, nin):
        self.w = torch.tensor([random.uniform(-1, 1) for _ in range(nin)], dtype=torch.float64, requires_grad=True)
        self.b = torch.tensor(random.uniform(-1, 1), dtype=torch.float64, requires_grad=True)
    def __call__(self, x):
        return torch.tanh((self.w * x).sum() + self.b)
    def parameters(self):
        return [self.w, self.b]

class Layer:
    def __init__(self, nin, nout):
        self.neurons = [Neuron(nin) for _ in range(nout)]
    def __call__(self, x):
        outs = torch.stack([n(x) for n in self.neurons])
        return outs[0] if len(self.neurons) == 1 else outs
    def parameters(self):
        return [p for n in self.neurons for p in n.parameters()]

class MLP:
    def __init__(self, nin, nouts):
        sz = [nin] + nouts
        self.layers = [Layer(sz[i], sz[i + 1]) for i in range(len(nouts))]
    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x
    def parameters(self):
        return [p for layer in self.layers for p in layer.parameters()]

xs = torch.tensor([[2.0, 3.0, -1.0], [3.0, -1.0, 0.5], [0.5, 1.0, 1.0], [1.0, 1.0, -1.0]], dtype=torch.float64)
ys = [1.0, -1.0, -1.0, 1.0]
net = MLP(3, [4, 4, 1])
print(len(net.parameters()), sum(p.numel() for p in net.parameters()))
for k in range(20):
    ypred = [net(x) for x in xs]
    loss = sum((yout - ygt) ** 2 for ygt, yout in zip(ys, ypred))
    for p in net.parameters():
        p.grad = None
    loss.backward()
    with torch.no_grad():
        for p in net.parameters():
            p += -0.1 * p.grad
    print(k, loss.item())
print([round(y.item(), 6) for y in ypred])
print(net.layers[0].neurons[0].w)
