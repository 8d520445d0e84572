from __future__ import annotations

from ._common import *  # noqa: F401,F403
from ._common import _fn, _standard_normal, _t

__all__ = ["MultivariateNormal"]


def _batch_mv(bmat, bvec):
    return _t().matmul(bmat, bvec.unsqueeze(-1)).squeeze(-1)


def _batch_mahalanobis(bL, bx):
    """Squared Mahalanobis distance ``x^T (L L^T)^-1 x`` with a triangular solve."""
    shape = _fn.broadcast_shapes(bL.shape[:-1], bx.shape)
    L = bL.expand(tuple(shape[:-1]) + tuple(bL.shape[-2:]))
    x = bx.expand(tuple(shape))
    sol = _fn.solve_triangular(L, x.unsqueeze(-1), upper=False).squeeze(-1)
    return sol.pow(2).sum(-1)


def _precision_to_scale_tril(P):
    torch = _t()
    Lf = _fn.cholesky(torch.flip(P, (-2, -1)))
    L_inv = torch.transpose(torch.flip(Lf, (-2, -1)), -2, -1)
    eye = torch.eye(P.shape[-1], dtype=P.dtype)
    return _fn.solve_triangular(L_inv, eye, upper=False)


class MultivariateNormal(Distribution):
    arg_constraints = {"loc": constraints.real_vector,
                       "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite,
                       "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        if ((covariance_matrix is not None) + (scale_tril is not None)
                + (precision_matrix is not None)) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or "
                             "scale_tril may be specified.")
        for name, m in (("scale_tril", scale_tril), ("covariance_matrix", covariance_matrix),
                        ("precision_matrix", precision_matrix)):
            if m is None:
                continue
            if m.dim() < 2:
                what = "scale_tril matrix" if name == "scale_tril" else name
                raise ValueError(f"{what} must be at least two-dimensional, with optional "
                                 "leading batch dimensions")
            batch_shape = _fn.broadcast_shapes(m.shape[:-2], loc.shape[:-1])
            setattr(self, name, m.expand(tuple(batch_shape) + (-1, -1)))
        self.loc = loc.expand(tuple(batch_shape) + (-1,))
        super().__init__(batch_shape, self.loc.shape[-1:], validate_args=validate_args)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = _fn.cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(MultivariateNormal, _instance)
        batch_shape = Size(batch_shape)
        ev = tuple(self.event_shape)
        cov_shape = tuple(batch_shape) + ev + ev
        new.loc = self.loc.expand(tuple(batch_shape) + ev)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(cov_shape))
        super(MultivariateNormal, new).__init__(batch_shape, self.event_shape,
                                                validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _mat_shape(self):
        ev = tuple(self._event_shape)
        return tuple(self._batch_shape) + ev + ev

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._mat_shape())

    @lazy_property
    def covariance_matrix(self):
        L = self._unbroadcasted_scale_tril
        return _t().matmul(L, L.transpose(-2, -1)).expand(self._mat_shape())

    @lazy_property
    def precision_matrix(self):
        torch = _t()
        L = self._unbroadcasted_scale_tril
        eye = torch.eye(L.shape[-1], dtype=L.dtype)
        Linv = _fn.solve_triangular(L, eye, upper=False)
        return torch.matmul(Linv.transpose(-2, -1), Linv).expand(self._mat_shape())

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(
            tuple(self._batch_shape) + tuple(self._event_shape))

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        eps = _standard_normal(shape, dtype=self.loc.dtype, device=None)
        return self.loc + _batch_mv(self._unbroadcasted_scale_tril, eps)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        M = _batch_mahalanobis(self._unbroadcasted_scale_tril, diff)
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + M) - half_log_det

    def entropy(self):
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        H = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + half_log_det
        if len(self._batch_shape) == 0:
            return H
        return H.expand(tuple(self._batch_shape))


torch_names(globals())
