"""Ops that move values without changing them: reshapes, transposes, joins and splits, tiling.

Every VJP here is again a move of values (the inverse move, or the sum that undoes a copy), so
the VJPs are written with these same ops and differentiate again under ``create_graph=True``:
concat's VJP is split and split's is concat; stack and unbind pair the same way; flip, roll and
transpose undo themselves; tile sums its copies back.

Attributes arrive normalised by the dialect (non-negative axes, resolved shapes); the engine
checks nothing a dialect is expected to report in its own words.
"""
from __future__ import annotations

import numpy as np

from ..registry import apply, register


def _back_to_input_shape(n, g):
    """VJP of every op that only reinterprets the shape: reshape the gradient back."""
    return reshape(g, n.in_meta[0][0])


# ---------------------------------------------------------------- reshape-like ops
RESHAPE = register("reshape", lambda x, shape: np.reshape(x, shape), _back_to_input_shape,
                   legacy_name="ReshapeBackward",
                   examples=[([(2, 3)], {"shape": (3, 2)}), ([(6,)], {"shape": (1, 2, 3)})], saves_inputs=False)


def reshape(x, shape):
    shape = tuple(shape)
    if x.data.shape == shape:
        return x
    return apply(RESHAPE, (x,), {"shape": shape})


def _squeeze_fwd(x, axis, shape):
    return np.reshape(x, shape)


SQUEEZE = register("squeeze", _squeeze_fwd, _back_to_input_shape, legacy_name="SqueezeBackward",
                   examples=[([(1, 3, 1)], {"axis": (0, 2), "shape": (3,)})], saves_inputs=False)
UNSQUEEZE = register("unsqueeze", _squeeze_fwd, _back_to_input_shape,
                     legacy_name="UnsqueezeBackward",
                     examples=[([(3,)], {"axis": (0, 2), "shape": (1, 3, 1)})], saves_inputs=False)


def _flatten_fwd(x, start_axis, stop_axis, shape):
    return np.reshape(x, shape)


FLATTEN = register("flatten", _flatten_fwd, _back_to_input_shape, legacy_name="FlattenBackward",
                   examples=[([(2, 3, 4)], {"start_axis": 1, "stop_axis": 2, "shape": (2, 12)})], saves_inputs=False)


def squeeze(x, axis):
    """Drop the size-1 axes listed in ``axis`` (non-negative; others are the dialect's concern)."""
    axis = tuple(sorted(axis))
    shape = tuple(s for i, s in enumerate(x.data.shape) if i not in axis)
    return apply(SQUEEZE, (x,), {"axis": axis, "shape": shape})


def unsqueeze(x, axis):
    """Insert size-1 axes at the positions ``axis`` of the result (non-negative, in order)."""
    shape = list(x.data.shape)
    for a in axis:
        shape.insert(a, 1)
    return apply(UNSQUEEZE, (x,), {"axis": tuple(axis), "shape": tuple(shape)})


def flatten(x, start_axis, stop_axis):
    s = x.data.shape
    if s:
        mid = int(np.prod(s[start_axis:stop_axis + 1], dtype=np.int64))
        shape = s[:start_axis] + (mid,) + s[stop_axis + 1:]
    else:
        shape = (1,)
    return apply(FLATTEN, (x,), {"start_axis": start_axis, "stop_axis": stop_axis,
                                 "shape": shape})


# ---------------------------------------------------------------- transpose
def _inv(perm):
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return tuple(inv)


TRANSPOSE = register("transpose", lambda x, perm: np.transpose(x, perm),
                     lambda n, g: transpose(g, _inv(n.attrs["perm"])),
                     legacy_name="TransposeBackward",
                     examples=[([(2, 3)], {"perm": (1, 0)}), ([(2, 3, 4)], {"perm": (2, 0, 1)})], saves_inputs=False)


def transpose(x, perm):
    return apply(TRANSPOSE, (x,), {"perm": tuple(perm)})


def swap_last(x):
    nd = x.data.ndim
    perm = tuple(range(nd - 2)) + (nd - 1, nd - 2)
    return transpose(x, perm)


# ---------------------------------------------------------------- joins and splits
def _concat_vjp(n, g):
    axis = n.attrs["axis"]
    sections = [meta[0][axis] for meta in n.in_meta]
    return split(g, sections, axis)


CONCAT = register("concat", lambda *xs, axis: np.concatenate(xs, axis=axis), _concat_vjp,
                  legacy_name="ConcatBackward",
                  examples=[([(1, 2), (3, 2)], {"axis": 0}), ([(2, 1), (2, 2), (2, 3)], {"axis": 1})], saves_inputs=False)


def concat(xs, axis):
    return apply(CONCAT, tuple(xs), {"axis": int(axis)})


def _split_fwd(x, sections, axis):
    cuts = np.cumsum(sections)[:-1]
    return tuple(np.array(p) for p in np.split(x, cuts, axis=axis))


SPLIT = register("split", _split_fwd, lambda n, *gs: concat(gs, n.attrs["axis"]),
                 n_outputs=None, legacy_name="SplitBackward",
                 examples=[([(2, 3)], {"sections": (1, 2), "axis": 1}),
                           ([(4, 2)], {"sections": (2, 2), "axis": 0})], saves_inputs=False)


def split(x, sections, axis):
    """Cut ``x`` along ``axis`` into pieces of the given sizes (they sum to the axis size)."""
    return apply(SPLIT, (x,), {"sections": tuple(int(s) for s in sections), "axis": int(axis)})


STACK = register("stack", lambda *xs, axis: np.stack(xs, axis=axis),
                 lambda n, g: unbind(g, n.attrs["axis"]),
                 legacy_name="StackBackward",
                 examples=[([(2, 3), (2, 3)], {"axis": 0}), ([(3,), (3,), (3,)], {"axis": 1})], saves_inputs=False)


def stack(xs, axis):
    return apply(STACK, tuple(xs), {"axis": int(axis)})


def _unbind_fwd(x, axis):
    return tuple(np.array(np.take(x, i, axis=axis)) for i in range(x.shape[axis]))


UNBIND = register("unbind", _unbind_fwd, lambda n, *gs: stack(gs, n.attrs["axis"]),
                  n_outputs=None, legacy_name="UnbindBackward",
                  examples=[([(2, 3)], {"axis": 0}), ([(2, 3, 2)], {"axis": 1})], saves_inputs=False)


def unbind(x, axis):
    return apply(UNBIND, (x,), {"axis": int(axis)})


# ---------------------------------------------------------------- copies: expand, tile
def _expand_fwd(x, shape):
    return np.array(np.broadcast_to(x, shape))


def _expand_vjp(n, g):
    from .broadcast import sum_to

    return sum_to(g, n.in_meta[0][0], order="first")


EXPAND = register("expand", _expand_fwd, _expand_vjp, legacy_name="ExpandBackward",
                  examples=[([(2, 1)], {"shape": (2, 3)}), ([(3,)], {"shape": (2, 2, 3)})], saves_inputs=False)


def expand(x, shape):
    """``x`` broadcast to ``shape`` (fully resolved) as a copy: Paddle's expand_v2."""
    return apply(EXPAND, (x,), {"shape": tuple(shape)})


def _tile_vjp(n, g):
    """Each input element was copied once per tile: sum the tiles back.

    The gradient (shape r0*s0, r1*s1, ...) is viewed as (r0, s0, r1, s1, ...) and summed over
    the repeat axes.
    """
    from .reduce import sum as reduce_sum

    in_shape = n.in_meta[0][0]
    reps = n.attrs["repeat_times"]
    padded = (1,) * (len(reps) - len(in_shape)) + tuple(in_shape)
    inter = []
    for r, s in zip(reps, padded):
        inter += [r, s]
    summed = reduce_sum(reshape(g, inter), tuple(range(0, 2 * len(reps), 2)))
    return reshape(summed, in_shape)


TILE = register("tile", lambda x, repeat_times: np.tile(x, repeat_times), _tile_vjp,
                legacy_name="TileBackward",
                examples=[([(2, 3)], {"repeat_times": (2, 1)}), ([(3,)], {"repeat_times": (2, 2)})], saves_inputs=False)


def tile(x, repeat_times):
    reps = tuple(int(r) for r in repeat_times)
    if len(reps) < x.data.ndim:
        reps = (1,) * (x.data.ndim - len(reps)) + reps
    return apply(TILE, (x,), {"repeat_times": reps})


# ---------------------------------------------------------------- permutations of elements
FLIP = register("flip", lambda x, axis: np.array(np.flip(x, axis)),
                lambda n, g: flip(g, n.attrs["axis"]), legacy_name="FlipBackward",
                examples=[([(2, 3)], {"axis": (0,)}), ([(2, 3, 2)], {"axis": (0, 2)})], saves_inputs=False)


def flip(x, axis):
    return apply(FLIP, (x,), {"axis": tuple(axis)})


def _roll_fwd(x, shifts, axis):
    return np.roll(x, shifts, axis)


def _roll_vjp(n, g):
    return roll(g, tuple(-s for s in n.attrs["shifts"]), n.attrs["axis"])


ROLL = register("roll", _roll_fwd, _roll_vjp, legacy_name="RollBackward",
                examples=[([(2, 3)], {"shifts": (1,), "axis": (1,)}),
                          ([(2, 3)], {"shifts": (2,), "axis": None})], saves_inputs=False)


def roll(x, shifts, axis=None):
    """Shift elements cyclically; ``axis=None`` rolls the flattened tensor."""
    return apply(ROLL, (x,), {"shifts": tuple(shifts), "axis": None if axis is None else tuple(axis)})


# ---------------------------------------------------------------- constant padding
def _pad_fwd(x, pad_width, value=0.0):
    return np.pad(x, pad_width, mode="constant", constant_values=np.asarray(value, x.dtype))


def _pad_vjp(n, g):
    from .index import slice_

    in_shape = n.in_meta[0][0]
    index = tuple(slice(b, b + s) for (b, _a), s in zip(n.attrs["pad_width"], in_shape))
    return slice_(g, index)


PAD = register("pad", _pad_fwd, _pad_vjp, legacy_name="PadBackward",
               examples=[([(2, 3)], {"pad_width": ((1, 0), (2, 1)), "value": 0.5})], saves_inputs=False)


def pad(x, pad_width, value=0.0):
    """Constant padding: ``pad_width`` is one (before, after) pair of non-negative ints per axis."""
    pw = tuple((int(b), int(a)) for b, a in pad_width)
    return apply(PAD, (x,), {"pad_width": pw, "value": value})


# ---------------------------------------------------------------- triangular parts
def _tri_fwd(x, diagonal=0, lower=True):
    return np.tril(x, diagonal) if lower else np.triu(x, diagonal)


TRIL = register("tril", lambda x, diagonal=0: _tri_fwd(x, diagonal, True),
                lambda n, g: tril(g, n.attrs["diagonal"]), legacy_name="TrilBackward",
                examples=[([(3, 3)], {"diagonal": 0}), ([(2, 3, 4)], {"diagonal": -1})])
TRIU = register("triu", lambda x, diagonal=0: _tri_fwd(x, diagonal, False),
                lambda n, g: triu(g, n.attrs["diagonal"]), legacy_name="TriuBackward",
                examples=[([(3, 3)], {"diagonal": 0}), ([(4, 3)], {"diagonal": 1})])


def tril(x, diagonal=0):
    """The lower triangle of the last two axes (above ``diagonal`` zeroed); gradient likewise."""
    return apply(TRIL, (x,), {"diagonal": int(diagonal)})


def triu(x, diagonal=0):
    return apply(TRIU, (x,), {"diagonal": int(diagonal)})


# ---------------------------------------------------------------- copies
ASSIGN = register("assign", lambda x: np.array(x), lambda n, g: g, legacy_name="AssignBackward",
                  examples=[([(2, 3)], {}), ([()], {})])


def assign(x):
    """A copy of ``x`` that stays in the graph (Paddle's ``assign``/``clone``)."""
    return apply(ASSIGN, (x,))
