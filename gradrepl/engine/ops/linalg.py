"""Linear algebra: matmul for every rank pairing, with Paddle's transpose_x/transpose_y."""
from __future__ import annotations

import numpy as np

from ..registry import apply, register
from .broadcast import sum_to
from .shape import reshape, swap_last


def _matmul_fwd(x, y, transpose_x=False, transpose_y=False):
    if transpose_x and x.ndim >= 2:
        x = np.swapaxes(x, -1, -2)
    if transpose_y and y.ndim >= 2:
        y = np.swapaxes(y, -1, -2)
    return np.matmul(x, y)


def _matmul_vjp(n, g):
    x, y = n.inputs
    tx, ty = n.attrs.get("transpose_x", False), n.attrs.get("transpose_y", False)
    xs, ys = n.in_meta[0][0], n.in_meta[1][0]
    X = x if len(xs) > 1 else reshape(x, (1, xs[0]))
    Y = y if len(ys) > 1 else reshape(y, (ys[0], 1))
    if len(xs) == 1:
        tx = False
    if len(ys) == 1:
        ty = False
    Xe = swap_last(X) if tx else X  # the matrices actually multiplied
    Ye = swap_last(Y) if ty else Y
    full = np.broadcast_shapes(Xe.data.shape[:-2], Ye.data.shape[:-2]) + (
        Xe.data.shape[-2], Ye.data.shape[-1])
    G = reshape(g, full)
    dXe = matmul(G, Ye, transpose_y=True)
    dYe = matmul(Xe, G, transpose_x=True)
    dX = swap_last(dXe) if tx else dXe
    dY = swap_last(dYe) if ty else dYe
    dX = reshape(sum_to(dX, X.data.shape), xs)
    dY = reshape(sum_to(dY, Y.data.shape), ys)
    return dX, dY


MATMUL = register(
    "matmul", _matmul_fwd, _matmul_vjp, legacy_name="MatmulBackward",
    examples=[([(2, 3), (3, 4)], {}), ([(3,), (3,)], {}), ([(3,), (3, 2)], {}),
              ([(2, 2, 3), (3,)], {}), ([(2, 3, 4), (4, 2)], {}), ([(1, 2, 3), (4, 3, 2)], {}),
              ([(3, 2), (4, 3)], {"transpose_x": True, "transpose_y": True})])


def matmul(x, y, transpose_x=False, transpose_y=False):
    attrs = {}
    if transpose_x:
        attrs["transpose_x"] = True
    if transpose_y:
        attrs["transpose_y"] = True
    return apply(MATMUL, (x, y), attrs)
