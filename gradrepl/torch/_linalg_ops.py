"""torch's linear algebra in the ``torch`` namespace (``torch.logdet``, ``torch.cholesky``,
``torch.lu`` ...) and their Tensor methods; ``torch.linalg`` is ``linalg``.

The older names are torch's wrappers over ``torch.linalg`` (``torch.svd`` is ``linalg.svd`` with
``V`` for ``Vh``, ``torch.lu`` is ``lu_factor_ex`` ...); the few with a LAPACK routine of their
own (``cholesky_solve``: potrs, ``cholesky_inverse``: potri, ``geqrf``, ``ormqr``) call it
through ``_lapack`` as torch does.
"""
from __future__ import annotations


import numpy as np

from . import _lapack, linalg
from ._base import raw
from ._tensor import Tensor

_wrap = Tensor._wrap


def _T():
    from .. import torch as T

    return T


def _t(a):
    return _wrap(np.asarray(a), True)


def det(input):  # noqa: A002
    return linalg.det(input)


def logdet(input):  # noqa: A002
    T = _T()
    sign, logabs = linalg.slogdet(input)
    nan = _t(np.asarray(np.nan, raw(logabs).dtype))
    return T.where(T.eq(sign, -1.0), nan, logabs)


def slogdet(input):  # noqa: A002
    s, l_ = linalg.slogdet(input)
    return linalg._rt("slogdet", s, l_)


def inverse(input):  # noqa: A002
    return linalg.inv(input)


def _chol_op(name, fwd, vjp):
    return linalg._mkop(name, fwd, vjp)


# torch 2.13's deprecation warnings of the pre-linalg functions: TORCH_WARN_ONCE in ATen (once a
# process, whoever calls), shown at the Python line that called the binding: the user's for
# torch.qr/torch.cholesky and their methods, torch's own for the Python wrappers (libwarn SITES)
_ATEN = " (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/"
_CHOLESKY_DEPRECATED = (
    "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a "
    "future PyTorch release.\nL = torch.cholesky(A)\nshould be replaced with\n"
    "L = torch.linalg.cholesky(A)\nand\nU = torch.cholesky(A, upper=True)\n"
    "should be replaced with\nU = torch.linalg.cholesky(A).mH\nThis transform will produce "
    "equivalent results for all valid (symmetric positive definite) inputs."
    + _ATEN + "BatchLinearAlgebra.cpp:1765.)")
_QR_DEPRECATED = (
    "torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future PyTorch "
    "release.\nThe boolean parameter 'some' has been replaced with a string parameter 'mode'.\n"
    "Q, R = torch.qr(A, some)\nshould be replaced with\n"
    "Q, R = torch.linalg.qr(A, 'reduced' if some else 'complete')"
    + _ATEN + "BatchLinearAlgebra.cpp:2505.)")
_LU_DEPRECATED = (
    "torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and "
    "will be removed in a future PyTorch release.\nLU, pivots = torch.lu(A, compute_pivots)\n"
    "should be replaced with\nLU, pivots = torch.linalg.lu_factor(A, compute_pivots)\nand\n"
    "LU, pivots, info = torch.lu(A, compute_pivots, get_infos=True)\nshould be replaced with\n"
    "LU, pivots, info = torch.linalg.lu_factor_ex(A, compute_pivots)"
    + _ATEN + "BatchLinearAlgebra.cpp:2073.)")
_LU_SOLVE_DEPRECATED = (
    "torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in a "
    "future PyTorch release.\nNote that torch.linalg.lu_solve has its arguments reversed.\n"
    "X = torch.lu_solve(B, LU, pivots)\nshould be replaced with\n"
    "X = torch.linalg.lu_solve(LU, pivots, B)" + _ATEN + "BatchLinearAlgebra.cpp:2230.)")
_CHAIN_DEPRECATED = (
    "torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
    "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather than "
    "multiple parameters." + _ATEN + "LinearAlgebra.cpp:{}.)")


def _aten_warn_once(message, site=None):
    from ._ops_shape import _warn_once

    _warn_once(message, site=site)


def cholesky(input, upper=False):  # noqa: A002
    _aten_warn_once(_CHOLESKY_DEPRECATED)
    from ..engine.registry import apply

    linalg._float_check(input, "cholesky")
    info = linalg._bmap(lambda m: np.int32(_lapack.potrf(m, upper)[1]), [raw(input)], [2])
    if np.any(info > 0):
        raise linalg.LinAlgError(linalg._chol_msg(np.asarray(info)).replace("linalg.cholesky",
                                                                            "cholesky"))
    return apply(linalg._mkop("CholeskyBackward0", linalg._chol_fwd, None, base="cholesky"),
                 (input,), {"upper": bool(upper)})


def cholesky_solve(input, input2, upper=False):  # noqa: A002
    """Solve A X = B with A = L L^T (or U^T U), L = ``input2``: LAPACK's potrs."""
    from ..engine.registry import apply

    b, c = raw(input), raw(input2)
    if b.ndim < 2:
        raise RuntimeError(f"b should have at least 2 dimensions, but has {b.ndim} dimensions "
                           "instead")
    if c.ndim < 2:
        raise RuntimeError(f"u should have at least 2 dimensions, but has {c.ndim} dimensions "
                           "instead")
    linalg._linear_solve_check(b, c, "cholesky_solve")
    linalg._broadcast_batches(b.shape[:-2], c.shape[:-2])

    def fwd(bb, cc):
        return linalg._bmap(lambda x, y: _lapack.potrs(y, x, upper), [bb, cc], [2, 2]).astype(
            np.result_type(bb, cc))

    def vjp(n, g):
        B, C = n.inputs
        G = np.asarray(g.data, np.float64)
        Cm = np.asarray(C.data, np.float64)
        Cm = np.triu(Cm) if upper else np.tril(Cm)
        A = _mT(Cm) @ Cm if upper else Cm @ _mT(Cm)
        X = np.asarray(n.out_data[0], np.float64)
        gB = np.linalg.solve(A, G)
        gA = -(gB @ _mT(X))
        gA = (gA + _mT(gA)) / 2
        gC = (_mT(Cm) @ (gA + _mT(gA))).swapaxes(-1, -2) if upper else (gA + _mT(gA)) @ Cm
        gC = np.triu(gC) if upper else np.tril(gC)
        return linalg._c(B, gB), linalg._c(C, gC)

    del b, c
    return apply(linalg._mkop("CholeskySolveBackward0", fwd, vjp), (input, input2))


def _mT(a):
    return np.swapaxes(a, -1, -2)


def cholesky_inverse(input, upper=False):  # noqa: A002
    """(L L^T)^-1 from the factor L (or U): LAPACK's potri, mirrored to the full matrix."""
    from ..engine.registry import apply

    linalg._square_check(raw(input), "cholesky_inverse")

    def fwd(x):
        return linalg._bmap(lambda m: _lapack.potri(m, upper), [x], [2]).astype(x.dtype)

    def vjp(n, g):
        L = np.asarray(n.inputs[0].data, np.float64)
        L = np.triu(L) if upper else np.tril(L)
        Ainv = np.asarray(n.out_data[0], np.float64)
        G = np.asarray(g.data, np.float64)
        Gs = G + _mT(G)
        common = -Ainv @ Gs @ Ainv
        gL = np.triu(_mT(L) @ common).swapaxes(-1, -2).swapaxes(-1, -2) if upper else \
            np.tril(common @ L)
        if upper:
            gL = np.triu(L @ common)
        return linalg._c(n.inputs[0], gL)

    return apply(linalg._mkop("CholeskyInverseBackward0", fwd, vjp), (input,))


def lu(A, pivot=True, get_infos=False, out=None, _site="lu_functional"):  # noqa: A002
    _aten_warn_once(_LU_DEPRECATED, _site)
    r = linalg.lu_factor_ex(A, pivot=pivot)
    if get_infos:
        return (r[0], r[1], r[2])
    return (r[0], r[1])


def lu_solve(b, LU_data, LU_pivots, *, out=None):  # noqa: A002
    _aten_warn_once(_LU_SOLVE_DEPRECATED)   # (torch's words, its missing space included)
    return linalg.lu_solve(LU_data, LU_pivots, b)


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):
    return linalg.lu_unpack(LU_data, LU_pivots, unpack_data, unpack_pivots)


def _tensor_lu(self, pivot=True, get_infos=False):
    return lu(self, pivot, get_infos, _site="lu_tensor")


def qr(input, some=True, *, out=None):  # noqa: A002
    _aten_warn_once(_QR_DEPRECATED)
    q, r = linalg.qr(input, "reduced" if some else "complete")
    return linalg._rt("qr", q, r)


def svd(input, some=True, compute_uv=True, *, out=None):  # noqa: A002
    if not compute_uv:
        a = raw(input)
        m, n = a.shape[-2:]
        S = linalg.svdvals(input)
        U = _t(np.zeros(a.shape[:-2] + (m, m), a.dtype))
        V = _t(np.zeros(a.shape[:-2] + (n, n), a.dtype))
        return linalg._rt("svd", U, S, V)
    U, S, Vh = linalg.svd(input, full_matrices=not some)
    return linalg._rt("svd", U, S, Vh.mT)


def pinverse(input, rcond=1e-15):  # noqa: A002
    return linalg.pinv(input, rtol=rcond)


def matrix_power(input, n):  # noqa: A002
    return linalg.matrix_power(input, n)


def matrix_exp(input):  # noqa: A002
    return linalg.matrix_exp(input)


def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False, *, out=None):
    from ..engine.registry import apply

    sol = apply(linalg._mkop("TriangularSolveBackward0",
                             lambda a, bb, **k: linalg._trsm_fwd(a, bb, **k), None,
                             base="triangular_solve"),
                (A, b), {"upper": bool(upper), "transpose": bool(transpose),
                         "unitriangular": bool(unitriangular)})
    return linalg._rt("triangular_solve", sol, _T().clone(A))


def geqrf(input, *, out=None):  # noqa: A002
    a = raw(input)
    refl, tau = linalg._bmap(lambda m: _lapack.geqrf(m), [a], [2])
    return linalg._rt("geqrf", _t(refl.astype(a.dtype)), _t(tau.astype(a.dtype)))


def orgqr(input, tau):  # noqa: A002
    return linalg.householder_product(input, tau)


def ormqr(input, input2, input3, left=True, transpose=False, *, out=None):  # noqa: A002
    a, tau, c = raw(input), raw(input2), raw(input3)
    res = linalg._bmap(lambda x, y, z: _lapack.ormqr(x, y, z, left, transpose), [a, tau, c],
                       [2, 1, 2])
    return _t(res.astype(c.dtype))


def _chain_values(*matrices):
    if len(matrices) == 1:
        return _T().clone(matrices[0])
    return linalg.multi_dot(matrices)


def chain_matmul(*matrices, out=None):
    if out is None:
        _aten_warn_once(_CHAIN_DEPRECATED.format(1102), "chain_matmul")
        return _chain_values(*matrices)
    _aten_warn_once(_CHAIN_DEPRECATED.format(1120), "chain_matmul_out")
    from ._out import with_out

    return with_out(_chain_values, "chain_matmul")(*matrices, out=out)


def vdot(input, other, *, out=None):  # noqa: A002
    T = _T()
    a, b = raw(input), raw(other)
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    if a.dtype.kind == "c":
        input = input.conj()
    return T.dot(input, other)


def _triu_(self, diagonal=0):
    self.copy_(_T().triu(self, diagonal))
    return self


def _tril_(self, diagonal=0):
    self.copy_(_T().tril(self, diagonal))
    return self


EXPORTS: dict = {
    "det": det, "logdet": logdet, "slogdet": slogdet, "inverse": inverse, "cholesky": cholesky,
    "cholesky_solve": cholesky_solve, "cholesky_inverse": cholesky_inverse, "lu": lu,
    "lu_solve": lu_solve, "lu_unpack": lu_unpack, "qr": qr, "svd": svd, "pinverse": pinverse,
    "matrix_power": matrix_power, "matrix_exp": matrix_exp, "triangular_solve": triangular_solve,
    "geqrf": geqrf, "orgqr": orgqr, "ormqr": ormqr, "chain_matmul": chain_matmul, "vdot": vdot,
}
TENSOR_METHODS: dict = {
    "det": det, "logdet": logdet, "slogdet": slogdet, "inverse": inverse, "cholesky": cholesky,
    "cholesky_solve": cholesky_solve, "cholesky_inverse": cholesky_inverse, "lu": _tensor_lu,
    "lu_solve": lu_solve, "qr": qr, "svd": svd, "pinverse": pinverse,
    "matrix_power": matrix_power, "matrix_exp": matrix_exp, "triangular_solve": triangular_solve,
    "geqrf": geqrf, "orgqr": orgqr, "ormqr": ormqr, "vdot": vdot,
    "triu_": _triu_, "tril_": _tril_,
}


def _others():
    """Names another family (or the core) already gives: theirs are kept."""
    from . import _ops_math, _ops_shape

    ex = set(_ops_math.EXPORTS) | set(_ops_shape.EXPORTS)
    tm = set(_ops_math.TENSOR_METHODS) | set(_ops_shape.TENSOR_METHODS)
    return ex, tm


_ex, _tm = _others()
for _n in ("vdot",):
    if _n in _ex:
        EXPORTS.pop(_n)
for _n in ("triu_", "tril_", "vdot"):
    if _n in _tm or hasattr(Tensor, _n):
        TENSOR_METHODS.pop(_n)
del _ex, _tm, _n
