"""Adam with Paddle's CPU kernel arithmetic (its AVX-512 JIT code, fused multiply-adds; the
in-place blocked kernel is ``kernels.adam_update``).

Per step (float32): ``lr_t = lr * (sqrt(1 - beta2_pow) / (1 - beta1_pow))``,
``eps_t = epsilon * sqrt(1 - beta2_pow)``, ``m = fma(beta1, m, (1-beta1)*g)``,
``v = fma(beta2, v, (1-beta2)*(g*g))``, ``param = fma(m / (sqrt(v) + eps_t), -lr_t, param)``;
then ``beta1_pow *= beta1`` and ``beta2_pow *= beta2`` (accumulators start at beta1, beta2).
"""
from __future__ import annotations

import numpy as np

from .. import selected_rows
from .kernels import AdamConstants, adam_update, as_param_array
from .optimizer import Optimizer
from .sparse_adam import sparse_adam_update


def _f(v, dt):
    return np.asarray(v, dtype=dt)


def adam_step_sizes(lr, beta1_pow, beta2_pow, epsilon, dt):
    """(-lr_t, eps_t) as the kernel computes them, in the parameter's dtype."""
    one = _f(1, dt)
    root = np.sqrt(one - beta2_pow).astype(dt)
    lr_t = (lr * (root / (one - beta1_pow))).astype(dt)
    eps_t = (_f(epsilon, dt) * root).astype(dt)
    return -lr_t, eps_t


class Adam(Optimizer):
    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 parameters=None, weight_decay=None, grad_clip=None, lazy_mode=False,
                 multi_precision=False, use_multi_tensor=False, amsgrad=False, name=None):
        for nm, v in (("beta1", beta1), ("beta2", beta2)):
            if not 0 <= v < 1:
                raise ValueError(f"Invalid value of {nm}, expect {nm} in [0,1).")
        if not 0 <= epsilon:
            raise ValueError("Invalid value of epsilon, expect epsilon >= 0.")
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._beta1 = beta1
        self._beta2 = beta2
        self._epsilon = epsilon
        self._amsgrad = amsgrad
        self._lazy_mode = bool(lazy_mode)

    def _hyper(self, group):
        return (group.get("beta1", self._beta1), group.get("beta2", self._beta2),
                group.get("epsilon", self._epsilon))

    def _state(self, param, group, decay=None):
        """The moments (updated in place by the kernel) and this step's constants; advances
        the beta powers."""
        dt = param.data.dtype
        beta1, beta2, eps = self._hyper(group)
        m = self._acc("moment1", param)
        v = self._acc("moment2", param)
        vmax = self._acc("moment2_max", param) if self._amsgrad else None
        b1p = self._acc("beta1_pow_acc", param, beta1, (1,))
        b2p = self._acc("beta2_pow_acc", param, beta2, (1,))
        self._set_acc("beta1_pow_acc", param, (b1p * _f(beta1, dt)).astype(dt))
        self._set_acc("beta2_pow_acc", param, (b2p * _f(beta2, dt)).astype(dt))
        neg_lr, eps_t = adam_step_sizes(self._param_lr(param), b1p[0], b2p[0], eps, dt)
        return m, v, vmax, AdamConstants(dt, beta1, beta2, neg_lr, eps_t, decay)

    def step(self):
        """Paddle's Adam refuses a weight decay when any parameter's gradient is SelectedRows
        (a ``sparse=True`` embedding), before updating anything."""
        if self.regularization is not None:
            for p in self._all_params():
                if not p.stop_gradient and selected_rows.is_sparse_grad(p):
                    raise RuntimeError(f"{type(self).__name__} don't support weight_decay with "
                                       "sparse parameters, please set it to None.")
        return super().step()

    def _sparse_update(self, param, grad, group, rows):
        """A SelectedRows gradient (``sparse=True`` embedding): Paddle's sparse kernel."""
        dt = param.data.dtype
        beta1, beta2, eps = self._hyper(group)
        m = self._acc("moment1", param)
        v = self._acc("moment2", param)
        vmax = self._acc("moment2_max", param) if self._amsgrad else None
        b1p = (self._acc("beta1_pow_acc", param, beta1, (1,)) * _f(beta1, dt)).astype(dt)
        b2p = (self._acc("beta2_pow_acc", param, beta2, (1,)) * _f(beta2, dt)).astype(dt)
        self._set_acc("beta1_pow_acc", param, b1p)
        self._set_acc("beta2_pow_acc", param, b2p)
        p = self._owned_data(param)
        sparse_adam_update(p, as_param_array(grad, p), m, v, rows, self._param_lr(param), beta1,
                           beta2, eps, b1p[0], b2p[0], self._lazy_mode, vmax)
        return p

    def _update(self, param, grad, group):
        rows = selected_rows.rows_of(param)
        if rows is not None:
            if not (group.get("grad_clip", self._grad_clip) if group else self._grad_clip):
                grad = selected_rows.merged_grad(param)  # the merge's order of sums
            return self._sparse_update(param, grad, group, rows)
        m, v, vmax, consts = self._state(param, group)
        p = self._owned_data(param)
        adam_update(p, as_param_array(grad, p), m, v, consts, vmax)
        return p
