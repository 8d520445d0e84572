"""``torch.optim``: ``SGD`` (momentum, dampening, Nesterov, weight decay), ``Adam``, ``AdamW``,
``RMSprop``, ``Adagrad``, with torch's single-tensor update formulas in the parameters'
dtype, ``zero_grad(set_to_none=True)``, param groups, torch's repr; and ``lr_scheduler``."""
from __future__ import annotations

from collections import defaultdict

import numpy as np

from ...engine import grad_mode
from .. import _inplace
from .._base import EngineTensor, raw
from .._tensor import Tensor
from . import lr_scheduler  # noqa: F401

_wrap = Tensor._wrap


def _axpy(a, alpha, b):
    """``a + alpha * b`` as torch's add kernel computes it (one rounding: a fused multiply-add)."""
    dt = a.dtype
    if dt == np.float32:
        return (a.astype(np.float64) + np.float64(np.float32(alpha)) * b.astype(np.float64)
                ).astype(np.float32)
    return (a + np.asarray(alpha, dt) * b).astype(dt)


class _Required:
    def __repr__(self):
        return "<required parameter>"


required = _Required()


class Optimizer:
    def __init__(self, params, defaults):
        self.defaults = defaults
        self.state = defaultdict(dict)
        self.param_groups = []
        if isinstance(params, EngineTensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            f"Tensors or dicts, but got torch.{type(params).__name__}")
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for g in groups:
            self.add_param_group(g)

    def __getstate__(self):
        # torch's: a copy or pickle leaves out the step wrapper an lr scheduler put on this
        # optimizer (it would step the original) and its _opt_called mark
        return {k: v for k, v in self.__dict__.items() if k not in ("step", "_opt_called")}

    def add_param_group(self, param_group):
        # the keys in torch's order: the caller's (``params`` first as given, ``param_names``
        # after it for named parameters), then the defaults not given (``setdefault``)
        ps = param_group["params"]
        ps = [ps] if isinstance(ps, EngineTensor) else list(ps)
        group = {}
        for k, v in param_group.items():
            if k != "params":
                group[k] = v
                continue
            if ps and isinstance(ps[0], tuple):  # named_parameters()
                group["params"] = [p for _n, p in ps]
                group["param_names"] = [n for n, _p in ps]
            else:
                group["params"] = ps
        for p in group["params"]:
            if not p.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        for k, v in self.defaults.items():
            if v is required and k not in group:
                raise ValueError(f"parameter group didn't specify a value of required "
                                 f"optimization parameter {k}")
            group.setdefault(k, v)
        self.param_groups.append(group)

    def zero_grad(self, set_to_none=True):
        for group in self.param_groups:
            for p in group["params"]:
                g = p._grad
                if g is None:
                    continue
                if set_to_none:
                    p._grad = None
                else:
                    if g.grad_node is not None:
                        g.detach_()
                    else:
                        g.stop_gradient = True
                    _inplace.write(g, np.zeros((), raw(g).dtype))

    def state_dict(self):
        ids = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            packed["params"] = []
            for p in group["params"]:
                ids.setdefault(id(p), len(ids))
                packed["params"].append(ids[id(p)])
            groups.append(packed)
        state = {ids[id(p)]: s for p, s in self.state.items() if id(p) in ids}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        params = [p for g in self.param_groups for p in g["params"]]
        for group, saved in zip(self.param_groups, state_dict["param_groups"]):
            for k, v in saved.items():
                if k != "params":
                    group[k] = v
        for k, s in state_dict["state"].items():
            self.state[params[k]] = dict(s)

    def step(self, closure=None):
        loss = None
        if closure is not None:
            with grad_mode.enable_grad():
                loss = closure()
        with grad_mode.no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p._grad is None:
                        continue
                    self._update(p, raw(p._grad), group, self.state[p])
        return loss

    def _update(self, p, g, group, state):
        raise NotImplementedError

    def __repr__(self):
        s = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            s += "\n"
            s += f"Parameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    s += f"    {key}: {group[key]}\n"
        return s + ")"


def _set(p, values):
    _inplace.write(p, values)


def _buf(arr):
    return _wrap(np.array(arr), True)


class SGD(Optimizer):
    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0,
                 nesterov=False, *, maximize=False, foreach=None, differentiable=False,
                 fused=None):
        if lr is not required and lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening,
                                      weight_decay=weight_decay, nesterov=nesterov,
                                      maximize=maximize, foreach=foreach,
                                      differentiable=differentiable, fused=fused))

    def _update(self, p, g, group, state):
        a = raw(p)
        if group["maximize"]:
            g = -g
        wd, mom = group["weight_decay"], group["momentum"]
        if wd != 0:
            g = _axpy(g, wd, a)
        if mom != 0:
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = state["momentum_buffer"] = _buf(g)
            else:
                b = (raw(buf) * np.asarray(mom, a.dtype)).astype(a.dtype)
                _set(buf, _axpy(b, 1 - group["dampening"], g))
            g = _axpy(g, mom, raw(buf)) if group["nesterov"] else raw(buf)
        _set(p, _axpy(a, -group["lr"], g))


def _lerp(a, b, w):
    dt = a.dtype
    w = np.asarray(w, dt)
    if w < 0.5:
        return (a + w * (b - a)).astype(dt)
    return (b - (b - a) * (np.asarray(1, dt) - w)).astype(dt)


class Adam(Optimizer):
    _decoupled = False

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=None):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if decoupled_weight_decay is None:
            decoupled_weight_decay = self._decoupled
        betas = tuple(betas)  # (torch: tuple(map(_to_scalar, betas)): a list prints as a tuple)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      amsgrad=amsgrad, maximize=maximize, foreach=foreach,
                                      capturable=capturable, differentiable=differentiable,
                                      fused=fused,
                                      decoupled_weight_decay=decoupled_weight_decay))

    def _update(self, p, g, group, state):
        a = raw(p)
        dt = a.dtype
        if group["maximize"]:
            g = -g
        beta1, beta2 = group["betas"]
        lr, wd, eps = group["lr"], group["weight_decay"], group["eps"]
        if not state:
            state["step"] = _wrap(np.asarray(0.0, np.float32), True)
            state["exp_avg"] = _wrap(np.zeros_like(a), True)
            state["exp_avg_sq"] = _wrap(np.zeros_like(a), True)
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = _wrap(np.zeros_like(a), True)
        step_t = state["step"]
        _set(step_t, raw(step_t) + np.float32(1))
        if wd != 0:
            if group["decoupled_weight_decay"]:
                a = (a * np.asarray(1 - lr * wd, dt)).astype(dt)
                _set(p, a)
            else:
                g = _axpy(g, wd, a)
        m, v = state["exp_avg"], state["exp_avg_sq"]
        _set(m, _lerp(raw(m), g, 1 - beta1))
        vv = (raw(v) * np.asarray(beta2, dt)).astype(dt)
        _set(v, (vv + np.asarray(1 - beta2, dt) * g * g).astype(dt))
        step = float(raw(step_t))
        bc1 = 1 - beta1 ** step
        bc2 = 1 - beta2 ** step
        step_size = lr / bc1
        bc2_sqrt = bc2 ** 0.5
        vsrc = raw(v)
        if group["amsgrad"]:
            mx = state["max_exp_avg_sq"]
            _set(mx, np.maximum(raw(mx), vsrc))
            vsrc = raw(mx)
        denom = ((np.sqrt(vsrc) / np.asarray(bc2_sqrt, dt)).astype(dt) + np.asarray(eps, dt)
                 ).astype(dt)
        _set(p, (raw(p) + np.asarray(-step_size, dt) * (raw(m) / denom)).astype(dt))


class AdamW(Adam):
    _decoupled = True

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False, foreach=None, capturable=False,
                 differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable,
                         differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)


class RMSprop(Optimizer):
    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, capturable=False, foreach=None, maximize=False,
                 differentiable=False):
        super().__init__(params, dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps,
                                      centered=centered, weight_decay=weight_decay,
                                      capturable=capturable, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable))

    def _update(self, p, g, group, state):
        a = raw(p)
        dt = a.dtype
        if group["maximize"]:
            g = -g
        if not state:
            state["step"] = _wrap(np.asarray(0.0, np.float32), True)
            state["square_avg"] = _wrap(np.zeros_like(a), True)
            if group["momentum"] > 0:
                state["momentum_buffer"] = _wrap(np.zeros_like(a), True)
            if group["centered"]:
                state["grad_avg"] = _wrap(np.zeros_like(a), True)
        _set(state["step"], raw(state["step"]) + np.float32(1))
        if group["weight_decay"] != 0:
            g = _axpy(g, group["weight_decay"], a)
        alpha = group["alpha"]
        sq = state["square_avg"]
        _set(sq, (raw(sq) * np.asarray(alpha, dt) + np.asarray(1 - alpha, dt) * g * g).astype(dt))
        if group["centered"]:
            ga = state["grad_avg"]
            _set(ga, _lerp(raw(ga), g, 1 - alpha))
            avg = (np.sqrt(raw(sq) - raw(ga) * raw(ga)) + np.asarray(group["eps"], dt)).astype(dt)
        else:
            avg = (np.sqrt(raw(sq)) + np.asarray(group["eps"], dt)).astype(dt)
        if group["momentum"] > 0:
            buf = state["momentum_buffer"]
            _set(buf, (raw(buf) * np.asarray(group["momentum"], dt) + g / avg).astype(dt))
            _set(p, _axpy(a, -group["lr"], raw(buf)))
        else:
            _set(p, (a + np.asarray(-group["lr"], dt) * (g / avg)).astype(dt))


class Adagrad(Optimizer):
    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0,
                 initial_accumulator_value=0, eps=1e-10, foreach=None, *, maximize=False,
                 differentiable=False, fused=None):
        super().__init__(params, dict(lr=lr, lr_decay=lr_decay, eps=eps,
                                      weight_decay=weight_decay,
                                      initial_accumulator_value=initial_accumulator_value,
                                      foreach=foreach, maximize=maximize,
                                      differentiable=differentiable, fused=fused))

    def _update(self, p, g, group, state):
        a = raw(p)
        dt = a.dtype
        if group["maximize"]:
            g = -g
        if not state:
            state["step"] = _wrap(np.asarray(0.0, np.float32), True)
            state["sum"] = _wrap(np.full_like(a, group["initial_accumulator_value"]), True)
        _set(state["step"], raw(state["step"]) + np.float32(1))
        step = float(raw(state["step"]))
        if group["weight_decay"] != 0:
            g = _axpy(g, group["weight_decay"], a)
        clr = group["lr"] / (1 + (step - 1) * group["lr_decay"])
        s = state["sum"]
        _set(s, (raw(s) + g * g).astype(dt))
        std = (np.sqrt(raw(s)) + np.asarray(group["eps"], dt)).astype(dt)
        _set(p, (a + np.asarray(-clr, dt) * (g / std)).astype(dt))


from ._more import (ASGD, LBFGS, Adadelta, Adafactor, Adamax, Muon, NAdam, RAdam,  # noqa: E402
                    Rprop, SparseAdam)
# the first five with torch's exact update arithmetic (``_more``) replace the versions above
from ._more import SGD, Adagrad, Adam, AdamW, RMSprop  # noqa: E402,F811

lr_scheduler.Optimizer = Optimizer  # (torch's lr_scheduler module imports it)

# torch's public names (torch.optim.__all__, real torch 2.13), those this package has; ``dir()``
# shows them and the module's dunders, not the helpers imported here (``np``, ``raw`` ...)
__all__ = [n for n in ("Adafactor", "Adadelta", "Adagrad", "Adam", "Adamax", "AdamW", "ASGD",
                       "LBFGS", "lr_scheduler", "Muon", "NAdam", "Optimizer", "RAdam", "RMSprop",
                       "Rprop", "SGD", "SparseAdam", "swap_in_optimizer_params_and_state",
                       "swa_utils") if n in globals()]


def __dir__():
    return sorted(set(__all__) | {n for n in globals() if n.startswith("__") and n.endswith("__")
                                  and n not in ("__getattr__", "__dir__")})
