"""``paddle.distribution.Dirichlet``: distributions on the simplex (last axis)."""
from __future__ import annotations

import math

from . import _samplers
from .distribution import _paddle
from .exponential_family import ExponentialFamily


class Dirichlet(ExponentialFamily):
    """Dir(concentration); the last axis is the event."""

    def __init__(self, concentration):
        if concentration.dim() < 1 or math.prod(concentration.shape) == 0:
            raise ValueError("`concentration` parameter must be at least one dimensional")
        self.concentration = concentration
        super().__init__(concentration.shape[:-1], concentration.shape[-1:])

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def variance(self):
        c0 = self.concentration.sum(-1, keepdim=True)
        return self.concentration * (c0 - self.concentration) / (c0.pow(2) * (c0 + 1))

    def sample(self, shape=()):
        return _samplers.dirichlet(self.concentration.expand(self._extend_shape(tuple(shape))))

    def prob(self, value):
        return _paddle().exp(self.log_prob(value))

    def log_prob(self, value):
        paddle = _paddle()
        return ((paddle.log(value) * (self.concentration - 1.0)).sum(-1)
                + paddle.lgamma(self.concentration.sum(-1))
                - paddle.lgamma(self.concentration).sum(-1))

    def entropy(self):
        paddle = _paddle()
        c0 = self.concentration.sum(-1)
        k = self.concentration.shape[-1]
        return (paddle.lgamma(self.concentration).sum(-1) - paddle.lgamma(c0)
                - (k - c0) * paddle.digamma(c0)
                - ((self.concentration - 1.0) * paddle.digamma(self.concentration)).sum(-1))

    @property
    def _natural_parameters(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return x.lgamma().sum(-1) - _paddle().lgamma(x.sum(-1))
