"""Matrix decompositions and solvers: cholesky, solve, triangular_solve, eigh, svd, qr, eig, lu.

Forwards are numpy's LAPACK calls on the matrices of the last two axes (batched). The solvers'
and cholesky's VJPs are written with these ops and matmul, so they differentiate again; the
gradients of svd, qr and eigh use the decomposition's outputs as constants beyond first order
(``second_order=False``). eig and lu take no gradient here.
"""
from __future__ import annotations

import numpy as np

from ..registry import apply, register
from . import _eigen_llt
from ._util import const, quiet
from .linalg import matmul
from .math import add, multiply, neg, scale, subtract
from .shape import transpose


def _mT(t):
    nd = t.data.ndim
    return transpose(t, tuple(range(nd - 2)) + (nd - 1, nd - 2))


def _tri_mask(shape, lower=True, k=0, dtype=np.float64):
    n, m = shape[-2], shape[-1]
    mask = np.tril(np.ones((n, m)), k) if lower else np.triu(np.ones((n, m)), k)
    return np.broadcast_to(mask, shape).astype(dtype)


# ============================================================== solve
def _solve_f32(a, b):
    """Eigen's PartialPivLU solve in float32 (or float64), step by step as Paddle's kernel
    rounds it (the LU of ``linalg._lu_f32``, then forward and backward substitution row by
    row)."""
    from .linalg import _lu_f32

    lu, perm, _ = _lu_f32(a)
    dt = lu.dtype.type
    n = len(perm)
    x = np.array(b[perm], dt)
    for i in range(n):
        for j in range(i):
            x[i] -= (lu[i, j] * x[j]).astype(dt)
    for i in range(n - 1, -1, -1):
        for j in range(i + 1, n):
            x[i] -= (lu[i, j] * x[j]).astype(dt)
        x[i] *= dt(1) / lu[i, i]
    return x


def _vector_rhs(a, b):
    """Paddle's is_vector_rhs: b is one vector per matrix when it is 1-D or has exactly
    a's shape without its last axis (a (2, 3, 3) with b (3, 3) is a broadcast matrix)."""
    return b.ndim == 1 or (b.ndim == a.ndim - 1 and tuple(b.shape) == tuple(a.shape[:-1]))


def _solve_fwd(a, b):
    from .linalg import _eigen_lu_f64

    vec = _vector_rhs(a, b)
    rhs = b[..., None] if vec else b
    if a.dtype == rhs.dtype and (a.dtype == np.float32 or _eigen_lu_f64(a)):
        shape = np.broadcast_shapes(a.shape[:-2], rhs.shape[:-2])
        A = np.broadcast_to(a, shape + a.shape[-2:])
        B = np.broadcast_to(rhs, shape + rhs.shape[-2:])
        out = np.empty(shape + rhs.shape[-2:], a.dtype)
        for idx in np.ndindex(shape):
            out[idx] = _solve_f32(A[idx], B[idx])
    else:
        out = np.linalg.solve(a, rhs).astype(np.result_type(a, b))
    return out[..., 0] if vec else out


def _solve_vjp(n, g):
    """gB = solve(A^T, g); gA = -gB X^T."""
    a, b = n.inputs
    x = n.out()
    gb = solve(_mT(a), g)
    if _vector_rhs(a.data, b.data):
        from .shape import reshape

        gb2 = reshape(gb, gb.data.shape + (1,))
        x2 = reshape(x, x.data.shape + (1,))
        ga = neg(matmul(gb2, _mT(x2)))
    else:
        ga = neg(matmul(gb, _mT(x)))
    return ga, gb


SOLVE = register("solve", _solve_fwd, _solve_vjp, legacy_name="SolveBackward", broadcast=True,
                 examples=[([np.array([[3.0, 1.0], [1.0, 2.0]]), (2, 3)], {}),
                           ([np.array([[2.0, 0.5, 0.1], [0.3, 3.0, 0.2], [0.1, 0.4, 2.5]]), (3,)],
                            {})])


def solve(a, b):
    return apply(SOLVE, (a, b))


# ============================================================== triangular_solve
def _tri_fwd(a, b, upper=True, transpose=False, unitriangular=False):
    t = np.triu(a) if upper else np.tril(a)
    if unitriangular:
        idx = np.arange(a.shape[-1])
        t = np.array(t)
        t[..., idx, idx] = 1
    if transpose:
        t = np.swapaxes(t, -1, -2)
    return np.linalg.solve(t, b).astype(np.result_type(a, b))


def _tri_vjp(n, g):
    """gB = triangular_solve(A, g, transposed the other way); gA = -(gB X^T) (or X gB^T when
    solving with A^T), kept on A's triangle."""
    a, b = n.inputs
    upper = n.attrs.get("upper", True)
    tr = n.attrs.get("transpose", False)
    unit = n.attrs.get("unitriangular", False)
    x = n.out()
    gb = triangular_solve(a, g, upper, not tr, unit)
    ga = neg(matmul(x, _mT(gb))) if tr else neg(matmul(gb, _mT(x)))
    mask = _tri_mask(a.data.shape, lower=not upper, dtype=a.data.dtype)
    if unit:
        mask = mask * (1 - np.eye(a.data.shape[-1], dtype=a.data.dtype))
    return multiply(ga, const(ga, mask)), gb


TRIANGULAR_SOLVE = register(
    "triangular_solve", _tri_fwd, _tri_vjp, legacy_name="TriangularSolveBackward",
    examples=[([np.array([[2.0, 0.5, 0.1], [0.0, 3.0, 0.2], [0.0, 0.0, 2.5]]), (3, 2)],
               {"upper": True}),
              ([np.array([[2.0, 0.0], [0.7, 1.5]]), (2, 2)],
               {"upper": False, "transpose": True})])


def triangular_solve(a, b, upper=True, transpose=False, unitriangular=False):
    return apply(TRIANGULAR_SOLVE, (a, b), {"upper": bool(upper), "transpose": bool(transpose),
                                           "unitriangular": bool(unitriangular)})


# ============================================================== cholesky
def _cholesky_fwd(x, upper=False, symmetrize=False, eigen=False):
    """LAPACK's potrf reads one triangle; the symmetric gradient Paddle gives is the gradient
    for symmetric perturbations, so the gradient check runs on (x + x^T) / 2 (``symmetrize``,
    a check-only attribute: the values are the same for a symmetric x). ``eigen``: Paddle's
    kernel, Eigen's LLT (``_eigen_llt``) for matrices under 32 rows (it reads the upper
    triangle for ``upper``)."""
    if symmetrize:
        x = (x + np.swapaxes(x, -1, -2)) / 2
    if eigen and x.dtype.kind == "f":
        out = np.empty_like(x)
        for i, idx in enumerate(np.ndindex(x.shape[:-2])):
            try:
                if x.shape[-1] < _eigen_llt.BLOCKED_FROM:
                    out[idx] = _eigen_llt.llt(x[idx], upper)
                else:
                    L = np.linalg.cholesky(x[idx])
                    out[idx] = L.T if upper else L
            except np.linalg.LinAlgError:
                raise np.linalg.LinAlgError(i) from None   # which matrix of the batch
        return out
    L = np.linalg.cholesky(x)
    return np.swapaxes(L, -1, -2).copy() if upper else L


def _cholesky_vjp(n, g):
    """With L lower: P = tril(L^T gL) with its diagonal halved; gA = L^-T P L^-1, made
    symmetric (Murray 2016); for ``upper`` L = U^T and gL = gU^T."""
    upper = n.attrs.get("upper", False)
    out = n.out()
    L = _mT(out) if upper else out
    gL = _mT(g) if upper else g
    dt = L.data.dtype
    half = _tri_mask(L.data.shape, True, dtype=dt) - 0.5 * np.broadcast_to(
        np.eye(L.data.shape[-1], dtype=dt), L.data.shape)
    P = multiply(matmul(_mT(L), gL), const(gL, half))
    tmp = triangular_solve(L, P, upper=False, transpose=True)       # L^-T P
    ga = _mT(triangular_solve(L, _mT(tmp), upper=False, transpose=True))  # (L^-T (L^-T P)^T)^T
    return scale(add(ga, _mT(ga)), 0.5)


CHOLESKY = register("cholesky", _cholesky_fwd, _cholesky_vjp, legacy_name="CholeskyBackward",
                    saves_inputs=False,
                    examples=[([np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])],
                               {"symmetrize": True}),
                              ([np.array([[2.0, 0.3], [0.3, 1.5]])],
                               {"upper": True, "symmetrize": True})])


def cholesky(x, upper=False, eigen=False):
    return apply(CHOLESKY, (x,), {"upper": bool(upper), **({"eigen": True} if eigen else {})})


# ============================================================== eigh
def _eigh_fwd(x, UPLO="L"):
    w, v = np.linalg.eigh(x, UPLO=UPLO)
    return w, v


def _eigh_vjp(n, gw, gv):
    """gA = V (diag(gw) + F o (V^T gV)) V^T, F_ij = 1 / (w_j - w_i) off the diagonal."""
    w, v = n.out_data
    dt = v.dtype
    with quiet(divide="ignore", invalid="ignore"):
        F = 1.0 / (w[..., None, :] - w[..., :, None])
    idx = np.arange(w.shape[-1])
    F[..., idx, idx] = 0
    F = np.nan_to_num(F, posinf=0, neginf=0)
    V = const(gv, v)
    inner = multiply(matmul(_mT(V), gv), const(gv, F.astype(dt)))
    from .manip import diag_embed

    inner = add(inner, diag_embed(gw))
    ga = matmul(matmul(V, inner), _mT(V))
    return scale(add(ga, _mT(ga)), 0.5)


EIGH = register("eigh", lambda x, UPLO="L", symmetrize=False: _eigh_fwd(
    (x + np.swapaxes(x, -1, -2)) / 2 if symmetrize else x, UPLO), _eigh_vjp, n_outputs=2, legacy_name="EighBackward",
                second_order=False, saves_inputs=False,
                examples=[([np.array([[2.0, 0.5, 0.1], [0.5, 3.0, 0.2], [0.1, 0.2, 1.0]])],
                           {"symmetrize": True})])


def eigh(x, UPLO="L"):
    return apply(EIGH, (x,), {"UPLO": UPLO})


# ============================================================== svd
def _svd_fwd(x, full_matrices=False):
    u, s, vh = np.linalg.svd(x, full_matrices=full_matrices)
    return u, s.astype(x.dtype if x.dtype.kind != "c" else np.real(x).dtype), vh


def _paddle_svd_grad(u, s, vh, gu, gs, gvh, full_matrices):
    """Paddle's svd_grad kernel in its own dtype (float32 / float64), term by term with its
    products (``linalg._matmul_fwd``: Paddle's GEMMs and flags), its pow kernel (F and 1 / s:
    Eigen's pow, not always the quotient rounded) and elementwise steps: with
    F = 1 / (s_j^2 - s_i^2) (0 on the diagonal), sigma = (gS * U) @ Vh; u = U @ ((U^T gU -
    gU^T U) * F * s) (+ ((I - U U^T) @ gU) / s where m > k), then @ Vh; v = U @ (((Vh gVh^T -
    gVh Vh^T) * F) @ Vh * s^T (+ (gVh @ (I - Vh^T Vh)) / s^T where n > k)); x's gradient
    (u + sigma) + v, a term whose output took no gradient being a scalar 0. A gradient of all
    zeros stands for none (the engine passes zeros for an unused output)."""
    from .linalg import _matmul_fwd as mm
    from .math import _pow_scalar_fwd as pw

    dt = u.dtype
    m, nn_, k = u.shape[-2], vh.shape[-1], s.shape[-1]
    U, Vh = u, vh
    if full_matrices:
        U, Vh = u[..., :, :k], vh[..., :k, :]
        gu = None if gu is None else gu[..., :, :k]
        gvh = None if gvh is None else gvh[..., :k, :]
    U, Vh = np.ascontiguousarray(U), np.ascontiguousarray(Vh)
    with quiet(all="ignore"):
        s_inv = pw(s, -1.0)
        s2 = pw(s, 2.0)
        F = (s2[..., None, :] - s2[..., :, None]).astype(dt)
        idx = np.arange(k)
        F[..., idx, idx] = F[..., idx, idx] + dt.type(np.inf)
        F = pw(F, -1.0)     # (Paddle's pow kernel: Eigen's, not always 1 / F rounded)
        zero = np.zeros((1,), dt)
        sigma = u_term = v_term = zero
        if gs is not None:
            sigma = mm(np.ascontiguousarray(gs[..., None, :] * U), Vh)
        if gu is not None:
            gu = np.ascontiguousarray(gu)
            utg = mm(U, gu, True, False)
            gtu = mm(gu, U, True, False)
            u_term = mm(U, np.ascontiguousarray((utg - gtu) * F * s[..., None, :]))
            if m > k:
                project = np.eye(m, dtype=dt) - mm(U, U, False, True)
                u_term = u_term + mm(np.ascontiguousarray(project), gu) * s_inv[..., None, :]
            u_term = mm(np.ascontiguousarray(u_term), Vh)
        if gvh is not None:
            gvh = np.ascontiguousarray(gvh)
            utg = mm(Vh, gvh, False, True)
            gtu = mm(gvh, Vh, False, True)
            v_term = mm(np.ascontiguousarray((utg - gtu) * F), Vh) * s[..., :, None]
            if nn_ > k:
                project = np.eye(nn_, dtype=dt) - mm(Vh, Vh, True, False)
                v_term = v_term + mm(gvh, np.ascontiguousarray(project)) * s_inv[..., :, None]
            v_term = mm(U, np.ascontiguousarray(v_term))
        out = ((u_term + sigma) + v_term).astype(dt)
        # no term at all (every incoming gradient zero, e.g. cond of a 1x1 matrix): zeros of x's
        # shape (real 3.3.1: +0.0)
        return np.array(np.broadcast_to(out, u.shape[:-1] + vh.shape[-1:]))


def _svd_vjp(n, gu, gs, gvh):
    """The reduced SVD's gradient (Townsend 2016), with U, S, V as constants; float32 and
    float64 as Paddle's kernel computes it (``_paddle_svd_grad``)."""
    u, s, vh = n.out_data
    if u.dtype in (np.float32, np.float64):
        given = [None if not np.any(t.data) else np.asarray(t.data, u.dtype)
                 for t in (gu, gs, gvh)]
        return const(gs, _paddle_svd_grad(u, s, vh, *given,
                                          n.attrs.get("full_matrices", False)))
    u, s, vh = n.out_data
    dt = u.dtype
    wide = np.complex128 if dt.kind == "c" else np.float64   # (complex: torch's svd_backward)

    def H(x):   # the conjugate transpose (the transpose of a real matrix)
        return np.conj(np.swapaxes(x, -1, -2))

    U, Vh = u.astype(wide), vh.astype(wide)
    V = H(Vh)
    S = s.astype(np.float64)
    gU, gVh = (np.asarray(t.data, wide) for t in (gu, gvh))
    gS = np.asarray(gs.data, np.float64) if np.asarray(gs.data).dtype.kind != "c" else \
        np.real(np.asarray(gs.data))
    gV = H(gVh)
    k = S.shape[-1]
    with quiet(divide="ignore", invalid="ignore"):
        F = 1.0 / (S[..., None, :] ** 2 - S[..., :, None] ** 2)
    idx = np.arange(k)
    F[..., idx, idx] = 0
    F = np.nan_to_num(F, posinf=0, neginf=0)
    Sm = np.zeros(S.shape + (k,))
    Sm[..., idx, idx] = S
    Sinv = np.zeros_like(Sm)
    Sinv[..., idx, idx] = np.where(S != 0, 1 / np.where(S != 0, S, 1), 0)
    UtgU = H(U) @ gU
    VtgV = H(V) @ gV
    J = F * (UtgU - H(UtgU))
    K = F * (VtgV - H(VtgV))
    Gs = np.zeros(Sm.shape, wide)
    Gs[..., idx, idx] = gS
    if dt.kind == "c":
        phase = np.imag(UtgU[..., idx, idx] + VtgV[..., idx, idx])
        if not np.allclose(phase, 0, rtol=1e-2, atol=1e-2):   # (torch's gauge check)
            raise RuntimeError(
                "svd_backward: The singular vectors in the complex case are specified up to "
                "multiplication by e^{i phi}. The specified loss function depends on this phase "
                "term, making it ill-defined.")
        with quiet(divide="ignore", invalid="ignore"):   # i Im(diag(U^H gU)) / (2 S)
            Gs[..., idx, idx] += 1j * np.imag(UtgU[..., idx, idx]) / (2 * S)
    inner = Gs + J @ Sm + Sm @ K
    ga = U[..., :, :k] @ inner @ H(V[..., :, :k])
    m, nn = U.shape[-2], V.shape[-2]
    Ik = U[..., :, :k]
    Vk = V[..., :, :k]
    ga = ga + (np.eye(m) - Ik @ H(Ik)) @ gU[..., :, :k] @ Sinv @ H(Vk)
    ga = ga + Ik @ Sinv @ H(gV[..., :, :k]) @ (np.eye(nn) - Vk @ H(Vk))
    return const(gs, ga.astype(dt), dt)


SVD = register("svd", _svd_fwd, _svd_vjp, n_outputs=3, legacy_name="SvdBackward",
               second_order=False, saves_inputs=False,
               examples=[([np.array([[1.0, 2.0], [3.0, 4.5], [5.0, 6.0]])], {})])


def svd(x, full_matrices=False):
    return apply(SVD, (x,), {"full_matrices": bool(full_matrices)})


# ============================================================== qr
def _qr_fwd(x, mode="reduced"):
    if mode == "r":
        r = np.linalg.qr(x, mode="r")
        return np.zeros(x.shape[:-2] + (0, 0), x.dtype), r.astype(x.dtype)
    q, r = np.linalg.qr(x, mode="complete" if mode == "complete" else "reduced")
    return q.astype(x.dtype), r.astype(x.dtype)


def _qr_vjp(n, gq, gr):
    """gA = [gQ + Q copyltu(M)] R^-T with M = R gR^T - gQ^T Q (reduced QR, m >= n)."""
    q, r = n.out_data
    dt = q.dtype
    Q, R = q.astype(np.float64), r.astype(np.float64)
    gQ, gR = np.asarray(gq.data, np.float64), np.asarray(gr.data, np.float64)
    M = R @ np.swapaxes(gR, -1, -2) - np.swapaxes(gQ, -1, -2) @ Q
    low = np.tril(M, -1)
    copyltu = low + np.swapaxes(low, -1, -2) + np.eye(M.shape[-1]) * M
    b = gQ + Q @ copyltu
    ga = np.swapaxes(np.linalg.solve(R, np.swapaxes(b, -1, -2)), -1, -2)
    return const(gq, ga.astype(dt))


QR = register("qr", _qr_fwd, _qr_vjp, n_outputs=2, legacy_name="QrBackward",
              second_order=False, saves_inputs=False,
              examples=[([np.array([[1.0, 2.0], [3.0, 4.5], [5.0, 6.0]])], {})])


def qr(x, mode="reduced"):
    return apply(QR, (x,), {"mode": mode})


# ============================================================== eig, lu (no gradient)
def _eig_fwd(x):
    w, v = np.linalg.eig(x)
    cdt = np.complex64 if x.dtype in (np.float32, np.complex64) else np.complex128
    return w.astype(cdt), v.astype(cdt)


EIG = register("eig", _eig_fwd, None, n_outputs=2, check=False, legacy_name="EigBackward")


def eig(x):
    return apply(EIG, (x,))


def lu_factor(a):
    """LAPACK's getrf: partial pivoting by rows; the packed LU (L's unit diagonal implied) and
    the 1-based pivot rows of each step."""
    a = np.array(a, dtype=a.dtype, copy=True)
    m, n = a.shape
    k = min(m, n)
    piv = np.zeros(k, np.int32)
    info = 0
    for j in range(k):
        p = j + int(np.argmax(np.abs(a[j:, j])))
        piv[j] = p + 1
        if a[p, j] == 0:
            if info == 0:
                info = j + 1
            continue
        if p != j:
            a[[j, p]] = a[[p, j]]
        a[j + 1:, j] = a[j + 1:, j] / a[j, j]
        a[j + 1:, j + 1:] = a[j + 1:, j + 1:] - np.outer(a[j + 1:, j], a[j, j + 1:])
    return a, piv, info
