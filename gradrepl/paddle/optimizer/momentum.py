"""Momentum: ``v = mu * v + grad; param -= lr * v`` (Nesterov: ``param -= lr * (grad + mu*v)``).

L2 weight decay is folded into the kernel (``grad + coeff * param``), as Paddle's momentum op
does with ``regularization_method='l2_decay'``.
"""
from __future__ import annotations

import numpy as np

from .optimizer import L2Decay, Optimizer


class Momentum(Optimizer):
    def __init__(self, learning_rate=0.001, momentum=0.9, parameters=None, use_nesterov=False,
                 weight_decay=None, grad_clip=None, multi_precision=False, rescale_grad=1.0,
                 use_multi_tensor=False, name=None):
        if learning_rate is None:
            raise ValueError("learning_rate is not set")
        if momentum is None:
            raise ValueError("momentum is not set")
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._momentum = momentum
        self._use_nesterov = bool(use_nesterov)
        self._rescale_grad = rescale_grad

    def _regularized(self, param, grad, reg):
        own = getattr(param, "regularizer", None)
        reg = own if own is not None else reg
        if reg is None or isinstance(reg, L2Decay):
            return grad  # L2 decay happens inside the kernel
        return reg(param.data, grad)

    def _l2_coeff(self, param, group):
        own = getattr(param, "regularizer", None)
        reg = own if own is not None else group.get("weight_decay", self.regularization)
        return reg._coeff if isinstance(reg, L2Decay) else 0.0

    def _update(self, param, grad, group):
        dt = param.data.dtype
        mu = np.asarray(group.get("momentum", self._momentum), dt)
        lr = self._param_lr(param)
        v = self._acc("velocity", param)
        if self._rescale_grad != 1.0:
            grad = grad * np.asarray(self._rescale_grad, dt)
        coeff = self._l2_coeff(param, group)
        if coeff:
            grad = grad + np.asarray(coeff, dt) * param.data
        v_out = v * mu + grad
        self._set_acc("velocity", param, v_out)
        if self._use_nesterov:
            return param.data - (grad + v_out * mu) * lr
        return param.data - lr * v_out
