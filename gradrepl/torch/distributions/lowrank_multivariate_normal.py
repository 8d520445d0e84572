from __future__ import annotations

from ._common import *  # noqa: F401,F403
from ._common import _fn, _standard_normal, _t
from .multivariate_normal import _batch_mahalanobis, _batch_mv

__all__ = ["LowRankMultivariateNormal"]


class LowRankMultivariateNormal(Distribution):
    arg_constraints = {"loc": constraints.real_vector,
                       "cov_factor": constraints.independent(constraints.real, 2),
                       "cov_diag": constraints.independent(constraints.positive, 1)}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, cov_factor, cov_diag, validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        event_shape = loc.shape[-1:]
        if cov_factor.dim() < 2:
            raise ValueError("cov_factor must be at least two-dimensional, with optional "
                             "leading batch dimensions")
        if tuple(cov_factor.shape[-2:-1]) != tuple(event_shape):
            raise ValueError(f"cov_factor must be a batch of matrices with shape "
                             f"{event_shape[0]} x m")
        if tuple(cov_diag.shape[-1:]) != tuple(event_shape):
            raise ValueError(f"cov_diag must be a batch of vectors with shape {event_shape}")
        loc_ = loc.unsqueeze(-1)
        cov_diag_ = cov_diag.unsqueeze(-1)
        shape = _fn.broadcast_shapes(loc_.shape, cov_factor.shape, cov_diag_.shape)
        self.loc = loc_.expand(tuple(shape[:-1]) + (1,))[..., 0]
        self.cov_diag = cov_diag_.expand(tuple(shape[:-1]) + (1,))[..., 0]
        self.cov_factor = cov_factor.expand(tuple(shape))
        batch_shape = self.loc.shape[:-1]
        self._unbroadcasted_cov_factor = cov_factor
        self._unbroadcasted_cov_diag = cov_diag
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LowRankMultivariateNormal, _instance)
        batch_shape = Size(batch_shape)
        ls = tuple(batch_shape) + tuple(self.event_shape)
        new.loc = self.loc.expand(ls)
        new.cov_diag = self.cov_diag.expand(ls)
        new.cov_factor = self.cov_factor.expand(ls + tuple(self.cov_factor.shape[-1:]))
        new._unbroadcasted_cov_factor = self._unbroadcasted_cov_factor
        new._unbroadcasted_cov_diag = self._unbroadcasted_cov_diag
        super(LowRankMultivariateNormal, new).__init__(batch_shape, self.event_shape,
                                                       validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @lazy_property
    def variance(self):
        return (self._unbroadcasted_cov_factor.pow(2).sum(-1)
                + self._unbroadcasted_cov_diag).expand(
            tuple(self._batch_shape) + tuple(self._event_shape))

    @lazy_property
    def covariance_matrix(self):
        torch = _t()
        W = self._unbroadcasted_cov_factor
        cov = torch.matmul(W, W.transpose(-2, -1)) + (
            self._unbroadcasted_cov_diag.unsqueeze(-1) * torch.eye(W.shape[-2], dtype=W.dtype))
        ev = tuple(self._event_shape)
        return cov.expand(tuple(self._batch_shape) + ev + ev)

    @lazy_property
    def scale_tril(self):
        return _fn.cholesky(self.covariance_matrix)

    @lazy_property
    def precision_matrix(self):
        torch = _t()
        L = self.scale_tril
        Linv = _fn.solve_triangular(L, torch.eye(L.shape[-1], dtype=L.dtype), upper=False)
        return torch.matmul(Linv.transpose(-2, -1), Linv)

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        w_shape = tuple(shape[:-1]) + tuple(self.cov_factor.shape[-1:])
        eps_W = _standard_normal(w_shape, dtype=self.loc.dtype, device=None)
        eps_D = _standard_normal(shape, dtype=self.loc.dtype, device=None)
        return (self.loc + _batch_mv(self._unbroadcasted_cov_factor, eps_W)
                + self._unbroadcasted_cov_diag.sqrt() * eps_D)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        L = self.scale_tril
        diff = value - self.loc
        M = _batch_mahalanobis(L, diff)
        log_det = 2 * L.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + log_det + M)

    def entropy(self):
        L = self.scale_tril
        log_det = 2 * L.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        H = 0.5 * (self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + log_det)
        if len(self._batch_shape) == 0:
            return H
        return H.expand(tuple(self._batch_shape))


torch_names(globals())
