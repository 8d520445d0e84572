"""Three process settings the engine makes when it is imported (the garbage collector's
thresholds, numpy's transparent huge pages, glibc's malloc for large blocks) and ``empty_huge``
for the kernels' large outputs.

The collector
-------------

Each recorded op makes about fifteen objects the cyclic collector tracks (the output tensor, its
backward node, the tuples of its metadata and edges, a weakref). With CPython's default
thresholds ``(700, 10, 10)`` a long graph triggers a full collection every time the tracked heap
grows by a quarter, and each one walks every node of the graph: measured on a 60,000-op chain
(``benchmarks/op_overhead.py``), 20.7 us an op forward with the collector on against 4.8 us with
it off. A first threshold of 10,000 (collect the youngest generation after 10,000 allocations,
not 700) lets far fewer full collections happen while a graph is built: 5.7 us an op, the
collector still on. The graph itself holds no reference cycles (nodes point to their outputs by
weakref), so it is freed by reference counting either way; only a user's own cyclic garbage waits
a little longer for the collector.

The second threshold is 100, not 10: a growing graph's objects survive the young collections, and
every tenth of those CPython collects the middle generation and, once that has happened ten
times, the whole heap (each full collection walks every node). With 100 the middle generation is
collected every million allocations and a full collection waits for ten of those: the chain's
forward measured 3.4-4.2 us an op against 4.0-5.3 with (10,000, 10, 10), in alternated runs
(torch 3.4-3.8). Young cyclic garbage (a caught exception's traceback) is still collected after
10,000 allocations.

A threshold the user set before importing is left alone, and ``GRADREPL_GC=default`` keeps
CPython's.

Huge pages
----------
numpy asks the kernel for transparent huge pages on every large array (``madvise``). Where the
kernel's defrag policy is ``madvise`` (this machine's), each fault on such an array may compact
memory first, and a training step allocates its large gradients anew each time: vgg11's step on
[1, 3, 224, 224] took 2.5-2.6 s with them and 1.5-1.6 s without, its backward 1.7 s against
0.8 s (``benchmarks/vgg11_step.py``, alternated runs). So the engine turns numpy's request off,
unless the user chose with ``NUMPY_MADVISE_HUGEPAGE``.

The opposite holds for a large array that one op writes in full right after allocating it (a
BLAS product's output, an outer product): faulting it in 4 KiB pages costs more than 2 MiB
pages do. ``empty_huge`` asks for huge pages for such an array alone (the kernels of
``linalg.py`` and ``conv.py`` use it for their outputs of 8 MiB and more): vgg11's backward went
from 0.86-0.88 s to 0.63-0.70 s (alternated runs, numpy's request off otherwise).

Large arrays from the heap
--------------------------
glibc's malloc maps every block of more than 32 MiB afresh and unmaps it when freed, so each
large array of a training step (vgg11 at batch 32: 411 MB activations, column matrices,
gradients) is faulted in page by page every time it is made: 1.8 million page faults a step.
``tune_malloc`` asks glibc (``mallopt``) to take them from the heap instead and to keep up to
``TRIM_BYTES`` (2 GiB) of freed heap at its top, so the next step's arrays reuse memory already
mapped, as Paddle's and torch's caching allocators do. vgg11 at batch 32, the same code with and
without (``GRADREPL_MALLOC=default``): 22.9 -> 14.3 s a step (forward 7.3 -> 4.5 s, backward
15.3 -> 9.6 s; 0.15 million faults), peak RSS 3.57 -> 3.96 GB (Paddle 4.0); with 1 GiB kept
instead of 2, 17.6 s. At batch 1 the step is the same within the noise, peak RSS 2.40 -> 2.54
GB. The cost: memory a large computation freed stays with the process for its next one.
Only with glibc; ``GRADREPL_MALLOC=default`` (or glibc's own ``MALLOC_MMAP_MAX_`` /
``MALLOC_TRIM_THRESHOLD_`` / ``GLIBC_TUNABLES`` settings) leaves malloc as it is.
"""
from __future__ import annotations

import gc
import os

CPYTHON_DEFAULT = (700, 10, 10)
THRESHOLDS = (10_000, 100, 10)


HUGE_MIN_BYTES = 8 << 20


def empty_huge(shape, dtype):
    """``np.empty`` that asks for huge pages when the array is large (``HUGE_MIN_BYTES``) and
    numpy's general request is off (``tune_hugepages``): for a large array that is written
    once in full right away (vgg11's 400 MB Linear weight gradient: 180 ms with 4 KiB pages
    faulted in one by one, 45-70 ms with 2 MiB pages, measured here)."""
    import numpy as np

    dtype = np.dtype(dtype)
    nbytes = dtype.itemsize
    for s in shape:
        nbytes *= s
    setter = _madvise_setter()
    if nbytes < HUGE_MIN_BYTES or setter is None:
        return np.empty(shape, dtype)
    previous = setter(True)
    try:
        return np.empty(shape, dtype)
    finally:
        setter(previous)


def _madvise_setter():
    try:
        from numpy._core.multiarray import _set_madvise_hugepage
    except ImportError:  # pragma: no cover - older numpy layouts
        try:
            from numpy.core.multiarray import _set_madvise_hugepage
        except ImportError:
            return None
    return _set_madvise_hugepage


def tune() -> None:
    tune_gc()
    tune_hugepages()
    tune_malloc()


#: Freed heap memory glibc keeps at the heap's top instead of returning it (see the docstring).
TRIM_BYTES = (1 << 31) - 1  # (the most mallopt takes: an int)
_M_TRIM_THRESHOLD, _M_MMAP_MAX = -1, -4  # mallopt's parameter numbers (malloc.h)


def tune_malloc() -> bool:
    """Large blocks from glibc's heap, kept for reuse; True if malloc was changed."""
    if os.environ.get("GRADREPL_MALLOC", "").lower() == "default":
        return False
    if any(k in os.environ for k in ("MALLOC_MMAP_MAX_", "MALLOC_TRIM_THRESHOLD_")) or \
            "glibc.malloc" in os.environ.get("GLIBC_TUNABLES", ""):
        return False
    try:
        if not os.confstr("CS_GNU_LIBC_VERSION").startswith("glibc"):
            return False
        import ctypes

        libc = ctypes.CDLL(None)
        mallopt = libc.mallopt
    except (ValueError, OSError, AttributeError):  # not glibc, or no such call
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    return bool(mallopt(_M_TRIM_THRESHOLD, TRIM_BYTES) and mallopt(_M_MMAP_MAX, 0))


def tune_hugepages() -> bool:
    """Stop numpy's huge-page requests unless NUMPY_MADVISE_HUGEPAGE says otherwise."""
    if "NUMPY_MADVISE_HUGEPAGE" in os.environ:
        return False
    setter = _madvise_setter()
    if setter is None:
        return False
    setter(False)
    return True


def tune_gc() -> bool:
    """Raise the thresholds unless the user chose their own; True if they were changed."""
    if os.environ.get("GRADREPL_GC", "").lower() == "default":
        return False
    if gc.get_threshold() != CPYTHON_DEFAULT:
        return False
    gc.set_threshold(*THRESHOLDS)
    return True
