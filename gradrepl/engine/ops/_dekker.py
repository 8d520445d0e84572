"""A double ``a * b + c`` rounded once, in numpy, for the kernels that replay a fused
multiply-add in float64 (SLEEF's double functions for torch and Paddle): the exact product as
two doubles (Dekker's split), the sum's error term added back. Correct except for a rare
double-rounding tie, and for products near the subnormal range, which are rounded twice (there
the plain sum is used: Dekker's error term is no longer exact)."""
from __future__ import annotations

import numpy as np

F64 = np.float64


def two_prod(a, b):
    """``(p, e)`` with ``p = RN(a * b)`` and ``p + e == a * b`` exactly."""
    p = a * b
    split = 134217729.0
    ah = a * split
    ah = ah - (ah - a)
    al = a - ah
    bh = b * split
    bh = bh - (bh - b)
    bl = b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def fma64(a, b, c):
    """``a * b + c`` rounded once (``c`` broadcast to the product's shape)."""
    p, e = two_prod(a, b)
    c = np.broadcast_to(np.asarray(c, F64), np.broadcast(p, c).shape)
    with np.errstate(all="ignore"):
        s = p + c
        bb = s - p
        r = s + (((p - (s - bb)) + (c - bb)) + e)
    return np.where(np.abs(p) < 2.0 ** -900, s, r)
