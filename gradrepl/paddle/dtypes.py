"""Paddle's dtype objects (``paddle.float32``) and their conversions to numpy.

``str`` is ``paddle.float32``; ``repr`` follows the profile's enum (``<VarType.FP32: 5>`` in 2.x,
``<DataType.FLOAT32: 10>`` in 3.x). ``bfloat16`` is held as numpy ``uint16`` bits (see
``bfloat16.py``): a uint16 array is a bfloat16 tensor, and the name ``'uint16'`` means bfloat16
(as in Paddle, where only 3.x has a separate ``paddle.uint16``, not emulated here).
"""
from __future__ import annotations

import numpy as np

from . import profiles

# name, numpy dtype, VarType (name, code), DataType (name, code)
_TABLE = [
    ("bool", np.bool_, ("BOOL", 0), ("BOOL", 1)),
    ("int16", np.int16, ("INT16", 1), ("INT16", 5)),
    ("int32", np.int32, ("INT32", 2), ("INT32", 7)),
    ("int64", np.int64, ("INT64", 3), ("INT64", 9)),
    ("float16", np.float16, ("FP16", 4), ("FLOAT16", 15)),
    ("float32", np.float32, ("FP32", 5), ("FLOAT32", 10)),
    ("float64", np.float64, ("FP64", 6), ("FLOAT64", 11)),
    ("uint8", np.uint8, ("UINT8", 20), ("UINT8", 2)),
    ("int8", np.int8, ("INT8", 21), ("INT8", 3)),
    ("complex64", np.complex64, ("COMPLEX64", 23), ("COMPLEX64", 12)),
    ("complex128", np.complex128, ("COMPLEX128", 24), ("COMPLEX128", 13)),
    ("bfloat16", np.uint16, ("BF16", 22), ("BFLOAT16", 16)),  # bits: see bf16.py
]


class _DTypeMeta(type):
    def __repr__(cls):
        return "<class 'paddle.dtype'>"


class DType(metaclass=_DTypeMeta):
    __slots__ = ("name", "np", "vartype", "datatype")

    def __init__(self, name, npdtype, vartype, datatype):
        self.name = name
        self.np = np.dtype(npdtype)
        self.vartype = vartype
        self.datatype = datatype

    def __str__(self):
        return f"paddle.{self.name}"

    def __repr__(self):
        if profiles.current().dtype_enum == "DataType":
            return f"<DataType.{self.datatype[0]}: {self.datatype[1]}>"
        return f"<VarType.{self.vartype[0]}: {self.vartype[1]}>"

    def __eq__(self, other):
        """Only another Paddle dtype compares equal: ``x.dtype == 'float32'`` and
        ``x.dtype == np.float32`` are False in Paddle (enum against str / numpy type)."""
        if isinstance(other, DType):
            return self.np == other.np
        return False

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash(self.np)

    @property
    def is_floating_point(self):
        return self.np.kind == "f" or self.name == "bfloat16"


DTYPES = {row[0]: DType(*row) for row in _TABLE}
_BY_NP = {d.np: d for d in DTYPES.values()}
ALIASES = {"float": "float32", "double": "float64", "int": "int64", "long": "int64",
           "half": "float16", "bool_": "bool", "fp32": "float32", "fp64": "float64",
           "fp16": "float16", "uint16": "bfloat16"}


def to_np(dtype) -> np.dtype:
    """Any dtype spelling Paddle accepts (DType, 'float32', np.float32, np.dtype) -> np.dtype;
    anything else raises numpy's TypeError, as Paddle's astype/zeros do."""
    if isinstance(dtype, DType):
        return dtype.np
    if isinstance(dtype, str):
        name = dtype.replace("paddle.", "")
        name = ALIASES.get(name, name)
        if name in DTYPES:
            return DTYPES[name].np
        raise TypeError(f"data type '{dtype}' not understood")
    d = np.dtype(dtype)  # numpy's TypeError: "Cannot interpret '5' as a data type"
    if d not in _BY_NP:
        raise TypeError(f"data type '{dtype}' not understood")
    return d


def from_np(npdtype) -> DType:
    d = _BY_NP.get(np.dtype(npdtype))
    if d is None:
        raise TypeError(f"numpy dtype {npdtype} has no Paddle equivalent")
    return d


def default_float() -> np.dtype:
    return np.dtype(np.float32)
