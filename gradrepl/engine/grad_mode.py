"""Whether operations record backward nodes: ``no_grad``, ``enable_grad``, ``set_grad_enabled``.

One module-level switch read by every op (``STATE.enabled``); the context managers also work as
decorators, the way Paddle's do.
"""
from __future__ import annotations

import functools


class _State:
    __slots__ = ("enabled",)

    def __init__(self) -> None:
        self.enabled = True


STATE = _State()


def is_grad_enabled() -> bool:
    return STATE.enabled


def _decorate(fn, mode):
    """``fn`` run with recording set to ``mode`` (restored afterwards, also on error)."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        prev = STATE.enabled
        STATE.enabled = mode
        try:
            return fn(*args, **kwargs)
        finally:
            STATE.enabled = prev

    return wrapper


class set_grad_enabled:
    """Context manager (and decorator) that sets gradient recording to ``mode``."""

    def __init__(self, mode: bool = True) -> None:
        self.mode = bool(mode)
        self.prev = STATE.enabled
        STATE.enabled = self.mode  # also works as a plain call, like torch/paddle

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        STATE.enabled = self.prev
        return False

    def __call__(self, fn):
        STATE.enabled = self.prev  # used as a decorator: undo the call-time switch
        return _decorate(fn, self.mode)


class _Switch:
    mode = False

    def __enter__(self):
        self.prev = STATE.enabled
        STATE.enabled = self.mode
        return self

    def __exit__(self, *exc):
        STATE.enabled = self.prev
        return False

    def __call__(self, fn):
        return _decorate(fn, self.mode)


class no_grad(_Switch):
    """``with no_grad():`` or ``@no_grad()``: ops record nothing, outputs stop gradient."""

    mode = False

    def __new__(cls, func=None):
        obj = super().__new__(cls)
        if callable(func):  # bare @no_grad
            return obj(func)
        return obj

    def __init__(self, func=None):
        self._func = func


class enable_grad(_Switch):
    mode = True
