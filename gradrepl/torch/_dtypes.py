"""torch's dtypes (``torch.float32`` ...) over numpy's, and torch's type promotion.

``str``/``repr`` are ``torch.float32``; ``x.type()`` names are the legacy tensor types
(``torch.FloatTensor``). Promotion follows ``c10``'s ``result_type``: operands are ranked in three
groups, tensors with dimensions, zero-dim tensors and Python numbers (wrapped numbers), and a lower
group only matters when its *category* (bool < integer < floating < complex) is higher:
``float32 tensor + float64 0-d tensor`` stays float32, ``int64 tensor * 2.5`` is float32 (the
default dtype), ``uint8 tensor + int8 tensor`` is int16.
"""
from __future__ import annotations

import numpy as np

from ..engine.tensor import Tensor as _ET

_raw = _ET.data.__get__
_BF16 = np.dtype(np.uint16)  # torch.bfloat16's bits (numpy has no bfloat16)


class dtype:
    """A torch dtype: ``torch.float32``; ``is_floating_point``, ``is_complex``, ``itemsize``."""

    __slots__ = ("name", "np", "legacy", "_aliases")

    def __init__(self, name, npdtype, legacy):
        self.name = name
        self.np = np.dtype(npdtype)
        self.legacy = legacy  # the legacy tensor type: "Float" -> torch.FloatTensor

    def __repr__(self):
        return f"torch.{self.name}"

    __str__ = __repr__

    def __reduce__(self):
        return (from_name, (self.name,))

    @property
    def is_floating_point(self):
        return self.np.kind == "f" or self.np == _BF16

    @property
    def is_complex(self):
        return self.np.kind == "c"

    @property
    def is_signed(self):
        return self.np.kind in "ifc" or self.np == _BF16

    @property
    def itemsize(self):
        return self.np.itemsize

    def to_real(self):
        return {"complex64": float32, "complex128": float64}.get(self.name, self)

    def to_complex(self):
        return {"float32": complex64, "float64": complex128}.get(self.name, self)


float32 = dtype("float32", np.float32, "Float")
float64 = dtype("float64", np.float64, "Double")
float16 = dtype("float16", np.float16, "Half")
bfloat16 = dtype("bfloat16", _BF16, "BFloat16")  # its bits in uint16 (_bfloat16.py)
int64 = dtype("int64", np.int64, "Long")
int32 = dtype("int32", np.int32, "Int")
int16 = dtype("int16", np.int16, "Short")
int8 = dtype("int8", np.int8, "Char")
uint8 = dtype("uint8", np.uint8, "Byte")
bool_ = dtype("bool", np.bool_, "Bool")
complex64 = dtype("complex64", np.complex64, "ComplexFloat")
complex128 = dtype("complex128", np.complex128, "ComplexDouble")

ALL = [float32, float64, float16, bfloat16, int64, int32, int16, int8, uint8, bool_, complex64, complex128]

# the names of the torch namespace (aliases included)
NAMES = {
    "float32": float32, "float": float32, "float64": float64, "double": float64,
    "float16": float16, "half": float16, "bfloat16": bfloat16,
    "int64": int64, "long": int64, "int32": int32, "int": int32, "int16": int16,
    "short": int16, "int8": int8, "uint8": uint8, "bool": bool_,
    "complex64": complex64, "cfloat": complex64, "complex128": complex128,
    "cdouble": complex128,
}

_BY_NP = {d.np: d for d in ALL}


def from_name(name):
    return NAMES[name]


def from_np(npdtype) -> dtype:
    return _BY_NP[np.dtype(npdtype)]


def to_np(d) -> np.dtype:
    """A torch dtype (or a numpy dtype, a Python type) as a numpy dtype."""
    if isinstance(d, dtype):
        return d.np
    if d is float:
        return np.dtype(np.float64)
    if d is int:
        return np.dtype(np.int64)
    if d is bool:
        return np.dtype(np.bool_)
    if isinstance(d, str):
        return NAMES[d.replace("torch.", "")].np
    return np.dtype(d)


def as_dtype(d) -> dtype:
    return d if isinstance(d, dtype) else from_np(to_np(d))


def legacy_type(npdtype) -> str:
    """``torch.FloatTensor`` for float32 (``x.type()``)."""
    return f"torch.{from_np(npdtype).legacy}Tensor"


# ------------------------------------------------------------------------------ defaults
class _Defaults:
    __slots__ = ("float",)

    def __init__(self):
        self.float = float32


DEFAULTS = _Defaults()


def default_float() -> np.dtype:
    return DEFAULTS.float.np


def default_complex() -> np.dtype:
    return np.dtype(np.complex128 if DEFAULTS.float is float64 else np.complex64)


# ------------------------------------------------------------------------------ promotion
def category(dt: np.dtype) -> int:
    k = dt.kind
    if k == "b":
        return 0
    if k in "iu":
        return 2 if dt == _BF16 else 1
    if k == "f":
        return 2
    return 3


def promote_types(a: np.dtype, b: np.dtype) -> np.dtype:
    """torch.promote_types: numpy's table agrees on every pair torch has (uint8 + int8 = int16,
    int + float = the float, float16 + float32 = float32)."""
    if a == b:
        return a
    if a == _BF16 or b == _BF16:  # bfloat16 with a float: float32 at least (float16: float32)
        o = b if a == _BF16 else a
        if o.kind == "f":
            return np.promote_types(o, np.float32)
        if o.kind == "c":
            return o
        return _BF16
    ca, cb = category(a), category(b)
    if ca != cb:  # torch: the higher category wins at its own width (int64 + float16 = float16)
        hi, lo = (a, b) if ca > cb else (b, a)
        if category(hi) == 3 and category(lo) == 2:
            return np.promote_types(hi, lo)
        return hi
    return np.promote_types(a, b)


def _combine(higher, lower):
    """c10's combine_categories: the higher-priority group's dtype unless the lower group is of a
    higher category."""
    if higher is None:
        return lower
    if lower is None:
        return higher
    ch, cl = category(higher), category(lower)
    if ch == 3:
        return higher
    if cl == 3:
        if ch == 2:  # a float tensor with a complex number: the complex of the float's width
            return np.dtype(np.complex128 if higher == np.float64 else np.complex64)
        return lower
    if ch == 2:
        return higher
    if higher.kind == "b" or cl == 2:
        return promote_types(higher, lower)
    return higher


def scalar_dtype(v) -> np.dtype:
    """The dtype a Python number takes as a wrapped number."""
    if isinstance(v, (bool, np.bool_)):
        return np.dtype(np.bool_)
    if isinstance(v, (int, np.integer)):
        return np.dtype(np.int64)
    if isinstance(v, (complex, np.complexfloating)):
        return default_complex()
    return default_float()


def result_type(*operands) -> np.dtype:
    """torch.result_type over tensors (engine Tensors or arrays) and Python numbers."""
    dim = zero = wrapped = None
    for o in operands:
        if o is None:
            continue
        if isinstance(o, _ET):
            arr = _raw(o)
        elif isinstance(o, np.ndarray):
            arr = o
        else:
            d = scalar_dtype(o)
            wrapped = d if wrapped is None else promote_types(wrapped, d)
            continue
        d = arr.dtype
        if arr.ndim:
            dim = d if dim is None else promote_types(dim, d)
        else:
            zero = d if zero is None else promote_types(zero, d)
    return _combine(dim, _combine(zero, wrapped))
