"""Clear AttributeErrors (issue 28): an attribute real torch 2.13 has and gradrepl's torch does
not emulate (CUDA, sparse, quantized tensors, ...) raises an AttributeError saying so, at the
point of access (``x.to_sparse`` -> "... (gradrepl's torch does not emulate
Tensor.to_sparse)"); a name torch does not have either raises torch's own message. torch's
names per module are ``_torch_names.NAMES`` (generated from real torch's ``dir()``).

On ``Tensor`` each such name is a class attribute whose descriptor raises (``hasattr`` is False,
as for a missing name): no ``__getattr__``, so no attribute access pays for it (a failed lookup
of an unset slot, ``getattr(t, "_fw", None)``, stays at C speed)."""
from __future__ import annotations

import sys

_MODULES = ("torch.nn", "torch.nn.init", "torch.linalg", "torch.special", "torch.fft",
            "torch.distributions", "torch.optim", "torch.optim.lr_scheduler",
            "torch.utils.data", "torch.autograd", "torch.func")


def _names(target):
    from ._torch_names import NAMES

    return NAMES.get(target, ())


class _NotEmulated:
    """A Tensor attribute torch has and gradrepl does not: access raises AttributeError."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __get__(self, obj, objtype=None):
        who = f"'{(objtype or type(obj)).__name__}' object" if obj is not None else \
            f"type object '{objtype.__name__}'"
        raise AttributeError(f"{who} has no attribute '{self.name}' (gradrepl's torch does "
                             f"not emulate Tensor.{self.name})")


def _module_getattr(target, previous):
    def __getattr__(name):
        if previous is not None:
            try:
                return previous(name)
            except AttributeError:
                pass
        if name[:1] != "_" and name in _names(target):
            raise AttributeError(f"module '{target}' has no attribute '{name}' (gradrepl's "
                                 f"torch does not emulate {target}.{name})")
        raise AttributeError(f"module '{target}' has no attribute '{name}'")
    return __getattr__


def install():
    from ._tensor import Tensor

    for name in _names("torch.Tensor"):
        if name[:1] != "_" and not hasattr(Tensor, name):
            setattr(Tensor, name, _NotEmulated(name))
    for target in _MODULES:
        mod = sys.modules.get("gradrepl." + target)
        if mod is None:
            continue
        previous = mod.__dict__.get("__getattr__")
        mod.__getattr__ = _module_getattr(target, previous)
