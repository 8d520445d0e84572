"""``torch.nn.utils.parametrizations``: ``weight_norm``, ``spectral_norm`` and ``orthogonal``
as parametrizations (``parametrize.register_parametrization``), as torch 2.13 defines them."""
from __future__ import annotations

import numpy as np

from ....engine import grad_mode
from ... import _ops
from ..._base import raw
from ..._tensor import Tensor
from .. import functional as F
from .. import init
from ..modules import Module
from . import parametrize
from .weight_norm import _weight_norm, norm_except_dim

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


class _WeightNorm(Module):
    def __init__(self, dim=0):
        super().__init__()
        if dim is None:
            dim = -1
        self.dim = dim

    def forward(self, weight_g, weight_v):
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module, name="weight", dim=0):
    """Weight normalisation as a parametrization: ``original0`` is the magnitude ``g``,
    ``original1`` the direction ``v``."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    return module


class _SpectralNorm(Module):
    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = raw(weight).ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError("Dimension out of range (expected to be in range of "
                             f"[-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            mat = self._reshape_weight_to_matrix(weight)
            h, w = raw(mat).shape
            dt = raw(mat).dtype
            u = init.normal_(Tensor._wrap(np.zeros(h, dt)), 0, 1)
            v = init.normal_(Tensor._wrap(np.zeros(w, dt)), 0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            self._power_method(mat, 15)

    def _reshape_weight_to_matrix(self, weight):
        if self.dim != 0:
            weight = _ops.permute(weight, self.dim,
                                  *(d for d in range(raw(weight).ndim) if d != self.dim))
        return _ops.flatten(weight, 1)

    def _power_method(self, mat, n_power_iterations):
        with grad_mode.no_grad():
            for _ in range(n_power_iterations):
                self._u.copy_(F.normalize(_ops.mv(mat, self._v), dim=0, eps=self.eps))
                self._v.copy_(F.normalize(_ops.mv(_ops.t(mat), self._u), dim=0, eps=self.eps))

    def forward(self, weight):
        if raw(weight).ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(mat, self.n_power_iterations)
        u = _ops.clone(self._u)
        v = _ops.clone(self._v)
        sigma = _ops.dot(u, _ops.mv(mat, v))
        return _ops.div(weight, sigma)

    def right_inverse(self, value):
        return value


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Spectral normalisation as a parametrization."""
    weight = getattr(module, name, None)
    if weight is None or not hasattr(weight, "shape"):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = 1 if type(module).__name__.startswith("ConvTranspose") else 0
    parametrize.register_parametrization(module, name,
                                         _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module


def _make_orthogonal(a):
    q, r = np.linalg.qr(a)
    return (q * np.sign(np.diag(r))[None, :]).astype(a.dtype)


class _Orthogonal(Module):
    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        self.shape = tuple(raw(weight).shape)
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):
        n, k = raw(X).shape[-2:]
        transposed = n < k
        if transposed:
            X = _ops.transpose(X, -2, -1)
            n, k = k, n
        if self.orthogonal_map in ("matrix_exp", "cayley"):
            X = _ops.tril(X)
            if n != k:
                X = _ops.cat([X, Tensor._wrap(np.zeros((n, n - k), raw(X).dtype))], dim=-1)
            A = _ops.sub(X, _ops.transpose(X, -2, -1))
            eye = Tensor._wrap(np.eye(n, dtype=raw(A).dtype))
            if self.orthogonal_map == "matrix_exp":
                from ... import linalg

                Q = linalg.matrix_exp(A)
            else:
                from ... import linalg

                Q = linalg.solve(_ops.add(eye, _ops.mul(A, -0.5)), _ops.add(eye, _ops.mul(A, 0.5)))
            if n != k:
                Q = Q[..., :k]
        else:
            A = _ops.tril(X, -1)
            tau = _ops.div(2.0, _ops.add(_ops.sum(_ops.mul(A, A), -2), 1.0))
            Q = Tensor._wrap(np.eye(n, dtype=raw(A).dtype))
            for i in range(k - 1, -1, -1):
                e = np.zeros((n, 1), raw(A).dtype)
                e[i, 0] = 1
                v = _ops.add(A[:, i:i + 1], Tensor._wrap(e))
                Q = _ops.sub(Q, _ops.mul(tau[i], _ops.matmul(v, _ops.matmul(
                    _ops.transpose(v, 0, 1), Q))))
            Q = Q[:, :k]
            Q = _ops.mul(Q, _ops.unsqueeze(_ops.to_dtype(
                _ops.to_dtype(_ops.diagonal(X, 0, -2, -1), np.int32), raw(X).dtype), -2))
        if self._buffers.get("base") is not None:
            Q = _ops.matmul(self.base, Q)
        if transposed:
            Q = _ops.transpose(Q, -2, -1)
        return Q

    def right_inverse(self, Q):
        if tuple(raw(Q).shape) != self.shape:
            raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                             f"Got a tensor of shape {tuple(raw(Q).shape)}.")
        q = raw(Q)
        n, k = q.shape[-2:]
        if n < k:
            q = q.T
            n, k = k, n
        if n != k:
            from ... import _random

            extra = _random.normal((n, n - k), q.dtype, 0.0, 1.0)
            q = np.concatenate([q, extra], -1)
        self.base = Tensor._wrap(_make_orthogonal(q))
        neg = np.zeros(self.shape, q.dtype)
        np.fill_diagonal(neg, -1.0)
        return Tensor._wrap(neg)


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    """An orthogonal (or unitary) parametrization of a matrix or a batch of matrices."""
    weight = getattr(module, name, None)
    if weight is None or not hasattr(weight, "shape"):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if raw(weight).ndim < 2:
        raise ValueError("Expected a matrix or batch of matrices. "
                         f"Got a tensor of {raw(weight).ndim} dimensions.")
    if orthogonal_map is None:
        n, k = raw(weight).shape[-2:]
        orthogonal_map = "matrix_exp" if n == k else "householder"
    if orthogonal_map not in ("matrix_exp", "cayley", "householder"):
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", '
                         f'"householder". Got: {orthogonal_map}')
    orth = _Orthogonal(weight, orthogonal_map, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module


for _c in (_WeightNorm, _SpectralNorm, _Orthogonal):
    _c.__module__ = "torch.nn.utils.parametrizations"
del _c
