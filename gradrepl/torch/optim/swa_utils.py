"""``torch.optim.swa_utils``: stochastic weight averaging and EMA as torch 2.13 does them on the
CPU: ``AveragedModel`` (a deep copy; the first update copies, later ones
``avg + (p - avg) / (n + 1)`` per tensor, or the given ``avg_fn``/``multi_avg_fn``),
``get_ema_multi_avg_fn`` (``lerp_`` towards the model by ``1 - decay``), ``get_swa_avg_fn``,
``get_ema_avg_fn``, ``update_bn`` (running statistics recomputed over a loader with momentum
None) and the ``SWALR`` schedule (cosine or linear annealing to ``swa_lr``)."""
from __future__ import annotations

import itertools
import math
import warnings
from copy import deepcopy

from .lr_scheduler import GET_LR_OUTSIDE_STEP, LRScheduler, _format_param

__all__ = ["AveragedModel", "SWALR", "get_ema_avg_fn", "get_ema_multi_avg_fn",
           "get_swa_avg_fn", "get_swa_multi_avg_fn", "update_bn"]


def _torch():
    import gradrepl.torch as torch

    return torch


def _float_like(t):
    return t.is_floating_point() or t.is_complex()


def get_ema_multi_avg_fn(decay=0.999):
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in "
                         f"[0,1] range.")

    def ema_update(ema_param_list, current_param_list, _):
        with _torch().no_grad():
            if _float_like(ema_param_list[0]):
                for e, c in zip(ema_param_list, current_param_list):
                    e.lerp_(c, 1 - decay)
            else:
                for e, c in zip(ema_param_list, current_param_list):
                    e.copy_(e * decay + c * (1 - decay))
    return ema_update


def get_swa_multi_avg_fn():
    def swa_update(averaged_param_list, current_param_list, num_averaged):
        torch = _torch()
        with torch.no_grad():
            if _float_like(averaged_param_list[0]):
                for a, c in zip(averaged_param_list, current_param_list):
                    a.lerp_(c, float(1 / (num_averaged + 1)))
            else:
                for a, c in zip(averaged_param_list, current_param_list):
                    if isinstance(num_averaged, torch.Tensor):
                        a.addcdiv_(c - a, num_averaged + 1)
                    else:
                        a.add_(c - a, alpha=1.0 / (num_averaged + 1))
    return swa_update


def get_ema_avg_fn(decay=0.999):
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in "
                         f"[0,1] range.")

    def ema_update(ema_param, current_param, num_averaged):
        with _torch().no_grad():
            return decay * ema_param + (1 - decay) * current_param
    return ema_update


def get_swa_avg_fn():
    def swa_update(averaged_param, current_param, num_averaged):
        with _torch().no_grad():
            return averaged_param + (current_param - averaged_param) / (num_averaged + 1)
    return swa_update


def _make_averaged_model():
    torch = _torch()

    class AveragedModel(torch.nn.Module):
        def __init__(self, model, device=None, avg_fn=None, multi_avg_fn=None,
                     use_buffers=False):
            super().__init__()
            if avg_fn is not None and multi_avg_fn is not None:
                raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
            self.module = deepcopy(model)
            self.register_buffer("n_averaged", torch.tensor(0, dtype=torch.long))
            self.avg_fn = avg_fn
            self.multi_avg_fn = multi_avg_fn
            self.use_buffers = use_buffers

        def forward(self, *args, **kwargs):
            return self.module(*args, **kwargs)

        def update_parameters(self, model):
            mine = (itertools.chain(self.module.parameters(), self.module.buffers())
                    if self.use_buffers else self.parameters())
            theirs = (itertools.chain(model.parameters(), model.buffers())
                      if self.use_buffers else model.parameters())
            mine_d, theirs_d = [], []
            copy_param = bool(self.n_averaged == 0)
            for p_avg, p_model in zip(mine, theirs):
                p_model_ = p_model.detach()
                mine_d.append(p_avg.detach())
                theirs_d.append(p_model_)
                if copy_param:
                    with torch.no_grad():
                        p_avg.detach().copy_(p_model_)
            if self.n_averaged > 0:
                if self.multi_avg_fn is not None:
                    self.multi_avg_fn(mine_d, theirs_d, self.n_averaged)
                elif self.avg_fn is None:   # the CPU: the per-tensor SWA average
                    fn = get_swa_avg_fn()
                    with torch.no_grad():
                        for a, p in zip(mine_d, theirs_d):
                            a.copy_(fn(a, p, self.n_averaged))
                else:
                    with torch.no_grad():
                        for a, p in zip(mine_d, theirs_d):
                            a.detach().copy_(self.avg_fn(a.detach(), p, self.n_averaged))
            if not self.use_buffers:
                with torch.no_grad():
                    for b_swa, b_model in zip(self.module.buffers(), model.buffers()):
                        b_swa.detach().copy_(b_model.detach())
            with torch.no_grad():
                self.n_averaged += 1

    return AveragedModel


def update_bn(loader, model, device=None):
    torch = _torch()
    from ..nn._layers import _BatchNorm

    with torch.no_grad():
        momenta = {}
        for module in model.modules():
            if isinstance(module, _BatchNorm):
                module.reset_running_stats()
                momenta[module] = module.momentum
        if not momenta:
            return
        was_training = model.training
        model.train()
        for module in momenta:
            module.momentum = None
        for inp in loader:
            if isinstance(inp, (list, tuple)):
                inp = inp[0]
            model(inp)
        for module, m in momenta.items():
            module.momentum = m
        model.train(was_training)


class SWALR(LRScheduler):
    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos",
                 last_epoch=-1):
        swa_lrs = _format_param("swa_lr", optimizer, swa_lr)
        for lr, group in zip(swa_lrs, optimizer.param_groups):
            group["swa_lr"] = lr
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got "
                             f"{anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self):
        if not self._get_lr_called_within_step:  # torch warns from get_lr's caller
            warnings.warn(GET_LR_OUTSIDE_STEP, UserWarning, stacklevel=2)
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_t = max(0, min(1, (step - 1) / max(1, self.anneal_epochs)))
        prev_alpha = self.anneal_func(prev_t)
        prev_lrs = [self._get_initial_lr(g["lr"], g["swa_lr"], prev_alpha)
                    for g in self.optimizer.param_groups]
        t = max(0, min(1, step / max(1, self.anneal_epochs)))
        alpha = self.anneal_func(t)
        return [g["swa_lr"] * alpha + lr * (1 - alpha)
                for g, lr in zip(self.optimizer.param_groups, prev_lrs)]

    def _set_anneal_func(self, strategy):
        self._anneal_strategy = strategy
        self.anneal_func = self._cosine_anneal if strategy == "cos" else self._linear_anneal

    def state_dict(self):
        return {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)


_CLASS = []


def __getattr__(name):
    if name == "AveragedModel":
        if not _CLASS:
            _CLASS.append(_make_averaged_model())
        return _CLASS[0]
    raise AttributeError(f"module 'torch.optim.swa_utils' has no attribute '{name}'")
