"""``paddle.distribution.Binomial``: successes in ``total_count`` trials of ``probs``."""
from __future__ import annotations

from collections.abc import Sequence

from . import _samplers
from .distribution import Distribution, _paddle


class Binomial(Distribution):
    """Binomial(total_count, probs), computed in probs' dtype (the default dtype for floats)."""

    def __init__(self, total_count, probs):
        self.dtype = _paddle().get_default_dtype()
        self.total_count, self.probs = self._to_tensor(total_count, probs)
        super().__init__(self.total_count.shape)

    def _to_tensor(self, total_count, probs):
        paddle = _paddle()
        if isinstance(probs, float):
            probs = paddle.to_tensor(probs, dtype=self.dtype)
        else:
            self.dtype = probs.dtype
        if isinstance(total_count, int):
            total_count = paddle.to_tensor(total_count, dtype=self.dtype)
        else:
            total_count = paddle.cast(total_count, dtype=self.dtype)
        return paddle.broadcast_tensors([total_count, probs])

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, shape=()):
        paddle = _paddle()
        if not isinstance(shape, Sequence):
            raise TypeError("sample shape must be Sequence object.")
        with paddle.no_grad():
            out_shape = tuple(shape) + tuple(self.batch_shape)
            size = paddle.broadcast_to(self.total_count, shape=out_shape)
            prob = paddle.broadcast_to(self.probs, shape=out_shape)
            draws = _samplers.binomial(paddle.cast(size, dtype="int32"), prob)
            return paddle.cast(draws, self.dtype)

    def entropy(self):
        values = self._enumerate_support()
        log_prob = self.log_prob(values)
        return -(_paddle().exp(log_prob) * log_prob).sum(0)

    def _enumerate_support(self):
        paddle = _paddle()
        values = paddle.arange(1 + paddle.max(self.total_count), dtype=self.dtype)
        return values.reshape((-1,) + (1,) * len(self.batch_shape))

    def log_prob(self, value):
        paddle = _paddle()
        value = paddle.cast(value, dtype=self.dtype)
        log_comb = (paddle.lgamma(self.total_count + 1.0)
                    - paddle.lgamma(self.total_count - value + 1.0) - paddle.lgamma(value + 1.0))
        eps = paddle.finfo(self.probs.dtype).eps
        probs = paddle.clip(self.probs, min=eps, max=1 - eps)
        return paddle.nan_to_num(log_comb + value * paddle.log(probs)
                                 + (self.total_count - value) * paddle.log(1 - probs),
                                 neginf=-eps)

    def prob(self, value):
        return _paddle().exp(self.log_prob(value))

    def kl_divergence(self, other):
        paddle = _paddle()
        support = self._enumerate_support()
        lp1 = self.log_prob(support)
        lp2 = other.log_prob(support)
        return paddle.multiply(paddle.exp(lp1), paddle.subtract(lp1, lp2)).sum(0)
