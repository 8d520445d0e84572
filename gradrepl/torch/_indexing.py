"""``x[index]`` and ``x[index] = value`` as torch builds them.

Reading: the basic part of the index becomes one node per step, as torch's indexing does:
an integer is a ``select`` (SelectBackward0, the dimension goes away), a slice that is not the
whole dimension a ``slice`` (SliceBackward0), ``None`` an ``unsqueeze``; an index that reads
everything (``x[...]``, ``x[:, :]``) is an alias (AliasBackward0). Integer lists, integer or
boolean tensors are then applied together as one advanced ``index`` (IndexBackward0).

Writing: into the tensor's own memory (views see it). When a gradient is involved the tensor
takes a new place in the graph, a ``CopySlices`` node, as torch's does.
"""
from __future__ import annotations

import numpy as np

from ..engine import grad_mode
from ..engine.registry import apply
from . import _bfloat16, _view_meta
from ._base import EngineTensor, raw
from ._ops import top
from ._tensor import Tensor

_STATE = grad_mode.STATE
_wrap = Tensor._wrap

SELECT = top("slice", "SelectBackward0", "none")
SLICE = top("slice", "SliceBackward0", "none")
STRIDED = top("strided_slice", "SliceBackward0", "none")
ALIAS = top("slice", "AliasBackward0", "none")
UNSQUEEZE = top("unsqueeze", "UnsqueezeBackward0", "none")
INDEX = top("index_elementwise_get", "IndexBackward0", "other")


def _copying(op):
    """``op`` whose gradient is torch's select/slice backward: zeros with the gradient copied
    in, so a -0 stays -0 (the engine's scatter-add, shared with Paddle, gives +0 there)."""
    add_vjp = op.vjp

    def vjp(n, g):
        out = add_vjp(n, g)
        index = n.attrs.get("index", ())
        if not grad_mode.is_grad_enabled() and out is not None and not any(
                isinstance(i, np.ndarray) for i in index):
            arr = out.data
            arr[index] = g.data           # (the same values; only the zeros' signs change)
        return out

    op.vjp = vjp
    return op


for _op in (SELECT, SLICE, STRIDED, ALIAS):
    _copying(_op)


def _is_advanced(i):
    if isinstance(i, EngineTensor):
        return raw(i).ndim > 0 or raw(i).dtype.kind == "b"
    return isinstance(i, (list, np.ndarray)) and not isinstance(i, (bool, np.bool_))


def _as_int(i):
    if isinstance(i, EngineTensor):
        a = raw(i)
        if a.dtype.kind not in "iu":
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        return int(a)
    return int(i)


def _is_int(i):
    if isinstance(i, (bool, np.bool_)):
        return False
    if isinstance(i, (int, np.integer)):
        return True
    return isinstance(i, EngineTensor) and raw(i).ndim == 0 and raw(i).dtype.kind in "iu"


def _consumes(i):
    """How many dims of the tensor an index element uses."""
    if i is None or i is Ellipsis:
        return 0
    if isinstance(i, EngineTensor) and raw(i).dtype.kind == "b":
        return max(raw(i).ndim, 1) if raw(i).ndim else 0
    if isinstance(i, (np.ndarray,)) and i.dtype.kind == "b":
        return i.ndim
    if isinstance(i, (bool, np.bool_)):
        return 0
    return 1


def _check_step(s):
    if s.step is not None and int(s.step) <= 0:
        if int(s.step) == 0:
            raise ValueError("slice step cannot be zero")
        raise ValueError("step must be greater than zero")


def _view_link(out, base):
    out._alias = base
    return out


# x[t] with one int64/int32 index tensor of in-range values (a lecture's ``C[X[ix]]``): the
# advanced index the loop below builds, without its per-element checks and numpy passes
_UNSIGNED = {np.dtype(np.int64): np.uint64, np.dtype(np.int32): np.uint32}


def getitem(x, index):
    if isinstance(index, EngineTensor):
        arr = raw(index)
        u = _UNSIGNED.get(arr.dtype)
        if u is not None and arr.ndim:
            shape = raw(x).shape
            # (as unsigned, a negative index is out of range too: the loop handles both)
            if shape and not np.count_nonzero(arr.view(u) >= shape[0]):
                return apply(INDEX, (x,), {"index": (arr.astype(np.int64),)})
    lone_slice = isinstance(index, slice)  # x[:] is a slice even when it takes everything
    if not isinstance(index, tuple):
        index = (index,)
    a = raw(x)
    ndim = a.ndim
    used = sum(_consumes(i) for i in index)
    if used > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    if sum(1 for i in index if i is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    cur = x
    dim = 0
    advanced = []  # (dim in the current tensor, index array)
    applied = False
    for i in index:
        shape = raw(cur).shape
        if i is None:
            cur = apply(UNSQUEEZE, (cur,), {"axis": (dim,), "shape": shape[:dim] + (1,) +
                                            shape[dim:]})
            dim += 1
            applied = True
        elif i is Ellipsis:
            dim += ndim - used
        elif _is_int(i):
            k = _as_int(i)
            n = shape[dim]
            if not -n <= k < n:
                raise IndexError(f"index {k} is out of bounds for dimension {dim} with size {n}")
            idx = (slice(None),) * dim + (k % n,)
            cur = apply(SELECT, (cur,), {"index": idx})
            applied = True
        elif isinstance(i, slice):
            _check_step(i)
            n = shape[dim]
            start, stop, step = i.indices(n)
            if lone_slice or not (start == 0 and stop >= n and step == 1):
                idx = (slice(None),) * dim + (slice(start, stop, step),)
                cur = apply(STRIDED if step != 1 else SLICE, (cur,), {"index": idx})
                applied = True
            dim += 1
        elif isinstance(i, (bool, np.bool_)) or (isinstance(i, EngineTensor) and raw(i).ndim == 0
                                                   and raw(i).dtype.kind == "b"):
            # a 0-d bool tensor indexes as the Python bool it holds (torch: x[x > 2] on a 0-d x)
            cur = apply(UNSQUEEZE, (cur,), {"axis": (dim,), "shape": shape[:dim] + (1,) +
                                            shape[dim:]})
            advanced.append((dim, np.zeros(1 if bool(raw(i) if isinstance(i, EngineTensor)
                                                     else i) else 0, np.int64)))
            dim += 1
            applied = True
        else:
            arr = raw(i) if isinstance(i, EngineTensor) else np.asarray(i)
            if arr.dtype.kind == "b":
                for k in range(arr.ndim):
                    if arr.shape[k] != shape[dim + k]:
                        raise IndexError(f"The shape of the mask {list(arr.shape)} at index {k} "
                                         f"does not match the shape of the indexed tensor "
                                         f"{list(shape)} at index {dim + k}")
                for k, nz in enumerate(np.nonzero(arr)):
                    advanced.append((dim + k, nz.astype(np.int64)))
                dim += arr.ndim
            else:
                if arr.dtype.kind not in "iu":
                    raise IndexError("tensors used as indices must be long, int, byte or bool "
                                     "tensors")
                n = shape[dim]
                bad = (arr >= n) | (arr < -n)
                if bad.any():
                    raise IndexError(f"index {int(arr[bad].reshape(-1)[0])} is out of bounds for "
                                     f"dimension {dim} with size {n}")
                advanced.append((dim, np.where(arr < 0, arr + n, arr).astype(np.int64)))
                dim += 1
    if advanced:
        shape = raw(cur).shape
        idx = [slice(None)] * len(shape)
        for d, arr in advanced:
            idx[d] = arr
        while idx and isinstance(idx[-1], slice):
            idx.pop()
        return apply(INDEX, (cur,), {"index": tuple(idx)})
    if not applied:
        cur = apply(ALIAS, (cur,), {"index": (Ellipsis,)})
    return _view_link(cur, x) if cur is not x else cur


def _np_index(index):
    """A torch index as a numpy one (tensors to arrays)."""
    if not isinstance(index, tuple):
        index = (index,)
    out = []
    for i in index:
        if isinstance(i, EngineTensor):
            a = raw(i)
            out.append(int(a) if a.ndim == 0 and a.dtype.kind in "iu" else a)
        elif isinstance(i, slice):
            _check_step(i)
            out.append(i)
        elif isinstance(i, list):
            out.append(np.asarray(i))
        else:
            out.append(i)
    return tuple(out)


def _bounds(x, index):
    a = raw(x)
    dim = 0
    used = sum(_consumes(i) for i in index)
    if used > a.ndim:
        raise IndexError(f"too many indices for tensor of dimension {a.ndim}")
    for i in index:
        if i is Ellipsis:
            dim += a.ndim - used
        elif i is None:
            continue
        elif isinstance(i, (int, np.integer)) and not isinstance(i, bool):
            n = a.shape[dim]
            if not -n <= i < n:
                raise IndexError(f"index {i} is out of bounds for dimension {dim} with size {n}")
            dim += 1
        else:
            dim += _consumes(i)


def setitem(x, index, value):
    from . import _inplace

    idx = _np_index(index)
    _bounds(x, idx)
    a = raw(x)
    v_is_tensor = isinstance(value, EngineTensor)
    grad_needed = _STATE.enabled and (not x.stop_gradient or (v_is_tensor and
                                                               not value.stop_gradient))
    if grad_needed and (x._view_meta is not None or x.grad_node is not None):
        # (a view made under no_grad ...: torch's error names the view it writes through)
        _view_meta.check_inplace(x, None if x.stop_gradient else _view_meta.sub_view_name(index))
    if _STATE.enabled and not x.stop_gradient and x.grad_node is None:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an "
                           "in-place operation.")
    _inplace.check_view_of_leaf(x)
    if v_is_tensor:
        v = raw(value)
        if v.dtype != a.dtype:  # (bfloat16's bits converted as values, either side)
            v = _bfloat16.astype(v, a.dtype)
    else:
        v = np.asarray(value)
        if a.dtype.kind in "iu" and a.dtype != _bfloat16.BITS and v.dtype.kind == "f":
            v = np.trunc(v)
        v = _bfloat16.astype(v, a.dtype)
    lead = 0  # torch drops the value's leading size-1 dims first (t[0] = ones(1, 3) works)
    while lead < v.ndim and v.shape[lead] == 1:
        lead += 1
    if lead:
        v = v.reshape(v.shape[lead:])
        if v_is_tensor and not value.stop_gradient:
            value = value.reshape(v.shape)
    target_shape = np.empty(a.shape, bool)[idx].shape
    try:
        np.broadcast_to(v, target_shape)
    except ValueError:
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(v.shape)} cannot be "
                           f"broadcast to indexing result of shape {list(target_shape)}") \
            from None
    if not grad_needed:
        if any(isinstance(i, np.ndarray) for i in idx):
            from . import _storage

            if _storage.warn_expanded(a, "index_put_") and not v_is_tensor and any(
                    isinstance(i, np.ndarray) and i.dtype.kind == "b" for i in idx):
                _storage.warn_expanded(a, "masked_fill_")
        _inplace.write_at(x, idx, v)
        return
    old = _inplace.snapshot(x)
    if v_is_tensor and not value.stop_gradient:
        vt = value if raw(value).dtype == a.dtype else _wrap(v, True)
        r = apply(top("set_value_with_tensor", "CopySlices", "none"), (old, vt),
                  {"index": idx})
    else:
        r = apply(top("set_value", "CopySlices", "none"), (old,), {"index": idx, "value": v})
    _inplace.take_place(x, r, old)



def select(input, dim, index):  # noqa: A002
    """``torch.select``: the slice at ``index`` of dim ``dim`` (SelectBackward0)."""
    from ._tensor import _dim

    a = raw(input)
    if a.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = _dim(dim, a.ndim)
    n = a.shape[d]
    if not -n <= index < n:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{list(a.shape)} at dimension {d}")
    return getitem(input, (slice(None),) * d + (int(index),))
