"""AdamW: Adam with decoupled weight decay: ``p = p - ((lr * ratio) * coeff) * p`` (one fused
rounding) before the Adam step, as Paddle's AVX-512 JIT kernel does."""
from __future__ import annotations

import numpy as np

from .adam import Adam
from .kernels import adam_update, as_param_array


class AdamW(Adam):
    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 parameters=None, weight_decay=0.01, lr_ratio=None, apply_decay_param_fun=None,
                 grad_clip=None, lazy_mode=False, multi_precision=False, amsgrad=False,
                 name=None):
        if not isinstance(weight_decay, (int, float)) or isinstance(weight_decay, bool):
            raise TypeError("weight_decay should be float or Tensor.")
        super().__init__(learning_rate, beta1, beta2, epsilon, parameters, None, grad_clip,
                         lazy_mode, multi_precision, False, amsgrad, name)
        self._coeff = float(weight_decay)
        self._lr_ratio = lr_ratio
        self._apply_decay_param_fun = apply_decay_param_fun

    def _uses_regularization(self):
        return False

    def _update(self, param, grad, group):
        dt = param.data.dtype
        coeff = group.get("weight_decay", self._coeff)
        if not isinstance(coeff, (int, float)):
            coeff = getattr(coeff, "_coeff", self._coeff)
        if self._apply_decay_param_fun is not None and not self._apply_decay_param_fun(param.name):
            coeff = 0.0
        ratio = 1.0 if self._lr_ratio is None else self._lr_ratio(param)
        old_lr = self._param_lr(param)
        decay = (old_lr * np.asarray(ratio, dt) * np.asarray(coeff, dt)).astype(dt)
        m, v, vmax, consts = self._state(param, group, decay)
        p = self._owned_data(param)
        adam_update(p, as_param_array(grad, p), m, v, consts, vmax)
        return p
