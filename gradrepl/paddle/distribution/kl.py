"""``paddle.distribution.kl_divergence`` and ``register_kl``: KL(p || q) dispatched on the
pair of types (the most specific registered pair, as Paddle's _dispatch picks it)."""
from __future__ import annotations

import functools
import warnings

from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .continuous_bernoulli import ContinuousBernoulli
from .dirichlet import Dirichlet
from .distribution import Distribution, _paddle
from .exponential import Exponential
from .exponential_family import ExponentialFamily
from .gamma import Gamma
from .geometric import Geometric
from .laplace import Laplace
from .lognormal import LogNormal
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .poisson import Poisson
from .uniform import Uniform

__all__ = ["register_kl", "kl_divergence"]

_REGISTER_TABLE = {}


def kl_divergence(p, q):
    """KL(p || q) by the function registered for the closest pair of p's and q's types."""
    return _dispatch(type(p), type(q))(p, q)


def register_kl(cls_p, cls_q):
    """Decorator: ``fn(p, q)`` computes KL for p of ``cls_p`` and q of ``cls_q``."""
    if (not isinstance(cls_p, type) or not isinstance(cls_q, type)
            or not issubclass(cls_p, Distribution) or not issubclass(cls_q, Distribution)):
        raise TypeError("cls_p and cls_q must be subclass of Distribution")

    def decorator(f):
        _REGISTER_TABLE[cls_p, cls_q] = f
        return f
    return decorator


def _dispatch(cls_p, cls_q):
    matches = [(sp, sq) for sp, sq in _REGISTER_TABLE
               if issubclass(cls_p, sp) and issubclass(cls_q, sq)]
    if not matches:
        raise NotImplementedError
    left_p, left_q = min(_Compare(*m) for m in matches).classes
    right_p, right_q = min(_Compare(*reversed(m)) for m in matches).classes
    if _REGISTER_TABLE[left_p, left_q] is not _REGISTER_TABLE[right_p, right_q]:
        warnings.warn(f"Ambiguous kl_divergence({cls_p.__name__}, {cls_q.__name__}). Please "
                      f"register_kl({left_p.__name__}, {right_q.__name__})", RuntimeWarning)
    return _REGISTER_TABLE[left_p, left_q]


@functools.total_ordering
class _Compare:
    def __init__(self, *classes):
        self.classes = classes

    def __eq__(self, other):
        return self.classes == other.classes

    def __le__(self, other):
        for x, y in zip(self.classes, other.classes):
            if not issubclass(x, y):
                return False
            if x is not y:
                break
        return True


def _own(p, q):
    return p.kl_divergence(q)


for _cls in (Bernoulli, Binomial, Categorical, Cauchy, ContinuousBernoulli, Normal,
             MultivariateNormal, Uniform, Laplace, Geometric, Exponential, Gamma, Poisson):
    register_kl(_cls, _cls)(_own)


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    return (q.alpha.lgamma() + q.beta.lgamma() + (p.alpha + p.beta).lgamma()
            - (p.alpha.lgamma() + p.beta.lgamma() + (q.alpha + q.beta).lgamma())
            + (p.alpha - q.alpha) * p.alpha.digamma() + (p.beta - q.beta) * p.beta.digamma()
            + (q.alpha + q.beta - (p.alpha + p.beta)) * (p.alpha + p.beta).digamma())


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    pc, qc = p.concentration, q.concentration
    return (pc.sum(-1).lgamma() - qc.sum(-1).lgamma() - (pc.lgamma() - qc.lgamma()).sum(-1)
            + ((pc - qc) * (pc.digamma() - pc.sum(-1).digamma().unsqueeze(-1))).sum(-1))


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p, q):
    """The Bregman divergence of the log-normalizer (same family only)."""
    paddle = _paddle()
    if type(p) is not type(q):
        raise NotImplementedError
    p_params = []
    for param in p._natural_parameters:
        param = param.detach()
        param.stop_gradient = False
        p_params.append(param)
    q_params = q._natural_parameters
    p_log_norm = p._log_normalizer(*p_params)
    try:
        p_grads = paddle.grad(p_log_norm, p_params, create_graph=True)
    except RuntimeError as e:
        raise TypeError(f"Can't compute kl_divergence({type(p).__name__}, {type(q).__name__}) "
                        "use bregman divergence. Please register_kl("
                        f"{type(p).__name__}, {type(q).__name__}).") from e
    kl = q._log_normalizer(*q_params) - p_log_norm
    for p_param, q_param, p_grad in zip(p_params, q_params, p_grads):
        term = (q_param - p_param) * p_grad
        kl -= _sum_rightmost(term, len(q.event_shape))
    return kl


@register_kl(LogNormal, LogNormal)
def _kl_lognormal_lognormal(p, q):
    return p._base.kl_divergence(q._base)


def _sum_rightmost(value, n):
    return value.sum(list(range(-n, 0))) if n > 0 else value
