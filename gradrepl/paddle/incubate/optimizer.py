"""``paddle.incubate.optimizer``: the LookAhead and ModelAverage wrappers of Paddle's dygraph.

LookAhead keeps a slow copy of each parameter: after the inner optimizer's step it counts the
step and, every k-th step, moves the slow copy ``alpha`` of the way to the fast weights and
puts the fast weights there. Paddle writes this with tensor ops on 0/1 condition tensors
(``cond * a + (1 - cond) * b``); they are written the same way here, so the bits are the
ones those ops give (signed zeros included).

ModelAverage accumulates each parameter's values (Paddle's ``average_accumulates`` kernel: three
sums and counts, the oldest window dropped when it grows past the window rate times the
updates, clamped by min/max) and ``apply()`` swaps in their average. Its kernel, written
here in numpy float arithmetic, matched real 3.3.1 and 2.6.2 on all of 113 steps of five window
settings (sums, counts and averages, bit for bit).
"""
from __future__ import annotations

import contextlib

import numpy as np

from ...engine import grad_mode
from ..core import Tensor
from ..optimizer.optimizer import Optimizer

__all__ = ["LookAhead", "ModelAverage"]

# real Paddle's other public names here (3.3.1 and 2.6.2 alike): not emulated
_PADDLE_NAMES = frozenset((
    "DistributedFusedLamb", "GradientMergeOptimizer", "LBFGS", "LarsMomentumOptimizer",
    "PipelineOptimizer", "RecomputeOptimizer", "distributed_fused_lamb", "functional",
    "gradient_merge", "lars_momentum", "lbfgs", "line_search_dygraph", "lookahead",
    "modelaverage", "pipeline", "recompute"))

# average_accumulates moves sum_1 into sum_2 every this many updates (precision)
_MAX_NUM_ACCUMULATES = 16384


def _assign(param, value):
    """``paddle.assign(value, param)``: param's storage takes the values, in param's dtype."""
    param.data = np.array(value.data if isinstance(value, Tensor) else value,
                          dtype=param.data.dtype).reshape(param.data.shape)


class LookAhead(Optimizer):
    _paddle_path = "paddle.incubate.optimizer.lookahead.LookAhead"

    def __init__(self, inner_optimizer, alpha=0.5, k=5, name=None):
        assert inner_optimizer is not None, "inner optimizer can not be None"
        assert 0.0 <= alpha <= 1.0, \
            "alpha should be larger or equal to 0.0, and less or equal than 1.0"
        assert isinstance(k, int) and k > 0, "k should be a positive integer"
        self.inner_optimizer = inner_optimizer
        super().__init__(learning_rate=alpha, parameters=inner_optimizer._parameter_list,
                         weight_decay=None, grad_clip=None, name=name)
        self.alpha = alpha
        self.k = k
        self.type = "lookahead"
        self._global_step = 0

    def step(self):
        self.inner_optimizer.step()
        self._global_step += 1
        with grad_mode.no_grad():
            for p, _ in self._params_grads(self._all_params()):
                self._lookahead(p)

    def _lookahead(self, param):
        import gradrepl.paddle as paddle

        step = self._global_step
        cond_1 = paddle.full([1], 1.0 if step == 1 else 0.0, dtype="float32")
        cond_2 = paddle.full([1], 1.0 if step % self.k == 0 else 0.0, dtype="float32")
        slow = Tensor(self._acc("slow", param))
        slow = cond_1 * param + (1 - cond_1) * slow
        tmp = self.alpha * param + (1.0 - self.alpha) * slow
        fast = cond_2 * tmp + (1 - cond_2) * param
        slow = cond_2 * tmp + (1 - cond_2) * slow
        _assign(param, fast)
        self._set_acc("slow", param, np.array(slow.data, dtype=param.data.dtype))

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        _, params_grads = self.inner_optimizer.minimize(loss, startup_program, parameters,
                                                         no_grad_set)
        self._global_step += 1
        with grad_mode.no_grad():
            for p, _ in params_grads:
                self._lookahead(p)
        return [], params_grads


class ModelAverage(Optimizer):
    _paddle_path = "paddle.incubate.optimizer.modelaverage.ModelAverage"
    _COUNTERS = ("num_accumulates", "old_num_accumulates", "num_updates")

    def __init__(self, average_window_rate, parameters=None, min_average_window=10000,
                 max_average_window=10000, name=None):
        super().__init__(learning_rate=0.0, parameters=parameters, weight_decay=None,
                         grad_clip=None, name=name)
        self.average_window = average_window_rate
        self.min_average_window = min_average_window
        self.max_average_window = max_average_window
        self.type = "average_accumulates"

    def _acc(self, name, param, fill=0.0, shape=None):
        arr = super()._acc(name, param, fill, [1] if name in self._COUNTERS else shape)
        if name in self._COUNTERS and arr.dtype != np.int64:
            arr = arr.astype(np.int64)
            self._set_acc(name, param, arr)
        return arr

    def _get(self, name, param):
        store = self._accumulators.get(name, {})
        if id(param) not in store:
            raise Exception(f"Accumulator {name} does not exist for parameter {param.name}")
        return store[id(param)]

    def _create_accumulators(self):
        for p in self._all_params():
            for name in ("sum_1", "sum_2", "sum_3", "restore") + self._COUNTERS:
                self._acc(name, p)

    def step(self):
        params_grads = self._params_grads(self._all_params())
        self._create_accumulators()
        for p, _ in params_grads:
            self._average_accumulates(p)

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        self.step()

    def _average_accumulates(self, param):
        """Paddle's average_accumulates kernel, in place on the accumulators."""
        sum_1, sum_2, sum_3 = (self._acc(n, param) for n in ("sum_1", "sum_2", "sum_3"))
        num_acc, old_acc, num_upd = (self._acc(n, param) for n in self._COUNTERS)
        num_upd[0] += 1
        num_acc[0] += 1
        np.add(sum_1, np.asarray(param.data, dtype=sum_1.dtype), out=sum_1)
        if num_upd[0] % _MAX_NUM_ACCUMULATES == 0:
            np.add(sum_2, sum_1, out=sum_2)
            sum_1[...] = 0
        # std::min<int64_t>(max_window, num_updates * rate): the product truncated to int64
        window = min(int(self.max_average_window), int(int(num_upd[0]) * self.average_window))
        if num_acc[0] >= self.min_average_window and num_acc[0] >= window:
            np.add(sum_1, sum_2, out=sum_3)
            sum_1[...] = 0
            sum_2[...] = 0
            old_acc[0] = num_acc[0]
            num_acc[0] = 0

    @contextlib.contextmanager
    def apply(self, executor=None, need_restore=True):
        import gradrepl.paddle as paddle

        with grad_mode.no_grad():
            for p in self._all_params():
                num_acc, old_acc = self._get("num_accumulates", p), \
                    self._get("old_num_accumulates", p)
                sums = [Tensor(self._get(n, p)) for n in ("sum_1", "sum_2", "sum_3")]
                self._set_acc("restore", p, np.array(p.data, order="C"))
                total = sums[0] + sums[1] + sums[2]
                count = Tensor(num_acc) + Tensor(old_acc)
                average = paddle.cast(total, "float32") / paddle.cast(count, "float32")
                _assign(p, average)
        try:
            yield
        finally:
            if need_restore:
                self.restore()

    def restore(self, executor=None):
        for p in self._all_params():
            _assign(p, self._get("restore", p))


def __getattr__(name):
    if name in _PADDLE_NAMES:
        raise AttributeError(f"module 'paddle.incubate.optimizer' has no attribute '{name}' "
                             f"(gradrepl's paddle does not emulate "
                             f"paddle.incubate.optimizer.{name})")
    raise AttributeError(f"module 'paddle.incubate.optimizer' has no attribute '{name}'")
