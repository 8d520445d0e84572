"""``F.affine_grid`` (4-d) as ATen's AffineGridGenerator.cpp computes it: the base grid from
``linspace(-1, 1, n)`` (times ``(n - 1) / n`` without align_corners, two float roundings), then
``base.view(N, H*W, 3).bmm(theta.transpose(1, 2))``, the backward
``base^T.bmm(grad_grid)`` transposed: both products by torch's bmm (MKL's batched gemm, or
torch's own loop for small ones), so the grid has torch's bits and a Spatial Transformer's
``grid_sample`` finds the same pixel corners."""
from __future__ import annotations

import functools

import numpy as np

from ...engine.ops import nn_more as NM


def _linspace_from_neg_one(n, align_corners, dt):
    from .. import _creation, _dtypes
    from .._base import raw

    if n <= 1:
        return np.zeros(1, dt)
    r = raw(_creation.linspace(-1, 1, n, dtype=_dtypes.from_np(dt)))
    if not align_corners:
        r = ((r * dt.type(n - 1)).astype(dt) / dt.type(n)).astype(dt)
    return r


def _base_grid(out_shape, align_corners, dt):
    n, _c, h, w = out_shape
    base = np.empty((n, h, w, 3), dt)
    base[..., 0] = _linspace_from_neg_one(w, align_corners, dt)
    base[..., 1] = _linspace_from_neg_one(h, align_corners, dt)[:, None]
    base[..., 2] = 1
    return base.reshape(n, h * w, 3)


def _bmm(a, b):
    from .._ops import _mkl_matmul

    out = _mkl_matmul(a, b)
    return np.matmul(a, b) if out is None else out


def _fwd(theta, out_shape=(), align_corners=True):
    n, _c, h, w = out_shape
    base = _base_grid(out_shape, align_corners, theta.dtype)
    return _bmm(base, np.swapaxes(theta, 1, 2)).reshape(n, h, w, 2).astype(theta.dtype)


def _vjp(node, g):
    from ...engine.ops.math import const

    a = node.attrs
    n, _c, h, w = a["out_shape"]
    gg = np.asarray(g.data)
    base = _base_grid(a["out_shape"], a.get("align_corners", True), gg.dtype)
    gt = _bmm(np.swapaxes(base, 1, 2), np.ascontiguousarray(gg.reshape(n, h * w, 2)))
    return (const(g, np.ascontiguousarray(np.swapaxes(gt, 1, 2))),)


@functools.lru_cache(maxsize=None)
def torch_affine_grid_op(named):
    return named(NM.AFFINE_GRID, "AffineGridGeneratorBackward0", forward=_fwd, vjp=_vjp)
