"""``paddle.distribution.TransformedDistribution``: a base distribution pushed through
transforms (log_prob by the change of variables)."""
from __future__ import annotations

import typing

from . import transform as _transform
from .distribution import Distribution
from .independent import Independent


def _sum_rightmost(value, n):
    return value.sum(list(range(-n, 0))) if n > 0 else value


class TransformedDistribution(Distribution):
    """The law of t_n(...t_1(x)) for x ~ base."""

    def __init__(self, base, transforms):
        if not isinstance(base, Distribution):
            raise TypeError(f"Expected type of 'base' is Distribution, but got {type(base)}.")
        if not isinstance(transforms, typing.Sequence):
            raise TypeError("Expected type of 'transforms' is Sequence[Transform] or Chain, but "
                            f"got {type(transforms)}.")
        if not all(isinstance(t, _transform.Transform) for t in transforms):
            raise TypeError("All element of transforms must be Transform type.")
        chain = _transform.ChainTransform(transforms)
        base_shape = tuple(base.batch_shape) + tuple(base.event_shape)
        self._base = base
        self._transforms = transforms
        if not transforms:
            super().__init__(base.batch_shape, base.event_shape)
            return
        if len(base_shape) < chain._domain.event_rank:
            raise ValueError("'base' needs to have shape with size at least "
                             f"{chain._domain.event_rank}, bug got {len(base_shape)}.")
        if chain._domain.event_rank > len(base.event_shape):
            base = Independent(base, chain._domain.event_rank - len(base.event_shape))
        shape = chain.forward_shape(tuple(base.batch_shape) + tuple(base.event_shape))
        rank = chain._codomain.event_rank + max(len(base.event_shape)
                                                - chain._domain.event_rank, 0)
        super().__init__(shape[:len(shape) - rank], shape[len(shape) - rank:])

    def sample(self, shape=()):
        x = self._base.sample(shape)
        for t in self._transforms:
            x = t.forward(x)
        return x

    def rsample(self, shape=()):
        x = self._base.rsample(shape)
        for t in self._transforms:
            x = t.forward(x)
        return x

    def log_prob(self, value):
        log_prob = 0.0
        y = value
        event_rank = len(self.event_shape)
        for t in reversed(self._transforms):
            x = t.inverse(y)
            event_rank += t._domain.event_rank - t._codomain.event_rank
            log_prob = log_prob - _sum_rightmost(t.forward_log_det_jacobian(x),
                                                 event_rank - t._domain.event_rank)
            y = x
        log_prob += _sum_rightmost(self._base.log_prob(y),
                                   event_rank - len(self._base.event_shape))
        return log_prob
