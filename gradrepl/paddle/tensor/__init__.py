"""The functions of the ``paddle`` namespace, one module per kind (as Paddle's own tree).

Each module lists ``__all__`` (exported as ``paddle.X``) and ``__methods__`` (bound as
``Tensor.X``); ``bind_methods`` does the binding once.
"""
from __future__ import annotations

import builtins
import importlib

MODULES = ["creation", "math", "reduce", "logic", "search", "manipulation", "indexing", "linalg",
           "attribute", "special", "manipulation_ext", "linalg_ext", "math_ext", "einsum",
           "breadth", "samplers"]


def modules():
    return [importlib.import_module(f"{__name__}.{m}") for m in MODULES]


def exported():
    names = {}
    for mod in modules():
        for n in getattr(mod, "__all__", []):
            names[n] = getattr(mod, n)
    return names


# where Paddle's own modules hold the newer functions (``paddle.tensor.math.frexp``)
_HOMES = {"math": ("special", "math_ext"), "manipulation": ("manipulation_ext",),
          "linalg": ("linalg_ext",), "search": ("manipulation_ext", "math_ext"),
          "creation": ("attribute",), "stat": ("math_ext",)}


def _place_homes():
    for home, sources in _HOMES.items():
        try:
            target = importlib.import_module(f"{__name__}.{home}")
        except ImportError:
            continue
        for src in sources:
            mod = importlib.import_module(f"{__name__}.{src}")
            for n in getattr(mod, "__all__", []):
                if not hasattr(target, n) and not hasattr(builtins, n):
                    setattr(target, n, getattr(mod, n))


def bind_methods(cls):
    from ..api26 import TENSOR

    _place_homes()

    for mod in modules():
        for n in getattr(mod, "__methods__", []):
            if n in cls.__dict__:
                continue  # a Tensor-specific definition wins
            fn = getattr(mod, "__method_overrides__", {}).get(n) or getattr(mod, n)
            if not n.startswith("_") and n not in TENSOR:
                fn = Since3(fn, n)
            setattr(cls, n, fn)


class Since3:
    """A Tensor method Paddle 3 added: under a 2.x profile reading it is an AttributeError, as
    in real Paddle 2.6."""

    __slots__ = ("fn", "name")

    def __init__(self, fn, name):
        self.fn = fn
        self.name = name

    def __get__(self, obj, cls=None):
        from .. import profiles

        if not profiles.current().api3:
            raise AttributeError(f"'Tensor' object has no attribute '{self.name}'"
                                 if obj is not None else
                                 f"type object 'Tensor' has no attribute '{self.name}'")
        if obj is None:
            return self.fn
        return self.fn.__get__(obj, cls)


def __getattr__(name):
    """``paddle.tensor.triu`` and the like: every function of the API modules."""
    for mod in modules():
        if name in getattr(mod, "__all__", ()) or name in getattr(mod, "__methods__", ()):
            return getattr(mod, name)
    raise AttributeError(f"module 'paddle.tensor' has no attribute {name!r}")
