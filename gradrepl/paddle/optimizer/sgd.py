"""SGD: ``param - lr * grad`` (Paddle's sgd kernel, a fused multiply-add: one rounding)."""
from __future__ import annotations

from .kernels import as_param_array, sgd_update
from .optimizer import Optimizer


class SGD(Optimizer):
    def __init__(self, learning_rate=0.001, parameters=None, weight_decay=None, grad_clip=None,
                 multi_precision=False, name=None):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _update(self, param, grad, group):
        p = self._owned_data(param)
        sgd_update(p, as_param_array(grad, p), self._param_lr(param))
        return p

