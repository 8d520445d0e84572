"""``paddle.distribution.Geometric``: failures before the first success."""
from __future__ import annotations

import numbers

import numpy as np

from .distribution import Distribution, _paddle, is_tensor


class Geometric(Distribution):
    """Geometric(probs) on {0, 1, 2, ...}."""

    def __init__(self, probs):
        paddle = _paddle()
        if isinstance(probs, numbers.Real) or is_tensor(probs):
            if isinstance(probs, numbers.Real):
                probs = paddle.full(shape=(), fill_value=probs, dtype=paddle.float32)
        else:
            raise TypeError("Expected type of probs is Number.Real|Tensor|framework.Variable|"
                            f"Value, but got {type(probs)}")
        self.probs = probs
        super().__init__(tuple(probs.shape))

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def variance(self):
        return _paddle().to_tensor((1.0 / self.probs - 1.0) / self.probs,
                                   dtype=self.probs.dtype)

    @property
    def stddev(self):
        return _paddle().sqrt(self.variance)

    def _check_k(self, k):
        if not isinstance(k, numbers.Integral) and not is_tensor(k):
            raise TypeError("Expected type of k is number.Real|framework.Variable|Value, but "
                            f"got {type(k)}")

    def pmf(self, k):
        self._check_k(k)
        return _paddle().pow(1.0 - self.probs, k) * self.probs

    def log_pmf(self, k):
        self._check_k(k)
        return _paddle().log(self.pmf(k))

    def sample(self, shape=()):
        with _paddle().no_grad():
            return self.rsample(shape)

    def rsample(self, shape=()):
        paddle = _paddle()
        shape = Distribution._extend_shape(self, sample_shape=shape)
        u = paddle.uniform(shape=shape, min=float(np.finfo(dtype="float32").tiny), max=1.0,
                           dtype=self.probs.dtype)
        return paddle.floor(paddle.log(u) / paddle.log1p(-self.probs))

    def entropy(self):
        paddle = _paddle()
        x = (1.0 - self.probs) * paddle.log(1.0 - self.probs)
        y = self.probs * paddle.log(self.probs)
        return -(x + y) / self.probs

    def cdf(self, k):
        self._check_k(k)
        return 1.0 - _paddle().pow(1.0 - self.probs, k + 1)

    def kl_divergence(self, other):
        paddle = _paddle()
        if not isinstance(other, Geometric):
            raise TypeError("Exacted type of other is geometric.Geometric, but got "
                            f"{type(other)}")
        p, q = self.probs, other.probs
        return p * paddle.log(p / q) + (1.0 - p) * paddle.log((1.0 - p) / (1.0 - q))
