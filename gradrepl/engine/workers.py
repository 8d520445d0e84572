"""One persistent pool of threads for the kernels that split their work as the framework's
intra-op threads do (torch's ``at::parallel_for``, oneDNN's threads over samples or parts of a
reduction).

The kernels here are numpy calls that let go of the GIL (ufunc loops, copies, BLAS products on
one thread), so a kernel whose parts are independent (samples of a convolution, the per-thread
partial sums of a filter gradient that are then added in thread order) runs its parts at the
same time. The caller's thread takes the first part, the pool's threads the others: with torch's
thread count ``n`` the pool holds ``n - 1`` threads, made once and kept (a pool made per call
cost more than the parts it ran). The split is the caller's: where the bits depend on it (a
reduction's partial sums) it is the framework's split, the same whatever the pool's size.
"""
from __future__ import annotations

import threading

_POOL = None
_LOCK = threading.Lock()
_LOCAL = threading.local()


def _pool(workers):
    global _POOL
    with _LOCK:
        if _POOL is None or _POOL._max_workers < workers:
            from concurrent.futures import ThreadPoolExecutor

            old, _POOL = _POOL, ThreadPoolExecutor(workers, thread_name_prefix="gradrepl-intraop")
            if old is not None:
                old.shutdown(wait=False)
        return _POOL


def _inside(fn, part):
    _LOCAL.busy = True
    try:
        return fn(part)
    finally:
        _LOCAL.busy = False


def run(fn, parts):
    """``[fn(part) for part in parts]``, the parts at the same time: the first on this thread,
    the others on the pool's. Inside a part (nested) or for one part, in this thread in order."""
    parts = list(parts)
    if len(parts) <= 1 or getattr(_LOCAL, "busy", False):
        return [fn(p) for p in parts]
    pool = _pool(len(parts) - 1)
    futures = [pool.submit(_inside, fn, p) for p in parts[1:]]
    try:
        first = _inside(fn, parts[0])
    finally:
        rest = [f.result() for f in futures]   # (every part finished before an error leaves)
    return [first] + rest


def split(n, parts):
    """``n`` items in up to ``parts`` contiguous (start, stop) ranges, the first ones one
    larger (oneDNN's ``balance211``); no empty range."""
    parts = max(1, min(parts, n))
    big, small = -(-n // parts), n // parts
    first = n - small * parts if big != small else parts
    out, start = [], 0
    for t in range(parts):
        size = big if t < first else small
        out.append((start, start + size))
        start += size
    return out
