"""Ops that move values without changing them: reshape, transpose (more come as entries)."""
from __future__ import annotations

import numpy as np

from ..registry import apply, register

RESHAPE = register("reshape", lambda x, shape: np.reshape(x, shape),
                   lambda n, g: reshape(g, n.in_meta[0][0]),
                   legacy_name="ReshapeBackward",
                   examples=[([(2, 3)], {"shape": (3, 2)}), ([(6,)], {"shape": (1, 2, 3)})])


def reshape(x, shape):
    shape = tuple(shape)
    if x.data.shape == shape:
        return x
    return apply(RESHAPE, (x,), {"shape": shape})


def _inv(perm):
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return tuple(inv)


TRANSPOSE = register("transpose", lambda x, perm: np.transpose(x, perm),
                     lambda n, g: transpose(g, _inv(n.attrs["perm"])),
                     legacy_name="TransposeBackward",
                     examples=[([(2, 3)], {"perm": (1, 0)}), ([(2, 3, 4)], {"perm": (2, 0, 1)})])


def transpose(x, perm):
    return apply(TRANSPOSE, (x,), {"perm": tuple(perm)})


def swap_last(x):
    nd = x.data.ndim
    perm = tuple(range(nd - 2)) + (nd - 1, nd - 2)
    return transpose(x, perm)
