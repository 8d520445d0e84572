"""``batch_norm``, ``layer_norm`` and ``group_norm`` of ``paddle.nn.functional``.

Each is one engine op (``engine/ops/conv.py``). ``batch_norm`` in training normalises with the
batch's mean and biased variance and updates the running statistics in place, Paddle's way:
``running = running * momentum + batch * (1 - momentum)`` (momentum 0.9 by default).
"""
from __future__ import annotations

import numbers

import numpy as np

from ....engine.ops import conv as C
from ...core import Tensor

__all__ = ["batch_norm", "layer_norm", "group_norm", "local_response_norm"]


def _const(like, value, shape):
    return Tensor(np.full(shape, value, like.data.dtype))


def _param_or(t, like, value, shape):
    return t if t is not None else _const(like, value, shape)


def batch_norm(x, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.9, epsilon=1e-05, data_format="NCHW", use_global_stats=None,
               name=None):
    """Batch normalisation over every axis but the channel axis (1 for 'NC*', last for 'N*C')."""
    if x.data.ndim < 2:
        raise AssertionError("input dim must be larger than 1")
    formats = ("NC", "NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC")
    if data_format not in formats:
        raise ValueError(f"data_format must be one of 'NC', 'NCL', 'NCHW', 'NCDHW', 'NLC', "
                         f"'NHWC', 'NDHWC' but receive {data_format}")
    axis = 1 if data_format[1] == "C" else x.data.ndim - 1
    if use_global_stats is None:
        use_global_stats = not training
        trainable_statistics = False
    else:
        trainable_statistics = not use_global_stats
    test_mode = (not training) and not trainable_statistics
    global_stats = test_mode or use_global_stats
    c = x.data.shape[axis]
    for what, t in (("Mean", running_mean), ("Variance", running_var), ("Scale", weight),
                    ("Bias", bias)):
        if t is not None and list(t.data.shape) != [c]:
            raise ValueError(
                f"(InvalidArgument) ShapeError: the shape of {what} must be [{c}], but received "
                f"[{', '.join(map(str, t.data.shape))}]")
    scale = _param_or(weight, x, 1.0, [c])
    shift = _param_or(bias, x, 0.0, [c])
    y, bmean, bvar = C.batch_norm(x, scale, shift, running_mean, running_var, epsilon,
                                  training=not global_stats, axis=axis)
    if not global_stats and x.data.size != c:   # (one value per channel: kernel returns early)
        _update_running(running_mean, bmean.data, momentum)
        _update_running(running_var, bvar.data, momentum)
    return y


def _update_running(stat, batch, momentum):
    """running * momentum + batch * (1 - momentum), written into the running tensor. The kernel
    takes momentum as a C float and computes ``1. - momentum`` in double: for 0.9 that is
    0.100000024 in float32, not 0.1 (measured on Paddle 3.3.1)."""
    arr = stat.data
    dt = arr.dtype.type
    m32 = float(np.float32(momentum))
    new = arr * dt(m32) + batch.astype(arr.dtype) * dt(1.0 - m32)
    np.copyto(arr, new.astype(arr.dtype))


def layer_norm(x, normalized_shape, weight=None, bias=None, epsilon=1e-05, name=None):
    """Normalise over the trailing axes named by ``normalized_shape``."""
    input_shape = list(x.data.shape)
    if isinstance(normalized_shape, numbers.Integral):
        normalized_shape = [int(normalized_shape)]
    elif isinstance(normalized_shape, tuple):
        normalized_shape = list(normalized_shape)
    elif not isinstance(normalized_shape, list):
        raise ValueError("`normalized_shape` should be int, list of ints or tuple of ints.")
    nd = len(normalized_shape)
    begin = len(input_shape) - nd
    if len(input_shape) < nd or input_shape[begin:] != [int(v) for v in normalized_shape]:
        s = str(normalized_shape)
        raise ValueError(f"Given normalized_shape is {s}, expected input with shape [*, {s[1:]}"
                         f", but got input shape {input_shape}")
    size = int(np.prod(normalized_shape))
    scale = _param_or(weight, x, 1.0, [size])
    shift = _param_or(bias, x, 0.0, [size])
    return C.layer_norm(x, scale, shift, epsilon, begin, has_bias=bias is not None)


def group_norm(*args, **kwargs):
    """``group_norm(x, num_groups, epsilon=1e-05, weight=None, bias=None, data_format='NCHW')``
    (also Paddle 3's ``group_norm(input, num_groups, weight, bias, eps)``)."""
    if "input" in kwargs:
        kwargs["x"] = kwargs.pop("input")
    if "eps" in kwargs:
        kwargs["epsilon"] = kwargs.pop("eps")
    if len(args) >= 3 and not isinstance(args[2], float):
        for key, v in zip(("weight", "bias", "epsilon"), args[2:]):
            kwargs[key] = v
        args = args[:2]
    return _group_norm(*args, **kwargs)


def _group_norm(x, num_groups, epsilon=1e-05, weight=None, bias=None, data_format="NCHW",
                name=None):
    if data_format not in ("NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC"):
        raise ValueError("unsupported data layout:" + data_format)
    channel_last = data_format[1] != "C"
    if channel_last:
        from ...tensor.manipulation import transpose

        nd = x.data.ndim
        x = transpose(x, [0, nd - 1] + list(range(1, nd - 1)))
    c = x.data.shape[1]
    if num_groups <= 0 or c % num_groups != 0:
        raise ValueError(
            f"(InvalidArgument) The Input(X)'s channels should be divisible by groups, but "
            f"received channels is {c}, groups is {num_groups}")
    from ... import profiles

    scale = _param_or(weight, x, 1.0, [c])
    shift = _param_or(bias, x, 0.0, [c])
    out = C.group_norm(x, scale, shift, epsilon, num_groups, has_scale=weight is not None,
                       has_bias=bias is not None,
                       eps_double=profiles.current().group_norm_kernel == "3")
    if channel_last:
        from ...tensor.manipulation import transpose

        nd = out.data.ndim
        out = transpose(out, [0] + list(range(2, nd)) + [1])
    return out


def local_response_norm(x, size, alpha=0.0001, beta=0.75, k=1.0, data_format="NCHW", name=None):
    """Local response normalization across channels, composed as Paddle composes it in Python:
    ``x / (k + alpha * avg_pool(x^2 over `size` neighbouring channels)) ** beta`` (the average
    over a zero-padded window of ``size`` channels), so its gradient is those ops' gradients."""
    from ... import tensor as T
    from .common import pad
    from .pooling import avg_pool2d, avg_pool3d

    if data_format not in ("NCL", "NLC", "NCHW", "NHWC", "NCDHW", "NDHWC"):
        raise ValueError("data_format should be in one of [NCL, NCHW, NCDHW, NLC, NHWC, NDHWC], "
                         f"but got {data_format}")
    sizes = list(x.data.shape)
    dim = len(sizes)
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input, but got {dim} dimensions")
    for i, sz in enumerate(sizes):
        if not sz > 0 and i > 0:
            raise ValueError("Expected every dim's size to be larger than 0, but the size of the "
                             f"{i}-th dim is {sz}")
    channel_last = data_format[-1] == "C"
    sum_sizes = int(np.prod(sizes[1:]))
    div = T.unsqueeze(T.multiply(x, x), axis=1)
    if not channel_last:
        pad4d = [0, 0, size // 2, (size - 1) // 2]
        pool2d_shape = (size, 1)
        reshape_shape = [sizes[0], 1, sizes[1], sizes[2], sum_sizes // (sizes[1] * sizes[2])]
        pad5d = [0, 0, 0, 0, size // 2, (size - 1) // 2]
        pool3d_shape = (size, 1, 1)
    else:
        pad4d = [size // 2, (size - 1) // 2, 0, 0]
        pool2d_shape = (1, size)
        reshape_shape = [sizes[0], 1, sizes[1], sum_sizes // (sizes[1] * sizes[-1]), sizes[-1]]
        pad5d = [size // 2, (size - 1) // 2, 0, 0, 0, 0]
        pool3d_shape = (1, 1, size)
    if dim == 3:
        div = pad(div, pad=pad4d)
        div = avg_pool2d(div, kernel_size=pool2d_shape, stride=1)
        div = T.squeeze(div, axis=1)
    else:
        div = T.reshape(div, shape=reshape_shape)
        div = pad(div, pad=pad5d, data_format="NCDHW")
        div = avg_pool3d(div, kernel_size=pool3d_shape, stride=1)
        div = T.reshape(T.squeeze(div, axis=1), sizes)
    div = T.scale(div, scale=alpha, bias=k)
    div = T.pow(div, beta)
    return T.divide(x, div)
