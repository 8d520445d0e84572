# What type() and the classes print (torch.Tensor, torch.nn.modules.*, torch.nn.parameter,
# torch.Size, torch.dtype ...), the default device and dtype, torch.accelerator.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable

print(type(torch.ones(1)), type(Variable(torch.ones(1), requires_grad=True)))
print(torch.Tensor, torch.nn.Parameter, torch.nn.Module, torch.Size, torch.dtype, torch.device)
print(type(nn.Parameter(torch.ones(1))), type(torch.ones(2).shape), type(torch.float64))
for m in [nn.Linear(1, 1), nn.Conv2d(1, 1, 1), nn.MaxPool2d(2), nn.AvgPool2d(2),
          nn.AdaptiveAvgPool2d(1), nn.BatchNorm1d(2), nn.BatchNorm2d(2), nn.Dropout(),
          nn.Flatten(), nn.ReLU(), nn.Sequential(), nn.ModuleList(), nn.MSELoss(),
          nn.CrossEntropyLoss(), nn.Softmax(dim=1), nn.LayerNorm(3), nn.Embedding(2, 2)]:
    print(type(m))
print(type(torch.optim.SGD([nn.Parameter(torch.ones(1))], lr=0.1)))
x = torch.ones(2, requires_grad=True)
y = (x * 2).sum()
print(type(y.grad_fn), type(y.grad_fn.next_functions[0][0]),
      type(y.grad_fn.next_functions[0][0].next_functions[0][0]))


class Net(nn.Module):
    def forward(self, x):
        return F.relu(x)


print(type(Net()), isinstance(Net(), nn.Module), Net.__mro__[1])
print(repr(torch.get_default_device()), torch.get_default_dtype())
torch.set_default_device("cpu")
print(repr(torch.get_default_device()), torch.ones(1).device)
torch.set_default_device(None)
print(repr(torch.get_default_device()))
try:
    torch.set_default_device("foo")
except RuntimeError as e:
    print("RuntimeError:", e)
torch.set_default_dtype(torch.float64)
print(torch.tensor([1.5]).dtype, torch.ones(1).dtype, torch.get_default_dtype(), torch.arange(2.))
try:
    torch.set_default_dtype(torch.int64)
except TypeError as e:
    print("TypeError:", e)
torch.set_default_dtype(torch.float32)
print(torch.accelerator.is_available(), torch.accelerator.current_accelerator())
device = torch.accelerator.current_accelerator().type if torch.accelerator.is_available() else "cpu"
print(f"Using {device} device")
print(torch.cuda.is_available())
# grad modes and the legacy Variable under torch's names
print(torch.autograd.Variable, type(torch.autograd.Variable), torch.no_grad, torch.enable_grad, torch.set_grad_enabled, torch.inference_mode)
print(repr(torch.set_grad_enabled(True)))
print(torch.autograd.Function, torch.autograd.function.FunctionCtx)
print(torch.optim.Optimizer, torch.utils.data.DataLoader)
x = torch.ones(2, requires_grad=True)
with torch.no_grad():
    print((x * 2).requires_grad)
@torch.no_grad()
def f(a): return a * 2
print(f(x).requires_grad, torch.is_grad_enabled())
with torch.inference_mode():
    print((x*2).requires_grad)
torch.set_grad_enabled(False); print((x*2).requires_grad); torch.set_grad_enabled(True)
print(isinstance(x, torch.autograd.Variable))
