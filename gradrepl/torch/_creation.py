"""Tensor creation: ``torch.tensor`` and its dtype inference, ``zeros``/``ones``/``full``/
``arange``/``linspace``/``eye``/``empty``, the ``*_like`` functions, ``from_numpy``, and the
random ones (``rand``, ``randn``, ``randint``, ``randperm``, ``normal``) on ``_random``'s
generator (torch's own: the same values as torch for the same seed)."""
from __future__ import annotations

from collections import abc as _abc

import numpy as np

from . import _bfloat16, _dtypes, _random
from ._base import EngineTensor, check_device, raw
from ._tensor import Tensor

_wrap = Tensor._wrap


def _finish(arr, requires_grad, factory=True):
    t = _wrap(arr, True)
    if requires_grad:
        if arr.dtype.kind not in "fc" and arr.dtype != _bfloat16.BITS:
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        t.stop_gradient = False
    return t


def _scalar_kind(v):
    """The dtype torch infers for one element of nested data."""
    if isinstance(v, EngineTensor):
        return raw(v).dtype
    if isinstance(v, np.ndarray):
        return v.dtype
    if isinstance(v, np.generic):
        return v.dtype
    if isinstance(v, bool):
        return np.dtype(np.bool_)
    if isinstance(v, int):
        return np.dtype(np.int64)
    if isinstance(v, float):
        return _dtypes.default_float()
    if isinstance(v, complex):
        return _dtypes.default_complex()
    if isinstance(v, (dict, set, frozenset)):
        raise RuntimeError(f"Could not infer dtype of {type(v).__name__}")
    raise TypeError(f"new(): invalid data type '{type(v).__name__}'")


def _infer(data):
    """(flat list of leaves, inferred dtype) of nested sequences, torch's rules."""
    if isinstance(data, EngineTensor):
        return raw(data).dtype
    if isinstance(data, np.ndarray):
        return data.dtype
    if _is_seq(data):
        dt = None
        for v in data:
            d = _infer(v)
            if d is None:
                continue
            dt = d if dt is None else _dtypes.promote_types(dt, d)
        return dt
    return _scalar_kind(data)


def _is_seq(data):
    """torch reads any Python sequence as nested data (``range(100)``, MIT 6.S191 lab 1), not a
    str or bytes."""
    return isinstance(data, (list, tuple, range)) or (
        isinstance(data, _abc.Sequence) and not isinstance(data, (str, bytes, bytearray)))


def _to_nested(data):
    if isinstance(data, EngineTensor):
        return raw(data)
    if _is_seq(data):
        # a one-element tensor inside the data is one number (torch reads it by item():
        # torch.tensor([torch.randn(1)]) has shape [1], MIT 6.S191 lab 1's descent loop)
        out = [raw(v).reshape(()) if isinstance(v, EngineTensor) and raw(v).size == 1
               else _to_nested(v) for v in data]
        if not _NDARRAY_ITEMS[0] and any(isinstance(v, np.ndarray) for v in data):
            _warn_ndarray_items()
        return out
    return data


_NDARRAY_ITEMS = [False]
_NDARRAY_ITEMS_WARNING = (
    "Creating a tensor from a list of numpy.ndarrays is extremely slow. Please consider "
    "converting the list to a single numpy.ndarray with numpy.array() before converting to a "
    "tensor. (Triggered internally at /__w/pytorch/pytorch/torch/csrc/utils/tensor_new.cpp:252.)")


def _warn_ndarray_items():
    """torch's recursive_store: TORCH_WARN_ONCE when an element of nested data is a numpy array
    (``torch.Tensor([img for img in images])``, sentdex's cats-vs-dogs loading)."""
    from ._ops_shape import _warn_once

    _NDARRAY_ITEMS[0] = True
    _warn_once(_NDARRAY_ITEMS_WARNING)


def _check_sizes(data):
    """torch's compute_sizes walks the first elements: a 0-d numpy array there has no length
    (``torch.tensor([np.array(1.0), np.array(2.0)])``: TypeError)."""
    obj = data
    while _is_seq(obj) or isinstance(obj, np.ndarray):
        if isinstance(obj, np.ndarray):
            if obj.ndim == 0:
                raise TypeError("len() of unsized object")
            return
        if not len(obj):
            return
        obj = obj[0]


def infer_array(data, dtype):
    """``data`` (numbers, nested lists, numpy arrays, tensors) as a numpy array of torch's
    inferred dtype (or ``dtype``)."""
    if dtype is not None:
        npd = _dtypes.to_np(dtype)
    else:
        npd = _infer(data)
        if npd is None:  # an empty list
            npd = _dtypes.default_float()
    if npd == _bfloat16.BITS or isinstance(data, EngineTensor) and \
            raw(data).dtype == _bfloat16.BITS:  # bfloat16's bits: through float32, rounded
        src = raw(data) if isinstance(data, EngineTensor) else infer_array(data, np.float64)
        return _bfloat16.astype(src, npd)
    if isinstance(data, EngineTensor):
        return np.array(raw(data), dtype=npd)
    if _is_seq(data):
        _check_sizes(data)
    nested = _to_nested(data)
    try:
        arr = np.array(nested, dtype=npd)
    except ValueError as exc:
        raise ValueError(f"expected sequence of length {_first_len(data)} at dim 1 (got "
                         f"{_bad_len(data)})") from exc
    return arr


def _first_len(data):
    try:
        return len(data[0])
    except TypeError:
        return 0


def _bad_len(data):
    n = _first_len(data)
    for v in data:
        try:
            if len(v) != n:
                return len(v)
        except TypeError:
            return 0
    return n


_COPY_CONSTRUCT_WARNING = (
    "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
    "sourceTensor.detach().clone().requires_grad_(True), rather than torch.tensor(sourceTensor).")


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    check_device(device)
    if isinstance(data, EngineTensor):  # (torch's internal_new_from_data warns, Python's rule:
        from ._device_mode import warn_cpp  # once per calling line, or at the device mode's)

        warn_cpp(_COPY_CONSTRUCT_WARNING)
    arr = infer_array(data, dtype)
    return _finish(np.array(arr, copy=True), requires_grad)


def as_tensor(data, dtype=None, device=None):
    check_device(device)
    if isinstance(data, EngineTensor):
        if dtype is None or raw(data).dtype == _dtypes.to_np(dtype):
            return data
        from ._ops import to_dtype

        return to_dtype(data, _dtypes.to_np(dtype))
    if isinstance(data, np.ndarray) and (dtype is None or data.dtype == _dtypes.to_np(dtype)):
        return _wrap(data, True)
    return _wrap(infer_array(data, dtype), True)


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=None):
    """torch.asarray: shares memory where it can (a tensor, a numpy array of the asked dtype);
    ``copy=True`` copies; a tensor keeps its history unless ``requires_grad=False`` is given
    explicitly (then the result is detached, as torch does)."""
    check_device(device)
    if isinstance(obj, EngineTensor):
        out = obj
        if dtype is not None and raw(obj).dtype != _dtypes.to_np(dtype):
            from ._ops import to_dtype

            out = to_dtype(obj, _dtypes.to_np(dtype))
        elif copy:
            out = obj.clone()
        if requires_grad is False and not out.is_leaf:
            out = out.detach()
        elif requires_grad and out.is_leaf and not out.requires_grad:
            out = out.detach().requires_grad_(True) if out is obj else out.requires_grad_(True)
        return out
    if copy:
        arr = np.array(infer_array(obj, dtype), copy=True)
    elif isinstance(obj, np.ndarray) and (dtype is None or obj.dtype == _dtypes.to_np(dtype)):
        arr = obj
    else:
        arr = infer_array(obj, dtype)
    t = _wrap(arr, True)
    return t.requires_grad_(True) if requires_grad else t


def from_numpy(ndarray):
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    return _wrap(ndarray, True)


def _size(size):
    if len(size) == 1 and isinstance(size[0], (list, tuple)):
        size = tuple(size[0])
    out = []
    for s in size:
        if isinstance(s, EngineTensor):
            s = int(raw(s))
        if not isinstance(s, (int, np.integer)):
            raise TypeError(f"zeros(): argument 'size' (position 1) must be tuple of ints, but "
                            f"found element of type {type(s).__name__} at pos 0")
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: "
                               f"{list(size)}")
        out.append(int(s))
    return tuple(out)


def _dt(dtype, default=None):
    if dtype is None:
        return default if default is not None else _dtypes.default_float()
    return _dtypes.to_np(dtype)


def zeros(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    check_device(device)
    return _finish(np.zeros(_size(size), _dt(dtype)), requires_grad)


def ones(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    check_device(device)
    return _finish(_bfloat16.filled(np.ones, _size(size), _dt(dtype)), requires_grad)


def empty(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          memory_format=None):
    check_device(device)
    return _finish(np.zeros(_size(size), _dt(dtype)), requires_grad)


# c10's names of the C types a value is converted to (its overflow messages)
_C_TYPES = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "int64_t",
            "int32": "int", "int16": "short", "int8": "int8_t", "uint8": "uint8_t",
            "bool": "bool", "uint16": "c10::BFloat16"}
_ATEN_COMPLEX = {"complex64": "ComplexFloat", "complex128": "ComplexDouble"}


def full(size, fill_value, *, out=None, dtype=None, layout=None, device=None,
         requires_grad=False):
    check_device(device)
    if dtype is None:
        if isinstance(fill_value, EngineTensor):
            dt = raw(fill_value).dtype
            fill_value = raw(fill_value).item()
        else:
            dt = _dtypes.scalar_dtype(fill_value)
    else:
        dt = _dtypes.to_np(dtype)
        if isinstance(fill_value, complex) and fill_value.imag != 0 and dt.kind != "c":
            raise RuntimeError(f"value cannot be converted to type {_C_TYPES.get(dt.name, dt.name)}"
                               " without overflow")   # (c10's checked_convert)
        if isinstance(fill_value, complex) and dt.kind != "c":
            fill_value = fill_value.real
    return _finish(_bfloat16.filled(np.full, _size((size,) if isinstance(size, int)
                                                   else tuple(size)), dt, fill_value),
                   requires_grad)


def _laid_out(input, arr, memory_format):  # noqa: A002
    """``*_like``'s result in torch's ``preserve_format``: laid out as ``input`` (a transposed
    input gives a transposed result: ``zeros_like(x.t()).stride()`` is x.t()'s)."""
    if memory_format is not None and "preserve" not in str(memory_format):
        from ._storage import as_format

        return np.array(as_format(arr, memory_format), order="K")
    from ._storage import like_layout

    r = like_layout(raw(input), arr)
    return r if r is not arr else arr


def _like(input, dtype):  # noqa: A002
    a = raw(input)
    return a.shape, (_dtypes.to_np(dtype) if dtype is not None else a.dtype)


def zeros_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,  # noqa: A002
               memory_format=None):
    shape, dt = _like(input, dtype)
    return _finish(_laid_out(input, np.zeros(shape, dt), memory_format), requires_grad)


def ones_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,  # noqa: A002
              memory_format=None):
    shape, dt = _like(input, dtype)
    return _finish(_laid_out(input, _bfloat16.filled(np.ones, shape, dt), memory_format),
                   requires_grad)


def empty_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,  # noqa: A002
               memory_format=None):
    shape, dt = _like(input, dtype)
    return _finish(_laid_out(input, np.zeros(shape, dt), memory_format), requires_grad)


def full_like(input, fill_value, *, dtype=None, layout=None, device=None,  # noqa: A002
              requires_grad=False, memory_format=None):
    shape, dt = _like(input, dtype)
    return _finish(_laid_out(input, _bfloat16.filled(np.full, shape, dt, fill_value),
                             memory_format),
                   requires_grad)


def _num(v):
    return raw(v).item() if isinstance(v, EngineTensor) else v


def arange(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,
           requires_grad=False):
    check_device(device)
    start, end, step = _num(start), _num(end), _num(step)
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (step > 0 and start > end) or (step < 0 and start < end):
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    if dtype is None:
        is_float = any(isinstance(v, float) or (isinstance(v, np.generic) and
                                                np.issubdtype(type(v), np.floating))
                       for v in (start, end, step))
        dt = _dtypes.default_float() if is_float else np.dtype(np.int64)
    else:
        dt = _dtypes.to_np(dtype)
        if dt.kind == "c":
            raise NotImplementedError(f'"arange_cpu" not implemented for '
                                      f"'{_ATEN_COMPLEX[dt.name]}'")
    n = int(np.ceil((end - start) / step))
    n = max(n, 0)
    if dt.kind == "f":
        from ._range_kernel import values  # ATen's vector blocks and scalar tail

        vals = values(start, step, n, dt)
    else:
        vals = (start + np.arange(n, dtype=np.int64) * step).astype(dt)
    return _finish(vals, requires_grad)


def range_(start=0, end=None, step=1, *, dtype=None, device=None, requires_grad=False):
    from ._device_mode import warn_cpp  # torch's C++ binding warns at the user's line

    warn_cpp("torch.range is deprecated and will be removed in a future release because its "
             "behavior is inconsistent with Python's range builtin. Instead, use torch.arange, "
             "which produces values in [start, end).")
    if end is None:
        start, end = 0, start
    dt = _dtypes.to_np(dtype) if dtype is not None else _dtypes.default_float()
    n = int(np.floor((end - start) / step)) + 1
    vals = (np.float64(start) + np.arange(n) * np.float64(step)).astype(dt)
    return _finish(vals, requires_grad)


def linspace(start, end, steps, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False):
    check_device(device)
    start, end = _num(start), _num(end)
    dt = _dtypes.to_np(dtype) if dtype is not None else _dtypes.default_float()
    if dtype is None and (isinstance(start, complex) or isinstance(end, complex)):
        dt = np.dtype(np.complex128 if dt == np.float64 else np.complex64)
    steps = int(steps)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    if steps == 1:
        return _finish(np.array([start], dt), requires_grad)
    if dt.kind == "f":
        # torch's CPU kernel: step = (end - start) / (steps - 1) in the dtype; the first half
        # counts up from start, the second half down from end
        # (the kernel's ``start + step * i`` is one fused multiply-add: computed in float64
        # from the float32 operands, then rounded once)
        s = np.float64(dt.type((dt.type(end) - dt.type(start)) / dt.type(steps - 1)))
        idx = np.arange(steps, dtype=np.float64)
        half = steps // 2
        from . import _capability

        if dt == np.float64 and _capability.fused():  # the same fused multiply-adds in double
            from ._sleef64 import fma64  # (5.55e-17, not 0, mid linspace(-1, 1, 7))

            up = fma64(np.full_like(idx, s), idx, np.float64(start))
            down = fma64(np.full_like(idx, -s), steps - idx - 1, np.float64(end))
        else:
            up = np.float64(dt.type(start)) + s * idx
            down = np.float64(dt.type(end)) - s * (steps - idx - 1)
        vals = np.where(idx < half, up, down).astype(dt)
    elif dt.kind == "c":   # (the same halves in the complex dtype's arithmetic)
        st, en = dt.type(start), dt.type(end)
        step = (en - st) / dt.type(steps - 1)
        idx = np.arange(steps).astype(dt)
        vals = np.where(np.arange(steps) < steps // 2, st + step * idx,
                        en - step * (dt.type(steps - 1) - idx)).astype(dt)
    else:
        vals = np.linspace(start, end, steps).astype(dt)
    return _finish(vals, requires_grad)


def logspace(start, end, steps, base=10.0, *, dtype=None, requires_grad=False):
    dt = _dtypes.to_np(dtype) if dtype is not None else _dtypes.default_float()
    lin = raw(linspace(start, end, steps, dtype=_dtypes.float64))
    vals = np.power(np.float64(base), lin.astype(np.float64)).astype(dt)
    return _finish(vals, requires_grad)


def eye(n, m=None, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    check_device(device)
    return _finish(_bfloat16.filled(np.eye, n, _dt(dtype), n if m is None else m),
                   requires_grad)


# ------------------------------------------------------------------------------ random
def manual_seed(seed):
    return _random.manual_seed(seed)


def rand(*size, generator=None, out=None, dtype=None, layout=None, device=None,
         requires_grad=False):
    check_device(device)
    dt = _dt(dtype)
    return _finish(_random.uniform(_size(size), dt, 0.0, 1.0, generator), requires_grad)


def randn(*size, generator=None, out=None, dtype=None, layout=None, device=None,
          requires_grad=False):
    check_device(device)
    dt = _dt(dtype)
    return _finish(_random.normal(_size(size), dt, 0.0, 1.0, generator), requires_grad)


def rand_like(input, *, dtype=None, requires_grad=False, memory_format=None, **_kw):  # noqa: A002
    from . import _storage

    shape, dt = _like(input, dtype)
    out = _laid_out(input, np.zeros(shape, dt), memory_format)
    out[...] = _storage.in_memory_order(out, _random.uniform((out.size,), dt, 0.0, 1.0))
    return _finish(out, requires_grad)


def randn_like(input, *, dtype=None, requires_grad=False, memory_format=None, **_kw):  # noqa: A002
    from . import _storage

    shape, dt = _like(input, dtype)
    out = _laid_out(input, np.zeros(shape, dt), memory_format)
    out[...] = _storage.in_memory_order(out, _random.normal(
        (out.size,), dt, 0.0, 1.0, contiguous=_storage.dense(out)))
    return _finish(out, requires_grad)


_RANDINT_FORMS = "".join(
    f" * ({lead}tuple of ints size, *, {gen}Tensor out = None, torch.dtype dtype = None, "
    "torch.layout layout = None, torch.device device = None, bool pin_memory = False, "
    "bool requires_grad = False)\n"
    for lead in ("int high, ", "int low, int high, ")
    for gen in ("torch.Generator generator, ", ""))


def randint(low=None, high=None, size=None, *, generator=None, dtype=None, device=None,
            requires_grad=False, out=None, layout=None, pin_memory=False):
    """torch's two signatures, ``randint(high, size)`` and ``randint(low, high, size)``, with
    any of them given by keyword (UvA's ``torch.randint(n, size=(a, b))``)."""
    check_device(device)
    if size is None and isinstance(high, (tuple, list)) or (size is None and high is not None
                                                            and hasattr(high, "__len__")):
        low, high, size = None, low, high   # randint(high, size) by position
    elif high is None and low is not None:
        low, high = None, low               # randint(high, size=...)
    if size is None and low is not None and isinstance(high, int):
        raise TypeError("randint(): argument 'size' (position 2) must be tuple of ints, not "
                        "int")              # randint(5, 7): read as (high, size)
    if size is None or isinstance(size, int):
        got = ", ".join(type(v).__name__ for v in (low, high, size) if v is not None)
        raise TypeError("randint() received an invalid combination of arguments - got "
                        f"({got}), but expected one of:\n{_RANDINT_FORMS}")
    if high is None:
        raise TypeError("randint(): argument 'high' must be int, not NoneType")
    low = 0 if low is None else low
    dt = _dtypes.to_np(dtype) if dtype is not None else np.dtype(np.int64)
    if dt.kind == "c":
        raise RuntimeError("check_random_bounds handles only integral, floating-point and "
                           "boolean types")
    return _finish(_random.randint(int(low), int(high), _size((tuple(size),)), dt, generator),
                   requires_grad)


def randint_like(input, low=0, high=None, *, dtype=None):  # noqa: A002
    if high is None:
        low, high = 0, low
    shape, dt = _like(input, dtype)
    return _finish(_random.randint(int(low), int(high), shape, dt), False)


def randperm(n, *, generator=None, dtype=None, device=None, requires_grad=False):
    dt = _dtypes.to_np(dtype) if dtype is not None else np.dtype(np.int64)
    return _finish(_random.randperm(int(n), generator).astype(dt), requires_grad)


_NORMAL_OVERLOADS = (
    " * (Tensor mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)\n"
    " * (Tensor mean, float std = 1, *, torch.Generator generator = None, Tensor out = None)\n"
    " * (float mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)\n"
    " * (float mean, float std, tuple of ints size, *, torch.Generator generator = None, "
    "Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device "
    "device = None, bool pin_memory = False, bool requires_grad = False)\n")


def normal(mean=0.0, std=1.0, size=None, *, generator=None, dtype=None, requires_grad=False):
    tensor_args = isinstance(mean, EngineTensor) or isinstance(std, EngineTensor)
    if tensor_args and size is not None:
        # torch's parser: with a size, 0-d tensors (not requiring grad) stand for numbers
        # (d2l: torch.normal(mu, sigma, size=(1000,)) of two 0-d tensors draws 1,000 values)
        from ._arg_parser import is_float, typename

        if not (is_float(mean) and is_float(std)):
            raise TypeError("normal() received an invalid combination of arguments - got "
                            f"({typename(mean)}, {typename(std)}, size={typename(size)}), but "
                            "expected one of:\n" + _NORMAL_OVERLOADS)
        mean, std, tensor_args = float(mean), float(std), False
    if tensor_args:
        # torch: the result has the tensor mean's dtype (else std's); normal_(0, std) + mean
        # for a number std, normal_(0, 1) * std + mean otherwise
        if not isinstance(std, EngineTensor):
            m = raw(mean)
            z = _random.normal(m.shape, m.dtype, 0.0, float(std), generator)
            return _finish((z + m).astype(m.dtype), requires_grad)
        s = raw(std)
        m = raw(mean) if isinstance(mean, EngineTensor) else np.asarray(mean, s.dtype)
        dt = m.dtype if isinstance(mean, EngineTensor) else s.dtype
        z = _random.normal(np.broadcast_shapes(m.shape, s.shape), dt, 0.0, 1.0, generator)
        return _finish((z * s.astype(dt) + m.astype(dt)).astype(dt), requires_grad)
    dt = _dt(dtype)
    return _finish(_random.normal(_size((tuple(size),)), dt, float(mean), float(std), generator),
                   requires_grad)


def bernoulli(input, p=None, *, generator=None):  # noqa: A002
    a = raw(input)
    if p is None:  # per-element probabilities: one float draw each (bernoulli_distribution<float>)
        u = _random.uniform(a.shape, np.dtype(np.float32), 0.0, 1.0, generator)
        return _wrap((u < a.astype(np.float32)).astype(a.dtype), True)
    u = _random.uniform(a.shape, np.dtype(np.float64), 0.0, 1.0, generator)
    return _wrap((u < p).astype(a.dtype), True)


def multinomial(input, num_samples, replacement=False, *, generator=None):  # noqa: A002
    """torch's two algorithms: without replacement, or for one sample, the exponential race
    (``argmax``/``topk`` of ``p / q`` with ``q ~ Exp(1)`` drawn over the whole input, in its
    dtype); with replacement, one uniform double a sample against the normalised cumulative
    distribution of each row."""
    if not replacement or num_samples == 1:
        return _multinomial_race(input, num_samples, generator)
    a = raw(input).astype(np.float64)
    rows = a.reshape(-1, a.shape[-1])
    out = []
    for r in rows:
        p = r / r.sum()
        picks = []
        avail = p.copy()
        for _ in range(num_samples):
            u = float(_random.uniform((1,), np.dtype(np.float64), 0.0, 1.0, generator)[0])
            c = np.cumsum(avail / avail.sum())
            k = int(np.searchsorted(c, u, side="right"))
            k = min(k, len(c) - 1)
            picks.append(k)
            if not replacement:
                avail[k] = 0.0
        out.append(picks)
    res = np.array(out, np.int64)
    return _wrap(res.reshape(a.shape[:-1] + (num_samples,)), True)


def _multinomial_race(input, num_samples, generator):  # noqa: A002
    from ._inplace import exponential_

    p = raw(input)
    if p.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if num_samples > p.shape[-1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                           "replacement")
    q = empty(p.shape, dtype=_dtypes.from_np(p.dtype))
    exponential_(q, 1.0, generator)
    if p.dtype == _bfloat16.BITS:  # bfloat16: p / q rounded (the kernel's dtype)
        ratio = _bfloat16.to_float32(_bfloat16.from_float(
            _bfloat16.to_float32(p) / _bfloat16.to_float32(raw(q))))
    else:
        ratio = p / raw(q)
    if num_samples == 1:
        return _wrap(np.argmax(ratio, axis=-1, keepdims=True).astype(np.int64), True)
    order = np.argsort(-ratio, axis=-1, kind="stable")[..., :num_samples]
    return _wrap(order.astype(np.int64), True)


def _meta_factories():
    """Every factory answers ``device='meta'`` (or the default device meta) with a meta tensor
    and no draw (``_meta``); the like-functions of a meta input give a meta tensor."""
    from . import _meta

    g = globals()
    for name in ("zeros", "ones", "empty", "rand", "randn"):
        g[name] = _meta.factory(g[name], shaped=True)
    for name in ("tensor", "as_tensor", "asarray", "full", "arange", "range_", "linspace",
                 "logspace", "eye"):
        g[name] = _meta.factory(g[name])
    for name in ("randint", "randperm"):
        g[name] = _meta.factory(g[name], draws=True)
    for name in ("zeros_like", "ones_like", "empty_like", "full_like", "rand_like",
                 "randn_like", "randint_like"):
        g[name] = _meta.factory(g[name], like=True)


_meta_factories()
