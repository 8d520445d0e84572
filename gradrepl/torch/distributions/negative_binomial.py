from __future__ import annotations

from ._common import *  # noqa: F401,F403
from ._common import _fn, _t
from ._discrete import expand_param, set_probs_or_logits
from .gamma import Gamma
from .poisson import poisson

__all__ = ["NegativeBinomial"]


class NegativeBinomial(Distribution):
    arg_constraints = {"total_count": constraints.greater_than_eq(0),
                       "probs": constraints.half_open_interval(0.0, 1.0),
                       "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        set_probs_or_logits(self, probs, logits, extra=total_count)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(NegativeBinomial, _instance)
        batch_shape = Size(batch_shape)
        new.total_count = self.total_count.expand(batch_shape)
        expand_param(new, self, batch_shape)
        super(NegativeBinomial, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.total_count * _t().exp(self.logits)

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / _t().sigmoid(-self.logits)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        return self._param.size()

    @lazy_property
    def _gamma(self):
        return Gamma(concentration=self.total_count, rate=_t().exp(-self.logits),
                     validate_args=False)

    def sample(self, sample_shape=Size()):
        with _t().no_grad():
            return poisson(self._gamma.sample(sample_shape=sample_shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        F = _t().nn.functional
        lup = (self.total_count * F.logsigmoid(-self.logits)
               + value * F.logsigmoid(self.logits))
        lnorm = (-_fn.lgamma(self.total_count + value) + _fn.lgamma(1.0 + value)
                 + _fn.lgamma(self.total_count))
        lnorm = lnorm.masked_fill(self.total_count + value == 0.0, 0.0)
        return lup - lnorm


torch_names(globals())
