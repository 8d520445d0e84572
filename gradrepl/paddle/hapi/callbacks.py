"""``paddle.callbacks``: the hooks ``paddle.Model.fit/evaluate/predict`` call, and the
progress bar Paddle's hapi prints (``step  5/13 [====>...] - loss: 2.4348 - 3ms/step``)."""
from __future__ import annotations

import numbers
import os
import sys
import time
import warnings

import numpy as np

from ..core import PaddleClass as _PaddleClass

__all__ = ["Callback", "ProgBarLogger", "ModelCheckpoint", "VisualDL", "LRScheduler",
           "EarlyStopping", "ReduceLROnPlateau", "WandbCallback"]


def _fmt_value(v):
    """One logged number as the progress bar writes it (4 decimals, or 4-digit exponent)."""
    if isinstance(v, np.ndarray) and v.size == 1 and v.dtype in (np.float32, np.float64):
        v = v.item()
    if isinstance(v, (float, np.float32, np.float64)):
        return f" {v:.4f}" if abs(v) > 1e-3 else f" {v:.4e}"
    return f" {v}"


def _fmt_speed(per_unit, name):
    if per_unit >= 1 or per_unit == 0:
        return f" - {per_unit:.0f}s/{name}"
    if per_unit >= 1e-3:
        return f" - {per_unit * 1e3:.0f}ms/{name}"
    return f" - {per_unit * 1e6:.0f}us/{name}"


def _fmt_eta(eta):
    if eta > 3600:
        return f"{eta // 3600}:{(eta % 3600) // 60:02}:{eta % 60:02}"
    if eta > 60:
        return f"{eta // 60}:{eta % 60:02}"
    return f"{eta}s"


class ProgressBar:
    """A line per update (verbose 2) or one redrawn bar (verbose 1, backspaces and ``\\r``)."""

    def __init__(self, num=None, width=30, verbose=1, start=True, name="step"):
        if isinstance(num, int) and num <= 0:
            raise TypeError("num should be None or integer (> 0)")
        import shutil

        cols = shutil.get_terminal_size()[0] or 80
        self._num = num
        self._width = min(width, min(int(cols * 0.6), cols - 50))
        self._total_width = 0
        self._verbose = verbose
        self._start = time.time()
        self.name = name

    def _count(self, current):
        if not self._num:
            return f"{self.name} {current:3}"
        digits = int(np.log10(self._num)) + 1
        return f"{self.name} {current:{digits}d}/{self._num}"

    def _bar(self, current):
        filled = int(self._width * float(current) / self._num)
        bar = ""
        if filled > 0:
            bar = "=" * (filled - 1) + (">" if current < self._num else "=")
        return self._count(current) + " [" + bar + "." * (self._width - filled) + "]"

    def update(self, current_num, values=()):
        per_unit = (time.time() - self._start) / current_num if current_num else 0
        out = sys.stdout
        info = "".join(f" - {k}:" + "".join(_fmt_value(v) for v in
                                            (val if isinstance(val, list) else [val]))
                       for k, val in values)
        if self._verbose == 1:
            prev = self._total_width
            out.write("\b" * prev + "\r")
            head = self._bar(current_num) if self._num is not None else self._count(current_num)
            out.write(head)
            if self._num is not None and current_num < self._num:
                info += f" - ETA: {_fmt_eta(int(per_unit * (self._num - current_num)))}"
            info += _fmt_speed(per_unit, self.name)
            self._total_width = len(head) + len(info)
            if prev > self._total_width:
                info += " " * (prev - self._total_width)
            if self._num is None or current_num >= self._num:
                info += "\n"
            out.write(info)
            out.flush()
        elif self._verbose in (2, 3):
            out.write(self._count(current_num) + info + _fmt_speed(per_unit, self.name) + "\n")
            out.flush()


class Callback(metaclass=_PaddleClass):
    """Base class: every hook does nothing; ``self.model`` and ``self.params`` are set by Model."""

    def __init__(self):
        self.model = None
        self.params = {}

    def set_params(self, params):
        self.params = params

    def set_model(self, model):
        self.model = model

    def on_train_begin(self, logs=None): pass
    def on_train_end(self, logs=None): pass
    def on_eval_begin(self, logs=None): pass
    def on_eval_end(self, logs=None): pass
    def on_predict_begin(self, logs=None): pass
    def on_predict_end(self, logs=None): pass
    def on_epoch_begin(self, epoch, logs=None): pass
    def on_epoch_end(self, epoch, logs=None): pass
    def on_train_batch_begin(self, step, logs=None): pass
    def on_train_batch_end(self, step, logs=None): pass
    def on_eval_batch_begin(self, step, logs=None): pass
    def on_eval_batch_end(self, step, logs=None): pass
    def on_predict_batch_begin(self, step, logs=None): pass
    def on_predict_batch_end(self, step, logs=None): pass


class CallbackList:
    """Calls a hook on every callback in order (``on_begin('train')`` -> ``on_train_begin``)."""

    def __init__(self, callbacks):
        self.callbacks = list(callbacks)

    def __iter__(self):
        return iter(self.callbacks)

    def set_params(self, params):
        for c in self.callbacks:
            c.set_params(params)

    def set_model(self, model):
        for c in self.callbacks:
            c.set_model(model)

    def _call(self, name, *args):
        for c in self.callbacks:
            getattr(c, name)(*args)

    def on_begin(self, mode, logs=None):
        self._call(f"on_{mode}_begin", logs)

    def on_end(self, mode, logs=None):
        self._call(f"on_{mode}_end", logs)

    def on_epoch_begin(self, epoch=None, logs=None):
        self._call("on_epoch_begin", epoch, logs)

    def on_epoch_end(self, epoch=None, logs=None):
        self._call("on_epoch_end", epoch, logs)

    def on_batch_begin(self, mode, step=None, logs=None):
        self._call(f"on_{mode}_batch_begin", step, logs)

    def on_batch_end(self, mode, step=None, logs=None):
        self._call(f"on_{mode}_batch_end", step, logs)


def config_callbacks(callbacks=None, model=None, batch_size=None, epochs=None, steps=None,
                     log_freq=2, verbose=2, save_freq=1, save_dir=None, metrics=None,
                     mode="train"):
    """The user's callbacks plus the defaults Paddle adds: a progress logger in front (when
    verbose), a ModelCheckpoint and an LRScheduler behind."""
    cbks = list(callbacks if isinstance(callbacks, (list, tuple)) else
                [callbacks] if callbacks else [])
    if verbose and not any(isinstance(k, ProgBarLogger) for k in cbks):
        cbks = [ProgBarLogger(log_freq, verbose=verbose)] + cbks
    if not any(isinstance(k, ModelCheckpoint) for k in cbks):
        cbks.append(ModelCheckpoint(save_freq, save_dir))
    for k in cbks:
        if isinstance(k, EarlyStopping):
            k.save_dir = save_dir
    if not any(isinstance(k, LRScheduler) for k in cbks):
        cbks.append(LRScheduler())
    lst = CallbackList(cbks)
    lst.set_model(model)
    lst.set_params({"batch_size": batch_size, "epochs": epochs, "steps": steps,
                    "verbose": verbose, "metrics": (metrics or []) if mode != "test" else []})
    return lst


class ProgBarLogger(Callback):
    """Prints the epoch header and the loss/metric progress of fit, evaluate and predict."""

    def __init__(self, log_freq=1, verbose=2):
        super().__init__()
        self.epochs = None
        self.steps = None
        self.verbose = verbose
        self.log_freq = log_freq

    def _is_print(self):
        return bool(self.verbose)

    def _updates(self, logs, mode):
        names = getattr(self, f"{mode}_metrics")
        values = [(k, logs[k]) for k in names if k in logs]
        getattr(self, f"{mode}_progbar").update(getattr(self, f"{mode}_step"), values)

    def on_train_begin(self, logs=None):
        self.epochs = self.params["epochs"]
        self.train_metrics = self.params["metrics"]
        if self._is_print():
            print("The loss value printed in the log is the current step, and the metric is "
                  "the average value of previous steps.")

    def on_epoch_begin(self, epoch=None, logs=None):
        self.steps = self.params["steps"]
        self.epoch = epoch
        self.train_step = 0
        if self.epochs and self._is_print():
            print(f"Epoch {epoch + 1}/{self.epochs}")
        self.train_progbar = ProgressBar(num=self.steps, verbose=self.verbose)

    def _batch_end(self, mode, total):
        step = getattr(self, f"{mode}_step") + 1
        setattr(self, f"{mode}_step", step)
        return self._is_print() and step % self.log_freq == 0 and (total is None or step < total)

    def on_train_batch_end(self, step, logs=None):
        if self._batch_end("train", self.steps):
            self._updates(logs or {}, "train")

    def on_epoch_end(self, epoch, logs=None):
        if self._is_print() and self.steps is not None:
            self._updates(logs or {}, "train")

    def on_eval_begin(self, logs=None):
        self.eval_steps = logs.get("steps", None)
        self.eval_metrics = logs.get("metrics", [])
        self.eval_step = 0
        self.evaled_samples = 0
        self.eval_progbar = ProgressBar(num=self.eval_steps, verbose=self.verbose)
        if self._is_print():
            print("Eval begin...")

    def on_eval_batch_end(self, step, logs=None):
        logs = logs or {}
        self.evaled_samples += logs.get("batch_size", 1)
        if self._batch_end("eval", self.eval_steps):
            self._updates(logs, "eval")

    def on_eval_end(self, logs=None):
        if self._is_print() and self.eval_steps is not None:
            self._updates(logs or {}, "eval")
            print(f"Eval samples: {self.evaled_samples}")

    def on_predict_begin(self, logs=None):
        self.test_steps = logs.get("steps", None)
        self.test_metrics = logs.get("metrics", [])
        self.test_step = 0
        self.tested_samples = 0
        self.test_progbar = ProgressBar(num=self.test_steps, verbose=self.verbose)
        if self._is_print():
            print("Predict begin...")

    def on_predict_batch_end(self, step, logs=None):
        logs = logs or {}
        self.tested_samples += logs.get("batch_size", 1)
        if self._batch_end("test", self.test_steps):
            self._updates(logs, "test")

    def on_predict_end(self, logs=None):
        if self._is_print():
            if self.test_step % self.log_freq != 0 or self.verbose == 1:
                self._updates(logs or {}, "test")
            print(f"Predict samples: {self.tested_samples}")


class ModelCheckpoint(Callback):
    """Saves ``save_dir/<epoch>`` every ``save_freq`` epochs and ``save_dir/final`` at the end."""

    def __init__(self, save_freq=1, save_dir=None):
        super().__init__()
        self.save_freq = save_freq
        self.save_dir = save_dir

    def on_epoch_begin(self, epoch=None, logs=None):
        self.epoch = epoch

    def _is_save(self):
        return self.model and self.save_dir

    def on_epoch_end(self, epoch, logs=None):
        if self._is_save() and self.epoch % self.save_freq == 0:
            path = f"{self.save_dir}/{epoch}"
            print(f"save checkpoint at {os.path.abspath(path)}")
            self.model.save(path)

    def on_train_end(self, logs=None):
        if self._is_save():
            path = f"{self.save_dir}/final"
            print(f"save checkpoint at {os.path.abspath(path)}")
            self.model.save(path)


class LRScheduler(Callback):
    """Steps the optimizer's learning-rate scheduler after each batch (or each epoch)."""

    def __init__(self, by_step=True, by_epoch=False):
        super().__init__()
        if by_step and by_epoch:
            raise ValueError("by_step option is mutually exclusive with by_epoch")
        self.by_step = by_step
        self.by_epoch = by_epoch

    def _step(self):
        from ..optimizer.lr import LRScheduler as _Sched

        opt = getattr(self.model, "_optimizer", None)
        lr = getattr(opt, "_learning_rate", None)
        if isinstance(lr, _Sched):
            lr.step()

    def on_epoch_end(self, epoch, logs=None):
        if self.by_epoch:
            self._step()

    def on_train_batch_end(self, step, logs=None):
        if self.by_step:
            self._step()


class EarlyStopping(Callback):
    """Stops fit when the monitored eval value stops improving for ``patience`` evaluations."""

    def __init__(self, monitor="loss", mode="auto", patience=0, verbose=1, min_delta=0,
                 baseline=None, save_best_model=True):
        super().__init__()
        self.monitor = monitor
        self.patience = patience
        self.verbose = verbose
        self.baseline = baseline
        self.min_delta = abs(min_delta)
        self.wait_epoch = 0
        self.best_weights = None
        self.stopped_epoch = 0
        self.save_best_model = save_best_model
        self.save_dir = None
        if mode not in ("auto", "min", "max"):
            warnings.warn(f"EarlyStopping mode {mode} is unknown, fallback to auto mode.")
            mode = "auto"
        if mode == "min" or (mode == "auto" and "acc" not in self.monitor):
            self.monitor_op = np.less
        else:
            self.monitor_op = np.greater
        if self.monitor_op == np.greater:
            self.min_delta *= 1
        else:
            self.min_delta *= -1

    def on_train_begin(self, logs=None):
        self.wait_epoch = 0
        if self.baseline is not None:
            self.best_value = self.baseline
        else:
            self.best_value = np.inf if self.monitor_op == np.less else -np.inf
            self.best_weights = None

    def on_eval_end(self, logs=None):
        if logs is None or self.monitor not in logs:
            warnings.warn("Monitor of EarlyStopping should be loss or metric name.")
            return
        current = logs[self.monitor]
        if isinstance(current, (list, tuple)):
            current = current[0]
        elif isinstance(current, numbers.Number):
            pass
        else:
            return
        if self.monitor_op(current - self.min_delta, self.best_value):
            self.best_value = current
            self.wait_epoch = 0
            if self.save_best_model and self.save_dir is not None:
                path = os.path.join(self.save_dir, "best_model")
                self.model.save(path)
        else:
            self.wait_epoch += 1
        if self.wait_epoch >= self.patience:
            self.model.stop_training = True
            if self.verbose > 0:
                print(f"Epoch {self.stopped_epoch + 1}: Early stopping.")
                if self.save_best_model and self.save_dir is not None:
                    print("Best checkpoint has been saved at "
                          f"{os.path.abspath(os.path.join(self.save_dir, 'best_model'))}")
        self.stopped_epoch += 1


class ReduceLROnPlateau(Callback):
    """Multiplies a float learning rate by ``factor`` when the monitored eval value has not
    improved (by ``min_delta``) for ``patience`` evaluations, then waits ``cooldown`` more."""

    def __init__(self, monitor="loss", factor=0.1, patience=10, verbose=1, mode="auto",
                 min_delta=1e-4, cooldown=0, min_lr=0):
        super().__init__()
        if factor >= 1.0:
            raise ValueError("ReduceLROnPlateau does not support a factor >= 1.0.")
        self.monitor = monitor
        self.factor = factor
        self.min_lr = min_lr
        self.min_delta = min_delta
        self.patience = patience
        self.verbose = verbose
        self.cooldown = cooldown
        self.mode = mode
        self.epoch = 0
        self._reset()

    def _reset(self):
        if self.mode not in ("auto", "min", "max"):
            warnings.warn(f"Learning rate reduction mode {self.mode} is unknown, "
                          "fallback to auto mode.")
            self.mode = "auto"
        lower = self.mode == "min" or (self.mode == "auto" and "acc" not in self.monitor)
        if lower:
            self.monitor_op = lambda a, b: np.less(a, b - self.min_delta)
        else:
            self.monitor_op = lambda a, b: np.greater(a, b + self.min_delta)
        self.best = np.inf if lower else -np.inf
        self.cooldown_counter = 0
        self.wait = 0

    def in_cooldown(self):
        return self.cooldown_counter > 0

    def on_train_begin(self, logs=None):
        self._reset()

    def on_eval_end(self, logs=None):
        if logs is None or self.monitor not in logs:
            warnings.warn("Monitor of ReduceLROnPlateau should be loss or metric name.")
            return
        try:
            lr = self.model._optimizer._learning_rate
        except Exception as e:  # noqa: BLE001 - Paddle warns and carries on
            warnings.warn(f"There are something wrong when get learning_rate from optimizer: "
                          f"{e}.")
            return
        if not isinstance(lr, float):
            warnings.warn(f"Expected learning_rate be float, bug got {type(lr)}.")
            return
        current = logs[self.monitor]
        if isinstance(current, (list, tuple)):
            current = current[0]
        elif not isinstance(current, numbers.Number):
            return
        if self.in_cooldown():
            self.cooldown_counter -= 1
            self.wait = 0
        if self.monitor_op(current, self.best):
            self.best = current
            self.wait = 0
        elif not self.in_cooldown():
            self.wait += 1
            if self.wait >= self.patience:
                old_lr = self.model._optimizer.get_lr()
                if old_lr > np.float32(self.min_lr):
                    new_lr = max(old_lr * self.factor, self.min_lr)
                    self.model._optimizer._learning_rate = new_lr
                    if self.verbose > 0:
                        print(f"\nEpoch {self.epoch + 1}: ReduceLROnPlateau reducing learning "
                              f"rate to {new_lr}.")
                    self.cooldown_counter = self.cooldown
                    self.wait = 0
        self.epoch += 1


class VisualDL(Callback):
    """Logs to VisualDL, a package gradrepl does not provide: training with it refuses."""

    def __init__(self, log_dir):
        self.log_dir = log_dir
        self.epochs = None
        self.steps = None
        self.epoch = 0

    def on_train_begin(self, logs=None):
        raise ModuleNotFoundError("gradrepl: paddle.callbacks.VisualDL needs the visualdl "
                                  "package, which gradrepl does not emulate")


class WandbCallback(Callback):
    """Logs to Weights & Biases, which is not installed here (Paddle's ImportError)."""

    def __init__(self, *args, **kwargs):
        raise ImportError("You want to use `wandb` which is not installed yet install it with "
                          "`pip install wandb`")
