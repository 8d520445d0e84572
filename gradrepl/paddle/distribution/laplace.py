"""``paddle.distribution.Laplace``: the double exponential."""
from __future__ import annotations

import numbers

import numpy as np

from .distribution import Distribution, _paddle, is_tensor


class Laplace(Distribution):
    """Laplace(loc, scale)."""

    def __init__(self, loc, scale):
        paddle = _paddle()
        for arg, nm in ((loc, "loc"), (scale, "scale")):
            if not isinstance(arg, numbers.Real) and not is_tensor(arg):
                raise TypeError(f"Expected type of {nm} is Real|Variable, but got {type(arg)}")
        if isinstance(loc, numbers.Real):
            loc = paddle.full(shape=(), fill_value=loc)
        if isinstance(scale, numbers.Real):
            scale = paddle.full(shape=(), fill_value=scale)
        if (len(scale.shape) > 0 or len(loc.shape) > 0) and loc.dtype == scale.dtype:
            self.loc, self.scale = paddle.broadcast_tensors([loc, scale])
        else:
            self.loc, self.scale = loc, scale
        super().__init__(self.loc.shape)

    @property
    def mean(self):
        return self.loc

    @property
    def stddev(self):
        return 2 ** 0.5 * self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def _validate_value(self, value):
        paddle = _paddle()
        if isinstance(value, numbers.Real):
            value = paddle.full(shape=(), fill_value=value)
        if value.dtype != self.scale.dtype:
            value = paddle.cast(value, self.scale.dtype)
        if len(self.scale.shape) > 0 or len(self.loc.shape) > 0 or len(value.shape) > 0:
            return tuple(paddle.broadcast_tensors([self.loc, self.scale, value]))
        return self.loc, self.scale, value

    def log_prob(self, value):
        paddle = _paddle()
        loc, scale, value = self._validate_value(value)
        log_scale = -paddle.log(2 * scale)
        return log_scale - paddle.abs(value - loc) / scale

    def entropy(self):
        return 1 + _paddle().log(2 * self.scale)

    def cdf(self, value):
        paddle = _paddle()
        loc, scale, value = self._validate_value(value)
        item = 0.5 * (value - loc).sign() * paddle.expm1(-(value - loc).abs() / scale)
        return 0.5 - item

    def icdf(self, value):
        paddle = _paddle()
        loc, scale, value = self._validate_value(value)
        term = value - 0.5
        return loc - scale * term.sign() * paddle.log1p(-2 * term.abs())

    def sample(self, shape=()):
        with _paddle().no_grad():
            return self.rsample(tuple(shape))

    def rsample(self, shape=()):
        paddle = _paddle()
        eps = self._get_eps()
        shape = self._extend_shape(shape)
        u = paddle.uniform(shape=shape, min=float(np.nextafter(-1, 1)) + eps / 2,
                           max=1.0 - eps / 2, dtype=self.loc.dtype)
        return self.loc - self.scale * u.sign() * paddle.log1p(-u.abs())

    def _get_eps(self):
        paddle = _paddle()
        if self.loc.dtype in (paddle.float64, paddle.complex128):
            return 2.22045e-16
        return 1.19209e-07

    def kl_divergence(self, other):
        paddle = _paddle()
        var_ratio = other.scale / self.scale
        t = paddle.abs(self.loc - other.loc)
        term1 = (self.scale * paddle.exp(-t / self.scale) + t) / other.scale
        term2 = paddle.log(var_ratio)
        return term1 + term2 - 1
