"""``paddle.linalg.triangular_solve`` as Paddle's CPU kernel computes it on AMD: MKL's ``?trsm``.

Paddle's triangular_solve kernel (2.6.2 and 3.3.1) calls ``blas.BatchedTRSM`` with
``CblasRowMajor, CblasLeft``: one bundled-MKL ``?trsm`` per matrix. On this project's AMD EPYC
(MKL's generic kernels) its bits are those of plain substitution, measured against real 3.3.1
and 2.6.2 (float32 and float64, n = 2 .. 64, upper/lower, transposed or not, unit diagonal or
not):

* several right-hand sides (k > 1): each row ``x_i = (b_i - sum_j a_ij x_j) * (1 / a_ii)``, the
  products rounded and subtracted one at a time in increasing ``j`` (decreasing for a lower
  triangle used transposed), the division as a multiplication by the rounded reciprocal
  (88 of 88 cases);
* one right-hand side (k = 1) takes MKL's vector kernels; only an upper triangle used transposed
  is substitution here (increasing ``j``, a true division: 24 of 24); the other k = 1 forms are
  not emulated (numpy's solve answers, as before).

On Intel (this machine's class, not one standing for another) the kernel is MKL's own: the
``mkl`` wheel's ``cblas_?trsm`` called as Paddle's ``Blas::TRSM`` calls it (row-major, left
side, alpha 1, one thread), measured against real 3.3.1 here (Sapphire Rapids; float32/float64,
n 2..33, k 1..7, lower/upper, transposed or not): 190 of 192 equal (float64 n = 33 with one
right-hand side 2 of 4: Paddle's older MKL-ML there). ``op()`` is the engine's triangular_solve
op with this forward and Paddle's triangular_solve_grad (``_vjp``).

Other CPU classes, more than 64 rows or 12 right-hand sides on AMD, no MKL, and other dtypes
keep numpy's solve (``usable`` says no).
"""
from __future__ import annotations

import numpy as np

from ..engine import cpu

_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def usable(a: np.ndarray, b: np.ndarray, upper: bool, transpose: bool) -> bool:
    if a.dtype not in _DTYPES or b.dtype != a.dtype or a.ndim < 2 or b.ndim < 2:
        return False
    n, k = a.shape[-1], b.shape[-1]
    if a.shape[-2] != n or b.shape[-2] != n or n == 0 or k == 0:
        return False
    if _intel_mkl():
        return True
    if n > 64 or k > 12 or cpu.cpu_class() != "amd":
        return False
    return k > 1 or (upper and transpose)


def _intel_mkl() -> bool:
    """Whether Paddle's MKL kernels are the ``mkl`` wheel's here: an Intel class that is this
    machine's, and MKL loaded."""
    from ..engine import mkl

    cls = cpu.cpu_class()
    return cls != "amd" and cls == cpu.detected() and bool(mkl.load())


def _mkl_trsm_one(a, b, upper, transpose, unit):
    """One ``cblas_?trsm`` (row-major, left, alpha 1) on one thread: B overwritten by X."""
    import ctypes

    from ..engine import mkl

    lib = mkl.load()
    single = a.dtype == np.float32
    f = lib.cblas_strsm if single else lib.cblas_dtrsm
    scalar = ctypes.c_float if single else ctypes.c_double
    A = mkl.at_64(np.ascontiguousarray(a))
    X = mkl.empty_at_64(b.shape, b.dtype)
    X[...] = b
    n, k = b.shape
    P, I = ctypes.c_void_p, ctypes.c_int
    prev = lib.MKL_Set_Num_Threads_Local(1)
    try:
        f(I(101), I(141), I(121 if upper else 122), I(112 if transpose else 111),
          I(132 if unit else 131), I(n), I(k), scalar(1.0), P(mkl.address(A)), I(n),
          P(mkl.address(X)), I(k))
    finally:
        lib.MKL_Set_Num_Threads_Local(prev)
    return X


def _solve_one(a, b, upper, transpose, unit):
    t = np.triu(a) if upper else np.tril(a)
    descending = not upper and transpose and b.shape[1] > 1
    if transpose:
        t, upper = t.T, not upper
    n, k = b.shape
    one = a.dtype.type(1)
    x = np.zeros_like(b)
    for i in (range(n - 1, -1, -1) if upper else range(n)):
        js = range(i + 1, n) if upper else range(i)
        if descending:
            js = reversed(js)
        acc = b[i].copy()
        for j in js:
            acc = acc - t[i, j] * x[j]
        if unit:
            x[i] = acc
        elif k == 1:
            x[i] = acc / t[i, i]
        else:
            x[i] = acc * (one / t[i, i])
    return x


def trsm_fwd(a, b, upper=True, transpose=False, unitriangular=False):
    """The forward of the engine's triangular_solve op, MKL's substitution order."""
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    A = np.broadcast_to(a, batch + a.shape[-2:])
    B = np.broadcast_to(b, batch + b.shape[-2:])
    out = np.empty(batch + b.shape[-2:], b.dtype)
    one = _mkl_trsm_one if _intel_mkl() else _solve_one
    with np.errstate(all="ignore"):
        for idx in np.ndindex(*batch):
            out[idx] = one(A[idx], B[idx], upper, transpose, unitriangular)
    return out


def _vjp(n, g):
    """Paddle's triangular_solve_grad: dY = the forward kernel on (X, dOut) with the transpose
    flag flipped; dX = -(Out dY^T) (transpose) or -(dY Out^T), each one product with the
    transpose flag (alpha -1), then TrilTriuCompute with ``unitriangular`` as its diagonal
    offset (a lower X with a unit diagonal keeps the first superdiagonal too, as Paddle does)."""
    from ..engine.ops.linalg import matmul
    from ..engine.ops.math import neg
    from ..engine.ops.shape import tril, triu
    from ..engine.registry import apply

    a = n.inputs[0]
    upper, tr = n.attrs.get("upper", True), n.attrs.get("transpose", False)
    unit = n.attrs.get("unitriangular", False)
    x = n.out()
    gb = apply(op(), (a, g), {"upper": upper, "transpose": not tr, "unitriangular": unit})
    ga = neg(matmul(x, gb, False, True) if tr else matmul(gb, x, False, True))
    return (triu(ga, int(unit)) if upper else tril(ga, int(unit))), gb


_OP: list = []


def op():
    """The engine's triangular_solve op with this module's forward and Paddle's gradient."""
    if not _OP:
        import copy

        from ..engine.ops import linalg_more as LM

        new = copy.copy(LM.TRIANGULAR_SOLVE)
        new.forward = trsm_fwd
        new.vjp = _vjp
        _OP.append(new)
    return _OP[0]
