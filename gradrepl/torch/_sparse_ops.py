"""What torch's sparse COO (and CSR) tensors answer beyond construction and products (issue 28,
the SPSWEEP sweep): one table of the operations, installed both as the sparse tensors' methods and
as the torch functions (``torch.sin(s)``, ``torch.add(s, t)``), measured against real torch 2.13:

* zero-preserving unary functions (``abs``, ``sin``, ``sqrt``, ``tanh``, ``relu`` ...): the
  values mapped (COO: coalesced first, as ATen's ``coalesced_unary_ufunc``), the layout kept;
* a number times / divides / powers the values (the entries kept as stored);
* sparse + sparse (``add``, ``sub``, ``torch.add(alpha=)``): both entry lists concatenated, then
  coalesced; sparse + dense or a number: torch's error; dense + sparse: a dense tensor;
  sparse * dense: the dense entries at the sparse ones;
* ``transpose``/``permute``/``t``, ``index_select`` (for each selected index, the entries there in
  stored order), ``narrow_copy``, ``select`` / ``s[i]``, ``unsqueeze``, ``torch.cat``;
* ``sum``, the sparse leaf's ``.grad`` (its indices, the values' gradient), the tensor attributes;
* an operator without a sparse kernel: torch's dispatcher error (its first paragraph: 'Could not
  run 'aten::exp' with arguments from the 'SparseCPU' backend ...'), the backends it lists
  being the op's own (measured per op)."""
from __future__ import annotations

import numpy as np

from . import _out
from ._sparse_coo import SparseCooTensor


def _torch():
    from .. import torch

    return torch


# ------------------------------------------------------------------ the dispatcher's error
_DENSE_BACKENDS = (
    "CPU, CUDA, HIP, MPS, IPU, XPU, HPU, VE, MTIA, MAIA, PrivateUse1, PrivateUse2, PrivateUse3, "
    "Meta, FPGA, Vulkan, Metal, QuantizedCPU, QuantizedCUDA, QuantizedHIP, QuantizedMPS, "
    "QuantizedIPU, QuantizedXPU, QuantizedHPU, QuantizedVE, QuantizedMTIA, QuantizedMAIA, "
    "QuantizedPrivateUse1, QuantizedPrivateUse2, QuantizedPrivateUse3, QuantizedMeta, "
    "CustomRNGKeyId, MkldnnCPU, ")
_CSR_BACKENDS = ("SparseCsrCPU, SparseCsrCUDA, SparseCsrHIP, SparseCsrMPS, SparseCsrIPU, "
                 "SparseCsrXPU, SparseCsrHPU, SparseCsrVE, SparseCsrMTIA, SparseCsrMAIA, "
                 "SparseCsrPrivateUse1, SparseCsrPrivateUse2, SparseCsrPrivateUse3, "
                 "SparseCsrMeta, ")
_TAIL_BACKENDS = (
    "BackendSelect, Python, FuncTorchDynamicLayerBackMode, Functionalize, Conjugate, Negative, "
    "ZeroTensor, ADInplaceOrView, AutogradOther, AutogradCPU, AutogradCUDA, AutogradHIP, "
    "AutogradXLA, AutogradMPS, AutogradIPU, AutogradXPU, AutogradHPU, AutogradVE, AutogradLazy, "
    "AutogradMTIA, AutogradMAIA, AutogradPrivateUse1, AutogradPrivateUse2, AutogradPrivateUse3, "
    "AutogradMeta, AutogradNestedTensor, Tracer, AutocastCPU, AutocastMTIA, AutocastMAIA, "
    "AutocastXPU, AutocastMPS, AutocastCUDA, FuncTorchBatched, BatchedNestedTensor, "
    "FuncTorchVmapMode, Batched, VmapMode, FuncTorchGradWrapper, PythonTLSSnapshot, "
    "FuncTorchDynamicLayerFrontMode, PreDispatch, PythonDispatcher")


# the backends torch lists before BackendSelect, per op (measured): most ops have dense and
# SparseCsr kernels; a few fewer, or NestedTensor ones too
_HEADS = {"csr": _DENSE_BACKENDS + _CSR_BACKENDS,
          "nested": _DENSE_BACKENDS + _CSR_BACKENDS + "NestedTensorCPU, NestedTensorHPU, ",
          "cpu": "CPU, Meta, QuantizedCPU, ",
          "view": "CPU, Meta, QuantizedCPU, MkldnnCPU, NestedTensorCPU, NestedTensorHPU, ",
          "sampled": "Meta, SparseCsrCPU, ", "cpu_meta": "CPU, Meta, ",
          "sparse_softmax": "Meta, SparseCPU, "}


def not_run_error(op, heads="csr", layout="SparseCPU"):
    """torch's NotImplementedError for ``op`` (e.g. 'aten::exp') handed a sparse tensor; its
    first paragraph (the registrations listed after it are not emulated)."""
    return NotImplementedError(
        f"Could not run '{op}' with arguments from the '{layout}' backend. This could be because "
        "the operator doesn't exist for this backend, or was omitted during the selective/custom "
        "build process (if using custom build). If you are a Facebook employee using PyTorch on "
        "mobile, please visit https://fburl.com/ptmfixes for possible resolutions. "
        f"'{op}' is only available for these backends: [{_HEADS[heads]}{_TAIL_BACKENDS}].\n\n"
        "(gradrepl's torch prints the first paragraph of torch's message)")


def _no_kernel(op, heads):
    """An op torch has no SparseCPU kernel for."""
    def f(self, *args, **kwargs):
        raise not_run_error(op, heads)
    return f


# ------------------------------------------------------------------------------ helpers
def _new(s, vals, name, idx=None, size=None, coalesced=None):
    return SparseCooTensor(s._idx if idx is None else idx, vals,
                           s._size if size is None else size,
                           s._coalesced if coalesced is None else coalesced, name)


def _is_number(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _unary(fn_name, grad_name):
    def f(self, *args, **kwargs):
        from ._sparse_csr import SparseCsrTensor

        fn = getattr(_torch(), fn_name)
        if type(self) is SparseCsrTensor:
            return SparseCsrTensor(self._crow, self._col, fn(self._vals, *args, **kwargs),
                                   self._size)
        s = self.coalesce()
        return _new(s, fn(s._vals, *args, **kwargs), grad_name, coalesced=True)
    f.__name__ = fn_name
    return f


# zero-preserving unary functions (torch has sparse kernels for them): name -> grad_fn name
_UNARY = {"abs": "AbsBackward0", "sin": "SinBackward0", "sqrt": "SqrtBackward0",
          "tanh": "TanhBackward0", "log1p": "Log1PBackward0", "square": "PowBackward0",
          "relu": "ReluBackward0", "asin": "AsinBackward0", "asinh": "AsinhBackward0",
          "atan": "AtanBackward0", "atanh": "AtanhBackward0", "sinh": "SinhBackward0",
          "tan": "TanBackward0", "sign": "SignBackward0", "sgn": "SgnBackward0",
          "ceil": "CeilBackward0", "floor": "FloorBackward0", "round": "RoundBackward0",
          "trunc": "TruncBackward0", "frac": "FracBackward0", "expm1": "Expm1Backward0",
          "deg2rad": "Deg2RadBackward0", "rad2deg": "Rad2DegBackward0", "erf": "ErfBackward0",
          "erfinv": "ErfinvBackward0", "neg": "NegBackward0"}


def _scalar(op, grad_name):
    def f(self, other):
        from ._sparse_csr import SparseCsrTensor

        torch = _torch()
        if isinstance(other, torch.Tensor) and other.dim() == 0:
            other = other.item() if not other.requires_grad else other
        if not (_is_number(other) or isinstance(other, torch.Tensor)):
            return NotImplemented
        if type(self) is SparseCsrTensor:
            return SparseCsrTensor(self._crow, self._col, op(self._vals, other), self._size)
        return _new(self, op(self._vals, other), grad_name)
    return f


def _check_same(a, b, what="add"):
    if tuple(a.shape) != tuple(b.shape):
        raise RuntimeError(f"{what}: expected sizes of 'self' and 'other' to match, but "
                           f"{list(a.shape)} != {list(b.shape)}")


def add(self, other, *, alpha=1):
    """sparse + sparse (concatenated, coalesced); sparse + dense or a number: torch's error."""
    torch = _torch()
    from ._sparse_csr import SparseCsrTensor

    if type(self) is SparseCsrTensor:
        if type(other) is SparseCsrTensor:
            from ._sparse_csr import to_sparse_csr

            return to_sparse_csr(add(self.to_sparse(), other.to_sparse(), alpha=alpha))
        if _is_number(other):
            raise RuntimeError(f"add: expected 'self' and 'other' to have same size, but self "
                               f"has size [] while other has size {list(self._size)} (FYI: "
                               "op2-sparse addition does not currently support broadcasting)")
        if isinstance(other, torch.Tensor):
            return self.to_dense() + other
        return NotImplemented
    if type(other) is SparseCsrTensor:
        raise RuntimeError("memory format option is only supported by strided tensors")
    if not isinstance(other, SparseCooTensor):
        raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) "
                           "instead.")
    _check_same(self, other)
    ov = other._vals if alpha == 1 else other._vals * alpha
    dt = torch.promote_types(self.dtype, ov.dtype)
    vals = torch.cat([self._vals.to(dt), ov.to(dt)])
    cat = SparseCooTensor(np.concatenate([self._idx, other._idx], 1), vals, self._size, False)
    out = cat.coalesce()
    out._name = "AddBackward0" if out._vals.requires_grad else None
    return out


def sub(self, other, *, alpha=1):
    if isinstance(other, SparseCooTensor) or type(other).__name__ == "Tensor" and \
            getattr(other, "is_sparse_csr", False):
        out = add(self, -other, alpha=alpha)
        if isinstance(out, SparseCooTensor):
            out._name = "SubBackward0" if out._vals.requires_grad else None
        return out
    return add(self, other, alpha=alpha)


def _radd(self, other):
    """dense + sparse: a dense tensor."""
    torch = _torch()
    if isinstance(other, torch.Tensor):
        return other + self.to_dense()
    if _is_number(other):
        raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) "
                           "instead.")
    return NotImplemented


def _rsub(self, other):
    torch = _torch()
    if isinstance(other, torch.Tensor):
        return other - self.to_dense()
    return NotImplemented


def mul(self, other):
    """sparse * number (the values scaled), sparse * dense (the dense entries at the sparse
    ones, coalesced first)."""
    torch = _torch()
    if _is_number(other) or isinstance(other, torch.Tensor) and other.dim() == 0:
        return _scalar(lambda v, o: v * o, "MulBackward0")(self, other)
    if isinstance(other, SparseCooTensor) and type(self) is SparseCooTensor:
        return _mul_sparse(self, other)
    from ._sparse_csr import SparseCsrTensor

    if type(self) is SparseCsrTensor and type(other) is SparseCsrTensor:
        from ._sparse_csr import to_sparse_csr

        return to_sparse_csr(_mul_sparse(self.to_sparse().coalesce(),
                                         other.to_sparse().coalesce()))
    if isinstance(other, torch.Tensor) and type(self) is SparseCooTensor:
        _check_same(self, other, "mul")
        s = self.coalesce()
        picked = other[tuple(torch.from_numpy(r.copy()) for r in s._idx)]
        return _new(s, s._vals * picked, "MulBackward0", coalesced=True)
    return NotImplemented


def _div(self, other):
    """sparse / a number or a 0-d tensor; anything else: torch's error."""
    torch = _torch()
    if isinstance(other, SparseCooTensor) or isinstance(other, torch.Tensor) and other.dim():
        raise RuntimeError(f"Sparse division requires a scalar or zero-dim dense tensor divisor "
                           f"(got shape {list(other.shape)} for divisor)")
    return _scalar(lambda v, o: v / o, "DivBackward0")(self, other)


def _not_emulated(name):
    def f(self, *args, **kwargs):
        raise NotImplementedError(f"gradrepl's torch does not emulate Tensor.{name} of a "
                                  "sparse tensor")
    f.__name__ = name
    return f


def _pow(self, other):
    if isinstance(other, _torch().Tensor):
        raise not_run_error("aten::pow.Tensor_Tensor")
    return _scalar(lambda v, o: v ** o, "PowBackward0")(self, other)


def _mul_sparse(a, b):
    """sparse * sparse as ATen here: both coalesced, the common entries (coalesced); else the
    entries of the operand with fewer, each its value times the other's there (0 where the other
    has none), uncoalesced (real torch 2.13, 4 pairs)."""
    torch = _torch()
    _check_same(a, b, "mul")
    if a._coalesced and b._coalesced:
        la, lb = (np.ravel_multi_index(tuple(t._idx), t._size[:t.sparse_dim()]) for t in (a, b))
        common, ia, ib = np.intersect1d(la, lb, assume_unique=True, return_indices=True)
        vals = a._vals[torch.from_numpy(ia)] * b._vals[torch.from_numpy(ib)]
        return SparseCooTensor(a._idx[:, ia], vals, a._size, True, "MulBackward0")
    small, big = (b, a) if b._nnz() <= a._nnz() else (a, b)
    big = big.coalesce()
    sd = small.sparse_dim()
    lb = np.ravel_multi_index(tuple(big._idx), big._size[:sd])
    ls = np.ravel_multi_index(tuple(small._idx), small._size[:sd])
    pos = np.searchsorted(lb, ls)
    pos_c = np.minimum(pos, max(lb.size - 1, 0))
    found = (lb.size > 0) & (lb[pos_c] == ls) if lb.size else np.zeros(ls.size, bool)
    picked = big._vals[torch.from_numpy(pos_c)] * small._vals if lb.size else small._vals * 0
    vals = torch.where(torch.from_numpy(found), picked, torch.zeros_like(picked))
    return SparseCooTensor(small._idx, vals, small._size, False, "MulBackward0")


def _ssum(self, dim=None, keepdim=False, dtype=None):
    from ._sparse_coo import sparse_sum

    return sparse_sum(self, dim, dtype=dtype)


def _grad(self):
    from ._sparse_coo import leaf_dense_grad

    g = self._vals.grad
    g = None if g is None else SparseCooTensor(self._idx, g, self._size, False)
    d = leaf_dense_grad(self, g)   # (a dense gradient through s @ D, as torch's)
    return g if d is None else d


def transpose(self, dim0, dim1):
    n = self.dim()
    d0, d1 = dim0 % n, dim1 % n
    if max(d0, d1) >= self.sparse_dim():
        raise RuntimeError("transpose of a sparse tensor's dense dimensions is not emulated by "
                           "gradrepl")
    idx = self._idx.copy()
    idx[[d0, d1]] = idx[[d1, d0]]
    size = list(self._size)
    size[d0], size[d1] = size[d1], size[d0]
    return _new(self, self._vals, "TransposeBackward0", idx, size, False)


def permute(self, *dims):
    dims = tuple(dims[0]) if len(dims) == 1 and isinstance(dims[0], (tuple, list)) else dims
    dims = [d % self.dim() for d in dims]
    if self.dense_dim():
        raise RuntimeError("permute of a hybrid sparse tensor is not emulated by gradrepl")
    return _new(self, self._vals, "PermuteBackward0", self._idx[dims],
                [self._size[d] for d in dims], False)


def _t_(self):
    t = self.t()
    self._idx, self._size, self._coalesced = t._idx, t._size, False
    return self


def index_select(self, dim, index):
    """For each selected index (in order), the entries there in stored order."""
    torch = _torch()
    dim %= self.dim()
    sel = np.asarray(index.tolist() if isinstance(index, torch.Tensor) else index, np.int64)
    rows = self._idx[dim]
    take, pos = [], []
    for k, i in enumerate(sel.tolist()):
        hits = np.nonzero(rows == i)[0]
        take.append(hits)
        pos.append(np.full(hits.size, k, np.int64))
    take = np.concatenate(take) if take else np.zeros(0, np.int64)
    idx = self._idx[:, take].copy()
    idx[dim] = np.concatenate(pos) if pos else take
    size = list(self._size)
    size[dim] = sel.size
    return _new(self, self._vals[torch.from_numpy(take)], "IndexSelectBackward0", idx, size,
                False)


def narrow_copy(self, dim, start, length):
    torch = _torch()
    dim %= self.dim()
    rows = self._idx[dim]
    take = np.nonzero((rows >= start) & (rows < start + length))[0]
    idx = self._idx[:, take].copy()
    idx[dim] -= start
    size = list(self._size)
    size[dim] = length
    return _new(self, self._vals[torch.from_numpy(take)], "NarrowCopyBackward0", idx, size,
                False)


def select(self, dim, index):
    torch = _torch()
    dim %= self.dim()
    if not -self._size[dim] <= index < self._size[dim]:   # (also ends iteration)
        raise IndexError(f"index {index} is out of bounds for dimension {dim} with size "
                         f"{self._size[dim]}")
    index %= self._size[dim]
    take = np.nonzero(self._idx[dim] == index)[0]
    idx = np.delete(self._idx[:, take], dim, 0)
    size = self._size[:dim] + self._size[dim + 1:]
    return _new(self, self._vals[torch.from_numpy(take)], "SelectBackward0", idx, size, False)


def _getitem(self, key):
    if isinstance(key, int):
        return select(self, 0, key)
    if isinstance(key, tuple) and all(isinstance(k, int) for k in key):
        out = self
        for k in key:
            out = select(out, 0, k)
        return out
    raise not_run_error("aten::as_strided", "cpu")


def unsqueeze(self, dim):
    dim %= self.dim() + 1
    if dim > self.sparse_dim():
        raise RuntimeError("unsqueeze of a sparse tensor's dense dimensions is not emulated by "
                           "gradrepl")
    idx = np.insert(self._idx, dim, 0, axis=0)
    return _new(self, self._vals, "UnsqueezeBackward0", idx,
                self._size[:dim] + (1,) + self._size[dim:])


def cat(tensors, dim=0):
    torch = _torch()
    dim %= tensors[0].dim()
    off, idxs = 0, []
    for t in tensors:
        i = t._idx.copy()
        i[dim] += off
        off += t._size[dim]
        idxs.append(i)
    size = list(tensors[0]._size)
    size[dim] = off
    vals = torch.cat([t._vals for t in tensors])
    return SparseCooTensor(np.concatenate(idxs, 1), vals, size, False, "CatBackward0")


def _zero_(self):
    torch = _torch()
    self._idx = np.zeros((self._idx.shape[0], 0), np.int64)
    self._vals = torch.zeros((0,) + tuple(self._vals.shape[1:]), dtype=self._vals.dtype)
    self._coalesced = True
    return self


def _inplace(fn):
    def f(self, *args, **kwargs):
        out = fn(self, *args, **kwargs)
        self._idx, self._vals, self._coalesced = out._idx, out._vals, out._coalesced
        return self
    return f


def _sparse_resize_(self, size, sparse_dim, dense_dim):
    self._size = tuple(int(s) for s in size)
    return self


def _requires_grad_(self, requires_grad=True):
    self._vals.requires_grad_(requires_grad)
    return self


def _no_storage(self, *args):
    raise RuntimeError("Cannot access data pointer of Tensor that doesn't have storage")


def _backward(self, *args, **kwargs):
    raise RuntimeError("memory format option is only supported by strided tensors")


def _numpy(self, *args, **kwargs):
    raise TypeError("can't convert Sparse layout tensor to numpy. Use Tensor.to_dense() first.")


def _compressed_only(name, kind):
    def f(self):
        raise RuntimeError(f"{name} expected sparse {kind} compressed tensor layout but got "
                           "Sparse")
    f.__name__ = name
    return f


def _reshape(self, *args):
    raise RuntimeError("reshape is not implemented for sparse tensors")


def _expand(self, *args):
    raise RuntimeError("expand is unsupported for Sparse tensors")


def _len(self):
    if not self._size:
        raise TypeError("len() of a 0-d tensor")
    return self._size[0]


_NO_KERNEL = {   # method/function name -> (aten op, its backends' list in _HEADS)
    "exp": ("aten::exp", "csr"), "sigmoid": ("aten::sigmoid", "csr"),
    "argmax": ("aten::argmax", "csr"), "cumsum": ("aten::cumsum", "csr"),
    "sort": ("aten::sort.stable", "csr"), "clamp": ("aten::clamp", "csr"),
    "log": ("aten::log", "csr"), "amax": ("aten::amax", "csr"), "mean": ("aten::mean.dim", "csr"),
    "max": ("aten::max", "cpu"), "view": ("aten::view", "view"),
    "squeeze": ("aten::as_strided", "cpu"),
    "softmax": ("aten::_softmax", "nested"), "__gt__": ("aten::gt.Scalar", "nested"),
    "gt": ("aten::gt.Scalar", "nested"), "__eq__": ("aten::eq.Tensor", "nested"),
    "eq": ("aten::eq.Tensor", "nested"),
}


def _methods():
    """The methods of the COO tensor (name -> function)."""
    torch_ = _torch

    def _dtype_to(dt):
        return lambda self: self.to(getattr(torch_(), dt))

    m = {name: _unary(name, grad) for name, grad in _UNARY.items()}
    m.update({
        "__mul__": mul, "__rmul__": mul, "mul": mul,
        "__truediv__": _div, "div": _div,
        "masked_fill": _not_emulated("masked_fill"),
        "__floordiv__": _scalar(lambda v, o: v // o, "FloorDivideBackward0"),
        "pow": _pow, "__pow__": _pow,
        "__add__": add, "add": add, "__radd__": _radd,
        "__sub__": sub, "sub": sub, "__rsub__": _rsub,
        "add_": _inplace(add), "sub_": _inplace(sub), "mul_": _inplace(mul),
        "zero_": _zero_, "sum": _ssum, "grad": property(_grad),
        "is_leaf": property(lambda self: self._vals.is_leaf),
        "requires_grad_": _requires_grad_,
        "transpose": transpose, "permute": permute, "t_": _t_,
        "index_select": index_select, "narrow_copy": narrow_copy, "select": select,
        "__getitem__": _getitem, "unsqueeze": unsqueeze,
        "crow_indices": _compressed_only("crow_indices", "row"),
        "col_indices": _compressed_only("col_indices", "row"),
        "ccol_indices": _compressed_only("ccol_indices", "column"),
        "row_indices": _compressed_only("row_indices", "column"),
        "mv": _mv, "__rmatmul__": _rmatmul, "matmul": _matmul, "__matmul__": _matmul,
        "sparse_resize_": _sparse_resize_, "reshape": _reshape, "flatten": _reshape,
        "expand": _expand, "__len__": _len, "numpy": _numpy, "tolist": _no_storage,
        "item": lambda self: self.to_dense().item(),
        "norm": lambda self, *a, **k: self.coalesce()._vals.norm(*a, **k),
        "backward": _backward,
        "int": _dtype_to("int32"), "long": _dtype_to("int64"), "half": _dtype_to("float16"),
        "bfloat16": _dtype_to("bfloat16"),
        "element_size": lambda self: self._vals.element_size(),
        "is_floating_point": lambda self: self._vals.is_floating_point(),
        "is_complex": lambda self: self._vals.is_complex(),
        "is_cuda": property(lambda self: False), "is_contiguous": lambda self, *a, **k: False,
    })
    for name, (op, heads) in _NO_KERNEL.items():
        m.setdefault(name, _no_kernel(op, heads))
    return m


# the torch functions that hand a sparse first argument to the methods above
_FUNCTIONS = tuple(_UNARY) + ("add", "sub", "mul", "div", "pow", "transpose", "permute", "mv",
                              "index_select", "narrow_copy", "select", "unsqueeze", "t",
                              "sum") + tuple(n for n in _NO_KERNEL if not n.startswith("_"))

_CSR_METHODS = tuple(_UNARY) + ("__mul__", "__rmul__", "mul", "__truediv__", "div",
                                "__add__", "add", "__radd__", "__rmatmul__")


def _sparse_aware(fn, name):
    from ._sparse_csr import SparseCsrTensor

    def f(input, *args, **kwargs):  # noqa: A002
        if type(input) in (SparseCooTensor, SparseCsrTensor):
            return getattr(input, name)(*args, **kwargs)
        if name == "cat" and input and type(input[0]) is SparseCooTensor:
            return cat(input, *args, **kwargs)
        return fn(input, *args, **kwargs)
    f.__name__, f.__qualname__, f.__doc__ = fn.__name__, fn.__qualname__, fn.__doc__
    _out.PASS_THROUGH.add(f.__code__)
    f.__module__, f.__wrapped__ = fn.__module__, fn
    return f


def _sparse_second(fn, name):
    """torch.mm / matmul with a dense first and sparse second operand; torch.addmm with a
    sparse mat1."""
    from ._sparse_csr import SparseCsrTensor

    def f(input, *args, **kwargs):  # noqa: A002
        if name == "addmm" and args and type(args[0]) is SparseCooTensor:
            return addmm(input, *args, **kwargs)
        if name != "addmm" and args and type(args[0]) in (SparseCooTensor, SparseCsrTensor) \
                and type(input) not in (SparseCooTensor, SparseCsrTensor):
            return _rmatmul(args[0], input)
        return fn(input, *args, **kwargs)
    f.__name__, f.__qualname__, f.__doc__ = fn.__name__, fn.__qualname__, fn.__doc__
    _out.PASS_THROUGH.add(f.__code__)
    f.__module__, f.__wrapped__ = fn.__module__, fn
    return f


def _strided_error(name, what):
    def f(self, *args, **kwargs):
        raise RuntimeError(f"{name} expected {what} layout but got Strided")
    f.__name__ = name
    return f


# a dense tensor's sparse-only methods: torch's layout errors (to_dense: the tensor itself)
_DENSE_METHODS = {
    "coalesce": _strided_error("coalesce", "sparse coordinate tensor"),
    "indices": _strided_error("indices", "sparse coordinate tensor"),
    "values": _strided_error("values", "sparse tensor"),
    "crow_indices": _strided_error("crow_indices", "sparse row compressed tensor"),
    "col_indices": _strided_error("col_indices", "sparse row compressed tensor"),
    "ccol_indices": _strided_error("ccol_indices", "sparse column compressed tensor"),
    "row_indices": _strided_error("row_indices", "sparse column compressed tensor"),
}


def _dense_to_dense(self, dtype=None, *, masked_grad=None):
    return self if dtype is None else self.to(dtype)


def install(torch_module):
    from ._sparse_csr import SparseCsrTensor

    from ._method_repr import _MARK, own_copy

    conv = [(n, torch_module.Tensor.__dict__[n]) for n in ("to_sparse", "to_sparse_coo",
            "to_sparse_csr", "to_sparse_csc", "to_sparse_bsr", "to_sparse_bsc")]
    for name, fn in list(_DENSE_METHODS.items()) + [("to_dense", _dense_to_dense)] + conv:
        g = own_copy(fn)   # (printed as torch's C method)
        g.__dict__[_MARK] = ("builtin", name)
        setattr(torch_module.Tensor, name, g)

    methods = _methods()
    for name, fn in methods.items():
        if name not in SparseCooTensor.__dict__ or name in ("__mul__", "__rmul__",
                                                             "__matmul__"):
            setattr(SparseCooTensor, name, fn)
    for name in _CSR_METHODS:
        if name not in SparseCsrTensor.__dict__:
            setattr(SparseCsrTensor, name, methods[name])
    SparseCsrTensor.__neg__ = methods["neg"]
    for name in ("mm", "matmul", "addmm"):   # (a sparse second operand / mat1)
        setattr(torch_module, name, _sparse_second(getattr(torch_module, name), name))
    from . import sparse

    sparse.mm, sparse.addmm, sparse.sampled_addmm = sparse_mm, addmm, sampled_addmm
    sparse.softmax, sparse.log_softmax = softmax, log_softmax
    for name in _FUNCTIONS + ("cat",):
        fn = getattr(torch_module, name, None)
        if fn is not None:
            setattr(torch_module, name, _sparse_aware(fn, name))


# ------------------------------------------------------------------------------ products
def _mm_checks(s, dense):
    if s.dense_dim():
        raise RuntimeError(f"addmm: matrices expected, got {s.sparse_dim()}D tensor")
    if s.dim() == 2 and dense.dim() == 2 and s._size[1] != dense.shape[0]:
        raise RuntimeError(f"addmm: Argument #3 (dense): Expected dim 0 size {s._size[1]}, got "
                           f"{dense.shape[0]}")
    if dense.dim() == 1 and s.dense_dim() == 0:
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got "
                         "1)")
    if dense.dtype != s.dtype:
        raise RuntimeError(f"expected scalar type {s.dtype.legacy} but found "
                           f"{dense.dtype.legacy}")


def sparse_mm(a, b):
    """``torch.sparse.mm``: sparse x dense, sparse x sparse, and dense x sparse (the
    transposed product)."""
    from ._sparse_coo import mm

    if isinstance(a, SparseCooTensor):
        if not isinstance(b, SparseCooTensor):
            _mm_checks(a, b)
        return mm(a, b)
    if isinstance(b, SparseCooTensor):
        return _dense_sparse(a, b)
    return _torch().mm(a, b)


def _dense_sparse(d, s):
    """dense @ sparse: ``(s^T @ d^T)^T`` (ATen's route for a sparse second operand)."""
    from ._sparse_coo import _SPMM_MM, mm

    return mm(s.t(), d.t(), _SPMM_MM).t()


def _mv(self, vec):
    from ._sparse_coo import _SPMM_MM, mm

    return mm(self, vec.unsqueeze(1), _SPMM_MM).squeeze(1)


def _rmatmul(self, other):
    torch = _torch()
    if isinstance(other, torch.Tensor) and other.dim() == 2:
        return _dense_sparse(other, self.to_sparse() if type(self) is not SparseCooTensor
                             else self)
    return NotImplemented


def _matmul(self, other):
    from ._sparse_coo import _SPMM_MM, mm

    if isinstance(other, _torch().Tensor) and other.dim() == 1:
        return _mv(self, other)
    return mm(self, other, _SPMM_MM)


def addmm(input, mat1, mat2, *, beta=1, alpha=1):  # noqa: A002
    """``torch.sparse.addmm`` / ``torch.addmm`` with a sparse mat1: ``beta*input +
    alpha*(mat1 @ mat2)`` (the grad_fn torch's SparseAddmmBackward0)."""
    from ._sparse_coo import _named

    _mm_checks(mat1, mat2)
    prod = sparse_mm(mat1, mat2)
    out = (input if beta == 1 else input * beta) + (prod if alpha == 1 else prod * alpha)
    return _named(out, "SparseAddmmBackward0")


def sampled_addmm(input, mat1, mat2, *, beta=1.0, alpha=1.0, out=None):  # noqa: A002
    """``torch.sparse.sampled_addmm``: a CSR ``input``'s pattern, each entry ``beta*value +
    alpha*(mat1 @ mat2)[row, col]``."""
    from ._sparse_csr import SparseCsrTensor

    torch = _torch()
    if type(input) is not SparseCsrTensor:
        raise not_run_error("aten::sparse_sampled_addmm", "sampled")
    r, c, v = input._entries()
    picked = torch.mm(mat1, mat2)[torch.from_numpy(r.copy()), torch.from_numpy(c.copy())]
    vals = (v if beta == 1 else v * beta) + (picked if alpha == 1 else picked * alpha)
    return SparseCsrTensor(input._crow, input._col, vals, input._size, input._kind,
                           "SparseSampledAddmmBackward0")


# ------------------------------------------------------------------------------ softmax
def _softmax_groups(s, dim):
    """Each coalesced entry's group: the entries sharing every sparse index but ``dim``."""
    keep = [d for d in range(s.sparse_dim()) if d != dim]
    if not keep:
        return np.zeros(s._nnz(), np.int64)
    keys = s._idx[keep].T
    return np.unique(keys, axis=0, return_inverse=True)[1].reshape(-1)


def _softmax_fwd(v, groups=None, log=False):
    """ATen's sparse softmax on CPU: per group, in double (its accumulate type): exp(x - max)
    stored in the values' dtype, their sum, each stored value times 1/sum (log: x - max -
    log(sum)), rounded to the dtype (real torch 2.13 here, float32 and float64)."""
    from ..engine.ops.nn import exp_c

    out = np.empty_like(v)
    for g in np.unique(groups):
        sel = np.nonzero(groups == g)[0]
        x = v[sel].astype(np.float64)
        sh = x - x.max(0)
        e = exp_c(sh)
        tot = np.zeros(x.shape[1:], np.float64)
        for t in e:
            tot = tot + t
        if log:
            out[sel] = (sh - np.log(tot)).astype(v.dtype)
        else:
            out[sel] = (e.astype(v.dtype).astype(np.float64) * (1.0 / tot)).astype(v.dtype)
    return out


def _softmax_vjp(n, g):
    torch = _torch()
    y = n.out()
    groups = torch.from_numpy(n.attrs["groups"])
    k = int(n.attrs["groups"].max()) + 1 if n.attrs["groups"].size else 0
    if n.attrs["log"]:
        tot = torch.zeros((k,) + tuple(g.shape[1:]), dtype=g.dtype).index_add(0, groups, g)
        return (g - y.exp() * tot[groups],)
    gy = g * y
    tot = torch.zeros((k,) + tuple(g.shape[1:]), dtype=g.dtype).index_add(0, groups, gy)
    return (gy - y * tot[groups],)


def _softmax_op(name):
    from ..engine.registry import OpDef

    op = OpDef("sparse_" + name, _softmax_fwd, _softmax_vjp, saves_inputs=False, check=False)
    op.torch_name = name
    op.torch_saves = "all"
    op.torch_inputs = None
    return op


_SOFTMAX = _softmax_op("SparseSoftmaxBackward0")
_LOG_SOFTMAX = _softmax_op("SparseLogSoftmaxBackward0")


def _sparse_softmax(log):
    def f(input, dim, dtype=None):  # noqa: A002
        from ..engine.registry import apply
        from ._sparse_csr import SparseCsrTensor

        if type(input) is SparseCsrTensor:
            raise not_run_error("aten::_sparse_softmax", "sparse_softmax",
                                input._layout_name() + "CPU")
        s = input.coalesce()
        vals = s._vals if dtype is None else s._vals.to(dtype)
        dim %= s.dim()
        out = apply(_LOG_SOFTMAX if log else _SOFTMAX, (vals,),
                    {"groups": _softmax_groups(s, dim), "log": log})
        res = SparseCooTensor(s._idx, out, s._size, True)
        res._name = out.grad_fn.name() if out.requires_grad else None
        return res
    f.__name__ = "log_softmax" if log else "softmax"
    return f


softmax = _sparse_softmax(False)
log_softmax = _sparse_softmax(True)
