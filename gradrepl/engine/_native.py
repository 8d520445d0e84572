"""The optional native kernels, from one place: ``lib`` is the compiled module
(``gradrepl/engine/_cnative.c``, built by setup.py where a C compiler is found) or None.

Each kernel there computes what a numpy replay of a torch kernel computes, bit for bit (tests/
test_native_kernels.py compares them on many inputs); each caller keeps its replay, which runs
when ``lib`` is None (an install without a compiler: the same bits, slower) and when a kernel
answers 1 (an input it leaves to the replay: a nan, a value outside its checked range).
``GRADREPL_NATIVE=0`` in the environment at import leaves the module unloaded (the replays
alone, as the lean install runs)."""
from __future__ import annotations

import os

lib = None
why_not = ""
if os.environ.get("GRADREPL_NATIVE", "").strip() == "0":
    why_not = "GRADREPL_NATIVE=0"
else:
    try:
        from . import _cnative as lib
    except ImportError as exc:   # (not built: no C compiler at install)
        why_not = f"not built ({exc})"

AVAILABLE = lib is not None
