"""The few torch functions ``torch.distributions`` needs that the dialect may not have (yet):
each looks the name up on ``torch`` first and falls back to a local version."""
from __future__ import annotations

import numpy as np

from .. import _dtypes, _ops
from .._base import Size, raw
from .._tensor import Tensor

_wrap = Tensor._wrap


def _torch():
    from gradrepl import torch
    return torch


def _lookup(name):
    try:
        return getattr(_torch(), name)
    except AttributeError:
        return None


class _FInfo:
    def __init__(self, npdt):
        fi = np.finfo(npdt)
        self.bits = fi.bits
        self.eps = float(fi.eps)
        self.max = float(fi.max)
        self.min = float(fi.min)
        self.tiny = self.smallest_normal = float(fi.tiny)
        self.resolution = float(fi.resolution)
        self.dtype = str(np.dtype(npdt))


def finfo(dtype):
    f = _lookup("finfo")
    if f is not None:
        return f(dtype)
    return _FInfo(_dtypes.to_np(dtype))


def to_np(t):
    return raw(t)


def wrap(arr):
    return _wrap(np.asarray(arr), True)


def broadcast_shapes(*shapes):
    return Size(np.broadcast_shapes(*[tuple(s) for s in shapes]))


def broadcast_tensors(*ts):
    f = _lookup("broadcast_tensors")
    if f is not None:
        return tuple(f(*ts))
    shape = broadcast_shapes(*[t.shape for t in ts])
    return tuple(t if tuple(t.shape) == tuple(shape) else t.expand(shape) for t in ts)


_LGAMMA = None
_DIGAMMA = None


def lgamma(x):
    global _LGAMMA
    f = _lookup("lgamma")
    if f is not None:
        return f(x)
    if _LGAMMA is None:
        _LGAMMA = _ops._unary("lgamma", "LgammaBackward0", "in0")
    return _LGAMMA(x)


def digamma(x):
    global _DIGAMMA
    f = _lookup("digamma")
    if f is not None:
        return f(x)
    if _DIGAMMA is None:
        _DIGAMMA = _ops._unary("digamma", "DigammaBackward0", "in0")
    return _DIGAMMA(x)


def mvlgamma(x, p):
    f = _lookup("mvlgamma")
    if f is not None:
        return f(x, p)
    import math
    t = _torch()
    args = x.unsqueeze(-1) - t.arange(p, dtype=x.dtype) / 2
    return lgamma(args).sum(-1) + p * (p - 1) / 4 * math.log(math.pi)


def xlogy(x, y):
    f = _lookup("xlogy")
    if f is not None:
        return f(x, y)
    t = _torch()
    if not isinstance(x, Tensor):
        x = t.tensor(x, dtype=y.dtype)
    res = x * t.log(y)
    return t.where(x == 0, t.zeros_like(res), res)


def erfinv(x):
    f = _lookup("erfinv")
    if f is not None:
        return f(x)
    return _ops._unary("erfinv", "ErfinvBackward0", "in0")(x)


def new_tensor_like(ref, arr):
    """An array as a tensor of ``ref``'s dtype."""
    return _wrap(np.asarray(arr).astype(raw(ref).dtype), True)


def cholesky(a):
    lin = _torch().linalg
    f = getattr(lin, "cholesky", None)
    if f is not None:
        return f(a)
    from ...engine.registry import apply
    return apply(_ops.top("cholesky", "LinalgCholeskyExBackward0", "out"), (a,))


def solve_triangular(a, b, upper=False, left=True):
    """``torch.linalg.solve_triangular(a, b, upper=upper)``."""
    lin = _torch().linalg
    f = getattr(lin, "solve_triangular", None)
    if f is not None:
        return f(a, b, upper=upper, left=left)
    from ...engine.registry import apply
    op = _ops.top("triangular_solve", "LinalgSolveTriangularBackward0", "all")
    if left:
        return apply(op, (a, b), {"upper": upper})
    # X A = B  <=>  A^T X^T = B^T
    return apply(op, (a.mT, b.mT), {"upper": not upper}).mT
