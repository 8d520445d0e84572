"""``GeneralizedPareto(loc, scale, concentration)`` (torch 2.13): samples by the inverse CDF of
one ``rand`` draw; densities, CDFs, moments and support written with the same torch ops in the
same order as torch."""
from __future__ import annotations

import math
import numbers

from ._common import *  # noqa: F401,F403
from ._common import _t

__all__ = ["GeneralizedPareto"]


class GeneralizedPareto(Distribution):
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive,
                       "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        if is_num(loc) and is_num(scale) and is_num(concentration):
            batch_shape = Size()
        else:
            batch_shape = self.loc.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(GeneralizedPareto, _instance)
        batch_shape = Size(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        super(GeneralizedPareto, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        u = _t().rand(shape, dtype=self.loc.dtype)
        return self.icdf(u)

    def _safe(self):
        T = _t()
        c = self.concentration
        eq_zero = T.isclose(c, T.tensor(0.0))
        return eq_zero, T.where(eq_zero, T.ones_like(c), c)

    def log_prob(self, value):
        T = _t()
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero, safe = self._safe()
        y = 1 / safe + T.ones_like(z)
        where_nonzero = T.where(y == 0, y, y * T.log1p(safe * z))
        log_scale = math.log(self.scale) if isinstance(self.scale, numbers.Real) else \
            self.scale.log()
        return -log_scale - T.where(eq_zero, z, where_nonzero)

    def log_survival_function(self, value):
        T = _t()
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero, safe = self._safe()
        where_nonzero = -T.log1p(safe * z) / safe
        return T.where(eq_zero, -z, where_nonzero)

    def log_cdf(self, value):
        T = _t()
        return T.log1p(-T.exp(self.log_survival_function(value)))

    def cdf(self, value):
        return _t().exp(self.log_cdf(value))

    def icdf(self, value):
        T = _t()
        c = self.concentration
        eq_zero = T.isclose(c, T.zeros_like(c))
        safe = T.where(eq_zero, T.ones_like(c), c)
        logu = T.log1p(-value)
        where_nonzero = self.loc + self.scale / safe * T.expm1(-safe * logu)
        where_zero = self.loc - self.scale * logu
        return T.where(eq_zero, where_zero, where_nonzero)

    def _z(self, x):
        return (x - self.loc) / self.scale

    @property
    def mean(self):
        T = _t()
        c = self.concentration
        valid = c < 1
        safe = T.where(valid, c, 0.5)
        return T.where(valid, self.loc + self.scale / (1 - safe), nan)

    @property
    def variance(self):
        T = _t()
        c = self.concentration
        valid = c < 0.5
        safe = T.where(valid, c, 0.25)
        result = self.scale ** 2 / ((1 - safe) ** 2 * (1 - 2 * safe))
        return T.where(valid, result, nan)

    def entropy(self):
        T = _t()
        ans = T.log(self.scale) + self.concentration + 1
        return T.broadcast_to(ans, self._batch_shape)

    @property
    def mode(self):
        return self.loc

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        T = _t()
        lower = self.loc
        upper = T.where(self.concentration < 0, lower - self.scale / self.concentration, inf)
        return constraints.interval(lower, upper)

torch_names(globals())
