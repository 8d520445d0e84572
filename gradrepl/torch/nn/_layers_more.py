"""Activations, losses, normalisations, dropouts and distances beyond ``modules``.

``__all__`` lists the layers (``torch.nn.NAME``); ``FUNCTIONAL`` the functions of
``torch.nn.functional``."""
from __future__ import annotations

__all__: list = []
FUNCTIONAL: dict = {}
