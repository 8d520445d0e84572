"""``torch.linalg``: norms, inverse, determinant, products."""
from __future__ import annotations

from . import _ops


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    return _ops.norm(x, ord, dim, keepdim)


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    return _ops.norm(A, 2 if ord in (None, "fro") else ord, dim, keepdim)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False):  # noqa: A002
    return _ops.norm(A, 2 if ord == "fro" else ord, dim, keepdim)


def inv(A):
    return _ops.inverse(A)


def det(A):
    return _ops.det(A)


def matmul(a, b):
    return _ops.matmul(a, b)


def cross(a, b, dim=-1):
    return _ops.cross(a, b, dim)
