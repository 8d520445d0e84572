"""``paddle.io`` datasets: the map-style and iterable bases and the ready-made combinations."""
from __future__ import annotations

import bisect
import math
import typing
import warnings

from ...core import PaddleClass, PaddleObject

_T = typing.TypeVar("_T")


class Dataset(PaddleObject, typing.Generic[_T], metaclass=PaddleClass):
    """A map-style dataset: subclasses give ``__getitem__(idx)`` and ``__len__()``."""

    def __init__(self):
        pass

    def __getitem__(self, idx):
        raise NotImplementedError(f"'__getitem__' not implement in class {type(self).__name__}")

    def __len__(self):
        raise NotImplementedError(f"'__len__' not implement in class {type(self).__name__}")


class IterableDataset(Dataset[_T]):
    """A stream of samples: subclasses give ``__iter__()``; it has no length and no index."""

    def __init__(self):
        pass

    def __iter__(self):
        raise NotImplementedError(f"'__iter__' not implement in class {type(self).__name__}")

    def __getitem__(self, idx):
        raise RuntimeError(
            f"'__getitem__' should not be called for IterableDataset{type(self).__name__}")

    def __len__(self):
        raise RuntimeError(
            f"'__len__' should not be called for IterableDataset{type(self).__name__}")


class TensorDataset(Dataset):
    """Samples are the rows ``i`` of each tensor (all share their first dimension)."""

    def __init__(self, tensors):
        first = tensors[0].shape[0]
        assert all(t.shape[0] == first for t in tensors), \
            "tensors not have same shape of the 1st dimension"
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].shape[0]


def _as_fields(sample):
    if sample is None:
        return sample
    return list(sample) if isinstance(sample, (list, tuple)) else [sample]


class ComposeDataset(Dataset):
    """Sample ``i`` joins the fields of sample ``i`` of every dataset (same lengths)."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        assert len(self.datasets) > 0, "input datasets should not be empty"
        for i, ds in enumerate(self.datasets):
            assert isinstance(ds, Dataset), "each input dataset should be paddle.io.Dataset"
            assert not isinstance(ds, IterableDataset), "paddle.io.IterableDataset not supported"
            if i > 0:
                assert len(ds) == len(self.datasets[i - 1]), "lengths of datasets should be same"

    def __len__(self):
        return len(self.datasets[0])

    def __getitem__(self, idx):
        fields = []
        for ds in self.datasets:
            fields.extend(_as_fields(ds[idx]))
        return tuple(fields)


class ChainDataset(IterableDataset):
    """The iterable datasets one after another."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        assert len(self.datasets) > 0, "input datasets should not be empty"
        for ds in self.datasets:
            assert isinstance(ds, IterableDataset), \
                "ChainDataset only support paddle.io.IterableDataset"

    def __iter__(self):
        for ds in self.datasets:
            yield from ds


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``, in that order."""

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx):
        return self.dataset[self.indices[idx]]

    def __len__(self):
        return len(self.indices)


class ConcatDataset(Dataset):
    """The map-style datasets end to end."""

    @staticmethod
    def cumsum(sequence):
        ends, total = [], 0
        for ds in sequence:
            total += len(ds)
            ends.append(total)
        return ends

    def __init__(self, datasets):
        self.datasets = list(datasets)
        assert len(self.datasets) > 0, "datasets should not be an empty iterable"
        for ds in self.datasets:
            assert not isinstance(ds, IterableDataset), \
                "ConcatDataset does not support IterableDataset"
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx += len(self)
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        start = self.cumulative_sizes[which - 1] if which else 0
        return self.datasets[which][idx - start]


def _lengths_from_fractions(n, fractions):
    sizes = []
    for i, frac in enumerate(fractions):
        if frac < 0 or frac > 1:
            raise ValueError(f"Fraction at index {i} is not between 0 and 1")
        sizes.append(int(math.floor(n * frac)))
    for i in range(n - sum(sizes)):  # the remainder, one each from the front
        sizes[i % len(sizes)] += 1
    for i, size in enumerate(sizes):
        if size == 0:
            warnings.warn(f"Length of split at index {i} is 0. "
                          f"This might result in an empty dataset.")
    return sizes


def random_split(dataset, lengths, generator=None):
    """Split ``dataset`` into Subsets of ``lengths`` (counts, or fractions summing to 1) at a
    random permutation drawn by ``paddle.randperm`` (so ``paddle.seed`` fixes it)."""
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        lengths = _lengths_from_fractions(len(dataset), lengths)
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    order = _randperm(sum(lengths))
    out, end = [], 0
    for length in lengths:
        out.append(Subset(dataset, order[end:end + length]))
        end += length
    return out


def _randperm(n):
    """``paddle.randperm(n).tolist()``."""
    import gradrepl.paddle as paddle

    return paddle.randperm(n).tolist()
