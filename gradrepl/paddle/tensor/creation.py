"""Creating tensors: ``to_tensor``, ``zeros``/``ones``/``full``, ranges, random tensors."""
from __future__ import annotations

import re

import numpy as np

from ...engine.tensor import Tensor as _T
from .. import bf16, core, dtypes, libwarn, profiles, promotion
from ..core import Tensor
from ..utils import deprecated_api as _deprecated_api
from ._args import extra_kwargs, shape_list

__all__ = ["to_tensor", "zeros", "ones", "full", "empty", "zeros_like", "ones_like", "full_like",
           "empty_like", "arange", "linspace", "eye", "rand", "randn", "randint", "uniform",
           "normal", "seed", "assign", "get_default_dtype", "set_default_dtype", "tril", "triu",
           "diag", "meshgrid", "numel", "shape", "rank", "clone", "diagflat", "diag_embed",
           "tril_indices", "triu_indices", "logspace", "range", "from_numpy", "create_tensor"]
__methods__ = ["assign", "tril", "triu"]


def numel(x, name=None):
    """The number of elements as an int64 tensor (0-D, or [1] where Paddle had no 0-D)."""
    n = np.asarray(x.data.size, np.int64)
    return Tensor(n if profiles.current().zero_d else n.reshape(1))


def shape(input, name=None):  # noqa: A002
    """``paddle.shape``: the shape as an int64 tensor."""
    return Tensor(np.asarray(input.data.shape, profiles.current().shape_tensor_dtype))


def rank(input, name=None):  # noqa: A002
    n = np.asarray(input.data.ndim, np.int32)
    return Tensor(n if profiles.current().zero_d else n.reshape(1))


def clone(x, name=None):
    return assign(x)

_DEFAULT_DTYPE = [np.dtype(np.float32)]


def get_default_dtype():
    return dtypes.from_np(_DEFAULT_DTYPE[0]).name  # (bfloat16's bits are uint16)


def set_default_dtype(d):
    dt = dtypes.to_np(d)
    if dt.kind != "f" and dt != bf16.BITS:
        raise TypeError("set_default_dtype only supports [float16, float32, float64, bfloat16] , "
                        f"but received {dt.name}")
    _DEFAULT_DTYPE[0] = dt


def _as_array(data):
    if isinstance(data, _T):
        return np.array(data.data)
    if isinstance(data, np.ndarray):
        return np.array(data)
    if isinstance(data, (bool, np.bool_)):
        return np.array(data, np.bool_)
    if isinstance(data, (int, np.integer)) and not isinstance(data, bool):
        return np.array(data, np.int64 if isinstance(data, int) else data.dtype)
    if isinstance(data, (np.floating, np.complexfloating)):
        return np.array(data)
    if isinstance(data, float):
        return _in_default(np.array(data))
    if isinstance(data, complex):
        return np.array(data, _complex_default())
    if isinstance(data, (list, tuple)):
        if any(isinstance(v, _T) for v in _flat(data)):
            data = _untensor(data)
        arr = np.array(data)  # ragged input raises numpy's ValueError ("inhomogeneous shape")
        if arr.dtype.kind == "f":  # numpy floats of any width included (Paddle 2.6.2, 3.3.1)
            arr = _in_default(arr)
        elif arr.dtype.kind == "i":
            arr = arr.astype(np.int64)
        elif arr.dtype == np.complex128:
            arr = arr.astype(_complex_default())
        elif arr.size == 0 and arr.dtype == np.float64:
            arr = _in_default(arr)
        return arr
    raise TypeError(
        f"Can't constructs a 'paddle.Tensor' with data type {type(data)}, data type must be "
        "scalar|list|tuple|np.ndarray|paddle.Tensor")


def _complex_default():
    """Python complex numbers' dtype: complex128 under a float64 default dtype, else complex64
    (real 2.6.2 and 3.3.1)."""
    return np.complex128 if np.dtype(_DEFAULT_DTYPE[0]) == np.float64 else np.complex64


def _in_default(arr):
    """Float values in the default dtype (bfloat16 rounded as the profile rounds)."""
    return _values_as(arr, _DEFAULT_DTYPE[0])


def _values_as(arr, npdtype):
    """``arr.astype(npdtype)`` by value: bfloat16 bits are read as numbers and numbers become
    bfloat16 bits through the profile's rounding."""
    npdtype = np.dtype(npdtype)
    if npdtype == bf16.BITS:
        return bf16.from_float(arr)
    return arr.astype(npdtype)


def _flat(seq):
    for v in seq:
        if isinstance(v, (list, tuple)):
            yield from _flat(v)
        else:
            yield v


def _untensor(seq):
    return [(_untensor(v) if isinstance(v, (list, tuple)) else
             (v.data.tolist() if isinstance(v, _T) else v)) for v in seq]




def _array_as(data, npdtype):
    """Python data converted straight to ``npdtype``; out-of-range integers wrap around
    (``to_tensor([-2], dtype='uint8')`` is 254) as in Paddle's C++ cast."""
    try:
        return np.array(data, dtype=npdtype)
    except OverflowError:
        return np.array(data).astype(npdtype)


_PADDLE_DTYPES = ("bool, float16, uint16, float32, float64, int8, int16, int32, int64, uint8, "
                  "complex64, complex128, bfloat16")


def _tensor_dtype(dtype):
    """to_tensor's dtype argument (its own wording for a name it does not know)."""
    try:
        return dtypes.to_np(dtype)
    except TypeError:
        raise TypeError(f"dtype must be any of [{_PADDLE_DTYPES}], but received {dtype}") from None


def _set_error():
    """What Paddle's tensor.set() raises for data it cannot hold (strings, objects, huge ints)."""
    line = "566" if profiles.current().error_wording == "3" else "537"
    return ValueError(
        "(InvalidArgument) Input object type error or incompatible array data type. tensor.set() "
        "supports array with bool, float16, float32, float64, int8, int16, int32, int64, uint8 "
        "or uint16, please check your input or input array data type. (at /paddle/paddle/fluid/"
        f"pybind/tensor_py.h:{line})")


def _checked_array(arr):
    """Only Paddle's dtypes can be held; a None inside a list fails as Paddle 3.3.1 says it."""
    if arr.dtype == object and any(v is None for v in arr.reshape(-1).tolist()):
        raise ValueError("\n\tFailed to convert input data to a regular ndarray :\n\t - Usually "
                         "this means the input data contains nested lists with different "
                         "lengths. ")
    if arr.dtype not in _HOLDABLE:
        raise _set_error()
    return arr


_HOLDABLE = {np.dtype(t) for t in (np.bool_, np.float16, np.float32, np.float64, np.int8,
                                   np.int16, np.int32, np.int64, np.uint8, np.complex64,
                                   np.complex128, np.uint16)}  # uint16: bfloat16 bits


_warned_copy = False
_COPY_WARNING = ("To copy construct from a tensor, it is recommended to use "
                 "sourceTensor.clone().detach(), rather than paddle.to_tensor(sourceTensor).")


def to_tensor(data, dtype=None, place=None, stop_gradient=True):
    global _warned_copy
    if isinstance(data, _T) and not _warned_copy and profiles.current().to_tensor_copy_warning:
        _warned_copy = True  # once a process, as Paddle's module-level flag
        libwarn.warn("to_tensor_copy", _COPY_WARNING)
    if dtype is not None:
        dtype = _tensor_dtype(dtype)
    try:
        arr = _to_array(data, dtype)
    except OverflowError:
        raise _set_error() from None
    arr = _checked_array(arr)
    if not isinstance(stop_gradient, bool) and profiles.current().arg_type_error == "ValueError":
        raise ValueError(  # 2.x's pybind Tensor constructor; 3.x takes any truth value
            f"(InvalidArgument) argument (position 1) must be bool, but got "
            f"{type(stop_gradient).__name__} (at /paddle/paddle/fluid/pybind/eager_utils.cc:236)")
    if arr.ndim == 0 and not profiles.current().zero_d:
        arr = arr.reshape(1)
    # named at creation: generated_tensor_N, or the name of the tensor it copies
    name = data.name if isinstance(data, _T) else core.next_name("generated_tensor")
    return Tensor(arr, stop_gradient=bool(stop_gradient), name=name)


def _to_array(data, dtype):
    if isinstance(data, _T) and dtype is not None and dtypes.to_np(dtype) == np.float16 and \
            data.data.dtype.kind in "fiu" and data.data.dtype not in (np.float16, bf16.BITS) \
            and profiles.current().f16_rounding == "zero":
        from ...engine.ops.math import _f16   # 2.x casts a tensor: toward zero (real 2.6.2)

        return _f16(data.data)
    if isinstance(data, _T) and data.data.dtype == bf16.BITS and dtype is not None:
        return _values_as(bf16.to_float32(data.data), dtype)  # a bfloat16 tensor's values
    if dtype == bf16.BITS and not (isinstance(data, np.ndarray) and data.dtype == dtype):
        arr = _as_array(data)  # numbers (a uint16 numpy array is bits already)
        return arr if arr.dtype == object else bf16.from_float(arr)
    if dtype is not None and (isinstance(data, (list, tuple, float, int)) or (isinstance(
            data, complex) and dtypes.to_np(dtype).kind == "c")) and not isinstance(
            data, bool) and not any(isinstance(v, _T) for v in _flat(
                data if isinstance(data, (list, tuple)) else [data])):
        arr = _array_as(data, dtypes.to_np(dtype))
    else:
        arr = _as_array(data)
    if dtype is not None and arr.dtype != object:
        arr = arr.astype(dtype, copy=False)
    return arr


def tensor(data, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """``paddle.tensor(data, dtype, device, requires_grad)`` (3.x): ``to_tensor`` with torch's
    argument names."""
    return to_tensor(data, dtype=dtype, stop_gradient=not requires_grad)


def _dt(dtype, default=None):
    if dtype is None:
        return default if default is not None else _DEFAULT_DTYPE[0]
    return dtypes.to_np(dtype)


def _arg_error(text_3, text_26, at_3, at_26):
    """A pybind argument error: TypeError (InvalidType) in 3.x, ValueError (InvalidArgument)
    in 2.x, each with its source location."""
    if profiles.current().arg_type_error == "TypeError":
        return TypeError(f"(InvalidType) {text_3} (at /paddle/paddle/fluid/pybind/{at_3})\n")
    return ValueError(f"(InvalidArgument) {text_26} (at /paddle/paddle/fluid/pybind/{at_26})\n")


def fill_shape(shape, op="full"):
    """The shape argument of full/zeros/ones/rand...: checked as Paddle's pybind and kernel do."""
    if isinstance(shape, (list, tuple)):
        for i, v in enumerate(shape):
            if not isinstance(v, (int, np.integer, _T)) or isinstance(v, bool):
                kind = type(v).__name__
                raise _arg_error(
                    f"{op}(): argument (position 1) must be list of int, but got {kind} at pos {i}",
                    f"{op}(): argument (position 1) must be list of int, but got {kind} at pos {i}",
                    "op_function_common.cc:708", "op_function_common.cc:470")
    elif not isinstance(shape, (int, np.integer, _T)) or isinstance(shape, core.EagerParamBase):
        # (a Parameter is no shape tensor to Paddle's pybind: measured on 3.3.1 and 2.6.2)
        kind = type(shape).__name__
        raise _arg_error(
            f"{op}(): argument (position 1) must be list, tuple, int, or Tensor, but got {kind}",
            f"{op}(): argument (position 1) must be list or int, but got {kind}",
            "eager_utils.cc:2669", "eager_utils.cc:2325")
    elif isinstance(shape, _T) and shape.data.dtype.kind not in "iu":
        name = str(dtypes.from_np(shape.data.dtype)).replace("paddle.", "")
        line = 105 if profiles.current().arg_type_error == "TypeError" else 108
        raise OSError(
            "Data type error. Currently, The data type of IntArrayBase only supports Tensor with "
            f"int32 and int64, but now received `{name}`.\n  "
            f"[/paddle/paddle/phi/common/int_array.h:{line}]")
    dims = shape_list(shape)
    for i, d in enumerate(dims):
        if d < 0:
            line = 165 if profiles.current().arg_type_error == "TypeError" else 60
            raise ValueError(
                "(InvalidArgument) Each value of attribute 'shape' is expected to be no less than "
                f"0. But received: shape[{i}] = {d}; shape = {list(dims)}.\n  [Hint: Expected "
                f"data[i] >= 0, but received data[i]:{d} < 0:0.] (at "
                f"/paddle/paddle/phi/infermeta/nullary.cc:{line})\n")
    return dims


@extra_kwargs("out", "device", "requires_grad", "pin_memory")
def full(shape, fill_value, dtype=None, name=None):
    if isinstance(fill_value, _T):
        # 2.x's fill_constant takes float(value): a Tensor not 0-D is numpy's TypeError (real
        # 2.6.2 here, also inside its own BeamSearchDecoder.initialize); 3.x reads the value
        fill_value = float(fill_value) if profiles.current().arg_type_error != "TypeError" \
            else fill_value.item()
    if dtype is None:
        dtype = np.bool_ if isinstance(fill_value, bool) and profiles.current().full_bool_dtype \
            else _DEFAULT_DTYPE[0]
    dims = fill_shape(shape)
    if isinstance(fill_value, str):
        fill_value = _string_fill(fill_value)
    if isinstance(fill_value, complex) and profiles.current().arg_type_error != "TypeError":
        # 2.x's fill_constant converts float(value) (real 2.6.2; 3.x fills the complex number)
        raise TypeError("float() argument must be a string or a real number, not 'complex'")
    if isinstance(fill_value, complex) and dtype is _DEFAULT_DTYPE[0]:
        dtype = np.complex128   # (3.3.1: a complex fill without a dtype is complex128)
    return Tensor(_filled(dims, fill_value, _dt(dtype)))


_FILL_NUMBER = re.compile(r"\s*[+-]?(?:\d+\.?\d*|\.\d+)")
_FILL_EXPONENT = re.compile(r"[eE][+-]?\d+")


def _string_fill(text):
    """A string fill value as the version reads it. 2.x: Python's ``float(text)`` (its error).
    3.x: the C++ scalar's parse (measured on 3.3.1): 'inf', '-inf', 'nan' and 'True'/'False'
    exactly, otherwise the longest leading decimal number as a stream extraction reads it
    ('1.5abc' 1.5, ' 2 ' 2, overflow +-DBL_MAX, underflow 0), and 0 where none parses ('a',
    'Inf', '0x10' 0, '1e' 0)."""
    if profiles.current().arg_type_error != "TypeError":
        return float(text)
    special = {"inf": np.inf, "-inf": -np.inf, "nan": np.nan, "True": 1.0, "False": 0.0}
    if text in special:
        return special[text]
    head = _FILL_NUMBER.match(text)
    if head is None:
        return 0.0
    rest = text[head.end():]
    number = head.group(0)
    if rest[:1] in ("e", "E"):
        exp = _FILL_EXPONENT.match(rest)
        if exp is None:
            return 0.0
        number += exp.group(0)
    value = float(number)
    if np.isinf(value):
        return float(np.copysign(np.finfo(np.float64).max, value))
    if value == 0.0 and any(c in "123456789" for c in head.group(0)):
        return 0.0   # an underflow fails the extraction: 0
    return value


def _filled(shape, value, npdtype):
    """``np.full`` (a bfloat16 fill rounded as the profile rounds)."""
    if npdtype == bf16.BITS:
        return bf16.from_float(np.full(shape, value, np.float32))
    if npdtype == np.float16 and profiles.current().f16_rounding == "zero" and \
            not isinstance(value, complex):
        from ...engine.ops.math import _f16   # 2.x's float16(value): toward zero

        return _f16(np.full(shape, value, np.float32))
    return np.full(shape, value, dtype=npdtype)


@extra_kwargs("out", "device", "requires_grad", "pin_memory")
def zeros(shape, dtype=None, name=None):
    return Tensor(_filled(fill_shape(shape), 0, _dt(dtype)))


@extra_kwargs("out", "device", "requires_grad", "pin_memory")
def ones(shape, dtype=None, name=None):
    return Tensor(_filled(fill_shape(shape), 1, _dt(dtype)))


@extra_kwargs("out", "device", "requires_grad", "pin_memory")
def empty(shape, dtype=None, name=None):
    if isinstance(shape, core.EagerParamBase):  # (pybind reads it as a list of its values)
        first = shape.tolist()[0] if shape.data.size else None
        raise _arg_error(
            f"empty(): argument (position 1) must be list of int, but got "
            f"{type(first).__name__} at pos 0", f"empty(): argument (position 1) must be list "
            f"of int, but got {type(first).__name__} at pos 0",
            "op_function_common.cc:708", "op_function_common.cc:470")
    return zeros(shape, dtype)


@extra_kwargs("device", "requires_grad", "pin_memory")
def full_like(x, fill_value, dtype=None, name=None):
    if not isinstance(x, _T):
        raise AttributeError(f"'{type(x).__name__}' object has no attribute 'dtype'")
    return Tensor(_filled(x.data.shape, fill_value, _dt(dtype, x.data.dtype)))


@extra_kwargs("device", "requires_grad", "pin_memory")
def zeros_like(x, dtype=None, name=None):
    return full_like(x, 0, dtype)


@extra_kwargs("device", "requires_grad", "pin_memory")
def ones_like(x, dtype=None, name=None):
    return full_like(x, 1, dtype)


@extra_kwargs("device", "requires_grad", "pin_memory")
def empty_like(x, dtype=None, name=None):
    return full_like(x, 0, dtype)


def _num(v):
    return v.item() if isinstance(v, _T) else v


def _in_dtype(v, dt):
    """A python number as Paddle's ``fill_constant`` stores it in ``dt`` (ints truncate)."""
    return dt.type(int(v)) if dt.kind in "iu" else dt.type(v)


@extra_kwargs("out", "device", "requires_grad", "pin_memory")
def arange(start=0, end=None, step=1, dtype=None, name=None):
    """Values from ``start`` up to ``end`` every ``step``, as Paddle's CPU kernel makes them:
    start, end and step cast to the dtype, then ``value += step`` accumulated in the dtype
    (so ``arange(-8., 8., .1)[80]`` is -5.379319e-06, not 0)."""
    start, end, step = _num(start), _num(end), _num(step)
    if end is None:
        start, end = 0, start
    if dtype is None:
        isint = all(isinstance(v, (int, np.integer)) for v in (start, end, step))
        dtype = np.int64 if isint else _DEFAULT_DTYPE[0]
    dt = dtypes.to_np(dtype)
    if dt.kind == "c":   # (no complex kernel in 2.6.2 or 3.3.1)
        from ..complex_kernels import not_found

        raise not_found("arange_tensor", dt.name, "int32, int64, float64, float32")
    s, e, st = (_in_dtype(v, dt) for v in (start, end, step))
    line = {"2.6": (26, 33, 40), "3": (23, 0, 0)}.get(profiles.current().key, (26, 33, 40))
    if st == 0:
        raise ValueError(_range_error("The step of range op should not be 0.", "!=", "==", st,
                                      line[0]))
    if not profiles.current().empty_reduce == "identity":  # 2.x checks the direction
        if s < e and st < 0:
            raise ValueError(_range_error("The step should be greater than 0 while start < end.",
                                          ">", "<=", st, line[1]))
        if s > e and st > 0:
            raise ValueError(_range_error("The step should be less than 0 while start > end.",
                                          "<", ">=", st, line[2]))
    return Tensor(_range_values(s, e, st, dt))


def _range_error(text, want, got, step, line):
    """Paddle's PADDLE_ENFORCE text for a range step (C++ streams print the step like %g)."""
    return (f"(InvalidArgument) {text}\n  [Hint: Expected step {want} 0, but received "
            f"step:{step:g} {got} 0:0.] (at /paddle/paddle/phi/kernels/funcs/"
            f"range_function.h:{line})\n")


def _range_values(s, e, st, dt):
    """Paddle's ``GetSize`` (in the dtype) and its accumulating fill loop."""
    if (s < e and st < 0) or (s > e and st > 0):
        return np.zeros([0], dt)
    with np.errstate(all="ignore"):
        if dt.kind in "iu":
            n = (abs(int(e) - int(s)) + abs(int(st)) - 1) // abs(int(st))
        else:
            n = int(np.ceil(np.abs(dt.type((e - s) / st))))
    steps = np.full(n, st, dt)
    if n:
        steps[0] = s
    return np.cumsum(steps, dtype=dt)  # sequential: out[i] = out[i-1] + step, in the dtype


@extra_kwargs("out", "device", "requires_grad", "pin_memory")
def linspace(start, stop, num, dtype=None, name=None):
    """``num`` evenly spaced values from start to stop, as Paddle's CPU kernel computes them: the
    first half counted up from start, the second half down from stop. The step is
    ``(stop - start) / (num - 1)`` in float64 (2.x, and integer dtypes, truncated at the end) or,
    for float dtypes in 3.x, in the dtype itself."""
    n = int(_num(num))
    if profiles.current().empty_reduce == "identity":  # 3.x allows num == 0
        if n < 0:
            raise ValueError("(InvalidArgument) The num of linspace op should be larger than or "
                             f"equal to 0, but received num is {n}")
    elif n <= 0:
        raise ValueError("(InvalidArgument) The num of linspace op should be larger than 0, but "
                         f"received num is {n}")
    dt = _dt(dtype)
    if dt == np.float16:   # (no float16 kernel in 2.6.2 or 3.3.1)
        from .reduce import refuse_float16

        refuse_float16(Tensor(np.zeros(0, np.float16)), "linspace")
    if dt.kind == "c":   # (no complex kernel in 2.6.2 or 3.3.1)
        from ..complex_kernels import not_found

        raise not_found("linspace", dt.name, "int32, float64, int64, float32")
    s0, s1 = _in_dtype(_num(start), dt), _in_dtype(_num(stop), dt)
    if n <= 1:
        return Tensor(np.asarray([s0] * n, dt))
    i = np.arange(n)
    if dt.kind == "f" and profiles.current().linspace_step == "dtype":
        step = dt.type((s1 - s0) / dt.type(n - 1))
        lo = s0 + step * i.astype(dt)
        hi = s1 - step * (n - 1 - i).astype(dt)
    else:
        with np.errstate(over="ignore"):
            diff = float(s1 - s0)  # the difference in the dtype (ints wrap as in C)
        step = diff / (n - 1)
        lo = np.float64(s0) + step * i
        hi = np.float64(s1) - step * (n - 1 - i)
    out = np.where(i < n // 2, lo, hi)
    return Tensor((np.trunc(out) if dt.kind in "iu" else out).astype(dt))


@extra_kwargs("out", "device", "requires_grad", "pin_memory")
def eye(num_rows, num_columns=None, dtype=None, name=None):
    for what, v in (("num_rows", num_rows), ("num_columns", num_columns)):
        if v is not None and (not isinstance(v, (int, np.integer)) or v < 0):
            raise TypeError(f"{what} should be a non-negative int.")
    dt = _dt(dtype)
    have = _EYE_DTYPES[profiles.current().kernel_set]
    name = dtypes.from_np(dt).name
    if name not in have.split(", "):  # measured: no bool / int8 / uint8 / int16 / bfloat16 kernel
        raise RuntimeError(
            f"(NotFound) The kernel with key (CPU, Undefined(AnyLayout), {name}) of kernel "
            f"`eye` is not registered. Selected wrong DataType `{name}`. Paddle support "
            f"following DataTypes: {have}." + promotion.kernel_hint())
    return Tensor(np.eye(int(num_rows), None if num_columns is None else int(num_columns),
                         dtype=dt))


#: the dtypes of Paddle's eye CPU kernel, per kernel set (real 2.6.2 / 3.3.1)
_EYE_DTYPES = {"2.6": "int32, int64, float64, float16, float32",
               "3": "int32, int64, float64, complex128, float16, float32, complex64"}


# -------------------------------------------------------------------- random
from .. import random_engine as _random  # noqa: E402

__all__ += ["randperm", "standard_normal", "get_rng_state", "set_rng_state", "bernoulli",
            "randint_like", "normal_"]
__methods__ += ["uniform_", "normal_"]


class GeneratorState(metaclass=core.PaddleClass):
    """A snapshot of the generator (``Generator.get_state``): its engine and seed."""

    _paddle_path = "paddle.base.libpaddle.GeneratorState"

    def __init__(self, engine_state, seed):
        self._engine_state = engine_state
        self._seed = seed

    def current_seed(self):
        return self._seed

    def __str__(self):
        """Paddle's text: device (-1: CPU), seed, offset, (3.x: the engine's address,) then
        the engine as libstdc++ writes it (its 312 words and position)."""
        words, pos = self._engine_state
        head = [-1, self._seed, 0]
        if _kernels()["state_address"]:
            head.append(hex(id(self._engine_state)))
        return " ".join(str(v) for v in head + [int(w) for w in words] + [pos])

    def __repr__(self):
        return core.paddle_repr(self, self._paddle_path)


def _seed_error(gen, value):
    return TypeError(
        "manual_seed(): incompatible function arguments. The following argument types are "
        "supported:\n    1. (self: paddle.base.libpaddle.Generator, arg0: int) -> "
        f"paddle.base.libpaddle.Generator\n\nInvoked with: {gen!r}, {value!r}")


class Generator(metaclass=core.PaddleClass):
    """Paddle's CPU generator, what ``paddle.seed`` returns: a ``std::mt19937_64`` seeded
    through ``std::seed_seq({seed})``; every random kernel draws from its ``engine``."""

    _paddle_path = "paddle.base.libpaddle.Generator"

    def __init__(self, seed=0):
        self.engine = _random.MT19937_64()
        self.manual_seed(seed)

    def manual_seed(self, seed):
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) \
                or not 0 <= int(seed) < 2 ** 64:
            raise _seed_error(self, seed)
        self._seed = int(seed)
        self.engine.seed_seq(self._seed)
        return self

    def seed(self):
        """Seed with a fresh random number (Paddle takes it from the system) and return it."""
        import random

        self.manual_seed(random.getrandbits(52))
        return self._seed

    def initial_seed(self):
        return self._seed

    def get_state(self):
        return GeneratorState(self.engine.state, self._seed)

    def set_state(self, state):
        self.engine.state = state._engine_state
        self._seed = state._seed

    def random(self, size=None):
        """The engine's next raw 64-bit number (Paddle's ``Generator.random()``); with a
        ``size``, float64 uniforms in [0, 1) of that shape (for gradrepl's own callers)."""
        if size is None:
            return int(self.engine.draw(1)[0])
        return self.uniform(0.0, 1.0, size, np.float64)

    def permutation(self, n):
        """``paddle.randperm(n)``'s numbers as an int64 array."""
        return randperm(n).data

    def uniform(self, low, high, shape, dtype=np.float32):
        """An array of ``std::uniform_real_distribution`` values (one kernel call)."""
        dims = tuple(shape) if np.ndim(shape) else (int(shape),)
        n = int(np.prod(dims))
        return _random.uniform(self.engine, n, dtype, low, high).reshape(dims)

    def normal(self, mean, std, shape, dtype=np.float32):
        """An array of ``std::normal_distribution`` values (one kernel call)."""
        dims = tuple(shape) if np.ndim(shape) else (int(shape),)
        n = int(np.prod(dims))
        return _random.normal(self.engine, n, dtype, mean, std).reshape(dims)

    def __repr__(self):
        return core.paddle_repr(self, self._paddle_path)


#: a fresh process's generator (Paddle seeds it from the system; gradrepl from 0, so that
#: sessions replay)
_RNG = [Generator(0)]


def seed(s):
    """Seed the global generator with ``int(s)`` and return it."""
    gen = _RNG[0]
    gen.manual_seed(int(s))
    return gen


def rng():
    """The global generator."""
    return _RNG[0]


def get_rng_state(device=None, use_index=False):
    """The generator's state, a list of one ``GeneratorState`` (CPU only)."""
    return [_RNG[0].get_state()]


def set_rng_state(state_list, device=None, use_index=False):
    """Restore what ``get_rng_state`` returned."""
    _RNG[0].set_state(state_list[0])


def _kernel_engine(seed):
    """A kernel's engine: its own ``std::mt19937_64(seed)`` when the seed attribute is set."""
    return _random.MT19937_64(int(seed)) if seed else _RNG[0].engine


def _kernels():
    return _random.KERNELS[profiles.current().random_kernels]


def _random_shape(shape):
    dims = shape_list(shape)
    if any(d < 0 for d in dims):
        raise RuntimeError("(PreconditionNotMet) The meta data must be valid when call the "
                           "mutable data function.")
    return dims


#: the dtypes of Paddle's uniform / gaussian CPU kernels, per kernel set
_FLOAT_KERNEL_DTYPES = {
    ("uniform", "2.6"): "float64, float32, bfloat16", ("gaussian", "2.6"): "float64, float32",
    ("uniform", "3"): "float64, complex128, float16, float32, complex64, bfloat16",
    ("gaussian", "3"): "float64, complex128, float16, float32, complex64, bfloat16"}


def _float_kernel(kernel, dtype):
    """uniform / gaussian have float kernels only (float16 from Paddle 3)."""
    dt = _dt(dtype)
    kset = profiles.current().random_kernels
    have = _FLOAT_KERNEL_DTYPES[(kernel, kset)]
    bits = dt == bf16.BITS  # bfloat16: drawn in float32, then rounded
    if (dt.kind != "f" and not bits) or (dt == np.float16 and not _kernels()["half"]) or (
            bits and "bfloat16" not in have.split(", ")):
        name = dtypes.from_np(dt).name
        raise RuntimeError(
            f"(NotFound) The kernel with key (CPU, Undefined(AnyLayout), {name}) of kernel "
            f"`{kernel}` is not registered. Selected wrong DataType `{name}`. Paddle support "
            f"following DataTypes: {have}." + promotion.kernel_hint())
    return dt


def _gaussian(shape, mean, std, dtype, seed=0):
    dt = _float_kernel("gaussian", dtype)
    dims = _random_shape(shape)
    vals = _random.normal(_kernel_engine(seed), int(np.prod(dims)), dt, mean, std)
    return Tensor(_values_as(vals, dt).reshape(dims))


@extra_kwargs("out", "device", "requires_grad", "pin_memory")
def rand(shape, dtype=None, name=None):
    """Uniform values in [0, 1) from the global generator (Paddle's numbers)."""
    return uniform(shape, dtype, 0.0, 1.0)


@extra_kwargs("out", "device", "requires_grad", "pin_memory")
def randn(shape, dtype=None, name=None):
    """Standard normal values from the global generator (Paddle's numbers)."""
    return _gaussian(shape, 0.0, 1.0, dtype)


@extra_kwargs("out", "device", "requires_grad")
def standard_normal(shape, dtype=None, name=None):
    """Standard normal values (``randn``)."""
    return _gaussian(shape, 0.0, 1.0, dtype)


@extra_kwargs("out", "device", "requires_grad")
def uniform(shape, dtype=None, min=None, max=None, seed=0, name=None):  # noqa: A002
    """Uniform values in [min, max) (by default [-1, 1) in 2.x, [0, 1) in 3.x); a nonzero
    ``seed`` draws from an engine of its own."""
    dt = _float_kernel("uniform", dtype)
    low, high = _kernels()["uniform_range"]
    min = low if min is None else min  # noqa: A001
    max = high if max is None else max  # noqa: A001
    dims = _random_shape(shape)
    vals = _random.uniform(_kernel_engine(seed), int(np.prod(dims)), dt, min, max)
    return Tensor(_values_as(vals, dt).reshape(dims))


def normal(mean=0.0, std=1.0, shape=None, name=None):
    """Normal values: float mean and std give ``shape`` values of the default dtype; a tensor
    mean or std gives standard normals of its shape and dtype, times std plus mean."""
    if isinstance(mean, _T) or isinstance(std, _T):
        like = mean if isinstance(mean, _T) else std
        z = standard_normal(list(like.data.shape), like.data.dtype)
        if isinstance(mean, _T) and isinstance(std, _T) and std.data.dtype != mean.data.dtype:
            std = Tensor(std.data.astype(mean.data.dtype))
        return z * (std if isinstance(std, _T) else float(std)) + \
            (mean if isinstance(mean, _T) else float(mean))
    return _gaussian(shape if shape is not None else [1], mean, std, None)


def randint(low=0, high=None, shape=(1,), dtype=None, name=None):
    """Integers in [low, high) (``std::uniform_int_distribution``)."""
    if high is None:
        low, high = 0, low
    low, high = (_int32_attr(v) for v in (low, high))
    if low >= high:
        raise ValueError(f"(InvalidArgument) randint's low must less then high, but received: "
                         f"low = {low}, high = {high}.")
    dims = _random_shape(shape)
    vals = _random.integers(_RNG[0].engine, int(np.prod(dims)), low, high,
                            _kernels()["int_method"])
    return Tensor(vals.astype(_dt(dtype, np.dtype(np.int64))).reshape(dims))


def _int32_attr(v):
    """randint's low / high are int32 attributes: 2.x wraps a bigger int, 3.x refuses it."""
    v = int(v)
    if -2 ** 31 <= v < 2 ** 31:
        return v
    if _kernels()["int32_attr"] == "wrap":
        return (v + 2 ** 31) % 2 ** 32 - 2 ** 31
    raise IndexError(f"(OutOfRange) Integer value {v} exceeds int32 range [-2147483648, "
                     "2147483647] (at /paddle/paddle/fluid/pybind/op_function_common.cc:123)")


@extra_kwargs("out", "device", "requires_grad", "pin_memory")
def randperm(n, dtype="int64", name=None):
    """A random permutation of 0 .. n-1 (``std::shuffle``)."""
    perm = _random.shuffle(_RNG[0].engine, np.arange(int(n)).tolist(), _kernels()["int_method"])
    return Tensor(np.asarray(perm, np.int64).astype(_dt(dtype, np.dtype(np.int64))))


def randint_like(x, low=0, high=None, dtype=None, name=None):
    """``randint`` over x's shape, in ``dtype`` (x's by default)."""
    out = randint(low, high, list(x.data.shape), "int64")
    return Tensor(out.data.astype(_dt(dtype, x.data.dtype)))


def bernoulli(x, p=None, name=None):
    """1 where a uniform draw (of x's float type) is below x's probability (or ``p``, 3.x)."""
    if p is not None and not profiles.current().api3:
        raise TypeError("bernoulli() got an unexpected keyword argument 'p'")
    t = x.data.dtype
    probs = x.data if p is None else np.full(x.data.shape, p, t)
    u = _random.uniform(_RNG[0].engine, probs.size, t, 0.0, 1.0).reshape(probs.shape)
    return Tensor((u < probs).astype(t))


def _fill_random(x, values):
    from . import indexing

    return indexing.inplace(x, lambda v: indexing._filled(v, values.reshape(v.data.shape)))


def uniform_(x, min=None, max=None, seed=0, name=None):  # noqa: A002
    """Fill x in place with ``uniform``'s values (by default [-1, 1) in 2.x, [0, 1) in 3.x)."""
    low, high = _kernels()["uniform_range"]
    low = low if min is None else min
    high = high if max is None else max
    t = x.data.dtype
    return _fill_random(x, _random.uniform(_kernel_engine(seed), x.data.size, t, low, high))


def normal_(x, mean=0.0, std=1.0, name=None):
    """Fill x in place with normal values (``gaussian_inplace``)."""
    return _fill_random(x, _random.normal(_RNG[0].engine, x.data.size, x.data.dtype, mean, std))


def _assign_array(x):
    """What ``paddle.assign`` makes of a non-tensor: numpy's own conversion (python floats are
    float64, a scalar is shape [1]), then the ``assign_value`` kernel's dtypes."""
    if isinstance(x, np.ndarray):
        arr = np.array(x)
    elif np.isscalar(x) and not isinstance(x, str):
        arr = np.array([x])
    elif isinstance(x, (list, tuple)):
        if any(isinstance(v, _T) for v in _flat(x)):
            return _as_array(x)
        arr = np.array(x)
    else:
        raise TypeError(f"The type of 'input' in assign must be (Variable, numpy.ndarray, list, "
                        f"tuple, float, int, bool), but received {type(x)}.")
    if arr.dtype == object:
        raise TypeError("The type of received input == `object`, it is not supported to convert "
                        "to tensor, such as [[Var], [Var], [3], [4]]")
    ok = "float64, complex128, float16, float32, complex64, int32, bfloat16, bool, int64, int8"
    if arr.dtype.name not in ok.split(", "):
        name = arr.dtype.name
        raise RuntimeError(
            f"(NotFound) The kernel with key (CPU, Undefined(AnyLayout), {name}) of kernel "
            f"`assign_value` is not registered. Selected wrong DataType `{name}`. Paddle support "
            f"following DataTypes: {ok}." + promotion.kernel_hint())
    return arr


def assign(x, output=None):
    """Copy ``x`` (a Tensor, numpy array, list or scalar) into a new tensor, or into ``output``
    in place (its shape and dtype become x's; its inplace_version is bumped)."""
    from ...engine.ops import shape as S

    if isinstance(x, _T):
        out = S.assign(x)
    else:
        out = Tensor(_assign_array(x))
    if output is None:
        return out
    output.bump_version()
    output.data = out.data
    if isinstance(output, core.UninitializedTensor):
        output.__class__ = Tensor
    if out.grad_node is not None:
        from .indexing import _move_graph_place

        _move_graph_place(output, out, None)
    return output


def tril(x, diagonal=0, name=None):
    from ...engine.ops import shape as S

    if x.data.ndim < 2:
        raise ValueError(f"(InvalidArgument) tril needs a tensor of rank >= 2, got shape "
                         f"{list(x.data.shape)}")
    return S.tril(x, diagonal)


def triu(x, diagonal=0, name=None):
    from ...engine.ops import shape as S

    if x.data.ndim < 2:
        raise ValueError(f"(InvalidArgument) triu needs a tensor of rank >= 2, got shape "
                         f"{list(x.data.shape)}")
    return S.triu(x, diagonal)


def diag(x, offset=0, padding_value=0, name=None):
    """A vector becomes a square matrix with it on the ``offset`` diagonal (``padding_value``
    elsewhere); a matrix gives its ``offset`` diagonal as a vector."""
    from ...engine.ops import manip

    if x.data.ndim > 2:
        raise ValueError(f"(InvalidArgument) The dimension of input x must be either 1 or 2, "
                         f"but received {x.data.ndim}")
    return manip.diag(x, offset, padding_value)


def diagflat(x, offset=0, name=None):
    """The flattened x on the ``offset`` diagonal of a square matrix."""
    from ...engine.ops import manip
    from ...engine.ops import shape as S

    if x.data.ndim > 1:
        x = S.reshape(x, (x.data.size,))
    return manip.diag(x, offset, 0)


def diag_embed(input, offset=0, dim1=-2, dim2=-1):  # noqa: A002 - Paddle's name
    """The last axis of ``input`` on the ``offset`` diagonal of two new axes (dim1, dim2)."""
    from ...engine.ops import manip

    nd = input.data.ndim + 1
    for d in (dim1, dim2):
        if not -nd <= d < nd:
            raise ValueError(f"(InvalidArgument) dim1 and dim2 should be in range [{-nd}, "
                             f"{nd - 1}], but received {dim1} and {dim2}")
    if dim1 % nd == dim2 % nd:
        raise ValueError("(InvalidArgument) diagonal dimensions should not be identical "
                         f"{dim1} vs {dim2}.")
    return manip.diag_embed(input, offset, dim1, dim2)


def _tri_indices(row, col, offset, dtype, lower):
    if not isinstance(row, int) or row < 0:
        raise TypeError("row should be a non-negative int")
    if col is None:
        col = row
    if not isinstance(col, int) or col < 0:
        raise TypeError("col should be a non-negative int")
    if not isinstance(offset, int):
        raise TypeError("offset should be a  int")
    r, c = np.tril_indices(row, offset, col) if lower else np.triu_indices(row, offset, col)
    return Tensor(np.stack([r, c]).astype(dtypes.to_np(dtype)))


def tril_indices(row, col, offset=0, dtype="int64"):
    """The [2, N] row and column indices of the lower triangle (on and below ``offset``)."""
    return _tri_indices(row, col, offset, dtype, True)


def triu_indices(row, col=None, offset=0, dtype="int64"):
    """The [2, N] row and column indices of the upper triangle (on and above ``offset``)."""
    return _tri_indices(row, col, offset, dtype, False)


def logspace(start, stop, num, base=10.0, dtype=None, name=None):
    """``base ** linspace(start, stop, num)`` (Paddle's kernel: the first half counted from
    start, the second from stop)."""
    start, stop, num, base = _num(start), _num(stop), int(_num(num)), _num(base)
    dt = _dt(dtype)
    step = (stop - start) / (num - 1) if num > 1 else 0.0
    half = num // 2
    idx = np.arange(num)
    exps = np.where(idx < half, start + step * idx, stop - (num - idx - 1) * step)
    if num == 1:
        exps = np.asarray([start], np.float64)
    with np.errstate(all="ignore"):
        vals = np.power(float(base), np.asarray(exps, np.float64))
    if dt.kind in "iu":
        vals = np.trunc(vals)
    return Tensor(vals.astype(dt))


@_deprecated_api("paddle.tensor.creation", level=1, reason=(
    "paddle.range is deprecated and will be removed in a future release because its behavior is "
    "inconsistent with Python's range builtin.Instead, use paddle.arange, which produces values "
    "in [start, end)"))
@extra_kwargs("out", "device", "requires_grad")
def range(start=0, end=None, step=1, dtype=None, name=None):  # noqa: A001 - Paddle's name
    """Values from ``start`` to ``end`` inclusive, every ``step`` (floor((end - start) / step) + 1
    of them), in the default float dtype unless ``dtype`` is given."""
    start, end, step = _num(start), _num(end), _num(step)
    if end is None:
        start, end = 0, start
    dt = _dt(dtype)
    if step == 0:
        raise ValueError("(InvalidArgument) The step of range op should not be 0.")
    s, e, st = (np.asarray(v).astype(dt) for v in (start, end, step))
    n = int(np.floor((e - s) / st)) + 1 if (e - s) * st >= 0 else 0
    return Tensor((s + np.arange(max(n, 0)).astype(dt) * st).astype(dt))


def create_tensor(dtype, name=None, persistable=False):
    """An empty tensor of ``dtype`` (Paddle's legacy helper)."""
    return Tensor(np.zeros([0], _dt(dtype)))


def from_numpy(ndarray):
    """A tensor over the numpy array (Paddle shares the memory; gradrepl too)."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"The type of 'ndarray' must be numpy.ndarray, but received "
                        f"{type(ndarray)}.")
    return Tensor(_checked_array(ndarray), name=core.next_name("generated_tensor"))


def meshgrid(*args, **kwargs):
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = args[0]
    return [Tensor(a) for a in np.meshgrid(*[t.data for t in args], indexing="ij")]


# -------------------------------------------------------------------- storage (Tensor methods)
def set_(x, source=None, shape=None, stride=None, offset=0, name=None):
    """``x.set_(source, shape, stride, offset)``: x becomes a view of source's memory (the
    given shape and element strides, starting ``offset`` bytes in); without source, empty."""
    if source is None:
        x.data = np.zeros([0], x.data.dtype)
        x.bump_version()
        return x
    src = source.data
    if src.dtype != x.data.dtype:
        raise ValueError(f"(InvalidArgument) The type of data we are trying to retrieve "
                         f"({src.dtype.name}) does not match the type of data "
                         f"({x.data.dtype.name}) currently contained in the container.")
    if shape is None and stride is None and not offset:
        x.data = src
    else:
        shape = list(src.shape) if shape is None else [int(v) for v in shape]
        if stride is None:
            stride = [int(np.prod(shape[i + 1:], dtype=np.int64)) for i in builtins_range(len(shape))]
        base = src if src.flags.c_contiguous else np.ascontiguousarray(src)
        flat = base.reshape(-1)[int(offset) // src.itemsize:]
        x.data = np.lib.stride_tricks.as_strided(
            flat, tuple(shape), tuple(int(s) * src.itemsize for s in stride), writeable=True)
    x.bump_version()
    return x


def resize_(x, shape, fill_zero=False, name=None):
    """``x.resize_(shape)``: the first elements of x (in order) in the new shape; new elements
    are zeros with ``fill_zero`` (else whatever Paddle's allocator held: zeros here too)."""
    shape = [int(v) for v in shape]
    n = int(np.prod(shape, dtype=np.int64))
    flat = x.data.reshape(-1)
    if n <= flat.size:
        data = np.array(flat[:n])
    else:
        data = np.concatenate([flat, np.zeros(n - flat.size, flat.dtype)])
    x.data = data.reshape(shape)
    x.bump_version()
    return x


def _is_shared_buffer_with(x, other):
    return bool(np.shares_memory(x.data, other.data))


def builtins_range(n):
    return iter(np.arange(n).tolist())


__methods__ += ["set_", "resize_", "_is_shared_buffer_with"]
