from __future__ import annotations

from ._common import *  # noqa: F401,F403
from ._common import _fn, _t
from .gamma import Gamma
from .transformed_distribution import TransformedDistribution
from .transforms import PowerTransform

__all__ = ["InverseGamma"]


class InverseGamma(TransformedDistribution):
    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        base = Gamma(concentration, rate, validate_args=validate_args)
        neg_one = -_t().ones((), dtype=base.rate.dtype)
        super().__init__(base, PowerTransform(neg_one), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(InverseGamma, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def concentration(self):
        return self.base_dist.concentration

    @property
    def rate(self):
        return self.base_dist.rate

    @property
    def mean(self):
        r = self.rate / (self.concentration - 1)
        return _t().where(self.concentration > 1, r, math.inf)

    @property
    def mode(self):
        return self.rate / (self.concentration + 1)

    @property
    def variance(self):
        r = self.rate.square() / ((self.concentration - 1).square() * (self.concentration - 2))
        return _t().where(self.concentration > 2, r, math.inf)

    def entropy(self):
        return (self.concentration + self.rate.log() + _fn.lgamma(self.concentration)
                - (1 + self.concentration) * _fn.digamma(self.concentration))


torch_names(globals())
