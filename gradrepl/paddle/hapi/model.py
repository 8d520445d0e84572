"""``paddle.Model``: Paddle's high-level training loop (prepare, fit, evaluate, predict, the
per-batch calls, save/load) over a dygraph network, in the order real Paddle computes."""
from __future__ import annotations

import inspect
import os

import numpy as np

from .callbacks import EarlyStopping, config_callbacks
from ..core import PaddleClass as _PaddleClass

__all__ = ["Model"]


def _to_list(value):
    if value is None:
        return value
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _to_numpy(t):
    return np.array(t.numpy()) if hasattr(t, "numpy") else np.array(t)


def _scalar(a):
    """A one-element loss as a Python float (Paddle 2.2's losses have shape [1])."""
    return float(np.asarray(a).reshape(-1)[0]) if np.size(a) == 1 else float(a)


def _flatten(data):
    out = []
    for d in (data if isinstance(data, (list, tuple)) else [data]):
        out.extend(_flatten(d) if isinstance(d, (list, tuple)) else [d])
    return out


def _forward_arg_count(network):
    """How many inputs a batch feeds the network: ``forward``'s named arguments."""
    params = inspect.signature(network.forward).parameters.values()
    named = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(named) or 1


class _EpochBatchSampler:
    """The batches hapi draws from a Dataset (Paddle's single-process DistributedBatchSampler):
    a shuffle is ``np.random.RandomState(epoch)`` with the epoch counting the sampler's passes,
    so it does not depend on the global seeds."""

    def __init__(self, dataset, batch_size, shuffle=False, drop_last=False):
        self.dataset = dataset
        self.batch_size = batch_size
        self.shuffle = shuffle
        self.drop_last = drop_last
        self.epoch = 0

    def __iter__(self):
        indices = np.arange(len(self.dataset)).tolist()
        if self.shuffle:
            np.random.RandomState(self.epoch).shuffle(indices)
            self.epoch += 1
        for i in range(0, len(indices), self.batch_size):
            batch = indices[i:i + self.batch_size]
            if len(batch) == self.batch_size or not self.drop_last:
                yield batch

    def __len__(self):
        n = len(self.dataset)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)


class Model(metaclass=_PaddleClass):
    """Wraps a ``paddle.nn.Layer`` with a training loop: ``prepare`` then ``fit``."""

    def __init__(self, network, inputs=None, labels=None):
        self.mode = "train"
        self.network = network
        self._inputs = _to_list(inputs)
        self._labels = _to_list(labels)
        self._n_inputs = len(self._inputs) if self._inputs else _forward_arg_count(network)
        self._loss = None
        self._optimizer = None  # (no _metrics until prepare, as in Paddle)
        self._test_dataloader = None
        self.stop_training = False  # (never reset: Paddle's flag stays set once a fit stopped)
        self._accumulate = 1
        self._logs = {}

    # ---- per batch -------------------------------------------------------------------------
    def _update_metrics(self, outputs, labels):
        results = []
        for metric in self._metrics:
            outs = metric.compute(*(_to_list(outputs) + labels))
            results.append(metric.update(*[_to_numpy(m) for m in _to_list(outs)]))
        return results

    def train_batch(self, inputs, labels=None, update=True):
        """One optimisation step: forward, loss, backward, step, clear grads, then metrics."""
        import gradrepl.paddle as paddle

        assert self._optimizer, "model not ready, please call `model.prepare()` first"
        self.network.train()
        self.mode = "train"
        labels = [paddle.to_tensor(x) for x in _to_list(labels or [])]
        outputs = self.network(*[paddle.to_tensor(x) for x in _to_list(inputs)])
        losses = _to_list(self._loss(*(_to_list(outputs) + labels)))
        final = paddle.add_n(losses)
        final.backward()
        if update:
            self._optimizer.minimize(final)
            self.network.clear_gradients()
        metrics = self._update_metrics(outputs, labels)
        loss_np = [_to_numpy(x) for x in losses]
        return (loss_np, metrics) if metrics else loss_np

    def eval_batch(self, inputs, labels=None):
        """Forward and loss in eval mode, without gradients; updates the metrics."""
        import gradrepl.paddle as paddle

        self.network.eval()
        self.mode = "eval"
        labels = [paddle.to_tensor(x) for x in _to_list(labels or [])]
        with paddle.no_grad():
            outputs = self.network(*[paddle.to_tensor(x) for x in _to_list(inputs)])
            for t in _to_list(outputs) + labels:  # Paddle moves each to the expected device
                t.to(paddle.device.get_device())  # (its _to: the warning filters change)
            losses = _to_list(self._loss(*(_to_list(outputs) + labels))) if self._loss else None
        metrics = self._update_metrics(outputs, labels)
        if self._loss:
            loss_np = [_to_numpy(x) for x in losses]
            return (loss_np, metrics) if metrics else loss_np
        return metrics

    def predict_batch(self, inputs):
        """The network's outputs for one batch, as a list of numpy arrays."""
        import gradrepl.paddle as paddle

        self.network.eval()
        self.mode = "test"
        with paddle.no_grad():
            outputs = self.network(*[paddle.to_tensor(x) for x in _to_list(inputs)])
        return [_to_numpy(o) for o in _to_list(outputs)]

    # ---- setup -----------------------------------------------------------------------------
    def parameters(self, *args, **kwargs):
        """The network's parameters."""
        return self.network.parameters(*args, **kwargs)

    def prepare(self, optimizer=None, loss=None, metrics=None, amp_configs=None):
        """Sets the optimizer, the loss (a Layer or callable) and ``paddle.metric`` metrics."""
        from ..metric import Metric
        from ..nn import Layer

        from ..device import get_device

        self._place = get_device()  # (fit/evaluate/predict on a Dataset before prepare: no _place)
        self._optimizer = optimizer
        if loss is not None and not isinstance(loss, Layer) and not callable(loss):
            raise TypeError("'loss' must be sub classes of `paddle.nn.Layer` or any callable "
                            "function.")
        self._loss = loss
        metrics = _to_list(metrics or [])
        for m in metrics:
            assert isinstance(m, Metric), f"{m.__class__.__name__} is not sub class of Metric"
        self._metrics = metrics

    def _metrics_name(self):
        names = ["loss"] if self._loss else []
        for m in self._metrics:
            names.extend(_to_list(m.name()))
        return names

    def _reset_metrics(self):
        for m in self._metrics:
            m.reset()

    def _loader(self, data, batch_size, shuffle=False, drop_last=False, num_workers=0):
        from ..io import DataLoader, Dataset

        if not isinstance(data, Dataset):
            return data
        sampler = _EpochBatchSampler(data, batch_size, shuffle, drop_last)
        return DataLoader(data, batch_sampler=sampler, places=self._place,
                          num_workers=num_workers, return_list=True)

    @staticmethod
    def _len(loader):
        try:
            return len(loader)
        except Exception:  # noqa: BLE001 - an iterable without a length
            return None

    # ---- loops -----------------------------------------------------------------------------
    def _run_one_epoch(self, loader, cbks, mode):
        logs = self._logs  # one dict across calls, as Paddle's shared default argument
        outputs = []
        n_in = self._n_inputs
        for step, data in enumerate(loader):
            data = _flatten(data)
            if getattr(self, "_input_info", None) is None:  # what save(training=False) uses
                self._input_info = ([list(d.shape) for d in data[:n_in]],
                                    [d.dtype for d in data[:n_in]])
            batch_size = data[0].shape[0]
            cbks.on_batch_begin(mode, step, logs)
            if mode != "predict":
                args = [data[:n_in], data[n_in:]]
                if mode == "train":  # update on every accumulate-th step and the last one
                    args.append((step + 1) % self._accumulate == 0 or step + 1 == len(loader))
                outs = getattr(self, mode + "_batch")(*args)
                if self._metrics and self._loss:
                    values = [[_scalar(x) for x in outs[0]]]
                elif self._loss:
                    values = [[_scalar(x) for x in outs]]
                else:
                    values = []
                for m in self._metrics:
                    values.extend(_to_list(m.accumulate()))
                logs.update(zip(self._metrics_name(), values))
            else:
                outputs.append(self.predict_batch(data[:n_in]))
            logs["step"] = step
            logs["batch_size"] = batch_size
            cbks.on_batch_end(mode, step, logs)
            if getattr(self, "num_iters", None) is not None:
                self.num_iters -= 1
                if self.num_iters <= 0:
                    self.stop_training = True
                    del self.num_iters
                    break
        self._reset_metrics()
        return (logs, outputs) if mode == "predict" else logs

    def fit(self, train_data=None, eval_data=None, batch_size=1, epochs=1, eval_freq=1,
            log_freq=10, save_dir=None, save_freq=1, verbose=2, drop_last=False, shuffle=True,
            num_workers=0, callbacks=None, accumulate_grad_batches=1, num_iters=None):
        """Trains for ``epochs`` epochs, evaluating on ``eval_data`` every ``eval_freq``."""
        assert train_data is not None, "train_data must be given!"
        if isinstance(batch_size, (tuple, list)):
            assert len(batch_size) == 2, ("batch_size length error, expected train_batch_size "
                                          "and eval_batch_size.")
            train_bs, eval_bs = batch_size
        else:
            train_bs = eval_bs = batch_size
        train_loader = self._loader(train_data, train_bs, shuffle, drop_last, num_workers)
        eval_loader = (self._loader(eval_data, eval_bs, num_workers=num_workers)
                       if eval_data is not None else None)
        self._test_dataloader = eval_loader
        self._accumulate = accumulate_grad_batches
        steps = self._len(train_loader)
        self.num_iters = num_iters
        if isinstance(num_iters, int) and isinstance(steps, int):
            assert num_iters > 0, "num_iters must be greater than 0!"
            epochs = num_iters // steps + 1
            steps = min(num_iters, steps)
        cbks = config_callbacks(callbacks, model=self, epochs=epochs,
                                steps=steps, log_freq=log_freq,
                                save_freq=save_freq, save_dir=save_dir, verbose=verbose,
                                metrics=self._metrics_name())
        if any(isinstance(k, EarlyStopping) for k in cbks) and eval_loader is None:
            import warnings

            warnings.warn("EarlyStopping needs validation data.")
        cbks.on_begin("train")
        logs = None
        for epoch in range(epochs):
            cbks.on_epoch_begin(epoch)
            logs = self._run_one_epoch(train_loader, cbks, "train")
            cbks.on_epoch_end(epoch, logs)
            if eval_loader is not None and epoch % eval_freq == 0:
                cbks.on_begin("eval", {"steps": self._len(eval_loader),
                                       "metrics": self._metrics_name()})
                cbks.on_end("eval", self._run_one_epoch(eval_loader, cbks, "eval"))
            if self.stop_training:
                break
        cbks.on_end("train", logs)
        self._test_dataloader = None

    def evaluate(self, eval_data, batch_size=1, log_freq=10, verbose=2, num_workers=0,
                 callbacks=None, num_iters=None):
        """Runs the loss and metrics over ``eval_data``: ``{'loss': [value], <metric>: value}``."""
        loader = self._loader(eval_data, batch_size, num_workers=num_workers)
        self._test_dataloader = loader
        cbks = config_callbacks(callbacks, model=self, log_freq=log_freq, verbose=verbose,
                                metrics=self._metrics_name())
        steps = self._len(loader)
        self.num_iters = num_iters
        if isinstance(num_iters, int) and isinstance(steps, int):
            assert num_iters > 0, "num_iters must be greater than 0!"
            steps = self.num_iters = min(num_iters, steps)
        cbks.on_begin("eval", {"steps": steps, "metrics": self._metrics_name()})
        logs = self._run_one_epoch(loader, cbks, "eval")
        cbks.on_end("eval", logs)
        self._test_dataloader = None
        return {k: logs[k] for k in self._metrics_name()}

    def predict(self, test_data, batch_size=1, num_workers=0, stack_outputs=False, verbose=1,
                callbacks=None):
        """The network's outputs over ``test_data``: one list of numpy batches per output
        (or one stacked array per output with ``stack_outputs=True``)."""
        loader = self._loader(test_data, batch_size, num_workers=num_workers)
        self._test_dataloader = loader
        cbks = config_callbacks(callbacks, model=self, verbose=verbose)
        cbks.on_begin("predict", {"steps": self._len(loader)})
        logs, outputs = self._run_one_epoch(loader, cbks, "predict")
        outputs = list(zip(*outputs))
        outputs = ([np.vstack(o) for o in outputs] if stack_outputs
                   else [list(o) for o in outputs])
        self._test_dataloader = None
        cbks.on_end("predict", logs)
        return outputs

    # ---- persistence -----------------------------------------------------------------------
    def save(self, path, training=True):
        """Writes ``path.pdparams`` (and ``path.pdopt`` when the optimizer has state)."""
        import gradrepl.paddle as paddle

        if not training:
            return self._save_inference_model(path)
        paddle.save(self.network.state_dict(), path + ".pdparams")
        if self._optimizer is not None and self._optimizer.state_dict():
            paddle.save(self._optimizer.state_dict(), path + ".pdopt")

    def _save_inference_model(self, path):
        """``save(path, training=False)``: ``paddle.jit.save`` of the network, traced on the
        ``inputs`` given to Model or else on the shapes of the first batch it ran."""
        import warnings

        import gradrepl.paddle as paddle

        specs = self._inputs
        info = getattr(self, "_input_info", None)
        if not specs:
            if info is None:
                raise RuntimeError(
                    "Saving inference model needs 'inputs' or running before saving. Please "
                    "specify 'inputs' in Model initialization or input training data and "
                    "perform a training for shape derivation.")
            warnings.warn(
                "'inputs' was not specified when Model initialization, so the input shape to be "
                "saved will be the shape derived from the user's actual inputs. The input shape "
                f"to be saved is {info[0]}. For saving correct input shapes, please provide "
                "'inputs' for Model initialization.")
            specs = [paddle.static.InputSpec(s, d) for s, d in zip(*info)]
        paddle.jit.save(self.network, path, input_spec=specs)

    def load(self, path, skip_mismatch=False, reset_optimizer=False):
        """Loads ``path.pdparams`` into the network's parameters (each must be present with
        the same shape, unless ``skip_mismatch``) and ``path.pdopt`` into the optimizer."""
        import warnings

        import gradrepl.paddle as paddle

        path, ext = os.path.splitext(path)
        assert ext in ("", ".pdparams", ".pdopt", ".pdmodel"), f"Unknown postfix {ext} from weights"

        def read(file):
            return paddle.load(file) if os.path.exists(file) else None

        state = read(path + ".pdparams")
        assert state, "Failed to load parameters, please check path."
        pairs = []
        for key, param in self.network.state_dict().items():
            value = state.get(key, None)
            if value is None:
                err = ValueError(f"{key} is not found in the providing file.")
            elif list(value.shape) != list(param.shape):
                err = ValueError(f"{key} receives a shape {list(value.shape)}, but the expected "
                                 f"shape is {list(param.shape)}.")
            else:
                pairs.append((param, value))
                continue
            if not skip_mismatch:
                raise err
            warnings.warn(f"Skip loading for {key}. " + str(err))
            reset_optimizer = True
        for param, value in pairs:
            param.set_value(value)
        opt_state = None if reset_optimizer else read(path + ".pdopt")
        if self._optimizer is not None and opt_state:
            self._optimizer.set_state_dict(opt_state)

    def summary(self, input_size=None, dtype=None):
        """``paddle.summary`` of the network (``input_size`` from ``inputs`` when omitted)."""
        import gradrepl.paddle as paddle

        assert input_size is not None or self._inputs is not None, (
            "'input_size' or 'self._input' must be set")
        return paddle.summary(self.network, input_size if input_size is not None
                              else self._inputs, dtypes=dtype)
