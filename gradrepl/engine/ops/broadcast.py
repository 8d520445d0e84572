"""Broadcasting as ops: ``broadcast_to`` and its reverse ``sum_to`` (the central reduction of
broadcast gradients, see ``registry.reduce_grad``).

``sum_to`` adds the broadcast elements one at a time, in the order Paddle's backward kernels
use (measured bit for bit on Paddle 2.6.2 and 3.3.1, float32):

* ``order="row"`` (the default; elementwise binary ops' gradients): the reduced elements in
  row-major order, the last reduced axis fastest -- also when every axis is reduced;
* ``order="first"`` (``expand`` / ``broadcast_to`` backward): the first reduced axis fastest,
  again one by one for a full reduction (no vectorised tree).

A dialect may add its own framework's order under a name of its own (``ORDERS``): an op copy
whose ``grad_sum_order`` names it has its broadcast gradients summed that way.
"""
from __future__ import annotations

import numpy as np

from ..registry import apply, register
from ._util import quiet


def _reduced_axes(in_shape, shape):
    lead = len(in_shape) - len(shape)
    return lead, tuple(range(lead)) + tuple(
        i + lead for i, s in enumerate(shape) if s == 1 and in_shape[i + lead] != 1)


def _sequential_sum(x, axes, first_fastest):
    """Sum ``x`` over ``axes`` adding one element at a time (kept axes untouched)."""
    rest = [i for i in range(x.ndim) if i not in axes]
    order = list(axes)[::-1] if first_fastest else list(axes)
    blocks = np.transpose(x, order + rest).reshape((-1,) + tuple(x.shape[i] for i in rest))
    if blocks.shape[0] == 0:
        return np.zeros(blocks.shape[1:], x.dtype)
    blocks = np.ascontiguousarray(blocks)
    with quiet(over="ignore", invalid="ignore"):
        if blocks.ndim > 1 and blocks[0].size > 1:
            # numpy adds the rows of a C-contiguous block one after another (the same order,
            # checked bit for bit against cumsum in tests; 10x faster); a single column it
            # would sum pairwise, so that case keeps cumsum
            return np.add.reduce(blocks, axis=0, dtype=x.dtype)
        return np.cumsum(blocks, axis=0, dtype=x.dtype)[-1]


#: name -> fn(x, reduced axes) giving the sums (None: not covered, the row order is used)
ORDERS: dict = {}


def _sum_to_fwd(x, shape, order="row"):
    shape = tuple(shape)
    if x.shape == shape:
        return x
    if order in ORDERS:
        out = ORDERS[order](x, _reduced_axes(x.shape, shape)[1])
        if out is not None:
            return np.asarray(out, x.dtype).reshape(shape)
    if (x.ndim == 2 and len(shape) == 1 and shape[0] == x.shape[1] > 1
            and x.dtype.kind == "f" and x.flags.c_contiguous):
        # a bias gradient, (batch, n) -> (n,): the rows added one after another, as below
        with quiet(over="ignore", invalid="ignore"):
            return np.add.reduce(x, axis=0, dtype=x.dtype)
    lead, axes = _reduced_axes(x.shape, shape)
    if not axes:
        return x.reshape(shape)
    if x.dtype.kind != "f":
        return x.sum(axis=axes).astype(x.dtype).reshape(shape)
    return _sequential_sum(x, axes, first_fastest=(order == "first")).reshape(shape)


def _broadcast_to_fwd(x, shape):
    shape = tuple(shape)
    if x.ndim <= len(shape):  # (an assignment broadcasts as broadcast_to, in one C call)
        out = np.empty(shape, x.dtype)
        try:
            out[...] = x
            return out
        except ValueError:
            pass
    return np.array(np.broadcast_to(x, shape))


SUM_TO = register(
    "sum_to", _sum_to_fwd,
    lambda n, g: broadcast_to(g, n.in_meta[0][0]),
    legacy_name="ReduceSumBackward",
    examples=[([(2, 3)], {"shape": (3,)}), ([(2, 3)], {"shape": (2, 1)}), ([(4, 1, 3)], {"shape": (1, 3)}),
              ([(4, 2, 3)], {"shape": (2, 1), "order": "first"})], saves_inputs=False)
BROADCAST_TO = register(
    "broadcast_to", _broadcast_to_fwd,
    lambda n, g: sum_to(g, n.in_meta[0][0], order="first"),
    legacy_name="ExpandBackward",
    examples=[([(3,)], {"shape": (2, 3)}), ([(2, 1)], {"shape": (3, 2, 4)})], saves_inputs=False)


def sum_to(x, shape, order="row"):
    """Sum the broadcast axes of ``x`` away to ``shape`` (``order``: see the module doc)."""
    attrs = {"shape": tuple(shape)}
    if order != "row":
        attrs["order"] = order
    return apply(SUM_TO, (x,), attrs)


def broadcast_to(x, shape):
    shape = tuple(shape)
    if x.data.shape == shape:
        return x
    return apply(BROADCAST_TO, (x,), {"shape": shape})
