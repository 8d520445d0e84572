"""Max unpooling: ``unpool(x, indices)`` writes each value of ``x`` at its flat index (within its
sample's and channel's output plane or volume, as ``max_pool*(return_mask=True)`` gives it) into
zeros of the output's spatial size; ``unpool_grad(g, indices)`` gathers the gradient back. Each
is the other's VJP, so gradients of gradients work. Paddle's unpool kernel writes the values in
order (a repeated index keeps the last)."""
from __future__ import annotations

import math

import numpy as np

from ..registry import apply, register


def _unpool_fwd(x, indices, out_size=(1, 1)):
    n, c = x.shape[:2]
    flat = np.zeros((n, c, math.prod(out_size)), x.dtype)
    idx = indices.reshape(n, c, -1).astype(np.int64)
    if idx.size and (idx.min() < 0 or idx.max() >= flat.shape[-1]):
        raise ValueError(
            f"(InvalidArgument) index should less than output tensor height * output tensor "
            f"width. Expected {int(idx.max())} < {flat.shape[-1]}, but received it is not")
    np.put_along_axis(flat, idx, x.reshape(n, c, -1), axis=-1)
    return flat.reshape((n, c) + tuple(out_size))


def _unpool_grad_fwd(g, indices, in_size=(1, 1)):
    n, c = g.shape[:2]
    idx = indices.reshape(n, c, -1).astype(np.int64)
    return np.take_along_axis(g.reshape(n, c, -1), idx, axis=-1).reshape((n, c) + tuple(in_size))


def _unpool_vjp(n, g):
    return unpool_grad(g, n.inputs[1], n.in_meta[0][0][2:]), None


def _unpool_grad_vjp(n, G):
    return unpool(G, n.inputs[1], n.in_meta[0][0][2:]), None


UNPOOL = register(
    "unpool", _unpool_fwd, _unpool_vjp, legacy_name="UnpoolBackward", diff_inputs=(0,),
    examples=[([(1, 2, 2, 2), np.array([[[[0, 3], [9, 14]], [[1, 6], [8, 15]]]])],
               {"out_size": (4, 4)})])
UNPOOL_GRAD = register(
    "unpool_grad", _unpool_grad_fwd, _unpool_grad_vjp, legacy_name="UnpoolGradBackward",
    diff_inputs=(0,),
    examples=[([(1, 2, 4, 4), np.array([[[[0, 3], [9, 14]], [[1, 6], [8, 15]]]])],
               {"in_size": (2, 2)})])


def unpool(x, indices, out_size):
    return apply(UNPOOL, (x, indices), {"out_size": tuple(int(v) for v in out_size)})


def unpool_grad(g, indices, in_size):
    return apply(UNPOOL_GRAD, (g, indices), {"in_size": tuple(int(v) for v in in_size)})
