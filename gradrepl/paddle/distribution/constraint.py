"""``paddle.distribution.constraint``: the supports a variable's values lie in."""
from __future__ import annotations

from ..core import PaddleClass, PaddleObject


def _paddle():
    import gradrepl.paddle as paddle

    return paddle


class Constraint(PaddleObject, metaclass=PaddleClass):
    """A test ``value -> bool Tensor``."""

    def __call__(self, value):
        raise NotImplementedError

    def check(self, value):
        return self(value)


class Real(Constraint):
    def __call__(self, value):
        return value == value


class Range(Constraint):
    def __init__(self, lower, upper):
        self._lower = lower
        self._upper = upper
        super().__init__()

    def __call__(self, value):
        return self._lower <= value <= self._upper


class Positive(Constraint):
    def __call__(self, value):
        return value >= 0.0


class Simplex(Constraint):
    def __call__(self, value):
        paddle = _paddle()
        return paddle.all(value >= 0, axis=-1) and (value.sum(-1) - 1).abs() < 1e-6


real = Real()
positive = Positive()
simplex = Simplex()
