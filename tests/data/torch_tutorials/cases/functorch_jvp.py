# functorch (the forward-mode AD tutorial's last part): ft.jvp, make_functional_with_buffers,
# the FutureWarnings torch 2.13 gives for them.
import warnings, os
warnings.simplefilter("always")
import torch, torch.nn as nn
import functorch as ft
def show(f):
    with warnings.catch_warnings(record=True) as c:
        warnings.simplefilter("always")
        r = f()
    for w in [w for w in c if w.category is FutureWarning]: print(w.category.__name__, os.path.basename(w.filename), w.lineno, str(w.message)[:140])
    return r
torch.manual_seed(0)
primal0 = torch.randn(3, 3); tangent0 = torch.randn(3, 3); primal1 = torch.randn(3, 3); tangent1 = torch.randn(3, 3)
def fn(x, y):
    return x ** 2 + y ** 2
primal_out, tangent_out = show(lambda: ft.jvp(fn, (primal0, primal1), (tangent0, tangent1)))
print(primal_out, tangent_out)
model = nn.Linear(5, 5)
input = torch.randn(4, 5)
tangents = tuple([torch.rand_like(p) for p in model.parameters()])
func, params, buffers = show(lambda: ft.make_functional_with_buffers(model))
print(func, type(params), len(params), buffers, params[0] is model.weight, type(params[0]))
def func_params_only(params):
    return func(params, buffers, input)
model_output, jvp_out = show(lambda: ft.jvp(func_params_only, (params,), (tangents,)))
print(model_output.detach(), jvp_out.detach(), model_output.requires_grad)
