"""torch's sparse CSR tensors, the part lectures use (issue 28): ``torch.sparse_csr_tensor``,
``Tensor.to_sparse_csr`` (and a COO tensor's), the tensor's ``crow_indices``/``col_indices``/
``values``/``to_dense``/``to_sparse``/``_nnz``, its product with a dense matrix or vector
(``@``, ``matmul``, ``mm``, ``torch.mm``/``torch.matmul``), printed as torch 2.13 prints it
(``_tensor_str``: the compressed indices, the plain ones and the values, then size, nnz, dtype,
layout on the last line while they fit); and the legacy constructors ``torch.sparse.FloatTensor``
/ ``DoubleTensor`` (COO tensors, with torch's deprecation warnings).

The tensor holds int64 ``crow``/``col`` arrays and a values Tensor of the dialect. Products run
as the COO product (``_sparse_coo.mm``) of the same entries in row order: each output row a
fused multiply-add chain over the row's entries in stored order (measured against real torch
2.13 here: see tests/test_torch_sparse_csr.py). Not a ``torch.Tensor`` subclass; a method it
lacks raises the not-emulated AttributeError."""
from __future__ import annotations

import numpy as np

from . import _out
from ._base import raw
from ._sparse_coo import _INVARIANTS_WARNING, SparseCooTensor, _named, _SparseShape

_BETA_WARNING = (
    "Sparse CSR tensor support is in beta state. If you miss a functionality in the sparse "
    "tensor support, please submit a feature request to https://github.com/pytorch/pytorch/"
    "issues. (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/"
    "SparseCsrTensorImpl.cpp:49.)")


def _torch():
    from .. import torch

    return torch


def _warn_once(message):
    from ._ops_shape import _warn_once as once

    once(message)


class SparseCsrTensor(_SparseShape):
    """A 2-D sparse CSR tensor: ``_crow`` (rows + 1), ``_col`` (nnz) int64 arrays, ``_vals`` a
    dialect Tensor (nnz), ``_size``."""

    is_sparse = False
    _KIND = "sparse CSR tensor"

    def __init__(self, crow, col, vals, size, kind="csr", name=None):
        """``kind``: csr, csc, bsr or bsc (``_crow``/``_col``: the compressed and the plain
        indices: ccol/row for the column layouts; block indices for the block ones, whose values
        are nnz x block rows x block columns); ``name``: the grad_fn name torch prints."""
        self._crow = np.ascontiguousarray(crow, np.int64)
        self._col = np.ascontiguousarray(col, np.int64)
        self._size = tuple(int(s) for s in size)
        self._kind = kind
        if name is not None and vals.requires_grad:
            vals = _named(vals, name)
        self._vals = vals
        _warn_once(_BETA_WARNING)

    @property
    def is_sparse_csr(self):
        return self._kind == "csr"

    @property
    def layout(self):
        return getattr(_torch(), "sparse_" + self._kind)

    def sparse_dim(self):
        return 2

    def dense_dim(self):
        return len(self._size) - 2

    def _layout_name(self):
        return "Sparse" + self._kind.capitalize()

    def _by_rows(self):
        return self._kind in ("csr", "bsr")

    def _block(self):
        return tuple(raw(self._vals).shape[1:3]) if self._kind in ("bsr", "bsc") else (1, 1)

    def _nnz(self):
        return int(self._col.shape[0])

    @property
    def requires_grad(self):
        return self._vals.requires_grad

    @property
    def grad_fn(self):
        return self._vals.grad_fn

    def _index(self, name, by_rows):
        if self._by_rows() != by_rows:
            kind = "row" if by_rows else "column"
            raise RuntimeError(f"{name} expected sparse {kind} compressed tensor layout but got "
                               f"{self._layout_name()}")
        compressed = name in ("crow_indices", "ccol_indices")
        return _torch().from_numpy((self._crow if compressed else self._col).copy())

    def crow_indices(self):
        return self._index("crow_indices", True)

    def col_indices(self):
        return self._index("col_indices", True)

    def ccol_indices(self):
        return self._index("ccol_indices", False)

    def row_indices(self):
        return self._index("row_indices", False)

    def _coo_only(self, name):
        raise RuntimeError(f"{name} expected sparse coordinate tensor layout but got "
                           f"{self._layout_name()}")

    def indices(self):
        self._coo_only("indices")

    def coalesce(self):
        self._coo_only("coalesce")

    def values(self):
        return _named(self._vals, "ValuesBackward0")

    def _rows(self):
        return np.repeat(np.arange(self._crow.size - 1, dtype=np.int64), np.diff(self._crow))

    def _entries(self):
        """(rows, cols, values) of the stored elements, in stored order (blocks expanded)."""
        torch = _torch()
        major, minor = self._rows(), self._col
        r, c = (major, minor) if self._by_rows() else (minor, major)
        bh, bw = self._block()
        if (bh, bw) == (1, 1) and self._kind in ("csr", "csc"):
            return r, c, self._vals
        br = (r[:, None, None] * bh + np.arange(bh)[None, :, None]) + 0 * np.arange(bw)
        bc = (c[:, None, None] * bw + np.arange(bw)[None, None, :]) + 0 * br
        return br.reshape(-1), bc.reshape(-1), self._vals.reshape(-1) if raw(
            self._vals).size else torch.zeros(0, dtype=self._vals.dtype)

    def to_sparse(self, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
        if layout is not None and layout != _torch().sparse_coo:
            return _convert(self, layout, blocksize)
        r, c, v = self._entries()
        if self._kind in ("csr", "csc"):
            idx = np.stack([r, c]) if c.size else np.zeros((2, 0), np.int64)
            return SparseCooTensor(idx, v, self._size, self._kind == "csr")
        return self.to_dense().to_sparse()

    to_sparse_coo = to_sparse

    def to_sparse_csr(self, dense_dim=None):
        return self if self._kind == "csr" else _convert(self, _torch().sparse_csr)

    def to_sparse_csc(self, dense_dim=None):
        return self if self._kind == "csc" else _convert(self, _torch().sparse_csc)

    def to_sparse_bsr(self, blocksize, dense_dim=None):
        return _convert(self, _torch().sparse_bsr, blocksize)

    def to_sparse_bsc(self, blocksize, dense_dim=None):
        return _convert(self, _torch().sparse_bsc, blocksize)

    def to_dense(self, dtype=None, *, masked_grad=None):
        if dtype is not None:
            raise RuntimeError("dtype argument is not supported by sparse_csr_to_dense")
        torch = _torch()
        r, c, v = self._entries()
        out = torch.zeros(self._size, dtype=self._vals.dtype)
        if not r.size:
            return out
        return _named(out.index_put((torch.from_numpy(r.copy()), torch.from_numpy(c.copy())),
                                    v), "SparseCompressedToDenseBackward0" if self._kind != "csr"
                      else "ToDenseBackward0")

    def t(self):
        """The transpose: the same arrays read as the other orientation (CSR <-> CSC)."""
        if len(self._size) != 2:
            raise RuntimeError("t() expects a tensor with <= 2 dimensions")
        other = {"csr": "csc", "csc": "csr", "bsr": "bsc", "bsc": "bsr"}[self._kind]
        vals = self._vals if self._kind in ("csr", "csc") else self._vals.transpose(1, 2)
        return SparseCsrTensor(self._crow, self._col, vals, self._size[::-1], other,
                               "TransposeBackward0")

    def transpose(self, dim0, dim1):
        if {dim0 % 2, dim1 % 2} == {0, 1}:
            return self.t()
        return self

    def numpy(self, *args, **kwargs):
        raise TypeError(f"can't convert {self._layout_name()} layout tensor to numpy. Use "
                        "Tensor.to_dense() first.")

    def sum(self, dim=None, keepdim=False, dtype=None):
        if dim is None:
            return self._vals.sum(dtype=dtype)
        if not keepdim:
            raise RuntimeError("reduction operations on CSR tensors with keepdim=False is "
                               "unsupported")
        return self.to_dense().sum(dim, keepdim=True, dtype=dtype).to_sparse_csr()

    def softmax(self, *args, **kwargs):
        from ._sparse_ops import not_run_error

        raise not_run_error("aten::_softmax.out", "cpu_meta", self._layout_name() + "CPU")

    def exp(self):
        raise RuntimeError(f"unsupported tensor layout: {self._layout_name()}")

    def mean(self, *args, **kwargs):
        from ._sparse_ops import not_run_error

        raise not_run_error("aten::mean.out", "cpu", self._layout_name() + "CPU")

    def view(self, *args):
        from ._sparse_ops import not_run_error

        raise not_run_error("aten::view", "view", self._layout_name() + "CPU")

    @property
    def grad(self):
        from ._sparse_coo import leaf_dense_grad

        g = self._vals.grad
        g = None if g is None else SparseCsrTensor(self._crow, self._col, g, self._size,
                                                   self._kind)
        d = leaf_dense_grad(self, g)
        return g if d is None else d

    @property
    def is_leaf(self):
        return self._vals.is_leaf

    def detach(self):
        return SparseCsrTensor(self._crow, self._col, self._vals.detach(), self._size,
                               self._kind)

    def __matmul__(self, other):
        return _matmul(self, other)

    matmul = mm = __matmul__

    def __repr__(self):
        from . import _dtypes, _printing

        indent = len("tensor(")
        parts = []
        cname, pname = ("crow_indices", "col_indices") if self._by_rows() else \
            ("ccol_indices", "row_indices")
        for prefix, a in ((cname + "=tensor(", self._crow), (pname + "=tensor(", self._col),
                          ("values=tensor(", raw(self._vals))):
            s = _printing.values_str(a, indent + len(prefix))
            if a.size == 0:
                s += ", size=" + str(tuple(a.shape))
            parts.append(prefix + s + ")")
        body = "tensor(" + (",\n" + " " * indent).join(parts)
        suffixes = ["size=" + str(self._size), f"nnz={self._nnz()}"]
        v = raw(self._vals)
        if v.dtype not in (_dtypes.DEFAULTS.float.np, _dtypes.default_complex(),
                           np.dtype(np.int64), np.dtype(np.bool_)):
            suffixes.append(f"dtype={_dtypes.from_np(v.dtype)}")
        suffixes.append("layout=torch.sparse_" + self._kind)
        if self._vals.requires_grad:
            fn = self._vals.grad_fn
            suffixes.append("requires_grad=True" if fn is None else f"grad_fn=<{fn.name()}>")
        # torch's _add_suffixes (no forced newline for CSR; its last-line length counts 2 more)
        out, last = [body], len(body) - body.rfind("\n") + 1
        for s in suffixes:
            if last + len(s) + 2 > _printing.OPTS.linewidth:
                out.append(",\n" + " " * indent + s)
                last = indent + len(s)
            else:
                out.append(", " + s)
                last += len(s) + 2
        return "".join(out) + ")"

    __str__ = __repr__


SparseCsrTensor.__name__ = SparseCsrTensor.__qualname__ = "Tensor"   # (as torch's type name)
SparseCsrTensor.__module__ = "torch"


def _matmul(s, other):
    """``s @ other``: a dense matrix (the COO product of the same entries), or a vector (as a
    one-column matrix)."""
    from ._sparse_coo import _SPMM_MM, mm

    if isinstance(other, (SparseCsrTensor, SparseCooTensor)):   # (torch's CSR x CSR keeps each
        # row's columns in order of first appearance: not emulated)
        raise AttributeError("gradrepl's torch does not emulate the product of two sparse "
                             "tensors")
    if other.dim() == 1:
        return mm(s.to_sparse(), other.unsqueeze(1), _SPMM_MM, s).squeeze(1)
    return mm(s.to_sparse(), other, _SPMM_MM, s)


def sparse_csr_tensor(crow_indices, col_indices, values, size=None, *, dtype=None, device=None,
                      pin_memory=False, requires_grad=False, check_invariants=None,
                      _kind="csr"):
    torch = _torch()
    if check_invariants is None:
        _warn_once(_INVARIANTS_WARNING)

    def ints(a):
        a = raw(a) if isinstance(a, torch.Tensor) else np.asarray(a)
        if a.dtype.kind not in "iu":
            raise RuntimeError("crow_indices and col_indices must be an int32 or int64 type, "
                               f"but got: {_dtype_name(a)}")
        return np.asarray(a, np.int64).reshape(-1)

    crow, col = ints(crow_indices), ints(col_indices)
    if isinstance(values, torch.Tensor):
        vals = values if dtype is None or values.dtype == dtype else values.to(dtype)
    else:
        vals = torch.tensor(values, dtype=dtype)
    if requires_grad:
        vals = vals.detach().requires_grad_()
    if size is None:
        block = tuple(raw(vals).shape[1:3]) if _kind[0] == "b" else (1, 1)
        major, minor = crow.size - 1, int(col.max()) + 1 if col.size else 0
        size = (major, minor) if _kind in ("csr", "bsr") else (minor, major)
        size = (size[0] * block[0], size[1] * block[1])
    return SparseCsrTensor(crow, col, vals, tuple(size), _kind)


def _compressed_ctor(kind):
    def ctor(compressed_indices, plain_indices, values, size=None, **kwargs):
        return sparse_csr_tensor(compressed_indices, plain_indices, values, size, _kind=kind,
                                 **kwargs)
    ctor.__name__ = ctor.__qualname__ = f"sparse_{kind}_tensor"
    return ctor


def sparse_compressed_tensor(compressed_indices, plain_indices, values, size=None, *,
                             dtype=None, layout=None, **kwargs):
    kind = str(layout).replace("torch.sparse_", "")
    return sparse_csr_tensor(compressed_indices, plain_indices, values, size, dtype=dtype,
                             _kind=kind, **kwargs)


_TO_NAMES = {"csr": "ToSparseCsrBackward0", "csc": "ToSparseCscBackward0",
             "bsr": "ToSparseBsrBackward0", "bsc": "ToSparseBscBackward0"}


def _convert(self, layout, blocksize=None):
    """A dense, COO or compressed 2-D tensor in ``layout`` (csr/csc: the nonzero entries,
    row-major or column-major; bsr/bsc: the blocks holding a nonzero, values as blocks)."""
    torch = _torch()
    kind = str(layout).replace("torch.sparse_", "")
    if kind == "coo":
        return self.to_sparse()
    if kind not in _TO_NAMES:
        raise RuntimeError(f"to_sparse: unsupported layout {layout}")
    if isinstance(self, SparseCooTensor) and kind in ("csr", "csc"):
        s = self.coalesce()
        rows, cols, vals, size = s._idx[0], s._idx[1], s._vals, s._size
        if kind == "csc":
            order = np.lexsort((rows, cols))
            rows, cols = rows[order], cols[order]
            vals = vals[torch.from_numpy(order)]
        name = None
    else:
        dense = self if isinstance(self, torch.Tensor) else self.to_dense()
        a = raw(dense)
        if a.ndim != 2:
            raise RuntimeError(f"gradrepl's torch emulates to_sparse_{kind} of a 2-D tensor "
                               "only")
        size, name = a.shape, _TO_NAMES[kind]
        if kind[0] == "b":
            return _to_blocks(dense, kind, tuple(blocksize))
        if kind == "csr":
            rows, cols = np.nonzero(a)
        else:
            cols, rows = np.nonzero(a.T)
        vals = dense[torch.from_numpy(rows), torch.from_numpy(cols)]
    major, minor = (rows, cols) if kind == "csr" else (cols, rows)
    n = size[0] if kind == "csr" else size[1]
    crow = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(major, minlength=n), out=crow[1:])
    out = SparseCsrTensor(crow, minor, vals, size, kind, name)
    if name is not None and dense.requires_grad:   # (c @ D hands x a dense gradient)
        out._dense_src = dense
    return out


def _to_blocks(dense, kind, blocksize):
    torch = _torch()
    a = raw(dense)
    (n, m), (bh, bw) = a.shape, blocksize
    if n % bh or m % bw:
        raise RuntimeError(f"dense_to_sparse_{kind}: tensor sparse size ({n},{m}) must be "
                           f"divisible by given blocksize ({bh},{bw})")
    nz = (a.reshape(n // bh, bh, m // bw, bw) != 0).any(axis=(1, 3))
    if kind == "bsr":
        br, bc = np.nonzero(nz)
        major, minor, nmaj = br, bc, n // bh
    else:
        bc, br = np.nonzero(nz.T)
        major, minor, nmaj = bc, br, m // bw
    blocks = dense.reshape(n // bh, bh, m // bw, bw).permute(0, 2, 1, 3)
    vals = blocks[torch.from_numpy(br), torch.from_numpy(bc)] if br.size else \
        torch.zeros((0, bh, bw), dtype=dense.dtype)
    crow = np.zeros(nmaj + 1, np.int64)
    np.cumsum(np.bincount(major, minlength=nmaj), out=crow[1:])
    return SparseCsrTensor(crow, minor, vals, a.shape, kind, _TO_NAMES[kind])


def _dtype_name(a):
    from . import _dtypes

    return str(_dtypes.from_np(a.dtype)).replace("torch.", "")


def to_sparse_csr(self, dense_dim=None):
    """``Tensor.to_sparse_csr`` / a COO tensor's: the entries in row-major order."""
    return _convert(self, _torch().sparse_csr)


def to_sparse_csc(self, dense_dim=None):
    return _convert(self, _torch().sparse_csc)


def to_sparse_bsr(self, blocksize, dense_dim=None):
    return _convert(self, _torch().sparse_bsr, blocksize)


def to_sparse_bsc(self, blocksize, dense_dim=None):
    return _convert(self, _torch().sparse_bsc, blocksize)


# ----------------------------------------------------------------- legacy constructors
_LEGACY_SITE = "(Triggered internally at /__w/pytorch/pytorch/torch/csrc/utils/tensor_new.cpp:"


def _legacy(dtype_name):
    """``torch.sparse.FloatTensor`` / ``DoubleTensor``: ``(indices, values, size)``,
    ``(indices, values)`` or ``(*sizes)``, each with torch's deprecation warning (a COO tensor,
    uncoalesced as ``sparse_coo_tensor``'s)."""
    def ctor(*args, device=None):
        from ._sparse_coo import sparse_coo_tensor

        torch = _torch()
        dt = getattr(torch, dtype_name)
        if len(args) >= 2 and isinstance(args[0], torch.Tensor) and \
                isinstance(args[1], torch.Tensor):
            if len(args) == 3:
                msg = ("torch.sparse.SparseTensor(indices, values, shape, *, device=) is "
                       "deprecated.  Please use torch.sparse_coo_tensor(indices, values, shape, "
                       "dtype=, device=). " + _LEGACY_SITE + "653.)")
            else:
                msg = ("torch.sparse.SparseTensor(indices, values, *, device=) is deprecated.  "
                       "Please use torch.sparse_coo_tensor(indices, values, dtype=, device=). "
                       + _LEGACY_SITE + "641.)")
            _warn_once(msg)
            return sparse_coo_tensor(args[0], args[1].to(dt), *args[2:3], check_invariants=False)
        sizes = tuple(args[0]) if len(args) == 1 and isinstance(args[0], (tuple, list)) \
            else tuple(args)
        _warn_once("torch.sparse.SparseTensor(shape, *, device=) is deprecated.  Please use "
                   "torch.sparse_coo_tensor(shape, dtype=, device=). " + _LEGACY_SITE + "684.)")
        return SparseCooTensor(np.zeros((len(sizes), 0), np.int64),
                               torch.zeros(0, dtype=dt), sizes, True)
    ctor.__name__ = ctor.__qualname__ = dtype_name.capitalize().replace("64", "") + "Tensor"
    return ctor


FloatTensor = _legacy("float32")
DoubleTensor = _legacy("float64")


def install(torch_module, tensor_cls):
    """torch.sparse_csr (layout), torch.sparse_csr_tensor, Tensor.to_sparse_csr, the COO
    tensor's to_sparse_csr, CSR-aware torch.mm / matmul."""
    for kind in ("csr", "csc", "bsr", "bsc"):
        setattr(torch_module, "sparse_" + kind, type(torch_module.sparse_coo)("sparse_" + kind))
        fn = globals()["to_sparse_" + kind]
        setattr(tensor_cls, "to_sparse_" + kind, fn)
        setattr(SparseCooTensor, "to_sparse_" + kind, fn)
    torch_module.sparse_csr_tensor = sparse_csr_tensor
    torch_module.sparse_compressed_tensor = sparse_compressed_tensor
    for kind in ("csc", "bsr", "bsc"):
        setattr(torch_module, f"sparse_{kind}_tensor", _compressed_ctor(kind))
    for name in ("mm", "matmul"):
        fn = getattr(torch_module, name)

        def f(input, *args, _fn=fn, **kwargs):  # noqa: A002
            if type(input) is SparseCsrTensor:
                return _matmul(input, *args, **kwargs)
            return _fn(input, *args, **kwargs)
        f.__name__, f.__qualname__, f.__doc__ = fn.__name__, fn.__qualname__, fn.__doc__
        f.__module__, f.__wrapped__ = fn.__module__, fn
        _out.PASS_THROUGH.add(f.__code__)   # (a pass-through wrapper: _dense_entry)
        setattr(torch_module, name, f)
