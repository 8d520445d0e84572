"""SGD: ``param - lr * grad`` (Paddle's sgd kernel, a fused multiply-add: one rounding)."""
from __future__ import annotations

import numpy as np

from .optimizer import Optimizer


class SGD(Optimizer):
    def __init__(self, learning_rate=0.001, parameters=None, weight_decay=None, grad_clip=None,
                 multi_precision=False, name=None):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _update(self, param, grad, group):
        return fused_sub_mul(param.data, self._param_lr(param), grad)


def fused_sub_mul(p, a, b):
    """``p - a*b`` rounded once (the product of two float32 values is exact in float64)."""
    if p.dtype.itemsize >= 8:
        return p - a * b
    wide = p.astype(np.float64) - a.astype(np.float64) * b.astype(np.float64)
    return wide.astype(p.dtype)
