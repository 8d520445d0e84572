from __future__ import annotations

from ._common import *  # noqa: F401,F403
from ._common import _fn, _samplers, _t

__all__ = ["Dirichlet"]


def _sample_dirichlet(concentration):
    """``torch._sample_dirichlet`` (differentiable: the implicit reparameterisation gradient
    of torch's ``_Dirichlet`` function, through its Beta-marginal approximation)."""
    from ...engine.registry import apply
    sample = _samplers.dirichlet(raw(concentration))

    def vjp(n, g):
        x = n.out()
        conc = n.inputs[0]
        grad = _dirichlet_grad(raw(x), raw(conc))
        go = g
        return (Tensor._wrap(grad, True) * (go - (x.detach() * go).sum(-1, True)),)

    op = custom_op("sample_dirichlet", "_DirichletBackward", lambda c: sample.copy(), vjp)
    return apply(op, (concentration,))


def _dirichlet_grad(x, alpha):
    raise NotImplementedError("gradrepl does not emulate torch._dirichlet_grad (the "
                              "reparameterised gradient of Dirichlet/Beta samples)")


class Dirichlet(ExponentialFamily):
    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None):
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        super().__init__(concentration.shape[:-1], concentration.shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Dirichlet, _instance)
        batch_shape = Size(batch_shape)
        new.concentration = self.concentration.expand(tuple(batch_shape)
                                                      + tuple(self.event_shape))
        super(Dirichlet, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        return _sample_dirichlet(self.concentration.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return (_fn.xlogy(self.concentration - 1.0, value).sum(-1)
                + _fn.lgamma(self.concentration.sum(-1))
                - _fn.lgamma(self.concentration).sum(-1))

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, True)

    @property
    def mode(self):
        torch = _t()
        cm1 = (self.concentration - 1).clamp(min=0.0)
        mode = cm1 / cm1.sum(-1, True)
        mask = (self.concentration < 1).all(dim=-1)
        if bool(mask.any()):
            mode = mode.clone()
            sub = mode[mask]
            mode[mask] = torch.nn.functional.one_hot(sub.argmax(dim=-1),
                                                     cm1.shape[-1]).to(mode.dtype)
        return mode

    @property
    def variance(self):
        con0 = self.concentration.sum(-1, True)
        return (self.concentration * (con0 - self.concentration)
                / (con0.pow(2) * (con0 + 1)))

    def entropy(self):
        k = self.concentration.size(-1)
        a0 = self.concentration.sum(-1)
        return (_fn.lgamma(self.concentration).sum(-1) - _fn.lgamma(a0)
                - (k - a0) * _fn.digamma(a0)
                - ((self.concentration - 1.0) * _fn.digamma(self.concentration)).sum(-1))

    @property
    def _natural_params(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return _fn.lgamma(x).sum(-1) - _fn.lgamma(x.sum(-1))


torch_names(globals())
