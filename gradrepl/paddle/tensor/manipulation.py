"""Shape manipulation of the ``paddle`` namespace (also bound as Tensor methods).

Each function normalises Paddle's arguments (negative axes, ``0``/``-1`` in shapes, sections
given as a count or a list with one ``-1``), raises Paddle's exception type with Paddle's wording
when they are invalid, and calls one engine op.
"""
from __future__ import annotations

import numpy as np

from ...engine.ops import index as I
from ...engine.ops import shape as S
from ...engine.tensor import Tensor as _T
from .. import profiles
from ..core import Tensor, as_tensor
from ._args import axis_list, shape_list
from ..saved import view_op

__all__ = ["reshape", "reshape_", "transpose", "t", "squeeze", "squeeze_", "unsqueeze",
           "unsqueeze_", "flatten", "concat", "stack", "split", "chunk", "unbind", "expand",
           "expand_as", "broadcast_to", "tile", "flip", "roll", "gather", "gather_nd",
           "index_select", "masked_select", "take_along_axis", "scatter", "moveaxis",
           "slice", "strided_slice", "unstack"]
__methods__ = ["reshape", "reshape_", "transpose", "t", "squeeze", "squeeze_", "unsqueeze",
               "unsqueeze_", "flatten", "split", "chunk", "unbind", "expand", "expand_as",
               "broadcast_to", "tile", "flip", "roll", "gather", "gather_nd", "index_select",
               "masked_select", "take_along_axis", "scatter", "moveaxis", "unstack"]


def _axis(a, ndim, what="axis"):
    """A single Paddle axis (negative counts from the end) -> non-negative, or ValueError."""
    a = int(a.item()) if isinstance(a, _T) else int(a)
    n = max(ndim, 1)
    if not -n <= a < n:
        raise ValueError(
            f"(InvalidArgument) The {what} is expected to be in range of [{-n}, {n}), but got {a}")
    return a % n


def _restore_0d(t):
    """Paddle 2.2 has no 0-D tensors: a 0-D result becomes shape [1] there."""
    if t.data.ndim == 0 and not profiles.current().zero_d:
        return S.reshape(t, (1,))
    return t


# ---------------------------------------------------------------- reshape
def _reshape_target(src, shape):
    """Resolve Paddle's reshape shape (0 copies the input dim, one -1 is inferred)."""
    shape = list(shape)
    size = int(np.prod(src, dtype=np.int64))
    for i, s in enumerate(shape):
        if s == 0:
            if i >= len(src):
                raise ValueError(
                    f"(InvalidArgument) The index of 0 in `shape` must be less than the input "
                    f"tensor X's dimensions. But received shape = {shape}, shape[{i}] = 0, X's "
                    f"shape = {list(src)}, X's dimensions = {len(src)}.")
            shape[i] = src[i]
    unknown = [i for i, s in enumerate(shape) if s == -1]
    if len(unknown) > 1:
        raise ValueError(
            f"(InvalidArgument) Only one dimension value of 'shape' in ReshapeOp can be -1. But "
            f"received shape = {list(shape)}, shape[{unknown[1]}] is also -1.")
    for i, s in enumerate(shape):
        if s < -1:
            raise ValueError(
                f"(InvalidArgument) Each dimension value of 'shape' in ReshapeOp must not be "
                f"negative except one unknown dimension. But received shape = {list(shape)}, "
                f"shape[{i}] = {s}.")
    known = int(np.prod([s for s in shape if s != -1], dtype=np.int64))
    if unknown:
        if known == 0 or size % known:
            raise ValueError(
                f"(InvalidArgument) The 'shape' attribute in ReshapeOp is invalid. The input tensor "
                f"X'size must be divisible by known capacity of 'shape'. But received X's shape = "
                f"{list(src)}, X's size = {size}, 'shape' is {list(shape)}, known capacity of "
                f"'shape' is {known}.")
        shape[unknown[0]] = size // known
    elif known != size:
        raise ValueError(
            f"(InvalidArgument) The 'shape' in ReshapeOp is invalid. The input tensor X'size must "
            f"be equal to the capacity of 'shape'. But received X's shape = {list(src)}, X's size "
            f"= {size}, 'shape' is {list(shape)}, the capacity of 'shape' is {known}.")
    return tuple(shape)


@view_op
def reshape(x, shape, name=None):
    return S.reshape(x, _reshape_target(x.data.shape, shape_list(shape)))


def _in_place_view(x, compute):
    from .indexing import inplace_view

    return inplace_view(x, compute)


def reshape_(x, shape, name=None):
    return _in_place_view(x, lambda v: reshape(v, shape))


@view_op
def transpose(x, perm, name=None):
    perm = [int(p) for p in shape_list(perm)]
    nd = x.data.ndim
    if len(perm) != nd:
        raise ValueError(
            f"(InvalidArgument) The input tensor's dimension should be equal to or greater than "
            f"the axis's size. But received input tensor's dimension is {nd}, axis's size is "
            f"{len(perm)}")
    for i, p in enumerate(perm):
        if not -nd <= p < nd:
            raise ValueError(
                f"(InvalidArgument) The reduce dim index {i} should be in the range [ "
                f"-dimension(X), dimension(X) ) which dimension = {nd}. But received dim index = "
                f"{p}.")
    perm = [p % nd for p in perm]
    for i, p in enumerate(perm):
        if p in perm[:i]:
            raise ValueError(f"(InvalidArgument) Each element of axis should be unique. but "
                             f"axis[{i}] is {p} appear not only once")
    return S.transpose(x, perm)


@view_op
def t(input, name=None):  # noqa: A002
    if input.data.ndim > 2:
        raise ValueError(
            "Input(input) only support N-D (N<=2) tensor, but received length of Input(input) "
            f"is {input.data.ndim}. Perhaps you can use paddle.tensor.transpose() instead.")
    if input.data.ndim < 2:
        return input
    return S.transpose(input, (1, 0))


@view_op
def moveaxis(x, source, destination, name=None):
    src = axis_list(source)
    dst = axis_list(destination)
    src = [src] if isinstance(src, int) else src
    dst = [dst] if isinstance(dst, int) else dst
    if len(src) != len(dst):
        raise AssertionError("'source' must have the same number with 'destination'")
    nd = x.data.ndim
    src = [_axis(s, nd) for s in src]
    dst = [_axis(d, nd) for d in dst]
    perm = [a for a in range(nd) if a not in src]
    for d, s in sorted(zip(dst, src)):
        perm.insert(d, s)
    return S.transpose(x, perm)


# ---------------------------------------------------------------- squeeze / unsqueeze / flatten
@view_op
def squeeze(x, axis=None, name=None):
    """Remove size-1 axes: all of them, or those listed in ``axis`` (others are kept silently)."""
    shape = x.data.shape
    nd = x.data.ndim
    if axis is None:
        axes = [i for i, s in enumerate(shape) if s == 1]
    else:
        axes = axis_list(axis)
        axes = [axes] if isinstance(axes, int) else axes
        for a in axes:
            if nd and not -nd <= a < nd:
                raise ValueError(
                    f"(InvalidArgument) Each axis in Attr(axes) should be in the range of "
                    f"[{-nd}, {nd - 1}]But current axis is:{a}, input tensor's shape = "
                    f"{list(shape)}.")
        axes = sorted({a % nd for a in axes if shape[a % nd] == 1}) if nd else []
    return _restore_0d(S.squeeze(x, axes))


def squeeze_(x, axis=None, name=None):
    return _in_place_view(x, lambda v: squeeze(v, axis))


@view_op
def unsqueeze(x, axis, name=None):
    """Insert size-1 axes; each listed axis counts in the shape built so far (Paddle's rule)."""
    axes = axis_list(axis)
    axes = [axes] if isinstance(axes, int) else axes
    slots = [False] * x.data.ndim  # False: an input axis, True: an inserted one
    for a in axes:
        rank = len(slots) + 1
        if not -rank <= a < rank:
            if a >= rank:
                raise ValueError("(InvalidArgument) The insert dimension value should not be "
                                 "larger than the dimension size of input tensor")
            raise ValueError("(InvalidArgument) The insert dimension value should not be less "
                             "than 0")
        slots.insert(a % rank, True)
    return S.unsqueeze(x, [i for i, new in enumerate(slots) if new])


def unsqueeze_(x, axis, name=None):
    return _in_place_view(x, lambda v: unsqueeze(v, axis))


@view_op
def flatten(x, start_axis=0, stop_axis=-1, name=None):
    nd = x.data.ndim
    if nd == 0:
        return S.flatten(x, 0, 0)
    for what, a in (("start_axis", start_axis), ("stop_axis", stop_axis)):
        if not -nd <= int(a) < nd:
            raise ValueError(f"The {what} should be a int, and in range [-rank(x), rank(x))")
    start, stop = int(start_axis) % nd, int(stop_axis) % nd
    if start > stop:
        raise ValueError("The stop_axis should be larger than stat_axis")
    return S.flatten(x, start, stop)


# ---------------------------------------------------------------- joins
def _tensors(xs):
    return [as_tensor(v) for v in xs]


def _check_same_dims(xs, axis, skip_axis):
    s0 = xs[0].data.shape
    for k, t in enumerate(xs[1:], 1):
        s = t.data.shape
        if len(s) != len(s0):
            raise ValueError(
                f"(InvalidArgument) The shape of input[0] and input[{k}] is expected to be equal."
                f"But received input[0]'s shape = {list(s0)}, input[{k}]'s shape = {list(s)}.")
        for j in range(len(s0)):
            if (j != axis or not skip_axis) and s[j] != s0[j]:
                raise ValueError(
                    f"(InvalidArgument) The {j}-th dimension of input[0] and input[{k}] is "
                    f"expected to be equal.But received input[0]'s shape = {list(s0)}, "
                    f"input[{k}]'s shape = {list(s)}.")


def _same_dtypes(xs, op):
    """concat and stack refuse mixed dtypes (no promotion), each in its own words."""
    d0 = xs[0].data.dtype
    for k, t in enumerate(xs[1:], 1):
        d = t.data.dtype
        if d == d0:
            continue
        if op == "concat":   # (phi/api/lib/kernel_dispatch.cc's check, measured 3.3.1/2.6.2)
            line = 133 if profiles.current().api3 else 134
            raise ValueError(
                f"(InvalidArgument) The data_type of input tensor in list isn't consistent, the "
                f"first tensor is {d0.name}, but {k}th tensor is {d.name}. (at "
                f"/paddle/paddle/phi/api/lib/kernel_dispatch.cc:{line})\n")
        raise ValueError(
            f"(InvalidArgument) The type of data we are trying to retrieve ({d0.name}) does not "
            f"match the type of data ({d.name}) currently contained in the container.")
    return xs


def concat(x, axis=0, name=None):
    xs = _same_dtypes(_tensors(x), "concat")
    nd = xs[0].data.ndim
    if nd == 0:
        raise ValueError("(InvalidArgument) The input tensors of concat must be at least 1-D, "
                         "got 0-D tensors")
    axis = _axis(axis, nd)
    _check_same_dims(xs, axis, True)
    return S.concat(xs, axis)


def stack(x, axis=0, name=None):
    xs = _same_dtypes(_tensors(x), "stack")
    rank = xs[0].data.ndim
    if not -(rank + 1) <= int(axis) < rank + 1:
        raise ValueError(f"(InvalidArgument) Attr(axis) must be inside [-(rank+1), rank+1), "
                         f"where rank = {rank}, but received axis is:{int(axis)}")
    axis = int(axis) % (rank + 1)
    _check_same_dims(xs, axis, False)
    return S.stack(xs, axis)


# ---------------------------------------------------------------- splits
def _sections(n, num_or_sections, shape, axis):
    """Section sizes of a split: a count that divides ``n``, or a list with at most one -1."""
    if isinstance(num_or_sections, _T):
        num_or_sections = num_or_sections.tolist()
    if isinstance(num_or_sections, (int, np.integer)):
        num = int(num_or_sections)
        if num <= 0 or n % num:
            raise ValueError(
                f"(InvalidArgument) The input's size along the split dimension must be evenly "
                f"divisible by Attr(num_or_sections). But received Attr(num_or_sections) = {num}, "
                f"input(X)'s shape = {list(shape)}, Attr(dim) = {axis}.")
        return [n // num] * num
    secs = [int(s.item()) if isinstance(s, _T) else int(s) for s in num_or_sections]
    unknown = [i for i, s in enumerate(secs) if s == -1]
    if len(unknown) > 1:
        raise ValueError(
            f"(InvalidArgument) Only one dimension value of Attr(num_or_sections) in SplitOp can "
            f"be -1. But received Attr(num_or_sections) = {secs}.")
    known = sum(s for s in secs if s != -1)
    if unknown:
        if known > n:
            raise ValueError(
                f"(InvalidArgument) Sum of Attr(num_or_sections) other than unknown section must "
                f"be less than or equal to input's size along the split dimension. But received "
                f"Attr(num_or_sections) = {secs}, input(X)'s shape = {list(shape)}, "
                f"Attr(dim) = {axis}.")
        secs[unknown[0]] = n - known
    elif known != n:
        raise ValueError(
            f"(InvalidArgument) Sum of Attr(num_or_sections) must be equal to the input's size "
            f"along the split dimension. But received Attr(num_or_sections) = {secs}, input(X)'s "
            f"shape = {list(shape)}, Attr(dim) = {axis}.")
    return secs


def split(x, num_or_sections, axis=0, name=None):
    nd = x.data.ndim
    axis = _axis(axis, nd)
    secs = _sections(x.data.shape[axis], num_or_sections, x.data.shape, axis)
    return list(S.split(x, secs, axis))


def chunk(x, chunks, axis=0, name=None):
    chunks = int(chunks)
    if profiles.current().error_wording == "3":
        n = x.data.shape[_axis(axis, x.data.ndim)]
        if not 0 < chunks <= n:
            raise ValueError(
                f"The value of 'chunks' must be greater than 0 and less than or equal to the size "
                f"of the dimension specified by 'axis', but received chunks={chunks} and "
                f"x.shape[axis]={n}.")
    return split(x, chunks, axis)


@view_op
def unbind(input, axis=0):  # noqa: A002
    nd = input.data.ndim
    if not -nd <= int(axis) < nd:
        raise ValueError(f"The axis must in range({-nd}, {nd}).")
    axis = int(axis) % nd
    return [_restore_0d(t) for t in S.unbind(input, axis)]


def unstack(x, axis=0, num=None):
    return unbind.__wrapped__(x, axis)  # (copies: unstack is no view op)


# ---------------------------------------------------------------- copies
def _expand_shape(x, shape):
    src = x.data.shape
    shape = list(shape_list(shape))
    if len(shape) < len(src):
        raise ValueError(
            f"(InvalidArgument) The number of elements ({len(shape)}) of 'shape' for expand_v2 op "
            f"must be greater than or equal to the rank ({len(src)}) of the input.")
    lead = len(shape) - len(src)
    for i, s in enumerate(shape):
        d = src[i - lead] if i >= lead else 1
        if s == -1:
            if i < lead:
                raise ValueError("(InvalidArgument) The expanded size (-1) for non-existing "
                                 "dimensions must be positive for expand_v2 op.")
            shape[i] = d
        elif d != 1 and d != s:
            raise ValueError(
                f"(InvalidArgument) The value ({d}) of the non-singleton dimension does not match "
                f"the corresponding value ({s}) in shape for expand_v2 op.")
    return tuple(shape)


def expand(x, shape, name=None):
    return S.expand(x, _expand_shape(x, shape))


def broadcast_to(x, shape, name=None):
    return S.expand(x, _expand_shape(x, shape))


def expand_as(x, y, name=None):
    return S.expand(x, _expand_shape(x, y.data.shape))


def tile(x, repeat_times, name=None):
    reps = shape_list(repeat_times)
    for r in reps:
        if r <= 0:
            raise ValueError(f"(InvalidArgument) All elements of the input 'repeat_times' for "
                             f"tile op must be positive integers, but the value received is {r}.")
    return S.tile(x, reps)


def flip(x, axis, name=None):
    axes = axis_list(axis)
    axes = [axes] if isinstance(axes, int) else axes
    nd = x.data.ndim
    for a in axes:
        if a >= nd:
            raise ValueError(
                f"(InvalidArgument) min(axes) should be less than the input tensor X's axes of "
                f"FlipOp. But received min(axes) = {a},  X's axes = {nd}, X's shape = "
                f"{list(x.data.shape)}")
        if a < -nd:
            raise ValueError(f"(InvalidArgument) max(axes) should be greater than or equal to "
                             f"-X's axes of FlipOp. But received max(axes) = {a}")
    return S.flip(x, tuple(a % nd for a in axes))


def roll(x, shifts, axis=None, name=None):
    if (isinstance(shifts, _T) and shifts.data.ndim and shifts.data.size == 1
            and profiles.current().api3):
        # real 3.3.1 (numpy 2) reads a one-element shifts tensor through its __index__,
        # int(np.array(t)), which numpy refuses for a 1-D array; the C++ binding then reports
        # a SystemError (paddle.fft.fftshift of a 1-D tensor, or along one axis, ends so too)
        try:
            raise TypeError("only 0-dimensional arrays can be converted to Python scalars")
        except TypeError as exc:
            raise SystemError("<built-in function roll> returned a result with an exception "
                              "set") from exc
    sh = axis_list(shifts)
    sh = [sh] if isinstance(sh, int) else sh
    if axis is None:
        return S.roll(x, tuple(sh), None)
    ax = axis_list(axis)
    ax = [ax] if isinstance(ax, int) else ax
    if len(ax) != len(sh):
        raise ValueError(f"(InvalidArgument) When dims.size() != 0, dims.size() should be equal "
                         f"to shifts.size(). But received dims.size() = {len(ax)}, "
                         f"shifts.size() = {len(sh)}")
    return S.roll(x, tuple(sh), tuple(_axis(a, x.data.ndim) for a in ax))


# ---------------------------------------------------------------- gathers
def _index_tensor(index, op="gather", what="Index"):
    if not isinstance(index, _T):
        index = Tensor(np.asarray(index, dtype=np.int64))
    if index.data.dtype.kind not in "iu":
        raise ValueError(f"(InvalidArgument) The data type of Input({what}) of {op} must be "
                         f"int32 or int64 on CPU.")
    return index


def _check_index_range(index, n, axis_size_name="axis"):
    vals = index.data
    if vals.size and (vals.max() >= n or vals.min() < -n):
        bad = int(vals[(vals >= n) | (vals < -n)].reshape(-1)[0])
        raise IndexError(
            f"(OutOfRange) The element of Index must be less than the size of input dim size of "
            f"axis which is {n}, but received index element which is {bad} in the 0 index.")


def gather(x, index, axis=None, name=None):
    index = _index_tensor(index)
    axis = 0 if axis is None else _axis(axis, x.data.ndim)
    if index.data.ndim > 1:
        raise ValueError(f"(InvalidArgument) The index should be 0D or 1D, when it is not 2D, "
                         f"but we get {index.data.ndim}")
    _check_index_range(index, x.data.shape[axis])
    return I.gather(x, index, axis)


def index_select(x, index, axis=0, name=None):
    index = _index_tensor(index, "index_select")
    axis = _axis(axis, x.data.ndim)
    n = x.data.shape[axis]
    vals = index.data
    if vals.size and (vals.max() >= n or vals.min() < -n):
        low = -n if profiles.current().error_wording == "3" else 0
        bad = int(vals[(vals >= n) | (vals < -n)].reshape(-1)[0])
        raise ValueError(
            f"(InvalidArgument) Variable value (index) of OP(index_select) expected >= {low} and "
            f"< {n}, but got {bad}. Please check input value.")
    return I.index_select(x, index, axis)


def gather_nd(x, index, name=None):
    index = _index_tensor(index, "gather_nd")
    k = index.data.shape[-1] if index.data.ndim else 0
    if k > x.data.ndim:
        raise ValueError(f"(InvalidArgument) The last dimension of index ({k}) must be less than "
                         f"or equal to the rank of input ({x.data.ndim}).")
    for j in range(k):
        col = index.data[..., j]
        n = x.data.shape[j]
        if col.size and (col.max() >= n or col.min() < -n):
            raise ValueError(f"(InvalidArgument) Input(index[-1)] has wrong value, it is "
                             f"[{int(col.max())}]")
    return I.gather_nd(x, index)


def masked_select(x, mask, name=None):
    if not isinstance(mask, _T) or mask.data.dtype != np.bool_:
        raise ValueError(
            "(InvalidArgument) The type of data we are trying to retrieve (bool) does not match "
            f"the type of data ({mask.dtype.name if isinstance(mask, _T) else 'float32'}) "
            "currently contained in the container.")
    try:
        np.broadcast_shapes(x.data.shape, mask.data.shape)
    except ValueError:
        raise ValueError(
            f"(InvalidArgument) The shape of mask {list(mask.data.shape)} and x "
            f"{list(x.data.shape)} cannot be broadcast together in masked_select") from None
    return I.masked_select(x, mask)


def take_along_axis(arr, indices, axis, broadcast=True):
    indices = _index_tensor(indices, "take_along_axis", "Indices")
    nd = arr.data.ndim
    if indices.data.ndim != nd:
        raise ValueError("`indices` and `arr` must have the same number of dimensions!")
    axis = _axis(axis, nd)
    if broadcast:
        target = list(np.broadcast_shapes(
            tuple(s for i, s in enumerate(arr.data.shape) if i != axis),
            tuple(s for i, s in enumerate(indices.data.shape) if i != axis)))
        ishape = target[:axis] + [indices.data.shape[axis]] + target[axis:]
        ashape = target[:axis] + [arr.data.shape[axis]] + target[axis:]
        if tuple(ishape) != indices.data.shape:
            indices = Tensor(np.array(np.broadcast_to(indices.data, ishape)))
        if tuple(ashape) != arr.data.shape:
            arr = S.expand(arr, ashape)
    return I.take_along_axis(arr, indices, axis)


def scatter(x, index, updates, overwrite=True, name=None):
    index = _index_tensor(index, "scatter", "Ids")
    return I.scatter(x, index, updates, overwrite)


# ---------------------------------------------------------------- paddle.slice
def slice(input, axes, starts, ends):  # noqa: A001 - Paddle's name
    index = [np.s_[:]] * input.data.ndim
    for a, s, e in zip(shape_list(axes), shape_list(starts), shape_list(ends)):
        index[a] = np.s_[s:e]
    return I.getitem(input, tuple(index))


def strided_slice(x, axes, starts, ends, strides, name=None):
    index = [np.s_[:]] * x.data.ndim
    for a, s, e, st in zip(shape_list(axes), shape_list(starts), shape_list(ends),
                           shape_list(strides)):
        index[a] = np.s_[s:e:st]
    return I.getitem(x, tuple(index))
