"""Gradient clipping for optimizers: ``ClipGradByValue``, ``ClipGradByNorm``,
``ClipGradByGlobalNorm``. Called by ``Optimizer.step`` with the (param, grad) pairs; returns new
pairs. The parameters' ``.grad`` stay as they were, except that 3.x's ClipGradByGlobalNorm scales
them in place (profile field ``clip_global_norm_inplace``)."""
from __future__ import annotations

import numpy as np

from ...engine.ops.math import divide as _divide
from ...engine.ops.reduce import paddle_reduce
from ..core import PaddleClass as _PaddleClass
from ..core import Tensor

__all__ = ["ClipGradByValue", "ClipGradByNorm", "ClipGradByGlobalNorm"]


def _square_sum(g):
    """``squared_l2_norm`` (also inside ``clip_by_norm``): Eigen's ``x.square().sum()`` in the
    gradient's dtype, the same vectorised reducer as ``paddle.sum`` over all axes (measured on
    real Paddle 3.3.1 and 2.6.2: 66/66 1-D sizes 7 .. 50001 bit-equal; np.sum 37/66)."""
    sq = np.ravel(g * g)
    if sq.dtype.kind != "f" or sq.dtype.itemsize < 4 or not sq.size:
        return np.sum(sq, dtype=g.dtype)
    return paddle_reduce(sq, (0,), False)


def _stack_sum(values):
    """``paddle.stack(values).sum()``: how 3.x/2.6 add the per-gradient squared norms."""
    return paddle_reduce(np.stack(values), (0,), False)


class ClipGradBase(metaclass=_PaddleClass):
    def __call__(self, params_grads):
        return self._dygraph_clip(params_grads)

    def _dygraph_clip(self, params_grads):  # pragma: no cover - abstract
        raise NotImplementedError


def _clippable(p, g):
    return g is not None and getattr(p, "need_clip", True) is not False


class ClipGradByValue(ClipGradBase):
    """Clip every gradient element into [min, max] (min defaults to -max)."""

    def __init__(self, max, min=None):  # noqa: A002
        if min is None:
            if max <= 0:
                raise AssertionError("max should be greater than 0")
            min = -max
        self.max = float(max)
        self.min = float(min)

    def __str__(self):
        return f"Clip Gradient By Value, min = {self.min:f}, max={self.max:f}"

    def _dygraph_clip(self, params_grads):
        out = []
        for p, g in params_grads:
            if not _clippable(p, g):
                out.append((p, g))
                continue
            dt = g.data.dtype
            out.append((p, Tensor(np.clip(g.data, np.asarray(self.min, dt),
                                          np.asarray(self.max, dt)))))
        return out


class ClipGradByNorm(ClipGradBase):
    """Scale a gradient by clip_norm / ||g|| when its L2 norm exceeds clip_norm."""

    def __init__(self, clip_norm):
        self.clip_norm = float(clip_norm)

    def __str__(self):
        return f"Gradient Clip By Norm, clip_norm={self.clip_norm:f}"

    def _dygraph_clip(self, params_grads):
        out = []
        for p, g in params_grads:
            if not _clippable(p, g):
                out.append((p, g))
                continue
            dt = g.data.dtype
            norm = np.sqrt(_square_sum(g.data)).astype(dt)
            mx = np.asarray(self.clip_norm, dt)
            new = g.data * (mx / norm) if norm > mx else g.data
            out.append((p, Tensor(np.asarray(new, dt))))
        return out


class ClipGradByGlobalNorm(ClipGradBase):
    """Scale all gradients by clip_norm / max(global_norm, clip_norm), global_norm being the L2
    norm of all gradients together."""

    def __init__(self, clip_norm, group_name="default_group", auto_skip_clip=False):
        self.clip_norm = float(clip_norm)
        self.group_name = group_name
        self.auto_skip_clip = auto_skip_clip

    def __str__(self):
        return f"Gradient Clip By GlobalNorm, global_norm={self.clip_norm:f}"

    def _dygraph_clip(self, params_grads):
        squares = [_square_sum(g.data) for p, g in params_grads if _clippable(p, g)]
        if not squares:
            return params_grads
        # Paddle: the float16/bfloat16, float32 and other (float64) squares summed per group,
        # the group sums cast to float64 when there is a float64 group, then summed
        groups = [[s for s in squares if s.dtype.itemsize == 2],
                  [s for s in squares if s.dtype == np.float32],
                  [s for s in squares if s.dtype.itemsize > 4]]
        dt = np.dtype(np.float64 if groups[2] else np.float32)
        total = _stack_sum([_stack_sum(grp).astype(dt) for grp in groups if grp])
        global_norm = np.sqrt(total).astype(dt)
        mx = np.asarray(self.clip_norm, dt)
        if self.auto_skip_clip and not global_norm > mx:
            return params_grads
        # paddle.divide(max_global_norm, paddle.maximum(global_norm, max_global_norm)): two 0-d
        # tensors of one shape, so Paddle's forward divide kernel (MKL's vsDiv on Intel AVX-512,
        # not correctly rounded), not numpy's quotient
        scale = np.asarray(_divide(Tensor(mx), Tensor(np.maximum(global_norm, mx)),
                                   vml=True).data, dt)
        from .. import profiles

        inplace = profiles.current().clip_global_norm_inplace
        out = []
        for p, g in params_grads:
            if not _clippable(p, g):
                out.append((p, g))
                continue
            new = (g.data * scale.astype(g.data.dtype)).astype(g.data.dtype)
            if inplace:  # 3.x: g.multiply_(scale), so param.grad shows the clipped gradient
                g.data = new
                out.append((p, g))
            else:
                out.append((p, Tensor(new)))
        return out
