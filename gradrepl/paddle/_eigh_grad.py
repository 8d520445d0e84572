"""``paddle.linalg.eigh`` and ``eigvalsh`` gradients as Paddle's CPU kernels compute them
(2.6.2 and 3.3.1 alike).

eigh_grad, with V the eigenvectors, w the eigenvalues and tV = V^T (a transposed copy):

* ``R = tV @ gV``; ``R = (R - R^T) * 0.5``; ``R = R / W`` with ``W[i, j] = w[j] - w[i]``;
* the diagonal set by DiagFill, which reads the value at ``index % m`` of the eigenvalue
  gradient: every matrix of a batch gets the FIRST matrix's ``gw`` on its diagonal;
* ``gX = V @ (R @ tV)``.

eigvalsh_grad: ``gX = (V * b) @ tV`` where ``b`` is the flattened ``gw`` broadcast (tiled) to
V's flattened size: within a batch, row i of matrix k multiplies ``gw.flat[(k m^2 + i m + j)
% (B m)]``, not matrix k's own values (its Eigen broadcast of the flat vector).

A gradient that does not reach an output is zeros (so R's off-diagonal zeros divided by W keep
W's signs, as Paddle's). V enters as a constant (the ops' second order is not Paddle's either:
no double grad).
"""
from __future__ import annotations

import numpy as np

_OPS: dict = {}


def _vjp_eigh(n, gw, gv):
    from ..engine.ops._util import const
    from ..engine.ops.broadcast import broadcast_to
    from ..engine.ops.index import getitem
    from ..engine.ops.linalg import matmul
    from ..engine.ops.math import divide, multiply, subtract
    from ..engine.ops.search import where
    from ..engine.ops.shape import reshape, swap_last

    w, v = n.out_data
    dt = v.dtype
    m = v.shape[-1]
    V = const(gw if gw is not None else gv, v)
    tV = swap_last(V)
    if gv is None:
        gv = const(V, np.zeros(v.shape, dt))
    if gw is None:
        gw = const(V, np.zeros(w.shape, w.dtype))
    W = const(V, (w[..., None, :] - w[..., :, None]).astype(dt))
    R = matmul(tV, gv)
    R = multiply(subtract(R, swap_last(R)), const(R, np.full(v.shape, 0.5, dt)))
    with np.errstate(divide="ignore", invalid="ignore"):
        R = divide(R, W)
    diag = broadcast_to(getitem(reshape(gw, (-1,)), (slice(0, m),)), v.shape)
    eye = const(R, np.broadcast_to(np.eye(m, dtype=bool), v.shape).copy())
    R = where(eye, diag, R)
    return matmul(V, matmul(R, tV))


def _vjp_eigvalsh(n, gw, gv):
    from ..engine.ops._util import const
    from ..engine.ops.broadcast import broadcast_to
    from ..engine.ops.linalg import matmul
    from ..engine.ops.math import multiply
    from ..engine.ops.shape import reshape, swap_last

    w, v = n.out_data
    m = v.shape[-1]
    if gw is None:
        gw = const(const(gv, v), np.zeros(w.shape, w.dtype))
    V = const(gw, v)
    flat = reshape(gw, (1, w.size))
    tiled = reshape(broadcast_to(flat, (m, w.size)), v.shape)
    return matmul(multiply(V, tiled), swap_last(V))


def op(kind, forward):
    """The engine's eigh op with ``forward`` and Paddle's eigh_grad ("eigh") or eigvalsh_grad
    ("eigvalsh": node EigvalshGradNode)."""
    key = (kind, forward)
    if key not in _OPS:
        import copy

        from ..engine.ops import linalg_more as LM

        new = copy.copy(LM.EIGH)
        new.forward = forward
        new.vjp = _vjp_eigh if kind == "eigh" else _vjp_eigvalsh
        if kind == "eigvalsh":
            new.node_name = "EigvalshGradNode"
            new.legacy_name = "EigvalshBackward"
        _OPS[key] = new
    return _OPS[key]
