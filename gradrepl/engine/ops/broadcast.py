"""Broadcasting as ops: ``broadcast_to`` and its reverse ``sum_to`` (the central reduction of
broadcast gradients, see ``registry.reduce_grad``)."""
from __future__ import annotations

import numpy as np

from ..registry import apply, register


def _sum_to_fwd(x, shape):
    shape = tuple(shape)
    if x.shape == shape:
        return x
    lead = x.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        i + lead for i, s in enumerate(shape) if s == 1 and x.shape[i + lead] != 1)
    out = x.sum(axis=axes, keepdims=True) if axes else x
    if lead:
        out = out.reshape(out.shape[lead:])
    return out.reshape(shape)


def _broadcast_to_fwd(x, shape):
    return np.array(np.broadcast_to(x, tuple(shape)))


SUM_TO = register(
    "sum_to", _sum_to_fwd,
    lambda n, g: broadcast_to(g, n.in_meta[0][0]),
    legacy_name="ReduceSumBackward",
    examples=[([(2, 3)], {"shape": (3,)}), ([(2, 3)], {"shape": (2, 1)}), ([(4, 1, 3)], {"shape": (1, 3)})],
)
BROADCAST_TO = register(
    "broadcast_to", _broadcast_to_fwd,
    lambda n, g: sum_to(g, n.in_meta[0][0]),
    legacy_name="ExpandBackward",
    examples=[([(3,)], {"shape": (2, 3)}), ([(2, 1)], {"shape": (3, 2, 4)})],
)


def sum_to(x, shape):
    return apply(SUM_TO, (x,), {"shape": tuple(shape)})


def broadcast_to(x, shape):
    shape = tuple(shape)
    if x.data.shape == shape:
        return x
    return apply(BROADCAST_TO, (x,), {"shape": shape})
