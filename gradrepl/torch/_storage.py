"""``Tensor.storage()`` / ``untyped_storage()`` and ``storage_offset()``: the memory a tensor
views. A tensor's values are a numpy array; its storage is the array it is a view of (the end
of its ``.base`` chain), flat, so ``x[1:].storage()`` is ``x``'s storage and
``x[1:].storage_offset()`` is 4 for a (2, 4) ``x``, as in torch. Printing is torch's
(``TypedStorage._str``: one value a line, then ``[torch.storage.TypedStorage(dtype=...,
device=cpu) of size N]``); ``storage()`` warns once that TypedStorage is deprecated."""
from __future__ import annotations

import numpy as np

from . import _dtypes
from ._base import raw

_WARNED = []
_TYPED_WARNING = (
    "TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be "
    "the only storage class. This should only matter to you if you are using storages "
    "directly.  To access UntypedStorage directly, use tensor.untyped_storage() instead of "
    "tensor.storage()")


def root(a):
    """The array whose memory ``a`` views (``a`` itself when it owns its memory)."""
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a


def _flat(a):
    r = root(a)
    if r.flags.c_contiguous:
        return r.reshape(-1)
    return a.reshape(-1) if a.flags.c_contiguous else np.ascontiguousarray(a).reshape(-1)


def offset(t):
    a = raw(t)
    r = root(a)
    if r is a or not r.flags.c_contiguous or a.size == 0:
        return 0
    d = a.__array_interface__["data"][0] - r.__array_interface__["data"][0]
    if d < 0 or d % a.itemsize or d >= r.nbytes:
        return 0
    return d // a.itemsize


class UntypedStorage:
    def __init__(self, data):
        self._data = data  # a flat uint8 view

    def nbytes(self):
        return int(self._data.size)

    size = nbytes

    def __len__(self):
        return int(self._data.size)

    def __getitem__(self, i):
        return int(self._data[i])

    def tolist(self):
        return self._data.tolist()

    def data_ptr(self):
        return self._data.__array_interface__["data"][0]

    def element_size(self):
        return 1

    @property
    def device(self):
        from ._base import device
        return device("cpu")

    def __str__(self):
        body = " " + "\n ".join(str(v) for v in self._data.tolist())
        return body + f"\n[torch.storage.UntypedStorage(device=cpu) of size {len(self)}]"

    __repr__ = __str__


class TypedStorage:
    def __init__(self, data):
        self._data = data  # a flat array of the tensor's dtype

    @property
    def dtype(self):
        return _dtypes.from_np(self._data.dtype)

    @property
    def device(self):
        from ._base import device
        return device("cpu")

    def size(self):
        return int(self._data.size)

    def __len__(self):
        return int(self._data.size)

    def __getitem__(self, i):
        return self._data[i].item()

    def __setitem__(self, i, v):
        self._data[i] = v

    def tolist(self):
        return self._data.tolist()

    def nbytes(self):
        return int(self._data.nbytes)

    def element_size(self):
        return int(self._data.itemsize)

    def data_ptr(self):
        return self._data.__array_interface__["data"][0]

    def untyped(self):
        return UntypedStorage(self._data.view(np.uint8))

    def __str__(self):
        body = " " + "\n ".join(str(v) for v in self._data.tolist())
        return body + (f"\n[torch.storage.TypedStorage(dtype={self.dtype}, device=cpu) of size "
                       f"{len(self)}]")

    __repr__ = __str__


TypedStorage.__module__ = UntypedStorage.__module__ = "torch.storage"


def storage(self):
    if not _WARNED:
        _WARNED.append(True)
        from .nn._backward_hooks import _warn_at_user_frame
        _warn_at_user_frame(_TYPED_WARNING)
    return TypedStorage(_flat(raw(self)))


def untyped_storage(self):
    return UntypedStorage(_flat(raw(self)).view(np.uint8))
