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


CPU = device("cpu")


def check_device(dev):
    """Only the CPU exists here; anything else fails as torch does without CUDA."""
    if dev is None:
        return
    d = dev if isinstance(dev, device) else device(dev)
    if d.type == "cuda":
        raise AssertionError("Torch not compiled with CUDA enabled")
    if d.type not in ("cpu", "meta"):
        raise RuntimeError(f"Expected one of cpu, cuda, ... device type at start of device "
                           f"string: {d.type}")


def as_array(v, dtype=None):
    a = raw(v) if isinstance(v, EngineTensor) else np.asarray(v)
    return a if dtype is None or a.dtype == dtype else a.astype(dtype)
