"""``paddle.distribution.Gumbel``: the type-I extreme value distribution."""
from __future__ import annotations

import math
import numbers

import numpy as np

from .distribution import _paddle, is_tensor
from .transformed_distribution import TransformedDistribution


class Gumbel(TransformedDistribution):
    """Gumbel(loc, scale); draws are loc - scale * log(-log(u)) for u ~ Uniform(tiny, 1-eps)."""

    def __init__(self, loc, scale):
        paddle = _paddle()
        from .uniform import Uniform

        for arg, nm in ((loc, "loc"), (scale, "scale")):
            if not isinstance(arg, numbers.Real) and not is_tensor(arg):
                raise TypeError(f"Expected type of {nm} is Real|Variable|Value, but got "
                                f"{type(arg)}")
        if isinstance(loc, numbers.Real):
            loc = paddle.full(shape=(), fill_value=loc)
        if isinstance(scale, numbers.Real):
            scale = paddle.full(shape=(), fill_value=scale)
        if loc.shape != scale.shape:
            self.loc, self.scale = paddle.broadcast_tensors([loc, scale])
        else:
            self.loc, self.scale = loc, scale
        finfo = np.finfo(dtype="float32")
        self.base_dist = Uniform(paddle.full_like(self.loc, float(finfo.tiny)),
                                 paddle.full_like(self.loc, float(1 - finfo.eps)))
        self.transforms = ()
        super().__init__(self.base_dist, self.transforms)

    @property
    def mean(self):
        return self.loc + self.scale * np.euler_gamma

    @property
    def variance(self):
        paddle = _paddle()
        temp = paddle.full(shape=self.loc.shape, fill_value=math.pi * math.pi,
                           dtype=self.scale.dtype)
        return paddle.pow(self.scale, 2) * temp / 6

    @property
    def stddev(self):
        return _paddle().sqrt(self.variance)

    def prob(self, value):
        paddle = _paddle()
        y = (self.loc - value.astype(self.loc.dtype)) / self.scale.astype(self.loc.dtype)
        return paddle.exp(y - paddle.exp(y)) / self.scale.astype(y.dtype)

    def log_prob(self, value):
        return _paddle().log(self.prob(value))

    def cdf(self, value):
        paddle = _paddle()
        return paddle.exp(-paddle.exp(-(value - self.loc.astype(value.dtype))
                                      / self.scale.astype(value.dtype)))

    def entropy(self):
        return _paddle().log(self.scale) + 1 + np.euler_gamma

    def sample(self, shape=()):
        with _paddle().no_grad():
            return self.rsample(shape)

    def rsample(self, shape=()):
        paddle = _paddle()
        from .transform import AffineTransform, ExpTransform

        exp_t = ExpTransform()
        aff1 = AffineTransform(paddle.full(shape=self.scale.shape, fill_value=0,
                                           dtype=self.loc.dtype), -paddle.ones_like(self.scale))
        aff2 = AffineTransform(self.loc, -self.scale)
        return aff2.forward(exp_t.inverse(aff1.forward(exp_t.inverse(self._base.sample(shape)))))
