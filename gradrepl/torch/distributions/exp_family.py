"""``ExponentialFamily``: entropy through the log normalizer's gradient (Bregman divergence)."""
from __future__ import annotations

from ._naming import torch_names
from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    @property
    def _natural_params(self):
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError

    def entropy(self):
        from gradrepl import torch
        result = -self._mean_carrier_measure
        nparams = [p.detach().requires_grad_() for p in self._natural_params]
        lg_normal = self._log_normalizer(*nparams)
        grads = torch.autograd.grad(lg_normal.sum(), nparams, create_graph=True)
        result += lg_normal
        for p, g in zip(nparams, grads):
            result -= (p * g).reshape(tuple(self._batch_shape) + (-1,)).sum(-1)
        return result


torch_names(globals())
