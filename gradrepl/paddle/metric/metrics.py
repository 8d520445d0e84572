"""Streaming metrics as Paddle's hapi uses them: ``compute`` (tensors in, per-sample results
out), ``update`` (numpy, returns the batch's value), ``accumulate`` (the running value),
``reset``, ``name``."""
from __future__ import annotations

import abc

import numpy as np

from ..numpy_era import numpy1_scalars


class _Numpy1Float64(np.float64):
    """A numpy.float64 that prints as numpy 1 prints one (``0.05``, not ``np.float64(0.05)``);
    its type still prints as ``<class 'numpy.float64'>``, as real 2.6.2's did."""
    __module__ = "numpy"
    __qualname__ = "float64"

    def __repr__(self):
        return repr(float(self))


_Numpy1Float64.__name__ = "float64"


def _scalar(v):
    """Accuracy's np.float64 (a float divided by numpy's sample count), printed as numpy 1 prints
    it where the real Paddle compared with runs numpy 1 (``numpy_era.numpy1_scalars``)."""
    return _Numpy1Float64(v) if numpy1_scalars() else np.float64(v)


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
            accs.append(_scalar(float(hits) / num_samples))
            self.total[i] += hits
            self.count[i] += num_samples
        return accs[0] if len(self.topk) == 1 else accs

    def reset(self):
        self.total = [0.0] * len(self.topk)
        self.count = [0] * len(self.topk)

    def accumulate(self):
        res = [_scalar(float(t) / c) if c > 0 else 0.0 for t, c in zip(self.total, self.count)]
        return res[0] if len(self.topk) == 1 else res

    def name(self):
        return self._name


def _as_array(value, what):
    from ..core import Tensor

    if isinstance(value, Tensor):
        return value.numpy()
    if isinstance(value, np.ndarray):
        return value
    raise ValueError(f"The '{what}' must be a numpy ndarray or Tensor.")


class Precision(Metric):
    """Binary precision, tp / (tp + fp), over every update since the last reset: a prediction
    is positive when it rounds up to 1 (``floor(p + 0.5)``). ``update`` returns None,
    ``accumulate`` a Python float (0.0 before any positive prediction)."""

    def __init__(self, name="precision", *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.tp = 0
        self.fp = 0
        self._name = name

    def update(self, preds, labels):
        preds = np.floor(_as_array(preds, "preds") + 0.5).astype("int32").reshape(-1)
        labels = _as_array(labels, "labels").reshape(-1)
        positive = preds == 1
        self.tp += int(np.sum(positive & (labels == preds)))
        self.fp += int(np.sum(positive & (labels != preds)))

    def reset(self):
        self.tp = 0
        self.fp = 0

    def accumulate(self):
        predicted = self.tp + self.fp
        return float(self.tp) / predicted if predicted != 0 else 0.0

    def name(self):
        return self._name


class Recall(Metric):
    """Binary recall, tp / (tp + fn): predictions rounded half to even (``rint``: 0.5 is 0)."""

    def __init__(self, name="recall", *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.tp = 0
        self.fn = 0
        self._name = name

    def update(self, preds, labels):
        preds = np.rint(_as_array(preds, "preds")).astype("int32").reshape(-1)
        labels = _as_array(labels, "labels").reshape(-1)
        actual = labels == 1
        self.tp += int(np.sum(actual & (preds == labels)))
        self.fn += int(np.sum(actual & (preds != labels)))

    def accumulate(self):
        recall = self.tp + self.fn
        return float(self.tp) / recall if recall != 0 else 0.0

    def reset(self):
        self.tp = 0
        self.fn = 0

    def name(self):
        return self._name


class Auc(Metric):
    """Area under the ROC curve from histograms: each sample's positive-class probability
    (column 1 of ``preds``) falls in one of ``num_thresholds + 1`` bins; ``accumulate`` sweeps
    the bins from the highest down and adds trapezoids of (false positives, true positives)."""

    def __init__(self, curve="ROC", num_thresholds=4095, name="auc", *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._curve = curve
        self._num_thresholds = num_thresholds
        n = num_thresholds + 1
        self._stat_pos = np.zeros(n)
        self._stat_neg = np.zeros(n)
        self._name = name

    def update(self, preds, labels):
        labels = _as_array(labels, "labels")
        preds = _as_array(preds, "preds")
        for i, label in enumerate(labels):
            value = preds[i, 1]
            bin_idx = int(value * self._num_thresholds)
            assert bin_idx <= self._num_thresholds
            if label:
                self._stat_pos[bin_idx] += 1.0
            else:
                self._stat_neg[bin_idx] += 1.0

    @staticmethod
    def trapezoid_area(x1, x2, y1, y2):
        return abs(x1 - x2) * (y1 + y2) / 2.0

    def accumulate(self):
        tot_pos = tot_neg = 0.0
        auc = 0.0
        for idx in range(self._num_thresholds, -1, -1):
            prev_pos, prev_neg = tot_pos, tot_neg
            tot_pos += self._stat_pos[idx]
            tot_neg += self._stat_neg[idx]
            auc += self.trapezoid_area(tot_neg, prev_neg, tot_pos, prev_pos)
        return auc / tot_pos / tot_neg if tot_pos > 0.0 and tot_neg > 0.0 else 0.0

    def reset(self):
        n = self._num_thresholds + 1
        self._stat_pos = np.zeros(n)
        self._stat_neg = np.zeros(n)

    def name(self):
        return self._name


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
