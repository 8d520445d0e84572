"""``one_hot`` (and later ``embedding``) of ``paddle.nn.functional``."""
from __future__ import annotations

import numpy as np

from ...core import Tensor

__all__ = ["one_hot"]


def one_hot(x, num_classes, name=None):
    """float32 one-hot rows for integer labels: shape ``x.shape + [num_classes]``."""
    if isinstance(num_classes, Tensor):
        num_classes = int(num_classes.item())
    lbl = np.asarray(x.data)
    if lbl.dtype.kind not in "iu":
        raise TypeError(
            f"The data type of 'x' in one_hot must be int32 or int64, but received "
            f"{x.dtype.name}")
    if num_classes == -1:
        num_classes = int(lbl.max()) + 1
    num_classes = int(num_classes)
    if lbl.size and (lbl.min() < 0 or lbl.max() >= num_classes):
        bad = int(lbl[(lbl < 0) | (lbl >= num_classes)].reshape(-1)[0])
        raise ValueError(
            f"(InvalidArgument) Illegal value {bad} in one_hot op: every value of X must be in "
            f"[0, depth), depth is {num_classes}")
    out = np.zeros(lbl.shape + (num_classes,), np.float32)
    np.put_along_axis(out, lbl[..., None].astype(np.int64), np.float32(1), -1)
    return Tensor(out)
