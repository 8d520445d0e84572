"""``paddle.utils.dlpack``: tensors to and from DLPack capsules through numpy (CPU only)."""
from __future__ import annotations

import numpy as np

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

    src = dlpack if hasattr(dlpack, "__dlpack__") else _Capsule(dlpack)
    arr = np.from_dlpack(src)
    return Tensor._wrap(arr, True)
