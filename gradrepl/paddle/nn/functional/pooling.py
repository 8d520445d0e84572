"""Pooling functions of ``paddle.nn.functional``: max / average, plain and adaptive, 1-D and 2-D.

Each is the engine's one ``pool2d`` op (``engine/ops/conv.py``); the 1-D forms unsqueeze the
input to height 1 first, as Paddle does. ``return_mask`` gives the flat index (h * W + w, int32)
of each window's maximum, as Paddle's ``max_pool2d_with_index``.
"""
from __future__ import annotations

from ....engine.ops import conv as C
from ....engine.ops import pool3d as P3
from ...core import Tensor
from .conv import _from_nchw, _to_nchw, convert_to_list, explicit_pads, update_padding_nd
from ...double_grad import composes as _composes

__all__ = ["max_pool1d", "max_pool2d", "max_pool3d", "avg_pool1d", "avg_pool2d", "avg_pool3d",
           "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
           "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d", "max_unpool1d",
           "max_unpool2d", "max_unpool3d", "lp_pool1d", "lp_pool2d"]


def _check_format(data_format, num_dims):
    allowed = {1: ("NCL", "NLC"), 2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}[num_dims]
    if data_format not in allowed:
        end = "" if num_dims == 3 else "."  # Paddle's 3-D message has no full stop
        raise ValueError(f"Attr(data_format) should be '{allowed[0]}' or '{allowed[1]}'. "
                         f"Received Attr(data_format): {data_format}{end}")
    return data_format == allowed[1]


def _check_input(x, dims):
    if x.data.ndim != dims:
        raise ValueError(f"Excepted Input X is {dims}-D tensor, but received {x.data.ndim}-D "
                         f"{type(x)}")


def _check_positive(values, name):
    if any(v <= 0 for v in values):
        raise ValueError(f"{name} should be greater than 0, but received {values}")


def _override_divisor(out, kernel_size, divisor_override, nd):
    """An average's result rescaled to ``sum / divisor_override`` (Paddle: out * prod(k) / d)."""
    if divisor_override is None:
        return out
    if not isinstance(divisor_override, (int, float)):
        raise ValueError(f"Excepted (<class 'int'>, <class 'float'>) type for divisor_override "
                         f"but received type: {type(divisor_override)}. ")
    k = convert_to_list(kernel_size, nd, "pool_size")
    size = 1
    for v in k:
        size *= v
    return out * size / divisor_override


def _engine(nd):
    """(to channels-first, back, attrs, pool op, max mask) of the engine's 2-D or 3-D pool."""
    from .conv import _from_ncdhw, _to_ncdhw

    if nd == 3:
        return _to_ncdhw, _from_ncdhw, P3.pool3d_attrs, P3.pool3d, P3.max_pool3d_mask
    return _to_nchw, _from_nchw, C.pool_attrs, C.pool2d, C.max_pool2d_mask


def _pool(x, kernel_size, stride, padding, ceil_mode, exclusive, pooling_type, channel_last,
          return_mask=False, nd=2):
    to_first, from_first, make_attrs, pool, mask = _engine(nd)
    kernel_size = convert_to_list(kernel_size, nd, "pool_size")
    stride = kernel_size if stride is None else convert_to_list(stride, nd, "pool_stride")
    _check_positive(kernel_size, "kernel_size")
    _check_positive(stride, "stride")
    padding, algorithm = update_padding_nd(padding, channel_last, nd, ceil_mode=bool(ceil_mode),
                                           check_negative=False)
    xf = to_first(x, channel_last)
    pads, _ = explicit_pads(padding, algorithm, xf.data.shape[2:], kernel_size, stride)
    attrs = make_attrs(kernel_size, stride, pads, ceil_mode, exclusive, False, pooling_type)
    out = from_first(pool(xf, attrs), channel_last)
    if return_mask:
        return out, Tensor(mask(xf.data, attrs))
    return out


def max_pool2d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
               data_format="NCHW", name=None):
    """Max pooling over [N, C, H, W]; ``stride`` defaults to the kernel size."""
    channel_last = _check_format(data_format, 2)
    if channel_last and return_mask:
        raise ValueError("When setting return_mask to true, data_format must be set to NCHW in "
                         "API:max_pool2d")
    _check_input(x, 4)
    return _pool(x, kernel_size, stride, padding, ceil_mode, True, "max", channel_last,
                 return_mask)


def avg_pool2d(x, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
               divisor_override=None, data_format="NCHW", name=None):
    """Average pooling; ``exclusive`` (the default) divides by the window's elements inside the
    input, otherwise padding counts; ``divisor_override`` rescales the result."""
    channel_last = _check_format(data_format, 2)
    _check_input(x, 4)
    out = _pool(x, kernel_size, stride, padding, ceil_mode, exclusive, "avg", channel_last)
    return _override_divisor(out, kernel_size, divisor_override, 2)


def _expand_low_nd_padding(padding):
    if len(padding) == 2:
        return [0, 0] + list(padding)
    if len(padding) == 1:
        return [0] + list(padding)
    raise ValueError(f"The size of padding's dimension should be 1 or 2. But got "
                     f"padding={padding}")


def _pool1d(x, kernel_size, stride, padding, ceil_mode, exclusive, pooling_type, data_format,
            return_mask=False):
    from ...tensor.manipulation import squeeze, unsqueeze

    channel_last = _check_format(data_format, 1)
    _check_input(x, 3)
    k = [1] + convert_to_list(kernel_size, 1, "kernel_size")
    s = k if stride is None else [1] + convert_to_list(stride, 1, "pool_stride")
    padding, algorithm = update_padding_nd(padding, channel_last, 1, ceil_mode=bool(ceil_mode),
                                           check_negative=False)
    pad2 = algorithm if algorithm != "EXPLICIT" else _expand_low_nd_padding(padding)
    x4 = unsqueeze(x, [-3 if channel_last else -2])
    res = _pool(x4, k, s, pad2, ceil_mode, exclusive, pooling_type, channel_last, return_mask)
    axis = [-3 if channel_last else -2]
    if return_mask:
        return squeeze(res[0], axis), squeeze(res[1], axis)
    return squeeze(res, axis)


def max_pool1d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
               name=None):
    return _pool1d(x, kernel_size, stride, padding, ceil_mode, True, "max", "NCL", return_mask)


def avg_pool1d(x, kernel_size, stride=None, padding=0, exclusive=True, ceil_mode=False,
               name=None):
    return _pool1d(x, kernel_size, stride, padding, ceil_mode, exclusive, "avg", "NCL")


def _adaptive_size(output_size, in_hw):
    if isinstance(output_size, int):
        return convert_to_list(output_size, 2, "output_size")
    if isinstance(output_size, Tensor):
        output_size = [int(v) for v in output_size.data.reshape(-1)]
    out = list(output_size)
    for i in range(2):
        if out[i] is None:
            out[i] = in_hw[i]
        elif isinstance(out[i], Tensor):
            out[i] = int(out[i].data.reshape(-1)[0])
    return [int(v) for v in out]


def _adaptive(x, output_size, pooling_type, channel_last, return_mask=False):
    x4 = _to_nchw(x, channel_last)
    size = _adaptive_size(output_size, x4.data.shape[2:])
    _check_positive(size, "output_size")
    attrs = C.pool_attrs(size, adaptive=True, pooling_type=pooling_type)
    out = _from_nchw(C.pool2d(x4, attrs), channel_last)
    if return_mask:
        return out, Tensor(C.max_pool2d_mask(x4.data, attrs))
    return out


def adaptive_avg_pool2d(x, output_size, data_format="NCHW", name=None):
    """Average over adaptive windows [floor(i*H/out), ceil((i+1)*H/out)); ``None`` in
    ``output_size`` keeps that input size."""
    channel_last = _check_format(data_format, 2)
    _check_input(x, 4)
    return _adaptive(x, output_size, "avg", channel_last)


@_composes("max_pool2d_with_index")
def adaptive_max_pool2d(x, output_size, return_mask=False, name=None):
    _check_input(x, 4)
    return _adaptive(x, output_size, "max", False, return_mask)


def _adaptive1d(x, output_size, pooling_type, return_mask=False):
    from ...tensor.manipulation import squeeze, unsqueeze

    _check_input(x, 3)
    if not isinstance(output_size, int):
        output_size = convert_to_list(output_size, 1, "pool_size")[0]
    res = _adaptive(unsqueeze(x, [2]), [1, output_size], pooling_type, False, return_mask)
    if return_mask:
        return squeeze(res[0], [2]), squeeze(res[1], [2])
    return squeeze(res, [2])


def adaptive_avg_pool1d(x, output_size, name=None):
    return _adaptive1d(x, output_size, "avg")


def adaptive_max_pool1d(x, output_size, return_mask=False, name=None):
    return _adaptive1d(x, output_size, "max", return_mask)


# ---------------------------------------------------------------------- 3-D
def _check_pool3d_input(x, kernel_size):
    """Paddle checks this in the kernel's shape inference (InvalidArgument), not in Python."""
    if x.data.ndim != 5:
        shape = list(x.data.shape)
        raise ValueError(
            f"(InvalidArgument) the dimension of input minus the size of Attr(kernel_size_) must "
            f"be equal to 2 in Op(pool). But received: the dimension of input minus the size of "
            f"Attr(kernel_size_) is {x.data.ndim - 3}, the input's dimension is {x.data.ndim}, "
            f"the shape of input is {shape}, the Attr(kernel_size_)'s size is 3, the "
            f"Attr(kernel_size_) is {convert_to_list(kernel_size, 3, 'pool_size')}.")


def max_pool3d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
               data_format="NCDHW", name=None):
    """Max pooling over [N, C, D, H, W]; ``stride`` defaults to the kernel size."""
    channel_last = _check_format(data_format, 3)
    if channel_last and return_mask:
        raise ValueError("When setting return_mask to true, data_format must be set to NCDHW in "
                         "API:max_pool3d")
    _check_pool3d_input(x, kernel_size)
    return _pool(x, kernel_size, stride, padding, ceil_mode, True, "max", channel_last,
                 return_mask, nd=3)


def avg_pool3d(x, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
               divisor_override=None, data_format="NCDHW", name=None):
    """Average pooling over [N, C, D, H, W] (``exclusive``, ``divisor_override`` as 2-D)."""
    channel_last = _check_format(data_format, 3)
    _check_pool3d_input(x, kernel_size)
    out = _pool(x, kernel_size, stride, padding, ceil_mode, exclusive, "avg", channel_last,
                nd=3)
    return _override_divisor(out, kernel_size, divisor_override, 3)


def _adaptive3d(x, output_size, pooling_type, channel_last, return_mask=False):
    from .conv import _from_ncdhw, _to_ncdhw

    x5 = _to_ncdhw(x, channel_last)
    spatial = x5.data.shape[2:]
    if isinstance(output_size, int):
        size = [output_size] * 3
    else:
        if isinstance(output_size, Tensor):
            output_size = [int(v) for v in output_size.data.reshape(-1)]
        size = [spatial[i] if v is None else int(v.data.reshape(-1)[0])
                if isinstance(v, Tensor) else int(v) for i, v in enumerate(output_size)]
    _check_positive(size, "output_size")
    attrs = P3.pool3d_attrs(size, adaptive=True, pooling_type=pooling_type)
    out = _from_ncdhw(P3.pool3d(x5, attrs), channel_last)
    if return_mask:
        return out, Tensor(P3.max_pool3d_mask(x5.data, attrs))
    return out


def adaptive_avg_pool3d(x, output_size, data_format="NCDHW", name=None):
    channel_last = _check_format(data_format, 3)
    _check_input(x, 5)
    return _adaptive3d(x, output_size, "avg", channel_last)


def adaptive_max_pool3d(x, output_size, return_mask=False, name=None):
    _check_input(x, 5)
    return _adaptive3d(x, output_size, "max", False, return_mask)


# ---------------------------------------------------------------------- max unpooling
def _unpool_output_size(x, kernel_size, stride, padding, output_size):
    if not (output_size is None or isinstance(output_size, (list, tuple))):
        raise AssertionError(f"Required output_size is None|list|tuple, but received "
                             f"{output_size}")
    shape = x.data.shape
    nd = len(kernel_size)
    default = [(shape[-nd + d] - 1) * stride[d] + kernel_size[d] - 2 * padding[d]
               for d in range(nd)]
    if output_size is None:
        return default
    output_size = [int(v.data.reshape(-1)[0]) if isinstance(v, Tensor) else int(v)
                   for v in output_size]
    if len(output_size) == nd + 2:
        output_size = output_size[2:]
    if len(output_size) != nd:
        raise ValueError(f"output_size should be a sequence containing {nd} or {nd + 2} "
                         f"elements, but it has a length of '{len(output_size)}'")
    for d in range(nd):
        lo, hi = default[d] - stride[d], default[d] + stride[d]
        if not lo < output_size[d] < hi:
            raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between '
                             f'{lo} and {hi})')
    return output_size


def _max_unpool(x, indices, kernel_size, stride, padding, output_size, nd):
    from ....engine.ops import unpool as U

    kernel_size = convert_to_list(kernel_size, nd, "pool_size")
    stride = kernel_size if stride is None else convert_to_list(stride, nd, "pool_stride")
    padding = convert_to_list(padding, nd, "padding")
    size = _unpool_output_size(x, kernel_size, stride, padding, output_size)
    return U.unpool(x, indices, size)


_UNPOOL_LAYOUT = {2: ("NCHW", "[N, C, H, W]"), 3: ("NCDHW", "[N, C, D, H, W]")}


def _check_unpool(x, indices, data_format, nd):
    fmt, layout = _UNPOOL_LAYOUT[nd]
    if x.data.ndim != nd + 2:
        raise ValueError(f"The x should have {layout} format, but received {x.shape}.")
    if indices.data.ndim != nd + 2:
        raise ValueError(f"The indices should have {layout} format, but received "
                         f"{indices.shape}.")
    if data_format != fmt:
        raise ValueError(f"Attr(data_format) should be '{fmt}'. Received Attr(data_format): "
                         f"{data_format}.")


def max_unpool2d(x, indices, kernel_size, stride=None, padding=0, data_format="NCHW",
                 output_size=None, name=None):
    """The inverse of ``max_pool2d(..., return_mask=True)``: each value written at its index
    into zeros of size (H_in - 1) * stride + kernel - 2 * padding (or ``output_size``)."""
    _check_unpool(x, indices, data_format, 2)
    return _max_unpool(x, indices, kernel_size, stride, padding, output_size, 2)


def max_unpool3d(x, indices, kernel_size, stride=None, padding=0, data_format="NCDHW",
                 output_size=None, name=None):
    _check_unpool(x, indices, data_format, 3)
    return _max_unpool(x, indices, kernel_size, stride, padding, output_size, 3)


def max_unpool1d(x, indices, kernel_size, stride=None, padding=0, data_format="NCL",
                 output_size=None, name=None):
    if data_format != "NCL":
        raise ValueError(f"Attr(data_format) should be 'NCL'. Received Attr(data_format): "
                         f"{data_format}.")
    if output_size is not None:  # Paddle inserts the height: [N, C, L] -> [N, C, 1, L]
        output_size = list(output_size)[:2] + [1] + list(output_size)[2:]
    kernel_size = convert_to_list(kernel_size, 1, "pool_size")[0]
    stride = kernel_size if stride is None else convert_to_list(stride, 1, "pool_stride")[0]
    padding = convert_to_list(padding, 1, "padding")[0]
    from ....engine.ops import unpool as U
    from ...tensor.manipulation import squeeze, unsqueeze

    x4, i4 = unsqueeze(x, [2]), unsqueeze(indices, [2])
    size = _unpool_output_size(x4, [1, kernel_size], [1, stride], [0, padding], output_size)
    return squeeze(U.unpool(x4, i4, size), [2])


# ---------------------------------------------------------------------- power-average pooling
def lp_pool2d(x, norm_type, kernel_size, stride=None, padding=0, ceil_mode=False,
              data_format="NCHW", name=None):
    """``(sum over the window of x**norm_type) ** (1/norm_type)`` (Paddle's lp pool kernel)."""
    from ....engine.ops import lp_pool as LP

    _check_input(x, 4)
    if norm_type == 0:
        raise ValueError("`norm_type` cannot be 0.")
    kernel_size = convert_to_list(kernel_size, 2, "pool_size")
    stride = kernel_size if stride is None else convert_to_list(stride, 2, "pool_stride")
    _check_positive(kernel_size, "kernel_size")
    _check_positive(stride, "stride")
    channel_last = _check_format(data_format, 2)
    padding, algorithm = update_padding_nd(padding, channel_last, 2, ceil_mode=bool(ceil_mode),
                                           check_negative=False)
    x4 = _to_nchw(x, channel_last)
    pads, _ = explicit_pads(padding, algorithm, x4.data.shape[2:], kernel_size, stride)
    out = LP.lp_pool2d(x4, kernel_size, stride, pads, ceil_mode, float(norm_type))
    return _from_nchw(out, channel_last)


def lp_pool1d(x, norm_type, kernel_size, stride=None, padding=0, ceil_mode=False,
              data_format="NCL", name=None):
    from ...tensor.manipulation import squeeze, unsqueeze

    channel_last = _check_format(data_format, 1)
    _check_input(x, 3)
    axis = 1 if channel_last else 2
    k = [1] + convert_to_list(kernel_size, 1, "kernel_size")
    s = k if stride is None else [1] + convert_to_list(stride, 1, "pool_stride")
    padding, algorithm = update_padding_nd(padding, channel_last, 1, ceil_mode=bool(ceil_mode),
                                           check_negative=False)
    pad2 = algorithm if algorithm != "EXPLICIT" else _expand_low_nd_padding(padding)
    out = lp_pool2d(unsqueeze(x, [axis]), norm_type, k, s, pad2, ceil_mode,
                    "NHWC" if channel_last else "NCHW")
    return squeeze(out, [axis])
