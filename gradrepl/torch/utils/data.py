"""``torch.utils.data``: ``Dataset``, ``TensorDataset``, ``DataLoader`` (batches in order, or
shuffled with the torch generator)."""
from __future__ import annotations

from .. import _ops, _random


class Dataset:
    def __getitem__(self, index):
        raise NotImplementedError

    def __add__(self, other):
        raise NotImplementedError


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


def _collate(items):
    first = items[0]
    if isinstance(first, tuple):
        return [_collate([it[k] for it in items]) for k in range(len(first))]
    if hasattr(first, "grad_node"):
        return _ops.stack(items)
    from .._creation import tensor

    return tensor(items)


class DataLoader:
    def __init__(self, dataset, batch_size=1, shuffle=False, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, drop_last=False, **_kw):
        self.dataset = dataset
        self.batch_size = batch_size
        self.shuffle = shuffle
        self.drop_last = drop_last
        self.collate_fn = collate_fn

    def __iter__(self):
        """As torch's iterator: a base seed is drawn from the default generator, then (shuffle)
        the sampler's seed, and a generator seeded with it gives the permutation."""
        n = len(self.dataset)
        _random.DEFAULT.random64(1)  # the iterator's base seed
        if self.shuffle:
            seed = int(_random.DEFAULT.random64(1)[0]) % (1 << 63)
            order = list(_random.randperm(n, _random.Generator().manual_seed(seed)))
        else:
            order = list(range(n))
        for i in range(0, n, self.batch_size):
            idx = order[i:i + self.batch_size]
            if self.drop_last and len(idx) < self.batch_size:
                break
            items = [self.dataset[int(k)] for k in idx]
            yield self.collate_fn(items) if self.collate_fn else _collate(items)

    def __len__(self):
        n = len(self.dataset)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
