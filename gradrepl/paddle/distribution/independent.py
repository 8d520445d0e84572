"""``paddle.distribution.Independent``: batch axes of a distribution read as event axes."""
from __future__ import annotations

from .distribution import Distribution


class Independent(Distribution):
    """``base`` with its rightmost ``reinterpreted_batch_rank`` batch axes made event axes."""

    def __init__(self, base, reinterpreted_batch_rank):
        if not isinstance(base, Distribution):
            raise TypeError(f"Expected type of 'base' is Distribution, but got {type(base)}")
        if not 0 < reinterpreted_batch_rank <= len(base.batch_shape):
            raise ValueError(f"Expected 0 < reinterpreted_batch_rank <= {len(base.batch_shape)}"
                             f", but got {reinterpreted_batch_rank}")
        self._base = base
        self._reinterpreted_batch_rank = reinterpreted_batch_rank
        shape = tuple(base.batch_shape) + tuple(base.event_shape)
        cut = len(base.batch_shape) - reinterpreted_batch_rank
        super().__init__(batch_shape=shape[:cut], event_shape=shape[cut:])

    @property
    def mean(self):
        return self._base.mean

    @property
    def variance(self):
        return self._base.variance

    def sample(self, shape=()):
        return self._base.sample(shape)

    def log_prob(self, value):
        return self._sum_rightmost(self._base.log_prob(value), self._reinterpreted_batch_rank)

    def prob(self, value):
        return self.log_prob(value).exp()

    def entropy(self):
        return self._sum_rightmost(self._base.entropy(), self._reinterpreted_batch_rank)

    def _sum_rightmost(self, value, n):
        return value.sum(list(range(-n, 0))) if n > 0 else value
