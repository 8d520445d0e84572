"""``paddle.distribution.LogNormal``: exp of a Normal."""
from __future__ import annotations

from .distribution import _paddle
from .normal import Normal
from .transform import ExpTransform
from .transformed_distribution import TransformedDistribution


class LogNormal(TransformedDistribution):
    """LogNormal(loc, scale): exp(X) for X ~ Normal(loc, scale)."""

    def __init__(self, loc, scale):
        self._base = Normal(loc=loc, scale=scale)
        self.loc = self._base.loc
        self.scale = self._base.scale
        super().__init__(self._base, [ExpTransform()])

    @property
    def mean(self):
        return _paddle().exp(self._base.mean + self._base.variance / 2)

    @property
    def variance(self):
        paddle = _paddle()
        return (paddle.expm1(self._base.variance)
                * paddle.exp(2 * self._base.mean + self._base.variance))

    def entropy(self):
        return self._base.entropy() + self._base.mean

    def probs(self, value):
        return _paddle().exp(self.log_prob(value))

    def kl_divergence(self, other):
        return self._base.kl_divergence(other._base)
