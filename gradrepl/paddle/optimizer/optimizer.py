"""The Optimizer base: parameter groups, learning rate, regularization, step / clear_grad."""
from __future__ import annotations

import weakref

import numpy as np

from ...engine import grad_mode
from ...engine.tensor import Tensor as _T
from ..core import PaddleClass as _PaddleClass
from ..core import Tensor
from . import lr as _lr
from .. import profiles as _profiles

_F32 = np.dtype(np.float32)



# optimizers whose update kernel has no complex dtype: class -> (kernel, the dtypes Paddle lists)
# (measured on real 3.3.1 and 2.6.2: the same lists)
_COMPLEX_REFUSED = {"SGD": ("sgd", "float64, float32, bfloat16"), "Adam": ("adam", "float64, float32")}

class L2Decay(metaclass=_PaddleClass):
    """Adds ``coeff * param`` to the gradient before the update."""

    _paddle_path = "paddle.regularizer.L2Decay"

    def __init__(self, coeff=0.0):
        self._coeff = float(coeff)

    def __call__(self, param, grad):
        term = param * np.asarray(self._coeff, param.dtype)
        return grad + term

    def __str__(self):
        return f"L2Decay, coeff={self._coeff:f}"


class L1Decay(metaclass=_PaddleClass):
    """Adds ``coeff * sign(param)`` to the gradient before the update."""

    _paddle_path = "paddle.regularizer.L1Decay"

    def __init__(self, coeff=0.0):
        self._coeff = float(coeff)

    def __call__(self, param, grad):
        term = np.sign(param).astype(param.dtype) * np.asarray(self._coeff, param.dtype)
        return grad + term

    def __str__(self):
        return f"L1Decay, coeff={self._coeff:f}"


def _lr_dtype(params):
    """The dtype of the optimizer's learning-rate tensor: Paddle's optimizer takes its ``_dtype``
    from the first parameter (of the first group), so a float64 model's rate is the double 0.3,
    not float32's 0.30000001 widened (measured: SGD, Momentum, Adam with lr=0.3 on one float64
    parameter give 0.7 / 0.7 / 0.700000003 in real 3.3.1 and 2.6.2; a float32 parameter first
    makes every parameter's rate float32's). Half-precision parameters keep float32's rate."""
    first = params[0].data.dtype if params and hasattr(params[0], "data") else None
    return np.dtype(np.float64) if first == np.float64 else _F32


def _as_regularizer(weight_decay):
    if weight_decay is None:
        return None
    if isinstance(weight_decay, (int, float)) and not isinstance(weight_decay, bool):
        return L2Decay(float(weight_decay))
    return weight_decay


class Optimizer(metaclass=_PaddleClass):
    """Holds the parameters (or parameter groups) and the learning rate; ``step()`` updates
    every parameter that has a gradient with ``_update`` (the subclass's kernel)."""

    _accumulator_names: tuple = ()

    def __init__(self, learning_rate=0.001, parameters=None, weight_decay=None, grad_clip=None,
                 name=None):
        from ..static.program import MODE as _static_mode

        if parameters is None and not _static_mode["static"]:  # (static: minimize's program's)
            raise AttributeError(
                "parameters argument given to the Optimizer should not be None in dygraph mode.")
        if isinstance(parameters, _T):
            raise TypeError(
                "`parameters` argument given to the optimizer should be an iterable of paddle "
                f"Tensors, but got argument type is `{type(parameters)}`.")
        if isinstance(parameters, dict):
            raise TypeError(
                "`parameters` argument should not get dict type, if parameter groups is needed, "
                "please set `parameters` as list of dict")
        from .lr import LRScheduler

        # real 3.3.1 and 2.6.2 take a float or a scheduler only: learning_rate=1 (an int, a
        # bool) raises in every optimizer's constructor (LBFGS passes its own 1.0)
        if not isinstance(learning_rate, (float, LRScheduler)):
            raise TypeError(
                f"learning rate should be float or LRScheduler, got {type(learning_rate)} here")
        self._parameter_list = list(parameters) if parameters is not None else []
        self._learning_rate = learning_rate
        self.regularization = _as_regularizer(weight_decay)
        self._grad_clip = grad_clip
        self._name = name
        self._default_dict = {"weight_decay": self.regularization, "grad_clip": grad_clip}
        self._accumulators = {}  # name -> {param id: ndarray}
        self._owned = {}  # param id -> weakref to the data array this optimizer made
        self._accumulator_keys = {}  # (name, param id) -> state_dict key
        self._accumulators_holder = {}  # set_state_dict's values for accumulators not made yet
        if self._parameter_list and isinstance(self._parameter_list[0], dict):
            self._param_groups = []
            for group in self._parameter_list:
                self._add_param_group(dict(group))
        else:
            self._param_groups = self._parameter_list
        self._lr_dtype = _lr_dtype(self._all_params())

    # ------------------------------------------------------------------ groups
    def _add_param_group(self, group):
        params = group["params"]
        if isinstance(params, _T):
            group["params"] = [params]
        else:
            group["params"] = list(params)
        for k, v in self._default_dict.items():
            group.setdefault(k, v)
        if "weight_decay" in group:
            group["weight_decay"] = _as_regularizer(group["weight_decay"])
        lr_scale = group.get("learning_rate", 1.0)
        for p in group["params"]:
            if hasattr(p, "optimize_attr"):
                p.optimize_attr["learning_rate"] = lr_scale
        self._param_groups.append(group)

    def _all_params(self):
        if self._param_groups and isinstance(self._param_groups[0], dict):
            return [p for g in self._param_groups for p in g["params"]]
        return list(self._param_groups)

    # ------------------------------------------------------------------ learning rate
    def get_lr(self):
        if isinstance(self._learning_rate, _lr.LRScheduler):
            return self._learning_rate()
        return float(self._learning_rate)

    def set_lr(self, value):
        from .lr import LRScheduler

        if not isinstance(value, (int, float)):
            raise TypeError(
                "The type of 'value' in optimizer.set_lr must be float, but received "
                f"{type(value)}.")
        if isinstance(self._learning_rate, LRScheduler):
            raise RuntimeError(
                "optimizer's learning rate can't be LRScheduler when invoke this API, because "
                "this will lead to conflict.")
        self._learning_rate = float(value)

    def set_lr_scheduler(self, scheduler):
        from .lr import LRScheduler

        if not isinstance(scheduler, LRScheduler):
            raise TypeError(
                "The type of 'scheduler' in optimizer.set_lr_scheduler must be LRScheduler, but "
                f"received {type(scheduler)}.")
        self._learning_rate = scheduler

    def _param_lr(self, param):
        """The learning rate for ``param`` in its dtype: global lr (float32) times the
        parameter's own ``learning_rate`` factor when that is not 1."""
        dt = param.data.dtype
        lr = self._lr_dtype.type(self.get_lr())
        if dt != self._lr_dtype:
            lr = np.asarray(lr).astype(dt)
        scale = getattr(param, "optimize_attr", None) or {}
        factor = scale.get("learning_rate", 1.0)
        if factor != 1.0:
            lr = (lr * np.asarray(factor, dt)).astype(dt)
        return lr

    # ------------------------------------------------------------------ accumulators
    def _acc(self, name, param, fill=0.0, shape=None):
        """The accumulator ``name`` of ``param`` (created on first use, Paddle's naming)."""
        store = self._accumulators.setdefault(name, {})
        key = id(param)
        if key not in store:
            shp = param.data.shape if shape is None else shape
            dt = param.data.dtype
            # zeros come from calloc: pages are zeroed when first written, by the update itself
            store[key] = np.zeros(shp, dt) if fill == 0 else np.full(shp, fill, dt)
            var_name = self._accumulator_keys[(name, key)] = f"{param.name}_{name}_0"
            if self._accumulators_holder:
                # Paddle's _add_accumulator: a loaded state dict must hold every accumulator made
                if var_name not in self._accumulators_holder:
                    raise AssertionError(f"Optimizer set error, {var_name} should in state dict")
                value = self._accumulators_holder.pop(var_name)
                value = value.data if isinstance(value, _T) else np.asarray(value)
                store[key] = np.array(value, dtype=dt).reshape(store[key].shape)
        return store[key]

    def _set_acc(self, name, param, value):
        self._accumulators[name][id(param)] = value

    def _owned_data(self, param):
        """``param.data`` if this optimizer made that array (so an in-place update touches
        nothing else: no array the user passed in, no view of another tensor), else a fresh
        C-contiguous copy that it owns from now on. Paddle's kernels also update in place, so a
        ``detach()`` of the parameter sees the update there as here."""
        data = param.data
        owned = self._owned.get(id(param))
        if owned is not None and owned() is data and data.flags.writeable:
            return data
        copy = np.array(data, order="C")
        self._owned[id(param)] = weakref.ref(copy)
        return copy

    # ------------------------------------------------------------------ stepping
    def _params_grads(self, params):
        out = []
        for p in params:
            if p.stop_gradient or p.grad is None:
                continue
            out.append((p, p.grad))
        return out

    def step(self):
        """Update every parameter that has a gradient (inside no_grad, in place)."""
        with grad_mode.no_grad():
            if self._param_groups and isinstance(self._param_groups[0], dict):
                for group in self._param_groups:
                    self._apply(self._params_grads(group["params"]), group)
            else:
                self._apply(self._params_grads(self._param_groups), None)

    def _apply(self, params_grads, group):
        clip = group.get("grad_clip", self._grad_clip) if group else self._grad_clip
        if clip is not None:
            params_grads = clip(params_grads)
        reg = group.get("weight_decay", self.regularization) if group else self.regularization
        refused = _COMPLEX_REFUSED.get(type(self).__name__)
        for p, g in params_grads:
            if refused is not None and p.data.dtype.kind == "c":   # (no complex kernel)
                from ..complex_kernels import not_found

                raise not_found(refused[0], p.data.dtype.name, refused[1])
            grad = self._regularized(p, g.data, reg)
            new = self._update(p, grad, group or {})
            if (type(new) is not np.ndarray or new.dtype != p.data.dtype
                    or new.shape != p.data.shape):
                new = np.asarray(new, dtype=p.data.dtype).reshape(p.data.shape)
            p.data = new

    def _decays(self, param, group):
        """True when a weight decay is added to ``param``'s gradient before the update (its own
        regularizer, else the group's or the optimizer's)."""
        if getattr(param, "regularizer", None) is not None:
            return self._uses_regularization()
        reg = group.get("weight_decay", self.regularization) if group else self.regularization
        return reg is not None and self._uses_regularization()

    def _regularized(self, param, grad, reg):
        """The gradient after weight decay (the parameter's own regularizer wins)."""
        own = getattr(param, "regularizer", None)
        reg = own if own is not None else reg
        if reg is None or not self._uses_regularization():
            return grad
        return reg(param.data, grad)

    def _uses_regularization(self):
        return True

    def _update(self, param, grad, group):  # pragma: no cover - abstract
        raise NotImplementedError

    def backward(self, loss, startup_program=None, parameters=None, no_grad_set=None,
                 callbacks=None):
        """Run ``loss.backward()``; the (param, grad) pairs of the parameters that got one."""
        loss.backward()
        params = parameters if parameters is not None else self._all_params()
        return self._params_grads(params)

    def apply_gradients(self, params_grads):
        """Update the parameters from (param, grad) pairs (clipping and decay included)."""
        with grad_mode.no_grad():
            self._apply(list(params_grads), None)
        return []

    def clear_grad(self, set_to_zero=True):
        """Zero (default) or drop the gradient of every parameter."""
        for p in self._all_params():
            if not p.stop_gradient:
                p.clear_gradient(set_to_zero)

    def zero_grad(self, set_to_none=True):
        self.clear_grad(set_to_zero=not set_to_none)

    clear_gradients = clear_grad

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        """Apply the gradients already computed by ``loss.backward()`` (dygraph: no backward
        is run here). Returns (optimize_ops, params_grads). A static-mode loss (a Value) gets
        a ``minimize`` op recorded into its Program (``static/train.py``)."""
        from ..static.program import Value

        if isinstance(loss, Value):
            from ..static.train import record_minimize

            return record_minimize(self, loss, parameters, no_grad_set)
        params = self._all_params() if parameters is None else list(parameters)
        if no_grad_set:
            skip = {id(p) for p in no_grad_set}
            params = [p for p in params if id(p) not in skip]
        pg = self._params_grads(params)
        with grad_mode.no_grad():
            self._apply(pg, None)
        return [], pg

    # ------------------------------------------------------------------ state
    def state_dict(self):
        from .lr import LRScheduler

        out = {}  # (a plain dict in Paddle 2.6 and 3.x, measured)
        if not self._accumulators and self._accumulators_holder and \
                _profiles.current().opt_state_holder:
            out.update(self._accumulators_holder)
        for name, store in self._accumulators.items():
            for pid, arr in store.items():
                out[self._accumulator_keys[(name, pid)]] = Tensor(np.array(arr))
        if isinstance(self._learning_rate, LRScheduler):
            out["LR_Scheduler"] = self._learning_rate.state_dict()
        return out

    def set_state_dict(self, state_dict):
        from .lr import LRScheduler

        if isinstance(self._learning_rate, LRScheduler) and "LR_Scheduler" in state_dict:
            self._learning_rate.set_state_dict(state_dict["LR_Scheduler"])
        by_key = {v: k for k, v in self._accumulator_keys.items()}
        # (Paddle keeps the dict: accumulators made later, at the first step, take their values)
        self._accumulators_holder = {k: v for k, v in state_dict.items()
                                     if k not in ("LR_Scheduler", "master_weights")}
        for key in by_key:
            if key not in state_dict:
                raise AssertionError(f"optimizer Tensor {key} not found")
        for key, value in state_dict.items():
            if key in by_key:
                name, pid = by_key[key]
                arr = value.data if isinstance(value, _T) else np.asarray(value)
                self._accumulators[name][pid] = np.array(arr)

    set_dict = set_state_dict
    load_state_dict = set_state_dict
