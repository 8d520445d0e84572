"""torch's sparse COO tensors, the part lectures use (issue 28: a sparse/indexing lecture, GCN
adjacency matrices): ``torch.sparse_coo_tensor``, ``Tensor.to_sparse``, the tensor's
``indices``/``values``/``coalesce``/``to_dense``/``t``/``_nnz``, ``torch.sparse.mm`` (also
``torch.mm``, ``torch.spmm``, ``S @ D``) and ``torch.sparse.sum``, printed as torch 2.13 does.

The tensor holds an int64 index array (sparse dims x nnz) and a values Tensor of the dialect, so
gradients reach the values through the dialect's own ops; each step's values pass an identity
node of torch's name (``CoalesceBackward0``, ``ToDenseBackward0`` ...), so grad_fn prints it.
Not a ``torch.Tensor`` subclass (``type``/``isinstance`` differ from torch); a method it lacks
raises the not-emulated AttributeError.

Bits (measured against real torch 2.13 here): ``mm`` of S and a dense D accumulates
``out[row] = fma(value, D[col], out[row])`` over S's entries in their stored order, coalesced or
not (ATen's s_addmm_out_sparse_dense_worker walks ``_indices()`` and calls BLAS axpy, which
fuses); D's gradient is the same product with S transposed (entries in the same order); the
values' gradient is ``(G @ D^T)`` at each entry (a dense GEMM, then the entries picked).
``coalesce`` sums duplicates in their order of appearance (the first copied: -0. stays -0.);
float64 entries with 3+ duplicates can differ in the last bit (torch's unstable index sort
orders them otherwise: left)."""
from __future__ import annotations

import math

import numpy as np

from ..engine.registry import OpDef, apply, needs_grad
from . import _out
from ._base import raw

_INVARIANTS_WARNING = (
    "Sparse invariant checks are implicitly disabled. Memory errors (e.g. SEGFAULT) will occur "
    "when operating on a sparse tensor which violates the invariants, but checks incur performance "
    "overhead. To silence this warning, explicitly opt in or out. See "
    "`torch.sparse.check_sparse_tensor_invariants.__doc__` for guidance.  (Triggered internally at "
    "/__w/pytorch/pytorch/aten/src/ATen/Context.cpp:816.)")


def _torch():
    from .. import torch

    return torch


def _fma(a, b, c):
    """``a * b + c`` rounded once (exact: float32 checked for double rounding, float64 by
    Dekker's product), as BLAS axpy's fused lanes."""
    from ._softmax_kernels import fma

    return fma(a, b, c)


# ------------------------------------------------------------------ sparse x dense product
def _spmm_fwd(values, dense, rows=None, cols=None, n_rows=0):
    """Each row's entries in their order in the tensor (coalesced or not: ATen's worker walks
    ``_indices()`` as they are): ``out[r] = fma(v, dense[c], out[r])``; all rows' p-th entries
    at once (each row is one chain)."""
    out = np.zeros((n_rows, dense.shape[1]), np.result_type(values, dense))
    if rows.size == 0:
        return out
    order = np.argsort(rows, kind="stable")
    srt = rows[order]
    pos = np.empty(rows.size, np.int64)
    pos[order] = np.arange(rows.size) - np.searchsorted(srt, srt)
    for p in range(int(pos.max()) + 1):
        sel = pos == p
        r = rows[sel]
        out[r] = _fma(values[sel][:, None], dense[cols[sel]], out[r])
    return out


def _spmm_vjp(n, g):
    torch = _torch()
    values, dense = n.inputs
    rows, cols = n.attrs["rows"], n.attrs["cols"]
    gv = gd = None
    if needs_grad(n, 0):
        gv = torch.mm(g, dense.t())[torch.from_numpy(rows), torch.from_numpy(cols)]
    if needs_grad(n, 1):   # S^T @ G, S^T's entries in S's order (t() does not coalesce)
        gd = apply(_SPMM_T, (values, g),
                   {"rows": cols, "cols": rows, "n_rows": raw(dense).shape[0]})
    return gv, gd


def _spmm_op(name):
    op = OpDef("sparse_mm_" + name, _spmm_fwd, _spmm_vjp, saves_inputs=False, reads_inputs=True,
               check=False)
    op.torch_name = name
    op.torch_saves = "all"
    op.torch_inputs = None
    op.grad_sum_order = "torch"
    return op


def _spmm_to_dense_fwd(values, dense, target, rows=None, cols=None, n_rows=0):
    return _spmm_fwd(values, dense, rows, cols, n_rows)


def _spmm_to_dense_vjp(n, g):
    """torch's mm_mat1_backward for a sparse mat1: ``grad.mm(mat2.t())``, dense, to the tensor
    standing for the sparse operand's gradient (``dense_target``); nothing to its values."""
    values, dense, target = n.inputs
    gd = gt = None
    if needs_grad(n, 1):
        gd = apply(_SPMM_T, (values, g), {"rows": n.attrs["cols"], "cols": n.attrs["rows"],
                                          "n_rows": raw(dense).shape[0]})
    if needs_grad(n, 2):
        gt = _torch().mm(g, dense.t())
    return None, gd, gt


def dense_target(s):
    """The dense tensor that takes the sparse ``s``'s gradient through ``s @ D`` / torch.mm
    (torch's MmBackward0 hands a sparse mat1 a dense ``grad @ D^T``): the dense tensor ``s`` was
    made from (``x.to_sparse()``, ``x.to_sparse_csr()`` of an ``x`` requiring grad), or, for a
    sparse leaf, a dense stand-in whose gradient the leaf's ``.grad`` then is; else None."""
    src = s.__dict__.get("_dense_src")
    if src is not None:
        return src
    v = s._vals
    if not (v.requires_grad and v.is_leaf):
        return None
    shadow = s.__dict__.get("_dense_grad_leaf")
    if shadow is None:
        shadow = s._dense_grad_leaf = _torch().zeros(s._size, dtype=v.dtype).requires_grad_()
    return shadow


def leaf_dense_grad(s, sparse_grad):
    """A sparse leaf's ``.grad`` once a dense gradient reached it (``dense_target``): that
    gradient (plus the sparse one's entries); else None."""
    shadow = s.__dict__.get("_dense_grad_leaf")
    if shadow is None or shadow.grad is None:
        return None
    d = shadow.grad
    return d if sparse_grad is None else d + sparse_grad.to_dense()


_SPMM_TO_DENSE = OpDef("sparse_mm_to_dense", _spmm_to_dense_fwd, _spmm_to_dense_vjp,
                       saves_inputs=False, reads_inputs=True, check=False)
_SPMM_TO_DENSE.torch_name, _SPMM_TO_DENSE.torch_saves = "MmBackward0", "all"
_SPMM_TO_DENSE.torch_inputs, _SPMM_TO_DENSE.grad_sum_order = None, "torch"

_SPMM_SPARSE = _spmm_op("SparseAddmmBackward0")   # torch.sparse.mm
_SPMM_MM = _spmm_op("MmBackward0")                # torch.mm, torch.spmm, S @ D
_SPMM_T = _spmm_op("MmBackward0")                 # (the gradient's own product)


def _named(t, name):
    """``t`` through an identity node named ``name`` (torch's node of that step), if it
    carries a gradient."""
    if not t.requires_grad:
        return t
    from ._ops import top

    return apply(top("assign", name, "none"), (t,))


# ---------------------------------------------------------------------------- the tensor
class _SparseShape:
    """What a sparse tensor of any layout answers from ``_vals`` and ``_size`` (COO, and CSR in
    ``_sparse_csr``)."""

    @property
    def dtype(self):
        return self._vals.dtype

    @property
    def device(self):
        return self._vals.device

    @property
    def shape(self):
        return _torch().Size(self._size)

    def size(self, dim=None):
        return self.shape if dim is None else self._size[dim]

    def dim(self):
        return len(self._size)

    ndim = property(dim)

    def numel(self):
        return math.prod(self._size)

    _KIND = "sparse tensor"   # (the words of the not-emulated error)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise AttributeError(f"'Tensor' object has no attribute '{name}' (gradrepl's torch does "
                             f"not emulate Tensor.{name} of a {self._KIND})")


class SparseCooTensor(_SparseShape):
    """A sparse COO tensor: ``_idx`` (int64, sparse_dim x nnz), ``_vals`` (a dialect Tensor,
    nnz x dense dims), ``_size``; ``_name``: the grad_fn name torch prints for it."""

    is_sparse = True
    is_sparse_csr = False

    def __init__(self, idx, vals, size, coalesced=False, name=None):
        self._idx = np.ascontiguousarray(idx, np.int64)
        self._size = tuple(int(s) for s in size)
        self._coalesced = coalesced
        self._name = name if vals.requires_grad else None
        if self._name is not None:   # (a node of torch's name: grad_fn prints it)
            vals = _named(vals, self._name)
        self._vals = vals

    # ---- attributes
    @property
    def layout(self):
        return _torch().sparse_coo

    def sparse_dim(self):
        return self._idx.shape[0]

    def dense_dim(self):
        return len(self._size) - self._idx.shape[0]

    def _nnz(self):
        return self._idx.shape[1]

    @property
    def requires_grad(self):
        return self._vals.requires_grad

    @property
    def grad_fn(self):
        return self._vals.grad_fn

    def is_coalesced(self):
        return self._coalesced

    def _indices(self):
        return _torch().from_numpy(self._idx.copy())

    def _values(self):
        return self._vals.detach()

    def indices(self):
        if not self._coalesced:
            raise RuntimeError("Cannot get indices on an uncoalesced tensor, please call "
                               ".coalesce() first")
        return self._indices()

    def values(self):
        if not self._coalesced:
            raise RuntimeError("Cannot get values on an uncoalesced tensor, please call "
                               ".coalesce() first")
        return _named(self._vals, "ValuesBackward0")

    # ---- conversions
    def coalesce(self):
        if self._coalesced:
            return self
        torch = _torch()
        sd = self._idx.shape[0]
        lin = np.ravel_multi_index(tuple(self._idx), self._size[:sd]) if self._idx.size else \
            np.zeros(0, np.int64)
        uniq, first, inverse = np.unique(lin, return_index=True, return_inverse=True)
        idx = self._idx[:, first]
        if uniq.size == lin.size:
            vals = self._vals[torch.from_numpy(np.argsort(lin, kind="stable"))]
        else:   # (-0. + v is v: the first duplicate as copied, the rest added in order)
            base = torch.full((uniq.size,) + tuple(self._vals.shape[1:]), -0.0,
                              dtype=self._vals.dtype)
            vals = base.index_add(0, torch.from_numpy(inverse.reshape(-1)), self._vals)
        return SparseCooTensor(idx, vals, self._size, True, "CoalesceBackward0")

    def to_dense(self, dtype=None, *, masked_grad=None):
        torch = _torch()
        if dtype is not None:
            raise RuntimeError("dtype argument is not supported by sparse_to_dense")
        out = torch.zeros(self._size, dtype=self._vals.dtype)
        if not self._idx.size:
            return out
        index = tuple(torch.from_numpy(r.copy()) for r in self._idx)
        return _named(out.index_put(index, self._vals, accumulate=not self._coalesced),
                      "ToDenseBackward0")

    def detach(self):
        return SparseCooTensor(self._idx, self._vals.detach(), self._size, self._coalesced)

    def clone(self, *, memory_format=None):
        return SparseCooTensor(self._idx, self._vals.clone(), self._size, self._coalesced,
                               "CloneBackward0")

    def to(self, *args, **kwargs):
        """``S.to(dtype)`` / ``S.to("cpu")`` / ``S.to(other)``: the values converted."""
        torch = _torch()
        dtype = kwargs.get("dtype")
        for a in args:
            if isinstance(a, type(torch.float32)):
                dtype = a
            elif isinstance(a, (torch.Tensor, SparseCooTensor)):
                dtype = a.dtype
        if dtype is None or dtype == self.dtype:
            return self
        return SparseCooTensor(self._idx, self._vals.to(dtype), self._size, self._coalesced,
                               "ToCopyBackward0")

    def float(self):
        return self.to(_torch().float32)

    def double(self):
        return self.to(_torch().float64)

    def t(self):
        if self._idx.shape[0] != 2 or len(self._size) != 2:
            raise RuntimeError(f"t() expects a tensor with <= 2 sparse and 0 dense dimensions, "
                               f"but got {self._idx.shape[0]} sparse and "
                               f"{self.dense_dim()} dense dimensions")
        return SparseCooTensor(self._idx[::-1], self._vals, self._size[::-1], False,
                               "TBackward0")

    def __mul__(self, other):
        if isinstance(other, (int, float)):
            return SparseCooTensor(self._idx, self._vals * other, self._size, self._coalesced,
                                   "MulBackward0")
        return NotImplemented

    __rmul__ = __mul__

    def __neg__(self):
        return SparseCooTensor(self._idx, -self._vals, self._size, self._coalesced,
                               "NegBackward0")

    def __matmul__(self, other):
        return mm(self, other, _SPMM_MM)

    def mm(self, other):
        return mm(self, other, _SPMM_MM)

    def __repr__(self):
        from . import _dtypes, _printing

        indent = len("tensor(")
        ip, vp = "indices=tensor(", "values=tensor("
        istr = _printing.values_str(self._idx, indent + len(ip))
        if self._idx.size == 0:
            istr += ", size=" + str(tuple(self._idx.shape))
        v = raw(self._vals)
        vstr = _printing.values_str(v, indent + len(vp))
        if v.size == 0:
            vstr += ", size=" + str(tuple(v.shape))
        body = "tensor(" + ip + istr + "),\n" + " " * indent + vp + vstr + ")"
        suffixes = ["size=" + str(self._size), f"nnz={self._nnz()}"]
        if v.dtype not in (_dtypes.DEFAULTS.float.np, _dtypes.default_complex(),
                           np.dtype(np.int64), np.dtype(np.bool_)):
            suffixes.append(f"dtype={_dtypes.from_np(v.dtype)}")
        suffixes.append("layout=torch.sparse_coo")
        if self._name is not None:
            suffixes.append(f"grad_fn=<{self._name}>")
        elif self._vals.requires_grad:
            suffixes.append("requires_grad=True")
        # torch's _add_suffixes with force_newline: the first suffix on a line of its own
        out, last = [body, ",\n" + " " * indent + suffixes[0]], indent + len(suffixes[0])
        for s in suffixes[1:]:
            if last + len(s) + 2 > _printing.OPTS.linewidth:
                out.append(",\n" + " " * indent + s)
                last = indent + len(s)
            else:
                out.append(", " + s)
                last += len(s) + 2
        return "".join(out) + ")"

    __str__ = __repr__


# (torch's sparse tensors are torch.Tensor objects: type(s).__name__ prints 'Tensor')
SparseCooTensor.__name__ = SparseCooTensor.__qualname__ = "Tensor"
SparseCooTensor.__module__ = "torch"


# --------------------------------------------------------------------------- functions
def sparse_coo_tensor(indices, values, size=None, *, dtype=None, device=None, pin_memory=False,
                      requires_grad=False, check_invariants=None, is_coalesced=None):
    torch = _torch()
    if check_invariants is None:
        from ._ops_shape import _warn_once

        _warn_once(_INVARIANTS_WARNING)
    idx = raw(indices) if isinstance(indices, torch.Tensor) else np.asarray(indices)
    if idx.dtype.kind not in "iuf":
        raise RuntimeError("indices must be an int64 tensor")
    idx = np.asarray(idx, np.int64).reshape(idx.shape[0] if idx.ndim else 1, -1)
    if isinstance(values, torch.Tensor):
        vals = values if dtype is None or values.dtype == dtype else values.to(dtype)
    else:
        vals = torch.tensor(values, dtype=dtype)
    name = "SparseCooTensorWithDimsAndTensorsBackward0"
    if requires_grad:   # (the sparse tensor is the leaf: it prints requires_grad=True)
        vals, name = vals.detach().requires_grad_(), None
    if size is None:
        size = tuple(int(m) + 1 for m in idx.max(1)) if idx.size else (0,) * idx.shape[0]
        size = tuple(size) + tuple(vals.shape[1:])
    size = tuple(size)
    if vals.dim() == 0 or vals.shape[0] != idx.shape[1]:
        raise RuntimeError(f"indices and values must have same nnz, but got nnz from indices: "
                           f"{idx.shape[1]}, nnz from values: "
                           f"{vals.shape[0] if vals.dim() else 1}")
    for d in range(idx.shape[0] if check_invariants else 0):   # (torch checks only if asked)
        if idx.size and idx[d].max() >= size[d]:
            raise RuntimeError(f"size is inconsistent with indices: for dim {d}, size is "
                               f"{size[d]} but found index {int(idx[d].max())}")
    return SparseCooTensor(idx, vals, size, bool(is_coalesced) or idx.shape[1] <= 1, name)


def to_sparse(self, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
    """``Tensor.to_sparse``: the nonzero entries in row-major order (coalesced)."""
    torch = _torch()
    if layout == torch.strided:
        return self
    if layout is not None and layout != torch.sparse_coo:
        from ._sparse_csr import _convert

        return _convert(self, layout, blocksize)
    a = raw(self)
    if sparse_dim is not None and sparse_dim < a.ndim:   # (a hybrid tensor: rows of values)
        lead = np.nonzero((a.reshape(a.shape[:sparse_dim] + (-1,)) != 0).any(-1))
        idx = np.stack(lead).astype(np.int64)
        vals = self[tuple(torch.from_numpy(r) for r in lead)]
        return SparseCooTensor(idx, vals, a.shape, True, "ToSparseBackward0")
    nz = np.nonzero(a)
    idx = np.stack(nz) if nz else np.zeros((0, 1), np.int64)
    vals = self[tuple(torch.from_numpy(r) for r in nz)]
    out = SparseCooTensor(idx.reshape(a.ndim, -1), vals, a.shape, True, "ToSparseBackward1")
    if self.requires_grad:   # (s @ D hands x a dense gradient: dense_target)
        out._dense_src = self
    return out


def mm(sparse, dense, op=_SPMM_SPARSE, owner=None):
    """``torch.sparse.mm`` (``op``: MmBackward0 for torch.mm / spmm / ``@``; ``owner``: the
    tensor ``sparse`` was converted from, a CSR one, for the dense gradient's target)."""
    torch = _torch()
    if isinstance(dense, SparseCooTensor):
        return _sparse_sparse_mm(sparse, dense, "SparseSparseMatmulBackward0"
                                 if op is _SPMM_SPARSE else "MmBackward0")
    if sparse.dense_dim() or sparse.dim() != 2 or dense.dim() != 2:
        raise RuntimeError("sparse.mm: only a 2-D sparse matrix times a 2-D dense matrix is "
                           "emulated by gradrepl")
    if dense.dtype != sparse.dtype:
        raise RuntimeError(f"expected scalar type {sparse.dtype.legacy} but found "
                           f"{dense.dtype.legacy}")
    if sparse._size[1] != dense.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({sparse._size[0]}x"
                           f"{sparse._size[1]} and {dense.shape[0]}x{dense.shape[1]})")
    s = sparse
    attrs = {"rows": s._idx[0], "cols": s._idx[1], "n_rows": s._size[0]}
    if op is _SPMM_MM:
        target = dense_target(owner if owner is not None else s)
        if target is not None:
            return apply(_SPMM_TO_DENSE, (s._vals, dense, target), attrs)
    return apply(op, (s._vals, dense), attrs)


_CSR_BETA_WARNING = (
    "Sparse CSR tensor support is in beta state. If you miss a functionality in the sparse "
    "tensor support, please submit a feature request to https://github.com/pytorch/pytorch/"
    "issues. (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/"
    "SparseCsrTensorImpl.cpp:49.)")


def _sparse_sparse_mm(a, b, name):
    """The product of two 2-D sparse matrices (torch.sparse.mm; torch.mm, ``@``: ``name``
    MmBackward0): a coalesced
    sparse result whose entries are the symbolic product's (a sum that cancels to 0 stays an
    entry), row-major. Bits as real torch 2.13 here: both operands coalesced, each entry
    ``0 + a[i,j0]*b[j0,k] + a[i,j1]*b[j1,k] + ...`` over j ascending, each product and sum
    rounded (not fused; checked on 1,200 float32 entries of 200 terms). Written as Tensor ops
    (an index_add of the products), so gradients reach both operands' values (each value's the
    products' sum in torch's order: G @ B^T at A's entries over k, A^T @ G at B's over i)."""
    torch = _torch()
    if a.dense_dim() or b.dense_dim() or a.dim() != 2 or b.dim() != 2:
        raise RuntimeError("sparse.mm: only 2-D sparse matrices without dense dimensions are "
                           "emulated by gradrepl")
    if a.dtype != b.dtype:
        raise RuntimeError(f"mat1 dtype {a.dtype.legacy} does not match mat2 dtype "
                           f"{b.dtype.legacy}")
    if a._size[1] != b._size[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a._size[0]}x"
                           f"{a._size[1]} and {b._size[0]}x{b._size[1]})")
    if not (a.dtype.is_floating_point or a.dtype.is_complex):
        raise NotImplementedError(f'"sparse_matmul" not implemented for \'{a.dtype.legacy}\'')
    from ._ops_shape import _warn_once

    _warn_once(_CSR_BETA_WARNING)
    a, b = a.coalesce(), b.coalesce()
    (ai, aj), (bj, bk) = a._idx, b._idx
    # the pairs (A entry e, B entry f) with aj[e] == bj[f], in order (e, then f): e runs over
    # A's entries row-major, f over B's row aj[e] in column order
    starts = np.searchsorted(bj, np.arange(b._size[0] + 1))
    counts = (starts[1:] - starts[:-1])[aj]
    e = np.repeat(np.arange(aj.size), counts)
    f = (np.arange(e.size) - np.repeat(np.cumsum(counts) - counts, counts)
         + np.repeat(starts[:-1][aj], counts)).astype(np.int64)
    lin = ai[e] * b._size[1] + bk[f]
    out_lin, slot = np.unique(lin, return_inverse=True)
    prods = a._vals[torch.from_numpy(e)] * b._vals[torch.from_numpy(f)]
    vals = torch.zeros(out_lin.size, dtype=a.dtype).index_add(
        0, torch.from_numpy(slot.reshape(-1).astype(np.int64)), prods)
    idx = np.stack([out_lin // b._size[1], out_lin % b._size[1]]) if out_lin.size else \
        np.zeros((2, 0), np.int64)
    return SparseCooTensor(idx, vals, (a._size[0], b._size[1]), True, name)


def sparse_sum(input, dim=None, dtype=None):  # noqa: A002
    """``torch.sparse.sum``: a dense scalar over all dims, else a sparse tensor over the rest."""
    s = input.coalesce()
    if dim is None:
        return s._vals.sum(dtype=dtype)
    for d in ((dim,) if isinstance(dim, int) else dim):
        if not -s.dim() <= d < s.dim():
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-s.dim()}, {s.dim() - 1}], but got {d})")
    dims = {d % s.dim() for d in ((dim,) if isinstance(dim, int) else dim)}
    keep = [d for d in range(s.sparse_dim()) if d not in dims]
    vdims = [d - s.sparse_dim() + 1 for d in dims if d >= s.sparse_dim()]
    vals = s._vals.sum(vdims, dtype=dtype) if vdims else s._vals
    if not keep:
        return vals.sum(0, dtype=dtype)
    size = tuple(n for d, n in enumerate(s._size) if d not in dims)
    out = SparseCooTensor(s._idx[keep], vals, size, False).coalesce()
    out._name = "SparseSumBackward0" if out._vals.requires_grad else None
    return out


# --------------------------------------------------------------------- the namespace
def _sparse_first(fn, op):
    """``fn`` (torch.mm / torch.matmul) that hands a sparse first operand to ``mm``."""
    def f(input, *args, **kwargs):  # noqa: A002
        if type(input) is SparseCooTensor:
            return mm(input, *args, op, **kwargs)
        return fn(input, *args, **kwargs)
    f.__name__, f.__qualname__, f.__doc__ = fn.__name__, fn.__qualname__, fn.__doc__
    f.__module__, f.__wrapped__ = fn.__module__, fn
    _out.PASS_THROUGH.add(f.__code__)   # (a pass-through wrapper: _dense_entry)
    return f


def install(torch_module, tensor_cls):
    """torch.sparse_coo_tensor, torch.spmm, sparse-aware torch.mm / matmul, Tensor.to_sparse."""
    torch_module.sparse_coo_tensor = sparse_coo_tensor
    for name in ("mm", "matmul"):
        setattr(torch_module, name, _sparse_first(getattr(torch_module, name), _SPMM_MM))
    spmm = _sparse_first(torch_module.mm, _SPMM_MM)
    spmm.__name__ = spmm.__qualname__ = "spmm"
    torch_module.spmm = spmm
    tensor_cls.to_sparse = to_sparse
    tensor_cls.to_sparse_coo = to_sparse
