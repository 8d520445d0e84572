"""Eigen's LLT (Cholesky) as Paddle's CPU cholesky kernel runs it, for matrices under 32 rows
(Eigen's unblocked LLT_Inplace; 32 rows and more go blocked, not emulated here).

Paddle maps each matrix as a row-major Eigen matrix and decomposes ``LLT<RowMajor, Lower>``
(``upper``: ``LLT<..., Upper>``, which runs the lower algorithm on the transposed, so
column-major, view). Column k: x = a[k, k] - |L[k, :k]|^2, L[k, k] = sqrt(x), then
L[k+1:, k] = (a[k+1:, k] - L[k+1:, :k] L[k, :k]^T) / L[k, k]. The wheel's Eigen packets hold
32 bytes (8 float32 / 4 float64 lanes) and multiply-adds are a product rounded, then a sum.

* Row-major (lower): |L[k, :k]|^2 is a redux over a contiguous row: two packet accumulators
  (even and odd packets) from index 0, added, folded halves onto halves, then the tail one by
  one. The product is a row-major gemv: each row's packets summed in one accumulator and folded,
  the tail added one by one; when the rows' count is odd the last row goes alone and adds a
  half packet (4 / 2 lanes, folded) before its tail; a single row is an inner product (the
  redux again).
* Column-major (upper): strided rows: every sum one by one, in index order.

Measured against real Paddle 3.3.1 and 2.6.2 here: every bit of float32 and float64 factors of
1..31 rows, lower and upper (a sequential or plain-LAPACK order is not).
"""
from __future__ import annotations

import numpy as np

BLOCKED_FROM = 32


def _fold(acc):
    """Eigen's predux over the last axis: halves added until two lanes remain."""
    while acc.shape[-1] > 2:
        h = acc.shape[-1] // 2
        acc = acc[..., :h] + acc[..., h:]
    return acc[..., 0] + acc[..., 1]


def _redux(p, lanes):
    """The sum of 1-D p as Eigen's vectorised redux adds it (packets from index 0)."""
    size = p.shape[0]
    full = (size // lanes) * lanes
    if not full:
        r = p[0]
        for v in p[1:]:
            r = r + v
        return r
    full2 = (size // (2 * lanes)) * (2 * lanes)
    r0 = p[:lanes]
    if full > lanes:
        r1 = p[lanes:2 * lanes]
        for i in range(2 * lanes, full2, 2 * lanes):
            r0 = r0 + p[i:i + lanes]
            r1 = r1 + p[i + lanes:i + 2 * lanes]
        r0 = r0 + r1
        if full > full2:
            r0 = r0 + p[full2:full2 + lanes]
    r = _fold(r0)
    for v in p[full:]:
        r = r + v
    return r


def _gemv_rows(P, lanes):
    """Each row's sum of P (rows x k) as Eigen's row-major gemv adds it."""
    rows, k = P.shape
    if rows == 1:
        return np.array([_redux(P[0], lanes)], P.dtype)
    full = (k // lanes) * lanes
    cc = np.zeros(rows, P.dtype)
    if full:
        acc = P[:, :lanes]
        for s in range(lanes, full, lanes):
            acc = acc + P[:, s:s + lanes]
        cc = _fold(acc)
    last = None
    if rows % 2:
        half = lanes // 2
        last = cc[-1]
        j0 = full
        if k - full >= half:
            last = last + _fold(P[-1, full:full + half])
            j0 = full + half
        for j in range(j0, k):
            last = last + P[-1, j]
        body = slice(0, rows - 1)
    else:
        body = slice(0, rows)
    for j in range(full, k):
        cc[body] = cc[body] + P[body, j]
    if last is not None:
        cc[-1] = last
    return cc


def _seq_rows(P):
    cc = P[:, 0].copy()
    for j in range(1, P.shape[1]):
        cc = cc + P[:, j]
    return cc


def llt(a, upper=False):
    """The Cholesky factor of one square matrix (lower L, or U with ``upper``) as Paddle's
    kernel gives it; raises numpy's LinAlgError where Eigen reports a non-positive pivot."""
    m = np.array(a.T if upper else a, dtype=a.dtype)   # upper: the lower algorithm on a^T
    n = m.shape[0]
    lanes = max(2, 32 // m.dtype.itemsize)
    with np.errstate(all="ignore"):
        for k in range(n):
            x = m[k, k]
            if k > 0:
                row = m[k, :k]
                sq = row * row
                x = x - (_seq_rows(sq[None])[0] if upper else _redux(sq, lanes))
            if x <= 0:   # (Eigen's test: a NaN goes on)
                raise np.linalg.LinAlgError("not positive definite")
            x = np.sqrt(x)
            m[k, k] = x
            if k + 1 == n:
                break
            if k > 0:
                P = m[k + 1:, :k] * m[k, :k]
                m[k + 1:, k] = m[k + 1:, k] - (_seq_rows(P) if upper else _gemv_rows(P, lanes))
            m[k + 1:, k] = m[k + 1:, k] / x
    L = np.tril(m)
    return L.T.copy() if upper else L
