"""``torch.testing``: ``assert_close`` (its own module) and ``make_tensor``."""
from __future__ import annotations

from ._testing_compare import assert_close

__all__ = ["assert_close", "make_tensor"]


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
