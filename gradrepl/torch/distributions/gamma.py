from __future__ import annotations

from ._common import *  # noqa: F401,F403
from ._common import _fn, _t

__all__ = ["Gamma"]


def _standard_gamma(concentration):
    return standard_gamma(concentration)


class Gamma(ExponentialFamily):
    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        batch = Size() if is_num(concentration) and is_num(rate) else self.concentration.size()
        super().__init__(batch, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Gamma, _instance)
        batch_shape = Size(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        new.rate = self.rate.expand(batch_shape)
        super(Gamma, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        value = _standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        tiny = _fn.finfo(value.dtype).tiny
        arr = raw(value)
        np.maximum(arr, arr.dtype.type(tiny), out=arr)
        return value

    def log_prob(self, value):
        torch = _t()
        value = torch.as_tensor(value, dtype=self.rate.dtype)
        if self._validate_args:
            self._validate_sample(value)
        return (_fn.xlogy(self.concentration, self.rate)
                + _fn.xlogy(self.concentration - 1, value)
                - self.rate * value - _fn.lgamma(self.concentration))

    def entropy(self):
        return (self.concentration - _t().log(self.rate) + _fn.lgamma(self.concentration)
                + (1.0 - self.concentration) * _fn.digamma(self.concentration))

    @property
    def _natural_params(self):
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x, y):
        return _fn.lgamma(x + 1) + (x + 1) * _t().log(-y.reciprocal())

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        torch = _t()
        return torch.special.gammainc(self.concentration, self.rate * value)


torch_names(globals())
