"""What every module of the torch dialect shares: raw access to a tensor's array, ``torch.Size``,
``torch.device``.

The engine keeps a tensor's values in the slot ``data`` (a numpy array) and reads it everywhere.
torch's ``x.data`` is a *tensor* (the values without the autograd history), so the dialect's
Tensor overrides ``data`` with a property that answers gradrepl's own code with the array and
everybody else (the user's script, the shell) with a tensor; ``raw(t)`` / ``set_raw(t, a)`` are
the slot itself, without the check, for the dialect's hot paths.
"""
from __future__ import annotations

import os

import numpy as np

from ..engine.tensor import Tensor as EngineTensor

raw = EngineTensor.data.__get__
set_raw = EngineTensor.data.__set__

GRADREPL_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


class Size(tuple):
    """``torch.Size``: a tuple that prints as ``torch.Size([2, 3])``."""

    __slots__ = ()

    def __repr__(self):
        return f"torch.Size({list(self)!r})"

    __str__ = __repr__

    def __getitem__(self, k):
        r = tuple.__getitem__(self, k)
        return Size(r) if isinstance(k, slice) else r

    def __add__(self, other):
        return Size(tuple.__add__(self, tuple(other)))

    def __radd__(self, other):
        return Size(tuple(other) + tuple(self))

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n


class device:
    """``torch.device``: gradrepl computes on the CPU only."""

    __slots__ = ("type", "index")

    def __init__(self, type="cpu", index=None):  # noqa: A002 - torch's name
        if isinstance(type, device):
            type, index = type.type, type.index
        if isinstance(type, int):
            type, index = "cuda", type
        if ":" in str(type):
            type, idx = str(type).split(":", 1)
            index = int(idx)
        self.type = str(type)
        self.index = index

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self):
        return hash((self.type, self.index))

    def __enter__(self):
        """``with torch.device(d):`` factory functions and new modules default to d (torch
        pushes its DeviceContext mode, as ``set_default_device`` does), until the block ends."""
        _DEVICE_STACK.append(_DefaultDevice.device)
        _device_type_check(self)
        _DefaultDevice.device = self
        return self

    def __exit__(self, *exc):
        _DefaultDevice.device = _DEVICE_STACK.pop()
        return None


_DEVICE_STACK: list = []
CPU = device("cpu")


class _DefaultDevice:
    """``torch.set_default_device``'s choice (None: the CPU)."""
    device = None


def _device_type_check(d):
    if d.type not in _DEVICE_TYPES:
        raise RuntimeError("Expected one of " + ", ".join(_DEVICE_TYPES) + " device type at "
                           f"start of device string: {d.type}")


_DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve",
                 "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia",
                 "privateuseone")


def set_default_device(dev):
    """``torch.set_default_device``: where factory functions put tensors by default."""
    if dev is None:
        _DefaultDevice.device = None
        return
    d = dev if isinstance(dev, device) else device(dev)
    _device_type_check(d)
    _DefaultDevice.device = d


def get_default_device():
    """``torch.get_default_device()``: ``device(type='cpu')`` unless set otherwise."""
    d = _DefaultDevice.device
    if d is None:
        return device("cpu")
    if d.type == "cuda":
        raise AssertionError("Torch not compiled with CUDA enabled")
    return d


def check_device(dev):
    """Only the CPU exists here; anything else fails as torch does without CUDA."""
    if dev is None:
        dev = _DefaultDevice.device
        if dev is None:
            return
    d = dev if isinstance(dev, device) else device(dev)
    if d.type == "cuda":
        raise AssertionError("Torch not compiled with CUDA enabled")
    if d.type not in ("cpu", "meta"):
        _device_type_check(d)
        raise RuntimeError(f"gradrepl computes on the CPU only (device {d.type!r})")


def as_array(v, dtype=None):
    a = raw(v) if isinstance(v, EngineTensor) else np.asarray(v)
    return a if dtype is None or a.dtype == dtype else a.astype(dtype)
