"""``paddle.io.BatchSampler``: groups a sampler's indices into lists of ``batch_size``."""
from __future__ import annotations

from collections.abc import Iterable

from .dataset import IterableDataset
from .sampler import RandomSampler, Sampler, SequenceSampler


class BatchSampler(Sampler):
    """Batches of indices from ``sampler``, or from a Sequence/RandomSampler over ``dataset``
    (``shuffle``); the last short batch is kept unless ``drop_last``."""

    def __init__(self, dataset=None, sampler=None, shuffle=False, batch_size=1,
                 drop_last=False):
        from ... import profiles

        if dataset is None:
            assert sampler is not None, "either dataset or sampler should be set"
            if profiles.current().api3:
                assert isinstance(sampler, (Sampler, Iterable)), (
                    "sampler should be either paddle.io.Sampler or Iterable, "
                    f"but got {type(sampler)}")
            else:
                assert isinstance(sampler, Sampler), \
                    f"sampler should be a paddle.io.Sampler, but got {type(sampler)}"
            assert not shuffle, "shuffle should be False when sampler is set"
            self.sampler = sampler
        else:
            assert not isinstance(dataset, IterableDataset), \
                "dataset should not be a paddle.io.IterableDataset"
            assert sampler is None, "should not set both dataset and sampler"
            assert isinstance(shuffle, bool), \
                f"shuffle should be a boolean value, but got {type(shuffle)}"
            self.sampler = RandomSampler(dataset) if shuffle else SequenceSampler(dataset)
        assert isinstance(batch_size, int) and batch_size > 0, \
            f"batch_size should be a positive integer, but got {batch_size}"
        self.batch_size = batch_size
        self.shuffle = shuffle
        assert isinstance(drop_last, bool), \
            f"drop_last should be a boolean value, but got {type(drop_last)}"
        self.drop_last = drop_last

    def __iter__(self):
        batch = []
        for idx in self.sampler:
            batch.append(idx)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        n = len(self.sampler)
        if not self.drop_last:
            n += self.batch_size - 1
        return n // self.batch_size


class DistributedBatchSampler(BatchSampler):
    """Not emulated: gradrepl runs one process and has no ``paddle.distributed``."""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError(
            "paddle.io.DistributedBatchSampler is not part of gradrepl: it runs a single "
            "process (use paddle.io.BatchSampler or DataLoader(shuffle=...))")


class _InfiniteIterableSampler(Sampler):
    """For an IterableDataset: endless batches of ``batch_size`` placeholders."""

    def __init__(self, dataset, batch_size=1):
        assert isinstance(dataset, IterableDataset), \
            "dataset should be an instance of paddle.io.IterableDataset"
        self.dataset = dataset
        self.batch_size = batch_size

    def __iter__(self):
        while True:
            yield [None] * self.batch_size
