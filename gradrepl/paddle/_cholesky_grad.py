"""``paddle.linalg.cholesky``'s gradient as Paddle's CPU cholesky_grad kernel computes it.

The kernel (2.6.2 and 3.3.1 alike; Murray 2016), with L the lower factor (the output, or its
transpose for ``upper``, and the incoming gradient likewise transposed):

1. ``phi = L^T @ gL``: one product with L passed with the transpose flag (BatchedGEMM for a
   batch);
2. its lower triangle kept (``+0`` above) and its diagonal times 0.5;
3. ``L^-1`` by MKL's ``?trsm`` of L against the identity (``_mkl_trsm``; row-major, lower,
   no transpose);
4. ``(L^-1)^T @ phi`` (the transpose flag again), then ``@ L^-1``;
5. ``(g + g^T) * 0.5`` element by element (AddtoScaleFunctor: the sum, then the scale).

The steps are engine ops (matmul with its flags, tril, the triangular solve), so a second
backward sees the same graph. Where the triangular solve is not MKL's (``_mkl_trsm.usable``
says no: AMD past its rules, no MKL) the engine's triangular_solve answers instead.
"""
from __future__ import annotations

import numpy as np

_OP: list = []


def _vjp(n, g):
    from ..engine.ops._util import const
    from ..engine.ops.linalg import matmul
    from ..engine.ops import linalg_more as LM
    from ..engine.ops.math import add, multiply
    from ..engine.ops.shape import swap_last, tril
    from ..engine.registry import apply
    from . import _mkl_trsm as TS

    upper = n.attrs.get("upper", False)
    out = n.out()
    L = swap_last(out) if upper else out
    gL = swap_last(g) if upper else g
    shape = L.data.shape
    dt = L.data.dtype
    m = shape[-1]
    phi = matmul(L, gL, True, False)
    half_diag = np.ones((m, m), dt)
    half_diag[np.arange(m), np.arange(m)] = 0.5
    phi = multiply(tril(phi, 0), const(phi, np.broadcast_to(half_diag, shape).copy()))
    eye = const(L, np.broadcast_to(np.eye(m, dtype=dt), shape).copy())
    attrs = {"upper": False, "transpose": False, "unitriangular": False}
    if TS.usable(L.data, eye.data, False, False):
        l_inv = apply(TS.op(), (L, eye), attrs)
    else:
        l_inv = LM.triangular_solve(L, eye, False, False, False)
    gx = matmul(matmul(l_inv, phi, True, False), l_inv)
    return multiply(add(gx, swap_last(gx)), const(gx, np.asarray(0.5, dt)))


def op():
    """The engine's cholesky op (its Eigen forward) with Paddle's cholesky_grad."""
    if not _OP:
        import copy

        from ..engine.ops import linalg_more as LM

        new = copy.copy(LM.CHOLESKY)
        new.vjp = _vjp
        _OP.append(new)
    return _OP[0]
