"""``paddle.distribution.Poisson``: counts of rate ``rate``."""
from __future__ import annotations

from collections.abc import Sequence

from . import _samplers
from .distribution import Distribution, _paddle, dtype_name


class Poisson(Distribution):
    """Poisson(rate); entropy and KL sum over the support up to rate + 30 sqrt(rate)."""

    def __init__(self, rate):
        self.dtype = _paddle().get_default_dtype()
        self.rate = self._to_tensor(rate)
        super().__init__(self.rate.shape)

    def _to_tensor(self, rate):
        if isinstance(rate, (float, int)):
            return _paddle().to_tensor([rate], dtype=self.dtype)
        self.dtype = dtype_name(rate.dtype)
        return rate

    @property
    def mean(self):
        return self.rate

    @property
    def variance(self):
        return self.rate

    def sample(self, shape=()):
        paddle = _paddle()
        if not isinstance(shape, Sequence):
            raise TypeError("sample shape must be Sequence object.")
        out_shape = tuple(shape) + tuple(self.batch_shape)
        rate = paddle.broadcast_to(self.rate, shape=out_shape)
        with paddle.no_grad():
            return _samplers.poisson(rate)

    def entropy(self):
        paddle = _paddle()
        values = self._enumerate_bounded_support(self.rate).reshape(
            (-1,) + (1,) * len(self.batch_shape))
        log_prob = self.log_prob(values)
        proposed = -(paddle.exp(log_prob) * log_prob).sum(0)
        mask = paddle.cast(paddle.not_equal(self.rate, paddle.to_tensor(0.0, dtype=self.dtype)),
                           dtype=self.dtype)
        return paddle.multiply(proposed, mask)

    def _enumerate_bounded_support(self, rate):
        paddle = _paddle()
        if paddle.greater_equal(paddle.max(rate), paddle.to_tensor(1.0, dtype=self.dtype)):
            s_max = paddle.sqrt(paddle.max(rate))
        else:
            s_max = paddle.ones_like(rate, dtype=self.dtype)
        upper = paddle.max(paddle.cast(rate + 30 * s_max, dtype="int32"))
        return paddle.arange(0, upper, dtype=self.dtype)

    def log_prob(self, value):
        paddle = _paddle()
        value = paddle.cast(value, dtype=self.dtype)
        eps = paddle.finfo(self.rate.dtype).eps
        return paddle.nan_to_num(-self.rate + value * paddle.log(self.rate)
                                 - paddle.lgamma(value + 1), neginf=-eps)

    def prob(self, value):
        return _paddle().exp(self.log_prob(value))

    def kl_divergence(self, other):
        paddle = _paddle()
        if self.batch_shape != other.batch_shape:
            raise ValueError("KL divergence of two poisson distributions should share the same "
                             "`batch_shape`.")
        rate_max = paddle.max(paddle.maximum(self.rate, other.rate))
        a_max = paddle.max(self._enumerate_bounded_support(rate_max))
        support = paddle.arange(0, a_max, dtype=self.dtype).reshape(
            (-1,) + (1,) * len(self.batch_shape))
        lp1 = self.log_prob(support)
        lp2 = other.log_prob(support)
        return (paddle.exp(lp1) * (lp1 - lp2)).sum(0)
