"""``paddle.distribution.MultivariateNormal``: the Gaussian on vectors (last axis)."""
from __future__ import annotations

import math
from collections.abc import Sequence

from .distribution import Distribution, _paddle, dtype_name


class MultivariateNormal(Distribution):
    """MVN(loc, one of covariance_matrix / precision_matrix / scale_tril)."""

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None):
        paddle = _paddle()
        self.dtype = paddle.get_default_dtype()
        if isinstance(loc, (float, int)):
            loc = paddle.to_tensor([loc], dtype=self.dtype)
        else:
            self.dtype = dtype_name(loc.dtype)
        if loc.dim() < 1:
            loc = loc.reshape((1,))
        self.covariance_matrix = self.precision_matrix = self.scale_tril = None
        given = ((covariance_matrix is not None) + (scale_tril is not None)
                 + (precision_matrix is not None))
        if given != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or "
                             "scale_tril may be specified.")
        for attr, mat, label in (("scale_tril", scale_tril, "scale_tril matrix"),
                                 ("covariance_matrix", covariance_matrix, "covariance_matrix"),
                                 ("precision_matrix", precision_matrix, "precision_matrix")):
            if mat is None:
                continue
            if mat.dim() < 2:
                raise ValueError(f"{label} must be at least two-dimensional, with optional "
                                 "leading batch dimensions")
            mat = paddle.cast(mat, dtype=self.dtype)
            batch_shape = paddle.broadcast_shape(mat.shape[:-2], loc.shape[:-1])
            setattr(self, attr, mat.expand([*batch_shape, mat.shape[-2], mat.shape[-1]]))
            break
        self.loc = loc.expand([*batch_shape, -1])
        event_shape = self.loc.shape[-1:]
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = paddle.linalg.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = precision_to_scale_tril(precision_matrix)
        super().__init__(batch_shape, event_shape)

    @property
    def mean(self):
        return self.loc

    @property
    def variance(self):
        return _paddle().square(self._unbroadcasted_scale_tril).sum(-1).expand(
            tuple(self._batch_shape) + tuple(self._event_shape))

    def sample(self, shape=()):
        with _paddle().no_grad():
            return self.rsample(shape)

    def rsample(self, shape=()):
        paddle = _paddle()
        if not isinstance(shape, Sequence):
            raise TypeError("sample shape must be Sequence object.")
        eps = paddle.cast(paddle.normal(shape=self._extend_shape(shape)), dtype=self.dtype)
        return self.loc + paddle.matmul(self._unbroadcasted_scale_tril,
                                        eps.unsqueeze(-1)).squeeze(-1)

    def _half_log_det(self):
        return self._unbroadcasted_scale_tril.diagonal(axis1=-2, axis2=-1).log().sum(-1)

    def log_prob(self, value):
        paddle = _paddle()
        value = paddle.cast(value, dtype=self.dtype)
        m = batch_mahalanobis(self._unbroadcasted_scale_tril, value - self.loc)
        return (-0.5 * (self._event_shape[0] * math.log(2 * math.pi) + m)
                - self._half_log_det())

    def prob(self, value):
        return _paddle().exp(self.log_prob(value))

    def entropy(self):
        h = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + self._half_log_det()
        return h if len(self._batch_shape) == 0 else h.expand(self._batch_shape)

    def kl_divergence(self, other):
        paddle = _paddle()
        if self._batch_shape != other._batch_shape and self._event_shape != other._event_shape:
            raise ValueError("KL divergence of two Multivariate Normal distributions should "
                             "share the same `batch_shape` and `event_shape`.")
        hld1 = self._half_log_det()
        hld2 = other._half_log_det()
        perm = list(range(len(self._unbroadcasted_scale_tril.shape)))
        perm[-1], perm[-2] = perm[-2], perm[-1]
        l1, l2 = self._unbroadcasted_scale_tril, other._unbroadcasted_scale_tril
        cov1 = paddle.matmul(l1, l1.transpose(perm))
        cov2 = paddle.matmul(l2, l2.transpose(perm))
        expectation = paddle.linalg.solve(cov2, cov1).diagonal(axis1=-2, axis2=-1).sum(-1)
        expectation += batch_mahalanobis(l2, self.loc - other.loc)
        return hld2 - hld1 + 0.5 * (expectation - self._event_shape[0])


def precision_to_scale_tril(p):
    paddle = _paddle()
    lf = paddle.linalg.cholesky(paddle.flip(p, (-2, -1)))
    tmp = paddle.flip(lf, (-2, -1))
    perm = list(range(len(tmp.shape)))
    perm[-2], perm[-1] = perm[-1], perm[-2]
    l_inv = paddle.transpose(tmp, perm)
    eye = paddle.eye(p.shape[-1], dtype=p.dtype)
    return paddle.linalg.triangular_solve(l_inv, eye, upper=False)


def batch_mahalanobis(bl, bx):
    """Squared Mahalanobis norms |L^-1 x|^2 with batch broadcasting (as Paddle computes)."""
    paddle = _paddle()
    n = bx.shape[-1]
    bx_batch_shape = tuple(bx.shape[:-1])
    bl_dims = bl.dim() - 2
    outer = len(bx_batch_shape) - bl_dims
    old = outer + bl_dims
    new = outer + 2 * bl_dims
    new_shape = tuple(bx.shape[:outer])
    for sl, sx in zip(bl.shape[:-2], bx.shape[outer:-1]):
        new_shape += (sx // sl, sl)
    new_shape += (n,)
    bx = bx.reshape(new_shape)
    perm = (list(range(outer)) + list(range(outer, new, 2)) + list(range(outer + 1, new, 2))
            + [new])
    bx = bx.transpose(perm)
    flat_l = bl.reshape((-1, n, n))
    flat_x = bx.reshape((-1, flat_l.shape[0], n))
    swap = flat_x.transpose((1, 2, 0))
    m = paddle.linalg.triangular_solve(flat_l, swap, upper=False).pow(2).sum(-2).t()
    permuted = m.reshape(bx.shape[:-1])
    inv = list(range(outer))
    for i in range(bl_dims):
        inv += [outer + i, old + i]
    return permuted.transpose(inv).reshape(bx_batch_shape)
