from __future__ import annotations

from ._common import *  # noqa: F401,F403
from ._common import _fn, _t
from .beta import Beta

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim, concentration=1.0, validate_args=None):
        torch = _t()
        if dim < 2:
            raise ValueError("Expected dim to be an integer greater than or equal to 2. "
                             f"Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        batch_shape = self.concentration.size()
        marginal_conc = self.concentration + 0.5 * (self.dim - 2)
        offset = torch.arange(self.dim - 1, dtype=self.concentration.dtype)
        offset = torch.cat([torch.zeros((1,), dtype=offset.dtype), offset])
        beta_conc1 = offset + 0.5
        beta_conc0 = marginal_conc.unsqueeze(-1) - 0.5 * offset
        self._beta = Beta(beta_conc1, beta_conc0)
        super().__init__(batch_shape, Size((dim, dim)), validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LKJCholesky, _instance)
        batch_shape = Size(batch_shape)
        new.dim = self.dim
        new.concentration = self.concentration.expand(batch_shape)
        new._beta = self._beta.expand(tuple(batch_shape) + (self.dim,))
        super(LKJCholesky, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape=Size()):
        torch = _t()
        y = self._beta.sample(sample_shape).unsqueeze(-1)
        u_normal = torch.randn(*tuple(self._extended_shape(sample_shape)),
                               dtype=y.dtype).tril(-1)
        u_hyp = u_normal / u_normal.norm(dim=-1, keepdim=True)
        u_hyp[..., 0, :] = 0.0
        w = torch.sqrt(y) * u_hyp
        eps = _fn.finfo(w.dtype).tiny
        diag = torch.clamp(1 - torch.sum(w ** 2, dim=-1), min=eps).sqrt()
        return w + diag.unsqueeze(-1) * torch.eye(self.dim, dtype=w.dtype)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        torch = _t()
        diag = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        order = torch.arange(2, self.dim + 1)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnorm = torch.sum(order * diag.log(), dim=-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        denominator = _fn.lgamma(alpha) * dm1
        numerator = _fn.mvlgamma(alpha - 0.5, dm1)
        pi_constant = 0.5 * dm1 * math.log(math.pi)
        return unnorm - (pi_constant + numerator - denominator)


torch_names(globals())
