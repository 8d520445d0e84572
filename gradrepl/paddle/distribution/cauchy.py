"""``paddle.distribution.Cauchy``: the Lorentz distribution (no mean, no variance)."""
from __future__ import annotations

import numbers

import numpy as np

from .distribution import Distribution, _paddle, is_tensor


def _params(loc, scale, names=("loc", "scale"), kinds="Real|Variable|Value"):
    paddle = _paddle()
    for arg, nm in zip((loc, scale), names):
        if not isinstance(arg, numbers.Real) and not is_tensor(arg):
            raise TypeError(f"Expected type of {nm} is {kinds}, but got {type(arg)}")
    if isinstance(loc, numbers.Real):
        loc = paddle.full(shape=(), fill_value=loc)
    if isinstance(scale, numbers.Real):
        scale = paddle.full(shape=(), fill_value=scale)
    return loc, scale


class Cauchy(Distribution):
    """Cauchy(loc, scale)."""

    def __init__(self, loc, scale, name=None):
        paddle = _paddle()
        self.name = name if name is not None else "Cauchy"
        loc, scale = _params(loc, scale)
        if loc.shape != scale.shape:
            self.loc, self.scale = paddle.broadcast_tensors([loc, scale])
        else:
            self.loc, self.scale = loc, scale
        self.dtype = self.loc.dtype
        super().__init__(batch_shape=self.loc.shape, event_shape=())

    @property
    def mean(self):
        raise ValueError("Cauchy distribution has no mean.")

    @property
    def variance(self):
        raise ValueError("Cauchy distribution has no variance.")

    @property
    def stddev(self):
        raise ValueError("Cauchy distribution has no stddev.")

    def sample(self, shape=(), name=None):
        with _paddle().no_grad():
            return self.rsample(shape, name)

    def rsample(self, shape=(), name=None):
        paddle = _paddle()
        if not isinstance(shape, (np.ndarray, list, tuple)) and not is_tensor(shape):
            raise TypeError(f"Expected type of shape is Sequence[int], but got {type(shape)}")
        shape = self._extend_shape(tuple(shape))
        loc = self.loc.expand(shape)
        scale = self.scale.expand(shape)
        u = paddle.rand(shape, dtype=self.dtype)
        return paddle.add(loc, paddle.multiply(scale, paddle.tan(np.pi * (u - 0.5))))

    def _check_value(self, value):
        if not is_tensor(value):
            raise TypeError(f"Expected type of value is Variable or Value, but got {type(value)}")

    def prob(self, value):
        self._check_value(value)
        return self.log_prob(value).exp()

    def log_prob(self, value):
        paddle = _paddle()
        self._check_value(value)
        value = self._check_values_dtype_in_probs(self.loc, value)
        loc, scale, value = paddle.broadcast_tensors([self.loc, self.scale, value])
        return paddle.subtract(
            -paddle.square(paddle.divide(paddle.subtract(value, loc), scale)).log1p(),
            paddle.add(paddle.full(loc.shape, np.log(np.pi), dtype=self.dtype), scale.log()))

    def cdf(self, value):
        paddle = _paddle()
        self._check_value(value)
        value = self._check_values_dtype_in_probs(self.loc, value)
        loc, scale, value = paddle.broadcast_tensors([self.loc, self.scale, value])
        return paddle.atan(paddle.divide(paddle.subtract(value, loc), scale)) / np.pi + 0.5

    def entropy(self):
        paddle = _paddle()
        return paddle.add(paddle.full(self.loc.shape, np.log(4 * np.pi), dtype=self.dtype),
                          self.scale.log())

    def kl_divergence(self, other):
        paddle = _paddle()
        if not isinstance(other, Cauchy):
            raise TypeError(f"Expected type of other is Cauchy, but got {type(other)}")
        t1 = paddle.add(paddle.pow(paddle.add(self.scale, other.scale), 2),
                        paddle.pow(paddle.subtract(self.loc, other.loc), 2)).log()
        t2 = (4 * paddle.multiply(self.scale, other.scale)).log()
        return paddle.subtract(t1, t2)
