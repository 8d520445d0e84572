"""``torch.utils.data``: datasets (map-style, iterable, tensor, concat, chain, subset),
samplers, ``random_split``, ``default_collate`` and ``DataLoader``, drawing from the torch
generator in torch's order (``torch/utils/data/sampler.py``, ``dataset.py``, ``dataloader.py``),
so examples after ``torch.manual_seed`` give torch's indices.

Workers are emulated in this process: each of ``num_workers`` gets a copy of the dataset, its
``get_worker_info()`` and ``worker_init_fn``, and batches are taken from the workers in turn, as
torch's multi-process iterator yields them (an iterable dataset copied to two workers yields
each item twice).
"""
from __future__ import annotations

import bisect
import copy
import itertools
import math
import warnings

import numpy as np

from .. import _ops, _random

__all__ = ["BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset",
           "IterableDataset", "RandomSampler", "Sampler", "SequentialSampler", "StackDataset",
           "Subset", "SubsetRandomSampler", "TensorDataset", "WeightedRandomSampler",
           "default_collate", "default_convert", "get_worker_info", "random_split"]


def _T():
    from ... import torch as T

    return T


# ------------------------------------------------------------------------------ datasets
class Dataset:
    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    def __iter__(self):
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")

    def __add__(self, other):
        return ChainDataset([self, other])


class TensorDataset(Dataset):
    def __init__(self, *tensors):
        n = tensors[0].size(0)
        if any(n != t.size(0) for t in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].size(0)


class StackDataset(Dataset):
    def __init__(self, *args, **kwargs):
        if args and kwargs:
            raise ValueError("Supported either ``tuple``- (via ``args``) or``dict``- (via "
                             "``kwargs``) like input/output, but both types are given.")
        self._length = None
        self.datasets = args if args else kwargs
        items = args if args else list(kwargs.values())
        self._length = len(items[0])
        if any(self._length != len(d) for d in items):
            raise ValueError("Size mismatch between datasets")

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __len__(self):
        return self._length


class ConcatDataset(Dataset):
    @staticmethod
    def cumsum(sequence):
        r, s = [], 0
        for e in sequence:
            s += len(e)
            r.append(s)
        return r

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if len(self.datasets) == 0:
            raise AssertionError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        k = bisect.bisect_right(self.cumulative_sizes, idx)
        sample_idx = idx if k == 0 else idx - self.cumulative_sizes[k - 1]
        return self.datasets[k][sample_idx]


class ChainDataset(IterableDataset):
    def __init__(self, datasets):
        super().__init__()
        self.datasets = datasets

    def __iter__(self):
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from d

    def __len__(self):
        total = 0
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            total += len(d)
        return total


class Subset(Dataset):
    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices):
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__([self.indices[idx] for idx in indices])
        return [self.dataset[self.indices[idx]] for idx in indices]

    def __len__(self):
        return len(self.indices)


def random_split(dataset, lengths, generator=None):
    """torch's: fractions become lengths (the remainder one by one to the first), then one
    ``randperm`` of the total cut in order."""
    g = _random._gen(generator)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        subset_lengths = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            subset_lengths.append(int(math.floor(len(dataset) * frac)))
        remainder = len(dataset) - sum(subset_lengths)
        for i in range(remainder):
            subset_lengths[i % len(subset_lengths)] += 1
        lengths = subset_lengths
        for i, length in enumerate(lengths):
            if length == 0:
                warnings.warn(f"Length of split at index {i} is 0. This might result in an "
                              f"empty dataset.")
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    indices = [int(i) for i in _random.randperm(sum(lengths), g)]
    out, offset = [], 0
    for length in lengths:
        out.append(Subset(dataset, indices[offset:offset + length]))
        offset += length
    return out


# ------------------------------------------------------------------------------ samplers
class Sampler:
    def __init__(self, data_source=None):
        if data_source is not None:
            warnings.warn("`data_source` argument is not used and will be removed in 2.2.0."
                          "You may still have custom implementation that utilizes it.")

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


def _draw_seed():
    """``int(torch.empty((), dtype=torch.int64).random_().item())`` on the default generator."""
    return int(_random.DEFAULT.random64(1)[0]) % (1 << 63)


def _tolist(x):
    return [int(v) for v in np.asarray(x.numpy() if hasattr(x, "numpy") else x).reshape(-1)]


class RandomSampler(Sampler):
    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError("replacement should be a boolean value, but got replacement="
                            f"{self.replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError("num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples}")

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        T = _T()
        n = len(self.data_source)
        if self.generator is None:
            generator = T.Generator()
            generator.manual_seed(_draw_seed())
        else:
            generator = self.generator
        if self.replacement:
            for _ in range(self.num_samples // 32):
                yield from _tolist(T.randint(high=n, size=(32,), dtype=T.int64,
                                             generator=generator))
            yield from _tolist(T.randint(high=n, size=(self.num_samples % 32,), dtype=T.int64,
                                         generator=generator))
        else:
            for _ in range(self.num_samples // n):
                yield from _tolist(_random.randperm(n, generator))
            yield from _tolist(_random.randperm(n, generator))[:self.num_samples % n]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        for i in _tolist(_random.randperm(len(self.indices), _random._gen(self.generator))):
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    def __init__(self, weights, num_samples, replacement=True, generator=None):
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError("num_samples should be a positive integer value, but got "
                             f"num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError("replacement should be a boolean value, but got replacement="
                             f"{replacement}")
        T = _T()
        weights_tensor = T.as_tensor(weights, dtype=T.double)
        if len(weights_tensor.shape) != 1:
            raise ValueError("weights should be a 1d sequence but given weights have shape "
                             f"{tuple(weights_tensor.shape)}")
        self.weights = weights_tensor
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self):
        T = _T()
        rand_tensor = T.multinomial(self.weights, self.num_samples, self.replacement,
                                    generator=self.generator)
        yield from iter(rand_tensor.tolist())

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    def __init__(self, sampler, batch_size, drop_last):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError("batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError("drop_last should be a boolean value, but got "
                             f"drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        it = iter(self.sampler)
        if self.drop_last:
            args = [it] * self.batch_size
            for batch in zip(*args):
                yield [*batch]
        else:
            batch = [*itertools.islice(it, self.batch_size)]
            while batch:
                yield batch
                batch = [*itertools.islice(it, self.batch_size)]

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size


class _InfiniteConstantSampler(Sampler):
    def __iter__(self):
        while True:
            yield None


# ------------------------------------------------------------------------------ collate
def _is_tensor(x):
    return hasattr(x, "grad_node") and hasattr(x, "dtype")


def default_convert(data):
    T = _T()
    if _is_tensor(data):
        return data
    if isinstance(data, np.ndarray) and data.dtype.kind not in "OSU":
        return T.as_tensor(data)
    if isinstance(data, np.generic):
        return T.as_tensor(data)
    if isinstance(data, dict):
        return type(data)({k: default_convert(v) for k, v in data.items()}) \
            if type(data) is not dict else {k: default_convert(v) for k, v in data.items()}
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, (list,)):
        return [default_convert(d) for d in data]
    return data


def default_collate(batch):
    T = _T()
    elem = batch[0]
    if _is_tensor(elem):
        return _ops.stack(list(batch), 0)
    if isinstance(elem, np.ndarray) and elem.dtype.kind not in "OSU":
        return default_collate([T.as_tensor(b) for b in batch])
    if isinstance(elem, np.generic) and elem.shape == ():
        return T.as_tensor(np.array(batch))
    if isinstance(elem, bool):
        return T.tensor(batch)
    if isinstance(elem, float):
        return T.tensor(batch, dtype=T.float64)
    if isinstance(elem, int):
        return T.tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, dict):
        return {key: default_collate([d[key] for d in batch]) for key in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return type(elem)(*(default_collate(samples) for samples in zip(*batch)))
    if isinstance(elem, (list, tuple)):
        it = iter(batch)
        elem_size = len(next(it))
        if not all(len(e) == elem_size for e in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch))
        if isinstance(elem, tuple):
            return [default_collate(samples) for samples in transposed]
        return [default_collate(samples) for samples in transposed]
    raise TypeError("default_collate: batch must contain tensors, numpy arrays, numbers, dicts "
                    f"or lists; found {type(elem)}")


# ------------------------------------------------------------------------------ workers
class WorkerInfo:
    def __init__(self, **kwargs):
        for k, v in kwargs.items():
            object.__setattr__(self, k, v)
        object.__setattr__(self, "_keys", tuple(kwargs))

    def __setattr__(self, key, val):
        raise RuntimeError(f"Cannot assign attributes to {self.__class__.__name__} objects")

    def __repr__(self):
        items = [f"{k}={getattr(self, k)}" for k in self._keys]
        return f"{self.__class__.__name__}({', '.join(items)})"


WorkerInfo.__module__ = "torch.utils.data._utils.worker"
_WORKER_INFO = None


def get_worker_info():
    return _WORKER_INFO


class DataLoader:
    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=None, persistent_workers=False, pin_memory_device="",
                 in_order=True):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to "
                             "disable multiprocessing.")
        self.dataset = dataset
        self.num_workers = num_workers
        self.worker_init_fn = worker_init_fn
        self.generator = generator
        self.pin_memory = pin_memory
        self.timeout = timeout
        self.prefetch_factor = prefetch_factor
        self.persistent_workers = persistent_workers
        iterable = isinstance(dataset, IterableDataset)
        self._iterable = iterable
        if iterable:
            if shuffle not in (False, None):
                raise ValueError("DataLoader with IterableDataset: expected unspecified shuffle "
                                 f"option, but got shuffle={shuffle}")
            if sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified sampler "
                                 f"option, but got sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified "
                                 f"batch_sampler option, but got batch_sampler={batch_sampler}")
        shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually "
                             "exclusive with drop_last")
        if sampler is None:
            if iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.shuffle = shuffle
        if collate_fn is None:
            collate_fn = default_collate if batch_sampler is not None else default_convert
        self.collate_fn = collate_fn

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def _fetch(self, dataset, index_iter):
        """One batch from a dataset (the fetcher of torch's ``_utils.fetch``)."""
        if self._iterable:
            if self._auto_collation:
                data = []
                for _ in range(self.batch_size):
                    try:
                        data.append(next(index_iter))
                    except StopIteration:
                        break
                if len(data) == 0 or (self.drop_last and len(data) < self.batch_size):
                    raise StopIteration
                return self.collate_fn(data)
            return self.collate_fn(next(index_iter))
        return None

    def __iter__(self):
        global _WORKER_INFO
        base_seed = _draw_seed() if self.generator is None else \
            int(self.generator.random64(1)[0]) % (1 << 63) if hasattr(
                self.generator, "random64") else _draw_seed()
        if self._iterable:
            if self.num_workers == 0:
                it = iter(self.dataset)
                while True:
                    try:
                        yield self._fetch(self.dataset, it)
                    except StopIteration:
                        return
            iters = []
            for wid in range(self.num_workers):
                ds = copy.deepcopy(self.dataset)
                info = WorkerInfo(id=wid, num_workers=self.num_workers, seed=base_seed + wid,
                                  dataset=ds)
                _WORKER_INFO = info
                try:
                    if self.worker_init_fn is not None:
                        self.worker_init_fn(wid)
                    iters.append([info, iter(ds)])
                finally:
                    _WORKER_INFO = None
            active = list(range(self.num_workers))
            while active:
                for wid in list(active):
                    info, it = iters[wid]
                    _WORKER_INFO = info
                    try:
                        batch = self._fetch(info.dataset, it)
                    except StopIteration:
                        active.remove(wid)
                        continue
                    finally:
                        _WORKER_INFO = None
                    yield batch
            return
        for index in self._index_sampler:
            if self._auto_collation:
                getitems = getattr(self.dataset, "__getitems__", None)
                items = getitems(index) if callable(getitems) else \
                    [self.dataset[i] for i in index]
                yield self.collate_fn(items)
            else:
                yield self.collate_fn(self.dataset[index])

    def __len__(self):
        if self._iterable:
            length = len(self.dataset)
            if self.batch_size is not None:
                length = (length // self.batch_size if self.drop_last
                          else -(-length // self.batch_size))
            return length
        return len(self._index_sampler)


for _c in (Dataset, IterableDataset, TensorDataset, StackDataset, ConcatDataset, ChainDataset,
           Subset):
    _c.__module__ = "torch.utils.data.dataset"
for _c in (Sampler, SequentialSampler, RandomSampler, SubsetRandomSampler,
           WeightedRandomSampler, BatchSampler):
    _c.__module__ = "torch.utils.data.sampler"
DataLoader.__module__ = "torch.utils.data.dataloader"
del _c
