"""``torch.linalg``: norms, factorizations, solvers, eigen and singular values, as torch 2.13
computes them on the CPU.

The factorizations call MKL's LAPACK as torch does (``_lapack``), with the matrix handed over in
torch's orientation (``det``, ``solve``, ``inv`` factor ``A^T``: torch passes a C-contiguous
matrix's memory as a column-major one), so values and vector signs are torch's. Gradients: the
ops torch differentiates record a node with torch's name (``LinalgDetBackward0`` ...); their
VJPs are the engine's (inverse, det, solve, cholesky, eigh, svd, qr, triangular solve) or
written here in numpy (first order only).
"""
from __future__ import annotations

import builtins as _b
import copy

import numpy as np

from ..engine.registry import OPS, OpDef, apply
from . import _lapack, return_types
from ._base import raw
from ._tensor import Tensor

_wrap = Tensor._wrap


class LinAlgError(RuntimeError):
    pass


LinAlgError.__module__ = "torch._C"
LinAlgError.__qualname__ = LinAlgError.__name__ = "_LinAlgError"

# ------------------------------------------------------------------------------ return types
_RT = {
    "linalg_slogdet": ("sign", "logabsdet"), "slogdet": ("sign", "logabsdet"),
    "linalg_inv_ex": ("inverse", "info"), "linalg_cholesky_ex": ("L", "info"),
    "linalg_eig": ("eigenvalues", "eigenvectors"), "linalg_eigh": ("eigenvalues", "eigenvectors"),
    "linalg_lstsq": ("solution", "residuals", "rank", "singular_values"),
    "linalg_lu": ("P", "L", "U"), "linalg_lu_factor": ("LU", "pivots"),
    "linalg_lu_factor_ex": ("LU", "pivots", "info"), "linalg_ldl_factor": ("LD", "pivots"),
    "linalg_ldl_factor_ex": ("LD", "pivots", "info"), "linalg_qr": ("Q", "R"),
    "linalg_solve_ex": ("result", "info"), "linalg_svd": ("U", "S", "Vh"),
    "svd": ("U", "S", "V"), "qr": ("Q", "R"), "geqrf": ("a", "tau"),
    "lu_unpack": ("P", "L", "U"), "triangular_solve": ("solution", "cloned_coefficient"),
}
for _n, _f in _RT.items():
    if not hasattr(return_types, _n):
        setattr(return_types, _n, return_types._make(_n, _f))


def _rt(name, *vals):
    return getattr(return_types, name)(vals)


def _T():
    from .. import torch as T

    return T


# ------------------------------------------------------------------------------ helpers
def _float_check(A, fname):
    a = raw(A)
    if a.dtype.kind not in "fc" and a.dtype != np.uint16:  # (uint16: bfloat16's bits)

        raise RuntimeError(f"{fname}: Expected a floating point or complex tensor as input. Got "
                           f"{_long_name(a.dtype)}")
    return a


def _long_name(dt):
    return {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
            "bool": "Bool", "float16": "Half"}.get(np.dtype(dt).name, np.dtype(dt).name)


def _square_check(a, fname, what="A"):
    if a.ndim < 2:
        raise RuntimeError(f"{fname}: The input tensor {what} must have at least 2 dimensions.")
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"{fname}: {what} must be batches of square matrices, but they are "
                           f"{a.shape[-2]} by {a.shape[-1]} matrices")


def _dim_size(shape, d):
    """``shape[d]`` with torch's IndexError where the tensor has no such dim."""
    if not shape:
        raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
    if not -len(shape) <= d < len(shape):
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-len(shape)}, {len(shape) - 1}], but got {d})")
    return shape[d]


def _is_vector_rhs(a, b):
    """torch's ``linalg_solve_is_vector_rhs``: B a vector (1-D, or A's shape[:-1])."""
    return b.ndim == 1 or (a.ndim - 1 == b.ndim and b.shape == a.shape[:-1])


def _solver_check(a, b, fname, left=True, square_name=None):
    """torch's ``squareCheckInputs(A)`` + ``checkInputsSolver(A, B, left)``, then B's batch
    broadcast against A's (``_linalg_broadcast_batch_dims``). ``b``: B as a matrix."""
    _square_check(a, square_name or fname)
    if b.ndim < 2:
        raise RuntimeError(f"{fname}: The input tensor B must have at least 2 dimensions.")
    if (a.shape[-2] != b.shape[-2]) if left else (a.shape[-1] != b.shape[-1]):
        raise RuntimeError(f"{fname}: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({a.shape[-2]}x{a.shape[-1]} and "
                           f"{b.shape[-2]}x{b.shape[-1]})")


def _linear_solve_check(b, a, name):
    """torch's ``linearSolveCheckInputs(b, A, name)`` and the batch broadcast after it."""
    n = _dim_size(a.shape, -1)
    if n != _dim_size(a.shape, -2):
        raise RuntimeError(f"A must be batches of square matrices, but they are "
                           f"{a.shape[-2]} by {a.shape[-1]} matrices")
    if n != _dim_size(b.shape, -2):
        raise RuntimeError(f"Incompatible matrix sizes for {name}: each A matrix is {n} by {n} "
                           f"but each b matrix is {b.shape[-2]} by {b.shape[-1]}")


def _bmap(fn, arrays, cores):
    """Run ``fn`` on each batch element (inputs broadcast over their leading dims, ``cores``:
    each input's number of trailing core dims); the outputs are stacked back to the batch."""
    batch = np.broadcast_shapes(*[a.shape[:a.ndim - c] for a, c in zip(arrays, cores)])
    bs = [np.broadcast_to(a, batch + a.shape[a.ndim - c:]) for a, c in zip(arrays, cores)]
    results = []
    for idx in np.ndindex(batch):
        r = fn(*[b[idx] for b in bs])
        results.append(r if isinstance(r, tuple) else (r,))
    if not results:
        r = fn(*[np.zeros(b.shape[len(batch):], b.dtype) + (np.eye(*b.shape[-2:], dtype=b.dtype)
                if b.ndim - len(batch) == 2 else 0) for b in bs])
        r = r if isinstance(r, tuple) else (r,)
        outs = tuple(np.zeros(batch + np.shape(x), np.asarray(x).dtype) for x in r)
    else:
        outs = tuple(np.stack([np.asarray(r[k]) for r in results]).reshape(
            batch + np.shape(results[0][k])) for k in range(len(results[0])))
    return outs if len(outs) > 1 else outs[0]


def _mkop(name, forward, vjp, n_outputs=1, diff_outputs=None, saves="all", base=None):
    if base is not None:
        op = copy.copy(OPS[base])
        op.forward = forward
    else:
        op = OpDef("linalg_" + name, forward, vjp, n_outputs=n_outputs,
                   diff_outputs=diff_outputs, saves_inputs=False, reads_inputs=True,
                   check=False)
    op.torch_name = name
    op.torch_saves = saves
    op.torch_inputs = None
    op.reads_inputs = True
    op.saves_inputs = False
    op.grad_sum_order = "torch"
    return op


def _c(like, arr):
    return like._result_type._wrap(np.asarray(arr, like.data.dtype), True)


def _mT(a):
    return np.swapaxes(a, -1, -2)


def _t(arr):
    return _wrap(np.asarray(arr), True)


def _grad_wanted(*ts):
    from ..engine import grad_mode

    return grad_mode.STATE.enabled and _b.any(isinstance(t, Tensor) and not t.stop_gradient
                                              for t in ts)


# ------------------------------------------------------------------------------ LU pieces
def _getrf_T(m):
    """torch's LU of a C-contiguous A: MKL factors A^T's column-major memory (= A)."""
    return _lapack.getrf(np.ascontiguousarray(m).T)


def _det_one(m):
    lu, piv, _ = _getrf_T(m)
    d = m.dtype.type(1)
    for v in np.diagonal(lu):
        d = m.dtype.type(d * v)
    sign = -1 if int(np.sum(piv != np.arange(1, len(piv) + 1))) % 2 else 1
    return np.asarray(m.dtype.type(d * m.dtype.type(sign)))


def _det_fwd(x):
    return _bmap(_det_one, [x], [2]).astype(x.dtype)


def det(A, *, out=None):
    a = _float_check(A, "linalg.det")
    _square_check(a, "linalg.det")
    return apply(_mkop("LinalgDetBackward0", _det_fwd, None, base="determinant",
                       saves="all+out"), (A,))


def _solve_one(a, b, trans=False):
    # torch 2.13 factors A as given and solves with getrs (measured: its solve, solve_ex, inv
    # and inverse equal lu_solve(lu_factor(A), B) bit for bit, 0 of 36 cases the factors of A^T)
    lu, piv, info = _lapack.getrf(a)
    if trans:  # A^T Y = B as torch solves it: conj(A^H conj(Y) = conj(B)) (a complex X A = B too)
        return np.conj(_lapack.getrs(lu, piv, np.conj(b), "C")), info
    return _lapack.getrs(lu, piv, b, "N"), info


def _solve_fwd(a, b, right=False):
    """A X = B; ``right``: a and b are A^T and B^T of X A = B, which torch solves with A's
    factors (getrs 'T')."""
    vec = b.ndim == 1 or (b.ndim == a.ndim - 1 and b.shape == a.shape[:-1])
    rhs = b[..., None] if vec else b
    dt = np.result_type(a, b)
    out = _bmap(lambda x, y: _solve_one((_mT(x) if right else x).astype(dt), y.astype(dt),
                                        trans=right)[0], [a, rhs], [2, 2])
    return out[..., 0] if vec else out


def _solve_fwd_right(a, b):
    return _solve_fwd(a, b, right=True)


def _solve_op(right=False):
    """torch's solve (``right``: its inputs are A^T and B^T of X A = B), with torch's backward
    (linalg_solve_backward): gB from A's own factors, the other side's getrs; gA = -gB X^T by
    torch's product (measured: gradients equal to real torch's, 36 of 36 cases)."""
    op = _mkop("LinalgSolveExBackward0", _solve_fwd_right if right else _solve_fwd, None,
               base="solve")
    op.vjp = _solve_vjp_right if right else _solve_vjp
    return op


def _solve_vjp_for(right):
    def vjp(n, g):
        from ..engine.ops.linalg_more import _mT
        from ..engine.ops.shape import reshape

        T = _T()
        a, b = n.inputs
        x = n.out()
        gb = apply(_solve_op(not right), (_mT(a), g))
        if b.data.ndim == a.data.ndim - 1:
            gb2, x2 = reshape(gb, gb.data.shape + (1,)), reshape(x, x.data.shape + (1,))
            return T.neg(T.matmul(gb2, _mT(x2))), gb
        return T.neg(T.matmul(gb, _mT(x))), gb
    return vjp


_solve_vjp, _solve_vjp_right = _solve_vjp_for(False), _solve_vjp_for(True)


def _solve_shapes(A, B, left, fname):
    a, b = raw(A), raw(B)
    if a.ndim >= 2 and _is_vector_rhs(a, b):
        b = b[..., None]
    _solver_check(a, b, fname, left)
    _broadcast_batches(b.shape[:-2], a.shape[:-2])


def solve(A, B, *, left=True, out=None):
    a = _float_check(A, "linalg.solve")
    _solve_shapes(A, B, left, "linalg.solve")
    info = _bmap(lambda x: np.int32(_getrf_T(x)[2]), [a], [2])
    if np.any(info > 0):
        raise LinAlgError(_singular_msg("linalg.solve", info))
    if not left:  # X A = B as A^T X^T = B^T
        return apply(_solve_op(right=True),
                     (A.mT, B.mT)).mT
    return apply(_solve_op(), (A, B))


def _singular_msg(fname, info):
    info = np.asarray(info)
    if info.ndim == 0:
        return (f"{fname}: The solver failed because the input matrix is singular.")
    idx = np.argwhere(info > 0)[0]
    return (f"{fname}: (Batch element {int(np.ravel_multi_index(idx, info.shape))}): The solver "
            f"failed because the input matrix is singular.")


def solve_ex(A, B, *, left=True, check_errors=False, out=None):
    a = _float_check(A, "linalg.solve_ex")
    _solve_shapes(A, B, left, "linalg.solve")
    info = _bmap(lambda x: np.int32(_getrf_T(x)[2]), [a], [2]).astype(np.int32)
    if check_errors and np.any(info > 0):
        raise LinAlgError(_singular_msg("linalg.solve_ex", info))
    if np.any(info > 0):
        with np.errstate(all="ignore"):
            res = solve(A, B, left=left) if False else None
    if not left:
        res = apply(_solve_op(right=True),
                    (A.mT, B.mT)).mT
        return _rt("linalg_solve_ex", res, _t(info))
    res = apply(_solve_op(), (A, B))
    return _rt("linalg_solve_ex", res, _t(info))


def _inv_fwd(x):
    n = x.shape[-1]
    return _bmap(lambda m: _solve_one(m, np.eye(n, dtype=m.dtype))[0], [x], [2]).astype(x.dtype)


def inv(A, *, out=None):
    a = _float_check(A, "linalg.inv")
    _square_check(a, "linalg.inv")
    info = _bmap(lambda x: np.int32(_getrf_T(x)[2]), [a], [2])
    if np.any(info > 0):
        raise LinAlgError(_singular_msg("linalg.inv", info))
    return apply(_mkop("LinalgInvExBackward0", _inv_fwd, None, base="inverse", saves="out"), (A,))


def inv_ex(A, *, check_errors=False, out=None):
    a = _float_check(A, "linalg.inv_ex")
    _square_check(a, "linalg.inv_ex")
    info = _bmap(lambda x: np.int32(_getrf_T(x)[2]), [a], [2]).astype(np.int32)
    if check_errors and np.any(info > 0):
        raise LinAlgError(_singular_msg("linalg.inv_ex", info))
    with np.errstate(all="ignore"):
        res = apply(_mkop("LinalgInvExBackward0", _inv_fwd, None, base="inverse", saves="out"),
                    (A,))
    return _rt("linalg_inv_ex", res, _t(info))


def _slogdet_parts(m):
    lu, piv, _ = _getrf_T(m)
    d = np.diagonal(lu)
    sgnP = -1 if int(np.sum(piv != np.arange(1, len(piv) + 1))) % 2 else 1
    return d, sgnP


def _slogdet_fwd(x):
    T = _T()
    n = x.shape[-1]
    parts = _bmap(lambda m: (_slogdet_parts(m)[0], np.asarray(_slogdet_parts(m)[1], x.dtype)),
                  [x], [2])
    diag, sgnP = parts
    dt = _wrap(np.ascontiguousarray(diag), True)
    sign = T.mul(T.prod(T.sgn(dt), -1), _wrap(np.asarray(sgnP, x.dtype), True))
    logabs = T.sum(T.log(T.abs(dt)), -1)
    del n
    return raw(sign), raw(logabs)


def _slogdet_vjp(n, gsign, glog):
    x = np.asarray(n.inputs[0].data, np.float64)
    g = np.asarray(glog.data, np.float64)
    ga = g[..., None, None] * _mT(np.linalg.inv(x))
    return _c(n.inputs[0], ga)


def slogdet(A, *, out=None):
    a = _float_check(A, "linalg.slogdet")
    _square_check(a, "linalg.slogdet")
    sign, logabs = apply(_mkop("LinalgSlogdetBackward0", _slogdet_fwd, _slogdet_vjp, 2,
                               diff_outputs=(1,)), (A,))
    return _rt("linalg_slogdet", sign, logabs)


# ------------------------------------------------------------------------------ LU
def _lu_factor_one(m):
    lu, piv, info = _lapack.getrf(m)
    return lu, piv.astype(np.int32), np.int32(info)


def lu_factor_ex(A, *, pivot=True, check_errors=False, out=None):
    a = _float_check(A, "linalg.lu_factor_ex")
    if a.ndim < 2:
        raise RuntimeError("torch.linalg.lu_factor: Expected tensor with 2 or more dimensions. "
                           f"Got size: {list(a.shape)} instead")
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    lu, piv, info = _bmap(_lu_factor_one, [a], [2])
    if check_errors and np.any(info > 0):
        raise LinAlgError("torch.linalg.lu_factor_ex: U[{0},{0}] is zero and using it on "
                          "lu_solve would result in a division by zero.".format(int(info.flat[0])))
    LU = apply(_mkop("LinalgLuFactorExBackward0", lambda x: lu, _lu_vjp_packed), (A,))
    return _rt("linalg_lu_factor_ex", LU, _t(piv.astype(np.int32)), _t(info.astype(np.int32)))


def lu_factor(A, *, pivot=True, out=None):
    r = lu_factor_ex(A, pivot=pivot)
    info = raw(r[2])
    if np.any(info > 0):
        i = int(info.flat[int(np.argmax(info > 0))])
        raise LinAlgError(f"torch.linalg.lu_factor: U[{i},{i}] is zero and using it on lu_solve "
                          "would result in a division by zero. If you still want to perform the "
                          "factorization, consider calling linalg.lu(A, pivot) or "
                          "linalg.lu_factor_ex(A, pivot)")
    return _rt("linalg_lu_factor", r[0], r[1])


def _unpack(lu, piv, m, n, want_p=True):
    k = min(m, n)
    L = np.tril(lu[:, :k], -1) + np.eye(m, k, dtype=lu.dtype)
    U = np.triu(lu[:k, :])
    perm = _lapack.pivots_to_perm(piv, m)
    P = np.eye(m, dtype=lu.dtype)[:, perm]
    return P, L, U


def _lu_vjp_packed(n, g):
    """Gradient of the packed LU through P L U = A (square, full rank), in numpy."""
    a = np.asarray(n.inputs[0].data, np.float64)
    lu = np.asarray(n.out_data[0], np.float64)
    G = np.asarray(g.data, np.float64)

    def one(A, LU, Gm):
        m, nn = A.shape
        if m != nn:
            return np.zeros_like(A)
        L = np.tril(LU, -1) + np.eye(m)
        U = np.triu(LU)
        gL = np.tril(Gm, -1)
        gU = np.triu(Gm)
        _, piv, _ = _lapack.getrf(A)
        perm = _lapack.pivots_to_perm(piv, m)
        P = np.eye(m)[:, perm]
        phi = np.tril(L.T @ gL, -1) + np.triu(gU @ U.T)
        return P @ np.linalg.solve(L.T, np.linalg.solve(U, phi.T).T)

    out = np.stack([one(x, y, z) for x, y, z in zip(a.reshape((-1,) + a.shape[-2:]),
                                                    lu.reshape((-1,) + lu.shape[-2:]),
                                                    G.reshape((-1,) + G.shape[-2:]))])
    return _c(n.inputs[0], out.reshape(a.shape))


def lu(A, *, pivot=True, out=None):
    a = _float_check(A, "linalg.lu")
    if a.ndim < 2:
        raise RuntimeError("linalg.lu: Expected tensor with 2 or more dimensions. Got size: "
                           f"{list(a.shape)} instead")
    m, n = a.shape[-2:]

    def fwd(x):
        return _bmap(lambda mm: _unpack(*_lu_factor_one(mm)[:2], m, n), [x], [2])

    P, L, U = apply(_mkop("LinalgLuBackward0", fwd, _lu_vjp3, 3, diff_outputs=(1, 2)), (A,))
    return _rt("linalg_lu", P, L, U)


def _lu_vjp3(n, gp, gl, gu):
    a = np.asarray(n.inputs[0].data, np.float64)
    _, L, U = (np.asarray(o, np.float64) for o in n.out_data)
    gL = np.asarray(gl.data, np.float64)
    gU = np.asarray(gu.data, np.float64)

    def one(A, Lm, Um, gLm, gUm):
        m, nn = A.shape
        _, piv, _ = _lapack.getrf(A)
        P = np.eye(m)[:, _lapack.pivots_to_perm(piv, m)]
        if m == nn:
            phi = np.tril(Lm.T @ gLm, -1) + np.triu(gUm @ Um.T)
            return P @ np.linalg.solve(Lm.T, np.linalg.solve(Um, phi.T).T)
        return np.zeros_like(A)

    B = a.reshape((-1,) + a.shape[-2:])
    out = np.stack([one(*z) for z in zip(B, L.reshape((-1,) + L.shape[-2:]),
                                        U.reshape((-1,) + U.shape[-2:]),
                                        gL.reshape((-1,) + gL.shape[-2:]),
                                        gU.reshape((-1,) + gU.shape[-2:]))])
    return _c(n.inputs[0], out.reshape(a.shape))


def lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None):
    lu_ = raw(LU)
    b = raw(B)
    if raw(pivots).dtype != np.int32:
        raise RuntimeError("linalg.lu_solve: pivots should be a Tensor of scalar type "
                           "torch.int32")
    _solver_check(lu_, b, "linalg.lu_solve", left, "torch.linalg.lu_solve")
    if lu_.shape[-1] != _dim_size(raw(pivots).shape, -1):
        raise RuntimeError("linalg.lu_solve: Number of pivots per batch should be same as the "
                           "dimension of the matrix")
    if raw(pivots).shape != lu_.shape[:-1]:
        raise RuntimeError("linalg.lu_solve: Expected LU.shape[:-1] and pivots.shape to be the "
                           f"same, but got pivots with shape {list(raw(pivots).shape)} instead")
    _broadcast_batches(b.shape[:-2], lu_.shape[:-2])
    piv = raw(pivots).astype(np.int32)
    if not left:
        # X A = B  <=>  A^H X^H = B^H
        return lu_solve(LU, pivots, B.mT, adjoint=not adjoint).mT

    def fwd(l_, p_, b_):
        return _bmap(lambda x, y, z: _lapack.getrs(x, y, z, "T" if adjoint else "N"),
                     [l_, p_, b_], [2, 1, 2]).astype(b_.dtype)

    def vjp(n, g):
        L0, _p, _B = n.inputs
        G = np.asarray(g.data, np.float64)
        lu64 = np.asarray(L0.data, np.float64)
        pv = np.asarray(_p.data)
        gB = _bmap(lambda x, y, z: _lapack.getrs(x, y, z, "N" if adjoint else "T"),
                   [lu64, pv, G], [2, 1, 2])
        return None, None, _c(_B, gB)

    op = _mkop("LinalgLuSolveBackward0", fwd, vjp)
    op.diff_inputs = (2,)
    return apply(op, (LU, _t(piv), B))


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):
    lu_ = raw(LU_data)
    piv = raw(LU_pivots)
    m, n = lu_.shape[-2:]
    P, L, U = _bmap(lambda x, y: _unpack(x, y, m, n), [lu_, piv], [2, 1])
    T = _T()
    k = min(m, n)
    if _grad_wanted(LU_data):
        Lt = T.add(T.tril(LU_data[..., :, :k], -1), _t(np.eye(m, k, dtype=lu_.dtype)))
        Ut = T.triu(LU_data[..., :k, :])
    else:
        Lt, Ut = _t(L), _t(U)
    if not unpack_data:
        Lt = Ut = _t(np.zeros(0, lu_.dtype))
    Pt = _t(P) if unpack_pivots else _t(np.zeros(0, lu_.dtype))
    return _rt("lu_unpack", Pt, Lt, Ut)


# ------------------------------------------------------------------------------ Cholesky
def _chol_fwd(x, upper=False, symmetrize=False):
    return _bmap(lambda m: _lapack.potrf(m, upper)[0], [x], [2]).astype(x.dtype)


def cholesky_ex(A, *, upper=False, check_errors=False, out=None):
    a = _float_check(A, "linalg.cholesky")
    _square_check(a, "linalg.cholesky")
    info = _bmap(lambda m: np.int32(_lapack.potrf(m, upper)[1]), [a], [2]).astype(np.int32)
    if check_errors and np.any(info > 0):
        raise LinAlgError(_chol_msg(info))
    L = apply(_mkop("LinalgCholeskyExBackward0", _chol_fwd, None, base="cholesky"), (A,),
              {"upper": bool(upper)})
    return _rt("linalg_cholesky_ex", L, _t(info))


def _chol_msg(info):
    if info.ndim == 0:
        return (f"linalg.cholesky: The factorization could not be completed because the input is "
                f"not positive-definite (the leading minor of order {int(info)} is not "
                f"positive-definite).")
    i = int(np.argmax(info.reshape(-1) > 0))
    return (f"linalg.cholesky: (Batch element {i}): The factorization could not be completed "
            f"because the input is not positive-definite (the leading minor of order "
            f"{int(info.reshape(-1)[i])} is not positive-definite).")


def cholesky(A, *, upper=False, out=None):
    r = cholesky_ex(A, upper=upper)
    info = raw(r[1])
    if np.any(info > 0):
        raise LinAlgError(_chol_msg(info))
    return r[0]


# ------------------------------------------------------------------------------ eigen
def _eigh_fwd(x, UPLO="L", symmetrize=False):
    w, v = _bmap(lambda m: _lapack.syevd(m, UPLO == "U"), [x], [2])
    return w.astype(_lapack._real_of(x.dtype)), v.astype(x.dtype)


def eigh(A, UPLO="L", *, out=None):
    a = _float_check(A, "linalg.eigh")
    _square_check(a, "linalg.eigh")
    w, v = apply(_mkop("LinalgEighBackward0", _eigh_fwd, None, base="eigh"), (A,),
                 {"UPLO": UPLO})
    return _rt("linalg_eigh", w, v)


def eigvalsh(A, UPLO="L", *, out=None):
    a = _float_check(A, "linalg.eigvalsh")
    _square_check(a, "linalg.eigvalsh")
    if _grad_wanted(A):
        return eigh(A, UPLO)[0]
    w = _bmap(lambda m: _lapack.syevd(m, UPLO == "U", vectors=False)[0], [a], [2])
    return _t(w.astype(_lapack._real_of(a.dtype)))


def _eig_fwd(x):
    return _bmap(lambda m: _lapack.geev(m), [x], [2])


def _eig_vjp(n, gw, gv):
    """gA = V^-H (diag(gw)^* + ...) V^H, the eigenvalue term only when no gV flows."""
    x = np.asarray(n.inputs[0].data)
    w, v = (np.asarray(o, np.complex128) for o in n.out_data)
    Gw = np.asarray(gw.data, np.complex128)
    Gv = np.asarray(gv.data, np.complex128)
    Vh = np.conj(_mT(v))
    E = w[..., None, :] - w[..., :, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        F = np.where(E == 0, 0, 1 / np.conj(E))
    inner = Vh @ Gv
    inner = inner - Vh @ v @ np.real(np.diagonal(Vh @ Gv, 0, -2, -1))[..., None, :] * np.eye(
        w.shape[-1]) if False else inner
    gA = np.linalg.solve(Vh, (F * inner + np.eye(w.shape[-1]) * Gw[..., None, :]) @ Vh)
    return _c(n.inputs[0], np.real(gA).astype(x.dtype) if x.dtype.kind == "f" else gA)


def eig(A, *, out=None):
    a = _float_check(A, "linalg.eig")
    _square_check(a, "linalg.eig")
    w, v = apply(_mkop("LinalgEigBackward0", _eig_fwd, _eig_vjp, 2), (A,))
    return _rt("linalg_eig", w, v)


def eigvals(A, *, out=None):
    a = _float_check(A, "linalg.eigvals")
    _square_check(a, "linalg.eigvals")
    if _grad_wanted(A):
        return eig(A)[0]
    w = _bmap(lambda m: _lapack.geev(m, vectors=False)[0], [a], [2])
    return _t(w)


# ------------------------------------------------------------------------------ SVD
def _svd_fwd(x, full_matrices=False):
    u, s, vh = _bmap(lambda m: _lapack.gesdd(m, full_matrices), [x], [2])
    return u.astype(x.dtype), s, vh.astype(x.dtype)


def svd(A, full_matrices=True, *, driver=None, out=None):
    _float_check(A, "linalg.svd")
    U, S, Vh = apply(_mkop("LinalgSvdBackward0", _svd_fwd, None, base="svd"), (A,),
                     {"full_matrices": bool(full_matrices)})
    return _rt("linalg_svd", U, S, Vh)


def svdvals(A, *, driver=None, out=None):
    a = _float_check(A, "linalg.svdvals")
    if _grad_wanted(A):
        return svd(A, full_matrices=False)[1]
    s = _bmap(lambda m: _lapack.gesdd(m, vectors=False)[1], [a], [2])
    return _t(s)


# ------------------------------------------------------------------------------ QR
def _qr_fwd(x, mode="reduced"):
    q, r = _bmap(lambda m: tuple(np.zeros((0, 0), m.dtype) if v is None else v
                                for v in _lapack.qr(m, mode)), [x], [2])
    return _col_major(q.astype(x.dtype)), _col_major(r.astype(x.dtype))  # (torch's strides)


def _col_major(x):
    """``x`` with each matrix column-major, as torch holds LAPACK's Q and R."""
    return np.swapaxes(np.ascontiguousarray(np.swapaxes(x, -1, -2)), -1, -2)


def _torch_mm(a, b):
    """torch's ``matmul`` of two equal-batch stacks of matrices (mm, or bmm over the batch
    folded to one dim), by the dialect's MKL path (``_ops._np_matmul``)."""
    from . import _ops

    if a.ndim == 2:
        return np.asarray(_ops._np_matmul(a, b))
    batch = a.shape[:-2]
    out = _ops._np_matmul(a.reshape((-1,) + a.shape[-2:]), b.reshape((-1,) + b.shape[-2:]))
    return np.asarray(out).reshape(batch + out.shape[-2:])


def _trsm_right_lower(lower, b):
    """torch's ``linalg_solve_triangular(L, B, upper=False, left=False)``: X L = B by one
    ``?trsm('R', 'L', 'N')`` per matrix, B copied column-major."""
    return _bmap(lambda x, y: _lapack.trsm(np.asfortranarray(x), y, False, left=False),
                 [lower, b], [2, 2]).astype(b.dtype)


def _qr_vjp(n, gq, gr):
    """torch 2.13's ``linalg_qr_backward`` (real dtypes), its products and order: with
    gA = gR R^H - Q^H gQ; m >= n: (Q syminvadj(triu(gA)) + gQ) R^-H by a right trsm;
    m < n: Q trilImInvAdjSkew(-gA) over R[:, :m]^-H, zero columns, + Q gR."""
    mode = n.attrs.get("mode", "reduced")
    if mode == "r":
        raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed "
                           "when mode='r'. Please use linalg.qr(A, mode='reduced') if you are "
                           "going to differentiate through linalg.qr.")
    q, r = n.out_data
    m, k = q.shape[-2], r.shape[-1]
    if mode == "complete" and m > k:
        raise RuntimeError("The QR decomposition is not differentiable when mode='complete' "
                           "and nrows > ncols.")
    Q, R = _col_major(q), _col_major(r)
    dt = q.dtype
    mH = (lambda x: np.conj(_mT(x))) if dt.kind == "c" else _mT
    gQ = None if gq is None else np.asarray(gq.data, dt)
    gR = None if gr is None else np.asarray(gr.data, dt)
    if gQ is not None:
        qg = _torch_mm(mH(Q), gQ)
        gA = (_torch_mm(gR, mH(R)) - qg) if gR is not None else -qg
    else:
        gA = _torch_mm(gR, mH(R))
    if m >= k:
        sym = np.triu(gA)
        sym = sym + mH(sym)
        d = np.arange(sym.shape[-1])
        sym[..., d, d] = sym[..., d, d].real * sym.real.dtype.type(0.5)   # (its real part halved)
        gA = _torch_mm(Q, sym)
        if gQ is not None:
            gA = gA + gQ
        out = _trsm_right_lower(mH(R), gA)
    else:
        x = -gA
        skew = np.tril(x) - np.tril(mH(x))
        if dt.kind == "c":     # (the imaginary part of the diagonal halved)
            d = np.arange(skew.shape[-1])
            skew[..., d, d] = 1j * (skew[..., d, d].imag * skew.real.dtype.type(0.5))
        gA = _trsm_right_lower(mH(R[..., :m]), _torch_mm(Q, skew))
        out = np.concatenate([gA, np.zeros(gA.shape[:-1] + (k - m,), dt)], -1)
        if gR is not None:
            out = out + _torch_mm(Q, gR)
    like = gq if gq is not None else gr
    return _c(like, out)


_QR_OP = [None]


def _qr_op():
    op = _mkop("LinalgQrBackward0", _qr_fwd, None, base="qr")
    op.vjp = _qr_vjp
    op.undefined_grads = True   # (torch skips the terms of an output with no gradient: signs of 0)
    _QR_OP[0] = op
    return op


def qr(A, mode="reduced", *, out=None):
    _float_check(A, "linalg.qr")
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of "
                           "'reduced' (default), 'r', or 'complete'")
    Q, R = apply(_QR_OP[0] or _qr_op(), (A,), {"mode": mode})
    if mode == "r":
        Q = _t(np.zeros(0, raw(A).dtype))
    return _rt("linalg_qr", Q, R)


def householder_product(A, tau, *, out=None):
    a = raw(A)
    t = raw(tau)

    def fwd(x, y):
        return _bmap(lambda m, tt: _lapack.orgqr(m, tt), [x, y], [2, 1]).astype(x.dtype)

    return apply(_mkop("LinalgHouseholderProductBackward0", fwd, None), (A, tau)) \
        if False else _t(fwd(a, t))


# ------------------------------------------------------------------------------ triangular
def _trsm_fwd(a, b, upper=True, transpose=False, unitriangular=False, left=True):
    dt = np.result_type(a, b)
    return _bmap(lambda x, y: _lapack.trsm(x.astype(dt), y.astype(dt), upper, left, transpose,
                                           unitriangular), [a, b], [2, 2]).astype(dt)


def solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):
    _float_check(A, "linalg.solve_triangular")
    if not left:
        op = _mkop("LinalgSolveTriangularBackward0", lambda a, b, **k: _trsm_fwd(
            a, b, upper, False, unitriangular, left=False), _tri_right_vjp)
        return apply(op, (A, B), {"upper": bool(upper), "unitriangular": bool(unitriangular)})
    return apply(_mkop("LinalgSolveTriangularBackward0",
                       lambda a, b, **k: _trsm_fwd(a, b, **k), None, base="triangular_solve"),
                 (A, B), {"upper": bool(upper), "transpose": False,
                          "unitriangular": bool(unitriangular)})


def _tri_right_vjp(n, g):
    """X A = B: gB = g A^-1 ... (numpy)."""
    a, b = n.inputs
    upper = n.attrs["upper"]
    unit = n.attrs["unitriangular"]
    A = np.asarray(a.data, np.float64)
    A = np.triu(A) if upper else np.tril(A)
    if unit:
        idx = np.arange(A.shape[-1])
        A[..., idx, idx] = 1
    X = np.asarray(n.out_data[0], np.float64)
    G = np.asarray(g.data, np.float64)
    gB = _mT(np.linalg.solve(A, _mT(G)))  # G A^-T ... for X = B A^-1: gB = G A^-T
    gA = -_mT(X) @ gB
    gA = np.triu(gA) if upper else np.tril(gA)
    if unit:
        gA[..., idx, idx] = 0
    return _c(a, gA), _c(b, gB)


# ------------------------------------------------------------------------------ products
def matmul(input, other, *, out=None):  # noqa: A002
    return _T().matmul(input, other)


def cross(input, other, *, dim=-1, out=None):  # noqa: A002
    from . import _ops

    a, b = raw(input), raw(other)
    if a.shape != b.shape:
        shape = np.broadcast_shapes(a.shape, b.shape)
        input, other = _T().broadcast_to(input, shape), _T().broadcast_to(other, shape)
        a = raw(input)
    if a.shape[dim] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                           f"{a.shape[dim]} and {raw(other).shape[dim]}")
    return _ops.cross(input, other, dim)


def vecdot(x, y, *, dim=-1, out=None):
    T = _T()
    return T.sum(T.mul(x.conj() if raw(x).dtype.kind == "c" else x, y), dim)


def multi_dot(tensors, *, out=None):
    T = _T()
    tensors = list(tensors)
    n = len(tensors)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    first, last = raw(tensors[0]), raw(tensors[-1])
    ts = list(tensors)
    if first.ndim == 1:
        ts[0] = T.unsqueeze(ts[0], 0)
    if last.ndim == 1:
        ts[-1] = T.unsqueeze(ts[-1], 1)
    if n == 2:
        res = T.mm(ts[0], ts[1])
    else:
        shapes = [raw(t).shape for t in ts]
        dims = [shapes[0][0]] + [s[1] for s in shapes]
        if n == 3:
            a, b, c, d = dims
            cost1 = a * c * (b + d)
            cost2 = b * d * (a + c)
            res = T.mm(T.mm(ts[0], ts[1]), ts[2]) if cost1 < cost2 else \
                T.mm(ts[0], T.mm(ts[1], ts[2]))
        else:
            order = _chain_order(dims)
            res = _chain(ts, order, 0, n - 1)
    from . import _ops

    rs = list(raw(res).shape)
    if first.ndim == 1 and last.ndim == 1:
        return _ops.view(res, ())
    if first.ndim == 1:
        return _ops.view(res, (rs[1],))
    if last.ndim == 1:
        return _ops.view(res, (rs[0],))
    return res


def _chain_order(p):
    n = len(p) - 1
    m = [[0] * n for _ in range(n)]
    s = [[0] * n for _ in range(n)]
    for ln in range(1, n):
        for i in range(n - ln):
            j = i + ln
            m[i][j] = None
            for k in range(i, j):
                q = m[i][k] + m[k + 1][j] + p[i] * p[k + 1] * p[j + 1]
                if m[i][j] is None or q < m[i][j]:
                    m[i][j] = q
                    s[i][j] = k
    return s


def _chain(ts, s, i, j):
    if i == j:
        return ts[i]
    k = s[i][j]
    return _T().mm(_chain(ts, s, i, k), _chain(ts, s, k + 1, j))


def matrix_power(A, n, *, out=None):
    T = _T()
    a = raw(A)
    _square_check(a, "linalg.matrix_power", "A")
    if n == 0:
        return _t(np.broadcast_to(np.eye(a.shape[-1], dtype=a.dtype), a.shape).copy())
    if n < 0:
        A = inv(A)
        n = -n
    if n == 1:
        return T.clone(A)
    if n == 2:
        return T.matmul(A, A)
    if n == 3:
        return T.matmul(T.matmul(A, A), A)
    # repeated squaring, as torch's linalg_matrix_power_impl
    z = None
    result = None
    while n > 0:
        z = A if z is None else T.matmul(z, z)
        if n % 2 == 1:
            result = z if result is None else T.matmul(result, z)
        n //= 2
    return result


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    return _T().diagonal(A, offset, dim1, dim2)


def vander(x, *, N=None):
    T = _T()
    a = raw(x)
    n = a.shape[-1] if N is None else int(N)
    if n <= 1:
        return T.ones_like(T.unsqueeze(x, -1)) if n == 1 else T.unsqueeze(x, -1)[..., :0]
    ones = T.ones_like(T.unsqueeze(x, -1))
    rest = T.cumprod(T.unsqueeze(x, -1).expand(*(a.shape + (n - 1,))), -1)
    return T.cat([ones, rest], -1)


# ------------------------------------------------------------------------------ norms
def _as_dims(dim, nd):
    if dim is None:
        return None
    if isinstance(dim, int):
        return (dim,)
    return tuple(dim)


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):  # noqa: A002
    from . import _ops

    T = _T()
    if dtype is not None:
        x = x.to(dtype)
    a = _float_check(x, "linalg.vector_norm")
    ordf = float(ord)
    if ordf == 0:
        nz = T.ne(x, 0).to(x.dtype)
        return T.sum(nz, dim, keepdim=keepdim) if dim is not None else T.sum(nz)
    if ordf in (float("inf"), -float("inf")):
        ab = T.abs(x)
        dims = _as_dims(dim, a.ndim)
        f = T.amax if ordf > 0 else T.amin
        return f(ab, dims if dims is not None else tuple(range(a.ndim)), keepdim)
    return _ops.norm(x, ordf, dim, keepdim)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):  # noqa: A002
    T = _T()
    if dtype is not None:
        A = A.to(dtype)
    a = _float_check(A, "linalg.matrix_norm")
    if a.ndim < 2:
        raise RuntimeError(f"linalg.matrix_norm: The input tensor A must have at least 2 "
                           f"dimensions.")
    d0, d1 = (int(d) % a.ndim for d in dim)
    if isinstance(ord, str):
        if ord == "fro":
            return vector_norm(A, 2, (d0, d1), keepdim)
        if ord != "nuc":
            raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
        perm = [i for i in range(a.ndim) if i not in (d0, d1)] + [d0, d1]
        res = T.sum(svdvals(T.permute(A, perm)), -1)
        if keepdim:
            res = T.unsqueeze(T.unsqueeze(res, min(d0, d1)), max(d0, d1))
        return res
    ordf = float(ord)
    if abs(ordf) not in (1.0, 2.0, float("inf")):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    if abs(ordf) == 2.0:
        perm = [i for i in range(a.ndim) if i not in (d0, d1)] + [d0, d1]
        s = svdvals(T.permute(A, perm))
        res = T.amax(s, -1) if ordf > 0 else T.amin(s, -1)
        if keepdim:
            res = T.unsqueeze(T.unsqueeze(res, min(d0, d1)), max(d0, d1))
        return res
    if abs(ordf) == float("inf"):
        d0, d1 = d1, d0
    if not keepdim and d0 < d1:
        d1 -= 1
    s = vector_norm(A, 1.0, d0, keepdim)
    return T.amax(s, d1, keepdim) if ordf > 0 else T.amin(s, d1, keepdim)


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None, out=None):  # noqa: A002
    a = raw(A)
    if dim is not None and not isinstance(dim, int) and len(dim) not in (1, 2):
        raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got "
                           f"{list(dim)}")
    if dim is None and ord is not None and a.ndim not in (1, 2):
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be "
                           f"1D or 2D. Got {a.ndim}D.")
    if isinstance(ord, str):
        return matrix_norm(A, ord, (0, 1) if dim is None else dim, keepdim, dtype=dtype)
    if ord is not None and ((dim is not None and not isinstance(dim, int) and len(dim) == 2)
                            or (dim is None and a.ndim == 2)):
        return matrix_norm(A, ord, (0, 1) if dim is None else dim, keepdim, dtype=dtype)
    return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)


def cond(A, p=None, *, out=None):
    T = _T()
    a = _float_check(A, "linalg.cond")
    if p is None or (not isinstance(p, str) and abs(float(p)) == 2.0):
        s = svdvals(A)
        smax = T.narrow(s, -1, 0, 1)
        smin = T.narrow(s, -1, raw(s).shape[-1] - 1, 1)
        res = T.div(smin, smax) if (p is not None and float(p) == -2.0) else T.div(smax, smin)
        return T.squeeze(res, -1)
    Ainv, info = inv_ex(A)
    bad = raw(info) > 0
    if np.any(bad):
        Ainv = T.masked_fill(Ainv, _t(bad[..., None, None]), float("inf"))
    res = T.mul(matrix_norm(A, p), matrix_norm(Ainv, p))
    return T.nan_to_num(res, float("inf"), float("inf"), -float("inf"))


def _tols(a, atol, rtol, rcond=None):
    dt = a.dtype if a.dtype.kind == "f" else np.real(np.zeros(0, a.dtype)).dtype
    eps = float(np.finfo(dt).eps)
    if rcond is not None:
        return 0.0, raw(rcond) if isinstance(rcond, Tensor) else float(rcond)
    at = 0.0 if atol is None else (raw(atol) if isinstance(atol, Tensor) else float(atol))
    if rtol is None:
        given = atol is not None and np.any(np.asarray(at) > 0)
        rt = 0.0 if given else eps * max(a.shape[-2], a.shape[-1])
    else:
        rt = raw(rtol) if isinstance(rtol, Tensor) else float(rtol)
    return at, rt


def pinv(A, *, atol=None, rtol=None, hermitian=False, out=None, rcond=None):
    T = _T()
    a = _float_check(A, "linalg.pinv")
    at, rt = _tols(a, atol, rtol, rcond)
    rdt = _lapack._real_of(a.dtype)   # (a complex matrix's singular values are real)
    at_t = _t(np.asarray(at, rdt))
    rt_t = _t(np.asarray(rt, rdt))
    if not hermitian:
        U, S, Vh = svd(A, full_matrices=False)
        max_val = T.narrow(S, -1, 0, 1)
        tol = T.maximum(T.unsqueeze(at_t, -1), T.mul(T.unsqueeze(rt_t, -1), max_val))
        Sp = T.where(T.gt(S, tol), T.reciprocal(S), _t(np.zeros((), rdt)))
        return T.matmul(T.mul(Vh.mH, T.unsqueeze(Sp, -2).to(Vh.dtype)), U.mH)
    S, U = eigh(A)
    S_abs = T.abs(S)
    max_val = T.amax(S_abs, -1, True)
    tol = T.maximum(T.unsqueeze(at_t, -1), T.mul(T.unsqueeze(rt_t, -1), max_val))
    Sp = T.where(T.gt(S_abs, tol), T.reciprocal(S), _t(np.zeros((), rdt)))
    return T.matmul(T.mul(U, T.unsqueeze(Sp, -2).to(U.dtype)), U.mH)


def matrix_rank(A, *, atol=None, rtol=None, hermitian=False, out=None, tol=None):
    T = _T()
    a = _float_check(A, "linalg.matrix_rank")
    if tol is not None:
        atol, rtol = tol, 0.0
    at, rt = _tols(a, atol, rtol)
    with _nograd():
        if hermitian:
            S = T.abs(eigvalsh(A))
            smax = T.amax(S, -1, True)
        else:
            S = svdvals(A)
            smax = T.narrow(S, -1, 0, 1) if raw(S).shape[-1] else T.zeros_like(S)[..., :1]
        tolt = T.maximum(T.unsqueeze(_t(np.asarray(at, raw(S).dtype)), -1),
                         T.mul(T.unsqueeze(_t(np.asarray(rt, raw(S).dtype)), -1), smax))
        return T.sum(T.gt(S, tolt), -1)


def _nograd():
    return _T().no_grad()


def _broadcast_batches(sa, sb):
    """Broadcast batch shapes, failing with torch's infer_size message."""
    try:
        return np.broadcast_shapes(sa, sb)
    except ValueError:
        nd = max(len(sa), len(sb))
        for i in range(nd - 1, -1, -1):
            off = nd - 1 - i
            x = sa[len(sa) - 1 - off] if off < len(sa) else 1
            y = sb[len(sb) - 1 - off] if off < len(sb) else 1
            if x != y and x != 1 and y != 1:
                raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b "
                                   f"({y}) at non-singleton dimension {i}") from None
        raise


def _a_batch(per_batch, a_batch, trailing=0):
    """Values computed per broadcast batch, kept for A's own batch shape (torch's rank and
    singular_values have the batch dimensions of A): the leading dimensions A lacks, and the
    dimensions where A has size 1, take their first entry."""
    nb = len(a_batch)
    lead = per_batch.ndim - trailing - nb
    out = per_batch[(0,) * lead]
    index = tuple(slice(0, 1) if a == 1 else slice(None) for a in a_batch)
    return out[index]


def lstsq(A, B, rcond=None, *, driver=None):
    a = _float_check(A, "linalg.lstsq")
    b = raw(B)
    driver = driver or "gelsy"
    if driver not in ("gels", "gelsy", "gelsd", "gelss"):
        raise RuntimeError(f"torch.linalg.lstsq: parameter `driver` should be one of (gels, "
                           f"gelsy, gelsd, gelss)")
    # torch's linalg_solve_is_vector_rhs: B is a (batch of) vector(s) when it is 1-D or has
    # exactly A's shape without its last dimension
    if not 0 <= a.ndim - b.ndim <= 1:
        raise RuntimeError("torch.linalg.lstsq: input.dim() must be greater or equal to "
                           "other.dim() and (input.dim() - other.dim()) <= 1")
    vec = b.ndim == 1 or (b.ndim == a.ndim - 1 and tuple(b.shape) == tuple(a.shape[:-1]))
    bb = b[..., None] if vec else b
    if bb.shape[-2] != a.shape[-2]:
        raise RuntimeError("torch.linalg.lstsq: input.size(-2) should match other.size("
                           f"{-1 if vec else -2})")
    dt = np.result_type(a, b)
    m, n = a.shape[-2:]
    batch = _broadcast_batches(a.shape[:-2], bb.shape[:-2])
    A2 = np.broadcast_to(a, batch + a.shape[-2:]).astype(dt)
    B2 = np.broadcast_to(bb, batch + bb.shape[-2:]).astype(dt)
    sols, ranks, svs, resid = [], [], [], []
    for idx in np.ndindex(batch):
        x, r, s = _lapack.gels_driver(A2[idx], B2[idx], driver, rcond)
        sols.append(x)
        ranks.append(r)
        svs.append(s)
    k = bb.shape[-1]
    sol = np.stack(sols).reshape(batch + (n, k)) if sols else np.zeros(batch + (n, k), dt)
    if vec:
        sol = sol[..., 0]
    rank = (_a_batch(np.array(ranks, np.int64).reshape(batch), a.shape[:-2])
            if driver != "gels" else np.zeros(0, np.int64))
    sv = (_a_batch(np.stack(svs).reshape(batch + (min(m, n),)), a.shape[:-2], 1)
          if driver in ("gelsd", "gelss") else np.zeros(0, _lapack._real_of(dt)))
    residuals = np.zeros(0, _lapack._real_of(dt))
    if m > n and driver != "gelsy":
        full = driver == "gels" or np.all(np.array(ranks) == n)
        if full:
            T = _T()
            with _nograd():
                r = T.sub(T.matmul(A if not vec else A, _t(sol if not vec else sol[..., None])),
                          _t(B2))
                if np.dtype(dt).kind == "c":   # (torch: |r|^2 as r * conj(r), its real part)
                    r = T.real(T.mul(r, T.conj(r)))
                else:
                    r = T.mul(r, r)
                residuals = raw(T.sum(r, -2))  # (torch keeps the vector case's 1)
    solution = _t(sol)
    if _grad_wanted(A, B):
        T = _T()
        solution = T.matmul(pinv(A), B if not vec else B)
    return _rt("linalg_lstsq", solution, _t(residuals), _t(rank), _t(sv))


# ------------------------------------------------------------------------------ LDL
def ldl_factor_ex(A, *, hermitian=False, check_errors=False, out=None):
    a = _float_check(A, "torch.linalg.ldl_factor_ex")
    _square_check(a, "torch.linalg.ldl_factor_ex")
    ld, piv, info = _bmap(lambda m: tuple(np.asarray(v) for v in _lapack.sytrf(m)), [a], [2])
    return _rt("linalg_ldl_factor_ex", _t(ld.astype(a.dtype)), _t(piv.astype(np.int32)),
               _t(info.astype(np.int32)))


def ldl_factor(A, *, hermitian=False, out=None):
    r = ldl_factor_ex(A, hermitian=hermitian)
    if np.any(raw(r[2]) > 0):
        raise LinAlgError("torch.linalg.ldl_factor: The factorization could not be completed "
                          "because the input is singular.")
    return _rt("linalg_ldl_factor", r[0], r[1])


def ldl_solve(LD, pivots, B, *, hermitian=False, out=None):
    ld, piv, b = raw(LD), raw(pivots), raw(B)
    _square_check(ld, "torch.linalg.ldl_solve")
    _linear_solve_check(b, ld, "torch.linalg.ldl_solve")
    if piv.shape != ld.shape[:-1]:
        raise RuntimeError("torch.linalg.ldl_solve: Expected LD.shape[:-1] and pivots.shape to be "
                           f"the same, but got pivots with shape {list(piv.shape)} instead")
    _broadcast_batches(b.shape[:-2], ld.shape[:-2])
    x = _bmap(lambda l_, p_, b_: _lapack.sytrs(l_, p_, b_), [ld, piv, b], [2, 1, 2])
    return _t(x.astype(b.dtype))


# ------------------------------------------------------------------------------ tensor forms
def tensorinv(A, ind=2, *, out=None):
    T = _T()
    a = raw(A)
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    out_shape = a.shape[ind:] + a.shape[:ind]
    prod_ind = int(np.prod(a.shape[:ind]))
    res = inv(T.reshape(A, (prod_ind, -1)))
    return T.reshape(res, out_shape)


def tensorsolve(A, B, dims=None, *, out=None):
    T = _T()
    a, b = raw(A), raw(B)
    nd = a.ndim
    if dims is not None:
        dims = [int(d) % nd for d in dims]
        rest = [i for i in range(nd) if i not in dims]
        A = T.permute(A, rest + dims)
        a = raw(A)
    res_shape = a.shape[b.ndim:]
    numel = int(np.prod(res_shape)) if res_shape else 1
    x = solve(T.reshape(A, (-1, numel)), T.reshape(B, (-1,)))
    return T.reshape(x, res_shape)


def matrix_exp(A):
    """torch's matrix exponential: a Taylor polynomial of the degree the 1-norm calls for
    (Bader, Blanes, Casas 2019, as aten's mexp), then repeated squaring."""
    a = _float_check(A, "linalg.matrix_exp")
    _square_check(a, "linalg.matrix_exp")

    def fwd(x):
        if x.shape[-1] == 1:   # (aten's trivial case: exp of the one value)
            from . import _ops

            return _ops.exp._op.forward(x)
        many = x.ndim > 2 and x.size > x.shape[-1] ** 2   # (a batch: degree 18 for all)
        return _bmap(lambda m: _mexp_one(m, many), [x], [2]).astype(x.dtype)

    def vjp(n, g):
        # aten's linalg_matrix_exp_differential: the exponential of [[A^H, G], [0, A^H]] in the
        # input's dtype (was float64, then rounded: other bits for float32)
        X = np.asarray(n.inputs[0].data)
        G = np.asarray(g.data, X.dtype)

        def one(x, gg):
            k = x.shape[-1]
            big = np.zeros((2 * k, 2 * k), x.dtype)
            big[:k, :k] = x.conj().T   # (A^H: the transpose for real matrices)
            big[k:, k:] = x.conj().T
            big[:k, k:] = gg
            return _mexp_one(big, many)[:k, k:]

        many = X.ndim > 2 and X.size > X.shape[-1] ** 2
        out = _bmap(one, [X, G], [2, 2])
        return _c(n.inputs[0], out)

    return apply(_mkop("LinalgMatrixExpBackward0", fwd, vjp), (A,))


_THETA32 = (1.192092800768788e-07, 5.978858893805233e-04, 5.116619363445086e-02,
            5.800524627688768e-01, 1.461661507209034e+00, 3.010066362817634e+00)
_THETA64 = (2.220446049250313e-16, 2.580956802971767e-08, 3.397168839976962e-04,
            4.991228871115323e-02, 2.996158913811580e-01, 1.090863719290036e+00)
# Bader, Blanes, Casas (2019)'s coefficients as aten's mexp holds them: row i gives
# B_i = sum_j b[i][j] * P_j over the powers P = (I, A, A^2, A^3) for degree 12 and
# (I, A, A^2, A^3, A^6) for degree 18
_B12 = ((9.0198e-16, 0.46932117595418237389, -0.20099424927047284052, -0.04623946134063071740),
        (5.31597895759871264183, 1.19926790417132231573, 0.01179296240992997031,
         0.01108844528519167989),
        (0.18188869982170434744, 0.05502798439925399070, 0.09351590770535414968,
         0.00610700528898058230),
        (-2.0861320e-13, -0.13181061013830184015, -0.02027855540589259079,
         -0.00675951846863086359))
_B18 = ((0., -1.00365581030144618291e-01, -8.02924648241156932449e-03,
         -8.92138498045729985177e-04, 0.),
        (0., 3.97849749499645077844e-01, 1.36783778460411720168e+00,
         4.98289622525382669416e-01, -6.37898194594723280150e-04),
        (-1.09676396052962061844e+01, 1.68015813878906206114e+00, 5.71779846478865511061e-02,
         -6.98210122488052056106e-03, 3.34975017086070470649e-05),
        (-9.04316832390810593223e-02, -6.76404519071381882256e-02, 6.75961301770459654925e-02,
         2.95552570429315521194e-02, -1.39180257516060693404e-05),
        (0., 0., -9.23364619367118555360e-02, -1.69364939002081722752e-02,
         -1.40086798182036094347e-05))


def _bmm1(a, b):
    """``a @ b`` of two matrices as aten's mexp multiplies them: a batch of one (bmm)."""
    from . import _ops

    return np.asarray(_ops._np_matmul(a[None], b[None])[0], a.dtype)


def _lincomb(mats, coeffs):
    """aten's ``_compute_linear_combination``: a zeroed result, then ``+= P_j * c_j`` in order
    (each product rounded, the coefficient in the matrices' dtype)."""
    dt = mats[0].dtype.type
    out = np.zeros_like(mats[0])
    for m, c in zip(mats, coeffs):
        out = out + m * dt(c)
    return out


def _powers(x, k):
    """I, A, A^2, A^3 = A @ A^2 (the first k of them), as aten's mexp fills its buffer."""
    ps = [np.eye(x.shape[0], dtype=x.dtype), x]
    if k > 2:
        ps.append(_bmm1(x, x))
    if k > 3:
        ps.append(_bmm1(x, ps[2]))
    return ps


def _t1(x):
    i, a = _powers(x, 2)
    return i + a


def _t2(x):
    i, a, a2 = _powers(x, 3)
    return (i + a) + a2 / x.dtype.type(2.0)


def _t4(x):
    ps = _powers(x, 3)
    a4 = _bmm1(ps[2], _lincomb(ps, (1 / 2.0, 1 / 6.0, 1 / 24.0)))
    return _lincomb(ps + [a4], (1.0, 1.0, 0.0, 1.0))


def _t8(x):
    dt = x.dtype.type
    rt = _lapack._real_of(x.dtype)   # (a complex matrix's constants: of its real dtype)
    r = float(rt(0.1330413469565007072504e+2))   # (constants of the dtype, combined in double)
    x3 = float(rt(2. / 3.))
    c = [dt(v) for v in (x3 * ((1. + r) / 88.), x3 * ((1. + r) / 352.),
                         (-271. + 29. * r) / (315. * x3), (-11. + 11. * r) / (1260. * x3),
                         (-99. + 11. * r) / (5040. * x3), (89. - r) / (5040. * x3),
                         (857. - 58. * r) / 630.)]
    ps = _powers(x, 3)
    a4 = _bmm1(ps[2], _lincomb(ps[1:3], c[0:2]))
    a8 = _bmm1(_lincomb([ps[2], a4], (x3, 1.0)), _lincomb(ps + [a4], c[2:6]))
    return _lincomb(ps + [a4, a8], (1.0, 1.0, c[6], 0.0, 1.0))


def _t12(x):
    ps = _powers(x, 4)
    b = [_lincomb(ps, row) for row in _B12]
    b[2] = b[2] + _bmm1(b[3], b[3])
    b[1] = b[1] + b[2]
    return b[0] + _bmm1(b[1], b[2])


def _t18(x):
    ps = _powers(x, 4)
    ps.append(_bmm1(ps[3], ps[3]))
    b = [_lincomb(ps, row) for row in _B18]
    b[3] = b[3] + _bmm1(b[0], b[4])
    b[2] = b[2] + b[3]
    return b[1] + _bmm1(b[2], b[3])


def _mexp_one(x, highest=False):
    """aten's mexp of one matrix (n >= 2): the Taylor degree its 1-norm calls for (Bader,
    Blanes, Casas 2019: degrees 1, 2, 4, 8, 12 by norm, each evaluated by aten's scheme), past
    degree 12's bound (or for every matrix of a batch of more than one: ``highest``) degree 18
    on x / 2^s, squared s times. Measured: 2x2..5x5, 8, 20, 64 float32/float64 matrices of norms
    1e-9..50, every degree, batches, gradients: equal to real torch 2.13."""
    dt = x.dtype.type
    rdt = _lapack._real_of(x.dtype)   # (a complex matrix: its norm and thresholds are real)
    thetas = _THETA32 if rdt == np.float32 else _THETA64
    norm = np.abs(x).sum(0).max() if x.shape[0] else rdt(0)
    for th, f in zip(() if highest else thetas[:-1], (_t1, _t2, _t4, _t8, _t12)):
        if norm <= rdt(th):
            return f(x)
    with np.errstate(all="ignore"):
        s = np.ceil(np.log2(norm / rdt(thetas[-1])))
    s = int(s) if s > 0 else 0
    y = _t18((x / dt(2.0 ** s)).astype(x.dtype))
    for _ in range(s):
        y = _bmm1(y, y)
    return y


# torch.linalg.common_notes: documentation strings
common_notes = {
    "experimental_warning": "This function is \"experimental\" and it may change in a future "
                            "PyTorch release.",
    "sync_note": "When inputs are on a CUDA device, this function synchronizes that device "
                 "with the CPU.",
}
