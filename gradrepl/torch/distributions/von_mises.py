from __future__ import annotations

from ._common import *  # noqa: F401,F403
from ._common import _t

__all__ = ["VonMises"]

_I0_S = [1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.0360768, 0.0045813]
_I0_L = [0.39894228, 0.01328592, 0.00225319, -0.00157565, 0.00916281, -0.02057706,
         0.02635537, -0.01647633, 0.00392377]
_I1_S = [0.5, 0.87890594, 0.51498869, 0.15084934, 0.02658733, 0.00301532, 0.00032411]
_I1_L = [0.39894228, -0.03988024, -0.00362018, 0.00163801, -0.01031555, 0.02282967,
         -0.02895312, 0.01787654, -0.00420059]


def _eval_poly(y, coef):
    coef = list(coef)
    result = coef.pop()
    while coef:
        result = coef.pop() + y * result
    return result


def _log_modified_bessel_fn(x, order=0):
    if order not in (0, 1):
        raise ValueError("order must be 0 or 1")
    y = x / 3.75
    y = y * y
    small = _eval_poly(y, _I0_S if order == 0 else _I1_S)
    if order == 1:
        small = x.abs() * small
    small = small.log()
    y = 3.75 / x
    large = x - 0.5 * x.log() + _eval_poly(y, _I0_L if order == 0 else _I1_L).log()
    return _t().where(x < 3.75, small, large)


def _rejection_sample(loc, concentration, proposal_r, x):
    torch = _t()
    done = torch.zeros(tuple(x.shape), dtype=torch.bool)
    while not done.all():
        u = torch.rand((3,) + tuple(x.shape), dtype=loc.dtype)
        u1, u2, u3 = u.unbind()
        z = torch.cos(math.pi * u1)
        f = (1 + proposal_r * z) / (proposal_r + z)
        c = concentration * (proposal_r - f)
        accept = (c * (2 - c) - u2 > 0) | ((c / u2).log() + 1 - c >= 0)
        if accept.any():
            x = torch.where(accept, (u3 - 0.5).sign() * f.acos(), x)
            done = done | accept
    return (x + math.pi + loc) % (2 * math.pi) - math.pi


class VonMises(Distribution):
    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc, concentration, validate_args=None):
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, Size(), validate_args)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        lp = self.concentration * _t().cos(value - self.loc)
        return (lp - math.log(2 * math.pi)
                - _log_modified_bessel_fn(self.concentration, order=0))

    @lazy_property
    def _loc(self):
        return self.loc.to(_t().double)

    @lazy_property
    def _concentration(self):
        return self.concentration.to(_t().double)

    @lazy_property
    def _proposal_r(self):
        kappa = self._concentration
        tau = 1 + (1 + 4 * kappa ** 2).sqrt()
        rho = (tau - (2 * tau).sqrt()) / (2 * kappa)
        r = (1 + rho ** 2) / (2 * rho)
        return _t().where(kappa < 1e-5, 1 / kappa + kappa, r)

    def sample(self, sample_shape=Size()):
        torch = _t()
        with torch.no_grad():
            shape = self._extended_shape(sample_shape)
            x = torch.empty(tuple(shape), dtype=self._loc.dtype)
            return _rejection_sample(self._loc, self._concentration, self._proposal_r,
                                     x).to(self.loc.dtype)

    def expand(self, batch_shape, _instance=None):
        vargs = self.__dict__.get("_validate_args")
        return type(self)(self.loc.expand(batch_shape), self.concentration.expand(batch_shape),
                          validate_args=vargs)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @lazy_property
    def variance(self):
        return 1 - (_log_modified_bessel_fn(self.concentration, order=1)
                    - _log_modified_bessel_fn(self.concentration, order=0)).exp()


torch_names(globals())
