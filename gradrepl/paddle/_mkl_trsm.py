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

Other CPU classes (Intel MKL kernels), more than 64 rows or 12 right-hand sides, and other
dtypes keep numpy's solve (``usable`` says no).
"""
from __future__ import annotations

import numpy as np

from ..engine import cpu

_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def usable(a: np.ndarray, b: np.ndarray, upper: bool, transpose: bool) -> bool:
    if a.dtype not in _DTYPES or b.dtype != a.dtype or a.ndim < 2 or b.ndim < 2:
        return False
    n, k = a.shape[-1], b.shape[-1]
    if a.shape[-2] != n or b.shape[-2] != n or n == 0 or k == 0 or n > 64 or k > 12:
        return False
    if cpu.cpu_class() != "amd":
        return False
    return k > 1 or (upper and transpose)


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
    with np.errstate(all="ignore"):
        for idx in np.ndindex(*batch):
            out[idx] = _solve_one(A[idx], B[idx], upper, transpose, unitriangular)
    return out
