"""``paddle.distribution``: Normal, Uniform, Categorical and Multinomial, their sampling (drawn
from paddle's generator), densities, entropies and KL divergences. The other distributions of
Paddle's ``__all__`` are not emulated: reading one raises an AttributeError that says so."""
from .categorical import Categorical
from .distribution import Distribution
from .kl import kl_divergence, register_kl
from .multinomial import Multinomial
from .normal import Normal
from .uniform import Uniform

__all__ = ["Categorical", "Distribution", "Multinomial", "Normal", "Uniform", "kl_divergence",
           "register_kl"]

_PADDLE_HAS = (
    "Bernoulli", "Beta", "Cauchy", "Chi2", "ContinuousBernoulli", "Dirichlet", "Exponential",
    "ExponentialFamily", "MultivariateNormal", "Independent", "TransformedDistribution",
    "Laplace", "LogNormal", "LKJCholesky", "Gamma", "Gumbel", "Geometric", "Binomial", "Poisson",
    "StudentT", "Transform", "AbsTransform", "AffineTransform", "ChainTransform", "ExpTransform",
    "IndependentTransform", "PowerTransform", "ReshapeTransform", "SigmoidTransform",
    "SoftmaxTransform", "StackTransform", "StickBreakingTransform", "TanhTransform")


def __getattr__(name):
    if name in _PADDLE_HAS:
        raise AttributeError(f"paddle.distribution.{name} is not emulated by gradrepl (it has "
                             f"{', '.join(__all__[:4])} and kl_divergence)")
    raise AttributeError(f"module 'paddle.distribution' has no attribute {name!r}")
