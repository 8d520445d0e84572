"""The process-wide state of the torch dialect, and how to put it back as a fresh process has
it: the random generator (torch's default seed), the print options, the default dtype, grad
mode. The tests call ``reset()`` between cases, as ``gradrepl.paddle.state.reset`` for Paddle."""
from __future__ import annotations

from ..engine import grad_mode
from . import _dtypes, _printing, _random


def reset() -> None:
    _random.manual_seed(_random.DEFAULT_SEED)
    _printing.reset()
    _dtypes.DEFAULTS.float = _dtypes.float32
    grad_mode.STATE.enabled = True
    from .autograd import graph

    graph.reset()
    from ._base import _DefaultDevice

    _DefaultDevice.device = None
    from .autograd import forward_ad

    forward_ad.reset()
