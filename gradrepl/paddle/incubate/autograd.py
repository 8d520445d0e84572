"""``paddle.incubate.autograd`` in dynamic mode, as Paddle's ``functional.py`` defines it: a
function and its inputs in, gradients by ``paddle.grad(..., create_graph=True,
allow_unused=True)`` out.

- ``vjp(func, xs, v=None)``: ``(func(xs), grad(ys, xs, v))``.
- ``jvp(func, xs, v=None)``: the double-backward trick, ``grad(grad(ys, xs, u), u, v)`` with
  ``u`` zeros that take a gradient.
- ``Jacobian(func, xs, is_batched=False)`` / ``Hessian``: lazily evaluated rows (one
  ``paddle.grad`` a row, cached), indexed like a tensor, ``shape`` a tuple; ``xs`` flattened
  and concatenated ([N, M], or [B, N, M] batched).

Inputs are first separated from their history: a tensor that takes a gradient is copied by
``assign``, one that does not is detached and made to take one.
"""
from __future__ import annotations

from ...engine.tensor import Tensor as _T
from .. import profiles
from ..autograd import _multi_index, grad as _paddle_grad

__all__ = ["vjp", "jvp", "Jacobian", "Hessian"]


# Paddle's spellings by version (2.6.2's messages have these typos; 3.3.1 corrected them)
_SPELLING = {"should_elements": ("should", "shoule"), "should_hessian": ("should", "shoud")}


def _word(key):
    return _SPELLING[key][0 if profiles.current().api3 else 1]


def _is_seq(v):
    return isinstance(v, (list, tuple))


def _one_separate(x):
    if x is None:
        return None
    if not x.stop_gradient:
        from ..tensor.creation import assign

        return assign(x)
    x = x.detach()
    x.stop_gradient = False
    return x


def _separate(xs):
    return tuple(_one_separate(x) for x in xs) if _is_seq(xs) else _one_separate(xs)


def _as_tensors(xs):
    return tuple(xs) if _is_seq(xs) else (xs,)


def _check_inputs(func, xs, v=None):
    """Paddle's argument checks and messages (its 'xs' wording for v's elements too)."""
    if not callable(func):
        raise TypeError(f"Expected 'fun' is Callable, but got {type(func)}.")
    if not isinstance(xs, (_T, list, tuple)):
        raise TypeError(f"Expected 'xs' is a Tensor|Sequence[Tensor], but got {type(xs)}.")
    if _is_seq(xs) and not all(isinstance(x, _T) for x in xs):
        raise TypeError(f"All elements of 'xs' {_word('should_elements')} be Tensor.")
    if not isinstance(v, (_T, list, tuple, type(None))):
        raise TypeError(f"Expected 'v' is Tensor|Sequence[Tensor]|None, but got {type(v)}.")
    if _is_seq(v) and not all(isinstance(e, _T) for e in v):
        raise TypeError(f"All elements of 'xs' {_word('should_elements')} be Tensor.")


def _check_v_shape(v, refs):
    if v is None:
        return
    v, refs = _as_tensors(v), _as_tensors(refs)
    if len(v) != len(refs):
        raise RuntimeError(f"The argument v is a tuple of invalid length:should be "
                           f"{len(refs)} but got {len(v)}.")
    for index, (e, r) in enumerate(zip(v, refs)):
        if e.shape != r.shape:
            raise RuntimeError(f"The v[{index}] has invalid shape: should be {r.shape} but got "
                               f"{e.shape}.")


def _grad(ys, xs, v=None):
    xs_grad = _paddle_grad(ys, xs, v, create_graph=True, allow_unused=True)
    if isinstance(xs, _T) and _is_seq(xs_grad) and len(xs_grad) > 0:
        xs_grad = xs_grad[0]
    return xs_grad


def vjp(func, xs, v=None):
    """``(func(xs), vjp)``: the vector-Jacobian product of ``v`` (ones by default)."""
    _check_inputs(func, xs, v)
    xs, v = _separate(xs), _separate(v)
    ys = func(*xs) if _is_seq(xs) else func(xs)
    _check_v_shape(v, ys)
    return ys, _grad(ys, xs, v)


def _zeros_like_with_grad(xs):
    from ..tensor.creation import zeros_like

    def one(x):
        y = zeros_like(x)
        y.stop_gradient = False
        return y

    return [one(x) for x in xs] if _is_seq(xs) else one(xs)


def jvp(func, xs, v=None):
    """``(func(xs), jvp)``: the Jacobian-vector product of ``v`` (ones by default), by the
    double-backward trick."""
    _check_inputs(func, xs, v)
    xs, v = _separate(xs), _separate(v)
    ys = func(*xs) if _is_seq(xs) else func(xs)
    _check_v_shape(v, xs)
    ys_grad = _zeros_like_with_grad(ys)
    xs_grad = _grad(ys, xs, ys_grad)
    return ys, _grad(xs_grad, ys_grad, v)


class _LazyRows:
    """A Jacobian of ``func`` at ``xs`` evaluated one row (``_lazy_axis``) at a time."""

    _lazy_axis = 0

    def __init__(self, func, xs):
        self._xs = _separate(xs)
        self._ys = func(*_as_tensors(self._xs))
        self._flatten_xs = self._flatten(_as_tensors(self._xs))
        self._flatten_ys = self._flatten(_as_tensors(self._ys))
        self._cache = {}

    def _cached(self, k):
        v = self._cache.get(k)
        if v is None:
            v = self._cache[k] = self._evaluate(k)
        return v

    def __getitem__(self, indexes):
        from ..tensor.manipulation import stack

        indexes = _multi_index(indexes, self.shape)
        lazy = self._lazy_axis
        if isinstance(indexes[lazy], int):
            return self._cached(indexes[lazy])[indexes[:lazy] + indexes[lazy + 1:]]
        idx = indexes[lazy]
        rows = list(range(idx.start, idx.stop, idx.step))
        part = stack([self._cached(i) for i in rows], axis=lazy)
        return part[(*indexes[:lazy], slice(0, len(rows), 1), *indexes[lazy + 1:])]


class _NoBatch(_LazyRows):
    @property
    def shape(self):
        return (self._flatten_ys.shape[0], self._flatten_xs.shape[0])

    def _flatten(self, xs):
        from ..tensor.manipulation import concat

        return concat(tuple(x.reshape((-1,)) for x in xs))

    def _evaluate(self, row):
        return self._flatten(_as_tensors(_grad(self._flatten_ys[row], self._xs)))


class _BatchFirst(_LazyRows):
    _lazy_axis = 1

    @property
    def shape(self):
        return (self._flatten_xs.shape[0], self._flatten_ys.shape[1], self._flatten_xs.shape[1])

    def _flatten(self, xs):
        from ..tensor.manipulation import concat

        return concat(tuple(x.reshape((x.shape[0], -1)) for x in _as_tensors(xs)), 1)

    def _evaluate(self, row):
        return self._flatten(_grad(self._flatten_ys[:, row], self._xs))


class Jacobian:
    """The Jacobian of ``func`` at ``xs``: ``J[:]`` evaluates it, ``J[i]`` one row;
    ``is_batched`` takes the first axis as a batch ([B, N, M])."""

    def __init__(self, func, xs, is_batched=False):
        self._jacobian = _BatchFirst(func, xs) if is_batched else _NoBatch(func, xs)

    def __getitem__(self, indexes):
        return self._jacobian[indexes]

    @property
    def shape(self):
        return self._jacobian.shape


class Hessian(Jacobian):
    """The Hessian of a function with one output (per batch row with ``is_batched``)."""

    def __init__(self, func, xs, is_batched=False):
        def _jac_func(*xs):
            jac = Jacobian(func, xs, is_batched=is_batched)
            if (is_batched and jac.shape[1] != 1) or (not is_batched and jac.shape[0] != 1):
                raise RuntimeError(f"The function given to Hessian {_word('should_hessian')} "
                                   "return as single element Tensor or batched single element "
                                   "Tensor.")
            return jac[:, 0, :] if is_batched else jac[0, :]

        super().__init__(_jac_func, xs, is_batched=is_batched)
