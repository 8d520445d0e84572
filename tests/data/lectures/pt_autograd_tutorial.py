# PyTorch "Automatic differentiation with torch.autograd" beginner tutorial style
import torch

torch.manual_seed(0)
x = torch.ones(5)
y = torch.zeros(3)
w = torch.randn(5, 3, requires_grad=True)
b = torch.randn(3, requires_grad=True)
z = torch.matmul(x, w) + b
loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)
print(z, loss)
print('Gradient function for z =', type(z.grad_fn).__name__)
print('Gradient function for loss =', type(loss.grad_fn).__name__)
print([type(f).__name__ for f, _ in loss.grad_fn.next_functions])
loss.backward()
print(w.grad)
print(b.grad)

z = torch.matmul(x, w) + b
print(z.requires_grad)
with torch.no_grad():
    z = torch.matmul(x, w) + b
print(z.requires_grad)
z = torch.matmul(x, w) + b
z_det = z.detach()
print(z_det.requires_grad)

inp = torch.eye(4, 5, requires_grad=True)
out = (inp + 1).pow(2).t()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"First call\n{inp.grad}")
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\nSecond call\n{inp.grad}")
inp.grad.zero_()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\nCall after zeroing gradients\n{inp.grad}")

# the blitz version
a = torch.tensor([2., 3.], requires_grad=True)
b = torch.tensor([6., 4.], requires_grad=True)
Q = 3 * a ** 3 - b ** 2
external_grad = torch.tensor([1., 1.])
Q.backward(gradient=external_grad)
print(9 * a ** 2 == a.grad)
print(-2 * b == b.grad)
print(Q)

x = torch.rand(5, 5)
y = torch.rand(5, 5)
z = torch.rand((5, 5), requires_grad=True)
a = x + y
print(f"Does `a` require gradients?: {a.requires_grad}")
b = x + z
print(f"Does `b` require gradients?: {b.requires_grad}")

# a custom autograd.Function
class MyExp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, i):
        result = i.exp()
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        result, = ctx.saved_tensors
        return grad_output * result

t = torch.linspace(-1, 1, 5, requires_grad=True)
e = MyExp.apply(t)
e.sum().backward()
print(e, t.grad)
print(torch.autograd.grad((t ** 3).sum(), t))
v = torch.tensor([1.0, 2.0], requires_grad=True)
g, = torch.autograd.grad((v ** 3).sum(), v, create_graph=True)
g.sum().backward()
print(g, v.grad)
print(torch.is_grad_enabled())
with torch.set_grad_enabled(False):
    print((v * 2).requires_grad)
with torch.inference_mode():
    print((v * 2).requires_grad)
