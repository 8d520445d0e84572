"""``torch.testing.assert_close``."""
from __future__ import annotations

import numpy as np

from ._base import EngineTensor, raw


def assert_close(actual, expected, *, rtol=None, atol=None, equal_nan=False, msg=None, **_kw):
    a = raw(actual) if isinstance(actual, EngineTensor) else np.asarray(actual)
    b = raw(expected) if isinstance(expected, EngineTensor) else np.asarray(expected)
    # torch's defaults per dtype (the larger of the two inputs'); complex as its real type
    tol = {"float16": (1e-3, 1e-5), "float32": (1.3e-6, 1e-5), "complex64": (1.3e-6, 1e-5),
           "float64": (1e-7, 1e-7), "complex128": (1e-7, 1e-7)}
    pair = [tol.get(np.dtype(d).name, (0.0, 0.0)) for d in (a.dtype, b.dtype)]
    if rtol is None:
        rtol = max(p[0] for p in pair)
    if atol is None:
        atol = max(p[1] for p in pair)
    if a.shape != b.shape:
        raise AssertionError(msg or f"The values for attribute 'shape' do not match: "
                             f"{a.shape} != {b.shape}.")
    if not np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan):
        raise AssertionError(msg or "Tensor-likes are not close!")


def make_tensor(*shape, dtype, device=None, low=None, high=None, requires_grad=False,
                noncontiguous=False, exclude_zero=False, memory_format=None):
    """``torch.testing.make_tensor``: torch 2.13's draws (floats by ``uniform_(low, high)`` on an
    empty tensor, integers and bools by ``randint``), so the global generator moves as in
    torch; defaults [-9, 9), clamped to the dtype's range."""
    import math

    from .. import torch as _t

    if len(shape) == 1 and isinstance(shape[0], (list, tuple)):
        shape = tuple(shape[0])
    floating = dtype.is_floating_point or dtype.is_complex

    def modify(lowest, highest, default_low, default_high):
        lo = default_low if low is None else low
        hi = default_high if high is None else high
        if any(isinstance(v, float) and math.isnan(v) for v in (lo, hi)):
            raise ValueError(f"`low` and `high` cannot be NaN, but got low={lo} and high={hi}")
        if lo == hi and floating:
            import warnings

            warnings.warn("Passing `low==high` to `torch.testing.make_tensor` for floating or "
                          "complex types is deprecated since 2.1 and will be removed in 2.3. "
                          "Use `torch.full(...)` instead.", FutureWarning, stacklevel=3)
        elif lo >= hi:
            raise ValueError(f"`low` must be less than `high`, but got {lo} >= {hi}")
        elif hi < lowest or lo >= highest:
            raise ValueError(f"The value interval specified by `low` and `high` is [{lo}, {hi}), "
                             f"but {dtype} only supports [{lowest}, {highest})")
        lo, hi = min(max(lo, lowest), highest), min(max(hi, lowest), highest)
        return (lo, hi) if floating else (math.ceil(lo), math.ceil(hi))

    if dtype is _t.bool:
        result = _t.randint(0, 2, shape, dtype=dtype)
    elif not floating:
        info = _t.iinfo(dtype)
        lo, hi = modify(info.min, info.max, 0 if dtype is _t.uint8 else -9, 10)
        result = _t.randint(lo, hi, shape, dtype=dtype)
    else:
        info = _t.finfo(dtype)
        lo, hi = modify(info.min, info.max, -9, 9)
        result = _t.empty(shape, dtype=dtype)
        target = _t.view_as_real(result) if dtype.is_complex else result
        if hi - lo >= info.max:
            target.uniform_(lo / 2, hi / 2).mul_(2)
        else:
            target.uniform_(lo, hi)
    if noncontiguous and result.numel() > 1:
        result = _t.repeat_interleave(result, 2, dim=-1)[..., ::2]
    if exclude_zero:
        result[result == 0] = 1 if not floating else _t.finfo(dtype).tiny
    if floating:
        result.requires_grad = requires_grad
    return result
