"""``paddle.utils.dlpack``: tensors to and from DLPack capsules through numpy (CPU only)."""
from __future__ import annotations

import numpy as np

from .. import profiles

# a capsule already consumed (renamed "used_dltensor"): Paddle's pybind message by version
_CONSUMED = {
    "3": "(InvalidArgument) from_dlpack received an invalid capsule. Note that DLTensor capsules "
         "can be consumed only once, so you might have already constructed a tensor from it "
         "once.\n  [Hint: dlMTensor should not be null.] (at "
         "/paddle/paddle/fluid/pybind/pybind.cc:2020)\n",
    "2.6": "(InvalidArgument) from_dlpack received an invalid capsule. Note that a DLPack tensor "
           "can be consumed only once.\n  [Hint: dmt should not be null.] (at "
           "/paddle/paddle/fluid/pybind/pybind.cc:976)\n",
}


def _fresh_capsule(capsule):
    """Whether ``capsule`` is an unconsumed "dltensor" capsule."""
    import ctypes

    is_valid = ctypes.pythonapi.PyCapsule_IsValid
    is_valid.restype = ctypes.c_int
    is_valid.argtypes = [ctypes.py_object, ctypes.c_char_p]
    return bool(is_valid(capsule, b"dltensor"))

__all__ = ["to_dlpack", "from_dlpack"]


def to_dlpack(x):
    """A DLPack capsule of ``x``'s values (shares memory with x)."""
    return x.data.__dlpack__()


class _Capsule:
    def __init__(self, capsule):
        self.capsule = capsule

    def __dlpack__(self, *args, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return (1, 0)  # kDLCPU


def from_dlpack(dlpack):
    """A Tensor over a DLPack capsule's (or an object with ``__dlpack__``'s) memory."""
    from ..core import Tensor

    if not hasattr(dlpack, "__dlpack__") and not _fresh_capsule(dlpack):
        raise ValueError(_CONSUMED["3" if profiles.current().api3 else "2.6"])
    src = dlpack if hasattr(dlpack, "__dlpack__") else _Capsule(dlpack)
    arr = np.from_dlpack(src)
    return Tensor._wrap(arr, True)
