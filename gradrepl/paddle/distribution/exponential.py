"""``paddle.distribution.Exponential``: waiting times of rate ``rate``."""
from __future__ import annotations

import numpy as np

from .distribution import Distribution, _paddle, dtype_name
from .exponential_family import ExponentialFamily


class Exponential(ExponentialFamily):
    """Exp(rate)."""

    def __init__(self, rate):
        if self._validate_args(rate):
            self.rate = rate
            self.dtype = dtype_name(rate.dtype)
        else:
            [self.rate] = self._to_tensor(rate)
            self.dtype = _paddle().get_default_dtype()
        super().__init__(self.rate.shape)

    @property
    def mean(self):
        return self.rate.reciprocal()

    @property
    def variance(self):
        return self.rate.pow(-2)

    def sample(self, shape=()):
        with _paddle().no_grad():
            return self.rsample(shape)

    def rsample(self, shape=()):
        paddle = _paddle()
        shape = Distribution._extend_shape(self, sample_shape=shape)
        u = paddle.uniform(shape=shape, min=float(np.finfo(dtype="float32").tiny), max=1.0,
                           dtype=self.rate.dtype)
        return -paddle.log(u) / self.rate

    def prob(self, value):
        return self.rate * _paddle().exp(-self.rate * value)

    def log_prob(self, value):
        return _paddle().log(self.rate) - self.rate * value

    def entropy(self):
        return 1.0 - _paddle().log(self.rate)

    def cdf(self, value):
        return 1.0 - _paddle().exp(-self.rate * value)

    def icdf(self, value):
        return -_paddle().log1p(-value) / self.rate

    def kl_divergence(self, other):
        if not isinstance(other, Exponential):
            raise TypeError(f"Expected type of other is Exponential, but got {type(other)}")
        ratio = other.rate / self.rate
        t1 = -_paddle().log(ratio)
        return t1 + ratio - 1

    @property
    def _natural_parameters(self):
        return (-self.rate,)

    def _log_normalizer(self, x):
        return -_paddle().log(-x)
