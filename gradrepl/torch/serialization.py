"""``torch.save`` / ``torch.load`` in torch's own file format, so a state_dict saved here loads
in real torch and the other way round.

The format (torch 2.x, zip): an uncompressed zip whose entries sit under one folder (the file's
stem, ``archive`` for a file object): ``data.pkl`` (a protocol-2 pickle of the object where a
tensor is ``torch._utils._rebuild_tensor_v2(storage, offset, size, stride, requires_grad,
OrderedDict())`` and a storage a persistent id ``('storage', torch.FloatStorage, key, 'cpu',
numel)``), ``data/<key>`` (each storage's raw little-endian bytes, 64-byte aligned),
``byteorder``, ``version``, ``.format_version``, ``.storage_alignment``,
``.data/serialization_id``.

``load(weights_only=True)`` (torch's default since 2.6) admits only tensors, containers and
numbers, with torch's error for anything else; ``weights_only=False`` loads any pickled object
(a whole module). The dialect's classes are pickled under torch's names
(``torch.nn.modules.linear.Linear``) and found again by them.
"""
from __future__ import annotations

import collections
import io
import os
import pickle
import random
import types
import zipfile

import numpy as np

from . import _dtypes
from ._base import EngineTensor, raw

__all__ = ["save", "load", "add_safe_globals", "safe_globals", "get_safe_globals"]

_STORAGE_NAMES = {
    "float32": "FloatStorage", "float64": "DoubleStorage", "float16": "HalfStorage",
    "bfloat16": "BFloat16Storage", "int64": "LongStorage", "int32": "IntStorage",
    "int16": "ShortStorage", "int8": "CharStorage", "uint8": "ByteStorage", "bool": "BoolStorage",
    "complex64": "ComplexFloatStorage", "complex128": "ComplexDoubleStorage"}


def _storage_dtype(name):
    for k, v in _STORAGE_NAMES.items():
        if v == name:
            return _dtypes.to_np(getattr(_dtypes, k if k != "bool" else "bool_"))
    raise pickle.UnpicklingError(f"unknown storage type torch.{name}")


class _StorageType:
    """The class ``torch.FloatStorage`` & co. stand for in the pickle."""


_STORAGE_TYPES = {name: type(name, (_StorageType,), {}) for name in _STORAGE_NAMES.values()}


class _Storage:
    __slots__ = ("array", "key")

    def __init__(self, array, key):
        self.array = array
        self.key = key


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad=False,
                       backward_hooks=None, metadata=None):
    """A tensor from its storage (a flat numpy array), offset, size and stride (elements)."""
    from ._tensor import Tensor

    a = storage
    itemsize = a.dtype.itemsize
    if len(size) == 0:
        arr = np.array(a[storage_offset], dtype=a.dtype)
    else:
        view = np.lib.stride_tricks.as_strided(a[storage_offset:], tuple(size),
                                               tuple(s * itemsize for s in stride))
        arr = np.array(view)
    t = Tensor._wrap(arr, True)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_parameter(data, requires_grad, backward_hooks):
    from .nn.parameter import Parameter

    return Parameter(data, requires_grad)


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    return _rebuild_parameter(data, requires_grad, backward_hooks)


# what the pickle names torch's own functions and storage classes
_GLOBALS = {_rebuild_tensor_v2: ("torch._utils", "_rebuild_tensor_v2"),
            _rebuild_parameter: ("torch._utils", "_rebuild_parameter"),
            _rebuild_parameter_with_state: ("torch._utils", "_rebuild_parameter_with_state")}
_GLOBALS.update({cls: ("torch", name) for name, cls in _STORAGE_TYPES.items()})
_BY_NAME = {v: k for k, v in _GLOBALS.items()}

_SAFE = {("collections", "OrderedDict"), ("builtins", "set"), ("builtins", "frozenset"),
         ("builtins", "bytearray"), ("torch", "Size"), ("torch", "device"),
         ("torch", "dtype"), ("builtins", "slice"), ("builtins", "complex")}
_USER_SAFE: set = set()


# ------------------------------------------------------------------------------ save
class _Pickler(pickle._Pickler):
    """Protocol 2 with torch's globals, tensors as storages (persistent ids)."""

    def __init__(self, file):
        super().__init__(file, protocol=2)
        self.storages = []

    def persistent_id(self, obj):
        if isinstance(obj, _Storage):
            name = _STORAGE_NAMES.get(_dtypes.from_np(obj.array.dtype).name, "FloatStorage")
            return ("storage", _STORAGE_TYPES[name], obj.key, "cpu", int(obj.array.size))
        return None

    def reducer_override(self, obj):
        if isinstance(obj, EngineTensor):
            from .nn.parameter import Parameter

            a = raw(obj)
            if not a.flags.c_contiguous:
                a = np.array(a, order="C")  # (ascontiguousarray would make a 0-d array 1-d)
            storage = _Storage(a.reshape(-1), str(len(self.storages)))
            self.storages.append(storage)
            stride = tuple(int(s) for s in _contig_strides(a.shape))
            rg = not obj.stop_gradient
            tensor_args = (storage, 0, tuple(a.shape), stride, rg and not isinstance(obj,
                                                                                      Parameter),
                           collections.OrderedDict())
            if isinstance(obj, Parameter):
                from ._tensor import Tensor

                inner = Tensor._wrap(a, True)
                return (_rebuild_parameter, (inner, rg, collections.OrderedDict()))
            return (_rebuild_tensor_v2, tensor_args)
        return NotImplemented

    def _torch_global(self, obj):
        """Write torch's name for one of our functions or classes; False if it has none."""
        where = _GLOBALS.get(obj)
        if where is None and isinstance(obj, type) and obj.__module__.startswith("torch"):
            where = (obj.__module__, obj.__qualname__)
        if where is None:
            return False
        self.write(pickle.GLOBAL + f"{where[0]}\n{where[1]}\n".encode("utf-8"))
        self.memoize(obj)
        return True

    def _save_function(self, obj):
        if not self._torch_global(obj):
            pickle._Pickler.save_global(self, obj)

    def _save_type(self, obj):
        if not self._torch_global(obj):
            pickle._Pickler.dispatch[type](self, obj)

    dispatch = dict(pickle._Pickler.dispatch)
    dispatch[types.FunctionType] = _save_function
    dispatch[type] = _save_type


def _contig_strides(shape):
    st, acc = [], 1
    for s in reversed(shape):
        st.append(acc)
        acc *= max(s, 1)
    return tuple(reversed(st))


def _aligned_info(zf, name, offset_guess=None):
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_STORED
    # pad the local header so the data starts at a multiple of 64 (as torch's writer does)
    start = zf.fp.tell() + 30 + len(name.encode("utf-8"))
    pad = (-(start + 4)) % 64
    info.extra = b"FB" + pad.to_bytes(2, "little") + b"Z" * pad
    return info


def save(obj, f, pickle_module=pickle, pickle_protocol=2, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False):
    """Write ``obj`` (tensors, state_dicts, modules ...) to ``f`` (a path or a binary file)."""
    buf = io.BytesIO()
    p = _Pickler(buf)
    p.dump(obj)
    if isinstance(f, (str, os.PathLike)):
        stem = os.path.splitext(os.path.basename(os.fspath(f)))[0] or "archive"
        fh = open(f, "wb")
        close = True
    else:
        stem, fh, close = "archive", f, False
    try:
        with zipfile.ZipFile(fh, "w", zipfile.ZIP_STORED) as zf:
            entries = [("data.pkl", buf.getvalue()), (".format_version", b"1"),
                       (".storage_alignment", b"64"), ("byteorder", b"little")]
            entries += [(f"data/{s.key}", s.array.astype(s.array.dtype.newbyteorder("<"),
                                                         copy=False).tobytes())
                        for s in p.storages]
            entries += [("version", b"3\n"),
                        (".data/serialization_id",
                         "".join(str(random.randrange(10)) for _ in range(40)).encode())]
            for name, data in entries:
                zf.writestr(_aligned_info(zf, f"{stem}/{name}"), data)
    finally:
        if close:
            fh.close()


# ------------------------------------------------------------------------------ load
_WEIGHTS_ONLY_MESSAGE = (
    "Weights only load failed. This file can still be loaded, to do so you have two options, "
    "\x1b[1mdo those steps only if you trust the source of the checkpoint\x1b[0m. \n\t(1) In "
    "PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` "
    "from `False` to `True`. Re-running `torch.load` with `weights_only` set to `False` will "
    "likely succeed, but it can result in arbitrary code execution. Do it only if you got the "
    "file from a trusted source.\n\t(2) Alternatively, to load with `weights_only=True` please "
    "check the recommended steps in the following error message.\n\tWeightsUnpickler error: "
    "Unsupported global: GLOBAL {g} was not an allowed global by default. Please use "
    "`torch.serialization.add_safe_globals([{g}])` or the "
    "`torch.serialization.safe_globals([{g}])` context manager to allowlist this global if "
    "you trust this class/function.\n\nCheck the documentation of torch.load to learn more "
    "about types accepted by default with weights_only "
    "https://pytorch.org/docs/stable/generated/torch.load.html.")


def _torch_class(module, name):
    """A class pickled under torch's name (``torch.nn.modules.linear``, ``Linear``)."""
    from . import _names

    for ns in _names._namespaces():
        cls = ns.__dict__.get(name)
        if isinstance(cls, type) and cls.__module__ == module:
            return cls
    if module == "torch":
        import sys

        obj = getattr(sys.modules[__package__], name, None)
        if obj is not None:
            return obj
    raise pickle.UnpicklingError(f"gradrepl has no {module}.{name}")


class _Unpickler(pickle.Unpickler):
    def __init__(self, file, storages, weights_only):
        super().__init__(file)
        self._storages = storages
        self._weights_only = weights_only

    def find_class(self, module, name):
        fn = _BY_NAME.get((module, name))
        if fn is not None:
            return fn
        key = (module, name)
        if self._weights_only and key not in _SAFE and key not in _USER_SAFE:
            raise pickle.UnpicklingError(_WEIGHTS_ONLY_MESSAGE.format(g=f"{module}.{name}"))
        if module == "torch" or module.startswith("torch."):
            return _torch_class(module, name)
        return super().find_class(module, name)

    def persistent_load(self, pid):
        kind, storage_type, key, _location, numel = pid[:5]
        if kind != "storage":
            raise pickle.UnpicklingError(f"unknown persistent id {kind!r}")
        return self._storages(key, storage_type.__name__)


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None,
         **pickle_load_args):
    """Read what ``save`` wrote (or real torch's ``torch.save``)."""
    if weights_only is None:
        weights_only = True
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as fh:
            data = fh.read()
    else:
        data = f.read()
    if not zipfile.is_zipfile(io.BytesIO(data)):
        raise RuntimeError("gradrepl reads torch's zip format only (torch.save since 1.6)")
    zf = zipfile.ZipFile(io.BytesIO(data))
    names = zf.namelist()
    pkl = next(n for n in names if n.endswith("/data.pkl") or n == "data.pkl")
    prefix = pkl[:-len("data.pkl")]

    cache = {}

    def storage(key, type_name):
        if key not in cache:
            dt = _storage_dtype(type_name).newbyteorder("<")
            cache[key] = np.frombuffer(zf.read(f"{prefix}data/{key}"), dt) \
                .astype(dt.newbyteorder("="))
        return cache[key]

    return _Unpickler(io.BytesIO(zf.read(pkl)), storage, weights_only).load()


def add_safe_globals(safe_globals):
    """Allow these classes/functions in ``load(weights_only=True)``."""
    for g in safe_globals:
        obj = g[0] if isinstance(g, tuple) else g
        _USER_SAFE.add((obj.__module__, obj.__qualname__))


def get_safe_globals():
    return list(_USER_SAFE)


class safe_globals:
    def __init__(self, safe_globals):
        self.globals = safe_globals

    def __enter__(self):
        self._before = set(_USER_SAFE)
        add_safe_globals(self.globals)

    def __exit__(self, *exc):
        _USER_SAFE.clear()
        _USER_SAFE.update(self._before)
        return False
