"""``paddle.linalg.qr`` as Paddle's CPU kernel computes it: Eigen's ``HouseholderQR``.

Paddle's qr kernel (phi/kernels/cpu/qr_kernel.cc, the same in 2.6.2 and 3.3.1) maps each
matrix as a row-major Eigen matrix, factors it with ``Eigen::HouseholderQR`` and forms
``Q = qr.householderQ() * Identity(m, k)``. Its Eigen is built for AVX without FMA (a multiply
and an add are two roundings); the bits follow from three kernels, written here in numpy:

* the factorisation (unblocked while the matrix has at most 48 columns): for each column,
  ``makeHouseholderInPlace`` (the tail's squared norm summed in order: the column of a
  row-major matrix is strided, so Eigen's reduction is scalar), then
  ``applyHouseholderOnTheLeft`` on the trailing block: ``tmp = v^T * bottom`` is Eigen's
  column-major GEMV (one sequential sum per output), ``row0 -= tau * (tmp + row0)``,
  ``bottom -= (tau * v) * tmp``;
* Q: the reflectors applied from the last to the first to the identity, which is a
  column-major matrix (Eigen's ``matrix_type_times_scalar_type``), so ``v^T * bottom`` is the
  row-major GEMV: each output a dot product of 8-float (4-double) AVX lanes reduced by
  ``predux``, the 4-float (2-double) half packets on the single last output, the rest in order;
  a square result (``Identity(m, m)``) takes only the bottom-right corner (``inputIsIdentity``).

Measured against real Paddle 3.3.1 and 2.6.2: Q and R of 22 random float32/float64 matrices
(2x2 .. 20x6, reduced and complete) all equal (88 of 88 arrays), where numpy's LAPACK QR
gave 2 of 88.
More columns than rows: Eigen factors the left m x m block unblocked (so Q and R's first m
columns are exact: 16 of 16 Q's of 2x3 .. 7x12 matrices) and applies the reflectors to the
trailing columns as one blocked product (triangular factor T, ``V T^T V^T A``), which is not
emulated: those columns come from the same reflectors applied one by one (last bits off in
about a third of them). From 128 rows on, Eigen's column-major GEMV sums in blocks of 16 rows
(one output column: a dot product, in order): 18 tall matrices of 129x5 .. 1000x3 and m x 1
equal too. Not emulated (``usable`` says no, numpy's QR answers): 48 or more columns and rows
(Eigen's blocked factorisation and blocked Q), other dtypes.
"""
from __future__ import annotations

import numpy as np

#: AVX packet sizes (full, half) per dtype
_PACKETS = {np.dtype(np.float32): (8, 4), np.dtype(np.float64): (4, 2)}


def usable(a: np.ndarray) -> bool:
    """Whether the Eigen path reproduces Paddle for these matrices."""
    if a.dtype not in _PACKETS or a.ndim < 2 or a.size == 0:
        return False
    m, n = a.shape[-2:]
    return min(m, n) < 48


def _predux(lanes: np.ndarray) -> np.ndarray:
    """AVX ``predux`` over the last axis: halves added pairwise (8 -> 4 -> 2), then l0 + l1."""
    n = lanes.shape[-1]
    while n > 2:
        h = n // 2
        lanes = lanes[..., :h] + lanes[..., h:n]
        n = h
    return lanes[..., 0] + lanes[..., 1]


def _rowmajor_gemv(L: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Eigen 3.4's row-major GEMV ``L @ x`` (AVX, no FMA): outputs in groups of 8/4/2 take full
    packets then the tail in order; a last single output also takes half packets."""
    rows, cols = L.shape
    full, half = _PACKETS[L.dtype]
    nfull = cols // full
    lanes = np.zeros((rows, full), L.dtype)
    for p in range(nfull):
        s = slice(p * full, (p + 1) * full)
        lanes = lanes + L[:, s] * x[s]
    cc = _predux(lanes)
    done = nfull * full
    grouped = rows - (rows % 2 if rows >= 2 else rows)  # the n8/n4/n2 loops leave <= 1 row
    if grouped < rows:                                   # the single last output
        r = rows - 1
        j = done
        hl = np.zeros(half, L.dtype)
        while j + half <= cols:
            hl = hl + L[r, j:j + half] * x[j:j + half]
            j += half
        cc[r] = cc[r] + _predux(hl)
        for jj in range(j, cols):
            cc[r] = cc[r] + L[r, jj] * x[jj]
    for jj in range(done, cols):
        cc[:grouped] = cc[:grouped] + L[:grouped, jj] * x[jj]
    return cc


def _make_householder(col: np.ndarray):
    """``makeHouseholderInPlace``: (tau, beta, essential)."""
    dt = col.dtype.type
    c0, tail = col[0], col[1:]
    sq = dt(0)
    if tail.size:
        sq = np.cumsum(tail * tail, dtype=col.dtype)[-1]  # in order, each square rounded
    if tail.size == 0 or sq <= np.finfo(col.dtype).tiny:
        return dt(0), c0, np.zeros_like(tail)
    beta = np.sqrt(c0 * c0 + sq)
    if c0 >= 0:
        beta = -beta
    return (beta - c0) / beta, beta, tail / (c0 - beta)


def _apply_left(B: np.ndarray, ess: np.ndarray, tau, col_major: bool) -> None:
    """``applyHouseholderOnTheLeft`` in place on the block ``B``."""
    rows, cols = B.shape
    if cols == 0:
        return
    if rows == 1:
        B *= B.dtype.type(1) - tau
        return
    if tau == 0:
        return
    bottom = B[1:]
    if col_major:
        tmp = _rowmajor_gemv(np.ascontiguousarray(bottom.T), ess)
    else:                   # column-major GEMV: each output summed over the rows in order,
        tmp = np.zeros(cols, B.dtype)  # from 128 rows on in blocks of 16 (4 past a 32 kB stride)
        depth = rows - 1
        # (one output column: Eigen's product falls back to a dot product, in order)
        step = depth if depth < 128 or cols == 1 else (16 if B.strides[0] < 32000 else 4)
        for j2 in range(0, depth, step):
            part = np.zeros(cols, B.dtype)
            for i in range(j2, min(j2 + step, depth)):
                part = part + ess[i] * bottom[i]
            tmp = part if j2 == 0 else tmp + part
    tmp = tmp + B[0]
    B[0] = B[0] - tau * tmp
    bottom -= (tau * ess)[:, None] * tmp[None, :]


def _qr_one(a: np.ndarray, mode: str):
    m, n = a.shape
    M = np.array(a, copy=True)
    size = min(m, n)
    h = np.zeros(size, a.dtype)
    for k in range(size):
        tau, beta, ess = _make_householder(M[k:, k].copy())
        M[k + 1:, k] = ess
        M[k, k] = beta
        h[k] = tau
        _apply_left(M[k:, k + 1:], ess, tau, False)
    complete = mode == "complete"
    R = np.triu(M) if complete else np.triu(M[:size, :])
    if mode == "r":
        return None, R
    kq = m if complete else size
    Q = np.eye(m, kq, dtype=a.dtype)
    square = m == kq
    for k in range(size - 1, -1, -1):
        _apply_left(Q[k:, k:] if square else Q[k:, :], M[k + 1:, k], h[k], True)
    return Q, R


def qr_fwd(x: np.ndarray, mode: str = "reduced"):
    """The forward of the engine's qr op (same outputs: Q, R; Q empty in mode 'r')."""
    with np.errstate(all="ignore"):
        m, n = x.shape[-2:]
        flat = x.reshape((-1, m, n))
        outs = [_qr_one(a, mode) for a in flat]
    lead = x.shape[:-2]
    R = np.stack([r for _, r in outs]).reshape(lead + outs[0][1].shape)
    if mode == "r":
        return np.zeros(lead + (0, 0), x.dtype), R
    Q = np.stack([q for q, _ in outs]).reshape(lead + outs[0][0].shape)
    return Q, R


def qr_vjp(n, gq, gr):
    """Paddle's qr_grad kernel, op for op (Roberts & Roberts 2020): for m >= n
    ``M = R dR^T - dQ^T Q``, ``M = tril(M) + tril(M, -1)^T``, ``dA = (R^-1 (dQ + Q M)^T)^T`` by its
    triangular_solve (MKL's ?trsm, ``_mkl_trsm`` where emulated); for m < n A = [X | Y],
    R = [U | V]: dX from the same with dQ + Y dV^T and U, dY = Q dV. Its errors for mode 'r' and
    for mode 'complete' with m > n (real 2.6.2 crashes on 'r'; the 3.3.1 message is kept)."""
    from ..engine.ops.index import getitem
    from ..engine.ops.shape import concat

    from . import profiles

    mode = n.attrs.get("mode", "reduced")
    line = {"3": (73, 83)}.get(profiles.current().error_wording, (74, 84))
    if mode == "r":
        raise ValueError("(InvalidArgument) The derivative of qr is not implemented when "
                         f"mode='r'. (at /paddle/paddle/phi/kernels/impl/qr_grad_kernel_impl.h:"
                         f"{line[0]})\n")
    Q, R = _const_like(gq, n.out_data[0]), _const_like(gr, n.out_data[1])
    m, ncols = n.in_meta[0][0][-2:]
    if m > ncols and mode == "complete":
        raise ValueError("(InvalidArgument) The derivative of qr is not implemented when "
                         f"mode='complete' and {m} > {ncols}. (at /paddle/paddle/phi/kernels/"
                         f"impl/qr_grad_kernel_impl.h:{line[1]})\n")
    if m >= ncols:
        return _m_ge_n(gq, gr, Q, R)
    from ..engine.ops.linalg import matmul
    from ..engine.ops.math import add
    from ..engine.ops.shape import swap_last

    Y = _const_like(gq, n.inputs[0].data[..., m:])
    dV, dU = getitem(gr, (Ellipsis, slice(m, ncols))), getitem(gr, (Ellipsis, slice(0, m)))
    U = _const_like(gq, n.out_data[1][..., :m])
    dQ = add(gq, matmul(Y, swap_last(dV)))
    return concat([_m_ge_n(dQ, dU, Q, U), matmul(Q, dV)], -1)


def _m_ge_n(gq, gr, Q, R):
    from ..engine.ops import linalg_more as LM
    from ..engine.ops.linalg import matmul
    from ..engine.ops.math import add, subtract
    from ..engine.ops.shape import swap_last, tril
    from ..engine.registry import apply
    from . import _mkl_trsm as TS
    from . import _ref_lapack as RL

    M = subtract(matmul(R, swap_last(gr)), matmul(swap_last(gq), Q))
    M = add(tril(M, 0), swap_last(tril(M, -1)))
    b = swap_last(add(gq, matmul(Q, M)))
    if TS.usable(R.data, b.data, True, False):
        op = RL.op_like(LM.TRIANGULAR_SOLVE, TS.trsm_fwd)
        da = apply(op, (R, b), {"upper": True, "transpose": False, "unitriangular": False})
    else:
        da = LM.triangular_solve(R, b, True, False, False)
    return swap_last(da)


def _const_like(g, arr):
    from ..engine.ops._util import const

    return const(g, arr)


_OP: list = []


def op():
    """The engine's qr op with this module's forward and Paddle's qr_grad."""
    if not _OP:
        import copy

        from ..engine.ops import linalg_more as LM

        new = copy.copy(LM.QR)
        new.forward = qr_fwd
        new.vjp = qr_vjp
        _OP.append(new)
    return _OP[0]
