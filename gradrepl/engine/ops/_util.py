"""Small helpers the op modules share."""
from __future__ import annotations

import contextlib

import numpy as np

from .. import registry as _registry


def const(like, value, dtype=None):
    """A constant tensor (no gradient) in ``like``'s dialect, with ``like``'s dtype by default."""
    dt = np.dtype(dtype if dtype is not None else like.data.dtype)
    from ..registry import STORAGE

    if STORAGE and dt in STORAGE and np.asarray(value).dtype != dt:
        # a dialect's stored format (bfloat16 bits): its own conversion of the numbers
        conv = getattr(STORAGE[dt], "from_values", None)
        if conv is not None:
            return like._result_type._wrap(conv(like, np.asarray(value)), True)
    arr = np.asarray(value, dtype=dt)
    if _registry.SHAPE_CONST is not None and (type(value) is int or type(value) is float):
        _registry.SHAPE_CONST(arr)   # (a VJP's number: from the code, the attributes, shapes)
    return like._result_type._wrap(arr, True)


def kept_array(cache, key, make, limit=64):
    """``make()``, made once per ``key`` in ``cache`` and kept read-only for the next call (the
    cache starts over past ``limit`` keys): index rows, zero rows and such of a training loop."""
    arr = cache.get(key)
    if arr is None:
        if len(cache) > limit:
            cache.clear()
        arr = cache[key] = make()
        arr.flags.writeable = False
    return arr


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
_NULL = contextlib.nullcontext()


def quiet(**kw):
    """``np.errstate(**kw)``, or nothing when the whole run is already quiet (``quiet_fp``):
    entering numpy's errstate costs ~2 us, a noticeable part of a small op."""
    return _NULL if FP.on else np.errstate(**kw)


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


def reset_quiet_fp() -> None:
    """The ops go back to their own errstate (after a ``quiet_fp`` that could not be left, as
    when it was entered in another context)."""
    FP.on = False


# ----------------------------------------------------------------- one-element tensors
# numpy's array calls cost ~0.3-0.7 us each however small the array; its scalars (np.float32,
# np.float64) compute the same IEEE operations with the same roundings in ~0.07 us. Kernels of
# one-element tensors (the tutorials' ``paddle.to_tensor([2.0])``) take their value as a scalar,
# compute on it and store the result back: same bits, a fraction of the cost.

def scalar_of(x):
    """The value of a one-element array as a numpy scalar of its dtype."""
    return x[0] if x.ndim == 1 else x.reshape(-1)[0]


def array_like(x, r):
    """``r`` stored in a new array of ``x``'s shape and dtype (``x`` has one element)."""
    out = x.copy()  # C-contiguous, so the reshape below is a view
    if out.ndim == 1:
        out[0] = r
    else:
        out.reshape(-1)[0] = r
    return out


def one_element(scalar_fn, array_fn):
    """A kernel of same-shape, same-dtype arrays: ``scalar_fn`` on their values when they have
    one element each, ``array_fn`` otherwise. ``scalar_fn`` must compute exactly what
    ``array_fn`` does (numpy scalar arithmetic; no shape or broadcasting logic)."""

    def run(*arrays):
        first = arrays[0]
        if first.size == 1:
            dt, shape = first.dtype, first.shape
            for a in arrays:
                if a.dtype is not dt or a.shape != shape:
                    return array_fn(*arrays)
            return array_like(first, scalar_fn(*[scalar_of(a) for a in arrays]))
        return array_fn(*arrays)

    run.__name__ = getattr(array_fn, "__name__", "kernel")
    run.__doc__ = array_fn.__doc__
    return run
