"""Linear algebra of the ``paddle`` namespace: matmul, mm, bmm, dot, outer, cross, inverse, det.

Shape errors are Paddle's ``ValueError`` in the wording of the emulated version's kernels
(``profiles.current().error_wording``): 3.x names the mismatched dimensions ("In operator
matmul, the [1] dimension of Input(X) must be equal to the [0] dimension of Input(Y)"), 2.x says
"Input(Y) has error dim". Operands must share a dtype (no promotion in matmul: ValueError).
In Paddle 2.2 (no 0-D tensors) a 1-D @ 1-D product has shape [1].
"""
from __future__ import annotations


import numpy as np

from ...engine.ops import linalg as L
from ...engine.ops import math as M
from ...engine.ops import shape as S
from .. import profiles
from ..core import as_tensor

__all__ = ["matmul", "mm", "bmm", "dot", "outer", "cross", "inverse"]
__methods__ = ["matmul", "mm", "bmm", "dot", "outer", "cross", "inverse"]


def _scalar_shape():
    return None if profiles.current().zero_d else (1,)


def _same_dtype(x, y, retrieve_first=False):
    """matmul-like kernels refuse mixed dtypes; the message names y's dtype first (x's for dot)."""
    if x.data.dtype != y.data.dtype:
        a, b = (x, y) if retrieve_first else (y, x)
        raise ValueError(
            f"(InvalidArgument) The type of data we are trying to retrieve ({a.data.dtype.name}) "
            f"does not match the type of data ({b.data.dtype.name}) currently contained in the "
            f"container.")


def _k_axes(xs, ys, tx, ty):
    """Which axis of x and of y is contracted (as Paddle numbers them in its messages)."""
    if len(xs) == 1:
        ix = 0
    else:
        ix = len(xs) - 2 if tx else len(xs) - 1
    if len(ys) == 1:
        iy = 0
    else:
        iy = len(ys) - 1 if ty else len(ys) - 2
    return ix, iy


def _inner_error(xs, ys, tx, ty):
    ix, iy = _k_axes(xs, ys, tx, ty)
    kx, ky = xs[ix], ys[iy]
    key = profiles.current().key
    if profiles.current().error_wording == "3":
        return ValueError(
            f"(InvalidArgument) In operator matmul, the [{ix}] dimension of Input(X) must be "
            f"equal to the [{iy}] dimension of Input(Y). But receiving the [{ix}]dimension of "
            f"Input(X) is [{kx}], and the [{iy}] dimension of Input(Y) is [{ky}]."
            + (_hint(f"K_lhs == K_rhs, but received K_lhs:{kx} != K_rhs:{ky}",
                     "infermeta/binary.cc:3087") if key == "3" else ""))
    hint = key == "2.6"   # (the [Hint: ...] lines real 2.6.2 adds; 2.2 unmeasured: none)
    if len(xs) == 1 and len(ys) == 1:
        return ValueError(
            f"(InvalidArgument) X's numbers must be equal to Y's numbers, when X/Y's dims =1. But "
            f"received X has [{kx}] elements, received Y has [{ky}] elements."
            + (_hint(f"M == N, but received M:{kx} != N:{ky}",
                     "kernels/impl/matmul_kernel_impl.h:132") if hint else ""))
    if len(ys) == 1:
        return ValueError(
            f"(InvalidArgument) Input(X) has error dim.X'dims[{ix}] must be equal to {ky}But "
            f"received X'dims[{ix}] is {kx}"
            + (_hint(f"x_dims[x_ndim - 1] == N, but received x_dims[x_ndim - 1]:{kx} != N:{ky}",
                     "kernels/impl/matmul_kernel_impl.h:250") if hint else ""))
    return ValueError(
        f"(InvalidArgument) Input(Y) has error dim. Y'dims[{iy}] must be equal to {kx}, but "
        f"received Y'dims[{iy}] is {ky}."
        + (_hint(f"y_dims[y_ndim - 2] == K, but received y_dims[y_ndim - 2]:{ky} != K:{kx}",
                 "kernels/impl/matmul_kernel_impl.h:329") if hint else ""))


def _hint(expected, where):
    """Paddle's enforce line under its message: ``[Hint: Expected ...] (at /paddle/...)``."""
    return f"\n  [Hint: Expected {expected}.] (at /paddle/paddle/phi/{where})\n"


def _batch_error(xb, yb):
    n = max(len(xb), len(yb))
    xb = (1,) * (n - len(xb)) + tuple(xb)
    yb = (1,) * (n - len(yb)) + tuple(yb)
    line = {"3": 63, "2.6": 65}.get(profiles.current().key)
    cond = "x_bd_dims[i] == y_bd_dims[i] || x_bd_dims[i] <= 1 || y_bd_dims[i] <= 1"
    for i, (a, b) in enumerate(zip(xb, yb)):
        if a != b and a > 1 and b > 1:
            return ValueError(
                f"(InvalidArgument) Input(X) and Input(Y) has error dim. X_broadcast's shape[{i}] "
                f"must be equal to Y_broadcast's shape[{i}], or X_broadcast's shape[{i}] <= 1, or "
                f"Y_broadcast's shape[{i}] <= 1, but received X_broadcast's shape[{i}] = [{a}]"
                f"received Y_broadcast's shape[{i}] = [{b}]."
                + (_hint(f"{cond} == true, but received {cond}:0 != true:1",
                         f"kernels/impl/matmul_kernel_impl.h:{line}") if line else ""))
    return None


def matmul(x, y, transpose_x=False, transpose_y=False, name=None):
    """``x @ y`` for every rank pairing, each operand optionally transposed in its last two axes."""
    x, y = as_tensor(x), as_tensor(y)
    xs, ys = x.data.shape, y.data.shape
    if not xs or not ys:
        raise ValueError(
            f"(InvalidArgument) The Input(x) dims size must be greater than 0, but reviced dims "
            f"size is 0. (got shapes {list(xs)} and {list(ys)})")
    ix, iy = _k_axes(xs, ys, transpose_x, transpose_y)
    if xs[ix] != ys[iy]:
        raise _inner_error(xs, ys, transpose_x, transpose_y)
    err = _batch_error(xs[:-2], ys[:-2])
    if err is not None:
        raise err
    _same_dtype(x, y)
    from .reduce import refuse_float16

    refuse_float16(x, "matmul")
    out_shape = _scalar_shape() if len(xs) == 1 and len(ys) == 1 else None
    return L.matmul(x, y, bool(transpose_x), bool(transpose_y), out_shape)


def mm(input, mat2, name=None):  # noqa: A002
    """Matrix product; Paddle's mm is matmul without transpose flags."""
    return matmul(input, mat2)


def bmm(x, y, name=None):
    xs, ys = x.data.shape, y.data.shape
    for what, s in (("X", xs), ("Y", ys)):
        if len(s) != 3:
            raise ValueError(
                f"(InvalidArgument) Input({what}) of BmmOp must be 3-dimensional in BmmOp, but "
                f"received {what}'s shape: [{', '.join(map(str, s))}].")
    if xs[2] != ys[1]:
        raise ValueError(
            f"(InvalidArgument) Input(X)'s width must be equal with Input(Y)'s height in BmmOp,"
            f"but receive X's width: [{xs[2]}],Y's height: [{ys[1]}].")
    if xs[0] != ys[0]:
        raise ValueError(
            f"(InvalidArgument) Input(X) and Input(Y) must have the same batch size in BmmOp, "
            f"but received X's batch size: [{xs[0]}],Y's batch size [{ys[0]}]")
    _same_dtype(x, y)
    if x.data.dtype.kind not in "f":
        raise RuntimeError(
            f"(NotFound) The kernel with key (CPU, Undefined(AnyLayout), {x.data.dtype.name}) of "
            f"kernel `bmm` is not registered.")
    return L.bmm(x, y)


def dot(x, y, name=None):
    """Inner product of 1-D tensors, or row by row for 2-D tensors (shape [N])."""
    xs, ys = x.data.shape, y.data.shape
    if len(xs) not in (1, 2):
        raise RuntimeError(f"(PreconditionNotMet) ShapeError: The dimensions of input tensor X "
                           f"({list(xs)}) should be 1 or 2")
    if xs != ys:
        raise RuntimeError(f"(PreconditionNotMet) ShapeError: The shape of input tensor X: "
                           f"{list(xs)} should be exactly the same with input tensor Y: {list(ys)}")
    _same_dtype(x, y, retrieve_first=True)
    return L.dot(x, y, _scalar_shape() if len(xs) == 1 else None)


def outer(x, y, name=None):
    """Every product x[i] * y[j]: both flattened, then multiplied with broadcasting."""
    xf = S.reshape(x, (x.data.size, 1))
    yf = S.reshape(y, (1, y.data.size))
    if profiles.current().promotion == "left":  # 2.x computes outer with matmul: no promotion
        _same_dtype(x, y)                       # (its gradients are the products' too)
        return matmul(xf, yf)
    if x.data.dtype == y.data.dtype:
        return M.multiply(xf, yf)
    from . import math as paddle_math

    return paddle_math.multiply(xf, yf)


def cross(x, y, axis=9, name=None):
    """Vector product along ``axis``; the default is the first axis of size 3."""
    xs = x.data.shape
    if xs != y.data.shape:
        raise ValueError(f"(InvalidArgument) The 'shape' of Input(X) should be equal to the "
                         f"'shape' of Input(Y). But received Input(X).dimensions = {list(xs)}, "
                         f"Input(Y).dimensions = {list(y.data.shape)}")
    if axis is None or axis == 9:
        sizes3 = [i for i, s in enumerate(xs) if s == 3]
        if not sizes3:
            raise ValueError(f"(InvalidArgument) There must be at least one dimension 'd' so "
                             f"that Input(X/Y).dims()[d] is equal to 3. But received: "
                             f"Input(X/Y).dims() == {list(xs)}.")
        axis = sizes3[0]
    else:
        axis = int(axis) % len(xs)
        if xs[axis] != 3:
            raise ValueError(f"(InvalidArgument) The Input(X/Y).dims()[dim] should be equal to "
                             f"3. But received Input(X/Y).dims()[dim] = {xs[axis]}.")
    return L.cross(x, y, axis)


def _square(x, op):
    s = x.data.shape
    if len(s) < 2 or s[-1] != s[-2]:
        raise ValueError(f"(InvalidArgument) The inner-most 2 dimensions of Input(X) for {op} "
                         f"should be equal. But received Input(X)'s shape = {list(s)}.")


def inverse(x, name=None):
    _square(x, "inverse")
    return L.inverse(x)


inv = inverse


def det(x, name=None):
    _square(x, "determinant")
    out = L.det(x)
    if out.data.ndim == 0 and not profiles.current().zero_d:
        out = S.reshape(out, (1,))
    return out




def _chain_order(dims):
    """Paddle's multi_dot_kernel GetOrder: order[i][j] = the split k of the cheapest
    parenthesisation of matrices i..j (the first k of least cost)."""
    n = len(dims)
    p = [d[0] for d in dims] + [dims[-1][1]]
    cost = [[0] * n for _ in range(n)]
    order = [[0] * n for _ in range(n)]
    for span in range(1, n):
        for i in range(n - span):
            j = i + span
            cost[i][j] = 0xffffffff
            for k in range(i, j):
                q = cost[i][k] + cost[k + 1][j] + p[i] * p[k + 1] * p[j + 1]
                if q < cost[i][j]:
                    cost[i][j], order[i][j] = q, k
    return order


def multi_dot(x, name=None):
    """The product of a list of matrices (the first may be a row vector, the last a column) as
    Paddle's multi_dot kernel groups it: two as one product; three by its cost rule (A(BC)
    unless (AB)C costs strictly less); more by the cheapest order (matrix-chain). The gradient
    is the products' (the kernel's CalcGrad: dA = dOut B^T, dB = A^T dOut at each product)."""
    mats = list(x)
    first_vec, last_vec = mats[0].data.ndim == 1, mats[-1].data.ndim == 1
    if first_vec:
        mats[0] = S.reshape(mats[0], (1, mats[0].data.shape[0]))
    if last_vec:
        mats[-1] = S.reshape(mats[-1], (mats[-1].data.shape[0], 1))
    dims = [m.data.shape for m in mats]
    if len(mats) == 2:
        out = matmul(mats[0], mats[1])
    elif len(mats) == 3:
        (ma, ka), (_, nb), (_, nc) = dims
        if ma * nb * (ka + nc) < ka * nc * (nb + ma):
            out = matmul(matmul(mats[0], mats[1]), mats[2])
        else:
            out = matmul(mats[0], matmul(mats[1], mats[2]))
    else:
        order = _chain_order(dims)

        def chain(i, j):
            if i == j:
                return mats[i]
            k = order[i][j]
            return matmul(chain(i, k), chain(k + 1, j))

        out = chain(0, len(mats) - 1)
    if first_vec and last_vec:
        return S.reshape(out, ())
    if first_vec or last_vec:
        return S.reshape(out, (out.data.size,))
    return out


def matrix_power(x, n, name=None):
    """``x`` multiplied by itself ``n`` times as Paddle's matrix_power kernel groups the products
    (and its gradient kernel); n = 0 gives the identity, n < 0 uses the inverse."""
    _square(x, "matrix_power")
    return L.matrix_power(x, int(n))
