"""``paddle.distribution.variable``: random variables' kinds (discrete, event rank, support)."""
from __future__ import annotations

from ..core import PaddleClass, PaddleObject

from . import constraint as _constraint


class Variable(PaddleObject, metaclass=PaddleClass):
    """A random variable's description: discrete or not, event rank, constraint."""

    def __init__(self, is_discrete=False, event_rank=0, constraint=None):
        self._is_discrete = is_discrete
        self._event_rank = event_rank
        self._constraint = constraint

    @property
    def is_discrete(self):
        return self._is_discrete

    @property
    def event_rank(self):
        return self._event_rank

    def constraint(self, value):
        assert self._constraint is not None
        return self._constraint.check(value)


class Real(Variable):
    def __init__(self, event_rank=0):
        super().__init__(False, event_rank, _constraint.real)


class Positive(Variable):
    def __init__(self, event_rank=0):
        super().__init__(False, event_rank, _constraint.positive)


class Independent(Variable):
    """``base`` with ``reinterpreted_batch_rank`` batch axes read as event axes."""

    def __init__(self, base, reinterpreted_batch_rank):
        self._base = base
        self._reinterpreted_batch_rank = reinterpreted_batch_rank
        super().__init__(base.is_discrete, base.event_rank + reinterpreted_batch_rank)

    def constraint(self, value):
        ret = self._base.constraint(value)
        if ret.dim() < self._reinterpreted_batch_rank:
            raise ValueError("Input dimensions must be equal or grater than  "
                             f"{self._reinterpreted_batch_rank}")
        return ret.reshape((*ret.shape[:ret.dim() - self.reinterpreted_batch_rank], -1)).all(-1)


class Stack(Variable):
    def __init__(self, vars, axis=0):  # noqa: A002
        self._vars = vars
        self._axis = axis

    @property
    def is_discrete(self):
        return any(var.is_discrete for var in self._vars)

    @property
    def event_rank(self):
        rank = max(var.event_rank for var in self._vars)
        if self._axis + rank < 0:
            rank += 1
        return rank

    def constraint(self, value):
        import gradrepl.paddle as paddle

        if not -value.dim() <= self._axis < value.dim():
            raise ValueError(f"Input dimensions {value.dim()} should be grater than stack "
                             f"constraint axis {self._axis}.")
        return paddle.stack([var.check(v) for var, v in
                             zip(self._vars, paddle.unstack(value, self._axis))], self._axis)


real = Real()
positive = Positive()
