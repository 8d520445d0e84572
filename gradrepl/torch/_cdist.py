"""``torch.cdist`` as one recorded op, as torch records it: ``CdistBackward0`` (ATen's
``_cdist_forward``), or, on the matrix-product path for p = 2 (``compute_mode`` asks for it, or
either input has more than 25 rows), ``_euclidean_dist`` (``EuclideanDistBackward0``) under a
``ViewBackward0``. The values are the composite ``_ops_shape._cdist_values`` computes (torch's
formulas); the gradients are ATen's ``_cdist_backward`` / ``_euclidean_dist_backward`` written
with Tensor ops (so ``create_graph`` works): a zero distance contributes nothing, where the
composite's ``sqrt`` / ``pow`` gave NaN (``cdist(a, a).sum().backward()``) and p = 0 had no graph.
"""
from __future__ import annotations

import math

import numpy as np

from ..engine.registry import OPS, apply, register
from . import _ops as O
from ._base import raw
from ._ops import top
from ._tensor import Tensor

_wrap = Tensor._wrap


def _kernel_ok(x1, x2):
    return x1.dtype == x2.dtype and x1.dtype in (np.float32, np.float64) and \
        x1.shape[:-2] == x2.shape[:-2]


def _fwd(x1, x2, p=2.0, mm=False):
    from ._ops_shape import _cdist_values, _grad_off

    if not mm and _kernel_ok(x1, x2):   # torch's kernel (_cdist_kernel)
        from ._cdist_kernel import forward
        return forward(x1, x2, float(p))

    with _grad_off():
        return np.asarray(raw(_cdist_values(_wrap(x1, True), _wrap(x2, True), p, mm)))


def _const(a):
    return _wrap(np.asarray(a), True)


def _pairwise_grad(g, x1, x2, dist, p):
    """ATen's _cdist_backward for x1: sum over j of grad[i, j] * f(x1[i] - x2[j], dist[i, j])."""
    diff = O.sub(O.unsqueeze(x1, -2), O.unsqueeze(x2, -3))          # [..., r1, r2, m]
    gd = O.unsqueeze(g, -1)
    d = O.unsqueeze(dist, -1)
    a_diff, a_d = raw(diff), raw(d)
    zero = _const(np.zeros(a_diff.shape, a_diff.dtype))
    if p == 0:
        return O.sum(zero, -2)
    if p == 1:
        return O.sum(O.mul(O.sign(diff), gd), -2)
    if math.isinf(p):
        hit = _const(np.abs(a_diff) == a_d)
        return O.sum(O.where(hit, O.mul(O.sign(diff), gd), zero), -2)
    dead = a_d == 0
    safe_d = O.where(_const(dead), _const(np.ones_like(a_d)), d)
    if p == 2:
        term = O.div(O.mul(diff, gd), safe_d)
    elif p < 2:
        flat = a_diff == 0
        dead = dead | (flat & (p < 1))
        mag = O.where(_const(flat), _const(np.ones_like(a_diff)), O.abs(diff))
        term = O.div(O.mul(O.mul(O.sign(diff), O.pow(mag, p - 1)), gd), O.pow(safe_d, p - 1))
    else:
        term = O.div(O.mul(O.mul(diff, O.pow(O.abs(diff), p - 2)), gd), O.pow(safe_d, p - 1))
    return O.sum(O.where(_const(np.broadcast_to(dead, a_diff.shape)), zero, term), -2)


def _vjp(n, g):
    x1, x2 = n.inputs
    p = n.attrs.get("p", 2.0)
    from ..engine import grad_mode

    a1, a2 = raw(x1), raw(x2)
    kernel_p = p in (1.0, 2.0) or (a1.dtype == np.float32 and p != 0 and math.isfinite(p))
    if kernel_p and not n.attrs.get("mm") and not grad_mode.STATE.enabled and \
            _kernel_ok(a1, a2):   # torch's backward kernel (_cdist_kernel); create_graph below
        from ._cdist_kernel import backward_x1, forward

        ga = np.ascontiguousarray(raw(g), a1.dtype)
        dist = forward(a1, a2, float(p))
        gt = np.ascontiguousarray(np.swapaxes(ga, -1, -2))
        dt = np.ascontiguousarray(np.swapaxes(dist, -1, -2))
        return (_const(backward_x1(ga, a1, a2, dist, p)),
                _const(backward_x1(gt, a2, a1, dt, p)))
    # the distances again through the op itself: under create_graph they are recorded, so the
    # second derivative sees how they move with x1 and x2
    dist = apply(top("torch_cdist", "CdistBackward0", "none"), (x1, x2), dict(n.attrs))
    if n.attrs.get("mm"):
        dead = _const(raw(dist) == 0)
        ratio = O.div(g, O.where(dead, _const(np.ones_like(raw(dist))), dist))
        ratio = O.where(dead, _const(np.zeros_like(raw(ratio))), ratio)
        g1 = O.sub(O.mul(x1, O.sum(ratio, -1, True)), O.matmul(ratio, x2))
        g2 = O.sub(O.mul(x2, O.unsqueeze(O.sum(ratio, -2), -1)),
                   O.matmul(O.transpose(ratio, -2, -1), x1))
        return g1, g2
    g1 = _pairwise_grad(g, x1, x2, dist, p)
    g2 = _pairwise_grad(O.transpose(g, -2, -1), x2, x1, O.transpose(dist, -2, -1), p)
    return g1, g2


BASE = OPS.get("torch_cdist") or register("torch_cdist", _fwd, _vjp, check=False,
                                         legacy_name="CdistBackward")  # (checked: test_torch_cdist)
BASE.saves_inputs = True


def cdist(x1, x2, p, mm):
    if mm:
        out = apply(top("torch_cdist", "EuclideanDistBackward0", "none"), (x1, x2),
                    {"p": 2.0, "mm": True})
        return O.view(out, tuple(raw(out).shape))
    return apply(top("torch_cdist", "CdistBackward0", "none"), (x1, x2), {"p": float(p), "mm": False})
