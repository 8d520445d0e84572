"""``torch.cpu.amp``: torch's deprecated names of ``torch.amp``'s CPU autocast and GradScaler.
Each warns torch's FutureWarning at the caller's line (``typing_extensions.deprecated`` on the
class's ``__new__`` / GradScaler's ``__init__``) and is the ``torch.amp`` object for ``"cpu"``."""
from __future__ import annotations

import warnings

from ..._submodules import GradScaler as _GradScaler
from ..._submodules import autocast as _autocast

__all__ = ["autocast", "GradScaler"]


def _bfloat16():
    import gradrepl.torch as T

    return T.bfloat16


class autocast(_autocast):  # noqa: N801 - torch's name
    def __new__(cls, enabled=True, dtype=None, cache_enabled=True):
        warnings.warn("`torch.cpu.amp.autocast(args...)` is deprecated. Please use "
                      "`torch.amp.autocast('cpu', args...)` instead.", FutureWarning,
                      stacklevel=2)
        return super().__new__(cls)

    def __init__(self, enabled=True, dtype=None, cache_enabled=True):
        super().__init__("cpu", enabled=enabled,
                         dtype=_bfloat16() if dtype is None else dtype,
                         cache_enabled=cache_enabled)


class GradScaler(_GradScaler):
    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        warnings.warn("`torch.cpu.amp.GradScaler(args...)` is deprecated. Please use "
                      "`torch.amp.GradScaler('cpu', args...)` instead.", FutureWarning,
                      stacklevel=2)
        super().__init__("cpu", init_scale=init_scale, growth_factor=growth_factor,
                         backoff_factor=backoff_factor, growth_interval=growth_interval,
                         enabled=enabled)


autocast.__module__ = "torch.cpu.amp.autocast_mode"
GradScaler.__module__ = "torch.cpu.amp.grad_scaler"
