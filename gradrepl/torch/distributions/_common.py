"""Shared imports of the distribution modules."""
from __future__ import annotations

import math
import numbers

import numpy as np

from .._base import Size, raw
from .._tensor import Tensor
from . import _fn, _samplers, constraints
from ._naming import torch_names
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .utils import (_standard_normal, _sum_rightmost, broadcast_all, clamp_probs,
                    euler_constant, lazy_property, logits_to_probs, probs_to_logits)

Number = numbers.Number
nan = math.nan
inf = math.inf


def _t():
    from gradrepl import torch
    return torch


def is_num(v):
    return isinstance(v, numbers.Number)


def from_np(arr, like=None):
    """A numpy result as a tensor (of ``like``'s dtype when given)."""
    a = np.asarray(arr)
    if like is not None:
        a = a.astype(raw(like).dtype)
    return Tensor._wrap(a, True)


def empty(shape, like):
    return _t().empty(tuple(shape), dtype=like.dtype)


__all__ = ["math", "np", "Size", "raw", "Tensor", "_fn", "_samplers", "constraints",
           "torch_names", "Distribution", "ExponentialFamily", "_standard_normal",
           "_sum_rightmost", "broadcast_all", "clamp_probs", "euler_constant", "lazy_property",
           "logits_to_probs", "probs_to_logits", "Number", "nan", "inf", "_t", "is_num",
           "from_np", "empty"]


def custom_op(name, torch_name, forward, vjp, saves="all"):
    """An unregistered engine op (a sampler whose forward is already drawn) with torch's
    backward node name; ``apply`` it as the registry's ops."""
    from ...engine.registry import OpDef
    op = OpDef(name, forward, vjp, saves_inputs=False, reads_inputs=True, check=False)
    op.torch_name = torch_name
    op.torch_saves = saves
    op.torch_inputs = None
    op.grad_sum_order = "torch"
    return op


def _gamma_grad_one(alpha, x):
    """``standard_gamma_grad_one<scalar_t, double>``: -(d cdf / d alpha) / pdf."""
    if x < 0.8:
        numer, denom = 1.0, alpha
        s1, s2 = numer / denom, numer / (denom * denom)
        for i in range(1, 6):
            numer *= -x / i
            denom += 1
            s1 += numer / denom
            s2 += numer / (denom * denom)
        pxa = math.pow(x, alpha)
        pdf = math.pow(x, alpha - 1) * math.exp(-x)
        cdf = pxa * s1
        dig = _digamma_d(alpha)
        cdf_a = (math.log(x) - dig) * cdf - pxa * s2
        r = -cdf_a / pdf
        return 0.0 if math.isnan(r) else r
    if alpha > 8.0:
        if 0.9 * alpha <= x <= 1.1 * alpha:
            n1 = 1 + 24 * alpha * (1 + 12 * alpha)
            n2 = (1440 * (alpha * alpha) + 6 * x * (53 - 120 * x) - 65 * x * x / alpha
                  + alpha * (107 + 3600 * x))
            d = 1244160 * (alpha * alpha) * (alpha * alpha)
            return n1 * n2 / d
        d = math.sqrt(8 * alpha)
        t2 = d / (alpha - x)
        t3 = math.pow(x - alpha - alpha * math.log(x / alpha), -1.5)
        t23 = t2 - t3 if x < alpha else t2 + t3
        t1 = math.log(x / alpha) * t23 - math.sqrt(2 / alpha) * (alpha + x) / ((alpha - x) ** 2)
        st = 1 + 1 / (12 * alpha) * (1 + 1 / (24 * alpha))
        return -st * (x * t1) / d
    u = math.log(x / alpha)
    v = math.log(alpha)
    cuv = [[0.16009398, -0.094634809, 0.025146376, -0.0030648343,
            1, 0.32668115, 0.10406089, 0.0014179084],
           [0.53487893, 0.1298071, 0.065735949, -0.0015649758,
            0.16639465, 0.020070113, -0.0035938915, -0.00058392623],
           [0.040121004, -0.0065914022, -0.0026286047, -0.0013441777,
            0.017050642, -0.0021309326, 0.00085092367, -1.5247877e-07]]
    cv = [cuv[0][i] + u * (cuv[1][i] + u * cuv[2][i]) for i in range(8)]
    p = cv[0] + v * (cv[1] + v * (cv[2] + v * cv[3]))
    q = cv[4] + v * (cv[5] + v * (cv[6] + v * cv[7]))
    return math.exp(p / q)


def _digamma_d(x):
    if x == 0:
        return math.inf
    add = 0.0
    if x < 0:
        if x == math.floor(x):
            return math.inf
        add = -math.pi / math.tan(math.pi * x)
        x = 1 - x
    res = 0.0
    while x < 10:
        res -= 1 / x
        x += 1
    if x == 10:
        return res + 2.25175258906672110764 + add
    A = [8.33333333333333333333E-2, -2.10927960927960927961E-2, 7.57575757575757575758E-3,
         -4.16666666666666666667E-3, 3.96825396825396825397E-3, -8.33333333333333333333E-3,
         8.33333333333333333333E-2]
    y = 0.0
    if x < 1.0e17:
        z = 1.0 / (x * x)
        poly = 0.0
        for a in A:
            poly = poly * z + a
        y = z * poly
    return res + math.log(x) - (0.5 / x) - y + add


def standard_gamma(concentration):
    """``torch._standard_gamma``: a draw per element; differentiable in the concentration
    (StandardGammaBackward0, torch's implicit reparameterisation gradient)."""
    from ...engine.registry import apply
    a = raw(concentration)
    sample = _samplers.standard_gamma(a)

    def vjp(n, g):
        al = raw(n.inputs[0])
        x = raw(n.out())
        d = np.array([_gamma_grad_one(float(p), float(q))
                      for p, q in zip(al.reshape(-1).tolist(), x.reshape(-1).tolist())],
                     np.float64).astype(al.dtype).reshape(al.shape)
        return (g * Tensor._wrap(d, True),)

    op = custom_op("standard_gamma", "StandardGammaBackward0", lambda c: sample.copy(), vjp)
    return apply(op, (concentration,))


__all__ += ["custom_op", "standard_gamma"]
