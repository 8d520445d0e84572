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
from .kernels import coo_to_csr_crows, flat_index, merge, sum_groups

__all__ = ["sparse_coo_tensor", "sparse_csr_tensor", "coalesce", "matmul", "mv", "addmm", "sum",
           "add", "subtract", "multiply", "divide", "transpose", "reshape", "is_same_shape",
           "masked_matmul", "mask_as", "pca_lowrank",
           "slice",
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
            raise SystemError("(Fatal) this method is only effective for SparseCooTensor"
                              + _pybind_at("indices"))
        return self._parts[0]

    def crows(self):
        if self._layout != "csr":
            raise SystemError("(Fatal) this method is only effective for SparseCsrTensor"
                              + _pybind_at("crows"))
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
        # Paddle's CooToCsr: crows filled as if the rows were sorted, columns and values kept
        # in the COO's order (no coalescing: an unsorted COO gives Paddle's odd rows too)
        idx = self._parts[0].numpy()
        paddle = _P()
        return SparseTensor("csr", (paddle.to_tensor(coo_to_csr_crows(idx[0], self._shape[0])),
                                    paddle.to_tensor(idx[1].astype(np.int64))),
                            self._values, self._shape, self.stop_gradient)

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

    def detach(self):
        return SparseTensor(self._layout, self._parts, self._values.detach(), self._shape, True)

    def astype(self, dtype):
        """No sparse kernel: 3.x's dense-kernel error (2.6.2 aborts: refused here)."""
        if profiles.current().key == "3":
            raise OSError(_DDIM_ERROR)
        self._no_operator()

    def clone(self):
        self.astype(None)

    def backward(self, grad_tensor=None, retain_graph=False):
        self._values.backward(grad_tensor if grad_tensor is None else grad_tensor.values(),
                              retain_graph=retain_graph)

    def clear_gradient(self, set_to_zero=True):
        self.grad = None

    clear_grad = clear_gradient

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

    # ---- operators: Paddle's errors where measured, else refused with a reason ---------
    def _no_operator(self, *args):
        raise TypeError("arithmetic operators on sparse tensors are not emulated (real "
                        "Paddle's CPU build fails on them): compute on x.to_dense(), "
                        "or map the values with paddle.sparse.sin, ...")

    def _operator(op, scalar_kernel):
        """``x <op> other``: with a Python number, Paddle's dense ``scale`` (or, 3.x's ``/``,
        the divide) kernel, which has no sparse kernel: its error (real 3.3.1 and 2.6.2)."""
        def apply(self, other=None):
            key = profiles.current().key
            if other is None or (isinstance(other, (int, float)) and not isinstance(other, bool)):
                if key == "3" and scalar_kernel != "scale":
                    raise OSError(_DDIM_ERROR)
                line = _SCALE_LINE.get(key)
                if line is not None and scalar_kernel != "pow":
                    raise NotImplementedError(
                        "(Unimplemented) The kernel of (scale) for input tensors is "
                        "unimplemented, please check the type of input tensors. (at "
                        f"/paddle/paddle/phi/api/lib/api.cc:{line})\n")
            elif key == "3" and isinstance(other, SparseTensor) and op != "pow":
                raise OSError(_DDIM_ERROR)
            elif key == "3" and isinstance(other, Tensor) and op == "mul":
                raise NotImplementedError(
                    "(Unimplemented) The kernel of (multiply) for input tensors is "
                    "unimplemented, please check the type of input tensors. (at "
                    "/paddle/paddle/phi/api/lib/api.cc:146484)\n")
            self._no_operator()
        apply.__name__ = f"__{op}__"
        return apply

    __add__ = __radd__ = _operator("add", "scale")
    __sub__ = __rsub__ = _operator("sub", "scale")
    __mul__ = __rmul__ = _operator("mul", "scale")
    __neg__ = _operator("neg", "scale")
    __truediv__ = _operator("div", "divide")
    __pow__ = _operator("pow", "pow")
    __rtruediv__ = __matmul__ = __rmatmul__ = _no_operator
    del _operator


# where Paddle's generated api.cc raises for the scale kernel of a sparse input, per version
_SCALE_LINE = {"3": 109668, "2.6": 56944}
# 3.x's error for a dense kernel handed a sparse tensor's meta (+, -, *, / of two sparse
# tensors, / by a number): 2.6.2 aborts the process there instead (not emulated: refused)
_DDIM_ERROR = ("Unimplemented error. Invalid dimension to be accessed. Now only supports access "
               "to dimension 0 to 9, but received dimension is 10.\n  [/paddle/paddle/common/"
               "ddim.h:114]")


# the pybind lines of the layout errors (indices() of a CSR, crows() of a COO tensor)
_PYBIND_LINES = {"3": {"indices": 2650, "crows": 2746}, "2.6": {"indices": 2228, "crows": 2325}}


def _pybind_at(method):
    line = _PYBIND_LINES.get(profiles.current().key, {}).get(method)
    return "" if line is None else f" (at /paddle/paddle/fluid/pybind/eager_method.cc:{line})\n"


def _since3(name):
    if not profiles.current().api3:
        raise AttributeError(f"'Tensor' object has no attribute '{name}'")


def _index_parts(indices):
    t = _as_tensor(indices)
    if t.dtype.name not in ("int8", "int16", "int32", "int64"):
        raise TypeError("the dtype of indices must be 'int8' or 'int16' or 'int32' or 'int64'")
    return t


def sparse_coo_tensor(indices, values, shape=None, dtype=None, place=None,
                      stop_gradient=True):
    indices = _index_parts(indices)
    values = _as_tensor(values, dtype)
    if indices.ndim != 2:
        raise ValueError("'indices' must be 2-D.")
    idx = indices.numpy()
    if shape is None:
        sparse_shape = (idx.max(axis=1) + 1).tolist() if idx.size else [0] * idx.shape[0]
        shape = sparse_shape + list(values.shape[1:])
    shape = [int(s) for s in shape]
    if idx.shape[0] > len(shape):
        raise ValueError(f"the number of dimensions ({len(shape)}) is less than the sparse "
                         f"dimensions of indices ({idx.shape[0]})")
    if idx.size and (idx.max(axis=1) >= np.array(shape[:idx.shape[0]])).any():
        word = "minimum" if profiles.current().key == "3" else "minimun"   # (2.x's spelling)
        need = list(idx.max(axis=1) + 1)
        raise ValueError(f"the {word} shape required is {need}, but get {shape}")
    if idx.size and idx.min() < 0:
        raise ValueError(f"the indices {idx.tolist()} fall outside the shape {shape}")
    return SparseTensor("coo", (indices,), _own_values(values, stop_gradient), shape,
                        stop_gradient)


def _own_values(values, stop_gradient):
    """The tensor's values: with stop_gradient False, a tensor of its own that takes
    gradients (Paddle's values() of such a tensor has stop_gradient False; the sparse tensor's
    own .grad stays None, as in Paddle)."""
    if stop_gradient or not values.stop_gradient:
        return values
    own = values.detach()
    own.stop_gradient = False
    return own


def sparse_csr_tensor(crows, cols, values, shape, dtype=None, place=None, stop_gradient=True):
    crows, cols = _index_parts(crows), _index_parts(cols)
    values = _as_tensor(values, dtype)
    shape = [int(s) for s in shape]
    if len(shape) != 2:
        raise ValueError("gradrepl's paddle.sparse builds 2-D CSR tensors; got shape "
                         f"{shape}")
    if crows.shape[0] != shape[0] + 1:
        raise ValueError(f"The length({crows.shape[0]}) of crows must be equal to the "
                         f"rows({shape[0]})+1 of matrix.")
    return SparseTensor("csr", (crows, cols), _own_values(values, stop_gradient), shape,
                        stop_gradient)


def coalesce(x, name=None):
    return x.coalesce()


# where Paddle's generated sparse API raises for a dense input, per op and version (measured;
# other ops: the same words without the place)
_DENSE_INPUT_LINES = {"sin": {"3": 2548, "2.6": 2134}, "relu": {"3": 2142, "2.6": 1784}}


def dense_input_error(fn):
    line = _DENSE_INPUT_LINES.get(fn, {}).get(profiles.current().key)
    at = "" if line is None else f" (at /paddle/paddle/phi/api/lib/sparse_api.cc:{line})"
    return NotImplementedError(f"(Unimplemented) The kernel of ({fn}) for input tensors is "
                               f"unimplemented, please check the type of input tensors.{at}\n")


def _map_values(fn):
    def apply(x, *args, name=None, **kwargs):
        if isinstance(x, Tensor):
            raise dense_input_error(fn)
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


# Paddle's CPU build has no sparse products: its errors (the source lines per version)
# (the CSR and COO kernels' files raise at different lines)
_NO_CPU_PRODUCT = {"3": {"matmul_coo": 273, "matmul": 28, "mv_coo": 36, "mv": 27,
                         "addmm_coo": 30, "addmm": 43, "masked_matmul": 39},
                   "2.6": {"matmul_coo": 225, "matmul": 30, "mv_coo": 38, "mv": 29,
                           "addmm_coo": 32, "addmm": 45, "masked_matmul": 41}}


def _no_cpu_kernel(op, x, y=None):
    lines = _NO_CPU_PRODUCT.get(profiles.current().key, _NO_CPU_PRODUCT["2.6"])
    if op == "matmul" and isinstance(x, SparseTensor) and x._layout == "coo":
        other = "coo" if isinstance(y, SparseTensor) else "dense"
        raise RuntimeError(
            f"(NotFound) The kernel `matmul_coo_{other}` is not registered.\n  [Hint: Expected "
            "iter != kernels_.end(), but received iter == kernels_.end().] (at /paddle/paddle/"
            f"phi/core/kernel_factory.cc:{lines['matmul_coo']})\n")
    coo = isinstance(x, SparseTensor) and x._layout == "coo"
    raise NotImplementedError(
        f"(Unimplemented) Not support CPU kernel of 'sparse.{op}' now. (at /paddle/paddle/phi/"
        f"kernels/sparse/cpu/{op.replace('masked_', '')}_kernel.cc:"
        f"{lines[op + '_coo' if coo and op != 'masked_matmul' else op]})\n")


def matmul(x, y, name=None):
    """Sparse products have GPU kernels only in Paddle: on the CPU, its error."""
    _no_cpu_kernel("matmul", x, y)


def masked_matmul(x, y, mask, name=None):
    """A GPU kernel only in Paddle: on the CPU, its error."""
    _no_cpu_kernel("masked_matmul", mask)


def mask_as(x, mask, name=None):
    """Paddle 3's ``mask_as``: the dense ``x``'s entries at ``mask``'s indices, in ``mask``'s
    layout."""
    if not profiles.current().api3:
        raise AttributeError("module 'paddle.sparse' has no attribute 'mask_as'")
    paddle = _P()
    idx, sparse_shape, dense_shape = _entries(mask)
    flat = flat_index(idx, sparse_shape)
    rows = x.reshape([int(np.prod(sparse_shape))] + list(dense_shape))
    values = paddle.gather(rows, paddle.to_tensor(flat.astype(np.int64)))
    return SparseTensor(mask._layout, mask._parts, values, mask._shape, x.stop_gradient)


def pca_lowrank(x, q=None, center=True, niter=2, name=None):
    """Not emulated (a randomized algorithm on GPU sparse products in Paddle)."""
    raise NotImplementedError("gradrepl's paddle does not emulate paddle.sparse.pca_lowrank")


def mv(x, vec, name=None):
    _no_cpu_kernel("mv", x)


def addmm(input, x, y, beta=1.0, alpha=1.0, name=None):
    _no_cpu_kernel("addmm", x)


def _entries(x):
    """(COO indices as an int64 array, sparse shape, dense shape) of a sparse tensor."""
    idx = x._coo_indices()
    return idx, x._shape[:idx.shape[0]], x._shape[idx.shape[0]:]


def _from_coo(idx, values, shape, layout, stop_gradient):
    """A sparse tensor of ``layout`` from COO indices (CSR: through Paddle's CooToCsr)."""
    paddle = _P()
    coo = SparseTensor("coo", (paddle.to_tensor(np.asarray(idx, np.int64)),), values, shape,
                       stop_gradient)
    return coo if layout == "coo" else coo.to_sparse_csr()


_ELEMENTWISE_LINES = {"3": {"dense": 96, "mixed": 470}, "2.6": {"dense": 97, "mixed": 405}}


def _elementwise(op, x, y):
    paddle = _P()
    lines = _ELEMENTWISE_LINES.get(profiles.current().key, _ELEMENTWISE_LINES["2.6"])
    if op == "divide" and isinstance(x, SparseTensor) and isinstance(y, (int, float)) and \
            not isinstance(y, bool):   # (Paddle's divide_scalar: the values divided)
        return SparseTensor(x._layout, x._parts, x._values / y, x._shape, x.stop_gradient)
    if not isinstance(y, SparseTensor) or not isinstance(x, SparseTensor):
        raise NotImplementedError(
            "(Unimplemented) Not support Sparse + Dense in GPU mode (at /paddle/paddle/phi/"
            f"kernels/sparse/elementwise_kernel.h:{lines['dense']})\n")
    if x._layout != y._layout:
        raise NotImplementedError(
            f"(Unimplemented) The kernel of ({op}) for input tensors is unimplemented, please "
            "check the type of input tensors. (at /paddle/paddle/phi/api/lib/sparse_api.cc:"
            f"{lines['mixed']})\n")
    if x._shape != y._shape:
        # the dense kernels' broadcast check, its message
        getattr(paddle, op)(paddle.zeros(x._shape, x.dtype), paddle.zeros(y._shape, y.dtype))
    fn = getattr(paddle, op)
    xi, sparse_shape, dense_shape = _entries(x)
    yi = y._coo_indices()
    sg = x.stop_gradient and y.stop_gradient
    if xi.shape == yi.shape and np.array_equal(xi, yi) and op != "divide":
        return _from_coo(xi, fn(x._values, y._values), x._shape, x._layout, sg)
    n_positions = int(np.prod(sparse_shape)) if sparse_shape else 1
    out, tx, ty = merge(flat_index(xi, sparse_shape), flat_index(yi, sparse_shape), n_positions,
                        op == "divide")

    def pick(values, take):
        zero = paddle.zeros([1] + dense_shape, values.dtype)
        padded = paddle.concat([values, zero], axis=0)
        where = np.where(take < 0, values.shape[0], take).astype(np.int64)
        return paddle.gather(padded, paddle.to_tensor(where))

    values = fn(pick(x._values, tx), pick(y._values, ty))
    idx = np.stack(np.unravel_index(out, tuple(sparse_shape))) if out.size else \
        np.zeros((len(sparse_shape), 0), np.int64)
    return _from_coo(idx, values, x._shape, x._layout, sg)


def add(x, y, name=None):
    """x + y of two sparse tensors of one layout and shape (Paddle's merge; see kernels)."""
    return _elementwise("add", x, y)


def subtract(x, y, name=None):
    return _elementwise("subtract", x, y)


def multiply(x, y, name=None):
    return _elementwise("multiply", x, y)


def divide(x, y, name=None):
    """x / y: every position of the sparse shape (those y lacks divide by zero), as Paddle's."""
    return _elementwise("divide", x, y)


def is_same_shape(x, y):
    return list(x.shape) == list(y.shape)


def transpose(x, perm, name=None):
    """COO: the index rows permuted, the entries in their order; CSR: rows of the result in
    order (each row's entries in the input's row order), as Paddle's CSR kernel."""
    perm = [int(p) % len(x._shape) for p in perm]
    idx, sparse_shape, dense_shape = _entries(x)
    if dense_shape:
        raise NotImplementedError("gradrepl's paddle.sparse.transpose permutes tensors with "
                                  "sparse dimensions only")
    shape = [x._shape[p] for p in perm]
    new = idx[perm]
    if x._layout == "coo":
        return _from_coo(new, x._values, shape, "coo", x.stop_gradient)
    order = np.argsort(new[0], kind="stable") if new.shape[1] else np.zeros(0, np.int64)
    values = _P().gather(x._values, _P().to_tensor(order.astype(np.int64)))
    return _from_coo(new[:, order], values, shape, "csr", x.stop_gradient)


def reshape(x, shape, name=None):
    """The entries' flat positions laid out in the new shape, their order kept."""
    idx, sparse_shape, dense_shape = _entries(x)
    if dense_shape:
        raise NotImplementedError("gradrepl's paddle.sparse.reshape reshapes tensors with "
                                  "sparse dimensions only")
    total = int(np.prod(x._shape))
    shape = [int(s) for s in shape]
    shape = [x._shape[i] if s == 0 and i < len(x._shape) else s   # (0: the input's size)
             for i, s in enumerate(shape)]
    if -1 in shape:
        known = int(np.prod([s for s in shape if s != -1]))
        shape[shape.index(-1)] = total // known if known else 0
    if int(np.prod(shape)) != total:
        raise ValueError(f"(InvalidArgument) The shape {shape} cannot hold the {x._shape} "
                         "sparse tensor's elements")
    flat = flat_index(idx, sparse_shape)
    new = np.stack(np.unravel_index(flat, tuple(shape))) if flat.size else \
        np.zeros((len(shape), 0), np.int64)
    return _from_coo(new, x._values, shape, x._layout, x.stop_gradient)


def slice(x, axes, starts, ends, name=None):
    """The entries inside ``[start, end)`` on each of ``axes`` (negative bounds count from the
    end, ends past the size clip), their indices shifted; COO keeps the entries' order, CSR its
    rows' (as Paddle's kernels)."""
    idx, sparse_shape, dense_shape = _entries(x)
    if dense_shape:
        raise NotImplementedError("gradrepl's paddle.sparse.slice slices tensors with sparse "
                                  "dimensions only")
    shape = list(x._shape)
    keep = np.ones(idx.shape[1], bool)
    shift = np.zeros(len(shape), np.int64)
    for a, st, en in zip(axes, starts, ends):
        a, st, en = int(a) % len(shape), int(st), int(en)
        dim = shape[a]
        st = min(max(st + dim if st < 0 else st, 0), dim)
        en = min(max(en + dim if en < 0 else en, 0), dim)
        en = max(en, st)
        keep &= (idx[a] >= st) & (idx[a] < en)
        shift[a] = st
        shape[a] = en - st
    rows = np.nonzero(keep)[0].astype(np.int64)
    new = (idx[:, rows] - shift[:, None]).astype(np.int64)
    values = _P().gather(x._values, _P().to_tensor(rows))
    return _from_coo(new, values, shape, x._layout, x.stop_gradient)


def sum(x, axis=None, dtype=None, keepdim=False, name=None):
    """Paddle's sparse sum: all values (COO: shape [1]; CSR: [1, 1]), or over one sparse axis
    (the remaining indices sorted, unique; CSR: axis -1 only, rows kept as [rows, 1])."""
    paddle = _P()
    values = x._values if dtype is None else x._values.astype(dtype)
    if axis is None:
        total = paddle.sum(values)
        if x._layout == "csr":
            return SparseTensor("csr", (paddle.to_tensor([0, 1]), paddle.to_tensor([0])),
                                total.reshape([1]), [1, 1], x.stop_gradient)
        return SparseTensor("coo", (paddle.to_tensor([0]),), total, [1], x.stop_gradient)
    idx, sparse_shape, dense_shape = _entries(x)
    nd = len(x._shape)
    ax = int(axis) % nd
    if ax >= len(sparse_shape):   # a dense axis: the values summed there, indices kept
        if x._layout != "coo":
            raise NotImplementedError("gradrepl's paddle.sparse.sum sums a CSR tensor over its "
                                      "last axis only")
        summed = values.sum(axis=ax - len(sparse_shape) + 1, keepdim=keepdim)
        shape = [1 if i == ax else n for i, n in enumerate(x._shape) if keepdim or i != ax]
        return SparseTensor("coo", x._parts, summed, shape, x.stop_gradient)
    if x._layout == "csr":
        if ax != nd - 1:
            raise NotImplementedError("gradrepl's paddle.sparse.sum of a CSR tensor sums its "
                                      "rows (axis=-1) only")
        keys = idx[0][:, None]
    else:
        keys = np.delete(idx, ax, axis=0).T
    uniq, sums = sum_groups(keys, values.numpy())
    out_values = paddle.to_tensor(sums)
    if x._layout == "csr":
        rows = uniq[:, 0]
        crows = np.zeros(x._shape[0] + 1, np.int64)
        np.add.at(crows, rows + 1, 1)
        return SparseTensor("csr", (paddle.to_tensor(np.cumsum(crows)),
                                    paddle.to_tensor(np.zeros(len(rows), np.int64))),
                            out_values, [x._shape[0], 1], x.stop_gradient)
    new_idx = uniq.T.astype(np.int64)
    shape = [s for i, s in enumerate(x._shape) if i != ax]
    if keepdim or new_idx.shape[0] == 0:   # (the only sparse axis summed: kept as size 1)
        new_idx = np.insert(new_idx, ax, 0, axis=0)
        shape.insert(ax, 1)
    return SparseTensor("coo", (paddle.to_tensor(new_idx),), out_values, shape,
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
    if x.ndim not in (2, 3):   # (Paddle's kernel check, its line per version)
        line = {"3": 85, "2.6": 88}.get(profiles.current().key, 88)
        raise ValueError(
            "(InvalidArgument) SparseCsrTensor only support 2-D or 3-D Tensor.\n  [Hint: "
            "Expected valid == true, but received valid:0 != true:1.] (at /paddle/paddle/phi/"
            f"kernels/sparse/sparse_utils_kernel.h:{line})\n")
    if x.ndim != 2:
        raise ValueError("gradrepl's to_sparse_csr converts 2-D tensors; got shape "
                         f"{list(x.shape)}")
    return dense_to_sparse_coo(x, 2).to_sparse_csr()


from . import nn  # noqa: E402  (paddle.sparse.nn.functional.relu, ...)

# real Paddle 3.3.1's public names of paddle.sparse (2.6.2: the same but mask_as) not emulated
_NOT_EMULATED = frozenset(("binary", "creation", "multiary", "unary"))


def __getattr__(name):
    if name in _NOT_EMULATED:
        raise AttributeError(f"module 'paddle.sparse' has no attribute '{name}' (gradrepl's "
                             f"paddle does not emulate paddle.sparse.{name})")
    raise AttributeError(f"module 'paddle.sparse' has no attribute '{name}'")
