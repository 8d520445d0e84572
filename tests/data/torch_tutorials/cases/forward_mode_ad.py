# Forward-mode AD (torch.autograd.forward_ad), with the calls of the forward-mode AD tutorial:
# dual tensors and their printing, tangents through elementwise math, matmul, reductions,
# modules with dual parameters, functional_call, a custom Function with jvp, gradcheck.
import torch
import torch.autograd.forward_ad as fwAD
import torch.nn as nn
from torch.func import functional_call

torch.manual_seed(0)
primal = torch.randn(3, 3)
tangent = torch.randn(3, 3)


def fn(x, y):
    return x ** 2 + y ** 2


print(fwAD.__all__)
try:
    fwAD.make_dual(primal, tangent)
except RuntimeError as e:
    print("RuntimeError:", e)
with fwAD.dual_level() as level:
    print(level)
    dual_input = fwAD.make_dual(primal, tangent)
    print(dual_input)
    assert fwAD.unpack_dual(dual_input).tangent is tangent
    dual_input_alt = fwAD.make_dual(primal, tangent.T)
    assert fwAD.unpack_dual(dual_input_alt).tangent is not tangent
    plain_tensor = torch.randn(3, 3)
    dual_output = fn(dual_input, plain_tensor)
    unpacked = fwAD.unpack_dual(dual_output)
    print(type(unpacked).__name__, unpacked._fields, unpacked.tangent)
    print(fwAD.unpack_dual(plain_tensor).tangent)
    print(fwAD.unpack_dual(torch.sin(dual_input).exp() @ dual_input.T).tangent)
    print((dual_input.tanh() / (1 + dual_input.sigmoid())).sum(0))
    print(torch.relu(dual_input)[1:, :2].mean())
    print(fwAD.unpack_dual(torch.cat([dual_input, plain_tensor]).log_softmax(1)).tangent)
    print(fwAD.unpack_dual(dual_input.pow(3).abs().sqrt()))
    print(fwAD.unpack_dual((dual_input * 3).reshape(9)[::2]).tangent)
    s = fwAD.make_dual(torch.tensor(2.0), torch.tensor(0.5))
    print(s * s)
    try:
        fwAD.make_dual(primal, torch.ones(3))
    except RuntimeError as e:
        print("RuntimeError:", e)
    try:
        fwAD.make_dual(torch.ones(2, dtype=torch.long), torch.ones(2, dtype=torch.long))
    except ValueError as e:
        print("ValueError:", e)
    try:
        with fwAD.dual_level():
            pass
    except RuntimeError as e:
        print("RuntimeError:", e)
assert fwAD.unpack_dual(dual_output).tangent is None
print(dual_output)

model = nn.Linear(5, 5)
inp = torch.randn(4, 5)
params = {name: p for name, p in model.named_parameters()}
tangents = {name: torch.rand_like(p) for name, p in params.items()}
with fwAD.dual_level():
    for name, p in params.items():
        delattr(model, name)
        setattr(model, name, fwAD.make_dual(p, tangents[name]))
    out = model(inp)
    jvp = fwAD.unpack_dual(out).tangent
print(jvp.detach())
model = nn.Linear(5, 5)
dual_params = {}
with fwAD.dual_level():
    for name, p in params.items():
        dual_params[name] = fwAD.make_dual(p, tangents[name])
    out = functional_call(model, dual_params, inp)
    jvp2 = fwAD.unpack_dual(out).tangent
print(torch.allclose(jvp, jvp2), model.weight.shape, type(model.weight).__name__)


class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, foo):
        result = torch.exp(foo)
        ctx.result = result
        return result

    @staticmethod
    def jvp(ctx, gI):
        gO = gI * ctx.result
        del ctx.result
        return gO


primal = torch.randn(3, 3, dtype=torch.double, requires_grad=True)
tangent = torch.randn(3, 3)
with fwAD.dual_level():
    dual_input = fwAD.make_dual(primal, tangent)
    dual_output = Exp.apply(dual_input)
    jvp = fwAD.unpack_dual(dual_output).tangent
print(jvp)
print(torch.autograd.gradcheck(Exp.apply, (primal,), check_forward_ad=True,
                               check_backward_ad=False, check_undefined_grad=False,
                               check_batched_grad=False))
