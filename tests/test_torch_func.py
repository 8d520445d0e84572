"""``torch.func`` and ``torch.autograd.forward_ad`` of the torch dialect against values recorded
from real torch 2.13 (``/opt/oracle/tv/bin/python``, the same calls): gradients, Jacobians,
Hessians, JVPs/VJPs, vmap's in_dims/out_dims, composition (grad of grad, vmap of grad,
jvp of grad), functional_call, dual tensors, and the transforms' errors.

Float values are compared to 1e-6 relative (the elementwise kernels may differ from torch's in
the last bit: cos(-1) is 0.5403023 there); shapes, flags and messages exactly.
"""
from __future__ import annotations

import pytest

import gradrepl.torch as torch
import gradrepl.torch.autograd.forward_ad as fwAD
from gradrepl.torch import state as torch_state
from gradrepl.torch.func import (functional_call, grad, grad_and_value, hessian, jacfwd, jacrev,
                                 jvp, vjp, vmap)


@pytest.fixture(autouse=True)
def _fresh():
    torch_state.reset()
    yield
    torch_state.reset()


def _flat(v):
    if isinstance(v, (list, tuple)):
        return [y for x in v for y in _flat(x)]
    return [v]


class approx:
    """Equal to nested lists of floats within 1e-6 relative, of the same structure."""

    def __init__(self, expected):
        self.expected = expected

    def __eq__(self, actual):
        return (str(_shape(actual)) == str(_shape(self.expected))
                and _flat(actual) == pytest.approx(_flat(self.expected), rel=1e-6, abs=1e-7))

    def __repr__(self):
        return f"approx({self.expected!r})"


def _shape(v):
    return [_shape(x) for x in v] if isinstance(v, (list, tuple)) else 0


X = [0.5, -1.0, 2.0]
GRAD_F = [0.9182168245315552, -1.3817732334136963, 0.07700371742248535]
HESS_F = [[1.5154523849487305, 0.0, 0.0], [0.0, 0.23913371562957764, 0.0],
          [-0.0, -0.0, -2.650888442993164]]
COS_X = [0.8775825500488281, 0.5403023362159729, -0.416146844625473]


def f(x):
    return (x.sin() * x).sum()


def test_grad_and_higher_orders():
    x = torch.tensor(X)
    assert grad(f)(x).tolist() == approx(GRAD_F)
    assert grad(grad(lambda v: v.sin()))(torch.tensor(0.3)).item() == approx(-0.29552021622657776)
    h = hessian(f)(x)
    assert h.shape == (3, 3) and h.tolist() == approx(HESS_F)
    assert vmap(grad(f))(torch.stack([x, 2 * x])).tolist() == approx(
        [GRAD_F, [1.3817732334136963, -0.07700371742248535, -3.3713769912719727]])


def test_jacobians_both_ways():
    x = torch.tensor(X)
    diag = [[COS_X[0], 0.0, 0.0], [0.0, COS_X[1], 0.0], [0.0, 0.0, COS_X[2]]]
    assert jacrev(torch.sin)(x).tolist() == approx(diag)
    assert jacfwd(torch.sin)(x).tolist() == approx(diag)
    jb = jacrev(lambda a, b: a * b, argnums=(0, 1))(x, x + 1)
    assert isinstance(jb, tuple) and jb[1].tolist() == approx(
        [[0.5, 0.0, 0.0], [0.0, -1.0, 0.0], [0.0, 0.0, 2.0]])
    w, b, v = torch.randn(7, 3), torch.randn(7), torch.randn(3)
    pred = lambda w, b, v: torch.nn.functional.linear(v, w, b).tanh()  # noqa: E731
    jw, jbias = jacrev(pred, argnums=(0, 1))(w, b, v)
    assert jw.shape == (7, 7, 3) and jbias.shape == (7, 7)
    assert torch.allclose(jacfwd(pred, argnums=2)(w, b, v), jacrev(pred, argnums=2)(w, b, v))


def test_jvp_vjp():
    x = torch.tensor(X)
    out, t = jvp(f, (x,), (torch.ones(3),))
    assert t.item() == approx(-0.38655269145965576)
    value, fn = vjp(torch.exp, x)
    assert fn(torch.ones(3))[0].tolist() == approx(
        [1.6487212181091309, 0.3678794503211975, 7.389056205749512])
    assert value.requires_grad is False and isinstance(fn(torch.ones(3)), tuple)


def test_grad_and_value_aux_and_detached_results():
    x = torch.tensor(X)
    g, (v, aux) = grad_and_value(lambda a: ((a ** 2).sum(), a.mean()), has_aux=True)(x)
    assert g.tolist() == [1.0, -2.0, 4.0] and v.item() == 5.25 and aux.item() == 0.5
    assert (g.requires_grad, v.requires_grad) == (False, False)


def test_grad_stays_differentiable_for_an_input_that_requires_grad():
    y = torch.tensor(X).requires_grad_()
    gy = grad(f)(y)
    assert gy.requires_grad and gy.grad_fn is not None
    gy.sum().backward()
    assert y.grad.tolist() == approx([HESS_F[0][0], HESS_F[1][1], HESS_F[2][2]])


def test_vmap_dims():
    m = torch.arange(6.).reshape(2, 3)
    assert vmap(lambda a, b: a @ b, in_dims=(0, None))(m, torch.tensor(X)).tolist() == [3.0, 7.5]
    assert vmap(lambda a: a.sum(0), in_dims=1)(m).tolist() == [3.0, 5.0, 7.0]
    assert vmap(lambda a: a * 2, out_dims=1)(m).shape == (3, 2)
    two = vmap(lambda a, c: (a * c, a - c), in_dims=(0, None))(m, torch.ones(3))
    assert isinstance(two, tuple) and two[1].tolist() == [[-1.0, 0.0, 1.0], [2.0, 3.0, 4.0]]
    d = vmap(lambda p: p["w"] * 2)({"w": m})
    assert d.tolist() == [[0.0, 2.0, 4.0], [6.0, 8.0, 10.0]]


@pytest.mark.parametrize("call, kind, message", [
    (lambda: grad(lambda a: a * 2)(torch.ones(2)), RuntimeError,
     "grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got tensor with 1 "
     "dims. Maybe you wanted to use the vjp or jacrev APIs instead?"),
    (lambda: grad(lambda a: a.sum(), argnums=2)(torch.ones(2)), RuntimeError,
     "Got argnum=2, but only 1 positional inputs"),
    (lambda: grad(lambda a: a.sum())(torch.ones(2, dtype=torch.long)), RuntimeError,
     "only Tensors of floating point dtype can require gradients"),
    (lambda: vmap(torch.sum, in_dims=(None,))(torch.ones(2)), ValueError,
     "vmap: Expected at least one Tensor to vmap over"),
    (lambda: vmap(torch.add)(torch.ones(2), torch.ones(3)), ValueError,
     "vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
     "[2, 3] for the mapped dimension"),
    (lambda: vmap(torch.sum, in_dims=(1,))(torch.ones(2)), ValueError,
     "vmap(sum, in_dims=(1,), ...)(<inputs>): Got in_dim=1 for some input, but that input is a "
     "Tensor of dimensionality 1 so expected in_dim to satisfy -1 <= in_dim < 1."),
    (lambda: vmap(lambda a: 3.0)(torch.ones(2)), ValueError,
     "vmap(<lambda>, ...): `<lambda>` must only return Tensors, got type <class 'float'>. Did "
     "you mean to set out_dims= to None for output?"),
    (lambda: jvp(torch.sin, [torch.ones(2)], [torch.ones(2)]), RuntimeError,
     "jvp(f, primals, tangents): Expected primals to be a tuple. E.g. it should be valid to "
     "call f(*primals)."),
])
def test_errors_as_torch(call, kind, message):
    with pytest.raises(kind) as info:
        call()
    assert str(info.value) == message


def test_functional_call_restores_the_module():
    m = torch.nn.Linear(3, 1)
    w = m.weight
    out = functional_call(m, {"weight": torch.ones(1, 3), "bias": torch.zeros(1)},
                          (torch.tensor(X),))
    assert out.tolist() == [1.5]
    assert m.weight is w and type(m.weight).__name__ == "Parameter"


def test_dual_tensors():
    x = torch.tensor(X)
    with fwAD.dual_level() as level:
        assert level == 0
        d = fwAD.make_dual(x, torch.tensor([1.0, 0.0, 0.0]))
        assert repr(d) == ("tensor([ 0.5000, -1.0000,  2.0000], "
                           "tangent=tensor([1., 0., 0.]))")
        o = (d.exp() * d).sum()
        assert fwAD.unpack_dual(o).tangent.item() == approx(2.4730818271636963)
        mm = torch.matmul(d.reshape(1, 3), torch.ones(3, 2))
        assert fwAD.unpack_dual(mm).tangent.tolist() == [[1.0, 1.0]]
        primal, tangent = fwAD.unpack_dual(o)
        assert tangent is not None and primal.item() == o.item()
    assert fwAD.unpack_dual(o).tangent is None
    assert repr(o) == f"tensor({o.item():.4f})"


def test_no_level_no_dual():
    with pytest.raises(RuntimeError, match="^Trying to create a dual Tensor for forward AD but "
                                           "no level exists, make sure to enter_dual_level"):
        fwAD.make_dual(torch.ones(2), torch.ones(2))
    with fwAD.dual_level():
        with pytest.raises(RuntimeError, match="^Nested forward mode AD is not supported"):
            fwAD.enter_dual_level()
    # outside a level the dialect's modules call the engine directly again
    from gradrepl.engine.registry import apply
    from gradrepl.torch import _ops

    assert _ops.apply is apply
