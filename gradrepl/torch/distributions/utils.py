"""``torch.distributions.utils``: parameter broadcasting, probs <-> logits, lazy properties."""
from __future__ import annotations

import numbers
from functools import update_wrapper

from .._base import Size
from .._tensor import Tensor
from . import _fn

euler_constant = 0.57721566490153286060

__all__ = ["broadcast_all", "logits_to_probs", "clamp_probs", "probs_to_logits",
           "lazy_property", "tril_matrix_to_vec", "vec_to_tril_matrix"]


def _t():
    from gradrepl import torch
    return torch


def _is_number(v):
    return isinstance(v, numbers.Number) and not isinstance(v, bool) or isinstance(v, bool)


def broadcast_all(*values):
    """Tensors and numbers broadcast to one shape; numbers take the first tensor's dtype (else
    the default dtype)."""
    torch = _t()
    if not all(isinstance(v, Tensor) or isinstance(v, numbers.Number) for v in values):
        raise ValueError("Input arguments must all be instances of Number, torch.Tensor or "
                         "objects implementing __torch_function__.")
    if not all(isinstance(v, Tensor) for v in values):
        dtype = torch.get_default_dtype()
        for v in values:
            if isinstance(v, Tensor):
                dtype = v.dtype
                break
        values = [v if isinstance(v, Tensor) else torch.tensor(v, dtype=dtype) for v in values]
    return _fn.broadcast_tensors(*values)


def _standard_normal(shape, dtype, device):
    return _t().empty(tuple(shape), dtype=dtype).normal_()


def _sum_rightmost(value, dim):
    if dim == 0:
        return value
    return value.reshape(tuple(value.shape[:-dim]) + (-1,)).sum(-1)


def logits_to_probs(logits, is_binary=False):
    torch = _t()
    if is_binary:
        return torch.sigmoid(logits)
    return torch.nn.functional.softmax(logits, dim=-1)


def clamp_probs(probs):
    eps = _fn.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    torch = _t()
    ps = clamp_probs(probs)
    if is_binary:
        return torch.log(ps) - torch.log1p(-ps)
    return torch.log(ps)


class lazy_property:
    """Computed once, on first access, with gradients enabled, then stored on the instance."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        update_wrapper(self, wrapped)

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return _lazy_property_and_property(self.wrapped)
        with _t().enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class _lazy_property_and_property(lazy_property, property):
    def __init__(self, wrapped):
        property.__init__(self, wrapped)


def _tril_mask(n, diag):
    torch = _t()
    ar = torch.arange(n)
    return ar < ar.view(-1, 1) + (diag + 1)


def tril_matrix_to_vec(mat, diag=0):
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    return mat[..., _tril_mask(n, diag)]


def vec_to_tril_matrix(vec, diag=0):
    n = (-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * vec.shape[-1]
                            + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    eps = _fn.finfo(vec.dtype).eps
    if round(n) - n > eps:
        raise ValueError(f"The size of last dimension is {vec.shape[-1]} which cannot be "
                         "expressed as the lower triangular part of a square D x D matrix.")
    n = round(n)
    torch = _t()
    mat = torch.zeros(tuple(vec.shape[:-1]) + (n, n), dtype=vec.dtype)
    mask = _tril_mask(n, diag)
    mat[..., mask] = vec
    return mat
