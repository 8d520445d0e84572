"""How a tensor's methods print, as in torch: ``print(t.type)`` (the Kaggle "PyTorch Tutorial for
Deep Learning Lovers" prints ``"Array Type: {}".format(tensor.type)``), ``print(x.max)``.

In real torch most ``Tensor`` methods are C methods (``<built-in method sum of Tensor object at
0x...>``); the ones ``torch/_tensor.py`` writes in Python print as bound methods of ``Tensor.<name>``
(``<bound method Tensor.backward of tensor([...])>``); a few C slots print as method-wrappers.
The tables below are recorded from torch 2.13 (``dir(torch.Tensor)``, every callable's bound
repr); every public or dunder name not listed is a C method there. ``install`` runs once at the
end of ``import torch``: each Tensor method gets its own function object (aliases such as
``abs``/``absolute`` share one in gradrepl) carrying the name and the kind it prints as, and
``gradrepl._slot_repr`` prints bound methods from that mark. Calls are not changed.
"""
from __future__ import annotations

import types

from .. import _slot_repr

# torch 2.13: bound methods of Python functions, printed ``<bound method <qualname> of ...>``
_PYTHON = {n: "Tensor." + n for n in (
    "__array__ __array_wrap__ __contains__ __deepcopy__ __dir__ __dlpack__ __dlpack_device__ "
    "__floordiv__ __format__ __hash__ __iter__ __len__ __rdiv__ __reduce_ex__ __repr__ "
    "__reversed__ __rfloordiv__ __rlshift__ __rmatmul__ __rmod__ __rpow__ __rrshift__ __rsub__ "
    "__setstate__ backward dim_order eig index is_shared istft lstsq lu module_load norm "
    "register_hook register_post_accumulate_grad_hook reinforce resize resize_as share_memory_ "
    "solve split stft storage storage_type symeig to_sparse_coo unflatten unique "
    "unique_consecutive").split()}
_PYTHON.update({"__ipow__": "TensorBase.pow_", "__pow__": "TensorBase.pow",
                "__rtruediv__": "Tensor.__rdiv__"})
# torch 2.13: C slots, printed ``<method-wrapper '<name>' of Tensor object at 0x...>``
_WRAPPER = frozenset("__delattr__ __delitem__ __getattribute__ __getitem__ __init__ __setattr__ "
                     "__setitem__ __str__".split())
# torch 2.13: C methods printed under another name than the attribute's
_BUILTIN_AS = {"__abs__": "abs", "__neg__": "neg", "__pos__": "positive",
               "__itruediv__": "__idiv__"}
# dunders that are not methods of a tensor instance in torch (class machinery)
_SKIP = frozenset("__init_subclass__ __new__ __subclasshook__ __torch_function__ "
                  "__torch_dispatch__ __class_getitem__ __getattr__".split())

_MARK = "_torch_repr"   # in a method's __dict__: (kind, name)


def own_copy(f: types.FunctionType, qualname: str | None = None) -> types.FunctionType:
    """The same function as a new object (its own ``__dict__`` and ``__qualname__``): what a
    bound method prints is the function's qualname (``<bound method SGD.step of ...>``)."""
    g = types.FunctionType(f.__code__, f.__globals__, f.__name__, f.__defaults__, f.__closure__)
    g.__kwdefaults__ = f.__kwdefaults__
    g.__dict__.update(f.__dict__)
    g.__doc__, g.__module__ = f.__doc__, f.__module__
    g.__qualname__ = qualname or f.__qualname__
    g.__annotations__ = f.__annotations__
    return g


def _lookup(cls: type, name: str):
    for c in cls.__mro__:
        if name in c.__dict__:
            return c.__dict__[name]
    return None


def _mark(cls: type, python: dict = {}, wrapper: frozenset = frozenset(),  # noqa: B006
          builtin_as: dict = {}, dunders: bool = True) -> None:  # noqa: B006
    for name in dir(cls):
        dunder = name.startswith("__")
        if name in _SKIP or (name.startswith("_") and not dunder) or (dunder and not dunders):
            continue
        f = _lookup(cls, name)
        if not isinstance(f, types.FunctionType):
            continue   # properties, slot wrappers (already print as torch's), not-emulated stubs
        g = own_copy(f)
        if name in python:
            g.__qualname__ = python[name]
        else:
            g.__dict__[_MARK] = ("wrapper" if name in wrapper else "builtin",
                                 builtin_as.get(name, name))
        setattr(cls, name, g)


_CLASSES: list = []   # [Tensor, Node]: the classes whose marked methods print as C methods


def _method_repr(m):
    mark = getattr(m.__func__, "__dict__", {}).get(_MARK)
    if mark is None or not isinstance(m.__self__, tuple(_CLASSES)):
        return None
    kind, name = mark
    of = f"{type(m.__self__).__name__} object at {id(m.__self__):#x}"
    if kind == "wrapper":
        return f"<method-wrapper '{name}' of {of}>"
    return f"<built-in method {name} of {of}>"


def install(tensor_cls: type, node_cls: type) -> bool:
    """Mark the methods of ``tensor_cls`` and of the autograd node class (``grad_fn.name``:
    ``<built-in method name of SumBackward0 object at 0x...>``) and hook the bound-method repr
    (False where the hook is unavailable: bound methods then print as Python's)."""
    if not _slot_repr.install(types.MethodType, _method_repr):
        return False
    _CLASSES[:] = [tensor_cls, node_cls]
    _mark(tensor_cls, _PYTHON, _WRAPPER, _BUILTIN_AS)
    _mark(node_cls, dunders=False)
    return True
