"""Which dtype a binary op computes in, per profile (Paddle's type promotion rules).

Python scalars and (in 3.x) 0-D tensors follow the tensor operand unless their kind is higher
(an int tensor times 1.5 is float32). Tensor with tensor: 2.x takes the left operand's dtype
unless both are floating (then the wider); 3.x promotes floats and raises TypeError otherwise.
"""
from __future__ import annotations

import numpy as np

from . import profiles

_KIND_RANK = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}
F32 = np.dtype(np.float32)
I64 = np.dtype(np.int64)


def scalar_kind(v) -> str:
    if isinstance(v, (bool, np.bool_)):
        return "b"
    if isinstance(v, (int, np.integer)):
        return "i"
    if isinstance(v, complex):
        return "c"
    return "f"


def with_scalar(tdtype: np.dtype, kind: str) -> np.dtype:
    """dtype of ``tensor (op) python_scalar``."""
    tk = tdtype.kind
    if _KIND_RANK[kind] <= _KIND_RANK[tk]:
        return tdtype
    if kind == "f":
        return F32
    if kind == "i":  # bool tensor with an int scalar
        return I64 if profiles.current().promotion == "strict" else tdtype
    return np.dtype(np.complex64)


def binary(xd: np.dtype, yd: np.dtype, x0d: bool, y0d: bool, opname: str) -> np.dtype:
    if xd == yd:
        return xd
    prof = profiles.current()
    if xd.kind == "f" and yd.kind == "f":
        return xd if xd.itemsize >= yd.itemsize else yd
    if prof.promotion == "left":
        return xd
    # 3.x: a 0-D tensor behaves like a python scalar of its kind
    if y0d and not x0d:
        return with_scalar(xd, yd.kind if yd.kind != "u" else "i")
    if x0d and not y0d:
        return with_scalar(yd, xd.kind if xd.kind != "u" else "i")
    raise TypeError(
        f"(InvalidType) Type promotion only support calculations between floating-point numbers "
        f"and between complex and real numbers. But got different data type x: {xd.name}, "
        f"y: {yd.name} in {opname}.")
