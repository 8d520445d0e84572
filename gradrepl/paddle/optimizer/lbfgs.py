"""L-BFGS (``paddle.optimizer.LBFGS``), as Paddle writes it in Python over its API: two-loop
recursion on the flattened gradient, optional strong-Wolfe line search (cubic interpolation),
``step(closure)`` re-evaluating the loss."""
from __future__ import annotations

from collections import defaultdict
from functools import reduce

from .optimizer import Optimizer


def _paddle():
    from ... import paddle as _p

    return _p


def dot(x, y):
    return (x * y).sum(axis=-1)


def _cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds=None):
    if bounds is not None:
        xmin_bound, xmax_bound = bounds
    else:
        xmin_bound, xmax_bound = (x1, x2) if x1 <= x2 else (x2, x1)
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 ** 2 - g1 * g2
    if d2_square >= 0:
        d2 = d2_square.sqrt()
        if x1 <= x2:
            min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return min(max(min_pos, xmin_bound), xmax_bound)
    return (xmin_bound + xmax_bound) / 2.0


def _strong_wolfe(obj_func, xk, alpha, d, loss, grad, gtd, c1=0.0001, c2=0.9,
                  tolerance_change=1e-09, max_ls=25):
    d_norm = d.abs().max()
    grad = grad.clone()
    loss_new, grad_new = obj_func(xk, alpha, d)
    ls_func_evals = 1
    gtd_new = dot(grad_new, d)
    t_prev, f_prev, g_prev, gtd_prev = (0, loss, grad, gtd)
    done = False
    ls_iter = 0
    while ls_iter < max_ls:
        if loss_new > (loss + c1 * alpha * gtd) or (ls_iter > 1 and loss_new >= f_prev):
            bracket, bracket_f = [t_prev, alpha], [f_prev, loss_new]
            bracket_g, bracket_gtd = [g_prev, grad_new.clone()], [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, bracket_f, bracket_g = [alpha], [loss_new], [grad_new]
            done = True
            break
        if gtd_new >= 0:
            bracket, bracket_f = [t_prev, alpha], [f_prev, loss_new]
            bracket_g, bracket_gtd = [g_prev, grad_new.clone()], [gtd_prev, gtd_new]
            break
        min_step = alpha + 0.01 * (alpha - t_prev)
        max_step = alpha * 10
        tmp = alpha
        alpha = _cubic_interpolate(t_prev, f_prev, gtd_prev, alpha, loss_new, gtd_new,
                                   bounds=(min_step, max_step))
        t_prev, f_prev, g_prev, gtd_prev = tmp, loss_new, grad_new.clone(), gtd_new
        loss_new, grad_new = obj_func(xk, alpha, d)
        ls_func_evals += 1
        gtd_new = dot(grad_new, d)
        ls_iter += 1
    if ls_iter == max_ls:
        bracket, bracket_f, bracket_g = [0, alpha], [loss, loss_new], [grad, grad_new]
    insuf_progress = False
    low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        alpha = _cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0], bracket[1],
                                   bracket_f[1], bracket_gtd[1])
        eps = 0.1 * (max(bracket) - min(bracket))
        if min(max(bracket) - alpha, alpha - min(bracket)) < eps:
            if insuf_progress or alpha >= max(bracket) or alpha <= min(bracket):
                if abs(alpha - max(bracket)) < abs(alpha - min(bracket)):
                    alpha = max(bracket) - eps
                else:
                    alpha = min(bracket) + eps
                insuf_progress = False
            else:
                insuf_progress = True
        else:
            insuf_progress = False
        loss_new, grad_new = obj_func(xk, alpha, d)
        ls_func_evals += 1
        gtd_new = dot(grad_new, d)
        ls_iter += 1
        if loss_new > (loss + c1 * alpha * gtd) or loss_new >= bracket_f[low_pos]:
            bracket[high_pos], bracket_f[high_pos] = alpha, loss_new
            bracket_g[high_pos], bracket_gtd[high_pos] = grad_new.clone(), gtd_new
            low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high_pos] - bracket[low_pos]) >= 0:
                bracket[high_pos] = bracket[low_pos]
                bracket_f[high_pos] = bracket_f[low_pos]
                bracket_g[high_pos] = bracket_g[low_pos]
                bracket_gtd[high_pos] = bracket_gtd[low_pos]
            bracket[low_pos], bracket_f[low_pos] = alpha, loss_new
            bracket_g[low_pos], bracket_gtd[low_pos] = grad_new.clone(), gtd_new
    return bracket_f[low_pos], bracket_g[low_pos], bracket[low_pos], ls_func_evals


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
                    ys = dot(y, s)
                    if ys > 1e-10:
                        if len(old_yk) == self.history_size:
                            old_yk.pop(0)
                            old_sk.pop(0)
                            ro.pop(0)
                        old_yk.append(y)
                        old_sk.append(s)
                        ro.append(1.0 / ys)
                        H_diag = ys / dot(y, y)
                    num_old = len(old_yk)
                    if "al" not in state:
                        state["al"] = [None] * self.history_size
                    al = state["al"]
                    q = flat_grad.neg()
                    for i in range(num_old - 1, -1, -1):
                        al[i] = dot(old_sk[i], q) * ro[i]
                        paddle.assign(q.add(old_yk[i] * (-al[i])), q)
                    d = r = paddle.multiply(q, H_diag)
                    for i in range(num_old):
                        be_i = dot(old_yk[i], r) * ro[i]
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
                gtd = dot(flat_grad, d)
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
