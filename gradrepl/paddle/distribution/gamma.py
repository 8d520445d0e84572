"""``paddle.distribution.Gamma``: shape ``concentration``, inverse scale ``rate``."""
from __future__ import annotations

from . import _samplers
from .distribution import Distribution, _paddle, dtype_name
from .exponential_family import ExponentialFamily


class Gamma(ExponentialFamily):
    """Gamma(concentration, rate)."""

    def __init__(self, concentration, rate):
        if self._validate_args(concentration, rate):
            self.concentration = concentration
            self.rate = rate
            self.dtype = dtype_name(concentration.dtype)
        else:
            [self.concentration, self.rate] = self._to_tensor(concentration, rate)
            self.dtype = _paddle().get_default_dtype()
        super().__init__(self.concentration.shape)

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def prob(self, value):
        return _paddle().exp(self.log_prob(value))

    def log_prob(self, value):
        paddle = _paddle()
        return (self.concentration * paddle.log(self.rate)
                + (self.concentration - 1) * paddle.log(value) - self.rate * value
                - paddle.lgamma(self.concentration))

    def entropy(self):
        paddle = _paddle()
        return (self.concentration - paddle.log(self.rate) + paddle.lgamma(self.concentration)
                + (1.0 - self.concentration) * paddle.digamma(self.concentration))

    def sample(self, shape=()):
        with _paddle().no_grad():
            return self.rsample(shape)

    def rsample(self, shape=()):
        shape = Distribution._extend_shape(self, sample_shape=shape)
        return (_samplers.standard_gamma(self.concentration.expand(shape))
                / self.rate.expand(shape))

    def kl_divergence(self, other):
        paddle = _paddle()
        if not isinstance(other, Gamma):
            raise TypeError(f"Expected type of other is Exponential, but got {type(other)}")
        t1 = other.concentration * paddle.log(self.rate / other.rate)
        t2 = paddle.lgamma(other.concentration) - paddle.lgamma(self.concentration)
        t3 = (self.concentration - other.concentration) * paddle.digamma(self.concentration)
        t4 = (other.rate - self.rate) * (self.concentration / self.rate)
        return t1 + t2 + t3 + t4

    def _natural_parameters(self):
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x, y):
        paddle = _paddle()
        return paddle.lgamma(x + 1) + (x + 1) * paddle.log(-y.reciprocal())
