"""More optimizers: Adadelta, Adagrad, RMSProp, Adamax, NAdam, RAdam, Rprop, ASGD, Lamb.

Each is Paddle's update rule run in the parameter's dtype, in place, outside the graph (the
Optimizer base class does the stepping, parameter groups, weight decay and clipping). The float32
rounding follows the formulas term by term, not Paddle's fused kernels bit for bit.
"""
from __future__ import annotations

import numpy as np

from .optimizer import Optimizer


def _eigen_sqrt(x):
    """``.sqrt()`` inside the Eigen expressions of Paddle's Adagrad, RMSProp and Adadelta
    kernels: Eigen's fast packet sqrt (the CPU's rsqrt approximation and one Newton step) on
    each run of 8 elements, the exact sqrt on the tail (measured on AMD EPYC: Adagrad 0 of
    4,096 values differ from real Paddle 3.3.1, np.sqrt 143)."""
    from ...engine.ops import _kernels as K

    return K.sqrt(np.ascontiguousarray(x))


def _sqrt_for(opt, param, group):
    """Adagrad's and RMSProp's sqrt: Eigen's packet sqrt in the dense kernels; their
    SelectedRows kernels (a ``sparse=True`` embedding's gradient, no weight decay making it
    dense) loop with the exact ``sqrt`` (real 3.3.1 and 2.6.2; rows without a gradient take
    0 there, which the dense gradient's zero rows give too)."""
    from .. import selected_rows

    if selected_rows.is_sparse_grad(param) and not opt._decays(param, group):
        return np.sqrt
    return _eigen_sqrt


def _sparse_merged(opt, param, grad, group):
    """A SelectedRows gradient as their kernels merge it (``selected_rows.merged_grad``); the
    gradient as given when it is dense, decayed or clipped."""
    from .. import selected_rows

    clip = group.get("grad_clip", opt._grad_clip) if group else opt._grad_clip
    if clip is None and not opt._decays(param, group):
        merged = selected_rows.merged_grad(param)
        if merged is not None:
            return merged
    return grad


__all__ = ["Adadelta", "Adagrad", "RMSProp", "Adamax", "NAdam", "RAdam", "Rprop", "ASGD", "Lamb"]


def _c(v, dt):
    return np.asarray(v, dt)


class Adadelta(Optimizer):
    """E[g^2] = rho E[g^2] + (1-rho) g^2; u = -sqrt(E[dx^2]+eps) / sqrt(E[g^2]+eps) g;
    E[dx^2] = rho E[dx^2] + (1-rho) u^2; param += lr * u."""

    def __init__(self, learning_rate=0.001, epsilon=1.0e-6, rho=0.95, parameters=None,
                 weight_decay=None, grad_clip=None, name=None):
        if learning_rate is None:
            raise ValueError("learning_rate is not set.")
        if epsilon is None:
            raise ValueError("epsilon is not set.")
        if rho is None:
            raise ValueError("rho is not set.")
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._epsilon, self._rho = epsilon, rho

    def _update(self, param, grad, group):
        dt = param.data.dtype
        rho, eps = _c(group.get("rho", self._rho), dt), _c(self._epsilon, dt)
        one = _c(1, dt)
        g2 = self._acc("_avg_squared_grad", param)
        u2 = self._acc("_avg_squared_update", param)
        g2 = rho * g2 + (one - rho) * (grad * grad)
        update = -(_eigen_sqrt(u2 + eps) / _eigen_sqrt(g2 + eps) * grad)   # (the kernel's
        #                                                      two square roots, then divided)
        u2 = rho * u2 + (one - rho) * (update * update)
        self._set_acc("_avg_squared_grad", param, g2.astype(dt))
        self._set_acc("_avg_squared_update", param, u2.astype(dt))
        return param.data + self._param_lr(param) * update


class Adagrad(Optimizer):
    """moment += g^2; param -= lr * g / (sqrt(moment) + eps)."""

    def __init__(self, learning_rate, epsilon=1.0e-6, parameters=None, weight_decay=None,
                 grad_clip=None, name=None, initial_accumulator_value=0.0):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._epsilon = epsilon
        self._initial = initial_accumulator_value

    def _update(self, param, grad, group):
        dt = param.data.dtype
        grad = _sparse_merged(self, param, grad, group)
        m = self._acc("moment", param, fill=self._initial) + grad * grad
        self._set_acc("moment", param, m.astype(dt))
        sqrt = _sqrt_for(self, param, group)
        return param.data - self._param_lr(param) * grad / (sqrt(m) + _c(self._epsilon, dt))


class RMSProp(Optimizer):
    """ms = rho ms + (1-rho) g^2 (centered: mg likewise and ms - mg^2); mom = momentum mom +
    lr g / sqrt(... + eps); param -= mom."""

    def __init__(self, learning_rate, rho=0.95, epsilon=1.0e-6, momentum=0.0, centered=False,
                 parameters=None, weight_decay=None, grad_clip=None, name=None):
        if learning_rate is None:
            raise ValueError("learning_rate is not set.")
        if not 0.0 <= rho:
            raise ValueError(f"Invalid value of rho, expect rho >= 0.")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid value of momentum, expect momentum >= 0.")
        if not 0.0 <= epsilon:
            raise ValueError(f"Invalid value of epsilon, expect epsilon >= 0.")
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._rho, self._epsilon, self._momentum, self._centered = rho, epsilon, momentum, centered

    def _update(self, param, grad, group):
        dt = param.data.dtype
        rho, eps, mu = (_c(v, dt) for v in (self._rho, self._epsilon, self._momentum))
        one = _c(1, dt)
        grad = _sparse_merged(self, param, grad, group)
        ms = rho * self._acc("mean_square", param) + (one - rho) * grad * grad
        self._set_acc("mean_square", param, ms.astype(dt))
        if self._centered:
            mg = rho * self._acc("mean_grad", param) + (one - rho) * grad
            self._set_acc("mean_grad", param, mg.astype(dt))
            denom = _sqrt_for(self, param, group)(ms - mg * mg + eps)
        else:
            denom = _sqrt_for(self, param, group)(ms + eps)
        mom = mu * self._acc("momentum", param) + self._param_lr(param) * grad / denom
        self._set_acc("momentum", param, mom.astype(dt))
        return param.data - mom


class Adamax(Optimizer):
    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 parameters=None, weight_decay=None, grad_clip=None, name=None):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._beta1, self._beta2, self._epsilon = beta1, beta2, epsilon

    def _update(self, param, grad, group):
        dt = param.data.dtype
        b1, b2, eps = (_c(v, dt) for v in (self._beta1, self._beta2, self._epsilon))
        one = _c(1, dt)
        m = b1 * self._acc("moment", param) + (one - b1) * grad
        u = np.maximum(b2 * self._acc("inf_norm", param) + eps, np.abs(grad))
        b1p = self._acc("beta1_pow_acc", param, fill=self._beta1, shape=(1,))
        self._set_acc("moment", param, m.astype(dt))
        self._set_acc("inf_norm", param, u.astype(dt))
        self._set_acc("beta1_pow_acc", param, (b1p * b1).astype(dt))
        # the kernel's lr_t * (moment_out / inf_norm_out): the quotient first
        return param.data - (self._param_lr(param) / (one - b1p)) * (m / u)


class NAdam(Optimizer):
    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1.0e-8,
                 momentum_decay=0.004, parameters=None, weight_decay=None, grad_clip=None,
                 name=None):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._beta1, self._beta2 = beta1, beta2
        self._epsilon, self._momentum_decay = epsilon, momentum_decay

    def _update(self, param, grad, group):
        """Paddle's nadam kernel, in the parameter's dtype (float attributes cast to it; the
        pow of the decay power is the C library's powf/pow), its evaluation order."""
        from ...engine.ops import _kernels as K

        dt = param.data.dtype
        b1, b2, eps, md = (_c(v, dt) for v in (self._beta1, self._beta2, self._epsilon,
                                                self._momentum_decay))
        one, half, p96 = _c(1, dt), _c(0.5, dt), _c(0.96, dt)
        pw = K.powf if dt == np.float32 else K.pow64
        mdp = (self._acc("momentum_decay_pow", param, fill=1.0, shape=(1,)) * p96).astype(dt)
        b2p = (self._acc("beta2_pow", param, fill=1.0, shape=(1,)) * b2).astype(dt)
        mdp_pow = pw(mdp, np.full_like(mdp, md))
        mu_t = b1 * (one - half * mdp_pow)
        mu_t1 = b1 * (one - half * mdp_pow * pw(p96.reshape(1), md.reshape(1)))
        prod = (self._acc("mu_product", param, fill=1.0, shape=(1,)) * mu_t).astype(dt)
        prod1 = prod * mu_t1
        m = b1 * self._acc("moment1", param) + (one - b1) * grad
        v = b2 * self._acc("moment2", param) + (one - b2) * grad * grad
        for name, val in (("momentum_decay_pow", mdp), ("beta2_pow", b2p), ("mu_product", prod),
                          ("moment1", m), ("moment2", v)):
            self._set_acc(name, param, np.asarray(val).astype(dt))
        m_hat = mu_t1 * m / (one - prod1) + (one - mu_t) * grad / (one - prod)
        v_hat = v / (one - b2p)
        # .sqrt() of an Eigen expression: the packet sqrt (rsqrt and a Newton step) on runs of 8
        return param.data - self._param_lr(param) * m_hat / (K.sqrt(np.asarray(v_hat)) + eps)


class RAdam(Optimizer):
    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1.0e-8,
                 parameters=None, weight_decay=None, grad_clip=None, name=None):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._beta1, self._beta2, self._epsilon = beta1, beta2, epsilon

    def _update(self, param, grad, group):
        """Paddle's radam kernel, in the parameter's dtype (float attributes cast to it), the
        recursive rho of its accumulators and its evaluation order."""
        from ...engine.ops import _kernels as K

        dt = param.data.dtype
        b1, b2, eps = (_c(v, dt) for v in (self._beta1, self._beta2, self._epsilon))
        one, two = _c(1, dt), _c(2, dt)
        rho_inf = two / (one - b2) - one
        b1p = (self._acc("beta1_pow", param, fill=1.0, shape=(1,)) * b1).astype(dt)
        b2p = (self._acc("beta2_pow", param, fill=1.0, shape=(1,)) * b2).astype(dt)
        rho = self._acc("rho", param, fill=1.0, shape=(1,))
        rho = ((rho * (b2 - b2p) + b2p) / (one - b2p)).astype(dt)
        m = b1 * self._acc("moment1", param) + (one - b1) * grad
        v = b2 * self._acc("moment2", param) + (one - b2) * grad * grad
        for name, val in (("beta1_pow", b1p), ("beta2_pow", b2p), ("rho", rho),
                          ("moment1", m), ("moment2", v)):
            self._set_acc(name, param, np.asarray(val).astype(dt))
        m_hat = m / (one - b1p)
        rho_t = rho_inf - two * rho[0]
        lr = self._param_lr(param)
        if rho_t > 5:
            four = _c(4, dt)
            # both sqrt()s over the parameter's size (the first broadcast): Eigen's packet sqrt
            root = K.sqrt(np.broadcast_to(one - b2p, np.shape(v)).astype(dt))
            l_t = root / (K.sqrt(np.asarray(v)) + eps)
            r_t = np.sqrt(((rho_t - four) * (rho_t - two) * rho_inf)
                          / ((rho_inf - four) * (rho_inf - two) * rho_t))
            return param.data - lr * m_hat * r_t * l_t
        return param.data - lr * m_hat


class Rprop(Optimizer):
    def __init__(self, learning_rate=0.001, learning_rate_range=(1e-5, 50), parameters=None,
                 etas=(0.5, 1.2), grad_clip=None, name=None):
        # real 3.3.1 checks the range and etas before the base class sees the rate
        if learning_rate is None:
            raise ValueError("learning_rate is not set")
        if not 0.0 < learning_rate_range[0] <= learning_rate <= learning_rate_range[1]:
            raise ValueError("'0.0 < learning_rate_range[0] <= learning_rate <= "
                             "learning_rate_range[1]' must be true")
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError("'0.0 < etas[0] < 1.0 < etas[1]' must be true")
        super().__init__(learning_rate, parameters, None, grad_clip, name)
        self._range, self._etas = learning_rate_range, etas

    def _update(self, param, grad, group):
        dt = param.data.dtype
        prev = self._acc("prev", param)
        lrs = self._acc("learning_rate", param, fill=float(self._param_lr(param)))
        sign = np.sign(prev * grad)
        lrs = np.where(sign > 0, lrs * self._etas[1], np.where(sign < 0, lrs * self._etas[0],
                                                                lrs))
        lrs = np.clip(lrs, self._range[0], self._range[1]).astype(dt)
        grad = np.where(sign < 0, 0, grad)
        self._set_acc("prev", param, grad.astype(dt))
        self._set_acc("learning_rate", param, lrs)
        return param.data - np.sign(grad) * lrs


class ASGD(Optimizer):
    def __init__(self, learning_rate=0.001, batch_num=1, parameters=None, weight_decay=None,
                 grad_clip=None, multi_precision=False, name=None):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._batch_num = batch_num

    def _update(self, param, grad, group):
        dt = param.data.dtype
        d = self._acc("d", param) + grad
        self._set_acc("d", param, d.astype(dt))
        return param.data - self._param_lr(param) * d / _c(self._batch_num, dt)


_PACKET = 8      # floats in an AVX packet: Paddle's CPU build vectorizes Eigen with AVX


def _eigen_sum(x):
    """``x.sum()`` of a 1-D float32/float64 array as Paddle's Eigen full reduction adds it: two
    packet accumulators over the unrolled part, one more packet, the packets added, the tail
    added one by one, then the packet's lanes halved (AVX, then SSE), with no split of long runs
    (measured: Lamb's trust ratio over parameters of 3 to 3,000 values, float32 steps equal to
    real Paddle 3.3.1 and 2.6.2; with Eigen 3.4's split at 1024 values they differ)."""
    n, dt = x.size, x.dtype.type
    unroll = n // (2 * _PACKET) * (2 * _PACKET)
    vec = n // _PACKET * _PACKET
    acc = np.zeros(_PACKET, x.dtype)
    acc2 = np.zeros(_PACKET, x.dtype)
    if unroll:
        pairs = x[:unroll].reshape(-1, 2, _PACKET)
        acc = np.add.reduce(np.concatenate([acc[None], pairs[:, 0]]), axis=0)   # in order
        acc2 = np.add.reduce(np.concatenate([acc2[None], pairs[:, 1]]), axis=0)
    if vec > unroll:
        acc = acc + x[unroll:vec]
    acc = acc + acc2
    tail = dt(0)
    for v in x[vec:]:
        tail = dt(tail + v)
    while acc.size > 1:
        h = acc.size // 2
        acc = acc[:h] + acc[h:]
    return dt(tail + acc[0])


class Lamb(Optimizer):
    def __init__(self, learning_rate=0.001, lamb_weight_decay=0.01, beta1=0.9, beta2=0.999,
                 epsilon=1e-6, parameters=None, grad_clip=None, exclude_from_weight_decay_fn=None,
                 multi_precision=False, always_adapt=False, name=None):
        super().__init__(learning_rate, parameters, None, grad_clip, name)
        self._wd, self._beta1, self._beta2, self._epsilon = (lamb_weight_decay, beta1, beta2,
                                                             epsilon)
        self._exclude = exclude_from_weight_decay_fn

    def _update(self, param, grad, group):
        dt = param.data.dtype
        step = int(self._acc("step", param, shape=(1,))[0]) + 1
        self._set_acc("step", param, np.asarray([step], dt))
        # Paddle's lamb kernel (LambMomentREGUpdateFunctor, then LambParamUpateFunctor), every
        # step rounded to the parameter's dtype; the beta powers are accumulators multiplied by
        # beta after each step (measured: float32 steps equal to real 3.3.1 and 2.6.2)
        one = dt.type(1)
        b1, b2, eps = dt.type(self._beta1), dt.type(self._beta2), dt.type(self._epsilon)
        b1p, b2p = b1, b2
        for _ in range(step - 1):
            b1p, b2p = dt.type(b1p * b1), dt.type(b2p * b2)
        grad = np.asarray(grad, dt)
        m = (b1 * self._acc("moment1", param) + (one - b1) * grad).astype(dt)
        v = (b2 * self._acc("moment2", param) + (one - b2) * grad * grad).astype(dt)
        self._set_acc("moment1", param, m)
        self._set_acc("moment2", param, v)
        wd = dt.type(0.0 if self._exclude is not None and self._exclude(param) else self._wd)
        r = ((m / (one - b1p)).astype(dt) / (np.sqrt((v / (one - b2p)).astype(dt)) + eps)
             + wd * param.data).astype(dt)
        pn = np.sqrt(_eigen_sum((param.data * param.data).astype(dt).ravel()))
        rn = np.sqrt(_eigen_sum((r * r).astype(dt).ravel()))
        trust = dt.type(pn / rn) if pn > 0 and rn > 0 else one
        lr = dt.type(dt.type(self._param_lr(param)) * trust)
        return (param.data - lr * r).astype(dt)
