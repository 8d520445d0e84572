"""Convolution, pooling, padding and resampling layers beyond ``_layers`` (1-d/3-d, transposed,
lazy, fractional, unpooling, Lp, pads, pixel/channel shuffle, upsample, fold) and their
functional forms, gathered from ``_conv_more``, ``_pool_more`` and ``_resample``.

``__all__`` lists the layers (``torch.nn.NAME``); ``FUNCTIONAL`` the functions of
``torch.nn.functional``; ``TORCH`` the ones torch also has at its top level (``torch.conv3d``,
``torch.pixel_shuffle``, ...), set on the ``torch`` module when this one is imported."""
from __future__ import annotations

import sys

from . import _conv_more, _pool_more, _resample
from ._conv_more import *  # noqa: F401,F403
from ._pool_more import *  # noqa: F401,F403
from ._resample import *  # noqa: F401,F403

__all__: list = []
FUNCTIONAL: dict = {}
TORCH: dict = {}
for _m in (_conv_more, _pool_more, _resample):
    __all__ += [c.__name__ for c in _m.LAYERS]
    FUNCTIONAL.update(_m.FUNCTIONAL)
    TORCH.update(_m.TORCH)
del _m


def _install_torch_names():
    from . import _spatial

    TORCH.setdefault("conv2d", _spatial.conv2d)
    torch_mod = sys.modules[__name__.rsplit(".nn.", 1)[0]]
    for name, fn in TORCH.items():
        if name not in vars(torch_mod):
            setattr(torch_mod, name, fn)


_install_torch_names()
