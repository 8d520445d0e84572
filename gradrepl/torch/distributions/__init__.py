"""``torch.distributions``: probability distributions with torch's sampling (bit-exact draws
from the dialect's mt19937 stream, in the order torch's kernels draw), log densities in torch's
formulas, constraints, transforms and KL divergences."""
from __future__ import annotations

from . import constraints, transforms  # noqa: F401
from .constraint_registry import biject_to, transform_to  # noqa: F401
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .chi2 import Chi2
from .continuous_bernoulli import ContinuousBernoulli
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .fishersnedecor import FisherSnedecor
from .gamma import Gamma
from .geometric import Geometric
from .gumbel import Gumbel
from .half_cauchy import HalfCauchy
from .half_normal import HalfNormal
from .independent import Independent
from .inverse_gamma import InverseGamma
from .kumaraswamy import Kumaraswamy
from .laplace import Laplace
from .log_normal import LogNormal
from .multinomial import Multinomial
from .negative_binomial import NegativeBinomial
from .normal import Normal
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .pareto import Pareto
from .poisson import Poisson
from .relaxed_bernoulli import RelaxedBernoulli
from .relaxed_categorical import RelaxedOneHotCategorical
from .studentT import StudentT
from .transformed_distribution import TransformedDistribution
from .transforms import *  # noqa: F401,F403
from .uniform import Uniform
from . import utils  # noqa: F401
from .lkj_cholesky import LKJCholesky
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .multivariate_normal import MultivariateNormal
from .von_mises import VonMises
from .weibull import Weibull
from .generalized_pareto import GeneralizedPareto
from .logistic_normal import LogisticNormal
from .mixture_same_family import MixtureSameFamily
from .kl import kl_divergence, register_kl
from . import kl  # noqa: F401
