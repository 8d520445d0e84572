"""``paddle.distribution.StudentT``: Student's t with ``df``, ``loc`` and ``scale``."""
from __future__ import annotations

import math
from collections.abc import Sequence

from .distribution import Distribution, _paddle
from .gamma import Gamma


class StudentT(Distribution):
    """StudentT(df, loc, scale); samples are normal / sqrt(chi2 / df)."""

    def __init__(self, df, loc, scale, name=None):
        paddle = _paddle()
        self.name = name if name is not None else "StudentT"
        self.df, self.loc, self.scale = self._broadcast_all(df, loc, scale)
        if not self._check_nonnegative(self.df):
            raise ValueError("Every element of input parameter `df` should be nonnegative.")
        if not self._check_nonnegative(self.scale):
            raise ValueError("Every element of input parameter `scale` should be nonnegative.")
        super().__init__(self.df.shape)
        self._chi2 = Gamma(0.5 * self.df, paddle.full_like(self.df, 0.5))

    def _check_nonnegative(self, value):
        return (value >= 0.0).all()

    @property
    def mean(self):
        paddle = _paddle()
        return paddle.where(self.df > 1.0, self.loc,
                            paddle.full_like(self.loc, fill_value=float("nan")))

    @property
    def variance(self):
        paddle = _paddle()
        var = self.df.clone().detach()
        var = paddle.where(self.df > 2.0, self.scale.pow(2) * var / (var - 2),
                           paddle.full_like(var, fill_value=float("nan")))
        inf_cond = (self.df <= 2.0).logical_and(self.df > 1.0)
        return paddle.where(inf_cond, paddle.full_like(var, fill_value=float("inf")), var)

    def sample(self, shape=()):
        paddle = _paddle()
        if not isinstance(shape, Sequence):
            raise TypeError("sample shape must be Sequence object.")
        z = paddle.normal(shape=self._extend_shape(shape))
        chi2 = self._chi2.sample(shape)
        x = z * paddle.rsqrt(chi2 / self.df)
        return self.loc + self.scale * x

    def entropy(self):
        paddle = _paddle()
        lbeta = (paddle.lgamma(0.5 * self.df) + math.lgamma(0.5)
                 - paddle.lgamma(0.5 * (self.df + 1)))
        return (self.scale.log()
                + 0.5 * (self.df + 1) * (paddle.digamma(0.5 * (self.df + 1))
                                         - paddle.digamma(0.5 * self.df))
                + 0.5 * self.df.log() + lbeta)

    def log_prob(self, value):
        paddle = _paddle()
        value = self._check_values_dtype_in_probs(self.df, value)
        y = (value - self.loc) / self.scale
        z = (self.scale.log() + 0.5 * self.df.log() + 0.5 * math.log(math.pi)
             + paddle.lgamma(0.5 * self.df) - paddle.lgamma(0.5 * (self.df + 1.0)))
        return -0.5 * (self.df + 1.0) * paddle.log1p(y ** 2.0 / self.df) - z

    def prob(self, value):
        return _paddle().exp(self.log_prob(value))
