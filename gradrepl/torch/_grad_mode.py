"""torch's grad-mode classes (``torch.no_grad``, ``enable_grad``, ``set_grad_enabled``): the
engine's, under torch's names (``<class 'torch.autograd.grad_mode.no_grad'>``) and with
``set_grad_enabled``'s repr."""
from __future__ import annotations

from ..engine import grad_mode as _gm
from ..engine.grad_mode import is_grad_enabled  # noqa: F401


class no_grad(_gm.no_grad):
    """``with torch.no_grad():`` / ``@torch.no_grad()``: nothing is recorded."""

    __module__ = "torch.autograd.grad_mode"


class enable_grad(_gm.enable_grad):
    """``with torch.enable_grad():``: recording back on."""

    __module__ = "torch.autograd.grad_mode"


class set_grad_enabled(_gm.set_grad_enabled):
    """``torch.set_grad_enabled(mode)``: a call, a context manager or a decorator."""

    __module__ = "torch.autograd.grad_mode"

    def __repr__(self):
        return f"torch.autograd.grad_mode.set_grad_enabled(mode={self.mode})"


def _own_methods():
    """torch defines each class's ``__enter__``/``__exit__`` (``print(torch.no_grad().__enter__)``
    is ``<bound method no_grad.__enter__ of ...>``); the engine's come from one base class."""
    from ._method_repr import own_copy

    for cls in (no_grad, enable_grad, set_grad_enabled):
        for name in ("__enter__", "__exit__"):
            setattr(cls, name, own_copy(getattr(cls, name), f"{cls.__name__}.{name}"))


_own_methods()
