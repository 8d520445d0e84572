# d2l "linear algebra" and "automatic differentiation" style
import torch

x = torch.tensor(3.0)
y = torch.tensor(2.0)
print(x + y, x * y, x / y, x ** y)
x = torch.arange(4)
print(x, x[3], len(x), x.shape)
A = torch.arange(20).reshape(5, 4)
print(A)
print(A.T)
B = torch.tensor([[1, 2, 3], [2, 0, 4], [3, 4, 5]])
print(B == B.T)
X = torch.arange(24).reshape(2, 3, 4)
print(X)
A = torch.arange(20, dtype=torch.float32).reshape(5, 4)
B = A.clone()
print(A, A + B)
print(A * B)
a = 2
print(a + X, (a * X).shape)
print(x.sum(), A.shape, A.sum())
A_sum_axis0 = A.sum(axis=0)
print(A_sum_axis0, A_sum_axis0.shape)
A_sum_axis1 = A.sum(axis=1)
print(A_sum_axis1, A_sum_axis1.shape)
print(A.sum(axis=[0, 1]))
print(A.mean(), A.sum() / A.numel())
print(A.mean(axis=0), A.sum(axis=0) / A.shape[0])
sum_A = A.sum(axis=1, keepdims=True)
print(sum_A)
print(A / sum_A)
print(A.cumsum(axis=0))
y = torch.ones(4, dtype=torch.float32)
x = torch.arange(4, dtype=torch.float32)
print(x, y, torch.dot(x, y), torch.sum(x * y))
print(A.shape, x.shape, torch.mv(A, x))
B = torch.ones(4, 3)
print(torch.mm(A, B))
u = torch.tensor([3.0, -4.0])
print(torch.norm(u), torch.abs(u).sum())
print(torch.norm(torch.ones((4, 9))))

x = torch.arange(4.0)
x.requires_grad_(True)
print(x.grad)
y = 2 * torch.dot(x, x)
print(y)
y.backward()
print(x.grad)
print(x.grad == 4 * x)
x.grad.zero_()
y = x.sum()
y.backward()
print(x.grad)
x.grad.zero_()
y = x * x
y.sum().backward()
print(x.grad)
x.grad.zero_()
y = x * x
u = y.detach()
z = u * x
z.sum().backward()
print(x.grad == u)
x.grad.zero_()
y.sum().backward()
print(x.grad == 2 * x)

def f(a):
    b = a * 2
    while b.norm() < 1000:
        b = b * 2
    if b.sum() > 0:
        c = b
    else:
        c = 100 * b
    return c

torch.manual_seed(0)
a = torch.randn(size=(), requires_grad=True)
d = f(a)
d.backward()
print(a, d)
print(a.grad == d / a)
x = torch.linspace(-3, 3, 7, requires_grad=True)
y = torch.sin(x)
y.backward(torch.ones_like(x))
print(x.grad)
print(torch.cos(x.detach()))
