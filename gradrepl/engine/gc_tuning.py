"""The garbage collector's first threshold, raised when the engine is imported.

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

A threshold the user set before importing is left alone, and ``GRADREPL_GC=default`` keeps
CPython's.
"""
from __future__ import annotations

import gc
import os

CPYTHON_DEFAULT = (700, 10, 10)
THRESHOLDS = (10_000, 10, 10)


def tune() -> bool:
    """Raise the first threshold unless the user chose thresholds; True if it was changed."""
    if os.environ.get("GRADREPL_GC", "").lower() == "default":
        return False
    if gc.get_threshold() != CPYTHON_DEFAULT:
        return False
    gc.set_threshold(*THRESHOLDS)
    return True
