"""``one_hot`` (and later ``embedding``) of ``paddle.nn.functional``."""
from __future__ import annotations

import numpy as np

from ... import profiles
from ...core import Tensor

__all__ = ["one_hot", "embedding"]


def one_hot(x, num_classes, name=None):
    """float32 one-hot rows for integer labels: shape ``x.shape + [num_classes]``."""
    if isinstance(num_classes, Tensor):
        num_classes = int(num_classes.item())
    lbl = np.asarray(x.data)
    if lbl.dtype not in (np.int32, np.int64):
        from ._util import kernel_dtype_error

        raise kernel_dtype_error("one_hot", x, "int64, int32")
    if num_classes == -1:
        num_classes = int(lbl.max()) + 1
    num_classes = int(num_classes)
    if lbl.size and (lbl.min() < 0 or lbl.max() >= num_classes):
        bad = int(lbl[(lbl < 0) | (lbl >= num_classes)].reshape(-1)[0])
        raise ValueError(
            f"(InvalidArgument) Illegal index value, Input(input) value should be less than "
            f"Input(depth), but received input ({bad}) not less than depth ({num_classes})")
    out = np.zeros(lbl.shape + (num_classes,), np.float32)
    np.put_along_axis(out, lbl[..., None].astype(np.int64), np.float32(1), -1)
    return Tensor(out)


def embedding(x, weight, padding_idx=None, max_norm=None, norm_type=2.0, sparse=False,
              scale_grad_by_freq=False, name=None):
    """Rows of ``weight`` for the integer ids in ``x``; ``padding_idx`` rows read as zeros and
    get no gradient."""
    from ....engine.ops import nn as N
    from ..layer.common import _3x_only_args

    _3x_only_args("embedding", max_norm=max_norm, norm_type=norm_type,
                  scale_grad_by_freq=scale_grad_by_freq)
    rows = weight.data.shape[0]
    pad = -1 if padding_idx is None else (padding_idx if padding_idx >= 0 else rows + padding_idx)
    if rows != 0 and (pad >= rows or pad < -rows):
        raise ValueError(f"padding_idx must be within [-{rows}, {rows})")
    if x.data.dtype.kind not in "iu":
        from ._util import kernel_dtype_error

        raise kernel_dtype_error("embedding", x, "int64, int32")
    if max_norm and weight.data.size != 0 and profiles.current().api3:  # 3.x renorms first
        from ..gaps import embedding_renorm_

        weight = embedding_renorm_(x, weight, max_norm, norm_type)
    if sparse:  # the weight's gradient is Paddle's SelectedRows (see paddle/selected_rows.py)
        from ... import selected_rows

        return selected_rows.embedding(x, weight, pad)
    if scale_grad_by_freq and profiles.current().api3:
        from ....engine.ops import paddle_nn_gaps

        return paddle_nn_gaps.embedding_scaled_grad(x, weight, pad)
    return N.embedding(x, weight, pad)
