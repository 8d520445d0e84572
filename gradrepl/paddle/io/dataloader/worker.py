"""``num_workers > 0``: Paddle's worker processes, emulated in the calling process.

Real Paddle forks ``num_workers`` processes when a DataLoader iterator is made. Before it starts
them it draws ``base_seed = np.random.randint(0, sys.maxsize)`` from the main process's numpy
generator (and only then the shuffle's permutation); worker ``i`` seeds python's ``random`` and
``paddle.seed`` with ``base_seed + i`` and numpy's global generator with four 32-bit words
mixed from (i, base_seed) by numpy's SeedSequence hash (``_generate_states`` in Paddle's
``io/dataloader/worker.py``), then runs ``worker_init_fn(i)``. Batch k goes to the workers in
turn (k mod num_workers among those still running); results come back in batch order.

Here each worker is a saved set of generator states (numpy's, python's and Paddle's) that is
swapped in while that worker's batch is read, with ``get_worker_info()`` answering its
``WorkerInfo``; so a dataset that draws random numbers gives what real Paddle's workers give,
and the main process's generators move only by the base seed's draw. (A worker's changes to the
dataset object itself are seen by the others here; in real Paddle each has its own copy.)
"""
from __future__ import annotations

import random as _pyrandom
import sys

import numpy as np

# the SeedSequence hash constants (numpy's bit_generator.pyx, O'Neill's seed_seq)
_INIT_A, _MULT_A = 0x43B0D7E5, 0x931E8875
_INIT_B, _MULT_B = 0x8B51F9DD, 0x58F38DED
_MIX_L, _MIX_R = 0xCA01F9DD, 0x4973F715
_M32 = 0xFFFFFFFF


def worker_states(base_seed: int, worker_id: int) -> list:
    """The four uint32 words Paddle seeds worker ``worker_id``'s numpy generator with: numpy's
    SeedSequence pool mixing of (worker_id, low and high halves of base_seed, 0)."""
    hash_a = _INIT_A

    def hashmix(value):
        nonlocal hash_a
        value = (value ^ hash_a) & _M32
        hash_a = (hash_a * _MULT_A) & _M32
        value = (value * hash_a) & _M32
        return (value ^ (value >> 16)) & _M32

    def mix(x, y):
        r = ((_MIX_L * x) - (_MIX_R * y)) & _M32
        return (r ^ (r >> 16)) & _M32

    pool = [hashmix(v) for v in (worker_id, base_seed & _M32, base_seed >> 32, 0)]
    for i in range(4):
        for j in range(4):
            if i != j:
                pool[j] = mix(pool[j], hashmix(pool[i]))
    hash_b, out = _INIT_B, []
    for p in pool:
        s = (p ^ hash_b) & _M32
        hash_b = (hash_b * _MULT_B) & _M32
        s = (s * hash_b) & _M32
        out.append((s ^ (s >> 16)) & _M32)
    return out


class WorkerInfo:
    """What ``paddle.io.get_worker_info()`` answers inside a worker: ``id``, ``num_workers``,
    ``dataset`` and ``seed`` (the iterator's base seed); read-only once made."""

    __initialized = False

    def __init__(self, **kwargs):
        for k, v in kwargs.items():
            setattr(self, k, v)
        self.__initialized = True

    def __setattr__(self, key, val):
        if self.__initialized:
            raise RuntimeError(f"Cannot assign attributes to {type(self).__name__} objects")
        return super().__setattr__(key, val)


WorkerInfo.__module__ = "paddle.io.dataloader.worker"

#: the worker whose batch is being read (None in the main process)
CURRENT: list = [None]


def draw_base_seed() -> int:
    """The main process's draw when an iterator with workers is made."""
    return int(np.random.randint(low=0, high=sys.maxsize))


class Worker:
    """One emulated worker process: its generators' states and its WorkerInfo."""

    def __init__(self, worker_id, num_workers, dataset, base_seed):
        from ...tensor.creation import Generator

        self.id = worker_id
        self.info = WorkerInfo(id=worker_id, num_workers=num_workers, dataset=dataset,
                               seed=base_seed)
        self.np_state = np.random.RandomState(worker_states(base_seed, worker_id)).get_state()
        self.py_state = _pyrandom.Random(base_seed + worker_id).getstate()
        self.generator = Generator(base_seed + worker_id)
        self.active = True
        self.stream = None  # an iterable dataset's iterator in this worker

    def run(self, fn, *args):
        """``fn(*args)`` as this worker: its generators and WorkerInfo in place meanwhile."""
        from ...tensor import creation

        main_np, main_py, main_gen = np.random.get_state(), _pyrandom.getstate(), creation._RNG[0]
        before = CURRENT[0]
        np.random.set_state(self.np_state)
        _pyrandom.setstate(self.py_state)
        creation._RNG[0] = self.generator
        CURRENT[0] = self.info
        try:
            return fn(*args)
        finally:
            self.np_state, self.py_state = np.random.get_state(), _pyrandom.getstate()
            np.random.set_state(main_np)
            _pyrandom.setstate(main_py)
            creation._RNG[0] = main_gen
            CURRENT[0] = before


def start_workers(loader):
    """The workers of a new iterator (the base seed drawn now), ``worker_init_fn`` run in each."""
    base_seed = draw_base_seed()
    workers = [Worker(i, loader.num_workers, loader.dataset, base_seed)
               for i in range(loader.num_workers)]
    if loader.worker_init_fn is not None:
        for w in workers:
            w.run(loader.worker_init_fn, w.id)
    return workers
