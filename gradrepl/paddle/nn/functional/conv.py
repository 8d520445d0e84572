"""``conv1d``, ``conv2d`` and their transposes in ``paddle.nn.functional``.

Paddle's argument handling (``convert_to_list``, ``_update_padding_nd``, 'SAME'/'VALID') over the
engine's one-node ``conv2d`` / ``conv2d_transpose`` ops (``engine/ops/conv.py``). As in Paddle,
the bias is a separate add (the bias reshaped to [1, C, 1, 1]), and a 1-D convolution is a 2-D
one on the input unsqueezed to height 1. NHWC / NLC inputs are transposed to NCHW and back.
"""
from __future__ import annotations

from ....engine.ops import conv as C
from ....engine.ops import conv3d as C3
from ....engine.tensor import Tensor as _T

__all__ = ["conv1d", "conv2d", "conv3d", "conv1d_transpose", "conv2d_transpose",
           "conv3d_transpose"]


# ---------------------------------------------------------------------- argument helpers
def convert_to_list(value, n, name):
    """Paddle's ``paddle.utils.convert_to_list``: an int repeated n times, or a list of n ints."""
    if isinstance(value, int) and not isinstance(value, bool):
        return [value] * n
    try:
        values = list(value)
    except TypeError:
        raise ValueError(f"The {name}'s type must be list or tuple. Received: {value}") from None
    if len(values) != n:
        raise ValueError(f"The {name}'s length must be {n}. Received: {value}")
    for v in values:
        try:
            int(v)
        except (ValueError, TypeError):
            raise ValueError(
                f"The {name}'s type must be a list or tuple of {n} <class 'int'> . Received: "
                f"{value} including element {v} of type {type(v)}") from None
    return [int(v) for v in values]


def _is_list_or_tuple(v):
    return isinstance(v, (list, tuple))


def _is_symmetric_padding(padding, num_dims):
    return all(padding[2 * i] == padding[2 * i + 1] for i in range(num_dims))


def update_padding_nd(padding, channel_last, num_dims, ceil_mode=None, check_negative=True):
    """Paddle's ``_update_padding_nd``: (padding list, algorithm 'EXPLICIT'|'SAME'|'VALID').

    ``ceil_mode`` is given by pooling ('VALID' then refuses ceil_mode=True)."""
    if isinstance(padding, str):
        padding = padding.upper()
        if padding not in ("SAME", "VALID"):
            raise ValueError(f"Unknown padding: '{padding}'. It can only be 'SAME' or 'VALID'.")
        if padding == "VALID" and ceil_mode:
            raise ValueError('When Attr(padding) is "VALID", Attr(ceil_mode) must be False. '
                             'Received ceil_mode: True.')
        return [0] * num_dims, padding
    if _is_list_or_tuple(padding):
        if len(padding) == 2 + num_dims and _is_list_or_tuple(padding[0]):
            batch_ch = (padding[0], padding[-1]) if channel_last else (padding[0], padding[1])
            if not all(list(p) == [0, 0] for p in batch_ch):
                raise ValueError(f"Non-zero padding({padding}) in the batch or channel dimensions "
                                 f"is not supported.")
            inner = padding[1:-1] if channel_last else padding[2:]
            padding = [int(e) for pair in inner for e in pair]
            if _is_symmetric_padding(padding, num_dims):
                padding = padding[0::2]
        elif len(padding) == 2 * num_dims and isinstance(padding[0], int):
            padding = convert_to_list(padding, 2 * num_dims, "padding")
            if _is_symmetric_padding(padding, num_dims):
                padding = padding[0::2]
        elif len(padding) == num_dims and isinstance(padding[0], int):
            padding = convert_to_list(padding, num_dims, "padding")
        else:
            word = "Invalid" if ceil_mode is not None else "In valid"
            raise ValueError(f"{word} padding: {padding}")
    else:
        padding = convert_to_list(padding, num_dims, "padding")
    if check_negative and not all(p >= 0 for p in padding):
        raise ValueError(f"Invalid padding, all value should be larger than or equal to 0, but "
                         f"received: {padding}")
    return padding, "EXPLICIT"


def explicit_pads(padding, algorithm, in_hw, ksize, stride, dilation=None):
    """The four pads (top, bottom, left, right) and the dilation Paddle's kernel uses
    (``UpdatePaddingAndDilation``: 'SAME' pads to ceil(in / stride) outputs, dilation 1)."""
    dilation = list(dilation) if dilation is not None else [1] * len(in_hw)
    if algorithm == "SAME":
        pads = []
        for n, k, s in zip(in_hw, ksize, stride):
            out = (n + s - 1) // s
            total = max((out - 1) * s + k - n, 0)
            pads += [total // 2, total - total // 2]
        return pads, [1] * len(in_hw)
    if algorithm == "VALID":
        return [0] * (2 * len(in_hw)), dilation
    if len(padding) == len(in_hw):
        return [p for p in padding for _ in (0, 1)], dilation
    return list(padding), dilation


def _to_nchw(x, channel_last):
    if not channel_last:
        return x
    from ...tensor.manipulation import transpose

    return transpose(x, [0, 3, 1, 2])


def _from_nchw(x, channel_last):
    if not channel_last:
        return x
    from ...tensor.manipulation import transpose

    return transpose(x, [0, 2, 3, 1])


def _add_bias(out, bias, ndim=4):
    """The bias added along the channel axis of NCHW output, as Paddle: reshape, then add."""
    if bias is None:
        return out
    from ...tensor.manipulation import reshape
    from ...tensor.math import add

    return add(out, reshape(bias, [1, -1] + [1] * (ndim - 2)))


def _check_dtype(x, weight):
    if x.data.dtype != weight.data.dtype:
        raise TypeError(
            f"(InvalidArgument) The type of data we are trying to retrieve ({weight.dtype}) does "
            f"not match the type of data ({x.dtype}) currently contained in the container.")


def _check_groups(num_channels, num_filters, groups, x, weight, what):
    if groups == 0:
        raise ValueError("The groups of conv2d should be not be zero." if what == "conv2d"
                         else f"The groups of {what} should not be zero")
    if num_channels % groups != 0:
        raise ValueError(
            f"The channel of input must be divisible by groups,received: the channel of input is "
            f"{num_channels}, the shape of input is {x.shape}, the groups is {groups}")
    if num_filters % groups != 0:
        raise ValueError(
            f"The number of filters must be divisible by groups,received: the number of filters "
            f"is {num_filters}, the shape of weight is {weight.shape}, the groups is {groups}")


def _check_filter_channels(x4, w4, groups, data_format):
    c = x4.data.shape[1]
    wc = w4.data.shape[1]
    if c != wc * groups:
        raise ValueError(
            f"(InvalidArgument) The number of input's channels should be equal to filter's "
            f"channels * groups for Op(Conv). But received: the input's channels is {c}, the "
            f"input's shape is {list(x4.data.shape)}; the filter's channels is {wc}, the "
            f"filter's shape is {list(w4.data.shape)}; the groups is {groups}, the data_format "
            f"is {data_format}. The error may come from wrong data_format setting.")


_FORMATS = {1: ("NCL", "NLC"), 2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}


def _channel_last(x, data_format, nd):
    """Check ``data_format`` and x's rank for an nd convolution; whether channels come last."""
    first, last = _FORMATS[nd]
    if data_format not in (first, last):
        raise ValueError(f"Attr(data_format) should be '{first}' or '{last}'. Received "
                         f"Attr(data_format): {data_format}.")
    if x.data.ndim != nd + 2:
        raise ValueError(f"Input x should be {nd + 2}D tensor, but received x with the shape "
                         f"of {x.shape}")
    return data_format == last


def _conv(x, weight, bias, stride, padding, dilation, groups, data_format, nd):
    """conv2d/conv3d after their own checks: the argument lists, channels-first layout, the
    kernel, the bias, and back."""
    channel_last = data_format == _FORMATS[nd][1]
    padding, algorithm = update_padding_nd(padding, channel_last, nd)
    stride = convert_to_list(stride, nd, "stride")
    dilation = convert_to_list(dilation, nd, "dilation")
    to_first, from_first, kernel = ((_to_nchw, _from_nchw, C.conv2d) if nd == 2
                                    else (_to_ncdhw, _from_ncdhw, C3.conv3d))
    xc = to_first(x, channel_last)
    _check_filter_channels(xc, weight, groups, data_format)
    pads, dilation = explicit_pads(padding, algorithm, xc.data.shape[2:],
                                   weight.data.shape[2:], stride, dilation)
    if nd == 2:   # Paddle's F.conv2d: its depthwise_conv2d op for these shapes
        cin, m = xc.data.shape[1], weight.data.shape[0]
        out = kernel(xc, weight, stride, pads, dilation, groups,
                     depthwise=cin == groups and cin != 1 and m % cin == 0)
    else:
        out = kernel(xc, weight, stride, pads, dilation, groups)
    return from_first(_add_bias(out, bias, ndim=nd + 2), channel_last)


# ---------------------------------------------------------------------- conv2d
def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
           data_format="NCHW", name=None):
    """2-D convolution: ``x`` [N, C, H, W], ``weight`` [M, C/groups, KH, KW], ``bias`` [M]."""
    channel_last = _channel_last(x, data_format, 2)
    num_channels = x.data.shape[-1 if channel_last else 1]
    _check_groups(num_channels, weight.data.shape[0], groups, x, weight, "conv2d")
    _check_dtype(x, weight)
    return _conv(x, weight, bias, stride, padding, dilation, groups, data_format, 2)


def conv1d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NCL",
           name=None):
    """1-D convolution: a 2-D one on ``x`` unsqueezed to height 1 (Paddle does the same)."""
    from ...tensor.manipulation import squeeze, unsqueeze

    channel_last = _channel_last(x, data_format, 1)
    num_channels = x.data.shape[-1 if channel_last else 1]
    _check_groups(num_channels, weight.data.shape[0], groups, x, weight, "conv1d")
    _check_dtype(x, weight)
    padding, algorithm = update_padding_nd(padding, channel_last, 1)
    if len(padding) == 2:
        padding = [0, 0] + padding
    elif len(padding) == 1:
        padding = [0] + padding
    else:
        raise ValueError(f"The size of padding's dimension should be 1 or 2. But got "
                         f"padding={padding}")
    stride = [1] + convert_to_list(stride, 1, "stride")
    dilation = [1] + convert_to_list(dilation, 1, "dilation")
    from ...tensor.creation import assign

    w4 = unsqueeze(assign(weight), [-2])   # (Paddle's conv1d copies the weight: AssignGradNode)
    x4 = unsqueeze(x, [-3 if channel_last else -2])
    x4 = _to_nchw(x4, channel_last)
    _check_filter_channels(x4, w4, groups, "NHWC" if channel_last else "NCHW")
    pads, dilation = explicit_pads(padding, algorithm, x4.data.shape[2:], w4.data.shape[2:],
                                   stride, dilation)
    out = C.conv2d(x4, w4, stride, pads, dilation, groups)
    out = _add_bias(out, bias)
    out = _from_nchw(out, channel_last)
    return squeeze(out, [-3 if channel_last else -2])


# ---------------------------------------------------------------------- transposes
def _transpose_out_hw(in_hw, ksize, stride, pads, dilation, output_padding, output_size):
    infer = [(n - 1) * s - pads[2 * i] - pads[2 * i + 1] + d * (k - 1) + 1
             for i, (n, k, s, d) in enumerate(zip(in_hw, ksize, stride, dilation))]
    if output_size:
        for i, (o, lo, s) in enumerate(zip(output_size, infer, stride)):
            if not lo <= o < lo + s:
                raise ValueError(
                    f"(InvalidArgument) The {i}-th dimension of output_size must be in "
                    f"[{lo}, {lo + s}), but received output_size[{i}] = {o}")
        return list(output_size)
    if output_padding:
        for op, s, d in zip(output_padding, stride, dilation):
            if op >= max(s, d):
                raise ValueError(
                    f"(InvalidArgument) output_padding must be smaller than either stride or "
                    f"dilation, but got output_padding={list(output_padding)}")
        return [o + p for o, p in zip(infer, output_padding)]
    return infer


def _transpose_args(x, weight, nd, data_format, padding, stride, dilation, output_padding,
                    output_size, accept_tensor_size):
    """What conv{2,3}d_transpose share after their own format and groups checks: the filter's
    channels, the padding/stride/dilation lists and the output size; returns the input in
    channels-first layout and the kernel's arguments."""
    channel_last = data_format in ("NHWC", "NDHWC")
    num_channels = x.data.shape[-1 if channel_last else 1]
    _check_dtype(x, weight)
    if weight.data.shape[0] != num_channels:
        raise ValueError(
            f"(InvalidArgument) The number of input channels should be equal to filter channels "
            f"for Op(conv_transpose). But received: the input's channels is [{num_channels}], "
            f"the shape of input is [{', '.join(map(str, x.data.shape))}], the filter's channels "
            f"is [{weight.data.shape[0]}], the shape of filter is "
            f"[{', '.join(map(str, weight.data.shape))}]. The data_format is {data_format}.")
    padding, algorithm = update_padding_nd(padding, channel_last, nd)
    stride = convert_to_list(stride, nd, "stride")
    dilation = convert_to_list(dilation, nd, "dilation")
    if output_size is None:
        output_size = []
    else:
        if output_padding != 0:
            raise ValueError("output_padding option is mutually exclusive with output_size")
        if accept_tensor_size and isinstance(output_size, _T):
            output_size = [int(v) for v in output_size.data.reshape(-1)]
        elif not accept_tensor_size and not isinstance(output_size, (list, tuple, int)):
            raise ValueError("output_size should be int, or list, tuple of ints")
        output_size = convert_to_list(output_size, nd, "output_size")
    output_padding = [] if output_padding == 0 else convert_to_list(output_padding, nd,
                                                                     "output_padding")
    xc = (_to_nchw if nd == 2 else _to_ncdhw)(x, channel_last)
    spatial = xc.data.shape[2:]
    ksize = weight.data.shape[2:]
    pads, dilation = explicit_pads(padding, algorithm, spatial, ksize, stride, dilation)
    out_size = _transpose_out_hw(spatial, ksize, stride, pads, dilation, output_padding,
                                 output_size)
    return xc, stride, pads, dilation, out_size


def conv2d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, dilation=1,
                     groups=1, output_size=None, data_format="NCHW", name=None):
    """Transposed 2-D convolution: ``weight`` [C, M/groups, KH, KW]; the output size from the
    input, or ``output_size``, or plus ``output_padding``."""
    channel_last = _channel_last(x, data_format, 2)
    num_channels = x.data.shape[-1 if channel_last else 1]
    if groups <= 0:
        raise ValueError(f"The groups of conv2d_transpose should be greater than 0. Received "
                         f"groups: {groups}")
    if num_channels % groups != 0:
        raise ValueError(
            f"the channel of input must be divisible by groups,received: the channel of input is "
            f"{num_channels}, the shape of input is {x.shape}, the groups is {groups}")
    x4, stride, pads, dilation, out_hw = _transpose_args(
        x, weight, 2, data_format, padding, stride, dilation, output_padding, output_size,
        accept_tensor_size=True)
    out = C.conv2d_transpose(x4, weight, stride, pads, dilation, groups, out_hw)
    if num_channels == groups != 1 and weight.data.shape[1] == 1:
        from ...double_grad import tag   # Paddle runs its depthwise_conv2d_transpose op

        tag(out, "depthwise_conv2d_transpose")
    return _from_nchw(_add_bias(out, bias), channel_last)


def conv1d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1, output_size=None, data_format="NCL", name=None):
    from ...tensor.manipulation import squeeze, unsqueeze

    if data_format not in ("NCL", "NLC"):
        raise ValueError(f"Attr(data_format) of conv2d_transpose got wrong value: received "
                         f"{data_format}, but only 'NCL' or 'NLC' are supported.")
    channel_last = data_format == "NLC"
    padding, algorithm = update_padding_nd(padding, channel_last, 1)
    pad2 = [0, 0] + (padding if len(padding) == 2 else padding * 2)
    stride = [1] + convert_to_list(stride, 1, "stride")
    dilation = [1] + convert_to_list(dilation, 1, "dilation")
    if output_size is not None:
        output_size = [1] + convert_to_list(output_size, 1, "output_size")
    if output_padding != 0:
        output_padding = [0] + convert_to_list(output_padding, 1, "output_padding")
    x4 = unsqueeze(x, [-3 if channel_last else -2])
    w4 = unsqueeze(weight, [-2])
    out = conv2d_transpose(x4, w4, bias, stride, pad2 if algorithm == "EXPLICIT" else algorithm,
                           output_padding, dilation, groups, output_size,
                           "NHWC" if channel_last else "NCHW")
    return squeeze(out, [-3 if channel_last else -2])


# ---------------------------------------------------------------------- conv3d
def _to_ncdhw(x, channel_last):
    if not channel_last:
        return x
    from ...tensor.manipulation import transpose

    return transpose(x, [0, 4, 1, 2, 3])


def _from_ncdhw(x, channel_last):
    if not channel_last:
        return x
    from ...tensor.manipulation import transpose

    return transpose(x, [0, 2, 3, 4, 1])


def conv3d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
           data_format="NCDHW", name=None):
    """3-D convolution: ``x`` [N, C, D, H, W], ``weight`` [M, C/groups, KD, KH, KW], ``bias``
    [M]; padding an int, 3 or 6 ints, 'same'/'valid', or per-axis pairs."""
    channel_last = _channel_last(x, data_format, 3)
    num_channels = x.data.shape[-1 if channel_last else 1]
    num_filters = weight.data.shape[0]
    if groups == 0:
        raise ValueError("The groups of conv3d should not be 0.")
    if num_channels % groups != 0:
        raise ValueError("The number of input channels must be divisible by Attr(groups). "
                         f"Received: number of channels({num_channels}), groups({groups}).")
    if num_filters % groups != 0:
        raise ValueError("The number of filters must be divisible by Attr(groups). "
                         f"Received: number of filters({num_filters}), groups({groups}).")
    _check_dtype(x, weight)
    return _conv(x, weight, bias, stride, padding, dilation, groups, data_format, 3)


def conv3d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1, output_size=None, data_format="NCDHW", name=None):
    """Transposed 3-D convolution: ``weight`` [C, M/groups, KD, KH, KW]."""
    channel_last = _channel_last(x, data_format, 3)
    num_channels = x.data.shape[-1 if channel_last else 1]
    if groups == 0:
        raise ValueError("The groups of conv3d_transpose should not be zero.")
    if num_channels % groups != 0:
        raise ValueError("The number of input channels must be divisible by Attr(groups). "
                         f"Received: number of channels({num_channels}), groups({groups}).")
    x5, stride, pads, dilation, out_size = _transpose_args(
        x, weight, 3, data_format, padding, stride, dilation, output_padding, output_size,
        accept_tensor_size=False)
    out = C3.conv3d_transpose(x5, weight, stride, pads, dilation, groups, out_size)
    return _from_ncdhw(_add_bias(out, bias, ndim=5), channel_last)
