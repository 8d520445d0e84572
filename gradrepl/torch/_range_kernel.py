"""torch.arange's floating values as ATen's CPU kernel makes them (``RangeFactoriesKernel.cpp``).

``arange_kernel`` runs ``cpu_serial_kernel_vec`` over the output in the accumulate type (double
for float32/float64, float for float16/bfloat16): blocks of two ``Vectorized<T>`` take
``base = start + step * idx`` rounded to T, then ``base + k * step`` for the k-th lane; the values
after the last whole double block take ``start + step * idx``. Both expressions are fused
multiply-adds in the AVX2/AVX512 builds (``_capability.fused``). ``at::parallel_for`` with
GRAIN_SIZE 32768 splits a longer output between the threads, each chunk starting its own blocks.
So ``torch.arange(0, 1, 0.02)[9]`` is 0.17999999225 (lane 1 of the block at 8), not round(0.18).
"""
from __future__ import annotations

import numpy as np

from . import _capability

_GRAIN = 32768


def _chunks(n):
    threads = _capability.threads()
    if n <= _GRAIN or threads <= 1:
        return [(0, n)]
    tasks = min(threads, -(-n // _GRAIN))
    size = -(-n // tasks)
    return [(b, min(b + size, n)) for b in range(0, n, size)]


def _madd(a, b, c, acc):
    """a * b + c in the accumulate type, rounded once when the build fuses it."""
    a, b, c = np.broadcast_arrays(*(np.asarray(v, acc) for v in (a, b, c)))
    if not _capability.fused():
        return a * b + c
    if acc == np.float32:
        return (a.astype(np.float64) * b + c).astype(np.float32)  # the product is exact there
    from ._sleef64 import fma64

    return fma64(a.copy(), b.copy(), c.copy())


def values(start, step, n, dt):
    """The n values of ``torch.arange(start, ..., step)`` in the floating numpy dtype ``dt``."""
    acc = np.float64 if dt.itemsize >= 4 else np.float32
    start, step = acc(start), acc(step)
    lanes = _capability.lanes(dt)
    block = 2 * lanes
    idx = np.arange(n, dtype=np.int64)
    out = np.empty(n, dt)
    for lo, hi in _chunks(n):
        vec_end = lo + (hi - lo) // block * block
        j = idx[lo:vec_end]
        if j.size:
            base = _madd(step, (lo + (j - lo) // lanes * lanes).astype(acc), start, acc).astype(dt)
            k = ((j - lo) % lanes).astype(acc)
            out[lo:vec_end] = _madd(k, step, base.astype(acc), acc).astype(dt)
        tail = idx[vec_end:hi]
        if tail.size:
            out[vec_end:hi] = _madd(step, tail.astype(acc), start, acc).astype(dt)
    return out
