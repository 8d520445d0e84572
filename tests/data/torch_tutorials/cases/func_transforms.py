# torch.func with the calls of the jacobians/hessians and per-sample-gradients tutorials
# (smaller sizes): vjp + vmap, jacrev / jacfwd (argnums), hessian, batch jacobians and
# hessians through vmap(in_dims), hvp by jvp(grad(f)) and vjp(grad(f)), grad over
# functional_call for per-sample gradients of a small CNN, and the transforms' errors.
from functools import partial

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import (functional_call, grad, grad_and_value, hessian, jacfwd, jacrev, jvp,
                        vjp, vmap)

_ = torch.manual_seed(0)


def predict(weight, bias, x):
    return F.linear(x, weight, bias).tanh()


D = 6
weight = torch.randn(D, D)
bias = torch.randn(D)
x = torch.randn(D)
xp = x.clone().requires_grad_()
unit_vectors = torch.eye(D)
jacobian = torch.stack([torch.autograd.grad(predict(weight, bias, xp), xp, vec)[0]
                        for vec in unit_vectors])
print(jacobian.shape)
print(jacobian[0])
value, vjp_fn = vjp(partial(predict, weight, bias), x)
ft_jacobian, = vmap(vjp_fn)(unit_vectors)
print(value.requires_grad, torch.allclose(ft_jacobian, jacobian))
ft_jacobian = jacrev(predict, argnums=2)(weight, bias, x)
print(torch.allclose(ft_jacobian, jacobian), ft_jacobian.grad_fn)
ft_jac_weight, ft_jac_bias = jacrev(predict, argnums=(0, 1))(weight, bias, x)
print(ft_jac_weight.shape, ft_jac_bias.shape)
print(torch.allclose(ft_jac_bias, torch.diag(1 - predict(weight, bias, x) ** 2)))
ref_weight = torch.autograd.functional.jacobian(lambda w: predict(w, bias, x), weight)
print(torch.allclose(ref_weight, ft_jac_weight))

for din, dout in [(4, 12), (12, 4)]:
    w, b, v = torch.randn(dout, din), torch.randn(dout), torch.randn(din)
    jf = jacfwd(predict, argnums=2)(w, b, v)
    jr = jacrev(predict, argnums=2)(w, b, v)
    print(w.shape, jf.shape, torch.allclose(jf, jr))

w, b, v = torch.randn(3, 5), torch.randn(3), torch.randn(5)
hess_api = hessian(predict, argnums=2)(w, b, v)
hess_fwdfwd = jacfwd(jacfwd(predict, argnums=2), argnums=2)(w, b, v)
hess_revrev = jacrev(jacrev(predict, argnums=2), argnums=2)(w, b, v)
print(hess_api.shape, torch.allclose(hess_api, hess_fwdfwd), torch.allclose(hess_api, hess_revrev))

batch_size, din, dout = 4, 3, 5
w = torch.randn(dout, din)
print(f"weight shape = {w.shape}")
b = torch.randn(dout)
xb = torch.randn(batch_size, din)
batch_jacobian0 = vmap(jacrev(predict, argnums=2), in_dims=(None, None, 0))(w, b, xb)


def predict_with_output_summed(weight, bias, x):
    return predict(weight, bias, x).sum(0)


batch_jacobian1 = jacrev(predict_with_output_summed, argnums=2)(w, b, xb).movedim(1, 0)
print(batch_jacobian0.shape, torch.allclose(batch_jacobian0, batch_jacobian1))
batch_hess = vmap(hessian(predict, argnums=2), in_dims=(None, None, 0))(w, b, xb)
print(batch_hess.shape)


def hvp(f, primals, tangents):
    return jvp(grad(f), primals, tangents)[1]


def hvp_revrev(f, primals, tangents):
    _, vjp_fn = vjp(grad(f), *primals)
    return vjp_fn(*tangents)


def f(x):
    return x.sin().sum()


x = torch.randn(8)
tangent = torch.randn(8)
result = hvp(f, (x,), (tangent,))
print(result, torch.allclose(result, hvp_revrev(f, (x,), (tangent,))[0]))
print(torch.allclose(result, -x.sin() * tangent))
print(grad(f)(x), grad_and_value(f)(x)[1])
print(grad(lambda a, b: (a * b).sum(), argnums=(0, 1))(torch.tensor([1., 2.]),
                                                       torch.tensor([3., 4.])))
print(grad(lambda a: ((a ** 2).sum(), a.mean()), has_aux=True)(torch.tensor([1., 2.])))
print(grad(lambda d: (d["w"] * d["v"]).sum())({"w": torch.tensor([1., 2.]),
                                               "v": torch.tensor([5., 7.])}))
print(jvp(lambda a, b: a * b + a.exp(), (torch.tensor([1., 2.]), torch.tensor([3., 4.])),
          (torch.ones(2), torch.ones(2))))
print(vmap(torch.dot)(torch.ones(3, 2), torch.arange(6.).reshape(3, 2)))
print(vmap(lambda a: a.sum(0), in_dims=1)(torch.arange(6.).reshape(2, 3)))
print(vmap(lambda a: a * 2, in_dims=0, out_dims=1)(torch.arange(6.).reshape(2, 3)))
print(vmap(lambda a, c: (a * c, a - c), in_dims=(0, None))(torch.arange(6.).reshape(2, 3),
                                                           torch.ones(3)))
print(vmap(vmap(torch.outer))(torch.ones(2, 3, 2), torch.arange(12.).reshape(2, 3, 2)).shape)
for bad in [lambda: grad(lambda a: a * 2)(torch.ones(2)),
            lambda: vmap(torch.sum, in_dims=(None,))(torch.ones(2)),
            lambda: vmap(torch.add)(torch.ones(2), torch.ones(3)),
            lambda: jvp(torch.sin, [torch.ones(2)], [torch.ones(2)])]:
    try:
        bad()
    except (RuntimeError, ValueError) as e:
        print(type(e).__name__ + ":", e)


class SimpleCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3, 1)
        self.fc1 = nn.Linear(4 * 3 * 3, 5)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.max_pool2d(x, 2)
        x = torch.flatten(x, 1)
        return F.log_softmax(self.fc1(x), dim=1)


def loss_fn(predictions, targets):
    return F.nll_loss(predictions, targets)


model = SimpleCNN()
data = torch.randn(6, 1, 8, 8)
targets = torch.randint(5, (6,))


def compute_grad(sample, target):
    loss = loss_fn(model(sample.unsqueeze(0)), target.unsqueeze(0))
    return torch.autograd.grad(loss, list(model.parameters()))


per_sample_grads = [torch.stack(shards) for shards in
                    zip(*[compute_grad(data[i], targets[i]) for i in range(6)])]
print(per_sample_grads[0].shape)
params = {k: v.detach() for k, v in model.named_parameters()}
buffers = {k: v.detach() for k, v in model.named_buffers()}


def compute_loss(params, buffers, sample, target):
    predictions = functional_call(model, (params, buffers), (sample.unsqueeze(0),))
    return loss_fn(predictions, target.unsqueeze(0))


ft_per_sample_grads = vmap(grad(compute_loss), in_dims=(None, None, 0, 0))(params, buffers,
                                                                           data, targets)
print(list(ft_per_sample_grads), ft_per_sample_grads["fc1.bias"].shape)
for g, ft in zip(per_sample_grads, ft_per_sample_grads.values()):
    assert torch.allclose(g, ft, atol=3e-3, rtol=1e-5)
print(ft_per_sample_grads["fc1.bias"][0], model.conv1.weight.grad)
