"""``torch.distributions.constraint_registry``: ``biject_to(constraint)`` and
``transform_to(constraint)``, the transforms from unconstrained reals onto a constraint's support,
registered per constraint *type* in torch's order (so ``positive``, a ``greater_than(0)``, maps
to ``Exp`` then ``Affine(0, 1)``, as in torch)."""
from __future__ import annotations

from numbers import Number

from . import constraints, transforms

__all__ = ["ConstraintRegistry", "biject_to", "transform_to"]


class ConstraintRegistry:
    """A table from constraint types to transform factories."""

    def __init__(self):
        self._registry = {}
        super().__init__()

    def register(self, constraint, factory=None):
        if factory is None:
            return lambda factory: self.register(constraint, factory)
        if isinstance(constraint, constraints.Constraint):
            constraint = type(constraint)
        if not isinstance(constraint, type) or not issubclass(constraint,
                                                              constraints.Constraint):
            raise TypeError(f"Expected constraint to be either a Constraint subclass or "
                            f"instance, but got {constraint}")
        self._registry[constraint] = factory
        return factory

    def __call__(self, constraint):
        try:
            factory = self._registry[type(constraint)]
        except KeyError:
            raise NotImplementedError(f"Cannot transform {type(constraint).__name__} "
                                      f"constraints") from None
        return factory(constraint)


biject_to = ConstraintRegistry()
transform_to = ConstraintRegistry()
_BOTH = (biject_to, transform_to)


def _on(registries, *cons):
    def deco(factory):
        for r in registries:
            for c in cons:
                r.register(c, factory)
        return factory
    return deco


def _interval(c):
    if (isinstance(c.lower_bound, Number) and c.lower_bound == 0
            and isinstance(c.upper_bound, Number) and c.upper_bound == 1):
        return transforms.SigmoidTransform()
    return transforms.ComposeTransform([transforms.SigmoidTransform(), transforms.AffineTransform(
        c.lower_bound, c.upper_bound - c.lower_bound)])


# the table, in torch's registration order (a later entry for the same type wins)
_on(_BOTH, constraints.real)(lambda c: transforms.identity_transform)
_on((biject_to,), constraints.independent)(lambda c: transforms.IndependentTransform(
    biject_to(c.base_constraint), c.reinterpreted_batch_ndims))
_on((transform_to,), constraints.independent)(lambda c: transforms.IndependentTransform(
    transform_to(c.base_constraint), c.reinterpreted_batch_ndims))
_on(_BOTH, constraints.nonnegative, constraints.positive)(lambda c: transforms.ExpTransform())
_on(_BOTH, constraints.greater_than_eq, constraints.greater_than)(
    lambda c: transforms.ComposeTransform([transforms.ExpTransform(),
                                           transforms.AffineTransform(c.lower_bound, 1)]))
_on(_BOTH, constraints.less_than)(
    lambda c: transforms.ComposeTransform([transforms.ExpTransform(),
                                           transforms.AffineTransform(c.upper_bound, -1)]))
_on(_BOTH, constraints.half_open_interval, constraints.interval)(_interval)
_on((biject_to,), constraints.simplex)(lambda c: transforms.StickBreakingTransform())
_on((transform_to,), constraints.simplex)(lambda c: transforms.SoftmaxTransform())
_on((transform_to,), constraints.lower_cholesky)(lambda c: transforms.LowerCholeskyTransform())
_on((transform_to,), constraints.positive_semidefinite, constraints.positive_definite)(
    lambda c: transforms.PositiveDefiniteTransform())
_on(_BOTH, constraints.corr_cholesky)(lambda c: transforms.CorrCholeskyTransform())
_on((biject_to,), constraints.cat)(lambda c: transforms.CatTransform(
    [biject_to(x) for x in c.cseq], c.dim, c.lengths))
_on((transform_to,), constraints.cat)(lambda c: transforms.CatTransform(
    [transform_to(x) for x in c.cseq], c.dim, c.lengths))
_on((biject_to,), constraints.stack)(lambda c: transforms.StackTransform(
    [biject_to(x) for x in c.cseq], c.dim))
_on((transform_to,), constraints.stack)(lambda c: transforms.StackTransform(
    [transform_to(x) for x in c.cseq], c.dim))
