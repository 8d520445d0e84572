"""Argument checks shared by the PIL, numpy and tensor sides of the transforms."""
from __future__ import annotations

import numbers
from collections.abc import Sequence

__all__ = []

PAD_MODES = ("constant", "edge", "reflect", "symmetric")


def padding_ltrb(padding, fill, padding_mode):
    """Check ``pad``'s arguments as Paddle does; (left, top, right, bottom)."""
    if not isinstance(padding, (numbers.Number, list, tuple)):
        raise TypeError("Got inappropriate padding arg")
    if not isinstance(fill, (numbers.Number, str, list, tuple)):
        raise TypeError("Got inappropriate fill arg")
    if not isinstance(padding_mode, str):
        raise TypeError("Got inappropriate padding_mode arg")
    if isinstance(padding, (list, tuple)) and len(padding) not in (2, 4):
        raise ValueError("Padding must be an int or a 2, or 4 element tuple, not a "
                         f"{len(padding)} element tuple")
    assert padding_mode in PAD_MODES, \
        "Padding mode should be either constant, edge, reflect or symmetric"
    if isinstance(padding, Sequence):
        if len(padding) == 2:
            return padding[0], padding[1], padding[0], padding[1]
        return tuple(padding)
    return (padding,) * 4
