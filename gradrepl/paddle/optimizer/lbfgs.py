"""L-BFGS (``paddle.optimizer.LBFGS``), as Paddle writes it in Python over its API: two-loop
recursion on the flattened gradient, optional strong-Wolfe line search (cubic interpolation),
``step(closure)`` re-evaluating the loss."""
from __future__ import annotations

from collections import defaultdict
from functools import reduce

from ..._line_search import cubic_interpolate, strong_wolfe

from .optimizer import Optimizer


def _paddle():
    from ... import paddle as _p

    return _p


def dot(x, y):
    return (x * y).sum(axis=-1)


_cubic_interpolate = cubic_interpolate


def _tensor_dot():
    """Paddle 2.x's LBFGS takes ``Tensor.dot`` (the profile's ``lbfgs_dot``), 3.x ``dot``."""
    from .. import profiles

    return profiles.current().lbfgs_dot == "tensor_dot"


def _dot(x, y):
    return x.dot(y) if _tensor_dot() else dot(x, y)


def _strong_wolfe(obj_func, xk, alpha, d, loss, grad, gtd, **kwargs):
    """The shared line search with this version's dot, abs and first step."""
    if _tensor_dot():
        paddle = _paddle()
        kwargs.update(abs=paddle.abs, t0=paddle.to_tensor(0, dtype=grad.dtype))
    return strong_wolfe(obj_func, xk, alpha, d, loss, grad, gtd, dot=_dot, **kwargs)


class LBFGS(Optimizer):
    def __init__(self, learning_rate=1.0, max_iter=20, max_eval=None, tolerance_grad=1e-07,
                 tolerance_change=1e-09, history_size=100, line_search_fn=None, parameters=None,
                 weight_decay=None, grad_clip=None, name=None):
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        self.learning_rate, self.max_iter, self.max_eval = learning_rate, max_iter, max_eval
        self.tolerance_grad, self.tolerance_change = tolerance_grad, tolerance_change
        self.history_size, self.line_search_fn = history_size, line_search_fn
        self.state = defaultdict(dict)
        super().__init__(1.0, parameters, weight_decay, grad_clip, name)
        params = list(parameters)
        if params and isinstance(params[0], dict):
            params = list(params[-1]["params"])
        self._params = params
        self._numel_cache = None

    def state_dict(self):
        return {"state": dict(self.state)}

    def _numel(self):
        if self._numel_cache is None:
            self._numel_cache = reduce(lambda total, p: total + p.size, self._params, 0)
        return self._numel_cache

    def _gather_flat_grad(self):
        paddle = _paddle()
        views = [paddle.zeros_like(p).reshape([-1]) if p.grad is None else p.grad.reshape([-1])
                 for p in self._params]
        return paddle.concat(views, axis=0)

    def _add_grad(self, alpha, direction):
        paddle = _paddle()
        offset = 0
        for p in self._params:
            numel = p.size
            paddle.assign(p.add(direction[offset:offset + numel].reshape(p.shape) * alpha), p)
            offset += numel

    def _clone_param(self):
        return [p.clone() for p in self._params]

    def _set_param(self, params_data):
        paddle = _paddle()
        for p, pdata in zip(self._params, params_data):
            paddle.assign(pdata, p)

    def _directional_evaluate(self, closure, x, alpha, d):
        self._add_grad(alpha, d)
        loss = float(closure())
        flat_grad = self._gather_flat_grad()
        self._set_param(x)
        return loss, flat_grad

    def step(self, closure):
        paddle = _paddle()
        with paddle.no_grad():
            closure = paddle.enable_grad()(closure)
            lr, state = self.learning_rate, self.state
            state.setdefault("func_evals", 0)
            state.setdefault("n_iter", 0)
            orig_loss = closure()
            loss = float(orig_loss)
            current_evals = 1
            state["func_evals"] += 1
            flat_grad = self._gather_flat_grad()
            if flat_grad.abs().max() <= self.tolerance_grad:
                return orig_loss
            d, alpha = state.get("d"), state.get("alpha")
            old_yk, old_sk, ro = state.get("old_yk"), state.get("old_sk"), state.get("ro")
            H_diag = state.get("H_diag")
            prev_flat_grad, prev_loss = state.get("prev_flat_grad"), state.get("prev_loss")
            n_iter = 0
            while n_iter < self.max_iter:
                n_iter += 1
                state["n_iter"] += 1
                if state["n_iter"] == 1:
                    d = flat_grad.neg()
                    old_yk, old_sk, ro = [], [], []
                    H_diag = paddle.to_tensor(1.0, dtype=orig_loss.dtype)
                else:
                    y = flat_grad.subtract(prev_flat_grad)
                    s = d.multiply(paddle.to_tensor(alpha, dtype=d.dtype))
                    ys = _dot(y, s)
                    if ys > 1e-10:
                        if len(old_yk) == self.history_size:
                            old_yk.pop(0)
                            old_sk.pop(0)
                            ro.pop(0)
                        old_yk.append(y)
                        old_sk.append(s)
                        ro.append(1.0 / ys)
                        H_diag = ys / _dot(y, y)
                    num_old = len(old_yk)
                    if "al" not in state:
                        state["al"] = [None] * self.history_size
                    al = state["al"]
                    q = flat_grad.neg()
                    for i in range(num_old - 1, -1, -1):
                        al[i] = _dot(old_sk[i], q) * ro[i]
                        paddle.assign(q.add(old_yk[i] * (-al[i])), q)
                    d = r = paddle.multiply(q, H_diag)
                    for i in range(num_old):
                        be_i = _dot(old_yk[i], r) * ro[i]
                        paddle.assign(r.add(old_sk[i] * (al[i] - be_i)), r)
                if prev_flat_grad is None:
                    prev_flat_grad = flat_grad.clone()
                else:
                    paddle.assign(flat_grad, prev_flat_grad)
                prev_loss = loss
                if state["n_iter"] == 1:
                    alpha = min(1.0, 1.0 / flat_grad.abs().sum()) * lr
                else:
                    alpha = lr
                gtd = _dot(flat_grad, d)
                if gtd > -self.tolerance_change:
                    break
                ls_func_evals = 0
                if self.line_search_fn is not None:
                    if self.line_search_fn != "strong_wolfe":
                        raise RuntimeError("only 'strong_wolfe' is supported")
                    x_init = self._clone_param()

                    def obj_func(x, alpha, d):
                        return self._directional_evaluate(closure, x, alpha, d)
                    loss, flat_grad, alpha, ls_func_evals = _strong_wolfe(
                        obj_func, x_init, alpha, d, loss, flat_grad, gtd)
                    self._add_grad(alpha, d)
                    opt_cond = flat_grad.abs().max() <= self.tolerance_grad
                else:
                    self._add_grad(alpha, d)
                    opt_cond = False
                    if n_iter != self.max_iter:
                        with paddle.enable_grad():
                            loss = float(closure())
                        flat_grad = self._gather_flat_grad()
                        opt_cond = flat_grad.abs().max() <= self.tolerance_grad
                        ls_func_evals = 1
                current_evals += ls_func_evals
                state["func_evals"] += ls_func_evals
                if opt_cond:
                    break
                if (d * alpha).abs().max() <= self.tolerance_change:
                    break
                if abs(loss - prev_loss) < self.tolerance_change:
                    break
                if current_evals >= self.max_eval:
                    break
                if n_iter == self.max_iter:
                    break
            state.update(d=d, alpha=alpha, old_yk=old_yk, old_sk=old_sk, ro=ro, H_diag=H_diag,
                         prev_flat_grad=prev_flat_grad, prev_loss=prev_loss)
        return orig_loss

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        raise NotImplementedError("LBFGS optimizer does not use this way to minimize loss. "
                                  "Please refer 'Examples' of LBFGS() for usage.")
