"""``paddle.io.DataLoader``, run in the calling process.

Paddle reads batches on a background thread (or worker processes) and hands them over through a
queue; gradrepl reads each batch when it is asked for. What comes out is the same: the dataset's
samples for each batch of indices, collated (``collate_fn`` or ``default_collate_fn``) and then
turned into Tensors (``dataloader/collate.as_output``). ``places``, ``use_shared_memory`` and
the buffer settings are accepted and change nothing; ``num_workers > 0`` reads each batch as
the worker Paddle would give it to, with that worker's random generators
(``dataloader/worker.py``).

The shuffled order comes from numpy's global generator, as Paddle's does, and is drawn when the
iterator is created (Paddle's reader thread draws it at once too).
"""
from __future__ import annotations

from ..core import PaddleClass, PaddleObject
from .dataloader.batch_sampler import BatchSampler, _InfiniteIterableSampler
from .dataloader.collate import as_output, default_collate_fn, default_convert_fn
from .dataloader.dataset import IterableDataset


class DataLoader(PaddleObject, metaclass=PaddleClass):
    """Iterates ``dataset`` in batches (``batch_size``, ``shuffle``, ``drop_last``) or by a
    ``batch_sampler``; ``batch_size=None`` yields single samples."""

    def __init__(self, dataset, feed_list=None, places=None, return_list=True,
                 batch_sampler=None, batch_size=1, shuffle=False, drop_last=False,
                 collate_fn=None, num_workers=0, use_buffer_reader=True, reader_buffer_size=2,
                 prefetch_factor=2, use_shared_memory=True, timeout=0, worker_init_fn=None,
                 persistent_workers=False):
        self.return_list = return_list
        self.collate_fn = collate_fn
        self.use_buffer_reader = use_buffer_reader
        self.reader_buffer_size = reader_buffer_size
        self.prefetch_factor = prefetch_factor
        self.worker_init_fn = worker_init_fn
        self.dataset = dataset
        self.feed_list = feed_list
        self.places = places
        assert num_workers >= 0, "num_workers should be a non-negative value"
        self.num_workers = num_workers
        assert prefetch_factor > 0, "prefetch_factor should be a positive value"
        self.use_shared_memory = use_shared_memory and num_workers > 0
        assert timeout >= 0, "timeout should be a non-negative value"
        self.timeout = timeout
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            if shuffle:
                raise ValueError(
                    f"IterableDataset not support shuffle, but got shuffle={shuffle}")
            if batch_sampler is not None:
                raise ValueError("IterableDataset expect unspecified batch_sampler")
        if batch_sampler is not None:
            assert batch_size == 1 and not shuffle and not drop_last, (
                "batch_size/shuffle/drop_last should not be set when batch_sampler is given")
            self.batch_sampler = batch_sampler
            self.batch_size = None
        elif batch_size is None:
            self.batch_sampler = None
            self.batch_size = None
        else:
            assert batch_size > 0, ("batch_size should be None or a positive value when "
                                    "batch_sampler is not given")
            self.batch_size = batch_size
            if self._iterable:
                self.batch_sampler = _InfiniteIterableSampler(dataset, batch_size)
            else:
                self.batch_sampler = BatchSampler(dataset=dataset, batch_size=batch_size,
                                                  shuffle=shuffle, drop_last=drop_last)
        self.drop_last = drop_last
        self.auto_collate_batch = self.batch_sampler is not None
        self._persistent_workers = persistent_workers

    def __len__(self):
        if self._iterable:
            raise ValueError("length of IterableDataset not supported")
        if self.auto_collate_batch:
            return len(self.batch_sampler)
        return len(self.dataset)

    def __iter__(self):
        if self.num_workers > 0:
            return _DataLoaderIterMultiProcess(self)
        return _DataLoaderIterSingleProcess(self)

    def __call__(self):
        return self.__iter__()


class _DataLoaderIterSingleProcess(PaddleObject, metaclass=PaddleClass):
    """One pass over a DataLoader: indices from its sampler, samples fetched on demand."""

    _paddle_path = "paddle.io.dataloader.dataloader_iter._DataLoaderIterSingleProcess"

    def __init__(self, loader):
        self._loader = loader
        self._dataset = loader.dataset
        self._auto = loader.auto_collate_batch
        if self._auto:
            self._collate = loader.collate_fn or default_collate_fn
            indices = loader.batch_sampler
        else:
            self._collate = loader.collate_fn or default_convert_fn
            indices = (_InfiniteIterableSampler(self._dataset, 1) if loader._iterable
                       else list(range(len(self._dataset))))
        self._indices = iter(indices)
        self._stream = iter(self._dataset) if loader._iterable else None
        self._next = self._draw()  # the shuffle is drawn now, as Paddle's reader thread does

    def _draw(self):
        try:
            return next(self._indices)
        except StopIteration:
            return StopIteration

    def __iter__(self):
        return self

    def __len__(self):
        return len(self._loader)

    def __next__(self):
        indices = self._next
        if indices is StopIteration:
            raise StopIteration
        self._next = None
        data = self._fetch(indices)
        self._next = self._draw()
        return as_output(data)

    def _fetch(self, indices):
        if self._stream is not None:
            return self._fetch_stream(indices)
        if self._auto:
            data = [self._dataset[i] for i in indices]
        else:
            data = self._dataset[indices]
        return self._collate(data) if self._collate else data

    def _fetch_stream(self, indices):
        if self._auto:
            data = []
            for _ in indices:
                try:
                    data.append(next(self._stream))
                except StopIteration:
                    break
            if not data or (self._loader.drop_last and len(data) < len(indices)):
                self._next = StopIteration
                raise StopIteration
        else:
            try:
                data = next(self._stream)
            except StopIteration:
                self._next = StopIteration
                raise
        return self._collate(data) if self._collate else data


class _DataLoaderIterMultiProcess(_DataLoaderIterSingleProcess):
    """One pass with ``num_workers`` emulated workers: batch k is read by the next running
    worker in turn, inside its own generator states (``dataloader/worker.py``)."""

    _paddle_path = "paddle.io.dataloader.dataloader_iter._DataLoaderIterMultiProcess"

    def __init__(self, loader):
        from .dataloader import worker

        loader_workers = getattr(loader, "_kept_workers", None)
        if loader._persistent_workers and loader_workers is not None:
            self._workers = loader_workers  # (persistent: same workers, no new base seed)
        else:
            self._workers = worker.start_workers(loader)  # the base seed before the shuffle
            if loader._persistent_workers:
                loader._kept_workers = self._workers
        self._turn = 0
        if loader._iterable:
            for w in self._workers:
                w.active = True
                w.stream = w.run(iter, loader.dataset)
        super().__init__(loader)
        self._stream = None

    def _fetch(self, indices):
        while True:
            running = [w for w in self._workers if w.active]
            if not running:
                self._next = StopIteration
                raise StopIteration
            w = self._workers[self._turn % len(self._workers)]
            self._turn += 1
            if not w.active:
                continue
            if not self._loader._iterable:
                return w.run(super()._fetch, indices)
            self._stream = w.stream
            try:
                return w.run(self._fetch_stream, indices)
            except StopIteration:
                w.active = False
                self._next = indices  # (the batch's place goes to the next running worker)
            finally:
                self._stream = None


def get_worker_info():
    """The WorkerInfo of the worker reading the current batch; None in the main process."""
    from .dataloader.worker import CURRENT

    return CURRENT[0]
