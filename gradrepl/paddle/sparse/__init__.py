"""``paddle.sparse``: COO and CSR tensors as Paddle's dygraph shows them.

A sparse tensor here holds dense gradrepl Tensors for its parts (``indices`` or ``crows`` and
``cols``, and ``values``), so whatever is computed on it is computed by the engine's ops and
keeps their gradients: ``to_dense`` scatters the values (a differentiable scatter, the last
duplicate winning as in Paddle's kernel), the unary functions map the values. It prints as
Paddle's ``sparse_tensor_to_string`` does; ``type()`` says ``paddle.Tensor`` as in Paddle,
where a sparse tensor is a Tensor of another layout.

Arithmetic operators between sparse tensors crash real Paddle's CPU build (2.6.2 aborts, 3.3.1
raises an OSError on a bad dimension), so they raise a clear error here instead.
"""

from __future__ import annotations

import numpy as np

from .. import profiles
from ..core import PaddleClass, Size, Tensor
from ..printing import format_data

__all__ = ["sparse_coo_tensor", "sparse_csr_tensor", "coalesce", "matmul", "mv", "sum",
           "abs", "sin", "tan", "asin", "atan", "sinh", "tanh", "asinh", "atanh", "sqrt",
           "square", "log1p", "expm1", "neg", "deg2rad", "rad2deg", "isnan", "pow", "cast",
           "nn"]


def _P():
    import gradrepl.paddle as paddle

    return paddle


def _as_tensor(data, dtype=None):
    if isinstance(data, Tensor):
        return data if dtype is None else data.astype(dtype)
    return _P().to_tensor(data, dtype=dtype)


class SparseTensor(metaclass=PaddleClass):
    """A COO (``indices``, ``values``) or CSR (``crows``, ``cols``, ``values``) tensor."""

    _paddle_path = "paddle.Tensor"

    def __init__(self, layout, parts, values, shape, stop_gradient=True):
        self._layout = layout            # "coo" or "csr"
        self._parts = parts              # (indices,) or (crows, cols): int64 Tensors
        self._values = values
        self._shape = [int(s) for s in shape]
        self.stop_gradient = stop_gradient
        self.grad = None
        self.name = None

    # ---- what a Tensor answers -------------------------------------------------------
    @property
    def shape(self):
        return Size(self._shape) if profiles.current().shape_is_size else list(self._shape)

    @property
    def dtype(self):
        return self._values.dtype

    @property
    def place(self):
        return self._values.place

    @property
    def ndim(self):
        return len(self._shape)

    def dim(self):
        return len(self._shape)

    def is_sparse(self):
        return True

    def is_sparse_coo(self):
        return self._layout == "coo"

    def is_sparse_csr(self):
        return self._layout == "csr"

    def is_dense(self):
        return False

    def nnz(self):
        return int(self._values.shape[0])

    @property
    def sparse_dim(self):
        """Paddle 3's ``sparse_dim()`` (2.x has no such attribute)."""
        _since3("sparse_dim")
        return lambda: int(self._parts[0].shape[0]) if self._layout == "coo" else 2

    @property
    def dense_dim(self):
        """Paddle 3's ``dense_dim()`` (2.x has no such attribute)."""
        _since3("dense_dim")
        return lambda: len(self._shape) - self.sparse_dim()

    def values(self):
        return self._values

    def indices(self):
        if self._layout != "coo":
            raise SystemError("(Fatal) this method is only effective for SparseCooTensor")
        return self._parts[0]

    def crows(self):
        if self._layout != "csr":
            raise SystemError("(Fatal) this method is only effective for SparseCsrTensor")
        return self._parts[0]

    def cols(self):
        if self._layout != "csr":
            raise SystemError("(Fatal) this method is only effective for SparseCsrTensor")
        return self._parts[1]

    # ---- conversions -----------------------------------------------------------------
    def _coo_indices(self) -> np.ndarray:
        if self._layout == "coo":
            return self._parts[0].numpy().astype(np.int64)
        crows, cols = (p.numpy().astype(np.int64) for p in self._parts)
        rows = np.repeat(np.arange(len(crows) - 1), np.diff(crows))
        return np.stack([rows, cols])

    def to_dense(self):
        paddle = _P()
        idx = self._coo_indices()
        sparse_shape = self._shape[:idx.shape[0]]
        dense_shape = self._shape[idx.shape[0]:]
        rows = int(np.prod(sparse_shape)) if sparse_shape else 1
        flat = np.ravel_multi_index(tuple(idx), sparse_shape) if idx.size else \
            np.zeros(0, np.int64)
        base = paddle.zeros([rows] + dense_shape, dtype=self._values.dtype)
        if flat.size == 0:
            return base.reshape(self._shape)
        out = paddle.scatter(base, paddle.to_tensor(flat.astype(np.int64)), self._values,
                             overwrite=True)
        return out.reshape(self._shape)

    def to_sparse_coo(self, sparse_dim=None):
        if self._layout == "coo":
            return self
        return SparseTensor("coo", (_P().to_tensor(self._coo_indices()),), self._values,
                            self._shape, self.stop_gradient)

    def to_sparse_csr(self):
        if self._layout == "csr":
            return self
        if len(self._shape) != 2 or self._parts[0].shape[0] != 2:
            raise ValueError("gradrepl's paddle.sparse converts 2-D COO tensors with two sparse "
                             f"dimensions to CSR; this one has shape {self._shape}")
        c = self.coalesce()
        idx = c._parts[0].numpy()
        crows = np.zeros(self._shape[0] + 1, np.int64)
        np.add.at(crows, idx[0] + 1, 1)
        paddle = _P()
        return SparseTensor("csr", (paddle.to_tensor(np.cumsum(crows)),
                                    paddle.to_tensor(idx[1].astype(np.int64))),
                            c._values, self._shape, self.stop_gradient)

    def coalesce(self):
        """Sorted unique indices, the values of equal indices summed."""
        if self._layout != "coo":
            raise NotImplementedError("(Unimplemented) The kernel of (coalesce) for input "
                                      "tensors is unimplemented, please check the type of "
                                      "input tensors.")
        paddle = _P()
        idx = self._parts[0].numpy().astype(np.int64)
        sparse_shape = self._shape[:idx.shape[0]]
        flat = np.ravel_multi_index(tuple(idx), sparse_shape)
        uniq, inverse = np.unique(flat, return_inverse=True)
        seg = paddle.to_tensor(inverse.astype(np.int64))
        rows = [len(uniq)] + self._shape[idx.shape[0]:]
        values = paddle.scatter(paddle.zeros(rows, dtype=self._values.dtype), seg,
                                self._values, overwrite=False)
        new_idx = np.stack(np.unravel_index(uniq, sparse_shape)).astype(np.int64)
        return SparseTensor("coo", (paddle.to_tensor(new_idx),), values, self._shape,
                            self.stop_gradient)

    def cast(self, index_dtype=None, value_dtype=None):
        parts = self._parts if index_dtype is None else tuple(p.astype(index_dtype)
                                                              for p in self._parts)
        values = self._values if value_dtype is None else self._values.astype(value_dtype)
        return SparseTensor(self._layout, parts, values, self._shape, self.stop_gradient)

    def numpy(self):
        raise NotImplementedError("(Unimplemented) numpy() of a sparse tensor: call "
                                  "to_dense() first")

    # ---- printing --------------------------------------------------------------------
    def __repr__(self):
        indent = len("Tensor") + 1
        pad = " " * indent
        head = (f"Tensor(shape={list(self._shape)}, dtype=paddle.{self.dtype.name}, place={self.place}, "
                f"stop_gradient={self.stop_gradient}, \n")
        names = ("indices",) if self._layout == "coo" else ("crows", "cols")
        rows = [f"{n}=" + format_data(p.numpy(), indent + len(n) + 1)
                for n, p in zip(names, self._parts)]
        rows.append("values=" + format_data(self._values.numpy(), indent + len("values=")))
        return head + (", \n").join(pad + r for r in rows) + ")"

    __str__ = __repr__

    # ---- operators: refused with a reason ---------------------------------------------
    def _no_operator(self, *args):
        raise TypeError("arithmetic operators on sparse tensors are not emulated (real "
                        "Paddle's CPU build fails on them): compute on x.to_dense(), "
                        "or map the values with paddle.sparse.sin, ...")

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _no_operator
    __truediv__ = __rtruediv__ = __matmul__ = __rmatmul__ = __neg__ = _no_operator


def _since3(name):
    if not profiles.current().api3:
        raise AttributeError(f"'Tensor' object has no attribute '{name}'")


def _index_parts(indices):
    t = _as_tensor(indices)
    if t.dtype.name not in ("int32", "int64"):
        raise TypeError(f"paddle.sparse: indices must be int32 or int64, got {t.dtype.name}")
    return t


def sparse_coo_tensor(indices, values, shape=None, dtype=None, place=None,
                      stop_gradient=True):
    indices = _index_parts(indices)
    values = _as_tensor(values, dtype)
    if indices.ndim != 2:
        raise ValueError(f"'indices' must be 2-D, but got shape {list(indices.shape)}")
    idx = indices.numpy()
    if shape is None:
        sparse_shape = (idx.max(axis=1) + 1).tolist() if idx.size else [0] * idx.shape[0]
        shape = sparse_shape + list(values.shape[1:])
    shape = [int(s) for s in shape]
    if idx.shape[0] > len(shape):
        raise ValueError(f"the number of dimensions ({len(shape)}) is less than the sparse "
                         f"dimensions of indices ({idx.shape[0]})")
    if idx.size and (idx.min() < 0 or (idx.max(axis=1) >= np.array(shape[:idx.shape[0]])).any()):
        raise ValueError(f"the indices {idx.tolist()} fall outside the shape {shape}")
    return SparseTensor("coo", (indices,), values, shape, stop_gradient)


def sparse_csr_tensor(crows, cols, values, shape, dtype=None, place=None, stop_gradient=True):
    crows, cols = _index_parts(crows), _index_parts(cols)
    values = _as_tensor(values, dtype)
    shape = [int(s) for s in shape]
    if len(shape) != 2:
        raise ValueError("gradrepl's paddle.sparse builds 2-D CSR tensors; got shape "
                         f"{shape}")
    if crows.shape[0] != shape[0] + 1:
        raise ValueError(f"crows must have {shape[0] + 1} elements for {shape[0]} rows, got "
                         f"{crows.shape[0]}")
    return SparseTensor("csr", (crows, cols), values, shape, stop_gradient)


def coalesce(x, name=None):
    return x.coalesce()


def _map_values(fn):
    def apply(x, *args, name=None, **kwargs):
        if not isinstance(x, SparseTensor):
            raise TypeError(f"paddle.sparse.{fn}: x must be a sparse tensor, got "
                            f"{type(x).__name__}")
        out = getattr(_P(), fn)(x._values, *args, **kwargs)
        return SparseTensor(x._layout, x._parts, out, x._shape, x.stop_gradient)
    apply.__name__ = fn
    apply.__doc__ = f"``paddle.sparse.{fn}``: {fn} of the stored values; zeros stay zeros."
    return apply


for _fn in ("abs", "sin", "tan", "asin", "atan", "sinh", "tanh", "asinh", "atanh", "sqrt",
            "square", "log1p", "expm1", "deg2rad", "rad2deg", "isnan", "pow"):
    globals()[_fn] = _map_values(_fn)
neg = _map_values("neg")


def cast(x, index_dtype=None, value_dtype=None, name=None):
    return x.cast(index_dtype, value_dtype)


def matmul(x, y, name=None):
    """sparse @ dense (a dense result), as the dense product of ``x.to_dense()``."""
    if isinstance(y, SparseTensor):
        raise TypeError("paddle.sparse.matmul: gradrepl emulates a sparse x times a dense y")
    return _P().matmul(x.to_dense(), y)


def mv(x, vec, name=None):
    return matmul(x, vec)


def sum(x, axis=None, dtype=None, keepdim=False, name=None):
    """The sum of the stored values (``axis=None``), as a sparse tensor of shape [1]."""
    if axis is not None:
        raise NotImplementedError("gradrepl's paddle.sparse.sum sums over all axes only")
    total = _P().sum(x._values, dtype=dtype).reshape([1])
    return SparseTensor("coo", (_P().zeros([1, 1], dtype="int64"),), total, [1],
                        x.stop_gradient)


def dense_to_sparse_coo(x, sparse_dim):
    """``Tensor.to_sparse_coo``: the nonzero entries of the first ``sparse_dim`` axes."""
    if not 0 < sparse_dim <= x.ndim:
        raise ValueError(f"sparse_dim must be in [1, {x.ndim}], got {sparse_dim}")
    a = x.numpy()
    lead = a.reshape(a.shape[:sparse_dim] + (-1,))
    mask = (lead != 0).any(axis=-1)
    idx = np.stack(np.nonzero(mask)).astype(np.int64)
    flat = np.ravel_multi_index(tuple(idx), a.shape[:sparse_dim]) if idx.size else \
        np.zeros(0, np.int64)
    rows = x.reshape([int(np.prod(a.shape[:sparse_dim]))] + list(a.shape[sparse_dim:]))
    values = _P().gather(rows, _P().to_tensor(flat.astype(np.int64)))
    return SparseTensor("coo", (_P().to_tensor(idx),), values, list(a.shape),
                        x.stop_gradient)


def dense_to_sparse_csr(x):
    if x.ndim != 2:
        raise ValueError("gradrepl's to_sparse_csr converts 2-D tensors; got shape "
                         f"{list(x.shape)}")
    return dense_to_sparse_coo(x, 2).to_sparse_csr()


from . import nn  # noqa: E402  (paddle.sparse.nn.functional.relu, ...)
