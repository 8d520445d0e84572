"""``paddle.io.BatchSampler``: groups a sampler's indices into lists of ``batch_size``."""
from __future__ import annotations

from collections.abc import Iterable

from .dataset import IterableDataset
from .sampler import RandomSampler, Sampler, SequenceSampler


def _batches(indices, batch_size, drop_last):
    """Lists of ``batch_size`` indices in order; the last short one unless ``drop_last``."""
    batch = []
    for idx in indices:
        batch.append(idx)
        if len(batch) == batch_size:
            yield batch
            batch = []
    if batch and not drop_last:
        yield batch


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
        return _batches(self.sampler, self.batch_size, self.drop_last)

    def __len__(self):
        n = len(self.sampler)
        if not self.drop_last:
            n += self.batch_size - 1
        return n // self.batch_size


class DistributedBatchSampler(BatchSampler):
    """The batches one process of a data-parallel job reads: the indices padded (by repeating
    from the start) to a multiple of ``num_replicas``, shuffled by ``RandomState(epoch)`` when
    ``shuffle``, then dealt out batch by batch to the ranks in turn (the last, short round
    evenly). ``num_replicas``/``rank`` default to ``paddle.distributed.ParallelEnv()``'s: one
    process here."""

    def __init__(self, dataset, batch_size, num_replicas=None, rank=None, shuffle=False,
                 drop_last=False):
        from ...distributed import ParallelEnv

        self.dataset = dataset
        assert isinstance(batch_size, int) and batch_size > 0, \
            "batch_size should be a positive integer"
        self.batch_size = batch_size
        assert isinstance(shuffle, bool), "shuffle should be a boolean value"
        self.shuffle = shuffle
        assert isinstance(drop_last, bool), "drop_last should be a boolean number"
        if num_replicas is not None:
            assert isinstance(num_replicas, int) and num_replicas > 0, \
                "num_replicas should be a positive integer"
        if rank is not None:
            assert isinstance(rank, int) and rank >= 0, "rank should be a non-negative integer"
        self.nranks = ParallelEnv().nranks if num_replicas is None else num_replicas
        self.local_rank = ParallelEnv().local_rank if rank is None else rank
        self.drop_last = drop_last
        self.epoch = 0
        self.num_samples = -(-len(dataset) // self.nranks)
        self.total_size = self.num_samples * self.nranks

    def _padded(self):
        indices = list(range(len(self.dataset)))
        short = self.total_size - len(indices)
        while short > 0:
            indices += indices[:short]
            short = self.total_size - len(indices)
        return indices

    def _this_rank(self, indices):
        """Round-robin by batch; the leftover (less than one batch per rank) split evenly."""
        step = self.batch_size * self.nranks
        tail = self.total_size % step
        mine = []
        for i in range(self.local_rank * self.batch_size, len(indices) - tail, step):
            mine += indices[i:i + self.batch_size]
        per_rank = tail // self.nranks
        rest = indices[len(indices) - tail:]
        return mine + rest[self.local_rank * per_rank:(self.local_rank + 1) * per_rank]

    def __iter__(self):
        import numpy as np

        indices = self._padded()
        if self.shuffle:
            np.random.RandomState(self.epoch).shuffle(indices)
            self.epoch += 1
        if self.nranks > 1:
            indices = self._this_rank(indices)
        yield from _batches(indices, self.batch_size, self.drop_last)

    def __len__(self):
        n = self.num_samples + (0 if self.drop_last else self.batch_size - 1)
        return n // self.batch_size

    def set_epoch(self, epoch):
        """The seed of the next shuffle (each rank must use the same)."""
        self.epoch = epoch


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
