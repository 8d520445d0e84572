from __future__ import annotations

from ._common import *  # noqa: F401,F403
from ._common import _fn, _samplers, _t

__all__ = ["Poisson"]


def poisson(rate):
    return from_np(_samplers.poisson(raw(rate)))


class Poisson(ExponentialFamily):
    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    @property
    def mean(self):
        return self.rate

    @property
    def mode(self):
        return self.rate.floor()

    @property
    def variance(self):
        return self.rate

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        super().__init__(Size() if is_num(rate) else self.rate.size(),
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Poisson, _instance)
        batch_shape = Size(batch_shape)
        new.rate = self.rate.expand(batch_shape)
        super(Poisson, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape=Size()):
        shape = tuple(self._extended_shape(sample_shape))
        with _t().no_grad():
            return poisson(self.rate.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return _fn.xlogy(value, rate) - rate - _fn.lgamma(value + 1)

    @property
    def _natural_params(self):
        return (_t().log(self.rate),)

    def _log_normalizer(self, x):
        return _t().exp(x)


torch_names(globals())
