"""Paddle's ``bfloat16`` on the CPU: stored as numpy ``uint16`` bits, computed in float32.

A bfloat16 value is the upper half of a float32: its 16 bits are what ``Tensor.numpy()`` and
``tolist()`` give (as in Paddle), and a numpy ``uint16`` array handed to ``to_tensor`` is read as
those bits. Converting a float to bfloat16 rounds to nearest even in Paddle 3 (a NaN becomes
0x7FFF) and truncates the lower 16 bits in 2.x: the profile's ``bf16_rounding``.

Paddle's CPU build has bfloat16 kernels for few ops. ``MISSING`` lists, per kernel, the dtypes
Paddle names when it has none for bfloat16 (measured on 2.6.2 and 3.3.1; None where that version
has one). Every other op computes in float32 and rounds its float result back: the engine hands
each op on uint16 data to ``STORAGE.apply`` (``engine.registry.STORAGE``), and gradients arriving
at one variable are summed through ``STORAGE.add``. Sums follow Paddle's kernels: 3.x accumulates
in float and rounds once; 2.x adds element by element in bfloat16, truncating each partial sum.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from . import profiles

BITS = np.dtype(np.uint16)
_F32 = np.dtype(np.float32)
_NAN_3 = 0x7FFF


def to_float32(bits) -> np.ndarray:
    """bfloat16 bits -> the float32 values they stand for (exact)."""
    b = np.asarray(bits, BITS)
    return (b.astype(np.uint32) << 16).view(np.float32).reshape(b.shape)


def from_float(values) -> np.ndarray:
    """Values of any real dtype -> bfloat16 bits, rounded as the emulated Paddle rounds (through
    float32 first)."""
    f = np.asarray(values)
    if f.dtype == BITS:
        return np.array(f)
    if f.dtype.kind == "c":
        f = np.real(f)
    f = np.array(f, dtype=_F32)  # a C-ordered copy (0-D stays 0-D)
    u = f.view(np.uint32).reshape(f.shape)
    if profiles.current().bf16_rounding == "truncate":
        return (u >> 16).astype(BITS)
    u64 = u.astype(np.uint64)
    bits = ((u64 + 0x7FFF + ((u64 >> 16) & 1)) >> 16).astype(BITS)
    nan = np.isnan(f)
    if nan.any():
        bits[nan] = _NAN_3
    return bits


def full(shape, value, npdtype) -> np.ndarray:
    """``np.full`` of any dtype; a bfloat16 fill is the value rounded to bits."""
    if np.dtype(npdtype) == BITS:
        return from_float(np.full(shape, value, _F32))
    return np.full(shape, value, dtype=npdtype)


def is_bf16(a) -> bool:
    """Whether a numpy array (or dtype) holds bfloat16 bits."""
    return getattr(a, "dtype", a) == BITS


def values(a) -> np.ndarray:
    """An array's values as numbers: bfloat16 bits as float32, anything else unchanged."""
    return to_float32(a) if a.dtype == BITS else a


# --------------------------------------------------------------------------- the kernel table
#: kernel -> (2.x, 3.x): the dtypes Paddle lists when it has no CPU bfloat16 kernel (the text
#: after "Paddle support following DataTypes: "), None where that version has one
MISSING = {
    "abs": ('int32, int64, float64, complex128, float32, complex64.',
           'int32, int64, float64, complex128, float32, complex64.'),
    "add": ('int32, int64, int16, float64, complex128, float32, complex64.',
           'int16, float64, complex128, int32, uint8, float32, complex64, bool, int64, int8.'),
    "all": ('int32, int64, float64, float32, bool.',
           'int32, int64, float64, complex128, float32, complex64, bool.'),
    "allclose": ('float64, float32.',
                'int32, int64, float64, float32, bool.'),
    "amax": ('int32, int64, float64, float32.',
            'int32, int64, float64, float32.'),
    "amin": ('int32, int64, float64, float32.',
            'int32, int64, float64, float32.'),
    "any": ('int32, int64, float64, float32, bool.',
           'int32, int64, float64, complex128, float32, complex64, bool.'),
    "arange_tensor": ('int32, int64, float64, float32.',
                     'int32, int64, float64, float32.'),
    "argmax": ('int64, int16, float64, int32, uint8, float32.',
              'int64, int16, float64, int32, uint8, float32.'),
    "argmin": ('int64, int16, float64, int32, uint8, float32.',
              'int64, int16, float64, int32, uint8, float32.'),
    "argsort": ('int32, int64, float64, float32.',
               None),
    "atan2": ('int32, int64, float64, float16, float32.',
             'int32, int64, float64, float16, float32.'),
    "bmm": ('float64, float32.',
           'float64, float32.'),
    "ceil": ('float64, float32.',
            None),
    "clip": ('int32, int64, float64, float32.',
            'int32, int64, float64, float32.'),
    "concat_grad": ('int16, float64, complex128, float16, int32, uint8, float32, complex64, bool, int64, int8.',
                   'complex128, float16, int16, float64, float8_e4m3fn, int32, uint8, float32, complex64, bool, float8_e5m2, int64, int8.'),
    "cos": ('float64, complex128, float32, complex64.',
           'float64, complex128, float32, complex64.'),
    "cross": ('int32, int64, float64, float32.',
             'int32, int64, float64, complex128, float32, complex64.'),
    "cumprod": ('int32, int64, float64, complex128, float32, complex64.',
               'int32, int64, float64, complex128, float32, complex64.'),
    "cumsum": ('int32, int64, int16, float64, float32.',
              'int16, float64, complex128, int32, uint8, float32, complex64, int64, int8.'),
    "diag": ('int32, int64, float64, float16, float32.',
            'int32, int64, float64, complex128, float16, float32, complex64.'),
    "divide": ('int16, float64, complex128, int32, uint8, float32, complex64, bool, int64, int8.',
              'int16, float64, complex128, int32, uint8, float32, complex64, bool, int64, int8.'),
    "dot": ('int32, int64, float64, complex128, float32, complex64.',
           'int32, int64, float64, complex128, float32, complex64.'),
    "einsum": ('float64, complex128, float32, complex64.',
              'float64, complex128, float32, complex64.'),
    "elu": ('float64, float32.',
           'float64, float32.'),
    "equal_all": ('int32, int64, float64, float32, bool.',
                 'int32, int64, float64, float32, bool.'),
    "erf": ('float64, float16, float32.',
           'float64, float16, float32.'),
    "exp": ('int32, int64, float64, complex128, float16, float32, complex64.',
           'int32, int64, float64, complex128, float16, float32, complex64.'),
    "expand_as": ('int32, int64, float64, float32, bool.',
                 'int32, int64, float64, float32, bool.'),
    "expm1": ('int32, int64, float64, complex128, float16, float32, complex64.',
             'int32, int64, float64, complex128, float16, float32, complex64.'),
    "flip": ('int32, int64, float64, complex128, float32, complex64, bool.',
            'int32, int64, float64, complex128, float32, complex64, bool.'),
    "floor": ('float64, float32.',
             None),
    "fmax": ('int32, int64, float64, float32.',
            'int32, int64, float64, float32.'),
    "fmin": ('int32, int64, float64, float32.',
            'int32, int64, float64, float32.'),
    "frobenius_norm": ('float64, float32.',
                      None),
    "gather_nd": ('int16, float64, complex128, int32, uint8, float32, complex64, bool, int64, int8.',
                 'int16, float64, complex128, int32, uint8, float32, complex64, bool, int64, int8.'),
    "gaussian": ('float64, float32.',
                None),
    "gelu": ('float64, float32.',
            'float64, float32.'),
    "hardtanh": ('float64, float32.',
                'float64, float32.'),
    "heaviside": ('int32, int64, float64, float32.',
                 'int32, int64, float64, float32.'),
    "histogram": ('int32, int64, float64, float32.',
                 'int32, int64, float64, float32.'),
    "isclose": ('float64, complex128, float32, complex64.',
               'float64, complex128, float32, complex64.'),
    "kron": ('int32, int64, float64, complex128, float16, float32, complex64.',
            'int32, int64, float64, complex128, float16, float32, complex64.'),
    "kthvalue": ('int32, int64, float64, float32.',
                'int32, int64, float64, float32.'),
    "leaky_relu": ('float64, float32.',
                  'float64, float32.'),
    "lerp": ('float64, float32.',
            'float64, float32.'),
    "linspace": ('int32, float64, int64, float32.',
                'int32, float64, int64, float32.'),
    "log_grad": ('float64, float32.',
                'float64, complex128, float32, complex64.'),
    "log_softmax": ('float64, float32.',
                   'float64, float32.'),
    "logical_and": ('int32, int16, float64, complex128, float32, complex64, bool, int64, int8.',
                   'int32, int16, float64, complex128, float32, complex64, bool, int64, int8.'),
    "logical_not": ('int32, int16, float64, complex128, float32, complex64, bool, int64, int8.',
                   'int32, int16, float64, complex128, float32, complex64, bool, int64, int8.'),
    "logsumexp": ('float64, float32.',
                 'float64, float32.'),
    "masked_select": ('int32, int64, float64, float32.',
                     None),
    "matmul": ('int32, int64, float64, complex128, float32, complex64.',
              'int32, int64, float64, complex128, float32, complex64.'),
    "max": ('int32, int64, float64, float32.',
           'int32, int64, float64, float32.'),
    "mean": ('int32, int64, float64, complex128, float32, complex64, bool.',
            'int32, int64, float64, complex128, float32, complex64, bool.'),
    "min": ('int32, int64, float64, float32.',
           'int32, int64, float64, float32.'),
    "mode": ('int32, int64, float64, float32.',
            'int32, int64, float64, float32.'),
    "p_norm": (None,
              'float64, float32.'),
    "pad3d": ('int32, int64, float64, complex128, float32, complex64.',
             'int32, int64, float64, complex128, float32, complex64.'),
    "pow": ('int32, int64, float64, float32.',
           'int32, int64, float64, complex128, float32, complex64.'),
    "prod": ('int32, int64, float64, float32.',
            'int32, int64, float64, complex128, float32, complex64.'),
    "put_along_axis": ('int64, float64, int32, uint8, float32.',
                      'int64, int16, float64, int32, uint8, float32.'),
    "reciprocal": ('float64, float32.',
                  'float64, complex128, float32, complex64.'),
    "relu": ('float64, float32.',
            'float64, float32.'),
    "relu6": ('float64, float32.',
             'float64, float32.'),
    "remainder": ('int32, int64, float64, float32.',
                 'int32, int64, float64, complex128, float32, complex64.'),
    "roll": ('int32, int64, float64, complex128, float32, complex64.',
            'int32, int64, float64, complex128, float32, complex64, bool.'),
    "round": ('float64, float32.',
             'int32, int64, float64, complex128, float32, complex64.'),
    "rsqrt": ('float64, float32.',
             'float64, float32.'),
    "scatter": ('int32, int64, float64, float32.',
               'int32, int64, float64, float32.'),
    "sigmoid": ('float64, complex128, float32, complex64.',
               'float64, complex128, float32, complex64.'),
    "sign": ('int16, float64, int32, uint8, float32, int64, int8.',
            'int16, float64, complex128, int32, uint8, float32, complex64, int64, int8.'),
    "silu": ('float64, complex128, float32, complex64.',
            'float64, complex128, float32, complex64.'),
    "sin": ('float64, complex128, float32, complex64.',
           'float64, complex128, float32, complex64.'),
    "softmax": ('float64, float32.',
               'float64, float32.'),
    "softplus": ('float64, complex128, float32, complex64.',
                'float64, complex128, float32, complex64.'),
    "sqrt": ('float64, float32.',
            'float64, complex128, float32, complex64.'),
    "square": ('int32, int64, float64, float32.',
              'int32, int64, float64, complex128, float32, complex64.'),
    "take_along_axis": ('int64, float64, int32, uint8, float32.',
                       'int64, int16, float64, int32, uint8, float32.'),
    "tanh": ('float64, complex128, float32, complex64.',
            'float64, complex128, float32, complex64.'),
    "tile": ('int32, int64, float64, complex128, float32, complex64, bool.',
            'int16, float64, complex128, float16, int32, uint8, float32, complex64, bool, int64, int8.'),
    "topk": ('int32, int64, float64, float32.',
            'int32, int64, float64, float16, float32.'),
    "trace": ('int32, int64, float64, complex128, float16, float32, complex64.',
             'int32, int64, float64, complex128, float16, float32, complex64.'),
    "tril": ('int32, int64, float64, complex128, float16, float32, complex64, bool.',
            'int32, int64, float64, complex128, float16, float32, complex64, bool.'),
    "triu": ('int32, int64, float64, complex128, float16, float32, complex64, bool.',
            'int32, int64, float64, complex128, float16, float32, complex64, bool.'),
    "trunc": ('int32, int64, float64, float32.',
             'int32, int64, float64, float32.'),
    "unique": ('int32, int64, float64, float32.',
              'int32, int64, float64, float32.'),
    "where": ('int32, int64, float64, float32.',
             'int32, int64, float64, complex128, float32, complex64, bool.'),
}

#: engine ops whose Paddle kernel is called otherwise
KERNEL_OF = {"frobenius_norm": "frobenius_norm", "arange": "arange_tensor"}
#: ops whose forward has a bfloat16 kernel but whose gradient kernel does not
GRAD_KERNEL = {"log": "log_grad", "concat": "concat_grad"}
#: ops that only move elements: run on the bits as they are (exact, NaN payloads kept)
MOVES = {"reshape", "squeeze", "unsqueeze", "flatten", "transpose", "expand", "broadcast_to",
         "slice", "strided_slice", "gather", "index_select", "stack", "split", "unbind",
         "assign", "index_elementwise_get", "diagonal", "concat", "masked_select"}


def _version() -> int:
    return 1 if profiles.current().kernel_set == "3" else 0


def not_found(kernel: str, have: str | None = None) -> RuntimeError:
    """Paddle's NotFound error for a kernel without a CPU bfloat16 kernel."""
    if have is None:
        have = (MISSING.get(kernel) or (None, None))[_version()]
    tail = f" Paddle support following DataTypes: {have}" if have else ""
    return RuntimeError(
        f"(NotFound) The kernel with key (CPU, Undefined(AnyLayout), bfloat16) of kernel "
        f"`{kernel}` is not registered. Selected wrong DataType `bfloat16`.{tail}")


def has_kernel(kernel: str) -> bool:
    row = MISSING.get(kernel)
    return row is None or row[_version()] is None


def check_kernel(kernel: str) -> None:
    """Raise Paddle's NotFound when ``kernel`` has no bfloat16 kernel in this version."""
    if not has_kernel(kernel):
        raise not_found(kernel)


# --------------------------------------------------------------------------- sums
def _sum_sequential(vals, axis):
    """2.x: partial sums kept in bfloat16 (truncated) element by element along ``axis``."""
    moved = np.moveaxis(vals, axis, 0)
    acc = np.zeros(moved.shape[1:], BITS)
    for row in moved:
        acc = from_float(to_float32(acc) + row)
    return acc


def sum_values(vals, axis=None, keepdim=False):
    """Paddle's bfloat16 sum of float32 values (``vals``) -> bits."""
    axes = tuple(range(vals.ndim)) if axis is None else (
        (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis))
    axes = tuple(sorted(a % vals.ndim for a in axes)) if vals.ndim else ()
    if profiles.current().bf16_rounding == "truncate" and axes:
        kept = [a for a in range(vals.ndim) if a not in axes]
        flat = np.transpose(vals, kept + list(axes)).reshape(
            [vals.shape[a] for a in kept] + [-1])
        out = _sum_sequential(flat, -1)
    else:
        out = from_float(np.sum(vals, axis=axes, dtype=np.float64).astype(_F32))
    if keepdim:
        out = out.reshape([1 if a in axes else n for a, n in enumerate(vals.shape)])
    return out


# --------------------------------------------------------------------------- the engine hook
class Storage:
    """What the engine asks about arrays of bfloat16 bits (``engine.registry.STORAGE``)."""

    def __init__(self):
        self._ops = {}      # engine op -> its bfloat16 twin (forward through float32)
        self._own = set()   # the twins themselves (ids)

    def apply(self, op, inputs, attrs):
        if id(op) in self._own or op.name in MOVES and op.name not in GRAD_KERNEL:
            return NotImplemented
        kernel = KERNEL_OF.get(op.name, op.name)
        if not has_kernel(kernel):
            raise not_found(kernel)
        from ..engine.registry import apply

        return apply(self._twin(op), inputs, attrs)

    def add(self, a, b):
        """Two bfloat16 gradients summed (in float32, rounded once)."""
        return from_float(to_float32(a) + values(b))

    def _twin(self, op):
        twin = self._ops.get(op)
        if twin is None:
            twin = dataclasses.replace(op, forward=_through_float32(op), vjp=_vjp_of(op))
            self._ops[op] = twin
            self._own.add(id(twin))
        return twin


def _through_float32(op):
    fwd = op.forward
    name = op.name
    if name in MOVES:
        return fwd
    if name == "sum":
        def run_sum(x, axis=None, keepdim=False, out_shape=None, dtype=None):
            if dtype is not None and np.dtype(dtype) != BITS:
                return fwd(to_float32(x), axis, keepdim, out_shape, dtype)
            out = sum_values(to_float32(x), axis, keepdim)
            return out.reshape(out_shape) if out_shape is not None else out
        return run_sum
    if name == "cast":
        return _cast_forward
    if name == "scale":
        return _scale_forward
    if name == "div_scale":
        def run_div_scale(x, divisor):
            return from_float(to_float32(x) / _constant(divisor))
        return run_div_scale

    def run(*arrays, **attrs):
        args = [to_float32(a) if a.dtype == BITS else a for a in arrays]
        out = fwd(*args, **attrs)
        if isinstance(out, tuple):
            return tuple(_back(o) for o in out)
        return _back(out)

    return run


def _back(out):
    out = np.asarray(out)
    return from_float(out) if out.dtype == _F32 else out


def _constant(v):
    """A python number as the kernel holds it: a bfloat16 value (float32 for arithmetic)."""
    return to_float32(from_float(np.float32(v)))


def _scale_forward(x, scale=1.0, bias=0.0, bias_after_scale=True):
    """Paddle's bfloat16 scale kernel: scale and bias become bfloat16, each operation rounds."""
    s, b, xf = _constant(scale), _constant(bias), to_float32(x)
    if bias_after_scale:
        return from_float(to_float32(from_float(xf * s)) + b)
    return from_float(to_float32(from_float(xf + b)) * s)


def _cast_forward(x, dtype):
    dtype = np.dtype(dtype)
    if x.dtype == BITS:
        return np.array(x) if dtype == BITS else to_float32(x).astype(dtype)
    return from_float(x)


def _vjp_of(op):
    kernel = GRAD_KERNEL.get(op.name)
    if kernel is not None and not has_kernel(kernel):
        def refuse(n, *grads):
            raise not_found(kernel)
        return refuse
    if op.name == "cast":
        return _cast_vjp
    return op.vjp


def _cast_vjp(n, g):
    from ..engine.ops.math import cast

    src = n.in_meta[0][1]
    return cast(g, src) if src.kind in "fc" or src == BITS else None


STORAGE = Storage()


def _register():
    from ..engine.registry import STORAGE as engine_storage

    prior = engine_storage.get(BITS)  # the torch dialect's slot (torch/_bfloat16.py) takes ours
    engine_storage[BITS] = prior.joined(STORAGE) if hasattr(prior, "joined") else STORAGE


_register()
