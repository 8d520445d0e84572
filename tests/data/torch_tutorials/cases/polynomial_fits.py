# Fits of a cubic to sin(x), written after the calls of PyTorch's examples_tensor /
# examples_autograd / examples_nn tutorials (our own script, few iterations).
import math

import torch

torch.manual_seed(0)
x = torch.linspace(-math.pi, math.pi, 200)
y = torch.sin(x)

# tensors and manual gradients
a, b, c, d = (torch.randn((), dtype=torch.float) for _ in range(4))
lr = 1e-6
for t in range(3):
    y_pred = a + b * x + c * x ** 2 + d * x ** 3
    loss = (y_pred - y).pow(2).sum().item()
    grad_y_pred = 2.0 * (y_pred - y)
    a -= lr * grad_y_pred.sum()
    b -= lr * (grad_y_pred * x).sum()
    c -= lr * (grad_y_pred * x ** 2).sum()
    d -= lr * (grad_y_pred * x ** 3).sum()
    print(t, loss)
print(f'Result: y = {a.item()} + {b.item()} x + {c.item()} x^2 + {d.item()} x^3')

# autograd
w = [torch.randn((), requires_grad=True) for _ in range(4)]
for t in range(3):
    y_pred = w[0] + w[1] * x + w[2] * x ** 2 + w[3] * x ** 3
    loss = (y_pred - y).pow(2).sum()
    print(t, loss.item(), loss)
    loss.backward()
    with torch.no_grad():
        for p in w:
            p -= lr * p.grad
            p.grad = None
print(w)


# a custom autograd Function
class Legendre3(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return 0.5 * (5 * input ** 3 - 3 * input)

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        return grad_output * 1.5 * (5 * input ** 2 - 1)


aa = torch.full((), 0.0, requires_grad=True)
bb = torch.full((), -1.0, requires_grad=True)
cc = torch.full((), 0.0, requires_grad=True)
dd = torch.full((), 0.3, requires_grad=True)
for t in range(3):
    P3 = Legendre3.apply
    y_pred = aa + bb * P3(cc + dd * x)
    loss = (y_pred - y).pow(2).sum()
    nxt = y_pred.grad_fn.next_functions[1][0].next_functions
    print(t, f"{loss.item():.3f}", y_pred.grad_fn.name(), [(type(n).__name__, k) for n, k in nxt])
    loss.backward()
    with torch.no_grad():
        for p in (aa, bb, cc, dd):
            p -= 5e-6 * p.grad
            p.grad = None
print([f"{v.item():.4f}" for v in (bb, dd)], aa.requires_grad)

# nn: features x^1..x^3, Linear(3, 1) and Flatten(0, 1)
p = torch.tensor([1, 2, 3])
xx = x.unsqueeze(-1).pow(p)
print(xx.shape)
model = torch.nn.Sequential(torch.nn.Linear(3, 1), torch.nn.Flatten(0, 1))
print(model)
loss_fn = torch.nn.MSELoss(reduction='sum')
for t in range(3):
    y_pred = model(xx)
    loss = loss_fn(y_pred, y)
    print(t, loss.item())
    model.zero_grad()
    loss.backward()
    with torch.no_grad():
        for param in model.parameters():
            param -= lr * param.grad
linear_layer = model[0]
print(f'Result: y = {linear_layer.bias.item():.6f} + {linear_layer.weight[:, 0].item():.6f} x + '
      f'{linear_layer.weight[:, 1].item():.6f} x^2 + {linear_layer.weight[:, 2].item():.6f} x^3')

# optim
model = torch.nn.Sequential(torch.nn.Linear(3, 1), torch.nn.Flatten(0, 1))
optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-3)
for t in range(3):
    loss = loss_fn(model(xx), y)
    print(t, f"{loss.item():.2f}")
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(model[0].weight, model[0].bias)


# a Module with scalar Parameters
class Polynomial3(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Parameter(torch.randn(()))
        self.b = torch.nn.Parameter(torch.randn(()))
        self.c = torch.nn.Parameter(torch.randn(()))
        self.d = torch.nn.Parameter(torch.randn(()))

    def forward(self, x):
        return self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3

    def string(self):
        return f'y = {self.a.item()} + {self.b.item()} x + {self.c.item()} x^2 + {self.d.item()} x^3'


model = Polynomial3()
print(model, list(model.named_parameters())[0])
optimizer = torch.optim.SGD(model.parameters(), lr=1e-6)
for t in range(3):
    loss = torch.nn.MSELoss(reduction='sum')(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(f'Result: {model.a.item():.6f} {model.d.item():.6f}')
print(type(model), type(model.a), type(loss), type(loss.grad_fn))
