"""Small helpers the op modules share."""
from __future__ import annotations

import numpy as np


def const(like, value, dtype=None):
    """A constant tensor (no gradient) in ``like``'s dialect, with ``like``'s dtype by default."""
    arr = np.asarray(value, dtype=dtype if dtype is not None else like.data.dtype)
    return like._result_type._wrap(arr, True)


def norm_axes(axis, ndim):
    """Paddle-style axis argument (None, int, list/tuple) -> sorted tuple of non-negative axes."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (list, tuple)):
        axes = axis
    else:
        axes = (axis,)
    out = []
    for a in axes:
        a = int(a)
        if not -max(ndim, 1) <= a < max(ndim, 1):
            raise ValueError(f"axis {a} is out of range for a tensor of rank {ndim}")
        out.append(a % ndim if ndim else 0)
    return tuple(sorted(set(out)))


class _FloatingPointQuiet:
    """Whether numpy's floating-point warnings are already silenced for the whole run.

    Paddle never warns about inf/nan results; the ops silence numpy with ``np.errstate`` around
    each kernel, which costs about a microsecond a call. ``quiet_fp()`` silences numpy once for a
    whole run (``gradrepl run``, the shell) and tells the ops to skip their own errstate.
    """

    __slots__ = ("on",)

    def __init__(self):
        self.on = False


FP = _FloatingPointQuiet()


class quiet_fp:
    """Context manager: numpy floating-point warnings off, and the ops' per-call errstate skipped."""

    def __enter__(self):
        self._errstate = np.errstate(all="ignore")
        self._errstate.__enter__()
        self._prev = FP.on
        FP.on = True
        return self

    def __exit__(self, *exc):
        FP.on = self._prev
        self._errstate.__exit__(*exc)
        return False
