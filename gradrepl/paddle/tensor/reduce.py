"""Reductions of the ``paddle`` namespace (also bound as Tensor methods): sum, mean, max, min,
amax, amin, prod, logsumexp, var, std, norm, all, any, count_nonzero, median, cumsum, cumprod.

This layer holds what is Paddle's and not the engine's: argument names and checks, the dtype
rules measured on real Paddle (sum of int32/bool gives int64, mean of ints truncates in the int
dtype, prod and max keep the dtype), the shape of a full reduction (``[]``, or ``[1]`` in the
2.2 profile), the error types and texts, and the version differences listed in ``profiles``
(max/min ties, NaN handling, empty tensors, integer inputs, the norm API). ``var``, ``std`` and
``norm`` are composed from engine ops the way Paddle's Python composes them, so the graph and the
float32 rounding are Paddle's.
"""
from __future__ import annotations

import builtins

import numpy as np

from ...engine.ops import math as M
from ...engine.ops import reduce as R
from ...engine.tensor import Tensor as _T
from .. import dtypes, glog, profiles, promotion

__all__ = ["sum", "mean", "max", "min", "amax", "amin", "prod", "logsumexp", "var", "std",
           "norm", "all", "any", "count_nonzero", "median", "cumsum", "cumprod", "nansum",
           "nanmean"]  # vector_norm / matrix_norm are reached as paddle.linalg.*
__methods__ = ["sum", "mean", "max", "min", "amax", "amin", "prod", "logsumexp", "var", "std",
               "norm", "all", "any", "count_nonzero", "median", "cumsum", "cumprod", "nansum",
               "nanmean"]

_INT_SMALL = {np.dtype(np.int8), np.dtype(np.uint8), np.dtype(np.int16)}


# ---------------------------------------------------------------- argument checks
def _aliases(kw, fname, **names):
    """Paddle 3's keyword aliases (``input=`` for x, ``dim=`` for axis); 2.x rejects them."""
    out = {}
    for alias, target in names.items():
        if alias in kw:
            if not profiles.current().param_aliases:
                raise TypeError(f"{fname}() got an unexpected keyword argument '{alias}'")
            out[target] = kw.pop(alias)
    if kw:
        raise TypeError(f"{fname}() got an unexpected keyword argument '{next(iter(kw))}'")
    return out


def _arg_error(fname, pos, allowed, value):
    kind = profiles.current().arg_type_error
    if kind == "TypeError":
        return TypeError(f"(InvalidType) {fname}(): argument (position {pos}) must be {allowed}, "
                         f"but got {type(value).__name__}")
    return ValueError(f"(InvalidArgument) {fname}(): argument (position {pos}) must be list or "
                      f"int, but got {type(value).__name__}")


def _axis_values(axis, fname):
    """The axis argument as None or a list of python ints."""
    if axis is None:
        return None
    if isinstance(axis, _T):
        return [int(v) for v in np.asarray(axis.data).reshape(-1)]
    if isinstance(axis, (list, tuple)):
        for a in axis:
            if isinstance(a, _T):
                continue
            if not isinstance(a, (int, np.integer)) or isinstance(a, bool):
                raise _arg_error(fname, 2, "list, tuple, int, or Tensor", a)
        return [int(a.item() if isinstance(a, _T) else a) for a in axis]
    if isinstance(axis, (int, np.integer)) and not isinstance(axis, bool):
        return [int(axis)]
    raise _arg_error(fname, 2, "list, tuple, int, or Tensor", axis)


def reduce_axes(x, axis, fname="sum"):
    """Paddle axis argument -> sorted tuple of non-negative axes (None or [] means all), with
    Paddle's checks: range, duplicates, and the 0-D rule."""
    nd = x.data.ndim
    vals = _axis_values(axis, fname)
    if not vals:
        return tuple(range(nd))
    if nd == 0:
        for a in vals:
            if a not in (0, -1):
                raise ValueError(
                    "(InvalidArgument) When input 0D Tensor, the axis can only be -1, 0, None or "
                    f"[]\n  [Hint: Expected axis[i] == 0 || axis[i] == -1 == true, but received "
                    f"axis[i] == 0 || axis[i] == -1:0 != true:1.]")
        return ()
    seen = []
    for i, a in enumerate(vals):
        if a >= nd:
            raise ValueError(
                f"(InvalidArgument) The reduce dim index {i} should be in the range [ "
                f"-dimension(X), dimension(X) ) which dimension = {nd}. But received dim index "
                f"= {a}.\n  [Hint: Expected axis[i] < x_rank, but received axis[i]:{a} >= "
                f"x_rank:{nd}.]")
        if a < -nd:
            raise ValueError(
                f"(InvalidArgument) The reduce dim index {i} should be in the range [ "
                f"-dimension(X), dimension(X) )  which dimension = {nd}. But received dim index "
                f"= {a}.\n  [Hint: Expected axis[i] >= -x_rank, but received axis[i]:{a} < "
                f"-x_rank:{-nd}.]")
        a %= nd
        if a in seen:
            raise ValueError(
                f"(InvalidArgument) Axis contains duplicate dimensions. Dimension {a} appears "
                f"more than once in axis.\n  [Hint: Expected axis_bitmap & bit == 0, but received "
                f"axis_bitmap & bit:1 != 0:0.]")
        seen.append(a)
    return tuple(sorted(seen))


def out_shape_for(x, axes, keepdim):
    """The shape a reduction must be given explicitly: ``[1]`` for a 0-D result in 2.2."""
    if profiles.current().zero_d:
        return None
    nd = x.data.ndim
    if (not keepdim and len(axes) == nd) or nd == 0:
        return (1,) * builtins.max(nd if keepdim else 1, 1)
    return None


def _reduction(x, axis, keepdim, fname):
    axes = reduce_axes(x, axis, fname)
    return axes, out_shape_for(x, axes, keepdim)


# the kernels of this module that take complex64/complex128 in 3.x (real 3.3.1; 2.6.2's do not)
COMPLEX_IN_3 = frozenset({"cumsum", "any", "all", "prod", "cumprod", "p_norm", "frobenius_norm"})


def require_dtypes(x, kernel, allowed):
    """Raise Paddle's "kernel not registered" error unless x's dtype is in ``allowed`` (or is
    complex and the kernel is one of 3.x's ``COMPLEX_IN_3``)."""
    if x.data.dtype.kind == "c" and kernel in COMPLEX_IN_3 and \
            profiles.current().kernel_set == "3":
        return
    name = dtypes.from_np(x.data.dtype).name
    if name == "bfloat16":
        from .. import bf16

        return bf16.check_kernel(kernel)
    if name not in allowed:
        raise RuntimeError(
            f"(NotFound) The kernel with key (CPU, Undefined(AnyLayout), {name}) of kernel "
            f"`{kernel}` is not registered. Selected wrong DataType `{name}`. Paddle support "
            f"following DataTypes: {_kernel_order(kernel, allowed)}." + promotion.kernel_hint())


def refuse_float16(x, kernel):
    """Paddle's NotFound for a float16 ``x`` where the CPU kernel has none: the kernel's
    registration as measured for its bfloat16 error (bf16.MISSING) does not list float16 (real
    3.3.1 and 2.6.2: abs, clip, matmul; 2.6.2's topk)."""
    if getattr(x, "data", x).dtype != np.float16:   # (a tensor, or an array of its dtype)
        return
    from .. import bf16

    row = bf16.MISSING.get(kernel)
    listed = row[bf16._version()] if row else None
    if listed and "float16" not in listed.rstrip(".").split(", "):
        require_dtypes(x, kernel, tuple(listed.rstrip(".").split(", ")))


def _kernel_order(kernel, allowed):
    """The registered dtypes as Paddle lists them (its kernel map's order): the list measured
    for the kernel's bfloat16 error (bf16.MISSING) is the kernel's registration, the same for
    any dtype it lacks (real 3.3.1 and 2.6.2 list float16 mean's "int32, int64, float64,
    complex128, float32, complex64, bool", 3.3.1's float16 prod/all/cumprod with their complex
    kernels, as there); else ``allowed`` as given."""
    from .. import bf16

    row = bf16.MISSING.get(kernel)
    listed = row[bf16._version()] if row else None
    if listed:
        return listed.rstrip(".")
    return _LISTED.get((kernel, profiles.current().kernel_set), ", ".join(allowed))


# kernels with a bfloat16 kernel (no bf16.MISSING row) in a version: their lists as real Paddle
# prints them for another dtype (3.3.1, a bool argsort)
_LISTED = {("argsort", "3"): "int64, int16, float64, float16, float32, int32, uint8, bfloat16"}


def _check_not_empty(x, axes, kind):
    """Empty inputs: 2.x kernels refuse them; 3.x sums to 0 (mean nan, prod 1) but max/min
    still need a non-empty reduced axis."""
    if x.data.size != 0:
        return
    if profiles.current().empty_reduce == "error":
        raise ValueError(
            "(InvalidArgument) Tensor need be reduced must not empty.\n  [Hint: Expected "
            "input.numel() > 0, but received input.numel():0 <= 0:0.]")
    if kind == "extreme":
        for a in axes:
            if x.data.shape[a] == 0:
                raise ValueError(
                    f"(InvalidArgument) Cannot perform reduction along an axis ({a}) that has a "
                    f"size of 0. \n  [Hint: Expected x.dims().at(i) != 0, but received "
                    f"x.dims().at(i):0 == 0:0.]")


def _np_dtype(dtype):
    return None if dtype is None else dtypes.to_np(dtype)


# ---------------------------------------------------------------- sum / mean
def sum(x, axis=None, dtype=None, keepdim=False, name=None, **kw):  # noqa: A001
    """Sum over ``axis``; bool and int32 inputs give int64 unless ``dtype`` says otherwise."""
    extra = _aliases(kw, "sum", input="x", dim="axis")
    x, axis = extra.get("x", x), extra.get("axis", axis)
    axes, out_shape = _reduction(x, axis, keepdim, "sum")
    _check_not_empty(x, axes, "sum")
    dt = _np_dtype(dtype)
    if dt is None and x.data.dtype in (np.dtype(np.bool_), np.dtype(np.int32)):
        dt = np.dtype(np.int64)
    # float16: 2.x adds in float16 toward zero, 3.x in float32 rounding once (real 2.6.2/3.3.1)
    f16 = None
    if x.data.dtype == np.float16:
        f16 = "zero" if profiles.current().f16_rounding == "zero" else "float32"
    return R.sum(x, axes, keepdim, out_shape, dt, f16=f16)


def mean(x, axis=None, keepdim=False, name=None, **kw):
    """Mean over ``axis``; integer inputs keep their dtype and truncate (mean of [1, 2] is 1)."""
    dtype, out = kw.pop("dtype", None), kw.pop("out", None)
    if (dtype is not None or out is not None) and not profiles.current().api3:
        raise TypeError("mean() got an unexpected keyword argument "
                        f"'{'dtype' if dtype is not None else 'out'}'")
    extra = _aliases(kw, "mean", input="x", dim="axis")
    x, axis = extra.get("x", x), extra.get("axis", axis)
    if dtype is not None and x.data.dtype != dtypes.to_np(dtype):
        x = M.cast(x, dtypes.to_np(dtype))
    if out is not None:
        from .creation import assign

        return assign(mean(x, axis, keepdim), out)
    require_dtypes(x, "mean", ("int32", "int64", "float32", "float64", "bool", "complex64",
                               "complex128"))
    axes, out_shape = _reduction(x, axis, keepdim, "mean")
    _check_not_empty(x, axes, "mean")
    return R.mean(x, axes, keepdim, out_shape)


def mean_all(x):
    """``mean(x)`` of a non-empty float tensor, without ``mean``'s argument checks (for the
    losses' own 'mean' reduction, whose input they made)."""
    from ..double_grad import tag

    axes = tuple(range(x.data.ndim))
    return tag(R.mean(x, axes, False, out_shape_for(x, axes, False)), "mean_all")


def nansum(x, axis=None, dtype=None, keepdim=False, name=None):
    """Sum treating NaN as zero (Paddle composes ``where(isnan(x), 0, x)`` and ``sum``)."""
    require_dtypes(x, "isnan", ("float32", "float64", "int32", "int64"))
    from ...engine.ops import search as S

    if x.data.dtype.kind == "f":
        x = S.where(_wrap_const(np.isnan(x.data)), _wrap_const(np.zeros_like(x.data)), x,
                    grad=profiles.current().where_grad)   # 2.x's mask grad: dout * 0 keeps -0.0
    return sum(x, axis, dtype, keepdim)


def nanmean(x, axis=None, keepdim=False, name=None):
    """Mean of the non-NaN elements: nansum divided by the count of non-NaN elements."""
    require_dtypes(x, "isnan", ("float32", "float64", "int32", "int64"))
    total = nansum(x, axis, None, keepdim)
    axes = reduce_axes(x, axis, "nanmean")
    count = np.sum(~np.isnan(x.data.astype(np.float64)), axis=axes, keepdims=keepdim)
    count = np.reshape(count, total.data.shape).astype(total.data.dtype)
    if total.data.dtype.kind != "f":
        if profiles.current().int_reductions != "promote":   # 2.x: int64 / int64, truncating
            q = np.trunc(total.data / np.maximum(count, 1)).astype(total.data.dtype)
            return _wrap_const(q)
        total = M.cast(total, np.float32)
        count = count.astype(np.float32)
    return M.divide(total, _wrap_const(count))


def _wrap_const(arr):
    from ..core import Tensor

    return Tensor._wrap(np.asarray(arr), True)


# ---------------------------------------------------------------- max / min / amax / amin
def _extreme(kind, x, axis, keepdim):
    require_dtypes(x, kind, ("float32", "float64", "int32", "int64"))
    axes, out_shape = _reduction(x, axis, keepdim, kind)
    _check_not_empty(x, axes, "extreme")
    prof = profiles.current()
    ties = prof.minmax_ties if kind in ("max", "min") else "split"
    return R.extreme(kind, x, axes, keepdim, out_shape, ties=ties, nan=prof.reduce_nan)


def max(x, axis=None, keepdim=False, name=None):  # noqa: A001
    """Largest element over ``axis``. Tied maxima share the gradient evenly in Paddle 3 and each
    get all of it in Paddle 2 (profile ``minmax_ties``)."""
    return _extreme("max", x, axis, keepdim)


def min(x, axis=None, keepdim=False, name=None):  # noqa: A001
    """Smallest element over ``axis`` (ties as for ``max``)."""
    return _extreme("min", x, axis, keepdim)


def amax(x, axis=None, keepdim=False, name=None):
    """Like ``max``, but tied maxima always share the gradient evenly."""
    return _extreme("amax", x, axis, keepdim)


def amin(x, axis=None, keepdim=False, name=None):
    """Like ``min``, but tied minima always share the gradient evenly."""
    return _extreme("amin", x, axis, keepdim)


# ---------------------------------------------------------------- prod / logsumexp
def prod(x, axis=None, keepdim=False, dtype=None, name=None, **kw):
    """Product over ``axis`` (dtype kept; ``dtype`` casts x first). The gradient is Paddle's
    ``out / x``: a zero element gives 0 and nan."""
    extra = _aliases(kw, "prod", input="x", dim="axis")
    x, axis = extra.get("x", x), extra.get("axis", axis)
    dt = _np_dtype(dtype)
    if dt is not None and dt != x.data.dtype:
        x = M.cast(x, dt)
    require_dtypes(x, "prod", ("int32", "int64", "float64", "float32"))
    axes, out_shape = _reduction(x, axis, keepdim, "prod")
    _check_not_empty(x, axes, "prod")
    return R.prod(x, axes, keepdim, out_shape)


def logsumexp(x, axis=None, keepdim=False, name=None):
    """``log(sum(exp(x)))`` over ``axis``, computed stably (max taken out first)."""
    if x.data.dtype.kind in "iu" and profiles.current().int_reductions == "promote":
        x = M.cast(x, np.float32)
    require_dtypes(x, "logsumexp", ("float64", "float32"))
    axes, out_shape = _reduction(x, axis, keepdim, "logsumexp")
    _check_not_empty(x, axes, "logsumexp")
    return R.logsumexp(x, axes, keepdim, out_shape)


# ---------------------------------------------------------------- all / any / count_nonzero
def all(x, axis=None, keepdim=False, name=None):  # noqa: A001
    """True where every element over ``axis`` is non-zero (a bool tensor)."""
    require_dtypes(x, "all", ("int32", "int64", "float64", "float32", "bool"))
    axes, out_shape = _reduction(x, axis, keepdim, "all")
    _check_not_empty(x, axes, "all")
    return R.all(x, axes, keepdim, out_shape)


def any(x, axis=None, keepdim=False, name=None):  # noqa: A001
    """True where some element over ``axis`` is non-zero (a bool tensor)."""
    require_dtypes(x, "any", ("int32", "int64", "float64", "float32", "bool"))
    axes, out_shape = _reduction(x, axis, keepdim, "any")
    _check_not_empty(x, axes, "any")
    return R.any(x, axes, keepdim, out_shape)


def count_nonzero(x, axis=None, keepdim=False, name=None):
    """How many elements over ``axis`` are non-zero (int64)."""
    axes, out_shape = _reduction(x, axis, keepdim, "sum")
    _check_not_empty(x, axes, "sum")
    return R.count_nonzero(x, axes, keepdim, out_shape)


# ---------------------------------------------------------------- var / std
def _var_int(x, axes, keepdim, correction):
    """Paddle 3's var of an integer tensor: the float composition, cast back (truncating)."""
    a = x.data
    glog.promoted("divide")  # 3.x: n = cast(numel(x), int64) / cast(numel(out), int64)
    kept = np.sum(a, axis=axes, keepdims=True, dtype=np.int64)
    count = builtins.max(int(np.prod([a.shape[i] for i in axes])), 1)
    mean_ = (np.sign(kept) * (np.abs(kept) // count)).astype(a.dtype)
    total = np.sum((a - mean_) ** 2, axis=axes, keepdims=keepdim, dtype=a.dtype)
    n = np.float32(count) - np.float32(correction)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = (total.astype(np.float32) / np.float32(builtins.max(n, 0))).astype(a.dtype)
    shape = out_shape_for(x, axes, keepdim)
    return _wrap_const(out.reshape(shape) if shape else out)


def var(x, axis=None, unbiased=True, keepdim=False, name=None, **kw):
    """Variance over ``axis`` (divisor N - 1 unless ``unbiased=False``), composed as Paddle does:
    ``sum((x - mean(x, keepdim=True)) ** 2) / n``."""
    correction = kw.pop("correction", None)
    if kw:
        raise TypeError(f"var() got an unexpected keyword argument '{next(iter(kw))}'")
    corr = float(correction) if correction is not None else (1.0 if unbiased else 0.0)
    prof = profiles.current()
    dt = x.data.dtype
    if dt.kind in "iu":
        if prof.int_reductions != "promote":
            raise ValueError(
                f"(InvalidArgument) The type of data we are trying to retrieve ({dt.name}) does "
                f"not match the type of data (float32) currently contained in the container.")
        return _var_int(x, reduce_axes(x, axis, "var"), keepdim, corr)
    require_dtypes(x, "subtract", ("float32", "float64", "int32", "int64"))
    return _var_float(x, axis, keepdim, corr)


def _var_float(x, axis, keepdim, corr):
    axes, out_shape = _reduction(x, axis, True, "var")
    _check_not_empty(x, axes, "mean")
    u = R.mean(x, axes, True, None)
    sq = M.pow_scalar(M.subtract(x, u), 2.0)
    axes, out_shape = _reduction(x, axis, keepdim, "var")
    total = R.sum(sq, axes, keepdim, out_shape, x.data.dtype)
    n = _divisor(x, total, corr)
    out = M.divide(total, n)
    if 0 in x.data.shape:
        out = _wrap_const(np.full(out.data.shape, np.nan, out.data.dtype))
    return out


def _divisor(x, total, corr):
    """n = numel(x) / numel(out), less the correction, as a constant of x's dtype (Paddle 3
    clamps at 0 so one element gives nan; 2.x uses 1 when n - 1 would not be positive)."""
    dt = x.data.dtype
    glog.promoted("divide")  # 3.x: n = cast(numel(x), int64) / cast(numel(out), int64)
    n = float(x.data.size) / float(builtins.max(total.data.size, 1)) if x.data.size else 0.0
    if corr:
        if profiles.current().int_reductions == "promote":
            n = builtins.max(n - corr, 0.0)
        else:
            n = n - corr if n > 1.0 else 1.0
    shape = () if profiles.current().zero_d else (1,)
    return _wrap_const(np.full(shape, n, dt))


def std(x, axis=None, unbiased=True, keepdim=False, name=None):
    """Standard deviation: ``sqrt(var(x))``."""
    v = var(x, axis, unbiased, keepdim)
    if v.data.dtype.kind != "f":
        glog.autocast("sqrt")  # 3.x: sqrt of the integer var computes in float32 and logs it
        v = M.cast(v, np.float32)
    return M.sqrt(v)


# ---------------------------------------------------------------- median
_MODE_DEFAULT = object()

def median(x, axis=None, keepdim=False, mode=_MODE_DEFAULT, name=None):
    """Median over ``axis`` (all elements when None). Paddle 3 is one op whose gradient is
    shared among tied middle values, and ``mode='min'`` with an axis also returns the position;
    Paddle 2 picks the middle values with topk (profile ``median_kernel``)."""
    prof = profiles.current()
    if mode is not _MODE_DEFAULT and not prof.median_kernel:
        raise TypeError("median() got an unexpected keyword argument 'mode'")
    mode = "avg" if mode is _MODE_DEFAULT else mode
    if mode not in ("avg", "min"):
        raise ValueError(f"Mode {mode} is not supported. Must be avg or min.")
    nd = x.data.ndim
    if axis is not None and (nd == 0 and axis not in (-1, 0)):
        raise AssertionError("when input 0-D, axis can only be [-1, 0] or default None")
    if axis is not None and nd and (not isinstance(axis, int) or not -nd <= axis < nd):
        raise ValueError(
            "In median, axis should be none or an integer in range [-rank(x), rank(x)).")
    if x.data.dtype.kind in "iub":
        if prof.int_reductions != "promote" and x.data.dtype.name not in ("int32", "int64"):
            require_dtypes(x, "topk", ("int32", "int64", "float64", "float32"))
        if mode == "avg" or not prof.median_kernel:
            x = M.cast(x, np.float32)
    if x.data.dtype == np.float16:
        if not prof.median_kernel:     # 2.x's topk has no float16 kernel (real 2.6.2)
            require_dtypes(x, "topk", ("int32", "int64", "float64", "float32"))
        elif mode == "avg":            # 3.x: 'avg' computes a non-float64 input in float32
            x = M.cast(x, np.float32)
        else:                          # 3.3.1's median kernel: no float16
            require_dtypes(x, "median", ("int32", "int64", "float64", "float32"))
    if not prof.median_kernel:
        if x.data.size == 0:
            raise ValueError("In median, the size of input x should not be 0.")
        return _median_by_topk(x, axis, keepdim)
    axes, out_shape = _reduction(x, axis, keepdim, "median")
    if x.data.size == 0:
        return _wrap_const(np.full(out_shape or (), np.nan, np.float32))
    out = R.median(x, axes, keepdim, out_shape, mode)
    if mode == "min" and axis is not None:
        return out, _median_position(x, axis, keepdim, out_shape)
    return out


def _median_position(x, axis, keepdim, out_shape):
    """Where the lower median sits along ``axis`` (the k-th smallest, k = (n + 1) // 2)."""
    from ...engine.ops import search as S

    n = x.data.shape[axis] if x.data.ndim else 1
    _, idx = S.kthvalue(x.detach() if hasattr(x, "detach") else x, (n + 1) // 2, axis, keepdim)
    data = idx.data.reshape(out_shape) if out_shape else idx.data
    if x.data.dtype.kind == "f" and x.data.ndim:  # a row with a NaN: the first NaN's position
        nan = np.isnan(x.data)
        first = np.argmax(nan, axis=axis)
        has = nan.any(axis=axis)
        if keepdim:
            first, has = np.expand_dims(first, axis), np.expand_dims(has, axis)
        data = np.where(has.reshape(data.shape), first.reshape(data.shape), data)
    return _wrap_const(data)


def _median_by_topk(x, axis, keepdim):
    """Paddle 2's median: the smallest n//2 + 1 values by topk, then the middle one or the mean
    of the middle two."""
    from ...engine.ops import index as I
    from ...engine.ops import search as S
    from ...engine.ops import shape as SH

    nd = x.data.ndim
    flat = axis is None or nd == 0
    src = SH.reshape(x, (x.data.size,)) if flat else x
    ax = 0 if flat else axis % nd
    size = src.data.shape[ax]
    kth = size >> 1
    vals, _ = S.topk(src, kth + 1, ax, largest=False, sorted=True)

    def pick(i):
        shape = list(vals.data.shape)
        shape[ax] = 1
        idx = np.full(shape, i, np.int64)
        return I.take_along_axis(vals, _wrap_const(idx), ax)

    if size % 2 == 0:
        out = M.scale(M.add(pick(kth - 1), pick(kth)), 0.5)
    else:
        out = pick(kth)
    # Paddle 2 adds sum(isnan(x) * x) so that a NaN anywhere makes the median NaN
    nan_mask = _wrap_const(np.isnan(src.data).astype(src.data.dtype))
    out = M.add(out, R.sum(M.multiply(nan_mask, src), (ax,), True))
    if flat:
        return SH.reshape(out, (1,) * nd if keepdim else
                          (() if profiles.current().zero_d else (1,)))
    if not keepdim:
        shape = tuple(s for i, s in enumerate(out.data.shape) if i != ax)
        out = SH.reshape(out, shape if shape or profiles.current().zero_d else (1,))
    return out


# ---------------------------------------------------------------- cumsum / cumprod
def _scan_axis(x, axis, fname):
    nd = builtins.max(x.data.ndim, 1)
    if not -nd <= axis < nd:
        raise IndexError(
            f"(OutOfRange) axis is out of range (expected to be in range of [{-nd}, {nd}), but "
            f"got {axis}).\n  [Hint: Expected axis < x_dims.size(), but received axis:{axis} >= "
            f"x_dims.size():{nd}.]")
    return axis % nd


def cumsum(x, axis=None, dtype=None, name=None, **kw):
    """Running sum along ``axis`` (over the flattened tensor when None)."""
    extra = _aliases(kw, "cumsum", input="x", dim="axis")
    x, axis = extra.get("x", x), extra.get("axis", axis)
    dt = _np_dtype(dtype)
    if dt is None and profiles.current().int_reductions == "promote" and (
            x.data.dtype in _INT_SMALL or x.data.dtype == np.int32):
        dt = np.dtype(np.int64)
    if dt is not None and dt != x.data.dtype:
        x = M.cast(x, dt)
    allowed = ("float32", "float64", "int32", "int64", "int16") + (
        ("int8", "uint8") if profiles.current().int_reductions == "promote" else ())
    require_dtypes(x, "cumsum", allowed)
    if axis is None:
        return R.cumsum(x, 0, flatten=True)
    if x.data.ndim == 0:
        _scan_axis(x, int(axis), "cumsum")
        return R.cumsum(x, 0, flatten=True) if profiles.current().zero_d is False else \
            _scalar_scan(x)
    return R.cumsum(x, _scan_axis(x, int(axis), "cumsum"))


def _scalar_scan(x):
    from ...engine.ops import shape as SH

    return SH.reshape(R.cumsum(x, 0, flatten=True), ())


def cumprod(x, dim=None, dtype=None, name=None):
    """Running product along ``dim`` (over the flattened tensor when None)."""
    from ...engine.ops import shape as SH

    if dim is None:
        if profiles.current().cumprod_dim_none != "flatten":
            raise _arg_error("cumprod", 2, "int", None) if profiles.current().arg_type_error == \
                "TypeError" else ValueError(
                    "(InvalidArgument) cumprod(): argument (position 2) must be int, but got "
                    "NoneType")
        dim = -1
        x = SH.reshape(x, (x.data.size,))
    dt = _np_dtype(dtype)
    if dt is not None and dt != x.data.dtype:
        x = M.cast(x, dt)
    require_dtypes(x, "cumprod", ("int32", "int64", "float64", "float32"))
    if x.data.ndim == 0:
        return R.cumprod(x, 0)
    return R.cumprod(x, _scan_axis(x, int(dim), "cumprod"))


# ---------------------------------------------------------------- norms
def _abs(x):
    """|x|: the elementwise abs op (its gradient is Paddle's abs_grad)."""
    return M.abs(x)


def _p_norm(x, p, axis, keepdim, asvector):
    """Paddle's p_norm op: along one axis, or over everything (``asvector``)."""
    require_dtypes(x, "p_norm", ("float64", "float32"))
    if x.data.dtype.kind == "c":   # (3.x: the norm of the magnitudes, a real tensor)
        x = _abs(x)
    nd = x.data.ndim
    if asvector:
        axes = tuple(range(nd))
        if keepdim:
            shape = (1,) * nd
        else:
            shape = () if profiles.current().zero_d else (1,)
        return R.p_norm(x, float(p), axes, keepdim, shape)
    if nd and not -nd <= axis < nd:
        raise ValueError(
            f"(InvalidArgument) Attr(axis) value should be in range [-R, R-1], R is the rank of "
            f"Input(X). But received axis: {axis}, R: {nd}. Current Input(X)'s shape "
            f"is={list(x.data.shape)}.")
    axes = (axis % nd,) if nd else ()
    return R.p_norm(x, float(p), axes, keepdim, out_shape_for(x, axes, keepdim))


def _frobenius(x, axis, keepdim):
    require_dtypes(x, "frobenius_norm", ("float64", "float32"))
    if x.data.dtype.kind == "c":   # (3.x: the norm of the magnitudes, a real tensor)
        x = _abs(x)
    axes, out_shape = _reduction(x, axis, keepdim, "frobenius_norm")
    return R.frobenius_norm(x, axes, keepdim, out_shape)


def _powered_norm(x, p, axis, keepdim):
    """``sum(|x| ** p) ** (1 / p)`` over several axes, op by op."""
    axes, out_shape = _reduction(x, axis, keepdim, "sum")
    powered = M.pow_scalar(_abs(x), float(p))
    return M.pow_scalar(R.sum(powered, axes, keepdim, out_shape), float(1.0 / p))


def _inf_norm(x, p, axis, keepdim):
    kind = "max" if p == np.inf else "min"
    return _extreme(kind, _abs(x), axis, keepdim)


def _axis_arg(axis):
    if isinstance(axis, tuple):
        axis = list(axis)
    if isinstance(axis, list) and len(axis) == 1:
        axis = axis[0]
    return axis


def vector_norm(x, p=2.0, axis=None, keepdim=False, name=None, dtype=None):
    """The p-norm of x seen as a vector (all elements, one axis, or several axes)."""
    if not isinstance(p, (int, float)) or isinstance(p, bool):
        raise ValueError(f"only valid p type is int and float, found {type(p)}")
    if dtype is not None:
        x = M.cast(x, dtypes.to_np(dtype))
    asvector = axis is None
    axis = -1 if axis is None else _axis_arg(axis)
    if isinstance(axis, int):
        return _p_norm(x, p, axis, keepdim, asvector)
    if p in (np.inf, -np.inf):
        return _inf_norm(x, p, axis, keepdim)
    if p == 0:
        out = count_nonzero(_abs(x), axis, keepdim)
        return M.cast(out, x.data.dtype)
    return _powered_norm(x, p, axis, keepdim)


def matrix_norm(x, p="fro", axis=(-2, -1), keepdim=False, name=None):
    """Matrix norms over two axes: 'fro'; 1, -1, inf, -inf (max/min of column or row abs sums);
    2, -2 and 'nuc' (largest, smallest, sum of the singular values)."""
    axis = list(axis) if isinstance(axis, (list, tuple)) else axis
    if not isinstance(axis, list) or len(axis) != 2:
        raise ValueError(
            f"except axis type int or list (length of list == 2), found "
            f"{len(axis) if isinstance(axis, list) else axis}")
    if p == "fro":
        return _frobenius(x, axis, keepdim)
    if p in (np.inf, -np.inf, 1, -1):
        nd = x.data.ndim
        dim0, dim1 = (d % nd for d in axis)
        if abs(p) == np.inf:
            dim0, dim1 = dim1, dim0
        if not keepdim and dim0 < dim1:
            dim1 -= 1
        return _extreme("max" if p > 0 else "min", _p_norm(x, 1.0, dim0, keepdim, False),
                        dim1, keepdim)
    if p in (2, -2, "nuc"):
        return _svd_norm(x, p, axis, keepdim)
    raise ValueError(
        f"just support p value 'fro','nuc',1,-1,inf,-inf,2,-2 if axis is 2D, found {p}")


def _svd_norm(x, p, axis, keepdim):
    """Spectral (2), smallest-singular-value (-2) and nuclear ('nuc') norms as Paddle 3 composes
    them: transpose (the two axes last; recorded also when that moves nothing), its svd op (S:
    SvdGradNode, whose gradient is Paddle's svd_grad kernel with U and VH), then the max, min or
    sum; with keepdim unsqueeze and transpose back (real 3.3.1's graph)."""
    from ...engine.ops import shape as SH
    from .linalg_ext import svd
    from .manipulation import unsqueeze

    require_dtypes(x, "svd", ("float64", "float32"))
    nd = x.data.ndim
    d0, d1 = (a % nd for a in axis)
    perm = [i for i in range(nd) if i not in (d0, d1)] + [d0, d1]
    sv = svd(SH.transpose(x, perm))[1]
    last = sv.data.ndim - 1
    if p == "nuc":
        out = R.sum(sv, (last,), keepdim, out_shape_for(sv, (last,), keepdim))
    else:
        out = _extreme("max" if p == 2 else "min", sv, last, keepdim)
    if keepdim:
        inv = [perm.index(i) for i in range(nd)]
        out = SH.transpose(unsqueeze(out, -1), inv)
    return out


def _norm3(x, p, axis, keepdim):
    """paddle.linalg.norm as Paddle 3 composes it."""
    axis = _axis_arg(axis)
    if isinstance(p, str):
        if p == "fro" and (axis is None or isinstance(axis, int)):
            return vector_norm(x, 2, axis, keepdim)
        if axis is None:
            axis = list(range(x.data.ndim))
        return matrix_norm(x, p, axis, keepdim)
    p = 2.0 if p is None else p
    if isinstance(axis, list) and len(axis) == 2:
        return matrix_norm(x, p, axis, keepdim)
    return vector_norm(x, p, axis, keepdim)


def _norm26(x, p, axis, keepdim):
    """paddle.linalg.norm as Paddle 2.6 composes it."""
    if axis is None and p is not None:
        if isinstance(p, str):
            if p == "fro":
                return _frobenius(x, None, keepdim)
            raise ValueError(f"only valid string values are 'fro', found {p}")
        if isinstance(p, (int, float)):
            return _p_norm(x, p, -1, keepdim, True)
        raise ValueError(f"only valid p type is string or float, found {type(p)}")
    axis = _axis_arg(axis)
    if isinstance(axis, int):
        if isinstance(p, str):
            if p == "fro":
                return _p_norm(x, 2, axis, keepdim, False)
            raise ValueError(f"only valid string values are 'fro', found {p}")
        if isinstance(p, (int, float)):
            return _p_norm(x, p, axis, keepdim, False)
        raise ValueError(f"unspport p for p-order vector norm. except float, found {p}")
    if isinstance(axis, list) and len(axis) == 2:
        if p == "fro":
            return _frobenius(x, axis, keepdim)
        if p in (np.inf, -np.inf):
            return _inf_norm(x, p, axis, keepdim)
        if p == 0:
            raise ValueError(
                f"just support axis type int or list (length of list <=1) if p = 0, found {axis}")
        if isinstance(p, str):
            raise TypeError(f"unsupported operand type(s) for /: 'float' and 'str'")
        return _powered_norm(x, p, axis, keepdim)
    raise ValueError(f"except axis type int or list (length of list <=2), found {axis}")


_DEFAULT = object()


def norm(x, p=_DEFAULT, axis=None, keepdim=False, name=None, **kw):
    """``paddle.norm`` / ``paddle.linalg.norm``. The default is the 2-norm of all elements
    (Frobenius for a matrix); ``p`` may be 'fro', any float, inf, -inf or 0; ``axis`` an int or
    a list. Paddle 2.6 and 3 compose it differently (profile ``norm_api``)."""
    if "dtype" in kw:
        dt = kw.pop("dtype")
        if dt is not None:
            x = M.cast(x, dtypes.to_np(dt))
    if kw:
        raise TypeError(f"norm() got an unexpected keyword argument '{next(iter(kw))}'")
    if profiles.current().norm_api == "3":
        return _norm3(x, None if p is _DEFAULT else p, axis, keepdim)
    return _norm26(x, "fro" if p is _DEFAULT else p, axis, keepdim)
