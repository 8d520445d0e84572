"""Switching between dynamic and static graph mode.

Dynamic mode pays nothing for static mode: ``enable`` installs the recorder as the engine's hook
(``engine.registry.set_apply_hook``) and puts recording wrappers of the creation functions into the
``paddle`` namespace; ``disable`` takes both away again, leaving exactly the dynamic functions.
"""
from __future__ import annotations

import functools
import sys

from ...engine import registry
from . import program as P

_SAVED: dict = {}


def _recording(name):
    @functools.wraps(P.creation_function(name))
    def wrapper(*args, **kwargs):
        return P.record_creation(name, args, kwargs)

    return wrapper


def _wrappers():
    table = {name: _recording(name) for name in P.CREATION}
    table["create_parameter"] = P.create_parameter
    return table


def enable():
    """Turn static mode on (idempotent)."""
    if P.MODE["static"]:
        return
    paddle = sys.modules["gradrepl.paddle"]
    for name, fn in _wrappers().items():
        if name in vars(paddle):
            _SAVED[name] = vars(paddle)[name]
            setattr(paddle, name, fn)
    registry.set_apply_hook(P.on_apply)
    P.MODE["static"] = True


def disable():
    """Back to dynamic mode: the original functions and no engine hook."""
    if not P.MODE["static"]:
        return
    paddle = sys.modules["gradrepl.paddle"]
    for name, fn in _SAVED.items():
        setattr(paddle, name, fn)
    _SAVED.clear()
    registry.set_apply_hook(None)
    P.MODE["static"] = False


def is_static():
    return P.MODE["static"]


class static_guard:  # noqa: N801
    """Static mode for a ``with`` block (``paddle.jit.save`` records a Layer's forward in it)."""

    def __enter__(self):
        self.was = P.MODE["static"]
        enable()
        return self

    def __exit__(self, *exc):
        if not self.was:
            disable()
        return False
