"""``linear``, ``dropout`` and friends of ``paddle.nn.functional``."""
from __future__ import annotations

import numpy as np

from ....engine.ops import math as M
from ....engine.ops import nn as N
from ...core import Tensor

__all__ = ["linear", "dropout", "dropout2d", "dropout3d", "alpha_dropout", "pad", "cosine_similarity", "normalize"]


def linear(x, weight, bias=None, name=None):
    """``x @ weight + bias`` with ``weight`` of shape [in, out]: matmul then add, as Paddle."""
    from ...tensor.linalg import matmul
    from ...tensor.math import add

    out = matmul(x, weight)
    if bias is not None:
        out = add(out, bias)
    return out


def _rng():
    from ...tensor.creation import rng

    return rng()


def _check_dropout_args(p, mode, axis):
    if not isinstance(p, (float, int)) or isinstance(p, bool):
        raise TypeError("p argument should be a number or Variable")
    if p < 0 or p > 1:
        raise ValueError("p argument should between 0 and 1")
    if mode not in ("downscale_in_infer", "upscale_in_train"):
        raise ValueError("mode argument should be 'downscale_in_infer' or 'upscale_in_train'")
    if axis and not isinstance(axis, (int, list, tuple)):
        raise TypeError("datatype of axis argument should be int or list")


def _keep_mask(shape, p):
    """1 where a value is kept: a uniform draw >= p (Paddle drops where the draw is < p)."""
    return (_rng().random(shape) >= p).astype(np.uint8)


def dropout(x, p=0.5, axis=None, training=True, mode="upscale_in_train", name=None):
    """Zero each value with probability ``p`` (random numbers from ``paddle.seed``'s generator).

    ``upscale_in_train`` divides the kept values by ``1 - p`` in training and is the identity
    in evaluation; ``downscale_in_infer`` keeps values as they are in training and multiplies
    by ``1 - p`` in evaluation.
    """
    _check_dropout_args(p, mode, axis)
    if p == 0:
        return x
    upscale = mode == "upscale_in_train"
    if axis is None:
        if training:
            mask = _keep_mask(x.data.shape, p) if p < 1 else np.zeros(x.data.shape, np.uint8)
        else:
            mask = np.ones(x.data.shape, np.uint8)
        return N.dropout(x, Tensor(mask), p, upscale, not training)
    return _dropout_nd(x, p, axis, training, upscale)


def _dropout_nd(x, p, axis, training, upscale):
    """dropout along some axes: Paddle composes scale, a broadcast keep mask and multiply."""
    axes = [axis] if isinstance(axis, int) else list(axis)
    nd = x.data.ndim
    if max(axes) > nd - 1 or len(axes) > nd:
        raise ValueError("axis value should be greater than or equal to 0 and less than "
                         "dimensions of x")
    if not training:
        return x if upscale else M.scale(x, 1.0 - p)
    scaled = M.scale(x, 1.0 / (1.0 - p)) if upscale and p < 1 else x
    mshape = tuple(s if i in axes else 1 for i, s in enumerate(x.data.shape))
    keep = Tensor((_rng().random(mshape) >= p).astype(x.data.dtype))
    return M.multiply(scaled, keep)


def dropout2d(x, p=0.5, training=True, data_format="NCHW", name=None):
    axis = [0, 1] if data_format == "NCHW" else [0, 3]
    return dropout(x, p, axis, training)


def dropout3d(x, p=0.5, training=True, data_format="NCDHW", name=None):
    axis = [0, 1] if data_format == "NCDHW" else [0, 4]
    return dropout(x, p, axis, training)


def alpha_dropout(x, p=0.5, training=True, name=None):
    """SELU-preserving dropout: dropped values become alpha' and the result is rescaled."""
    if p < 0 or p > 1:
        raise ValueError("p argument should between 0 and 1")
    if not training or p == 0:
        return x
    alpha = 1.6732632423543772848170429916717
    scale = 1.0507009873554804934193349852946
    alpha_p = -alpha * scale
    a = ((1 - p) * (1 + p * alpha_p ** 2)) ** -0.5
    b = -a * alpha_p * p
    keep = Tensor((_rng().random(x.data.shape) >= p).astype(x.data.dtype))
    drop = Tensor(1 - keep.data)
    y = M.add(M.multiply(x, keep), M.scale(drop, alpha_p))
    return M.scale(y, a, b)


def pad(x, pad, mode="constant", value=0.0, data_format="NCHW", pad_from_left_axis=True,
        name=None):
    """Pad ``x``: a pad list of 2*ndim values pads every axis in order (before, after); a
    shorter one pads the spatial axes of the ``data_format`` layout, last axis first
    ([left, right, top, bottom, front, back]). Modes: constant, reflect, replicate, circular."""
    from ....engine.ops import shape as S

    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise ValueError(
            f"mode should be one of constant, reflect, replicate, circular, but got {mode}.")
    if isinstance(pad, Tensor):
        pad = [int(v) for v in pad.data.reshape(-1)]
    pad = [int(v) for v in pad]
    nd = x.data.ndim
    if len(pad) == 2 * nd and mode == "constant":
        pairs = [(pad[2 * i], pad[2 * i + 1]) for i in range(nd)]
    else:
        k = len(pad) // 2
        spatial = list(range(2, nd)) if data_format.startswith("NC") else list(range(1, nd - 1))
        pairs = [(0, 0)] * nd
        for j, ax in enumerate(reversed(spatial[-k:])):
            pairs[ax] = (pad[2 * j], pad[2 * j + 1])
    if mode == "constant":
        return S.pad(x, pairs, value)
    return N.pad3d(x, pairs, mode)


def cosine_similarity(x1, x2, axis=1, eps=1e-8):
    from ...tensor import reduce as R

    w12 = R.sum(M.multiply(x1, x2), axis=axis)
    w1 = R.sum(M.multiply(x1, x1), axis=axis)
    w2 = R.sum(M.multiply(x2, x2), axis=axis)
    n12 = M.sqrt(M.maximum(M.multiply(w1, w2), Tensor(np.asarray(eps * eps, x1.data.dtype))))
    return M.divide(w12, n12)


def normalize(x, p=2, axis=1, epsilon=1e-12, name=None):
    """``x / max(||x||_p along axis, epsilon)`` (Paddle's p_norm with keepdim, then divide)."""
    from ....engine.ops import reduce as R

    if x.data.ndim == 1 and axis not in (0, -1):
        raise ValueError(
            f"Axis must be 0 or -1 when x is a 1-D tensor, but received axis = {axis}")
    ax = axis % max(x.data.ndim, 1)
    norm = R.p_norm(x, float(p), (ax,), keepdim=True, epsilon=epsilon)
    eps = Tensor(np.full([1], epsilon, x.data.dtype))
    return M.divide(x, M.maximum(norm, eps))
