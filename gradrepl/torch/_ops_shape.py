"""torch's shape, indexing, search, reduction, statistics and creation functions beyond the core
(``_ops``), and their Tensor methods.

Most are written with the dialect's own functions (``_ops``), so they differentiate through the
engine; the graph shows the last op torch's composite uses too (``trapezoid`` ends in a sum,
``cov`` in a division). Kernels torch writes as loops with an order of their own (``sort``'s
std::sort, ``mode``'s run over a std::sort, ``logcumsumexp``'s running log-add-exp, cummax's
``>=``) are reproduced here. Values stay in the input's dtype.

numpy-style keywords: torch's argument parser takes ``axis`` for ``dim`` and ``keepdims`` for
``keepdim`` everywhere, and ``size=`` for the factories' sizes; ``_aliased`` gives the core
functions and methods that (one shared normaliser, bound over the core names here).
"""
from __future__ import annotations

import builtins as _b
import functools
import inspect
import itertools
import warnings

import numpy as np

from . import (_bfloat16, _creation, _dtypes, _indexing, _moments, _no_derivative, _ops,
               _selection, return_types)
from ._base import EngineTensor, Size, raw
from ._ops import apply, top
from ._tensor import Tensor, _dim
from ..engine.grad_mode import STATE as _GRAD
from ..engine.ops._util import quiet as _quiet

_wrap = Tensor._wrap
_STATE = _ops._STATE


def _t(v):
    return isinstance(v, EngineTensor)


def _np(v):
    return raw(v) if isinstance(v, EngineTensor) else np.asarray(v)


def _long(arr):
    return _wrap(np.array(arr, np.int64, order="C"), True)


def _dims_list(dims, ndim):
    if dims is None:
        return list(range(ndim))
    if isinstance(dims, (int, np.integer)):
        return [_dim(dims, ndim)]
    return [_dim(d, ndim) for d in dims]


for _name, _fields in (("cummax", ("values", "indices")), ("cummin", ("values", "indices")),
                       ("nanmedian", ("values", "indices")),
                       ("histogram", ("hist", "bin_edges")),
                       ("histogramdd", ("hist", "bin_edges"))):
    if not hasattr(return_types, _name):
        setattr(return_types, _name, return_types._make(_name, _fields))


# ------------------------------------------------------------------------------ shapes
def ravel(input):  # noqa: A002
    return _ops.reshape(input, (-1,))


def flipud(input):  # noqa: A002
    if raw(input).ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return _ops.flip(input, (0,))


def fliplr(input):  # noqa: A002
    if raw(input).ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return _ops.flip(input, (1,))


def rot90(input, k=1, dims=(0, 1)):  # noqa: A002
    a = raw(input)
    dims = list(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if a.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {a.ndim}")
    d0, d1 = _dim(dims[0], a.ndim), _dim(dims[1], a.ndim)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and "
                           f"dim1 = {d1}")
    k = k % 4
    if k == 1:
        return _ops.transpose(_ops.flip(input, (d1,)), d0, d1)
    if k == 2:
        return _ops.flip(input, (d0, d1))
    if k == 3:
        return _ops.transpose(_ops.flip(input, (d0,)), d0, d1)
    return _ops.clone(input)


def _seq(tensors):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return list(tensors[0]), True
    return list(tensors), len(tensors) != 1


def _atleast(n):
    def fn(*tensors):
        ts, many = _seq(tensors)
        out = []
        for t in ts:
            a = raw(t)
            if a.ndim >= n:
                out.append(t)
            elif n == 1:
                out.append(_ops.reshape(t, (1,)))
            elif n == 2:
                out.append(_ops.reshape(t, (1, 1)) if a.ndim == 0 else _ops.unsqueeze(t, 0))
            elif a.ndim == 0:
                out.append(_ops.reshape(t, (1, 1, 1)))
            elif a.ndim == 1:
                out.append(_ops.unsqueeze(_ops.unsqueeze(t, 0), -1))
            else:
                out.append(_ops.unsqueeze(t, -1))
        return tuple(out) if many else out[0]
    fn.__name__ = f"atleast_{n}d"
    return fn


atleast_1d, atleast_2d, atleast_3d = _atleast(1), _atleast(2), _atleast(3)


def column_stack(tensors):
    ts = [_ops.reshape(t, (-1, 1)) if raw(t).ndim <= 1 else t for t in tensors]
    return _ops.hstack(ts)


def row_stack(tensors):
    return _ops.vstack(tensors)


def dstack(tensors):
    return _ops.cat(list(atleast_3d(list(tensors))), 2)


def _split_along(name, input, indices_or_sections, d, need):  # noqa: A002
    a = raw(input)
    if a.ndim < need:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {need} dimension, "
                           f"but got a tensor with {a.ndim} dimensions!")
    if isinstance(indices_or_sections, (int, np.integer)):
        n = int(indices_or_sections)
        if n == 0 or a.shape[d] % n:
            raise RuntimeError(f"torch.{name} attempted to split along dimension {d}, but the "
                               f"size of the dimension {a.shape[d]} is not divisible by the "
                               f"split_size {n}!")
    return _ops.tensor_split(input, indices_or_sections, d)


def hsplit(input, indices_or_sections):  # noqa: A002
    d = 0 if raw(input).ndim == 1 else 1
    return _split_along("hsplit", input, indices_or_sections, d, 1)


def vsplit(input, indices_or_sections):  # noqa: A002
    return _split_along("vsplit", input, indices_or_sections, 0, 2)


def dsplit(input, indices_or_sections):  # noqa: A002
    return _split_along("dsplit", input, indices_or_sections, 2, 3)


def broadcast_shapes(*shapes):
    dims = []
    for s in shapes:
        s = (int(s),) if isinstance(s, (int, np.integer)) else tuple(int(v) for v in s)
        dims.append(s)
    n = _b.max((len(s) for s in dims), default=0)
    out = [1] * n
    for s in dims:
        for i, v in enumerate(s):
            j = n - len(s) + i
            if v < 0:
                raise RuntimeError(f"Trying to create tensor with negative dimension {v}: "
                                   f"{list(s)}")
            if out[j] == 1:
                out[j] = v
            elif v != 1 and v != out[j]:
                raise RuntimeError(f"Shape mismatch: objects cannot be broadcast to a single "
                                   f"shape.  Mismatch is between {out[j]} and {v} at dimension "
                                   f"{i}")
    return Size(out)


def broadcast_tensors(*tensors):
    ts, _ = _seq(tensors)
    shape = broadcast_shapes(*[raw(t).shape for t in ts])
    return tuple(t if raw(t).shape == tuple(shape) else _ops.expand(t, tuple(shape))
                 for t in ts)


_MESHGRID_WARNING = ("torch.meshgrid: in an upcoming release, it will be required to pass the "
                     "indexing argument.")


def meshgrid(*tensors, indexing=None):
    ts, _ = _seq(tensors)
    if indexing is None:
        warnings.warn(_MESHGRID_WARNING, UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f"torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but "
                           f"received: {indexing}")
    for t in ts:
        if raw(t).ndim > 1:
            raise RuntimeError("torch.meshgrid: Expected 0D or 1D tensor in the tensor list but "
                               f"got: {t!r}")
    swap = indexing == "xy" and len(ts) >= 2
    if swap:
        ts = [ts[1], ts[0]] + ts[2:]
    sizes = tuple(raw(t).size for t in ts)
    out = []
    for i, t in enumerate(ts):
        view = [1] * len(ts)
        view[i] = -1
        out.append(_ops.expand(_ops.view(t, tuple(view)), sizes))
    if swap:
        out[0], out[1] = out[1], out[0]
    return tuple(out)


def cartesian_prod(*tensors):
    ts, _ = _seq(tensors)
    if len(ts) == 1:
        return ts[0]
    grids = meshgrid(*ts, indexing="ij")
    return _ops.stack([_ops.flatten(g) for g in grids], 1)


def combinations(input, r=2, with_replacement=False):  # noqa: A002
    a = raw(input)
    if a.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(a.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return _wrap(np.zeros((0,), a.dtype), True)
    gen = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    combos = np.array(list(gen(range(a.shape[0]), r)), np.int64).reshape(-1, r)
    cols = [_ops.index_select(input, 0, _long(combos[:, i])) for i in range(r)]
    return _ops.stack(cols, 1)


def block_diag(*tensors):
    ts = []
    for t in tensors:
        a = raw(t)
        if a.ndim > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer "
                               f"dimensions. Input {len(ts)} has {a.ndim} dimensions")
        ts.append(_ops.reshape(t, (1, 1)) if a.ndim == 0 else
                  _ops.reshape(t, (1, -1)) if a.ndim == 1 else t)
    if not ts:
        return _wrap(np.zeros((1, 0), _dtypes.default_float()), True)
    dt = _dtypes.result_type(*ts) if len(ts) > 1 else raw(ts[0]).dtype
    ts = [_ops.to_dtype(t, dt) for t in ts]
    width = _b.sum(raw(t).shape[1] for t in ts)
    rows, left = [], 0
    for t in ts:
        r, c = raw(t).shape
        parts = []
        if left:
            parts.append(_wrap(np.zeros((r, left), dt), True))
        parts.append(t)
        if width - left - c:
            parts.append(_wrap(np.zeros((r, width - left - c), dt), True))
        rows.append(_ops.cat(parts, 1) if len(parts) > 1 else t)
        left += c
    return _ops.cat(rows, 0) if len(rows) > 1 else rows[0]


def diagflat(input, offset=0):  # noqa: A002
    return _ops.diag(_ops.reshape(input, (-1,)), offset)


def diag_embed(input, offset=0, dim1=-2, dim2=-1):  # noqa: A002
    a = raw(input)
    nd = a.ndim + 1
    d1, d2 = _dim(dim1, nd), _dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    n = a.shape[-1] + _b.abs(offset)
    rest = list(a.shape[:-1])
    shape = tuple(n if i in (d1, d2) else rest.pop(0) for i in range(nd))
    return apply(top("diag_embed", "DiagEmbedBackward0", "none"), (input,),
                 {"shape": shape, "offset": int(offset), "axis1": d1, "axis2": d2})


def _scatter_into(input, src, index, name):  # noqa: A002
    """A copy of input with src written at ``index`` (one node, gradients to both)."""
    a = raw(input)
    src = _ops.to_dtype(src, a.dtype) if raw(src).dtype != a.dtype else src
    return apply(top("set_value_with_tensor", name, "none"), (input, src), {"index": index})


def _diag_index(shape, offset, d1, d2):
    n1, n2 = shape[d1], shape[d2]
    if offset >= 0:
        k = _b.max(0, _b.min(n1, n2 - offset))
        r, c = np.arange(k), np.arange(k) + offset
    else:
        k = _b.max(0, _b.min(n1 + offset, n2))
        r, c = np.arange(k) - offset, np.arange(k)
    return r, c


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):  # noqa: A002
    a = raw(input)
    d1, d2 = _dim(dim1, a.ndim), _dim(dim2, a.ndim)
    r, c = _diag_index(a.shape, offset, d1, d2)
    expect = tuple(s for i, s in enumerate(a.shape) if i not in (d1, d2)) + (len(r),)
    if raw(src).shape != expect:
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                           f"{list(raw(src).shape)}, slice size = {list(expect)}")
    # index: the rest of the axes by slices, the diagonal by (r, c); numpy puts the advanced
    # axis first when the two are not adjacent, so write through a moved view of src
    idx = [slice(None)] * a.ndim
    idx[d1], idx[d2] = r, c
    adjacent = _b.abs(d1 - d2) == 1
    s = src
    if adjacent:
        pos = _b.min(d1, d2)
        s = _ops.movedim(src, -1, pos) if raw(src).ndim > 1 else src
    else:
        s = _ops.movedim(src, -1, 0) if raw(src).ndim > 1 else src
    return _scatter_into(input, s, tuple(idx), "DiagonalScatterBackward0")


def select_scatter(input, src, dim, index):  # noqa: A002
    a = raw(input)
    d = _dim(dim, a.ndim)
    i = int(index)
    if not -a.shape[d] <= i < a.shape[d]:
        raise IndexError(f"select(): index {i} out of range for tensor of size {list(a.shape)} "
                         f"at dimension {d}")
    expect = a.shape[:d] + a.shape[d + 1:]
    if raw(src).shape != expect:
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                           f"{list(raw(src).shape)}, slice size = {list(expect)}")
    return _scatter_into(input, src, (slice(None),) * d + (i % a.shape[d],),
                         "SelectScatterBackward0")


def slice_scatter(input, src, dim=0, start=None, end=None, step=1):  # noqa: A002
    a = raw(input)
    d = _dim(dim, a.ndim)
    sl = slice(start, end, step)
    expect = list(a.shape)
    expect[d] = len(range(*sl.indices(a.shape[d])))
    if list(raw(src).shape) != expect:
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                           f"{list(raw(src).shape)}, slice size = {expect}")
    return _scatter_into(input, src, (slice(None),) * d + (sl,), "SliceScatterBackward0")


def _flat_strided_index(size, stride, offset):
    idx = np.full(tuple(size), int(offset), np.int64)
    for k, (n, s) in enumerate(zip(size, stride)):
        shape = [1] * len(size)
        shape[k] = n
        idx = idx + (np.arange(n, dtype=np.int64) * int(s)).reshape(shape)
    return idx


def as_strided(input, size, stride, storage_offset=None):  # noqa: A002
    a = raw(input)
    idx = _flat_strided_index(size, stride, storage_offset or 0)
    if idx.size and (idx.max() >= a.size or idx.min() < 0):
        need = int(idx.max()) + 1
        raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage "
                           f"offset {storage_offset or 0}, and itemsize {a.itemsize} requiring a "
                           f"storage size of {need * a.itemsize} are out of bounds for storage "
                           f"of size {a.size * a.itemsize}")
    flat = _ops.reshape(input, (-1,))
    from . import _storage

    off = input.storage_offset() if storage_offset is None else int(storage_offset)
    r = apply(top("index_elementwise_get", "AsStridedBackward0", "none",
                  forward=_storage.as_strided_fwd), (flat,),
              {"index": (idx,), "view": (tuple(int(s) for s in size),
                                         tuple(int(s) for s in stride), off)})
    r._alias = input  # a view of the storage, as torch's
    return r


def as_strided_copy(input, size, stride, storage_offset=None):  # noqa: A002
    return _ops.clone(as_strided(input, size, stride, storage_offset))


def as_strided_scatter(input, src, size, stride, storage_offset=None):  # noqa: A002
    a = raw(input)
    idx = _flat_strided_index(size, stride, storage_offset or 0)
    flat = _ops.reshape(input, (-1,))
    out = _scatter_into(flat, src, (idx,), "AsStridedScatterBackward0")
    return _ops.reshape(out, a.shape)


def narrow_copy(input, dim, start, length):  # noqa: A002
    return _ops.clone(_ops.narrow(input, dim, start, length))


def _copying(fn):
    def f(*args, **kwargs):
        r = fn(*args, **kwargs)
        if isinstance(r, (tuple, list)):
            return type(r)(_ops.clone(x) for x in r)
        return _ops.clone(r)
    return f


def unravel_index(indices, shape):
    idx = _np(indices)
    if idx.dtype.kind not in "iu":
        raise TypeError(f"expected 'indices' to be integer dtype, but got "
                        f"{_dtypes.from_np(idx.dtype)}")
    shape = (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(s)
                                                                              for s in shape)
    total = int(np.prod(shape)) if shape else 1
    if idx.size and ((idx >= total).any() or (idx < -total).any()):
        raise RuntimeError("index out of bounds")
    flat = np.where(idx < 0, idx + total, idx).astype(np.int64)
    outs = np.unravel_index(flat, shape) if shape else ()
    return tuple(_long(o) for o in outs)


# ------------------------------------------------------------------------------ creation
def _tri_indices(row, col, offset, lower):
    r, c = np.indices((row, col)) if row > 0 and col > 0 else (np.zeros((0, 0), int),) * 2
    keep = (c - r <= offset) if lower else (c - r >= offset)
    return np.stack([r[keep], c[keep]]).astype(np.int64).reshape(2, -1)


def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    out = _tri_indices(int(row), int(col), int(offset), True)
    return _wrap(out.astype(_dtypes.to_np(dtype) if dtype is not None else np.int64), True)


def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    out = _tri_indices(int(row), int(col), int(offset), False)
    return _wrap(out.astype(_dtypes.to_np(dtype) if dtype is not None else np.int64), True)


def _size_of(args, size):
    if size is not None:
        return tuple(int(s) for s in size)
    if len(args) == 1 and isinstance(args[0], (tuple, list, Size)):
        return tuple(int(s) for s in args[0])
    return tuple(int(s) for s in args)


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False,
                  pin_memory=False):
    dt = _creation._dt(dtype)
    size, stride = tuple(int(s) for s in size), tuple(int(s) for s in stride)
    need = 1 + _b.sum((n - 1) * s for n, s in zip(size, stride)) if all(size) else 0
    buf = np.zeros(_b.max(need, 1), dt)
    arr = np.lib.stride_tricks.as_strided(buf, size, tuple(s * buf.itemsize for s in stride))
    return _creation._finish(np.array(arr) if not all(size) else arr, requires_grad)


def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None,
                   requires_grad=False, pin_memory=False):
    size = tuple(int(s) for s in size)
    perm = tuple(int(p) for p in physical_layout)
    if sorted(perm) != list(range(len(size))):
        raise RuntimeError("Dimension out of range")
    dt = _creation._dt(dtype)
    phys = np.zeros(tuple(size[p] for p in perm), dt)
    arr = np.transpose(phys, tuple(int(i) for i in np.argsort(perm)))
    return _creation._finish(arr, requires_grad)


def _resize_(self, *sizes, memory_format=None):
    from . import _inplace
    from ._base import set_raw

    shape = _ops._shape_args(sizes)
    a = raw(self)
    n = int(np.prod(shape)) if shape else 1
    flat = a.reshape(-1)
    data = np.concatenate([flat[:n], np.zeros(_b.max(n - flat.size, 0), a.dtype)])
    set_raw(self, data.reshape(shape))
    _inplace.bump(self)
    return self


def _dim_order(self, *, ambiguity_check=False):
    st = self.stride()
    return tuple(sorted(range(len(st)), key=lambda i: (-st[i], i)))


def scalar_tensor(s, *, dtype=None, layout=None, device=None, requires_grad=False,
                  pin_memory=False):
    dt = _creation._dt(dtype)
    return _creation._finish(np.asarray(s, dt), requires_grad)


def vander(x, N=None, increasing=False):  # noqa: N803 - torch's name
    a = raw(x)
    if a.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = a.shape[0] if N is None else int(N)
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    dt = np.dtype(np.int64) if a.dtype.kind in "iub" else a.dtype
    xx = _ops.to_dtype(x, dt)
    if n == 0:
        return _wrap(np.zeros((a.shape[0], 0), dt), True)
    ones = _wrap(np.ones((a.shape[0], 1), dt), True)
    if n == 1:
        res = ones
    else:
        rep = _ops.expand(_ops.unsqueeze(xx, 1), (a.shape[0], n - 1))
        res = _ops.cumprod(_ops.cat([ones, rep], 1), 1)
    return res if increasing else _ops.flip(res, (1,))


# ------------------------------------------------------------------------------ search
def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None,  # noqa: A002
                 sorter=None, out=None):
    seq = raw(sorted_sequence)
    scalar = not _t(input)
    vals = _np(input)
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but "
                               f"got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, "
                               "got side of left while right was True")
        right = side == "right"
    s = "right" if right else "left"
    srt = None if sorter is None else raw(sorter).astype(np.int64)
    if seq.ndim > 1 and not scalar and seq.shape[:-1] != vals.shape[:-1]:
        raise RuntimeError(f"torch.searchsorted(): boundaries tensor should be 1 dimension or "
                           f"the first N-1 dimensions of boundaries tensor and input value "
                           f"tensor must match, but we got boundaries tensor {list(seq.shape)} "
                           f"and input value tensor {list(vals.shape)}")
    if seq.ndim <= 1:
        res = np.searchsorted(seq, vals, side=s, sorter=srt)
    else:
        rows = seq.reshape(-1, seq.shape[-1])
        vr = vals.reshape(-1, vals.shape[-1])
        sr = None if srt is None else srt.reshape(-1, seq.shape[-1])
        res = np.stack([np.searchsorted(rows[i], vr[i], side=s,
                                        sorter=None if sr is None else sr[i])
                        for i in range(rows.shape[0])]).reshape(vals.shape)
    out_t = _wrap(np.asarray(res, np.int32 if out_int32 else np.int64), True)
    if out is not None:
        from ._out import write_result

        return write_result("searchsorted", out, out_t)
    return out_t


def bucketize(input, boundaries, *, out_int32=False, right=False, out=None):  # noqa: A002
    b = raw(boundaries)
    if b.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({b.ndim})")
    res = np.searchsorted(b, _np(input), side="right" if right else "left")
    out_t = _wrap(np.asarray(res, np.int32 if out_int32 else np.int64), True)
    if out is not None:
        from ._out import write_result

        return write_result("bucketize", out, out_t)
    return out_t


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    e, t = _np(elements), _np(test_elements)
    return _wrap(np.asarray(np.isin(e, t, invert=invert)), True)


def _pick_values(input, idx, d, keepdim, name):  # noqa: A002
    return _ops._pick_along(input, idx, d, keepdim, name)


def kthvalue(input, k, dim=-1, keepdim=False, *, out=None):  # noqa: A002
    a = raw(input)
    d = _dim(dim, a.ndim)
    n = a.shape[d] if a.ndim else 1
    if not 1 <= k <= n:
        raise IndexError(f"kthvalue(): selected number k out of range for dimension {d}")
    if a.ndim == 0:
        return return_types.kthvalue((_ops.clone(input), _long(0)))
    # ties (and NaN, the largest) where ATen's quick select leaves them
    idx = _selection.kthvalue_indices(_bfloat16.values(a), k, d)
    values = _pick_values(input, idx, d, keepdim, "KthvalueBackward0")
    ind = np.expand_dims(idx, d) if keepdim else idx
    return return_types.kthvalue((values, _long(ind)))


def mode(input, dim=-1, keepdim=False):  # noqa: A002
    from ..engine.ops.search import _mode_row, _rows

    a = raw(input)
    if a.ndim == 0:
        return return_types.mode((_ops.clone(input), _long(0)))
    d = _dim(dim, a.ndim)
    rows, back = _rows(a, d)
    picks = np.array([_mode_row(r) for r in rows], np.int64)
    lead = np.moveaxis(a, d, -1).shape[:-1]
    idx = picks.reshape(lead)
    values = _pick_values(input, idx, d, keepdim, "ModeBackward0")
    ind = np.expand_dims(idx, d) if keepdim else idx
    return return_types.mode((values, _long(ind)))


def msort(input):  # noqa: A002
    return _ops.sort(input, 0)[0]


def _cum_extreme(kind, input, dim):  # noqa: A002
    a = raw(input)
    d = _dim(dim, a.ndim)
    if a.ndim == 0:
        cls = getattr(return_types, kind)
        return cls((_ops.clone(input), _long(0)))
    moved = np.moveaxis(a, d, 0)
    idx = np.zeros(moved.shape, np.int64)
    if moved.shape[0]:
        best = moved[0].copy()
        cur = np.zeros(moved.shape[1:], np.int64)
        isf = a.dtype.kind == "f"
        for i in range(moved.shape[0]):
            v = moved[i]
            with np.errstate(invalid="ignore"):
                better = (v >= best) if kind == "cummax" else (v <= best)
            if isf:
                better = better | np.isnan(v)
                better = better & ~(np.isnan(best) & ~np.isnan(v)) if i else better
            take = better if i else np.ones(v.shape, bool)
            best = np.where(take, v, best)
            cur = np.where(take, i, cur)
            idx[i] = cur
    idx = np.moveaxis(idx, 0, d)
    values = _pick_values(input, idx, d, True,
                          "CummaxBackward0" if kind == "cummax" else "CumminBackward0")
    cls = getattr(return_types, kind)
    return cls((values, _long(idx)))


def cummax(input, dim):  # noqa: A002
    return _cum_extreme("cummax", input, dim)


def cummin(input, dim):  # noqa: A002
    return _cum_extreme("cummin", input, dim)


def logcumsumexp(input, dim):  # noqa: A002
    from ..engine.ops import scan_more  # noqa: F401 (registers logcumsumexp)

    a = raw(input)
    if a.dtype.kind not in "fc":
        input = _ops.to_dtype(input, _dtypes.default_float())  # noqa: A001
    d = _dim(dim, a.ndim)
    from ._logcumsumexp import forward, vjp   # torch's kernel (acc in double) and backward

    op = top("logcumsumexp", "LogcumsumexpBackward0", "in0+out", forward=forward)
    if op.vjp is not vjp:
        op.vjp = vjp
    return apply(op, (input,), {"axis": d})


def unique(input, sorted=True, return_inverse=False, return_counts=False,  # noqa: A002
           dim=None):
    a = raw(input)
    if dim is None:
        u, inv, cnt = np.unique(a.reshape(-1), return_inverse=True, return_counts=True)
        inv = inv.reshape(a.shape)
    else:
        d = _dim(dim, a.ndim)
        if a.shape[d] == 0:
            u, inv, cnt = a, np.zeros(0, np.int64), np.zeros(0, np.int64)
        else:
            u, inv, cnt = np.unique(a, axis=d, return_inverse=True, return_counts=True)
            inv = inv.reshape(-1)
    out = [_wrap(np.ascontiguousarray(u), True)]
    if return_inverse:
        out.append(_long(inv))
    if return_counts:
        out.append(_long(cnt))
    return out[0] if len(out) == 1 else tuple(out)


def _unique_method(self, sorted=True, return_inverse=False, return_counts=False,  # noqa: A002
                   dim=None):
    return unique(self, sorted, return_inverse, return_counts, dim)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
    a = raw(input)
    if dim is None:
        flat = a.reshape(-1)
        if flat.size == 0:
            starts = np.zeros(0, bool)
        else:
            starts = np.concatenate([[True], flat[1:] != flat[:-1]])
        u = flat[starts]
        grp = np.cumsum(starts) - 1
        inv = grp.reshape(a.shape)
    else:
        d = _dim(dim, a.ndim)
        m = np.moveaxis(a, d, 0).reshape(a.shape[d], -1)
        starts = np.ones(a.shape[d], bool)
        if a.shape[d] > 1:
            starts[1:] = (m[1:] != m[:-1]).any(axis=1)
        u = np.compress(starts, a, axis=d)
        inv = np.cumsum(starts) - 1
    n = int(starts.sum())
    cnt = np.diff(np.append(np.flatnonzero(starts), len(starts))) if n else np.zeros(0, int)
    out = [_wrap(np.ascontiguousarray(u), True)]
    if return_inverse:
        out.append(_long(inv))
    if return_counts:
        out.append(_long(cnt))
    return out[0] if len(out) == 1 else tuple(out)


def nonzero_static(input, *, size, fill_value=-1):  # noqa: A002
    a = raw(input)
    size = int(size)
    if a.ndim == 0:
        return _long(np.zeros((size, 0)))
    nz = np.argwhere(a).astype(np.int64).reshape(-1, a.ndim)
    if nz.shape[0] >= size:
        res = nz[:size]
    else:
        res = np.concatenate([nz, np.full((size - nz.shape[0], a.ndim), fill_value,
                                          np.int64)])
    return _long(res)


def bincount(input, weights=None, minlength=0):  # noqa: A002
    a = raw(input)
    if a.ndim != 1 or a.dtype.kind not in "iub":
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if a.size and a.min() < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if weights is None:
        return _long(np.bincount(a, minlength=minlength))
    w = raw(weights)
    dt = w.dtype if w.dtype in (np.float32, np.float64) else np.dtype(np.float64)
    n = _b.max(int(a.max()) + 1 if a.size else 0, minlength)
    out = np.zeros(n, dt)
    np.add.at(out, a, w.astype(dt))
    return _no_derivative.attach("bincount", (weights,), (_wrap(out, True),))[0]


def _hist_range(a, rng, name="histc"):
    if rng is None:
        lo, hi = (float(a.min()), float(a.max())) if a.size else (0.0, 0.0)
    else:
        lo, hi = float(rng[0]), float(rng[1])
        if lo > hi:
            raise ValueError if False else RuntimeError(
                f"{name}(): max must be larger than min")
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    return lo, hi


def _bin_positions(a, edges, lo, hi, bins, local_search):
    """torch's histogramdd kernel for one dim: pos = (x - lo) * bins / (hi - lo) in the input's
    dtype, the right edge in the last bin, a local search against the edges for histogram."""
    dt = a.dtype
    with np.errstate(all="ignore"):
        pos = ((a - dt.type(lo)) * dt.type(bins) / (dt.type(hi) - dt.type(lo)))
    ok = (a >= dt.type(lo)) & (a <= dt.type(hi))
    pos = np.where(ok, pos, 0).astype(np.int64)
    pos = np.where(pos == bins, bins - 1, pos)
    if local_search:
        e = np.asarray(edges, dt)
        pos = np.where(ok & (a < e[pos]), pos - 1, pos)
        nxt = np.minimum(pos + 1, bins)
        pos = np.where(ok & (a >= e[nxt]) & (pos != bins - 1), pos + 1, pos)
    return pos, ok


def histc(input, bins=100, min=0, max=0, *, out=None):  # noqa: A001,A002
    a = raw(input)
    if a.dtype.kind != "f":
        raise RuntimeError(f"\"histogram_cpu\" not implemented for "
                           f"'{_dtypes.from_np(a.dtype).legacy.replace('Tensor', '')}'")
    if bins <= 0:
        raise RuntimeError("torch.histc(): bins must be > 0, but got " + str(bins) +
                           " for dimension 0")
    lo, hi = float(min), float(max)
    if lo == hi and a.size:
        lo, hi = float(a.min()), float(a.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    flat = a.reshape(-1)
    pos, ok = _bin_positions(flat, None, lo, hi, int(bins), False)
    hist = np.zeros(int(bins), a.dtype)
    np.add.at(hist, pos[ok], 1)
    res = _wrap(hist, True)
    if out is not None:
        from ._out import write_result

        return write_result("histc", out, res)
    return res


def _edges(lo, hi, bins, dt):
    return raw(_creation.linspace(lo, hi, bins + 1, dtype=_dtypes.from_np(dt)))


def histogram(input, bins=100, *, range=None, weight=None, density=False, out=None):  # noqa: A001,A002
    a = raw(input)
    flat = a.reshape(-1)
    if _t(bins):
        edges = raw(bins).astype(a.dtype)
        nb = edges.size - 1
        lo, hi = float(edges[0]), float(edges[-1])
    else:
        nb = int(bins)
        lo, hi = _hist_range(flat, range, "histogram")
        edges = _edges(lo, hi, nb, a.dtype)
    pos, ok = _bin_positions(flat, edges, lo, hi, nb, True)
    w = raw(weight).reshape(-1).astype(a.dtype) if weight is not None else None
    hist = np.zeros(nb, a.dtype)
    np.add.at(hist, pos[ok], w[ok] if w is not None else a.dtype.type(1))
    if density:
        widths = np.diff(edges).astype(a.dtype)  # torch: hist / hist.sum(), then / widths
        hist = ((hist / hist.sum(dtype=a.dtype)).astype(a.dtype) / widths).astype(a.dtype)
    res = (_wrap(hist, True), _wrap(np.array(edges), True))
    return return_types.histogram(_no_derivative.attach("histogram", (input, weight), res))


def histogramdd(input, bins, *, range=None, weight=None, density=False):  # noqa: A001,A002
    a = raw(input)
    nd = a.shape[-1]
    pts = a.reshape(-1, nd)
    if isinstance(bins, (int, np.integer)):
        bins = [int(bins)] * nd
    edges, positions, oks = [], [], np.ones(pts.shape[0], bool)
    for k in _b.range(nd):
        b = bins[k]
        if _t(b):
            e = raw(b).astype(a.dtype)
            nb = e.size - 1
            lo, hi = float(e[0]), float(e[-1])
        else:
            nb = int(b)
            if range is not None:
                lo, hi = _hist_range(pts[:, k], (range[2 * k], range[2 * k + 1]), "histogramdd")
            else:
                lo, hi = _hist_range(pts[:, k], None, "histogramdd")
            e = _edges(lo, hi, nb, a.dtype)
        pos, ok = _bin_positions(pts[:, k], e, lo, hi, nb, True)
        edges.append(e)
        positions.append(pos)
        oks &= ok
    shape = tuple(e.size - 1 for e in edges)
    hist = np.zeros(shape, a.dtype)
    w = raw(weight).reshape(-1).astype(a.dtype) if weight is not None else None
    np.add.at(hist, tuple(p[oks] for p in positions),
              w[oks] if w is not None else a.dtype.type(1))
    if density:
        total = hist.sum(dtype=a.dtype)
        hist = hist / total
        for k, e in enumerate(edges):
            sh = [1] * nd
            sh[k] = -1
            hist = hist / np.diff(e).reshape(sh)
        hist = hist.astype(a.dtype)
    res = _no_derivative.attach("histogramdd", (input, weight),
                                (_wrap(hist, True),) + tuple(_wrap(np.array(e), True)
                                                             for e in edges))
    return return_types.histogramdd((res[0], tuple(res[1:])))


# ------------------------------------------------------------------------------ reductions
def _var_args(dim, unbiased, keepdim, correction):
    if isinstance(dim, bool):  # var(x, unbiased)
        dim, unbiased = None, dim
    if correction is None:
        correction = 1 if unbiased is None or unbiased else 0
    elif unbiased is not None:
        raise RuntimeError("Cannot pass both unbiased and correction")
    return dim, keepdim, correction


def _moments_fwd(x, axis, keepdim=False, correction=1.0, root=False, welford=False):
    """torch's CPU var/std (``welford``: var_mean/std_mean's, which take the Welford kernel for
    one output too): ``_moments``' kernels where they apply (float64; float32 with one output),
    else a double two-pass rounded once to the input's dtype (torch's double Welford rounds to
    the same float32)."""
    exact = _moments.moments(x, tuple(axis), correction, root, with_mean=welford)
    if exact is not None:
        out = exact[0] if welford else exact
        if keepdim:
            out = out.reshape([1 if k in axis else s for k, s in enumerate(x.shape)])
        return out
    xd = x.astype(np.float64) if x.dtype == np.float32 else x
    m = np.mean(xd, axis=axis, keepdims=True)
    d = xd - m
    ss = np.sum(d * d, axis=axis, keepdims=keepdim)
    count = 1
    for k in axis:
        count *= x.shape[k]
    dof = _b.max(count - correction, 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = ss / np.float64(dof) if xd.dtype == np.float64 else ss / xd.dtype.type(dof)
        if root:
            out = np.sqrt(out)
    return np.asarray(out, x.dtype)


def _std_fwd(x, axis, keepdim=False, correction=1.0, welford=False):
    return _moments_fwd(x, axis, keepdim, correction, True, welford)


def _mean64_fwd(x, axis, keepdim=False, out_shape=None):
    """var_mean/std_mean's mean: the Welford kernel's running mean (float64, ``_moments``), else
    the double mean rounded once."""
    if x.dtype == np.float64 and x.size:
        out = _moments.welford(x, tuple(axis), 0.0, False)[1]
        if keepdim:
            out = out.reshape([1 if k in axis else s for k, s in enumerate(x.shape)])
        return np.reshape(out, out_shape) if out_shape is not None else out
    xd = x.astype(np.float64) if x.dtype == np.float32 else x
    out = np.asarray(np.mean(xd, axis=axis, keepdims=keepdim), x.dtype)
    return np.reshape(out, out_shape) if out_shape is not None else out


def _var_backward(n, g):
    """torch's ``var_backward`` (FunctionsManual.cpp): ``(2 / dof) * grad * (x - x.mean(dim,
    keepdim=True))``, the double ``2 / dof`` taken in the tensor's dtype first, the mean torch's
    own; written with the dialect's ops, so it differentiates again."""
    x = n.inputs[0]
    axis = tuple(n.attrs["axis"])
    shape = x.shape
    count = 1
    for k in axis:
        count *= shape[k]
    dof = count - n.attrs.get("correction", 1.0)
    if not n.attrs.get("keepdim", False) and len(shape) > 1:
        g = g.reshape([1 if k in axis else s for k, s in enumerate(shape)])
    mean = x.mean(axis, keepdim=True) if len(axis) < len(shape) else x.mean()
    if dof <= 0 and len(axis) == len(shape):
        # torch's branch for a reduction of every dim: inf, NaN where x equals its mean
        return g * _ops.where(x == mean, float("nan"), float("inf"))
    scale = 2.0 / dof if dof else float("inf")   # (a reduced dim: torch's 2 / dof as it is)
    if not _GRAD.enabled:   # (no graph to record: the same float ops on the arrays)
        xa, ga, ma = raw(x), raw(g), raw(mean)
        dt = xa.dtype
        if dt.kind == "f" and ga.dtype == dt and ma.dtype == dt:
            with _quiet(all="ignore"):   # (inf * 0 where dof is 0)
                return type(g)._wrap((dt.type(scale) * ga) * (xa - ma), True)
    return (scale * g) * (x - mean)


def _torch_var_vjp(n, g):
    return _var_backward(n, g)


def _torch_std_vjp(n, g):
    """torch's ``std_backward``: ``grad / (result * 2)``, 0 where the result is 0, then
    ``var_backward``."""
    res = n.out()
    ra, ga = raw(res), raw(g)
    if not _GRAD.enabled and ra.dtype.kind == "f" and ga.dtype == ra.dtype:
        with _quiet(divide="ignore", invalid="ignore"):
            gv = np.where(ra == 0, ra.dtype.type(0), ga / (ra * 2))
        return _var_backward(n, type(g)._wrap(gv, True))
    gv = (g / (res * 2)).masked_fill(res == 0, 0)
    return _var_backward(n, gv)


def _moment(kind, input, dim, keepdim, correction, name):  # noqa: A002
    _ops._need_float(input, kind)
    a = raw(input)
    axes = _ops._dims(dim, a.ndim) if not (isinstance(dim, (list, tuple)) and not dim) \
        else tuple(range(a.ndim))
    outputs = 1
    for k, s in enumerate(a.shape):
        outputs *= 1 if k in axes else s
    if (a.size // outputs if outputs else 0) - correction <= 0:   # warn_invalid_degrees_of_freedom
        from .nn._backward_hooks import _warn_at_user_frame
        _warn_at_user_frame(f"{kind}(): degrees of freedom is <= 0. Correction should be strictly "
                            "less than the reduction factor (input numel divided by output "
                            "numel). (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/"
                            "native/ReduceOps.cpp:1861.)")
    if kind in ("var", "var_mean"):
        op = top("fused_var", name, "in0", forward=_moments_fwd)
        op.vjp = _torch_var_vjp
    else:
        op = top("fused_std", name, "in0+out", forward=_std_fwd)
        op.vjp = _torch_std_vjp
    attrs = {"axis": axes, "keepdim": bool(keepdim), "correction": float(correction)}
    if kind.endswith("_mean"):
        attrs["welford"] = True
    return apply(op, (input,), attrs)


def _mean_of(input, dim, keepdim, name):  # noqa: A002
    a = raw(input)
    axes = _ops._dims(dim, a.ndim) if not (isinstance(dim, (list, tuple)) and not dim) \
        else tuple(range(a.ndim))
    return apply(top("mean", name, "none", forward=_mean64_fwd), (input,),
                 {"axis": axes, "keepdim": bool(keepdim),
                  "out_shape": _ops._out_shape(a.shape, axes, bool(keepdim))})


def _complex_var(input, dim, keepdim, correction):  # noqa: A002
    """ATen's std_var of a complex tensor: the real parts' variance plus the imaginary
    parts' (a real tensor)."""
    return _ops.add(_moment("var", input.real, dim, keepdim, correction, "VarBackward0"),
                    _moment("var", input.imag, dim, keepdim, correction, "VarBackward0"))


def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):  # noqa: A002
    dim, keepdim, correction = _var_args(dim, unbiased, keepdim, correction)
    if raw(input).dtype.kind == "c":
        return _complex_var(input, dim, keepdim, correction)
    return _moment("var", input, dim, keepdim, correction, "VarBackward0")


def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):  # noqa: A002
    dim, keepdim, correction = _var_args(dim, unbiased, keepdim, correction)
    if raw(input).dtype.kind == "c":   # (the square root of the complex variance)
        return _ops.sqrt(_complex_var(input, dim, keepdim, correction))
    return _moment("std", input, dim, keepdim, correction, "StdBackward0")


def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):  # noqa: A002
    dim, keepdim, correction = _var_args(dim, unbiased, keepdim, correction)
    return (_moment("var_mean", input, dim, keepdim, correction, "VarMeanBackward0"),
            _mean_of(input, dim, keepdim, "VarMeanBackward0"))


def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):  # noqa: A002
    dim, keepdim, correction = _var_args(dim, unbiased, keepdim, correction)
    return (_moment("std_mean", input, dim, keepdim, correction, "StdMeanBackward0"),
            _mean_of(input, dim, keepdim, "StdMeanBackward0"))


def _nan_zeroed(input):  # noqa: A002
    a = raw(input)
    if a.dtype.kind != "f":
        return input
    mask = np.isnan(a)
    if not mask.any():
        return input
    return _ops.masked_fill(input, _wrap(mask, True), 0.0)


def nansum(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    return _ops.sum(_nan_zeroed(input), dim, keepdim, dtype=dtype)


def nanmean(input, dim=None, keepdim=False, *, dtype=None):  # noqa: A002
    a = raw(input)
    if a.dtype.kind != "f" and dtype is None:
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex dtype "
                           f"but got {_dtypes.from_np(a.dtype).legacy.replace('Tensor', '')}")
    count = _ops.sum(_wrap(~np.isnan(a), True), dim, keepdim)
    return _ops.div(nansum(input, dim, keepdim, dtype=dtype), count)


def nanmedian(input, dim=None, keepdim=False):  # noqa: A002
    a = raw(input)
    if dim is None:
        flat = a.reshape(-1)
        if flat.size == 0:
            return _wrap(np.asarray(np.nan, a.dtype), True)
        valid = int((~np.isnan(flat)).sum()) if a.dtype.kind == "f" else flat.size
        order = np.argsort(np.where(np.isnan(flat), np.inf, flat) if a.dtype.kind == "f"
                           else flat, kind="stable")
        k = (valid - 1) // 2 if valid else 0
        pos = int(order[k]) if valid else int(np.flatnonzero(np.isnan(flat))[0])
        return apply(top("index_elementwise_get", "NanmedianBackward0", "other"), (input,),
                     {"index": tuple(int(i) for i in np.unravel_index(pos, a.shape))})
    d = _dim(dim, a.ndim)
    if a.ndim == 0:
        return return_types.nanmedian((_ops.clone(input), _long(0)))
    isn = np.isnan(a) if a.dtype.kind == "f" else np.zeros(a.shape, bool)
    key = np.where(isn, np.inf, a) if a.dtype.kind == "f" else a
    order = np.argsort(key, axis=d, kind="stable")
    valid = (~isn).sum(axis=d, keepdims=True)
    k = np.maximum((valid - 1) // 2, 0)
    idx = np.take_along_axis(order, k, d).squeeze(d)
    values = _pick_values(input, idx, d, keepdim, "NanmedianBackward1")
    ind = np.expand_dims(idx, d) if keepdim else idx
    return return_types.nanmedian((values, _long(ind)))


def median(input, dim=None, keepdim=False):  # noqa: A002
    """torch.median: the lower median; a NaN in the reduced values is the answer (its first
    position), as torch's kernel looks for one before its nth_element."""
    a = raw(input)
    if a.dtype.kind != "f" or not np.isnan(a).any():
        return _ops.median(input, dim, keepdim)
    if dim is None:
        pos = int(np.flatnonzero(np.isnan(a.reshape(-1)))[0])
        return apply(top("index_elementwise_get", "MedianBackward0", "other"), (input,),
                     {"index": tuple(int(i) for i in np.unravel_index(pos, a.shape))})
    d = _dim(dim, a.ndim)
    with _grad_off():
        base = _ops.median(input, d, True).indices
    isn = np.isnan(a)
    idx = np.where(isn.any(d, keepdims=True), np.expand_dims(np.argmax(isn, d), d), raw(base))
    idx = idx.squeeze(d)
    values = _pick_values(input, idx, d, keepdim, "MedianBackward1")
    ind = np.expand_dims(idx, d) if keepdim else idx
    return return_types.median((values, _long(ind)))


def _quantile(name, input, q, dim, keepdim, interpolation, ignore_nan):  # noqa: A002
    a = raw(input)
    if a.dtype.kind != "f":
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
    if interpolation not in ("linear", "lower", "higher", "midpoint", "nearest"):
        raise RuntimeError(f"{name}() interpolation must be one of linear, lower, higher, "
                           f"midpoint or nearest. Got {interpolation}")
    scalar_q = not _t(q)
    qa = np.asarray(q, a.dtype) if scalar_q else raw(q)
    if not scalar_q and qa.dtype != a.dtype:
        raise RuntimeError(f"{name}() q tensor must be same dtype as the input tensor")
    if qa.ndim > 1:
        raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
    if ((qa < 0) | (qa > 1)).any():
        raise RuntimeError(f"{name}() q values must be in the range [0, 1]")
    qv = qa.reshape(-1)
    # the sorted values along a last axis, as torch does (flattened when dim is None)
    if dim is None:
        x = _ops.reshape(input, (-1,))
        d = 0
    else:
        d = _dim(dim, a.ndim)
        x = _ops.movedim(input, d, -1) if a.ndim else _ops.reshape(input, (1,))
    xs = _ops.sort(x, -1)[0]
    sa = raw(xs)
    n = sa.shape[-1]
    isn = np.isnan(sa)
    if ignore_nan:
        cnt = (~isn).sum(-1, keepdims=True).astype(a.dtype)
        ranks = qv * (cnt - 1)  # (..., nq)
        allnan = cnt == 0
        ranks = np.where(allnan, a.dtype.type(n - 1), ranks)
    else:
        last = a.dtype.type(n - 1)
        ranks = np.broadcast_to(qv * last, sa.shape[:-1] + (qv.size,)).copy()
        ranks = np.where(isn.any(-1, keepdims=True), last, ranks)
    ranks = ranks.astype(a.dtype)
    if interpolation == "lower":
        ranks = np.floor(ranks)
    elif interpolation == "higher":
        ranks = np.ceil(ranks)
    elif interpolation == "nearest":
        ranks = np.round(ranks)
    below = ranks.astype(np.int64)
    vb = _ops.gather(xs, -1, _long(below))
    if interpolation in ("linear", "midpoint"):
        above = np.ceil(ranks).astype(np.int64)
        va = _ops.gather(xs, -1, _long(above))
        w = (ranks - below) if interpolation == "linear" else np.full(ranks.shape, 0.5, a.dtype)
        res = _ops.lerp(vb, va, _wrap(w.astype(a.dtype), True))
    else:
        res = vb
    # res: (rest..., nq) -> (nq, rest...) with the reduced dim kept as 1 when keepdim
    res = _ops.movedim(res, -1, 0)
    if keepdim:
        if dim is None:
            res = _ops.reshape(res, (qv.size,) + (1,) * a.ndim)
        elif a.ndim:
            res = _ops.unsqueeze(res, d + 1)
    if scalar_q or qa.ndim == 0:
        res = _ops.squeeze(res, 0)
    return res


def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):  # noqa: A002
    return _quantile("quantile", input, q, dim, keepdim, interpolation, False)


def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear",  # noqa: A002
                out=None):
    return _quantile("nanquantile", input, q, dim, keepdim, interpolation, True)


def count_nonzero(input, dim=None):  # noqa: A002
    a = raw(input)
    axes = None if dim is None else tuple(_dims_list(dim, a.ndim))
    return _long(np.count_nonzero(a, axis=axes))


def cov(input, *, correction=1, fweights=None, aweights=None):  # noqa: A002
    a = raw(input)
    if a.ndim > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an "
                           f"input with {a.ndim} dimensions")
    x = _ops.view(input, (1, -1)) if a.ndim < 2 else input
    nobs = raw(x).shape[1]
    w = None
    if fweights is not None:
        w = fweights
    if aweights is not None:
        w = aweights if w is None else _ops.mul(w, aweights)
    if w is not None:
        w_sum = _ops.sum(w)
    else:
        w_sum = _wrap(np.asarray(nobs, np.int64), True)
    avg = _ops.div(_ops.sum(_ops.mul(x, w) if w is not None else x, 1), w_sum)
    if w is not None and aweights is not None and correction != 0:
        norm = _ops.sub(w_sum, _ops.div(_ops.mul(_ops.sum(_ops.mul(w, aweights)), correction),
                                        w_sum))
    else:
        norm = _ops.sub(w_sum, correction)
    if bool(raw(norm) <= 0):
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less "
                      "than the number of observations.", UserWarning, stacklevel=2)
        norm = _ops.mul(norm, 0)
    xc = _ops.sub(x, _ops.unsqueeze(avg, 1))
    c = _ops.mm(xc, _ops.t(_ops.mul(xc, w) if w is not None else xc))
    return _ops.squeeze(_ops.div(c, norm))


def corrcoef(input):  # noqa: A002
    c = cov(input)
    if raw(c).ndim == 0:
        return _ops.div(c, c)
    d = _ops.diagonal(c)
    sd = _ops.sqrt(d)
    c = _ops.div(c, _ops.view(sd, (-1, 1)))
    c = _ops.div(c, _ops.view(sd, (1, -1)))
    return _ops.clamp(c, -1, 1)


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    a, b = raw(x1), raw(x2)
    if a.ndim < 2 or b.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {a.ndim}D")
    if a.shape[-1] != b.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {a.shape[-1]} "
                           f"X2: {b.shape[-1]}")
    r1, r2 = a.shape[-2], b.shape[-2]
    use_mm = p == 2 and (compute_mode == "use_mm_for_euclid_dist" or (
        compute_mode == "use_mm_for_euclid_dist_if_necessary" and (r1 > 25 or r2 > 25)))
    from . import _cdist

    return _cdist.cdist(x1, x2, p, use_mm)


def _cdist_values(x1, x2, p, use_mm):
    """cdist's values by torch's formulas (``_cdist`` records them as one op)."""
    a, b = raw(x1), raw(x2)
    if use_mm:
        n1 = _ops.sum(_ops.pow(x1, 2), -1, True)
        n2 = _ops.sum(_ops.pow(x2, 2), -1, True)
        one1 = _wrap(np.ones(raw(n1).shape, a.dtype), True)
        one2 = _wrap(np.ones(raw(n2).shape, b.dtype), True)
        xa = _ops.cat([_ops.mul(x1, -2), n1, one1], -1)
        xb = _ops.cat([x2, one2, n2], -1)
        res = _ops.matmul(xa, _ops.transpose(xb, -2, -1))
        return _ops.sqrt(_ops.clamp_min(res, 0))
    diff = _ops.abs(_ops.sub(_ops.unsqueeze(x1, -2), _ops.unsqueeze(x2, -3)))
    if p == 0:
        return _ops.sum(_ops.to_dtype(_ops.ne(diff, 0), a.dtype), -1)
    if p == float("inf"):
        return _ops.amax(diff, -1)
    if p == 1:
        return _ops.sum(diff, -1)
    if p == 2:
        return _ops.sqrt(_ops.sum(_ops.mul(diff, diff), -1))
    return _ops.pow(_ops.sum(_ops.pow(diff, p), -1), 1.0 / p)


def renorm(input, p, dim, maxnorm):  # noqa: A002
    a = raw(input)
    d = _dim(dim, a.ndim)
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    others = tuple(i for i in range(a.ndim) if i != d)
    with _grad_off():
        nrm = raw(_ops.norm(input, p, others, True))
    with np.errstate(divide="ignore", invalid="ignore"):
        factor = np.where(nrm > maxnorm, a.dtype.type(maxnorm) / (nrm + a.dtype.type(1e-7)),
                          a.dtype.type(1)).astype(a.dtype)
    return _ops.mul(input, _wrap(factor, True))


def _grad_off():
    from ..engine import grad_mode

    return grad_mode.no_grad()


def tensordot(a, b, dims=2, out=None):
    x, y = raw(a), raw(b)
    if _t(dims):
        dd = raw(dims)
        dims = int(dd) if dd.ndim == 0 else [list(map(int, r)) for r in dd.reshape(2, -1)]
    if isinstance(dims, (int, np.integer)):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        da = list(range(x.ndim - dims, x.ndim))
        db = list(range(dims))
    else:
        da, db = dims
        da = [da] if isinstance(da, (int, np.integer)) else list(da)
        db = [db] if isinstance(db, (int, np.integer)) else list(db)
        if len(da) != len(db):
            raise RuntimeError("both dimension lists should have same length")
    da = [_dim(i, x.ndim) for i in da]
    db = [_dim(i, y.ndim) for i in db]
    for i, j in zip(da, db):
        if x.shape[i] != y.shape[j]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size "
                               f"{x.shape[i]} in dim {i} and second has size {y.shape[j]} in "
                               f"dim {j}")
    fa = [i for i in range(x.ndim) if i not in da]
    fb = [j for j in range(y.ndim) if j not in db]
    k = int(np.prod([x.shape[i] for i in da])) if da else 1
    pa = _ops.reshape(_ops.permute(a, fa + da), (-1, k))
    pb = _ops.reshape(_ops.permute(b, db + fb), (k, -1))
    res = _ops.mm(pa, pb)
    shape = tuple(x.shape[i] for i in fa) + tuple(y.shape[j] for j in fb)
    res = _ops.reshape(res, shape)
    if out is not None:
        from ._out import write_result

        return write_result("tensordot", out, res)
    return res


def _slices(y, d):
    n = raw(y).shape[d]
    return _ops.narrow(y, d, 1, n - 1), _ops.narrow(y, d, 0, n - 1)


def _spacing(x, y, d):
    xa = raw(x)
    if xa.ndim == 1:
        dx = _ops.diff(x)
        shape = [1] * raw(y).ndim
        shape[d] = -1
        return _ops.view(dx, tuple(shape))
    return _ops.diff(x, dim=d)


def trapezoid(y, x=None, *, dx=None, dim=-1):
    a = raw(y)
    d = _dim(dim, a.ndim)
    if x is not None and dx is not None:
        raise RuntimeError("torch.trapezoid: received both x and dx")
    if x is not None and not _t(x):
        dx, x = x, None
    if a.shape[d] == 0:
        return _ops.sum(y, d)
    if x is not None:
        sp = _spacing(x, y, d)
        hi, lo = _slices(y, d)
        return _ops.div(_ops.sum(_ops.mul(sp, _ops.add(hi, lo)), d), 2.0)
    dx = 1 if dx is None else dx
    ends = _ops.add(_indexing.select(y, d, 0), _indexing.select(y, d, -1))
    return _ops.mul(_ops.sub(_ops.sum(y, d), _ops.mul(ends, 0.5)), dx)


def trapz(y, x=None, *, dx=None, dim=-1):
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    a = raw(y)
    d = _dim(dim, a.ndim)
    if x is not None and not _t(x):
        dx, x = x, None
    if a.shape[d] == 0:
        return _ops.clone(y)
    hi, lo = _slices(y, d)
    if x is not None:
        sp = _spacing(x, y, d)
        return _ops.cumsum(_ops.mul(_ops.div(sp, 2.0), _ops.add(hi, lo)), d)
    dx = 1 if dx is None else dx
    return _ops.cumsum(_ops.mul(dx / 2.0, _ops.add(hi, lo)), d)


# ------------------------------------------------------------------------------ products
def addmv(input, mat, vec, *, beta=1, alpha=1, out=None):  # noqa: A002
    m_, v_, c_ = raw(mat), raw(vec), raw(input)
    if v_.ndim == 1 and m_.ndim == 2 and c_.ndim <= 1 and m_.dtype == v_.dtype == c_.dtype \
            and m_.dtype in (np.float32, np.float64) and _mkl_loaded():
        # (torch: MKL's gemv with alpha and beta inside, the result pre-filled with input)
        from ._mm_grad import addmv_vjp, with_vjp

        if raw(mat).shape[1] != raw(vec).shape[0] or raw(mat).ndim != 2:
            _ops.mv(mat, vec)   # (torch's size errors)
        op = with_vjp(_ops.top("fused_addmm", "AddmvBackward0", "cross12",
                               forward=_addmv_scaled_fwd), addmv_vjp)
        res = _ops.apply(op, (input, mat, vec), {"alpha": alpha, "beta": beta})
        return _finish_out(res, out, "addmv")
    prod = _ops.mv(mat, vec)
    return _axpby(input, prod, beta, alpha, out, "addmv")


def _mkl_loaded():
    from . import _mkl

    return _mkl.available()


def _addmv_scaled_fwd(bias, m, v, alpha=1, beta=1):
    """ATen's addmv_impl_cpu: input copied into the result, then BLAS gemv with alpha and beta
    (a row-major matrix as 'T' of its column-major view, a column-major one as 'N'),
    MKL_VERBOSE: SGEMV(t, k, n, alpha, mat, k, vec, 1, beta, result, 1)."""
    from . import _gemm

    return _gemm.gemv(m, v, np.broadcast_to(bias, (m.shape[0],)), float(alpha), float(beta))


def addr(input, vec1, vec2, *, beta=1, alpha=1, out=None):  # noqa: A002
    a1, a2 = raw(vec1), raw(vec2)
    if a1.ndim != 1 or a2.ndim != 1:
        raise RuntimeError(f"addr: Expected 1-D argument vec1, but got {a1.ndim}-D")
    c_ = raw(input)
    if a1.dtype == a2.dtype == c_.dtype and a1.dtype in (np.float32, np.float64) and \
            c_.ndim <= 2:
        from ._mm_grad import addr_vjp, with_vjp

        np.broadcast_shapes(c_.shape, (a1.shape[0], a2.shape[0]))
        op = _ops.top("fused_addmm", "AddrBackward0", "cross12", forward=_addr_fwd)
        op.vjp = addr_vjp
        res = _ops.apply(op, (input, vec1, vec2), {"alpha": alpha, "beta": beta})
        return _finish_out(res, out, "addr")
    # torch's kernel: beta * self + alpha * vec1 * vec2 (alpha times vec1 first)
    prod = _ops.outer(vec1 if alpha == 1 else _ops.mul(vec1, alpha), vec2)
    return _axpby(input, prod, beta, 1, out, "addr")


def _addr_fwd(bias, v1, v2, alpha=1, beta=1):
    """ATen's addr kernel (TensorIterator over the (n, m) result, rows of m): beta == 0:
    ``(alpha * vec1) * vec2``; else the vectorized columns (whole vectors of 16 float32 / 8
    float64 lanes from each row's start) ``fma(alpha * vec1, vec2, beta * self)`` and the rest
    (scalar loop) ``fma(beta, self, (alpha * vec1) * vec2)``: GCC contracts both (measured
    here: every element of 30 random shapes; 210 addr cases with their gradients)."""
    from ._softmax_kernels import fma

    dt = v1.dtype.type
    n, m = v1.shape[0], v2.shape[0]
    with np.errstate(all="ignore"):
        av = (dt(alpha) * v1)[:, None]
        prod = av * v2[None, :]
        if beta == 0:
            return np.ascontiguousarray(np.broadcast_to(prod, (n, m)))
        c = np.broadcast_to(bias, (n, m)).astype(v1.dtype)
        lanes = 16 if v1.dtype == np.float32 else 8
        # (vectorized only with one broadcast operand along the row, vec1's: a self broadcast
        # along it too leaves TensorIterator's scalar loop)
        along = np.ndim(bias) == 2 and np.shape(bias)[1] == m or np.ndim(bias) == 1 and \
            np.shape(bias)[0] == m
        vec = (m // lanes) * lanes if along else 0
        out = np.empty((n, m), v1.dtype)
        if vec:
            out[:, :vec] = fma(np.broadcast_to(av, (n, vec)), np.broadcast_to(v2[None, :vec],
                               (n, vec)), c[:, :vec] * dt(beta))
        if vec < m:
            out[:, vec:] = fma(np.full((n, m - vec), beta, v1.dtype), c[:, vec:],
                               prod[:, vec:])
    return out


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):  # noqa: A002
    from . import _bfloat16

    if _bfloat16.AUTOCAST[0] is not None:
        input, batch1, batch2 = _bfloat16.lower(input, batch1, batch2)  # noqa: A001
    b1, b2, c_ = raw(batch1), raw(batch2), raw(input)
    if (alpha != 1 or beta != 1) and b1.ndim == 3 and b2.ndim == 3 and \
            b1.shape[0] == b2.shape[0] and b1.shape[2] == b2.shape[1] and \
            b1.dtype == b2.dtype == c_.dtype and b1.dtype in (np.float32, np.float64) and \
            c_.ndim <= 3 and _mkl_loaded():
        # (torch: its own loop for small products, else MKL's gemm per matrix, alpha and beta
        # inside; BaddbmmBackward0's products times alpha)
        from ._mm_grad import baddbmm_vjp, with_vjp

        op = with_vjp(_ops.top("fused_addmm", "BaddbmmBackward0", "cross12",
                               forward=_baddbmm_scaled_fwd), baddbmm_vjp)
        res = _ops.apply(op, (input, batch1, batch2), {"alpha": alpha, "beta": beta})
        return _finish_out(res, out, "baddbmm")
    prod = _ops.bmm(batch1, batch2)
    return _axpby(input, prod, beta, alpha, out, "baddbmm")


def _baddbmm_scaled_fwd(bias, x, w, alpha=1, beta=1):
    """ATen's baddbmm on the CPU: below 400 multiply-adds per matrix its own loop (each
    product rounded and summed in k order, then ``self * beta + alpha * sum``, two roundings:
    measured 40 of 40 here), else MKL's gemm_batch (one matrix: gemm) with alpha and beta
    inside, the result pre-filled with self (MKL_VERBOSE: SGEMM_BATCH)."""
    from . import _gemm

    nb, m, kk = x.shape
    n = w.shape[2]
    c = np.broadcast_to(bias, (nb, m, n))
    dt = x.dtype.type
    if m * kk * n < 400:
        acc = _gemm.sequential_bmm(x, w)
        with np.errstate(all="ignore"):
            scaled = acc * dt(alpha)
            return scaled if beta == 0 else c * dt(beta) + scaled
    if nb == 1:   # (one matrix: ?gemm, as bmm's)
        return _gemm.gemm_single(x, w, c, float(alpha), float(beta))
    return _gemm.gemm_batch(x, w, c, float(alpha), float(beta))


def addbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):  # noqa: A002
    b1, b2 = raw(batch1), raw(batch2)
    if b1.ndim != 3 or b2.ndim != 3:
        raise RuntimeError(f"batch1 must be a 3D tensor")
    c_ = raw(input)
    if (alpha != 1 or beta != 1) and b1.shape[0] and b1.shape[0] == b2.shape[0] and \
            b1.shape[2] == b2.shape[1] and b1.dtype == b2.dtype == c_.dtype and \
            b1.dtype in (np.float32, np.float64) and c_.ndim <= 2 and _mkl_loaded():
        # (torch: the result's addmm_ with each batch's matrices, beta the first time)
        from ._mm_grad import addbmm_vjp, with_vjp

        op = with_vjp(_ops.top("fused_addmm", "AddbmmBackward0", "cross12",
                               forward=_addbmm_scaled_fwd), addbmm_vjp)
        res = _ops.apply(op, (input, batch1, batch2), {"alpha": alpha, "beta": beta})
        return _finish_out(res, out, "addbmm")
    res = input if beta == 1 else _ops.mul(input, beta)
    if b1.shape[0] == 0:
        res = _ops.expand(res, (b1.shape[1], b2.shape[2]))
    for i in range(b1.shape[0]):
        m = _ops.mm(_indexing.select(batch1, 0, i), _indexing.select(batch2, 0, i))
        res = _ops.add(res, m if alpha == 1 else _ops.mul(m, alpha))
    return _finish_out(res, out, "addbmm")


def _addbmm_scaled_fwd(bias, x, w, alpha=1, beta=1):
    """ATen's addbmm: the result (self broadcast) through ``addmm_`` with each batch's
    matrices in order, beta the first time, then 1 (MKL_VERBOSE: one SGEMM per batch, alpha
    and beta inside, into the same result)."""
    from . import _gemm

    out = np.broadcast_to(bias, (x.shape[1], w.shape[2]))
    for i in range(x.shape[0]):
        out = _gemm.gemm(x[i], w[i], out, float(alpha), float(beta) if i == 0 else 1.0)
    return out


def _axpby(input, prod, beta, alpha, out, name):  # noqa: A002
    p = prod if alpha == 1 else _ops.mul(prod, alpha)
    if beta == 0:
        a = raw(input)
        if a.dtype.kind == "f" and np.isfinite(a).all():
            # torch ignores input's values but its gradient is grad * 0 (maybe_multiply), not
            # None: input * 0 is +-0 here, the same sum
            res = _ops.add(p, _ops.mul(input, 0.0))
        else:
            res = _ops.add(p, _wrap(np.zeros(a.shape, raw(p).dtype), True))
    else:
        res = _ops.add(input if beta == 1 else _ops.mul(input, beta), p)
    return _finish_out(res, out, name)


def _finish_out(res, out, name):
    if out is not None:
        from ._out import write_result

        return write_result(name, out, res)
    return res


def chain_matmul(*matrices, out=None):
    ms, _ = _seq(matrices)
    res = ms[0]
    for m in ms[1:]:
        res = _ops.mm(res, m)
    return _finish_out(res, out, "chain_matmul")


# ------------------------------------------------------------------------------ indexing
def _index_of(index):
    return raw(index).astype(np.int64).reshape(-1)


def _along_index(idx, src_shape, d):
    shape = [1] * len(src_shape)
    if len(src_shape):
        shape[d] = -1
    return np.broadcast_to(idx.reshape(shape), src_shape).copy()


def _scatter_op(input, d, idx, src, reduce, include_self, name):  # noqa: A002
    a = raw(input)
    dt = a.dtype
    s = src if _t(src) else _wrap(np.full(idx.shape, src, dt), True)
    if raw(s).dtype != dt:
        s = _ops.to_dtype(s, dt)
    sv = raw(s)
    if sv.shape != idx.shape:
        s = _ops.narrow(s, 0, 0, idx.shape[0]) if False else s
        sl = tuple(slice(0, n) for n in idx.shape)
        s = apply(top("slice", "SliceBackward0", "none"), (s,), {"index": sl}) \
            if any(n != m for n, m in zip(idx.shape, sv.shape)) else s
    ix = _wrap(idx, True)
    if reduce in (None, "assign"):
        return apply(top("put_along_axis", name, "other", inputs=(0, 2)), (input, ix, s),
                     {"axis": d})
    if reduce in ("add", "sum") and include_self and dt.kind == "f":
        # torch's kernels add each source value onto self in turn (x + s0 + s4, not
        # x + (s0 + s4)): one op, its gradient grad for self and grad gathered for the source
        op = top("put_along_axis", name, "other", inputs=(0, 2), forward=_add_onto_fwd)
        if op.vjp is not _add_onto_vjp:
            op.vjp = _add_onto_vjp
        return apply(op, (input, ix, s), {"axis": d})
    if reduce in ("add", "sum"):
        from ..engine.ops.index import TAKE_ALONG_AXIS_GRAD  # noqa: F401

        added = apply(top("take_along_axis_grad", name, "other", inputs=(0,)), (s, ix),
                      {"shape": a.shape, "axis": d})
        base = input
        if not include_self:
            keep = np.ones(a.shape, bool)
            keep[_along(idx, d)] = False
            base = _ops.mul(input, _wrap(keep.astype(dt), True))
        return _ops.add(base, added)
    red = {"multiply": "mul", "prod": "mul", "mean": "mean", "amax": "amax",
           "amin": "amin"}.get(reduce, reduce)
    with _grad_off():
        res = apply(top("put_along_axis", name, "other"), (input, ix, s),
                    {"axis": d, "reduce": red, "include_self": include_self})
    return _wrap(raw(res), True)


def _add_onto_fwd(x, indices, values, axis=0, **_kw):
    out = np.array(x)
    np.add.at(out, _along(indices, axis), np.broadcast_to(values, indices.shape).astype(x.dtype))
    return out


def _add_onto_vjp(n, g):
    from ..engine.ops.index import take_along_axis

    return g, None, take_along_axis(g, n.inputs[1], n.attrs.get("axis", 0))


def _along(idx, d):
    grids = list(np.indices(idx.shape, sparse=True))
    grids[d] = idx
    return tuple(grids)


def _scatter_index(a, index, src):
    """ATen's scatter shape rule (ensure_nonempty_dim): a 0-d index (or src) counts as one value
    of one dim, so ``zeros(10).scatter_(0, torch.tensor(y), value=1)`` is a one-hot vector."""
    idx = raw(index).astype(np.int64)
    if idx.ndim == 0 and a.ndim:
        idx = idx.reshape(1)
    if _t(src) and raw(src).ndim == 0 and a.ndim:
        src = _ops.reshape(src, (1,))
    if a.ndim and idx.size and idx.ndim != a.ndim:
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    return idx, src


def scatter(input, dim, index, src=None, *, value=None, reduce=None):  # noqa: A002
    a = raw(input)
    d = _dim(dim, a.ndim)
    if src is None:
        src = value
    idx, src = _scatter_index(a, index, src)
    red = {"add": "add", "multiply": "mul"}.get(reduce) if reduce else None
    if reduce is not None and _t(src):
        _warn_once("The reduce argument of torch.scatter with Tensor src is deprecated and will "
                   "be removed in a future PyTorch release. Use torch.scatter_reduce instead "
                   "for more reduction options. (Triggered internally at /__w/pytorch/pytorch/"
                   "aten/src/ATen/native/TensorAdvancedIndexing.cpp:225.)")
    return _scatter_op(input, d, idx, src, red, True,
                       "ScatterBackward0" if _t(src) else "ScatterBackward1")


def scatter_add(input, dim, index, src):  # noqa: A002
    a = raw(input)
    d = _dim(dim, a.ndim)
    idx, src = _scatter_index(a, index, src)
    return _scatter_op(input, d, idx, src, "add", True, "ScatterAddBackward0")


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):  # noqa: A002
    a = raw(input)
    d = _dim(dim, a.ndim)
    if reduce not in ("sum", "prod", "mean", "amax", "amin"):
        raise RuntimeError("reduce argument must be either sum, prod, mean, amax or amin, got "
                           f"{reduce}")
    return _scatter_op(input, d, raw(index).astype(np.int64), src, reduce, include_self,
                       "ScatterReduceBackward0")


def index_add(input, dim, index, source, *, alpha=1):  # noqa: A002
    a = raw(input)
    d = _dim(dim, a.ndim)
    src = source if alpha == 1 else _ops.mul(source, alpha)
    idx = _along_index(_index_of(index), raw(source).shape, d)
    return _scatter_op(input, d, idx, src, "add", True, "IndexAddBackward0")


def index_copy(input, dim, index, source):  # noqa: A002
    a = raw(input)
    d = _dim(dim, a.ndim)
    idx = _along_index(_index_of(index), raw(source).shape, d)
    return _scatter_op(input, d, idx, source, None, True, "IndexCopyBackward0")


def index_fill(input, dim, index, value):  # noqa: A002
    a = raw(input)
    d = _dim(dim, a.ndim)
    mask = np.zeros(a.shape, bool)
    mask[(slice(None),) * d + (_index_of(index),)] = True
    v = raw(value) if _t(value) else value
    return _ops.masked_fill(input, _wrap(mask, True), v)


def _warn_once(message, _seen=set(), site=None):  # noqa: B006 - torch's TORCH_WARN_ONCE
    if message not in _seen:
        _seen.add(message)
        if site is not None:  # raised inside torch's library: its file and line (libwarn)
            from . import libwarn
            return libwarn.warn(site, message)
        from .nn._backward_hooks import _warn_at_user_frame
        _warn_at_user_frame(message)


def index_reduce(input, dim, index, source, reduce, *, include_self=True):  # noqa: A002
    _warn_once("index_reduce() is in beta and the API may change at any time. (Triggered "
               "internally at /__w/pytorch/pytorch/aten/src/ATen/native/"
               "TensorAdvancedIndexing.cpp:1523.)")
    a = raw(input)
    d = _dim(dim, a.ndim)
    idx = _along_index(_index_of(index), raw(source).shape, d)
    return _scatter_op(input, d, idx, source, reduce, include_self, "IndexReduceBackward0")


def index_put(input, indices, values, accumulate=False):  # noqa: A002
    a = raw(input)
    index = tuple(raw(i) if _t(i) else i for i in indices)
    index = tuple(i.astype(np.int64) if isinstance(i, np.ndarray) and i.dtype.kind in "iu"
                  else i for i in index)
    v = values if _t(values) else _wrap(np.asarray(values, a.dtype), True)
    if raw(v).dtype != a.dtype:
        v = _ops.to_dtype(v, a.dtype)
    if accumulate:
        sel = apply(top("index_elementwise_get", "IndexBackward0", "other"), (input,),
                    {"index": index})
        upd = np.zeros(a.shape, a.dtype)
        np.add.at(upd, index, np.broadcast_to(raw(v), raw(sel).shape))
        if not (_STATE.enabled and (not input.stop_gradient or not v.stop_gradient)):
            return _wrap(a + upd, True)
        from ..engine.ops.index import INDEX_PUT_ADD  # noqa: F401

        vb = _ops.expand(v, raw(sel).shape) if raw(v).shape != raw(sel).shape else v
        added = apply(top("index_put_add", "IndexPutBackward0", "other"), (vb,),
                      {"shape": a.shape, "index": index})
        return _ops.add(input, added)
    return _scatter_into(input, v, index, "IndexPutBackward0")


def masked_scatter(input, mask, source):  # noqa: A002
    shape = np.broadcast_shapes(raw(input).shape, raw(mask).shape)
    if raw(input).shape != shape:
        input = _ops.expand(input, shape)  # noqa: A001
    a = raw(input)
    m = np.broadcast_to(raw(mask).astype(bool), a.shape)
    n = int(m.sum())
    if raw(source).size < n:
        raise RuntimeError("masked_scatter: expected source to have at least as many elements "
                           "as ones in mask")
    pos = np.nonzero(m)
    flat_src = _ops.reshape(source, (-1,))
    picked = _ops.narrow(flat_src, 0, 0, n) if raw(source).size != n else flat_src
    return _scatter_into(input, picked, pos, "MaskedScatterBackward0")


def put(input, index, source, accumulate=False):  # noqa: A002
    a = raw(input)
    flat = _ops.reshape(input, (-1,))
    idx = _index_of(index)
    idx = np.where(idx < 0, idx + a.size, idx)
    src = _ops.reshape(source, (-1,))
    out = index_put(flat, (_long(idx),), src, accumulate)
    return _ops.reshape(out, a.shape)


def _expanded_index_fill_(self, dim, index, value):
    """``index_fill_`` into an expanded tensor: torch warns and writes the chosen elements."""
    from . import _inplace

    d = _dim(dim, raw(self).ndim)
    idx = (slice(None),) * d + (_long(_index_of(index)),)
    _inplace.write_at(self, idx, raw(value) if isinstance(value, EngineTensor) else value)
    return self


def _expanded_index_put_(self, indices, values, accumulate=False):
    from . import _inplace

    idx = tuple(raw(i) if isinstance(i, EngineTensor) else i for i in indices)
    _inplace.write_at(self, idx, raw(values) if isinstance(values, EngineTensor) else values)
    return self


_EXPANDED_WRITES = {"index_fill": _expanded_index_fill_, "index_put": _expanded_index_put_}


def _inplace_of(fn):
    expanded = _EXPANDED_WRITES.get(fn.__name__)

    def method(self, *args, **kwargs):
        from . import _inplace, _storage

        if expanded is not None and _storage.warn_expanded(raw(self), fn.__name__ + "_"):
            return expanded(self, *args, **kwargs)
        return _inplace.inplace(self, lambda s: fn(s, *args, **kwargs))
    method.__name__ = fn.__name__ + "_"
    return method


# ------------------------------------------------------------------------------ views
def _split_with_sizes(self, split_sizes, dim=0):
    return _ops.split(self, list(split_sizes), dim)


def _swap(fn):
    def method(self, a, b):
        return fn(self, a, b)
    return method


def _is_same_size(self, other):
    return raw(self).shape == raw(other).shape


def is_same_size(input, other):  # noqa: A002
    return raw(input).shape == raw(other).shape


def is_nonzero(input):  # noqa: A002
    a = raw(input)
    if a.size == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if a.size > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(a.reshape(-1)[0])


# ------------------------------------------------------------------------------ keyword aliases
#: torch's argument parser: a keyword of the left spelled as numpy spells it (the right)
_ALIASES = (("dim", "axis"), ("keepdim", "keepdims"))


def _aliased(fn):
    """``fn`` taking numpy's ``axis=``/``keepdims=`` for ``dim``/``keepdim`` (a call without
    them goes straight through)."""

    @functools.wraps(fn)
    def f(*args, **kwargs):
        if kwargs:
            for name, alias in _ALIASES:
                if alias in kwargs:
                    if name in kwargs:
                        raise TypeError(f"{fn.__name__}() got multiple values for argument "
                                        f"'{name}'")
                    kwargs[name] = kwargs.pop(alias)
        return fn(*args, **kwargs)

    return f


def _sized(fn):
    """A factory ``fn(*size, ...)`` that also takes ``size=`` as a keyword."""

    @functools.wraps(fn)
    def f(*args, size=None, **kwargs):
        if size is not None:
            if args:
                raise TypeError(f"{fn.__name__}() got multiple values for argument 'size'")
            args = (tuple(size),) if not isinstance(size, (int, np.integer)) else (size,)
        return fn(*args, **kwargs)

    return f


def _takes_dim(fn):
    try:
        ps = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return "dim" in ps or "keepdim" in ps


EXPORTS: dict = {
    "ravel": ravel, "flipud": flipud, "fliplr": fliplr, "rot90": rot90,
    "atleast_1d": atleast_1d, "atleast_2d": atleast_2d, "atleast_3d": atleast_3d,
    "column_stack": column_stack, "row_stack": row_stack, "dstack": dstack,
    "hsplit": hsplit, "vsplit": vsplit, "dsplit": dsplit,
    "broadcast_shapes": broadcast_shapes, "broadcast_tensors": broadcast_tensors,
    "meshgrid": meshgrid, "cartesian_prod": cartesian_prod, "combinations": combinations,
    "block_diag": block_diag, "diagflat": diagflat, "diag_embed": diag_embed,
    "diagonal_scatter": diagonal_scatter, "select_scatter": select_scatter,
    "slice_scatter": slice_scatter, "as_strided": as_strided,
    "as_strided_copy": as_strided_copy, "as_strided_scatter": as_strided_scatter,
    "narrow_copy": narrow_copy, "unravel_index": unravel_index,
    "tril_indices": tril_indices, "triu_indices": triu_indices,
    "empty_strided": empty_strided, "empty_permuted": empty_permuted,
    "scalar_tensor": scalar_tensor, "vander": vander,
    "searchsorted": searchsorted, "bucketize": bucketize, "isin": isin,
    "kthvalue": kthvalue, "mode": mode, "msort": msort, "cummax": cummax, "cummin": cummin,
    "logcumsumexp": logcumsumexp, "unique": unique, "unique_consecutive": unique_consecutive,
    "nonzero_static": nonzero_static, "bincount": bincount, "histc": histc,
    "histogram": histogram, "histogramdd": histogramdd,
    "var": var, "std": std, "var_mean": var_mean, "std_mean": std_mean,
    "nansum": nansum, "nanmean": nanmean, "nanmedian": nanmedian, "quantile": quantile,
    "median": median,
    "nanquantile": nanquantile, "count_nonzero": count_nonzero, "cov": cov,
    "corrcoef": corrcoef, "cdist": cdist, "renorm": renorm, "tensordot": tensordot,
    "trapezoid": trapezoid, "trapz": trapz, "cumulative_trapezoid": cumulative_trapezoid,
    "addmv": addmv, "addr": addr, "baddbmm": baddbmm, "addbmm": addbmm,
    "chain_matmul": chain_matmul,
    "scatter": scatter, "scatter_add": scatter_add, "scatter_reduce": scatter_reduce,
    "index_add": index_add, "index_copy": index_copy, "index_fill": index_fill,
    "index_reduce": index_reduce, "index_put": index_put, "masked_scatter": masked_scatter,
    "put": put, "is_same_size": is_same_size, "is_nonzero": is_nonzero,
    "split_with_sizes": lambda input, split_sizes, dim=0: _ops.split(  # noqa: A002
        input, list(split_sizes), dim),
    "unsafe_split": lambda tensor, split_size, dim=0: _ops.split(tensor, split_size, dim),
    "unsafe_chunk": lambda input, chunks, dim=0: _ops.chunk(input, chunks, dim),  # noqa: A002
}
_COPY_OF = {
    "expand_copy": lambda input, size, *, implicit=False: _ops.expand(input, tuple(size)),  # noqa
    "permute_copy": lambda input, dims: _ops.permute(input, tuple(dims)),  # noqa: A002
    "select_copy": lambda input, dim, index: _indexing.select(input, dim, index),  # noqa: A002
    "slice_copy": lambda input, dim=0, start=None, end=None, step=1: apply(  # noqa: A002
        top("slice", "SliceBackward0", "none"), (input,),
        {"index": (slice(None),) * _dim(dim, raw(input).ndim) + (slice(start, end, step),)}),
    "split_copy": lambda tensor, split_size, dim=0: _ops.split(tensor, split_size, dim),
    "split_with_sizes_copy": lambda input, split_sizes, dim=0: _ops.split(  # noqa: A002
        input, list(split_sizes), dim),
    "squeeze_copy": lambda input, dim=None: _ops.squeeze(input, dim),  # noqa: A002
    "t_copy": lambda input: _ops.t(input),  # noqa: A002
    "transpose_copy": lambda input, dim0, dim1: _ops.transpose(input, dim0, dim1),  # noqa
    "unbind_copy": lambda input, dim=0: _ops.unbind(input, dim),  # noqa: A002
    "unsqueeze_copy": lambda input, dim: _ops.unsqueeze(input, dim),  # noqa: A002
    "view_copy": lambda input, size: _ops.view(input, tuple(size)) if not isinstance(  # noqa
        size, _dtypes.dtype) else _ops.view(input, size),
    "detach_copy": lambda input: input.detach(),  # noqa: A002
    "alias_copy": lambda input: input,  # noqa: A002
    "unfold_copy": lambda input, dimension, size, step: input.unfold(  # noqa: A002
        dimension, size, step),
}
for _name, _fn in _COPY_OF.items():
    EXPORTS[_name] = _copying(_fn)

TENSOR_METHODS: dict = {
    "ravel": ravel, "fliplr": fliplr, "flipud": flipud, "rot90": rot90,
    "diag_embed": diag_embed, "diagonal_scatter": diagonal_scatter,
    "select_scatter": select_scatter, "slice_scatter": slice_scatter,
    "as_strided": as_strided, "as_strided_scatter": as_strided_scatter,
    "narrow_copy": narrow_copy, "hsplit": hsplit, "vsplit": vsplit, "dsplit": dsplit,
    "kthvalue": kthvalue, "mode": mode, "msort": msort, "cummax": cummax, "cummin": cummin,
    "logcumsumexp": logcumsumexp, "unique": _unique_method,
    "unique_consecutive": unique_consecutive, "bincount": bincount, "histc": histc,
    "histogram": histogram, "var": var, "std": std, "nansum": nansum, "nanmean": nanmean,
    "nanmedian": nanmedian, "quantile": quantile, "nanquantile": nanquantile,
    "median": median, "count_nonzero": count_nonzero, "cov": cov, "corrcoef": corrcoef,
    "renorm": renorm,
    "addmv": addmv, "addr": addr, "baddbmm": baddbmm, "addbmm": addbmm,
    "scatter": scatter, "scatter_add": scatter_add, "scatter_reduce": scatter_reduce,
    "index_add": index_add, "index_copy": index_copy, "index_fill": index_fill,
    "index_reduce": index_reduce, "index_put": index_put, "masked_scatter": masked_scatter,
    "put": put, "is_same_size": _is_same_size, "is_nonzero": is_nonzero,
    "split_with_sizes": _split_with_sizes, "dim_order": _dim_order, "resize_": _resize_,
    "isin": lambda self, test_elements, *, assume_unique=False, invert=False: isin(
        self, test_elements, invert=invert),
    "broadcast_tensors": None,
}
del TENSOR_METHODS["broadcast_tensors"]
for _name in ("scatter", "scatter_add", "scatter_reduce", "index_add", "index_copy",
              "index_fill", "index_reduce", "index_put", "masked_scatter", "put", "renorm",
              "addmv", "addr", "baddbmm", "addbmm"):
    TENSOR_METHODS[_name + "_"] = _inplace_of(TENSOR_METHODS[_name])
EXPORTS["index_put_"] = TENSOR_METHODS["index_put_"]
EXPORTS["addmv_"] = TENSOR_METHODS["addmv_"]

# numpy's keywords on the core's functions and methods that take dim/keepdim, and size= on the
# factories (the numpy-style calls torch accepts: ``t.sum(axis=0, keepdims=True)``)
_TORCH = __import__("sys").modules[__name__.rsplit(".", 1)[0]]
for _name, _fn in list(vars(_TORCH).items()):
    if (not _name.startswith("_") and inspect.isfunction(_fn)
            and _fn.__module__ == _ops.__name__ and _takes_dim(_fn)):
        EXPORTS.setdefault(_name, _aliased(_fn))
for _name in list(EXPORTS):
    if _takes_dim(EXPORTS[_name]) and not hasattr(EXPORTS[_name], "__wrapped__"):
        EXPORTS[_name] = _aliased(EXPORTS[_name])
for _name in list(TENSOR_METHODS):
    if _takes_dim(TENSOR_METHODS[_name]) and not hasattr(TENSOR_METHODS[_name], "__wrapped__"):
        TENSOR_METHODS[_name] = _aliased(TENSOR_METHODS[_name])
for _name, _fn in list(vars(Tensor).items()):
    if _name not in TENSOR_METHODS and inspect.isfunction(_fn) and _takes_dim(_fn):
        TENSOR_METHODS[_name] = _aliased(_fn)
for _name in ("zeros", "ones", "rand", "randn"):
    EXPORTS[_name] = _sized(getattr(_creation, _name))

_LAST = {"channels_last": (4, (0, 2, 3, 1)), "channels_last_3d": (5, (0, 2, 3, 4, 1))}


def empty(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          memory_format=None, pin_memory=False):
    """``torch.empty`` (zeros here); ``memory_format=torch.channels_last`` lays it out with
    the channels last (its strides)."""
    t = _creation.empty(*size, out=out, dtype=dtype, layout=layout, device=device,
                        requires_grad=requires_grad)
    fmt = _LAST.get(getattr(memory_format, "name", None))
    if fmt is not None:
        shape = raw(t).shape
        if len(shape) != fmt[0]:
            raise RuntimeError(f"required rank {fmt[0]} tensor to use {memory_format} format")
        return empty_permuted(shape, fmt[1], dtype=dtype, requires_grad=requires_grad)
    return t


EXPORTS["empty"] = _sized(empty)


# ------------------------------------------------------------------ API gaps (issue 28)
# the calls torch accepts that the core's forms refused (found by comparing every Tensor
# method and torch function on simple arguments with real torch 2.13)
def _tile(input, dims):  # noqa: A002
    """``x.tile(2)``: an int is a one-element dims."""
    return _ops.tile(input, (dims,) if isinstance(dims, (int, np.integer)) else dims)


def _cross(input, other, dim=None):  # noqa: A002
    """``torch.cross(a, b)`` without dim: the first dimension of size 3, with torch's
    deprecation warning (once)."""
    if dim is None:
        _warn_once("Using torch.cross without specifying the dim arg is deprecated.\nPlease "
                   "either pass the dim explicitly or simply use torch.linalg.cross.\nThe "
                   "default value of dim will change to agree with that of linalg.cross in a "
                   "future release. (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/"
                   "native/Cross.cpp:63.)")
        shape = list(raw(input).shape)
        dim = next((i for i, n in enumerate(shape) if n == 3), None)
        if dim is None:
            raise RuntimeError(f"no dimension of size 3 in input")
    return _ops.cross(input, other, dim)


def _logsumexp(input, dim, keepdim=False, *, out=None):  # noqa: A002
    """Integer inputs are computed in the default float dtype, as torch does."""
    if raw(input).dtype.kind in "biu":
        from . import _dtypes
        input = _ops.to_dtype(input, _dtypes.default_float())  # noqa: A001
    r = _ops.logsumexp(input, dim, keepdim)
    if out is not None:
        out.resize_(r.shape).copy_(r)
        return out
    return r


EXPORTS.update(tile=_tile, cross=_cross, logsumexp=_aliased(_logsumexp))
TENSOR_METHODS.update(tile=_tile, cross=_cross, inner=_ops.inner,
                      logsumexp=_aliased(_logsumexp))
