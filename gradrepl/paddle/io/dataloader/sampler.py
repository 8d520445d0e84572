"""``paddle.io`` samplers: which sample indices a DataLoader reads, in which order.

Paddle's RandomSampler and WeightedRandomSampler draw from numpy's global generator
(``np.random.choice``), so ``np.random.seed`` fixes their order, not ``paddle.seed``; the
same calls here give the same orders, bit for bit. SubsetRandomSampler draws ``paddle.randperm``.
"""
from __future__ import annotations

import typing

import numpy as np

from ...core import PaddleClass, PaddleObject

_T = typing.TypeVar("_T")


class Sampler(PaddleObject, typing.Generic[_T], metaclass=PaddleClass):
    """The base: ``__iter__`` yields indices (and ``__len__`` says how many, if known)."""

    def __init__(self, data_source=None):
        self.data_source = data_source

    def __iter__(self):
        raise NotImplementedError


class SequenceSampler(Sampler):
    """0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """A random order of the indices (numpy's global generator), or ``num_samples`` draws with
    replacement; a ``generator`` (a Python iterator of indices) takes the draw's place."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        from ... import profiles

        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(replacement, bool):
            raise TypeError("expect boolean value for replacement, but got "
                            f"replacement={replacement}")
        if not profiles.current().api3 and num_samples is not None and not replacement:
            raise ValueError("num_samples should not be specified while replacement is False")
        if not replacement and self.num_samples > len(data_source):
            raise ValueError(
                "num_samples should be smaller than or equal to length of data_source when "
                f"replacement is False, but got num_samples: {self.num_samples} > "
                f"data_source: {len(data_source)}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError("num_samples should be a positive integer, "
                             f"but got num_samples={self.num_samples}")

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        if self.generator:
            for _ in range(self.num_samples):
                try:
                    yield next(self.generator)
                except StopIteration:
                    return
            return
        n = len(self.data_source)
        yield from np.random.choice(np.arange(n), self.num_samples,
                                    replace=self.replacement).tolist()

    def __len__(self):
        return self.num_samples


def _weighted_draw(weights, num_samples, replacement):
    if hasattr(weights, "numpy") and not isinstance(weights, np.ndarray):
        weights = weights.numpy()
    if isinstance(weights, (list, tuple)):
        weights = np.array(weights)
    assert isinstance(weights, np.ndarray), \
        "weights should be paddle.Tensor, numpy.ndarray, list or tuple"
    assert len(weights.shape) <= 2, "weights should be a 1-D or 2-D array"
    rows = weights.reshape((-1, weights.shape[-1]))
    assert np.all(rows >= 0.0), "weights should be positive value"
    assert not np.any(rows == np.inf), "weights should not be INF"
    positive = np.sum(rows > 0.0, axis=1)
    assert np.all(positive > 0), "weights should have positive values"
    if not replacement:
        assert np.all(positive >= num_samples), ("weights positive value number should not "
                                                 "less than num_samples when replacement=False")
    rows = rows / rows.sum(axis=1)
    return np.array([np.random.choice(rows.shape[1], num_samples, replacement, rows[i])
                     for i in range(rows.shape[0])])


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices drawn with probabilities proportional to ``weights``."""

    def __init__(self, weights, num_samples, replacement=True):
        if not isinstance(num_samples, int) or num_samples <= 0:
            raise ValueError("num_samples should be a positive integer")
        if not isinstance(replacement, bool):
            raise ValueError("replacement should be a boolean value")
        self.weights = weights
        self.num_samples = num_samples
        self.replacement = replacement

    def __iter__(self):
        drawn = _weighted_draw(self.weights, self.num_samples, self.replacement)
        return iter(drawn.reshape(-1).tolist())

    def __len__(self):
        shape = self.weights.shape  # as Paddle: a list of weights has no length
        return self.num_samples * (np.prod(shape) // shape[-1])


class SubsetRandomSampler(Sampler):
    """The given indices in a random order (``paddle.randperm``)."""

    def __init__(self, indices):
        if len(indices) == 0:
            raise ValueError("The length of `indices` in SubsetRandomSampler should be greater "
                             "than 0.")
        self.indices = indices

    def __iter__(self):
        from .dataset import _randperm

        for i in _randperm(len(self.indices)):
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)
