"""The functions of the ``paddle`` namespace, one module per kind (as Paddle's own tree).

Each module lists ``__all__`` (exported as ``paddle.X``) and ``__methods__`` (bound as
``Tensor.X``); ``bind_methods`` does the binding once.
"""
from __future__ import annotations

import importlib

MODULES = ["creation", "math", "reduce", "logic", "search", "manipulation", "indexing", "linalg"]


def modules():
    return [importlib.import_module(f"{__name__}.{m}") for m in MODULES]


def exported():
    names = {}
    for mod in modules():
        for n in getattr(mod, "__all__", []):
            names[n] = getattr(mod, n)
    return names


def bind_methods(cls):
    for mod in modules():
        for n in getattr(mod, "__methods__", []):
            if n in cls.__dict__:
                continue  # a Tensor-specific definition wins
            fn = getattr(mod, n)
            setattr(cls, n, fn)
