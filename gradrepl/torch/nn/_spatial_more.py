"""Convolution, pooling, padding and resampling layers beyond ``_layers`` (1-d/3-d, transposed,
fractional, pixel shuffle, upsample) and their functional forms.

``__all__`` lists the layers (``torch.nn.NAME``); ``FUNCTIONAL`` the functions of
``torch.nn.functional``."""
from __future__ import annotations

__all__: list = []
FUNCTIONAL: dict = {}
