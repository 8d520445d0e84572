"""The rest of ``torch.optim``: ``Adadelta``, ``Adamax``, ``NAdam``, ``RAdam``, ``ASGD``,
``Rprop``, ``LBFGS`` (without a line search), and ``SparseAdam`` (which needs sparse gradients:
gradrepl has none, so its ``step`` says so).

On the CPU torch 2.13 runs each optimizer's single-tensor path (``foreach`` defaults to the CUDA
devices only: ``_default_to_fused_or_foreach``), so each update below is that path's sequence
of tensor operations, written with the dialect's own (bit-exact) in-place operations in the
same order: ``lerp_``, ``addcmul_``, ``addcdiv_``, ``mul_`` ... the state tensors (``step`` a
float32 scalar, ``exp_avg``, ...) have torch's keys and order, so ``state_dict()`` matches.
"""
from __future__ import annotations

import numpy as np

from ...engine import grad_mode
from ..._line_search import strong_wolfe
from .. import _bfloat16, _inplace
from .._base import EngineTensor, raw
from .._method_repr import own_copy
from . import Optimizer


_BF16 = _bfloat16.BITS


def _fma(a, b, c):
    """``a * b + c`` rounded once, in c's dtype (AVX's fmadd, as torch's vectorised kernels)."""
    dt = np.result_type(a, c)
    if dt.kind == "c":   # (complex: a complex product, then the sum, each rounded)
        return np.asarray(a, dt) * np.asarray(b, dt) + np.asarray(c, dt)
    if dt == np.float32:
        return (np.float64(a) * np.asarray(b, np.float64) + np.asarray(c, np.float64)
                ).astype(np.float32) if np.ndim(a) == 0 else (
            np.asarray(a, np.float64) * np.asarray(b, np.float64) + np.asarray(c, np.float64)
        ).astype(np.float32)
    from .._sleef64 import fma64
    return fma64(np.asarray(a, np.float64), np.asarray(b, np.float64), c)


def _add(x, other, alpha):
    """``x.add(other, alpha=alpha)`` as torch's CPU kernel: fmadd(other, alpha, x)."""
    a = raw(x)
    if a.dtype == _BF16:  # bfloat16: ATen's rounding (gradrepl/torch/_bfloat16.py)
        return type(x)._wrap(_bfloat16.add_alpha(a, raw(other), alpha), True)
    return type(x)._wrap(np.asarray(_fma(raw(other), a.dtype.type(alpha), a), a.dtype), True)


def _add_(x, other, alpha):
    if raw(x).dtype == _BF16:
        _inplace.write(x, _bfloat16.add_alpha(raw(x), raw(other), alpha))
        return x
    _inplace.write(x, np.asarray(_fma(raw(other), raw(x).dtype.type(alpha), raw(x)),
                                 raw(x).dtype))
    return x


def _lerp_(x, end, weight):
    """``x.lerp_(end, weight)`` (scalar weight) as torch's vectorised kernel: fmadd(weight,
    end - x, x) for |weight| < 0.5, else fmadd(weight - 1, end - x, end)."""
    a, b = raw(x), raw(end)
    if a.dtype == _BF16:
        _inplace.write(x, _bfloat16.lerp_scalar(a, b, weight))
        return x
    dt = a.dtype.type
    w = dt(weight)
    d = (b - a).astype(a.dtype)
    out = _fma(d, w, a) if abs(w) < 0.5 else _fma(d, dt(w - dt(1)), b)
    _inplace.write(x, np.asarray(out, a.dtype))
    return x


def _T():
    import gradrepl.torch as torch
    return torch


def _scalar(value):
    return float(value.item()) if hasattr(value, "item") else value


def _check(lr=None, eps=None, betas=None, weight_decay=None):
    if lr is not None and not 0.0 <= _scalar(lr):
        raise ValueError(f"Invalid learning rate: {lr}")
    if eps is not None and not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if betas is not None:
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if weight_decay is not None and not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


class _TensorStep(Optimizer):
    """An optimizer whose update is written with the dialect's tensor operations:
    ``_update_t(param, grad, group, state)`` for each parameter that has a gradient. A complex
    parameter is updated through ``view_as_real`` of it and its gradient (its state real too),
    as torch's optimizers do (all but SGD: ``_complex_as_real``)."""

    _complex_as_real = True

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
                    g = p._grad.detach()
                    if self._complex_as_real and raw(p).dtype.kind == "c":
                        T = _T()
                        state = self.state[p]
                        for k, v in list(state.items()):   # (Adagrad's sum, made complex)
                            if isinstance(v, EngineTensor) and raw(v).dtype.kind == "c":
                                state[k] = T.view_as_real(v)
                        self._update_t(T.view_as_real(p), T.view_as_real(g), group, state)
                        continue
                    self._update_t(p, g, group, self.state[p])
        return loss

    @staticmethod
    def _step0():
        return _T().tensor(0.0, dtype=_T().float32)


class Adadelta(_TensorStep):
    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
                 capturable=False, maximize=False, differentiable=False):
        _check(lr=lr, eps=eps, weight_decay=weight_decay)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        super().__init__(params, dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay,
                                      maximize=maximize, capturable=capturable,
                                      foreach=foreach, differentiable=differentiable))

    def _update_t(self, param, grad, group, state):
        T = _T()
        if not state:
            state["step"] = self._step0()
            state["square_avg"] = T.zeros_like(param)
            state["acc_delta"] = T.zeros_like(param)
        lr, rho, eps, wd = _scalar(group["lr"]), group["rho"], group["eps"], \
            group["weight_decay"]
        square_avg, acc_delta = state["square_avg"], state["acc_delta"]
        state["step"] += 1
        grad = grad if not group["maximize"] else -grad
        if wd != 0:
            grad = _add(grad, param, wd)
        square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
        std = square_avg.add(eps).sqrt_()
        delta = acc_delta.add(eps).sqrt_()
        delta.div_(std).mul_(grad)
        acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
        _add_(param, delta, -lr)


class Adamax(_TensorStep):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 foreach=None, *, maximize=False, differentiable=False, capturable=False):
        _check(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      foreach=foreach, maximize=maximize,
                                      differentiable=differentiable, capturable=capturable))

    def _update_t(self, param, grad, group, state):
        T = _T()
        if not state:
            state["step"] = self._step0()
            state["exp_avg"] = T.zeros_like(param)
            state["exp_inf"] = T.zeros_like(param)
        beta1, beta2 = group["betas"]
        lr, eps, wd = _scalar(group["lr"]), group["eps"], group["weight_decay"]
        grad = grad if not group["maximize"] else -grad
        exp_avg, exp_inf, step_t = state["exp_avg"], state["exp_inf"], state["step"]
        step_t += 1
        if wd != 0:
            grad = _add(grad, param, wd)
        _lerp_(exp_avg, grad, 1 - beta1)
        T.maximum(exp_inf.mul_(beta2), grad.abs().add_(eps), out=exp_inf)
        bias_correction = 1 - beta1 ** step_t.item()
        clr = lr / bias_correction
        param.addcdiv_(exp_avg, exp_inf, value=-clr)


class NAdam(_TensorStep):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None,
                 maximize=False, capturable=False, differentiable=False):
        _check(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      momentum_decay=momentum_decay,
                                      decoupled_weight_decay=decoupled_weight_decay,
                                      maximize=maximize, foreach=foreach,
                                      capturable=capturable, differentiable=differentiable))

    def _update_t(self, param, grad, group, state):
        T = _T()
        if not state:
            state["step"] = self._step0()
            state["mu_product"] = T.tensor(1.0, dtype=T.float32)
            state["exp_avg"] = T.zeros_like(param)
            state["exp_avg_sq"] = T.zeros_like(param)
        beta1, beta2 = group["betas"]
        lr, eps, wd = _scalar(group["lr"]), group["eps"], group["weight_decay"]
        momentum_decay = group["momentum_decay"]
        grad = grad if not group["maximize"] else -grad
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        mu_product, step_t = state["mu_product"], state["step"]
        step_t += 1
        step = step_t.item()
        bias_correction2 = 1 - beta2 ** step
        if wd != 0:
            if group["decoupled_weight_decay"]:
                param.mul_(1 - lr * wd)
            else:
                grad = _add(grad, param, wd)
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
        mu_product *= mu
        _lerp_(exp_avg, grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        denom = exp_avg_sq.div(bias_correction2).sqrt()
        mu_product_next = mu_product.item() * mu_next
        denom.add_(eps)
        param.addcdiv_(grad, denom, value=(-lr * (1.0 - mu) / (1.0 - mu_product.item())))
        param.addcdiv_(exp_avg, denom, value=(-lr * mu_next) / (1.0 - mu_product_next))


class RAdam(_TensorStep):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False,
                 capturable=False, differentiable=False):
        _check(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      maximize=maximize, foreach=foreach,
                                      capturable=capturable,
                                      decoupled_weight_decay=decoupled_weight_decay,
                                      differentiable=differentiable))

    def _update_t(self, param, grad, group, state):
        T = _T()
        if not state:
            state["step"] = self._step0()
            state["exp_avg"] = T.zeros_like(param)
            state["exp_avg_sq"] = T.zeros_like(param)
        beta1, beta2 = group["betas"]
        lr, eps, wd = _scalar(group["lr"]), group["eps"], group["weight_decay"]
        grad = grad if not group["maximize"] else -grad
        exp_avg, exp_avg_sq, step_t = state["exp_avg"], state["exp_avg_sq"], state["step"]
        step_t += 1
        step = step_t.item()
        if wd != 0:
            if group["decoupled_weight_decay"]:
                param.mul_(1 - lr * wd)
            else:
                grad = _add(grad, param, wd)
        _lerp_(exp_avg, grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        bias_corrected_exp_avg = exp_avg / bias_correction1
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
        if rho_t > 5.0:
            rect = ((rho_t - 4) * (rho_t - 2) * rho_inf
                    / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
            adaptive_lr = (bias_correction2 ** 0.5) / exp_avg_sq.sqrt().add_(eps)
            param.add_(bias_corrected_exp_avg * lr * adaptive_lr * rect, alpha=-1.0)
        else:
            param.add_(bias_corrected_exp_avg * lr, alpha=-1.0)


class ASGD(_TensorStep):
    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0,
                 foreach=None, maximize=False, differentiable=False, capturable=False):
        _check(lr=lr, weight_decay=weight_decay)
        super().__init__(params, dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0,
                                      weight_decay=weight_decay, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable,
                                      capturable=capturable))

    def _update_t(self, param, grad, group, state):
        T = _T()
        lr = _scalar(group["lr"])
        if not state:
            state["step"] = T.zeros((), dtype=T.float32)
            state["eta"] = T.as_tensor(lr, dtype=T.float32).clone().detach()
            state["mu"] = T.ones((), dtype=T.float32)
            state["ax"] = T.zeros_like(param)
        lambd, alpha, t0, wd = group["lambd"], group["alpha"], group["t0"], \
            group["weight_decay"]
        grad = grad if not group["maximize"] else -grad
        mu, ax, eta, step_t = state["mu"], state["ax"], state["eta"], state["step"]
        step_t += 1
        if wd != 0:
            grad = _add(grad, param, wd)
        eta_value = eta.item()
        param.mul_(1 - lambd * eta_value)
        _add_(param, grad, -eta_value)
        if mu.item() != 1:
            ax.add_(param.sub(ax).mul_(mu))
        else:
            ax.copy_(param)
        step = step_t.item()
        eta.copy_(T.as_tensor(lr / ((1 + lambd * lr * step) ** alpha)))
        mu.copy_(T.as_tensor(1 / max(1, step - t0)))


class Rprop(_TensorStep):
    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        _check(lr=lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        super().__init__(params, dict(lr=lr, etas=etas, step_sizes=step_sizes,
                                      foreach=foreach, maximize=maximize,
                                      differentiable=differentiable, capturable=capturable))

    def _update_t(self, param, grad, group, state):
        T = _T()
        if not state:
            state["step"] = self._step0()
            state["prev"] = T.zeros_like(param)
            state["step_size"] = T.full_like(grad, _scalar(group["lr"]))
        etaminus, etaplus = group["etas"]
        step_size_min, step_size_max = group["step_sizes"]
        grad = grad if not group["maximize"] else -grad
        prev, step_size = state["prev"], state["step_size"]
        state["step"] += 1
        sign = grad.mul(prev).sign()
        sign[sign.gt(0)] = etaplus
        sign[sign.lt(0)] = etaminus
        sign[sign.eq(0)] = 1
        step_size.mul_(sign).clamp_(step_size_min, step_size_max)
        grad = grad.clone()
        grad[sign.eq(etaminus)] = 0
        param.addcmul_(grad.sign(), step_size, value=-1)
        prev.copy_(grad)


class SparseAdam(Optimizer):
    """``torch.optim.SparseAdam``: for sparse gradients (``nn.Embedding(sparse=True)``), which
    gradrepl's torch does not emulate: its step raises torch's error for dense ones."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False):
        _check(lr=lr, eps=eps, betas=betas)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, maximize=maximize))

    def step(self, closure=None):
        for group in self.param_groups:
            for p in group["params"]:
                if p._grad is not None:
                    raise RuntimeError("SparseAdam does not support dense gradients, please "
                                       "consider Adam instead")
        return None if closure is None else closure()


def _dot(x, y):
    return x.dot(y)


class LBFGS(Optimizer):
    """``torch.optim.LBFGS`` (torch's algorithm step for step, with or without the strong-Wolfe
    line search of ``gradrepl._line_search``)."""

    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7,
                 tolerance_change=1e-9, history_size=100, line_search_fn=None):
        _check(lr=lr)
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        super().__init__(params, dict(lr=lr, max_iter=max_iter, max_eval=max_eval,
                                      tolerance_grad=tolerance_grad,
                                      tolerance_change=tolerance_change,
                                      history_size=history_size,
                                      line_search_fn=line_search_fn))
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]
        self._numel_cache = None

    def _numel(self):
        if self._numel_cache is None:
            self._numel_cache = sum(p.numel() for p in self._params)
        return self._numel_cache

    def _gather_flat_grad(self):
        T = _T()
        views = [p.new(p.numel()).zero_() if p.grad is None else p.grad.view(-1)
                 for p in self._params]
        return T.cat(views, 0)

    def _add_grad(self, step_size, update):
        offset = 0
        for p in self._params:
            numel = p.numel()
            p.add_(update[offset:offset + numel].view_as(p), alpha=step_size)
            offset += numel

    def _clone_param(self):
        return [p.clone() for p in self._params]

    def _set_param(self, params_data):
        for p, pdata in zip(self._params, params_data):
            p.copy_(pdata)

    def _directional_evaluate(self, closure, x, t, d):
        self._add_grad(t, d)
        loss = float(closure())
        flat_grad = self._gather_flat_grad()
        self._set_param(x)
        return loss, flat_grad

    def step(self, closure):  # noqa: C901 - torch's loop, as written there
        T = _T()
        with grad_mode.no_grad():
            return self._step(T, closure)

    def _step(self, T, closure):  # noqa: C901
        def evaluate():
            with grad_mode.enable_grad():
                return closure()

        group = self.param_groups[0]
        lr = _scalar(group["lr"])
        max_iter, max_eval = group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        line_search_fn, history_size = group["line_search_fn"], group["history_size"]
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        orig_loss = evaluate()
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._gather_flat_grad()
        if flat_grad.abs().max() <= tolerance_grad:
            return orig_loss
        d, t = state.get("d"), state.get("t")
        old_dirs, old_stps, ro = state.get("old_dirs"), state.get("old_stps"), state.get("ro")
        H_diag = state.get("H_diag")  # noqa: N806 - torch's name
        prev_flat_grad, prev_loss = state.get("prev_flat_grad"), state.get("prev_loss")
        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d = flat_grad.neg()
                old_dirs, old_stps, ro = [], [], []
                H_diag = 1  # noqa: N806
            else:
                y = flat_grad.sub(prev_flat_grad)
                s = d.mul(t)
                ys = y.dot(s)
                if ys > 1e-10:
                    if len(old_dirs) == history_size:
                        old_dirs.pop(0)
                        old_stps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    H_diag = ys / y.dot(y)  # noqa: N806
                num_old = len(old_dirs)
                if "al" not in state:
                    state["al"] = [None] * history_size
                al = state["al"]
                q = flat_grad.neg()
                for i in range(num_old - 1, -1, -1):
                    al[i] = old_stps[i].dot(q) * ro[i]
                    q.add_(old_dirs[i], alpha=-al[i])
                d = r = T.mul(q, H_diag)
                for i in range(num_old):
                    be_i = old_dirs[i].dot(r) * ro[i]
                    r.add_(old_stps[i], alpha=al[i] - be_i)
            if prev_flat_grad is None:
                prev_flat_grad = flat_grad.clone()
            else:
                prev_flat_grad.copy_(flat_grad)
            prev_loss = loss
            if state["n_iter"] == 1:
                t = min(1.0, 1.0 / flat_grad.abs().sum()) * lr
            else:
                t = lr
            gtd = flat_grad.dot(d)
            if gtd > -tolerance_change:
                break
            ls_func_evals = 0
            opt_cond = False
            if line_search_fn is not None:
                if line_search_fn != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                x_init = self._clone_param()
                loss, flat_grad, t, ls_func_evals = strong_wolfe(
                    lambda x, t, d: self._directional_evaluate(evaluate, x, t, d),
                    x_init, t, d, loss, flat_grad, gtd, dot=_dot)
                self._add_grad(t, d)
                opt_cond = flat_grad.abs().max() <= tolerance_grad
            else:
                self._add_grad(t, d)
                if n_iter != max_iter:
                    loss = float(evaluate())
                    flat_grad = self._gather_flat_grad()
                    opt_cond = flat_grad.abs().max() <= tolerance_grad
                    ls_func_evals = 1
            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals
            if n_iter == max_iter or current_evals >= max_eval or opt_cond:
                break
            if d.mul(t).abs().max() <= tolerance_change:
                break
            if abs(loss - prev_loss) < tolerance_change:
                break
        state.update(d=d, t=t, old_dirs=old_dirs, old_stps=old_stps, ro=ro, H_diag=H_diag,
                     prev_flat_grad=prev_flat_grad, prev_loss=prev_loss)
        return orig_loss


class Adafactor(Optimizer):
    def __init__(self, *args, **kwargs):
        raise NotImplementedError("gradrepl's torch does not emulate torch.optim.Adafactor")


class Muon(Optimizer):
    def __init__(self, *args, **kwargs):
        raise NotImplementedError("gradrepl's torch does not emulate torch.optim.Muon")


__all__ = ["Adadelta", "Adamax", "NAdam", "RAdam", "ASGD", "Rprop", "SparseAdam", "LBFGS",
           "Adafactor", "Muon"]
for _c in __all__:
    globals()[_c].__module__ = f"torch.optim.{ {'NAdam': 'nadam', 'RAdam': 'radam', 'ASGD': 'asgd', 'SparseAdam': 'sparse_adam', 'Adafactor': '_adafactor', 'Muon': '_muon'}.get(_c, _c.lower())}"
del _c


# ------------------------------------------------------------------ the first five, exact
# SGD, Adam, AdamW, RMSprop, Adagrad (their constructors, defaults and reprs are the package's
# first versions); their updates here are torch's single-tensor sequence (the fused
# multiply-adds of add(alpha)/lerp as _add/_lerp_ above), so the last bits match torch
# (measured: every element of 120-element float32/float64 parameters over 30 steps).
from . import SGD as _SGD0, Adam as _Adam0, AdamW as _AdamW0, RMSprop as _RMSprop0  # noqa: E402
from . import Adagrad as _Adagrad0  # noqa: E402


class SGD(_TensorStep, _SGD0):
    _complex_as_real = False   # (torch's SGD updates complex parameters as they are)

    def _update_t(self, param, grad, group, state):
        lr, wd, momentum = _scalar(group["lr"]), group["weight_decay"], group["momentum"]
        grad = grad if not group["maximize"] else -grad
        if wd != 0:
            grad = _add(grad, param, wd)
        if momentum != 0:
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = grad.detach().clone()
                state["momentum_buffer"] = buf
            else:
                buf.mul_(momentum)
                _add_(buf, grad, 1 - group["dampening"])
            grad = _add(grad, buf, momentum) if group["nesterov"] else buf
        _add_(param, grad, -lr)


class Adam(_TensorStep, _Adam0):
    def _update_t(self, param, grad, group, state):
        T = _T()
        if not state:
            state["step"] = self._step0()
            state["exp_avg"] = T.zeros_like(param)
            state["exp_avg_sq"] = T.zeros_like(param)
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = T.zeros_like(param)
        beta1, beta2 = group["betas"]
        lr, wd, eps = _scalar(group["lr"]), group["weight_decay"], group["eps"]
        grad = grad if not group["maximize"] else -grad
        exp_avg, exp_avg_sq, step_t = state["exp_avg"], state["exp_avg_sq"], state["step"]
        step_t += 1
        if wd != 0:
            if group["decoupled_weight_decay"]:
                param.mul_(1 - lr * wd)
            else:
                grad = _add(grad, param, wd)
        _lerp_(exp_avg, grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        step = step_t.item()
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        step_size = lr / bias_correction1
        bias_correction2_sqrt = bias_correction2 ** 0.5
        if group["amsgrad"]:
            mx = state["max_exp_avg_sq"]
            T.maximum(mx, exp_avg_sq, out=mx)
            denom = (mx.sqrt() / bias_correction2_sqrt).add_(eps)
        else:
            denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
        param.addcdiv_(exp_avg, denom, value=-step_size)


class AdamW(Adam, _AdamW0):
    pass


class RMSprop(_TensorStep, _RMSprop0):
    def _update_t(self, param, grad, group, state):
        T = _T()
        if not state:
            state["step"] = self._step0()
            state["square_avg"] = T.zeros_like(param)
            if group["momentum"] > 0:
                state["momentum_buffer"] = T.zeros_like(param)
            if group["centered"]:
                state["grad_avg"] = T.zeros_like(param)
        lr, alpha, eps, wd = _scalar(group["lr"]), group["alpha"], group["eps"], \
            group["weight_decay"]
        grad = grad if not group["maximize"] else -grad
        square_avg = state["square_avg"]
        state["step"] += 1
        if wd != 0:
            grad = _add(grad, param, wd)
        square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
        if group["centered"]:
            grad_avg = state["grad_avg"]
            _lerp_(grad_avg, grad, 1 - alpha)
            avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
        else:
            avg = square_avg.sqrt()
        avg = avg.add_(eps)
        if group["momentum"] > 0:
            buf = state["momentum_buffer"]
            buf.mul_(group["momentum"]).addcdiv_(grad, avg)
            _add_(param, buf, -lr)
        else:
            param.addcdiv_(grad, avg, value=-lr)


class Adagrad(_TensorStep, _Adagrad0):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        T = _T()
        for group in self.param_groups:  # torch makes the state in the constructor
            for p in group["params"]:
                state = self.state[p]
                state["step"] = self._step0()
                state["sum"] = T.full_like(p, group["initial_accumulator_value"])

    def _update_t(self, param, grad, group, state):
        lr, wd, eps = _scalar(group["lr"]), group["weight_decay"], group["eps"]
        step_t, state_sum = state["step"], state["sum"]
        step_t += 1
        step = step_t.item()
        grad = grad if not group["maximize"] else -grad
        if wd != 0:
            grad = _add(grad, param, wd)
        clr = lr / (1 + (step - 1) * group["lr_decay"])
        state_sum.addcmul_(grad, grad, value=1)
        std = state_sum.sqrt().add_(eps)
        param.addcdiv_(grad, std, value=-clr)


for _c, _m in ((SGD, "sgd"), (Adam, "adam"), (AdamW, "adamw"), (RMSprop, "rmsprop"),
               (Adagrad, "adagrad")):
    _c.__module__ = f"torch.optim.{_m}"
    _c.__qualname__ = _c.__name__
del _c, _m
__all__ += ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad"]

# torch's optimizers each define step: print(opt.step) is <bound method SGD.step of SGD (...)>
for _c in (Adadelta, Adamax, NAdam, RAdam, ASGD, Rprop, SGD, Adam, RMSprop, Adagrad):
    _c.step = own_copy(_TensorStep.step, f"{_c.__name__}.step")
del _c
