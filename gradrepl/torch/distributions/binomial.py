from __future__ import annotations

from ._common import *  # noqa: F401,F403
from ._common import _fn, _samplers, _t
from ._discrete import expand_param, set_probs_or_logits

__all__ = ["Binomial"]


def _clamp_by_zero(x):
    return (x.clamp(min=0) + x - x.clamp(max=0)) / 2


class Binomial(Distribution):
    arg_constraints = {"total_count": constraints.nonnegative_integer,
                       "probs": constraints.unit_interval, "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        set_probs_or_logits(self, probs, logits, extra=total_count)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Binomial, _instance)
        batch_shape = Size(batch_shape)
        new.total_count = self.total_count.expand(batch_shape)
        expand_param(new, self, batch_shape)
        super(Binomial, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def mode(self):
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        return self._param.size()

    def sample(self, sample_shape=Size()):
        shape = tuple(self._extended_shape(sample_shape))
        with _t().no_grad():
            return from_np(_samplers.binomial(raw(self.total_count.expand(shape)),
                                              raw(self.probs.expand(shape))))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        torch = _t()
        lf_n = _fn.lgamma(self.total_count + 1)
        lf_k = _fn.lgamma(value + 1)
        lf_nmk = _fn.lgamma(self.total_count - value + 1)
        norm = (self.total_count * _clamp_by_zero(self.logits)
                + self.total_count * torch.log1p(torch.exp(-torch.abs(self.logits))) - lf_n)
        return value * self.logits - lf_k - lf_nmk - norm

    def entropy(self):
        total = int(self.total_count.max())
        if not self.total_count.min() == total:
            raise NotImplementedError("Inhomogeneous total count not supported by `entropy`.")
        lp = self.log_prob(self.enumerate_support(False))
        return -(_t().exp(lp) * lp).sum(0)

    def enumerate_support(self, expand=True):
        total = int(self.total_count.max())
        if not self.total_count.min() == total:
            raise NotImplementedError("Inhomogeneous total count not supported by "
                                      "`enumerate_support`.")
        values = _t().arange(1 + total, dtype=self._param.dtype)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values


torch_names(globals())
