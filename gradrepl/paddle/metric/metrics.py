"""Streaming metrics as Paddle's hapi uses them: ``compute`` (tensors in, per-sample results
out), ``update`` (numpy, returns the batch's value), ``accumulate`` (the running value),
``reset``, ``name``."""
from __future__ import annotations

import abc

import numpy as np


class Metric(metaclass=abc.ABCMeta):
    """The base: subclasses give reset, update, accumulate and name; compute passes through."""

    def __init__(self):
        pass

    @abc.abstractmethod
    def reset(self):
        raise NotImplementedError(
            f"function 'reset' not implemented in {self.__class__.__name__}.")

    @abc.abstractmethod
    def update(self, *args):
        raise NotImplementedError(
            f"function 'update' not implemented in {self.__class__.__name__}.")

    @abc.abstractmethod
    def accumulate(self):
        raise NotImplementedError(
            f"function 'accumulate' not implemented in {self.__class__.__name__}.")

    @abc.abstractmethod
    def name(self):
        raise NotImplementedError(
            f"function 'name' not implemented in {self.__class__.__name__}.")

    def compute(self, *args):
        return args


class Accuracy(Metric):
    """Top-k accuracy for each k in ``topk``; names ``acc`` or ``acc_top1``, ``acc_top5`` ..."""

    def __init__(self, topk=(1,), name=None, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.topk = topk
        self.maxk = max(topk)
        name = name or "acc"
        self._name = [f"{name}_top{k}" for k in topk] if self.maxk != 1 else [name]
        self.reset()

    def compute(self, pred, label, *args):
        """1.0 where the label is among the top ``maxk`` predictions (one column per rank)."""
        import gradrepl.paddle as paddle

        order = paddle.argsort(pred, descending=True)
        order = paddle.slice(order, axes=[len(order.shape) - 1], starts=[0], ends=[self.maxk])
        if len(label.shape) == 1 or (len(label.shape) == 2 and label.shape[-1] == 1):
            label = paddle.reshape(label, (-1, 1))
        elif label.shape[-1] != 1:
            label = paddle.argmax(label, axis=-1, keepdim=True)
        return paddle.cast(order == label.astype(order.dtype), dtype="float32")

    def update(self, correct, *args):
        if not isinstance(correct, np.ndarray):
            correct = np.array(correct)
        num_samples = np.prod(np.array(correct.shape[:-1]))
        accs = []
        for i, k in enumerate(self.topk):
            hits = correct[..., :k].sum()
            accs.append(float(hits) / num_samples)
            self.total[i] += hits
            self.count[i] += num_samples
        return accs[0] if len(self.topk) == 1 else accs

    def reset(self):
        self.total = [0.0] * len(self.topk)
        self.count = [0] * len(self.topk)

    def accumulate(self):
        res = [float(t) / c if c > 0 else 0.0 for t, c in zip(self.total, self.count)]
        return res[0] if len(self.topk) == 1 else res

    def name(self):
        return self._name


class _NotEmulated(Metric):
    def __init__(self, *args, **kwargs):
        raise NotImplementedError(f"paddle.metric.{type(self).__name__} is not emulated by "
                                  "gradrepl yet (paddle.metric.Accuracy and accuracy are)")

    def reset(self):
        pass

    def update(self, *args):
        pass

    def accumulate(self):
        pass

    def name(self):
        pass


class Precision(_NotEmulated):
    pass


class Recall(_NotEmulated):
    pass


class Auc(_NotEmulated):
    pass


def accuracy(input, label, k=1, correct=None, total=None, name=None):  # noqa: A002
    """The fraction of rows whose label is among the ``k`` largest scores (a float32 Tensor)."""
    import gradrepl.paddle as paddle
    from ..core import Tensor
    from .. import profiles

    _, top = paddle.topk(input, k=k)
    hits = (top.data == label.data.reshape(-1, 1).astype(top.data.dtype)).any(axis=1)
    rows = top.data.shape[0]
    acc = np.float32(np.float32(hits.sum()) / np.float32(rows))
    arr = np.array(acc, dtype=np.float32)
    if not profiles.current().zero_d:
        arr = arr.reshape(1)
    return Tensor(arr)
