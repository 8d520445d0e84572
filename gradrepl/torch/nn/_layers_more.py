"""Activations, losses, normalisations, dropouts and distances beyond ``modules``.

``__all__`` lists the layers (``torch.nn.NAME``); ``FUNCTIONAL`` the functions of
``torch.nn.functional``. The families live in ``_act_more``, ``_loss_more``, ``_norm_more``
and ``_misc_more`` (dropouts, distances, ``EmbeddingBag``)."""
from __future__ import annotations

import importlib as _importlib

__all__: list = []
FUNCTIONAL: dict = {}

for _family in ("_act_more", "_loss_more", "_norm_more", "_misc_more"):
    try:
        _m = _importlib.import_module(f"{__package__}.{_family}")
    except ModuleNotFoundError as _exc:  # a family not written yet
        if _exc.name != f"{__package__}.{_family}":
            raise
        continue
    for _name in _m.__all__:
        globals()[_name] = getattr(_m, _name)
    __all__ += list(_m.__all__)
    FUNCTIONAL.update(_m.FUNCTIONAL)
