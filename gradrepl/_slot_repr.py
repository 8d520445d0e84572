"""A Python hook in front of the C ``repr`` of a built-in type (``types.MethodType``).

Real torch's tensor methods are C methods: ``print(t.type)`` shows
``<built-in method type of Tensor object at 0x...>``. gradrepl's are Python functions, whose bound
methods print ``<bound method _type of tensor([...])>``. No Python-level descriptor can change
that without slowing every method call (a wrapper object per ``t.sum()``: ~0.9 us, measured), so
the repr slot of the bound-method type itself gets a hook: ``hook(obj)`` returns the text for the
objects it knows (marked by the dialect) and None for all others, which keep CPython's own repr.
Calls are untouched. The slot is found through the documented ``PyTypeObject`` layout and checked
(its ``tp_name`` must read back as the type's name) before anything is written; where the check
fails (another interpreter, a debug build) nothing is patched and ``install`` returns False.
"""
from __future__ import annotations

import ctypes
import platform
import sys

_P = ctypes.sizeof(ctypes.c_void_p)
# PyVarObject head (refcount, type, size), then tp_name, tp_basicsize, tp_itemsize, tp_dealloc,
# tp_vectorcall_offset, tp_getattr, tp_setattr, tp_as_async, tp_repr
_NAME_AT = 3 * _P
_REPR_AT = _NAME_AT + 8 * _P
_REPRFUNC = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.py_object)   # (GIL held: PyDLL style)

_installed: dict = {}   # type -> (callback kept alive, original C repr)


def _layout_ok(tp: type) -> bool:
    if platform.python_implementation() != "CPython" or hasattr(sys, "gettotalrefcount"):
        return False
    name = ctypes.c_void_p.from_address(id(tp) + _NAME_AT).value
    return bool(name) and ctypes.string_at(name) == tp.__name__.encode()


def install(tp: type, hook) -> bool:
    """Put ``hook`` in front of ``tp``'s C repr (once per type; later calls replace the hook)."""
    if tp in _installed:
        _installed[tp][2][0] = hook
        return True
    current = [hook]

    def repr_(obj):
        try:
            text = current[0](obj)
        except Exception:   # a hook must never break repr(): fall back to CPython's own
            text = None
        return original(obj) if text is None else text

    try:
        if not _layout_ok(tp):
            return False
        slot = ctypes.c_void_p.from_address(id(tp) + _REPR_AT)
        original = _REPRFUNC(slot.value)
        callback = _REPRFUNC(repr_)   # (a libffi closure: may be refused in a confined process)
    except Exception:
        return False
    _installed[tp] = (callback, original, current)
    slot.value = ctypes.cast(callback, ctypes.c_void_p).value
    return True
