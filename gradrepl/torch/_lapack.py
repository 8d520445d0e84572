"""LAPACK as torch 2.13 calls it on the CPU: Intel MKL's routines (``sgetrf_``, ``dsyevd_`` ...)
from ``libmkl_rt`` (the ``mkl`` wheel, loaded by ``_mkl``), so the factorizations' last bits and
the signs of eigenvectors, singular vectors and Householder reflectors are MKL's, as torch's.

Each function here works on ONE matrix given in its mathematical orientation (a 2-D numpy
array); it is handed to Fortran column-major and read back. Where MKL is absent (not x86-64),
numpy's LAPACK (computing in float64) stands in: values then agree to rounding only.
"""
from __future__ import annotations

import ctypes

import numpy as np

from . import _mkl

_I = ctypes.c_int
_P = ctypes.c_void_p


def lib():
    return _mkl._load()


def _prefix(dtype):
    return {np.dtype(np.float32): "s", np.dtype(np.float64): "d",
            np.dtype(np.complex64): "c", np.dtype(np.complex128): "z"}[np.dtype(dtype)]


# The complex routines' names where they differ from the real ones' (unitary, Hermitian).
_COMPLEX_NAMES = {"orgqr": "ungqr", "ormqr": "unmqr", "syevd": "heevd"}


def _real_of(dtype):
    return np.float32 if np.dtype(dtype) in (np.float32, np.complex64) else np.float64


def _call(name, dtype, *args):
    """Call ``<s|d|c|z><name>_`` with Fortran conventions: ints by reference, one-letter
    strings as char*, floats as a real of the dtype, numpy arrays by address."""
    if not available():   # (a routine without a numpy stand-in: sytrs, orgqr, ormqr)
        raise RuntimeError(f"gradrepl: {name} needs MKL (the mkl wheel) on this platform")
    if np.dtype(dtype).kind == "c":
        name = _COMPLEX_NAMES.get(name, name)
    fn = getattr(lib(), _prefix(dtype) + name + "_")
    keep, cargs = [], []
    real = np.float32 if np.dtype(dtype) in (np.float32, np.complex64) else np.float64
    for a in args:
        if isinstance(a, str):
            b = ctypes.c_char_p(a.encode())
            keep.append(b)
            cargs.append(b)
        elif isinstance(a, (bool, int, np.integer)):
            b = _I(int(a))
            keep.append(b)
            cargs.append(ctypes.byref(b))
        elif isinstance(a, float):
            b = np.array([a], real)
            keep.append(b)
            cargs.append(b.ctypes.data_as(_P))
        elif isinstance(a, np.ndarray):
            cargs.append(a.ctypes.data_as(_P))
        else:  # a ctypes object (an out int)
            cargs.append(ctypes.byref(a))
    fn.restype = None
    fn(*cargs)


def _guard(ok, routine, *arrays):
    """Before a LAPACK call: arguments whose shapes (or pivots) LAPACK would read past are an
    error here, never a call (the dialect's functions check torch's way first; this keeps a
    shape they missed from writing outside an array and taking the process down)."""
    if not ok:
        shapes = ", ".join(str(list(np.shape(a))) for a in arrays)
        raise RuntimeError(f"{routine}: arguments of incompatible shapes ({shapes})")


def _square(a):
    return np.ndim(a) == 2 and a.shape[0] == a.shape[1]


def _pivots_ok(piv, n, signed=False):
    p = np.asarray(piv)
    if p.shape != (n,):
        return False
    if not n:
        return True
    q = np.abs(p) if signed else p
    return bool(np.all(q >= 1) and np.all(q <= n))


def _f(a, dtype=None):
    return np.array(a, dtype=dtype or a.dtype, order="F", copy=True)


def _lwork(work):
    return max(1, int(np.real(work[0])))


def available():
    return bool(lib())


# ------------------------------------------------------------------------------ LU
def getrf(a):
    """(LU, 1-based pivots int32, info) of one m x n matrix."""
    _guard(np.ndim(a) == 2, "getrf", a)
    m, n = a.shape
    if not available():
        from ..engine.ops.linalg_more import lu_factor

        lu, piv, info = lu_factor(np.asarray(a, np.float64))
        return lu.astype(a.dtype), piv, info
    A = _f(a)
    piv = np.zeros(max(1, min(m, n)), np.int32)
    info = _I(0)
    if m and n:
        _call("getrf", a.dtype, m, n, A, max(1, m), piv, info)
    return A, piv[:min(m, n)], info.value


def getrs(lu, piv, b, trans="N"):
    """Solve op(A) X = B with A's getrf factors (B: n x k)."""
    _guard(_square(lu) and np.ndim(b) == 2 and b.shape[0] == lu.shape[0]
           and _pivots_ok(piv, lu.shape[0]), "getrs", lu, piv, b)
    n = lu.shape[0]
    if not available():
        A = unpack_lu(lu, piv)
        A = A.conj().T if trans == "C" else A.T if trans != "N" else A
        try:
            return np.linalg.solve(A.astype(np.float64), b).astype(b.dtype)
        except np.linalg.LinAlgError:  # singular: the caller reports getrf's info
            return np.full(np.shape(b), np.nan, b.dtype)
    B = _f(b)
    info = _I(0)
    if n and B.shape[1]:
        _call("getrs", lu.dtype, trans, n, B.shape[1], _f(lu), max(1, n),
              np.ascontiguousarray(piv, np.int32), B, max(1, n), info)
    return B


def unpack_lu(lu, piv):
    """P @ L @ U from packed factors (the numpy stand-in's helper)."""
    m, n = lu.shape
    k = min(m, n)
    L = np.tril(lu[:, :k], -1) + np.eye(m, k, dtype=lu.dtype)
    U = np.triu(lu[:k, :])
    perm = pivots_to_perm(piv, m)
    P = np.eye(m, dtype=lu.dtype)[:, perm]
    return P @ L @ U


def pivots_to_perm(piv, m):
    """The row permutation: row i of P^T A is row perm[i] of A; P = I[:, perm]."""
    perm = list(range(m))
    for i, p in enumerate(piv):
        p = int(p) - 1
        perm[i], perm[p] = perm[p], perm[i]
    return perm


# ------------------------------------------------------------------------------ Cholesky
def potrf(a, upper=False):
    _guard(_square(a), "potrf", a)
    n = a.shape[0]
    uplo = "U" if upper else "L"
    if not available():
        try:
            L = np.linalg.cholesky(a.astype(np.float64)).astype(a.dtype)
            return (L.T.copy() if upper else L), 0
        except np.linalg.LinAlgError:
            return np.zeros_like(a), 1
    A = _f(a)
    info = _I(0)
    if n:
        _call("potrf", a.dtype, uplo, n, A, max(1, n), info)
    return (np.triu(A) if upper else np.tril(A)), info.value


def potrs(c, b, upper=False):
    _guard(_square(c) and np.ndim(b) == 2 and b.shape[0] == c.shape[0], "potrs", c, b)
    n = c.shape[0]
    if not available():   # (LAPACK reads c's one triangle only)
        L = np.triu(c).T if upper else np.tril(c)
        return np.linalg.solve((L @ L.T).astype(np.float64), b).astype(b.dtype)
    B = _f(b)
    info = _I(0)
    if n and B.shape[1]:
        _call("potrs", c.dtype, "U" if upper else "L", n, B.shape[1], _f(c), max(1, n), B,
              max(1, n), info)
    return B


def potri(c, upper=False):
    _guard(_square(c), "potri", c)
    n = c.shape[0]
    if not available():   # (LAPACK reads c's one triangle only)
        L = np.triu(c).T if upper else np.tril(c)
        return np.linalg.inv((L @ L.T).astype(np.float64)).astype(c.dtype)
    A = _f(c)
    info = _I(0)
    if n:
        _call("potri", c.dtype, "U" if upper else "L", n, A, max(1, n), info)
    # LAPACK fills one triangle; torch copies it into the other (a -0.0 stays -0.0)
    other = np.tri(n, k=-1, dtype=bool)
    if not upper:
        other = other.T
    out = np.array(A, order="C")
    out[other] = A.T[other]
    return out


# ------------------------------------------------------------------------------ eigen
def syevd(a, upper=False, vectors=True):
    """Eigenvalues (real, ascending) and eigenvectors of a symmetric (real) or Hermitian
    (complex: ``cheevd``/``zheevd``, with their real workspace) matrix."""
    _guard(_square(a), "syevd", a)
    n = a.shape[0]
    cplx = a.dtype.kind == "c"
    rdt = _real_of(a.dtype)
    if not available():
        wide = np.complex128 if cplx else np.float64
        w, v = np.linalg.eigh(a.astype(wide), UPLO="U" if upper else "L")
        return w.astype(rdt), v.astype(a.dtype)
    A = _f(a)
    w = np.zeros(max(1, n), rdt)
    jobz = "V" if vectors else "N"
    uplo = "U" if upper else "L"
    info = _I(0)
    if n:
        work = np.zeros(1, a.dtype)
        iwork = np.zeros(1, np.int32)
        rwork = np.zeros(1, rdt)
        extra = (rwork, -1) if cplx else ()
        _call("syevd", a.dtype, jobz, uplo, n, A, max(1, n), w, work, -1, *extra, iwork, -1, info)
        lw, liw = _lwork(work), int(iwork[0])
        work = np.zeros(lw, a.dtype)
        iwork = np.zeros(max(1, liw), np.int32)
        if cplx:
            lrw = _lwork(rwork)
            extra = (np.zeros(lrw, rdt), lrw)
        _call("syevd", a.dtype, jobz, uplo, n, A, max(1, n), w, work, lw, *extra, iwork, liw,
              info)
    return w[:n], A


def geev(a, vectors=True):
    """Eigenvalues (complex) and right eigenvectors (complex, unpacked as torch does)."""
    _guard(_square(a), "geev", a)
    n = a.shape[0]
    cdt = np.complex64 if a.dtype in (np.float32, np.complex64) else np.complex128
    if not available():
        w, v = np.linalg.eig(a.astype(np.complex128 if a.dtype.kind == "c" else np.float64))
        return w.astype(cdt), v.astype(cdt)
    if a.dtype.kind == "c":
        return _cgeev(a, vectors)
    A = _f(a)
    wr = np.zeros(max(1, n), a.dtype)
    wi = np.zeros(max(1, n), a.dtype)
    vr = np.zeros((max(1, n), max(1, n)), a.dtype, order="F")
    vl = np.zeros(1, a.dtype)
    jobvr = "V" if vectors else "N"
    info = _I(0)
    if n:
        work = np.zeros(1, a.dtype)
        _call("geev", a.dtype, "N", jobvr, n, A, max(1, n), wr, wi, vl, 1, vr, max(1, n), work,
              -1, info)
        lw = _lwork(work)
        work = np.zeros(lw, a.dtype)
        _call("geev", a.dtype, "N", jobvr, n, A, max(1, n), wr, wi, vl, 1, vr, max(1, n), work,
              lw, info)
    w = np.zeros(n, cdt)
    w.real, w.imag = wr[:n], wi[:n]
    v = np.zeros((n, n), cdt)
    j = 0
    while j < n:
        if wi[j] == 0:
            v[:, j] = vr[:n, j]
            j += 1
        else:
            v[:, j].real = vr[:n, j]
            v[:, j].imag = vr[:n, j + 1]
            v[:, j + 1] = np.conj(v[:, j])
            j += 2
    return w, v


def _cgeev(a, vectors):
    """``cgeev``/``zgeev``: complex eigenvalues and right eigenvectors as they come."""
    n = a.shape[0]
    A = _f(a)
    w = np.zeros(max(1, n), a.dtype)
    vr = np.zeros((max(1, n), max(1, n)), a.dtype, order="F")
    vl = np.zeros(1, a.dtype)
    rwork = np.zeros(max(1, 2 * n), _real_of(a.dtype))
    jobvr = "V" if vectors else "N"
    info = _I(0)
    if n:
        work = np.zeros(1, a.dtype)
        _call("geev", a.dtype, "N", jobvr, n, A, max(1, n), w, vl, 1, vr, max(1, n), work, -1,
              rwork, info)
        lw = _lwork(work)
        work = np.zeros(lw, a.dtype)
        _call("geev", a.dtype, "N", jobvr, n, A, max(1, n), w, vl, 1, vr, max(1, n), work, lw,
              rwork, info)
    return w[:n], np.array(vr[:n, :n])


# ------------------------------------------------------------------------------ SVD
def gesdd(a, full_matrices=False, vectors=True):
    """U, S, Vh of one m x n matrix (MKL's divide and conquer, torch's default driver)."""
    _guard(np.ndim(a) == 2, "gesdd", a)
    m, n = a.shape
    k = min(m, n)
    rdt = np.float32 if a.dtype in (np.float32, np.complex64) else np.float64
    if not available():
        if not vectors:
            wide = np.complex128 if a.dtype.kind == "c" else np.float64
            return None, np.linalg.svd(a.astype(wide), compute_uv=False).astype(rdt), None
        u, s, vh = np.linalg.svd(a.astype(np.complex128 if a.dtype.kind == "c" else np.float64),
                                 full_matrices=full_matrices)
        return u.astype(a.dtype), s.astype(rdt), vh.astype(a.dtype)
    A = _f(a)
    s = np.zeros(max(1, k), rdt)
    if not vectors:
        jobz, ucol, vrow = "N", 1, 1
    elif full_matrices:
        jobz, ucol, vrow = "A", m, n
    else:
        jobz, ucol, vrow = "S", k, k
    U = np.zeros((max(1, m), max(1, ucol)), a.dtype, order="F")
    VT = np.zeros((max(1, vrow), max(1, n)), a.dtype, order="F")
    iwork = np.zeros(max(1, 8 * k), np.int32)
    info = _I(0)
    # the complex routines' real workspace (LAPACK's LRWORK bound for the job)
    mx = max(m, n)
    lrw = 7 * k if jobz == "N" else max(5 * k * k + 5 * k, 2 * mx * k + 2 * k * k + k)
    extra = (np.zeros(max(1, lrw), rdt),) if a.dtype.kind == "c" else ()
    if m and n:
        work = np.zeros(1, a.dtype)
        _call("gesdd", a.dtype, jobz, m, n, A, max(1, m), s, U, max(1, m), VT, max(1, vrow),
              work, -1, *extra, iwork, info)
        lw = _lwork(work)
        work = np.zeros(lw, a.dtype)
        _call("gesdd", a.dtype, jobz, m, n, A, max(1, m), s, U, max(1, m), VT, max(1, vrow),
              work, lw, *extra, iwork, info)
    if not vectors:
        return None, s[:k], None
    return U[:m, :ucol], s[:k], VT[:vrow, :n]


# ------------------------------------------------------------------------------ QR
def geqrf(a):
    m, n = a.shape
    k = min(m, n)
    if not available():
        raise RuntimeError("gradrepl: geqrf needs MKL (the mkl wheel) on this platform")
    A = _f(a)
    tau = np.zeros(max(1, k), a.dtype)
    info = _I(0)
    if m and n:
        work = np.zeros(1, a.dtype)
        _call("geqrf", a.dtype, m, n, A, max(1, m), tau, work, -1, info)
        lw = _lwork(work)
        work = np.zeros(lw, a.dtype)
        _call("geqrf", a.dtype, m, n, A, max(1, m), tau, work, lw, info)
    return A, tau[:k]


def orgqr(a, tau):
    """Q's first n columns from the reflectors in a (m x n, m >= n) and tau (k)."""
    _guard(np.ndim(a) == 2 and np.ndim(tau) == 1 and a.shape[0] >= a.shape[1] >= tau.shape[0],
           "orgqr", a, tau)
    m, n = a.shape
    k = tau.shape[0]
    A = _f(a)
    info = _I(0)
    if m and n:
        t = np.ascontiguousarray(tau) if k else np.zeros(1, a.dtype)
        work = np.zeros(1, a.dtype)
        _call("orgqr", a.dtype, m, n, k, A, max(1, m), t, work, -1, info)
        lw = _lwork(work)
        work = np.zeros(lw, a.dtype)
        _call("orgqr", a.dtype, m, n, k, A, max(1, m), t, work, lw, info)
    return A


def ormqr(a, tau, c, left=True, transpose=False):
    _guard(np.ndim(a) == 2 and np.ndim(tau) == 1 and np.ndim(c) == 2
           and a.shape[0] == c.shape[0 if left else 1] and tau.shape[0] <= a.shape[1]
           and tau.shape[0] <= a.shape[0], "ormqr", a, tau, c)
    m, n = c.shape
    k = tau.shape[0]
    A = _f(a)
    C = _f(c)
    info = _I(0)
    if m and n and k:
        t = np.ascontiguousarray(tau)
        side = "L" if left else "R"
        trans = ("C" if a.dtype.kind == "c" else "T") if transpose else "N"
        work = np.zeros(1, a.dtype)
        _call("ormqr", a.dtype, side, trans, m, n, k, A, max(1, A.shape[0]), t, C, max(1, m),
              work, -1, info)
        lw = _lwork(work)
        work = np.zeros(lw, a.dtype)
        _call("ormqr", a.dtype, side, trans, m, n, k, A, max(1, A.shape[0]), t, C, max(1, m),
              work, lw, info)
    return C


def qr(a, mode="reduced"):
    """torch's linalg_qr: geqrf, R from its upper triangle, Q by orgqr."""
    m, n = a.shape
    k = min(m, n)
    if not available():
        if mode == "r":
            return None, np.linalg.qr(a.astype(np.float64), mode="r").astype(a.dtype)
        q, r = np.linalg.qr(a.astype(np.float64),
                            mode="complete" if mode == "complete" else "reduced")
        return q.astype(a.dtype), r.astype(a.dtype)
    refl, tau = geqrf(a)
    if mode == "complete":
        R = np.triu(refl)
        if m > n:
            R = R
        else:
            R = R[:m]
    else:
        R = np.triu(refl[:k])
    if mode == "r":
        return None, R
    ncol = m if mode == "complete" else k
    if ncol > n:
        big = np.zeros((m, ncol), a.dtype, order="F")
        big[:, :n] = refl
        refl = big
    else:
        refl = refl[:, :ncol]
    Q = orgqr(refl, tau)
    return Q, R


# ------------------------------------------------------------------------------ least squares
def gels_driver(a, b, driver="gelsy", rcond=None):
    """(solution n x k, rank, singular values) as torch's linalg_lstsq drivers give them."""
    m, n = a.shape
    k = b.shape[1]
    dt = a.dtype
    eps = float(np.finfo(dt).eps)
    if rcond is None:
        rcond = eps * max(m, n)
    ldb = max(1, m, n)
    B = np.zeros((ldb, max(1, k)), dt, order="F")
    B[:m, :k] = b
    A = _f(a)
    info = _I(0)
    rank = _I(0)
    rdt = _real_of(dt)
    s = np.zeros(max(1, min(m, n)), rdt)
    cplx = np.dtype(dt).kind == "c"
    if not available():
        wide = np.complex128 if cplx else np.float64
        x, _res, r, sv = np.linalg.lstsq(a.astype(wide), b.astype(wide), rcond=rcond)
        return x.astype(dt), r, sv.astype(rdt)
    work = np.zeros(1, dt)
    if driver == "gels":
        _call("gels", dt, "N", m, n, k, A, max(1, m), B, ldb, work, -1, info)
        lw = _lwork(work)
        work = np.zeros(lw, dt)
        _call("gels", dt, "N", m, n, k, A, max(1, m), B, ldb, work, lw, info)
        return B[:n, :k], None, None
    if driver == "gelsy":
        # torch hands gelsy an uninitialised ``jpvt`` (at::empty) and reuses it along the batch:
        # nonzero entries fix the columns in place (no pivoting). Recycled heap memory is
        # nonzero, so that is what a script sees after its first allocations (measured: 8 of 14
        # fresh-process cases; 4 had zeros, from fresh pages, 2 a mix); ones stand for it.
        jpvt = np.ones(max(1, n), np.int32)
        rw = (np.zeros(max(1, 2 * n), rdt),) if cplx else ()   # (the complex routine's)
        _call("gelsy", dt, m, n, k, A, max(1, m), B, ldb, jpvt, float(rcond), rank, work, -1,
              *rw, info)
        lw = _lwork(work)
        work = np.zeros(lw, dt)
        _call("gelsy", dt, m, n, k, A, max(1, m), B, ldb, jpvt, float(rcond), rank, work, lw,
              *rw, info)
        return B[:n, :k], rank.value, None
    if driver == "gelsd":
        iwork = np.zeros(1, np.int32)
        rw = (np.zeros(1, rdt),) if cplx else ()
        _call("gelsd", dt, m, n, k, A, max(1, m), B, ldb, s, float(rcond), rank, work, -1,
              *rw, iwork, info)
        lw = _lwork(work)
        work = np.zeros(lw, dt)
        iwork = np.zeros(max(1, int(iwork[0])), np.int32)
        if cplx:
            rw = (np.zeros(_lwork(rw[0]), rdt),)
        _call("gelsd", dt, m, n, k, A, max(1, m), B, ldb, s, float(rcond), rank, work, lw,
              *rw, iwork, info)
        return B[:n, :k], rank.value, s[:min(m, n)]
    # gelss
    rw = (np.zeros(max(1, 5 * min(m, n)), rdt),) if cplx else ()
    _call("gelss", dt, m, n, k, A, max(1, m), B, ldb, s, float(rcond), rank, work, -1, *rw,
          info)
    lw = _lwork(work)
    work = np.zeros(lw, dt)
    _call("gelss", dt, m, n, k, A, max(1, m), B, ldb, s, float(rcond), rank, work, lw, *rw,
          info)
    return B[:n, :k], rank.value, s[:min(m, n)]


# ------------------------------------------------------------------------------ LDL^T
def sytrf(a, upper=False):
    _guard(_square(a), "sytrf", a)
    n = a.shape[0]
    if not available():
        raise RuntimeError("gradrepl: ldl_factor needs MKL (the mkl wheel) on this platform")
    A = _f(a)
    piv = np.zeros(max(1, n), np.int32)
    info = _I(0)
    uplo = "U" if upper else "L"
    if n:
        work = np.zeros(1, a.dtype)
        _call("sytrf", a.dtype, uplo, n, A, max(1, n), piv, work, -1, info)
        lw = _lwork(work)
        work = np.zeros(lw, a.dtype)
        _call("sytrf", a.dtype, uplo, n, A, max(1, n), piv, work, lw, info)
    return (np.triu(A) if upper else np.tril(A)), piv[:n], info.value


def sytrs(ld, piv, b, upper=False):
    _guard(_square(ld) and np.ndim(b) == 2 and b.shape[0] == ld.shape[0]
           and _pivots_ok(piv, ld.shape[0], signed=True), "sytrs", ld, piv, b)
    n = ld.shape[0]
    B = _f(b)
    info = _I(0)
    if n and B.shape[1]:
        _call("sytrs", ld.dtype, "U" if upper else "L", n, B.shape[1], _f(ld), max(1, n),
              np.ascontiguousarray(piv, np.int32), B, max(1, n), info)
    return B


# ------------------------------------------------------------------------------ BLAS trsm
def trsm(a, b, upper, left=True, trans=False, unit=False):
    """Solve op(A) X = B (left) or X op(A) = B (right), A triangular."""
    _guard(_square(a) and np.ndim(b) == 2 and a.shape[0] == b.shape[0 if left else 1],
           "trsm", a, b)
    m, n = b.shape
    if not available():
        t = np.triu(a) if upper else np.tril(a)
        if unit:
            t = t - np.diag(np.diag(t)) + np.eye(t.shape[0], dtype=t.dtype)
        if trans:
            t = t.T
        t64, b64 = t.astype(np.float64), b.astype(np.float64)
        x = np.linalg.solve(t64, b64) if left else np.linalg.solve(t64.T, b64.T).T
        return x.astype(b.dtype)
    B = _f(b)
    if m and n:
        lda = max(1, a.shape[0])
        _call("trsm", a.dtype, "L" if left else "R", "U" if upper else "L",
              "T" if trans else "N", "U" if unit else "N", m, n, np.ones(1, a.dtype), _f(a), lda, B,
              max(1, m))
    return B
