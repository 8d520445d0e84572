"""``paddle.distribution.ContinuousBernoulli``: the continuous relaxation on [0, 1]."""
from __future__ import annotations

from collections.abc import Sequence

from .distribution import Distribution, _paddle


class ContinuousBernoulli(Distribution):
    """CB(probs); near probs = 0.5 (``lims``) Taylor expansions replace the exact formulas."""

    def __init__(self, probs, lims=(0.499, 0.501)):
        paddle = _paddle()
        self.dtype = paddle.get_default_dtype()
        self.probs = self._to_tensor(probs)
        self.lims = paddle.to_tensor(lims, dtype=self.dtype)
        eps = paddle.finfo(self.probs.dtype).eps
        self.probs = paddle.clip(self.probs, min=eps, max=1 - eps)
        super().__init__(self.probs.shape)

    def _to_tensor(self, probs):
        if isinstance(probs, (float, int)):
            return _paddle().to_tensor([probs], dtype=self.dtype)
        self.dtype = probs.dtype
        return probs

    def _cut_support_region(self):
        paddle = _paddle()
        return paddle.logical_or(paddle.less_equal(self.probs, self.lims[0]),
                                 paddle.greater_than(self.probs, self.lims[1]))

    def _cut_probs(self):
        paddle = _paddle()
        return paddle.where(self._cut_support_region(), self.probs,
                            self.lims[0] * paddle.ones_like(self.probs))

    def _tanh_inverse(self, value):
        paddle = _paddle()
        return 0.5 * (paddle.log1p(value) - paddle.log1p(-value))

    def _log_constant(self):
        paddle = _paddle()
        cut = self._cut_probs()
        half = paddle.to_tensor(0.5, dtype=self.dtype)
        below = paddle.where(paddle.less_equal(cut, half), cut, paddle.zeros_like(cut))
        above = paddle.where(paddle.greater_equal(cut, half), cut, paddle.ones_like(cut))
        propose = (paddle.log(2.0 * paddle.abs(self._tanh_inverse(1.0 - 2.0 * cut)))
                   - paddle.where(paddle.less_equal(cut, half), paddle.log1p(-2.0 * below),
                                  paddle.log(2.0 * above - 1.0)))
        x = paddle.square(self.probs - 0.5)
        taylor = (paddle.log(paddle.to_tensor(2.0, dtype=self.dtype))
                  + (4.0 / 3.0 + 104.0 / 45.0 * x) * x)
        return paddle.where(self._cut_support_region(), propose, taylor)

    @property
    def mean(self):
        paddle = _paddle()
        cut = self._cut_probs()
        tmp = paddle.divide(cut, 2.0 * cut - 1.0)
        propose = tmp + paddle.divide(paddle.to_tensor(1.0, dtype=self.dtype),
                                      2.0 * self._tanh_inverse(1.0 - 2.0 * cut))
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * paddle.square(x)) * x
        return paddle.where(self._cut_support_region(), propose, taylor)

    @property
    def variance(self):
        paddle = _paddle()
        cut = self._cut_probs()
        tmp = paddle.divide(cut * (cut - 1.0), paddle.square(1.0 - 2.0 * cut))
        propose = tmp + paddle.divide(paddle.to_tensor(1.0, dtype=self.dtype),
                                      paddle.square(paddle.log1p(-cut) - paddle.log(cut)))
        x = paddle.square(self.probs - 0.5)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return paddle.where(self._cut_support_region(), propose, taylor)

    def sample(self, shape=()):
        with _paddle().no_grad():
            return self.rsample(shape)

    def rsample(self, shape=()):
        if not isinstance(shape, Sequence):
            raise TypeError("sample shape must be Sequence object.")
        out_shape = tuple(shape) + tuple(self.batch_shape)
        u = _paddle().uniform(shape=out_shape, dtype=self.dtype, min=0, max=1)
        return self.icdf(u)

    def log_prob(self, value):
        paddle = _paddle()
        value = paddle.cast(value, dtype=self.dtype)
        eps = paddle.finfo(self.probs.dtype).eps
        cross = paddle.nan_to_num(value * paddle.log(self.probs)
                                  + (1.0 - value) * paddle.log(1 - self.probs), neginf=-eps)
        return self._log_constant() + cross

    def prob(self, value):
        return _paddle().exp(self.log_prob(value))

    def entropy(self):
        paddle = _paddle()
        log_p = paddle.log(self.probs)
        log_1mp = paddle.log1p(-self.probs)
        return paddle.where(paddle.equal(self.probs, paddle.to_tensor(0.5, dtype=self.dtype)),
                            paddle.full_like(self.probs, 0.0),
                            -self._log_constant() + self.mean * (log_1mp - log_p) - log_1mp)

    def cdf(self, value):
        paddle = _paddle()
        value = paddle.cast(value, dtype=self.dtype)
        cut = self._cut_probs()
        cdfs = ((paddle.pow(cut, value) * paddle.pow(1.0 - cut, 1.0 - value) + cut - 1.0)
                / (2.0 * cut - 1.0))
        unbounded = paddle.where(self._cut_support_region(), cdfs, value)
        return paddle.where(
            paddle.less_equal(value, paddle.to_tensor(0.0, dtype=self.dtype)),
            paddle.zeros_like(value),
            paddle.where(paddle.greater_equal(value, paddle.to_tensor(1.0, dtype=self.dtype)),
                         paddle.ones_like(value), unbounded))

    def icdf(self, value):
        paddle = _paddle()
        value = paddle.cast(value, dtype=self.dtype)
        cut = self._cut_probs()
        return paddle.where(
            self._cut_support_region(),
            (paddle.log1p(-cut + value * (2.0 * cut - 1.0)) - paddle.log1p(-cut))
            / (paddle.log(cut) - paddle.log1p(-cut)),
            value)

    def kl_divergence(self, other):
        paddle = _paddle()
        if self.batch_shape != other.batch_shape:
            raise ValueError("KL divergence of two Continuous Bernoulli distributions should "
                             "share the same `batch_shape`.")
        part1 = -self.entropy()
        log_q = paddle.log(other.probs)
        log_1mq = paddle.log1p(-other.probs)
        part2 = -(other._log_constant() + self.mean * (log_q - log_1mq) + log_1mq)
        return part1 + part2
