"""``paddle.distribution.Beta``: a Dirichlet on two categories."""
from __future__ import annotations

import numbers

from .dirichlet import Dirichlet
from .distribution import _paddle
from .exponential_family import ExponentialFamily


class Beta(ExponentialFamily):
    """Beta(alpha, beta) on [0, 1]."""

    def __init__(self, alpha, beta):
        paddle = _paddle()
        if isinstance(alpha, numbers.Real):
            alpha = paddle.full(shape=[], fill_value=alpha)
        if isinstance(beta, numbers.Real):
            beta = paddle.full(shape=[], fill_value=beta)
        self.alpha, self.beta = paddle.broadcast_tensors([alpha, beta])
        self._dirichlet = Dirichlet(paddle.stack([self.alpha, self.beta], -1))
        super().__init__(self._dirichlet._batch_shape)

    @property
    def mean(self):
        return self.alpha / (self.alpha + self.beta)

    @property
    def variance(self):
        total = self.alpha + self.beta
        return self.alpha * self.beta / (total.pow(2) * (total + 1))

    def prob(self, value):
        return _paddle().exp(self.log_prob(value))

    def log_prob(self, value):
        return self._dirichlet.log_prob(_paddle().stack([value, 1.0 - value], -1))

    def sample(self, shape=()):
        return _paddle().squeeze(self._dirichlet.sample(tuple(shape))[..., 0], axis=-1)

    def entropy(self):
        return self._dirichlet.entropy()

    @property
    def _natural_parameters(self):
        return (self.alpha, self.beta)

    def _log_normalizer(self, x, y):
        paddle = _paddle()
        return paddle.lgamma(x) + paddle.lgamma(y) - paddle.lgamma(x + y)
