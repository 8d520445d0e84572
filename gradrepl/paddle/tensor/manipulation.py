"""Shape manipulation of the ``paddle`` namespace (also bound as Tensor methods)."""
from __future__ import annotations

import numpy as np

from ...engine.ops import shape as S
from ._args import shape_list

__all__ = ["reshape", "transpose", "t"]
__methods__ = ["reshape", "transpose", "t"]


def reshape(x, shape, name=None):
    shape = list(shape_list(shape))
    src = x.data.shape
    for i, s in enumerate(shape):
        if s == 0:
            shape[i] = src[i]
    try:
        resolved = np.reshape(np.empty(src, dtype=np.bool_), shape).shape
    except ValueError:
        raise ValueError(
            f"(InvalidArgument) The 'shape' in ReshapeOp is invalid. The input tensor X's size "
            f"must be equal to the capacity of 'shape'. But received X's shape = {list(src)}, "
            f"X's size = {int(np.prod(src))}, 'shape' is {shape}, the capacity of 'shape' is "
            f"{int(np.prod([s for s in shape if s != -1]))}.") from None
    return S.reshape(x, resolved)


def transpose(x, perm, name=None):
    return S.transpose(x, [int(p) % max(x.data.ndim, 1) for p in perm])


def t(input, name=None):  # noqa: A002
    if input.data.ndim < 2:
        return input
    return S.transpose(input, (1, 0))
