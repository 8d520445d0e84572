"""``paddle.distribution``: Paddle's distributions (sampling from paddle's generator, densities,
entropies, KL divergences) and transforms. The names Paddle 3 added (Binomial, Chi2,
ContinuousBernoulli, Exponential, Gamma, LKJCholesky, MultivariateNormal, Poisson, StudentT and
their modules) raise AttributeError under a 2.x profile, as Paddle 2.6 has none of them."""
from . import constraint, distribution, kl, transform, variable  # noqa: F401
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial as _Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .chi2 import Chi2 as _Chi2
from .continuous_bernoulli import ContinuousBernoulli as _ContinuousBernoulli
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exponential import Exponential as _Exponential
from .exponential_family import ExponentialFamily
from .gamma import Gamma as _Gamma
from .geometric import Geometric
from .gumbel import Gumbel
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .lkj_cholesky import LKJCholesky as _LKJCholesky
from .lognormal import LogNormal
from .multinomial import Multinomial
from .multivariate_normal import MultivariateNormal as _MultivariateNormal
from .normal import Normal
from .poisson import Poisson as _Poisson
from .student_t import StudentT as _StudentT
from .transform import (AbsTransform, AffineTransform, ChainTransform, ExpTransform,
                        IndependentTransform, PowerTransform, ReshapeTransform, SigmoidTransform,
                        SoftmaxTransform, StackTransform, StickBreakingTransform, TanhTransform,
                        Transform)
from .transformed_distribution import TransformedDistribution
from .uniform import Uniform

# Paddle 3.x only: (public name -> object); the submodules of the same families too.
_API3 = {
    "Binomial": _Binomial, "Chi2": _Chi2, "ContinuousBernoulli": _ContinuousBernoulli,
    "Exponential": _Exponential, "Gamma": _Gamma, "LKJCholesky": _LKJCholesky,
    "MultivariateNormal": _MultivariateNormal, "Poisson": _Poisson, "StudentT": _StudentT,
}
_API3_MODULES = ("binomial", "chi2", "continuous_bernoulli", "exponential", "gamma",
                 "lkj_cholesky", "multivariate_normal", "poisson", "student_t")

__all__ = ["Bernoulli", "Beta", "Categorical", "Cauchy", "Dirichlet", "Distribution",
           "ExponentialFamily", "Multinomial", "Normal", "Uniform", "kl_divergence",
           "register_kl", "Independent", "TransformedDistribution", "Laplace", "LogNormal",
           "Gumbel", "Geometric", *transform.__all__]
_ALL3 = ["Bernoulli", "Beta", "Categorical", "Cauchy", "Chi2", "ContinuousBernoulli",
         "Dirichlet", "Distribution", "Exponential", "ExponentialFamily", "Multinomial",
         "MultivariateNormal", "Normal", "Uniform", "kl_divergence", "register_kl",
         "Independent", "TransformedDistribution", "Laplace", "LogNormal", "LKJCholesky",
         "Gamma", "Gumbel", "Geometric", "Binomial", "Poisson", "StudentT", *transform.__all__]
_ALL26 = list(__all__)
del __all__  # answered by __getattr__ (the profile's list)
for _mod in _API3_MODULES:
    globals().pop(_mod, None)
del _mod


def _api3():
    from ..profiles import current

    return current().api3


def __getattr__(name):
    if name == "__all__":
        return _ALL3 if _api3() else _ALL26
    if _api3():
        if name in _API3:
            return _API3[name]
        if name in _API3_MODULES:
            import importlib

            return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'paddle.distribution' has no attribute {name!r}")


def __dir__():
    names = set(globals()) - set(_API3_MODULES) - {"_api3"}
    names = {n for n in names if not n.startswith("_") or n.startswith("__")}
    if _api3():
        names |= set(_API3) | set(_API3_MODULES)
    return sorted(names)


from ..names_gate import gate as _gate  # noqa: E402  (the names of the emulated version)

_gate(__name__)
