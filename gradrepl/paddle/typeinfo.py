"""``paddle.finfo`` and ``paddle.iinfo``: the limits of a floating or integer dtype.

The numbers are IEEE 754's (numpy's ``finfo``/``iinfo``; bfloat16 is float32's exponent with an
8-bit significand). They print as Paddle's C++ objects do: six significant digits (``%g``).
"""
from __future__ import annotations

import numpy as np

from . import profiles

# the IEEE formats numpy knows (bfloat16 is derived from float32 in _float_limits)
_FLOATS = {
    "float16": np.finfo(np.float16),
    "float32": np.finfo(np.float32),
    "float64": np.finfo(np.float64),
}
_INTS = ("uint8", "int8", "int16", "int32", "int64")
_COMPLEX_PARTS = {"complex64": "float32", "complex128": "float64"}


def _name(dtype):
    name = getattr(dtype, "name", None) or str(dtype)
    return name.removeprefix("paddle.")


def _float_limits(name):
    if name == "bfloat16":
        f32 = _FLOATS["float32"]
        eps = 2.0 ** -7
        top = float(np.float32(f32.max)) * (1 - 2.0 ** -8) / (1 - 2.0 ** -24)
        return dict(min=-top, max=top, eps=eps, resolution=0.01,
                    smallest_normal=float(f32.smallest_normal), bits=16)
    f = _FLOATS[_COMPLEX_PARTS.get(name, name)]
    return dict(min=float(f.min), max=float(f.max), eps=float(f.eps),
                resolution=10.0 ** -int(f.precision), smallest_normal=float(f.smallest_normal),
                bits=f.bits)   # (a complex dtype: its parts' limits and bits, as 2.6.2 and 3.3.1)


def _error(text, line3, line26):
    line = line3 if profiles.current().api3 else line26
    return ValueError(f"(InvalidArgument) {text} (at /paddle/paddle/fluid/pybind/pybind.cc:{line})"
                      "\n")


class finfo:  # noqa: N801 (Paddle's name)
    """The limits of a floating dtype: ``min``, ``max``, ``eps`` (1.0's gap to the next number),
    ``resolution``, ``smallest_normal`` (= ``tiny``), ``bits``, ``dtype`` (its name)."""

    def __init__(self, dtype):
        name = _name(dtype)
        if name not in _FLOATS and name not in _COMPLEX_PARTS and name != "bfloat16":
            if profiles.current().api3:
                raise _error("The argument of paddle.finfo can only be paddle.float32, "
                             "paddle.float64, paddle.float16, paddle.bfloat16, "
                             "paddle.float8_e4m3fn, paddle.float8_e5m2, paddle.complex64 or "
                             "paddle.complex128", 572, 515)
            raise _error("the argument of paddle.finfo can only be paddle.float32, "
                         "paddle.float64, paddle.float16, paddle.bfloat16paddle.complex64, or "
                         "paddle.complex128", 572, 515)
        for key, value in _float_limits(name).items():
            setattr(self, key, value)
        self.tiny = self.smallest_normal
        self.dtype = _COMPLEX_PARTS.get(name, name)   # (finfo(complex64).dtype is float32)

    def __repr__(self):
        return (f"paddle.finfo(min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"resolution={self.resolution:g}, smallest_normal={self.smallest_normal:g}, "
                f"tiny={self.tiny:g}, bits={self.bits}, dtype={self.dtype})")

    __str__ = __repr__


class iinfo:  # noqa: N801 (Paddle's name)
    """The limits of an integer dtype: ``min``, ``max``, ``bits``, ``dtype`` (its name)."""

    def __init__(self, dtype):
        name = _name(dtype)
        if name not in _INTS:
            raise _error("the argument of paddle.iinfo can only be paddle.int8, paddle.int16, "
                         "paddle.int32, paddle.int64, or paddle.uint8", 518, 448)
        info = np.iinfo(name)
        self.min, self.max, self.bits, self.dtype = int(info.min), int(info.max), info.bits, name

    def __repr__(self):
        return f"paddle.iinfo(min={self.min}, max={self.max}, bits={self.bits}, dtype={self.dtype})"

    __str__ = __repr__
