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
    is_sparse_csr = True
    _KIND = "sparse CSR tensor"

    def __init__(self, crow, col, vals, size):
        self._crow = np.ascontiguousarray(crow, np.int64)
        self._col = np.ascontiguousarray(col, np.int64)
        self._vals = vals
        self._size = tuple(int(s) for s in size)
        _warn_once(_BETA_WARNING)

    @property
    def layout(self):
        return _torch().sparse_csr

    def _nnz(self):
        return int(self._col.shape[0])

    @property
    def requires_grad(self):
        return self._vals.requires_grad

    @property
    def grad_fn(self):
        return self._vals.grad_fn

    def crow_indices(self):
        return _torch().from_numpy(self._crow.copy())

    def col_indices(self):
        return _torch().from_numpy(self._col.copy())

    def values(self):
        return _named(self._vals, "ValuesBackward0")

    def _rows(self):
        return np.repeat(np.arange(self._size[0], dtype=np.int64), np.diff(self._crow))

    def to_sparse(self, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
        idx = np.stack([self._rows(), self._col]) if self._col.size else np.zeros((2, 0),
                                                                                   np.int64)
        return SparseCooTensor(idx, self._vals, self._size, True)

    to_sparse_coo = to_sparse

    def to_sparse_csr(self, dense_dim=None):
        return self

    def to_dense(self, dtype=None, *, masked_grad=None):
        return self.to_sparse().to_dense(dtype)

    def detach(self):
        return SparseCsrTensor(self._crow, self._col, self._vals.detach(), self._size)

    def __matmul__(self, other):
        return _matmul(self, other)

    matmul = mm = __matmul__

    def __repr__(self):
        from . import _dtypes, _printing

        indent = len("tensor(")
        parts = []
        for prefix, a in (("crow_indices=tensor(", self._crow), ("col_indices=tensor(", self._col),
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
        suffixes.append("layout=torch.sparse_csr")
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


def _matmul(s, other):
    """``s @ other``: a dense matrix (the COO product of the same entries), or a vector (as a
    one-column matrix)."""
    from ._sparse_coo import _SPMM_MM, mm

    if isinstance(other, (SparseCsrTensor, SparseCooTensor)):
        raise AttributeError("gradrepl's torch does not emulate the product of two sparse "
                             "tensors")
    if other.dim() == 1:
        return mm(s.to_sparse(), other.unsqueeze(1), _SPMM_MM).squeeze(1)
    return mm(s.to_sparse(), other, _SPMM_MM)


def sparse_csr_tensor(crow_indices, col_indices, values, size=None, *, dtype=None, device=None,
                      pin_memory=False, requires_grad=False, check_invariants=None):
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
        size = (crow.size - 1, int(col.max()) + 1 if col.size else 0)
    return SparseCsrTensor(crow, col, vals, tuple(size))


def _dtype_name(a):
    from . import _dtypes

    return str(_dtypes.from_np(a.dtype)).replace("torch.", "")


def to_sparse_csr(self, dense_dim=None):
    """``Tensor.to_sparse_csr`` / a COO tensor's: the entries in row-major order."""
    if isinstance(self, SparseCooTensor):
        s = self.coalesce()
        rows, cols, vals = s._idx[0], s._idx[1], s._vals
    else:
        torch = _torch()
        a = raw(self)
        if a.ndim != 2:
            raise RuntimeError("gradrepl's torch emulates to_sparse_csr of a 2-D tensor only")
        rows, cols = np.nonzero(a)
        vals = self[torch.from_numpy(rows), torch.from_numpy(cols)]
    n = s._size[0] if isinstance(self, SparseCooTensor) else raw(self).shape[0]
    crow = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(rows, minlength=n), out=crow[1:])
    size = self._size if isinstance(self, SparseCooTensor) else raw(self).shape
    return SparseCsrTensor(crow, cols, vals, size)


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
    torch_module.sparse_csr = type(torch_module.sparse_coo)("sparse_csr")
    torch_module.sparse_csr_tensor = sparse_csr_tensor
    tensor_cls.to_sparse_csr = to_sparse_csr
    SparseCooTensor.to_sparse_csr = to_sparse_csr
    for name in ("mm", "matmul"):
        fn = getattr(torch_module, name)

        def f(input, *args, _fn=fn, **kwargs):  # noqa: A002
            if type(input) is SparseCsrTensor:
                return _matmul(input, *args, **kwargs)
            return _fn(input, *args, **kwargs)
        f.__name__, f.__qualname__, f.__doc__ = fn.__name__, fn.__qualname__, fn.__doc__
        f.__module__ = fn.__module__
        setattr(torch_module, name, f)
