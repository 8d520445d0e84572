"""Linear algebra of the ``paddle`` namespace: matmul and friends."""
from __future__ import annotations

from ...engine.ops import linalg as L
from ..core import Tensor, as_tensor
from .. import promotion

__all__ = ["matmul"]
__methods__ = ["matmul"]


def _shape_error(x, y, tx, ty):
    xs, ys = list(x.data.shape), list(y.data.shape)
    return ValueError(
        f"(InvalidArgument) matmul: the inner dimensions of x {xs} (transpose_x={tx}) and y {ys} "
        f"(transpose_y={ty}) must match")


def matmul(x, y, transpose_x=False, transpose_y=False, name=None):
    x, y = as_tensor(x), as_tensor(y)
    if x.data.dtype != y.data.dtype:
        target = promotion.binary(x.data.dtype, y.data.dtype, False, False, "matmul")
        from ...engine.ops.math import cast

        x, y = cast(x, target), cast(y, target)
    xs, ys = x.data.shape, y.data.shape
    if not xs or not ys:
        raise ValueError("(InvalidArgument) matmul does not take 0-D tensors, got shapes "
                         f"{list(xs)} and {list(ys)}")
    kx = xs[-2] if (transpose_x and len(xs) > 1) else xs[-1]
    ky = ys[-1] if (transpose_y and len(ys) > 1) else (ys[-2] if len(ys) > 1 else ys[0])
    if kx != ky:
        raise _shape_error(x, y, transpose_x, transpose_y)
    try:
        return L.matmul(x, y, transpose_x, transpose_y)
    except ValueError:
        raise _shape_error(x, y, transpose_x, transpose_y) from None


Tensor  # re-exported for type checkers
