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


# ------------------------------------------------------------------------------ views
# torch's view ops (``expand``, ``diagonal``, ``unfold``, ``as_strided``, ``split`` ...) give a
# tensor over the same memory: its ``stride()``/``storage_offset()`` are the view's, a write
# through it shows in the base. The forwards below make numpy views of the input's memory
# (``np.ndarray`` over the root array, so ``root()``/``offset()`` above see the shared storage).
# A view whose elements overlap (a stride 0 over a size > 1: ``expand``) is made read-only, so
# that no numpy code writes into it by accident: torch's own writes to it (``fill_``, ``zero_``,
# ``e[0] = ...``) go through ``writable()``; the other in-place ops raise torch's
# ``OVERLAP_MESSAGE``.
OVERLAP_MESSAGE = ("unsupported operation: more than one element of the written-to tensor "
                   "refers to a single memory location. Please clone() the tensor before "
                   "performing the operation.")


def strided(a, shape, strides, offset=0):
    """A view of ``a``'s memory with ``shape`` and ``strides`` (in elements) starting
    ``offset`` elements after ``a``'s first element; a copy when the memory cannot be viewed."""
    shape = tuple(int(s) for s in shape)
    it = a.itemsize
    bstrides = tuple(int(s) * it for s in strides)
    r = root(a)
    start = a.__array_interface__["data"][0] - r.__array_interface__["data"][0] + int(offset) * it
    overlap = any(n > 1 and s == 0 for n, s in zip(shape, strides))
    if r.flags.c_contiguous and r.dtype == a.dtype and start >= 0:
        try:
            v = np.ndarray(shape, a.dtype, buffer=r, offset=start, strides=bstrides)
        except (TypeError, ValueError):
            v = None
        if v is not None:
            if overlap:
                v.flags.writeable = False
            return v
    v = np.lib.stride_tricks.as_strided(a.reshape(-1)[int(offset):] if offset else a,
                                        shape, bstrides, writeable=False)
    return np.array(v)


def element_strides(a):
    return tuple(s // a.itemsize for s in a.strides)


def overlapping(a):
    """torch's ``has_internal_overlap`` answering YES: a stride 0 over a size > 1."""
    for n, s in zip(a.shape, a.strides):
        if s == 0 and n > 1:
            return True
    return False


def check_overlap(a):
    if overlapping(a):
        raise RuntimeError(OVERLAP_MESSAGE)


def writable(a):
    """``a`` itself when numpy may write into it; for a read-only expanded view (elements
    sharing memory) of writable memory, the same memory made writable (torch writes through an
    expanded tensor into its base); else None (the caller copies)."""
    if a.flags.writeable:
        return a
    r = root(a)
    if r is a or not overlapping(a) or not r.flags.writeable or not r.flags.c_contiguous:
        return None
    try:
        return np.ndarray(a.shape, a.dtype, buffer=root(a), strides=a.strides,
                          offset=a.__array_interface__["data"][0]
                          - root(a).__array_interface__["data"][0])
    except (TypeError, ValueError):
        return None


def expand_fwd(x, shape):
    """``x.expand(shape)`` as torch makes it: stride 0 on the new and the broadcast dims."""
    shape = tuple(shape)
    lead = len(shape) - x.ndim
    st = element_strides(x)
    strides = [0] * lead + [0 if (x.shape[i] == 1 and shape[lead + i] != 1) else st[i]
                            for i in range(x.ndim)]
    if x.size == 0 or any(n == 0 for n in shape):
        return np.array(np.broadcast_to(x, shape))
    return strided(x, shape, strides)


def diagonal_fwd(x, index, view):
    """``diagonal``: the view ``(offset, dim1, dim2)`` of x (the index is the backward's)."""
    off, d1, d2 = view
    st = element_strides(x)
    n1, n2 = x.shape[d1], x.shape[d2]
    n = max(0, min(n1, n2 - off) if off >= 0 else min(n1 + off, n2))
    if n == 0:
        return np.array(x[index])
    rest = [i for i in range(x.ndim) if i not in (d1, d2)]
    start = off * st[d2] if off >= 0 else -off * st[d1]
    return strided(x, [x.shape[i] for i in rest] + [n], [st[i] for i in rest] + [st[d1] + st[d2]],
                   start)


def unfold_fwd(x, index, view):
    """``unfold(d, size, step)``: windows along d as a view (the index is the backward's)."""
    d, size, step = view
    st = element_strides(x)
    n = (x.shape[d] - size) // step + 1
    shape = list(x.shape) + [size]
    shape[d] = n
    strides = list(st) + [st[d] if x.ndim else 1]
    if x.ndim:
        strides[d] = st[d] * step
    if min(shape, default=1) == 0:
        return np.array(x[index])
    return strided(x, shape, strides)


def as_strided_fwd(x, index, view):
    """``as_strided(size, stride, offset)``: the view of the storage (the index, into x's
    flat values, is the backward's)."""
    size, stride, off = view
    r = root(x)
    if not r.flags.c_contiguous or r.dtype != x.dtype or 0 in size:
        return np.array(x[index])
    base_off = (x.__array_interface__["data"][0] - r.__array_interface__["data"][0]) // x.itemsize
    return strided(x, size, stride, off - base_off)


def split_fwd(x, sections, axis):
    cuts = np.cumsum(sections)[:-1]
    return tuple(np.split(x, cuts, axis=axis))


def unbind_fwd(x, axis):
    pre = (slice(None),) * axis
    return tuple(x[pre + (i,)] for i in range(x.shape[axis]))


_EXPANDED_WARNING = ("Use of {op} on expanded tensors is deprecated. Please clone() the tensor "
                     "before performing this operation. This also applies to advanced indexing "
                     "e.g. tensor[{what}] = {value} (Triggered internally at /__w/pytorch/"
                     "pytorch/aten/src/ATen/native/TensorAdvancedIndexing.cpp:{line}.)")
_EXPANDED_OPS = {"index_put_": ("indices", "tensor", 976),
                 "masked_fill_": ("mask", "scalar", 2450),
                 "index_fill_": ("mask", "scalar", 1913)}


def warn_expanded(a, op):
    """torch's deprecation warning (each time) for ``op`` writing into an expanded tensor."""
    if overlapping(a):
        from .nn._backward_hooks import _warn_at_user_frame

        what, value, line = _EXPANDED_OPS[op]
        _warn_at_user_frame(_EXPANDED_WARNING.format(op=op, what=what, value=value, line=line))
        return True
    return False


def copy_order(a):
    """The numpy order of a copy laid out as torch lays out ``empty_like(a)``: a's own strides'
    order ("K") unless its elements overlap (an expanded tensor's copy is contiguous)."""
    return "C" if overlapping(a) else "K"


# ------------------------------------------------------------------------------ channels last
# torch's ``memory_format=torch.channels_last`` (4-d) / ``channels_last_3d`` (5-d): the same
# shape with the channels innermost in memory; the dims in torch's stride order, innermost first
_LAST_ORDER = {"channels_last": (4, (1, 3, 2, 0)), "channels_last_3d": (5, (1, 4, 3, 2, 0))}


def format_name(memory_format):
    return getattr(memory_format, "name", None) or str(memory_format).replace("torch.", "")


def is_contiguous_as(a, memory_format):
    """torch's ``is_contiguous(memory_format=...)`` (``compute_channels_last_contiguous_2d``:
    the dims of size 1 are skipped); None for the formats this does not handle."""
    name = format_name(memory_format)
    if name in ("contiguous_format", "preserve_format", "None"):
        return bool(a.flags.c_contiguous) or a.size <= 1
    spec = _LAST_ORDER.get(name)
    if spec is None:
        return None
    if a.ndim != spec[0]:
        return False
    expected = 1
    st = element_strides(a)
    for d in spec[1]:
        if a.shape[d] != 1:
            if st[d] != expected:
                return False
            expected *= a.shape[d]
    return True


def check_rank(a, memory_format):
    spec = _LAST_ORDER.get(format_name(memory_format))
    if spec is not None and a.ndim != spec[0]:
        raise RuntimeError(f"required rank {spec[0]} tensor to use "
                           f"{format_name(memory_format)} format")


def as_format(a, memory_format):
    """A copy of ``a`` laid out in ``memory_format`` (a itself when it already is); raises
    torch's error for a channels-last format of the wrong rank."""
    name = format_name(memory_format)
    spec = _LAST_ORDER.get(name)
    if spec is None:
        return a if a.flags.c_contiguous else np.array(a, order="C")
    check_rank(a, name)
    if is_contiguous_as(a, memory_format):
        return a
    perm = (0,) + tuple(range(2, a.ndim)) + (1,)
    inv = tuple(np.argsort(perm))
    return np.ascontiguousarray(np.transpose(a, perm)).transpose(inv)


# ------------------------------------------------------------------------------ random fills
def dense(a):
    """Whether torch's ``is_contiguous()`` holds (its random fills take the vectorised path)."""
    return bool(a.flags.c_contiguous) or a.size <= 1


def in_memory_order(a, vals):
    """``vals`` (a flat draw, one per element) laid out over ``a``'s shape as torch's serial
    kernels write them: element by element in memory order (TensorIterator's order; for a
    slice that is row-major, for ``x.t()`` it is x's order)."""
    vals = np.asarray(vals).reshape(-1)
    if dense(a) or a.ndim < 2:
        return vals.reshape(a.shape)
    offs = np.zeros(a.shape, np.int64)
    for d, s in enumerate(a.strides):
        shape = [1] * a.ndim
        shape[d] = a.shape[d]
        offs = offs + (np.arange(a.shape[d], dtype=np.int64) * s).reshape(shape)
    out = np.empty(a.size, vals.dtype)
    out[np.argsort(offs.reshape(-1), kind="stable")] = vals
    return out.reshape(a.shape)


def cat_layout(xs, r):
    """``torch.cat``/``stack``'s result layout: channels-last when every input is (numpy's
    concatenation, which follows the inputs' layout, gives it), else row-major (numpy's
    followed permuted inputs: ``stack([img.permute(2, 0, 1), ...], 3)`` could not be viewed)."""
    if r.flags.c_contiguous:
        return r
    if all(x.ndim == 4 and not x.flags.c_contiguous and is_contiguous_as(x, "channels_last")
           for x in xs):
        return r
    return np.ascontiguousarray(r)


# ------------------------------------------------------------------------------ result layout
def like_layout(x, r):
    """``r`` (computed row-major) laid out as torch's TensorIterator lays out the result of an
    elementwise op on ``x``: the dims in the order of x's strides (``x.t().exp()``: strides
    (1, 4)); x contiguous, expanded or of another shape: r as it is."""
    if x.flags.c_contiguous or r.shape != x.shape or x.ndim < 2 or not r.flags.c_contiguous \
            or overlapping(x):
        return r
    out = np.empty_like(x, dtype=r.dtype, order="K")
    if out.flags.c_contiguous:
        return r
    out[...] = r
    return out


def keeping_layout(fwd):
    """An elementwise forward whose result follows its input's layout (see ``like_layout``)."""
    def f(x, *args, **kw):
        r = fwd(x, *args, **kw)
        if x.flags.c_contiguous or not isinstance(r, np.ndarray):
            return r
        return like_layout(x, r)
    f.__name__ = getattr(fwd, "__name__", "forward")
    f.__wrapped__ = fwd
    return f


def keeping_first_layout(fwd):
    """A binary elementwise forward whose result follows its first operand's layout where that
    operand decides it in TensorIterator (same shape as the result, not broadcast, not
    row-major: ``x.t() - y`` has x.t()'s strides, so a later sum runs in that memory order);
    numpy's own choice otherwise."""
    ndarray = np.ndarray

    def f(x, y, *args, **kw):
        r = fwd(x, y, *args, **kw)
        if type(x) is not ndarray or x.flags.c_contiguous:   # (the common case: 2 checks)
            return r
        if type(r) is not ndarray or not r.flags.c_contiguous or 0 in x.strides:
            return r
        return like_layout(x, r)
    f.__name__ = getattr(fwd, "__name__", "forward")
    f.__wrapped__ = fwd
    return f
