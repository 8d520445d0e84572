"""``paddle.base.dygraph.base``: the gradient-mode switches as Paddle's classes (their reprs name
``paddle.base.dygraph.base``), on the engine's switch."""
from __future__ import annotations

from contextlib import contextmanager as _contextmanager

from ....engine import grad_mode as _gm
from ...core import PaddleClass, PaddleObject


class no_grad_(PaddleObject, _gm.no_grad, metaclass=PaddleClass):
    """``paddle.no_grad``: ``with paddle.no_grad():`` or ``@paddle.no_grad()``."""


class enable_grad(PaddleObject, _gm.enable_grad, metaclass=PaddleClass):
    """``paddle.enable_grad``."""


class set_grad_enabled(PaddleObject, _gm.set_grad_enabled, metaclass=PaddleClass):
    """``paddle.set_grad_enabled(mode)``: a context manager; also switches when only called."""


no_grad = no_grad_


@_contextmanager
def guard(place=None):
    """``paddle.base.dygraph.guard``: dynamic mode is always on in gradrepl."""
    yield


def to_variable(value, name=None, zero_copy=None, dtype=None):
    from ...tensor.creation import to_tensor

    return to_tensor(value, dtype=dtype)


_DYGRAPH = [True]


def enabled():
    """Whether dynamic mode is on (``paddle.base.disable_dygraph`` turns the flag off)."""
    return _DYGRAPH[0]
