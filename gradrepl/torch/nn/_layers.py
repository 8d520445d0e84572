"""The image layers of ``torch.nn``: ``Conv2d``, the pools, ``BatchNorm1d``/``2d``,
``Dropout2d``; torch's default initialisation (kaiming_uniform_ with a=sqrt(5), drawn from the
torch generator) and torch's reprs."""
from __future__ import annotations

import math

import numpy as np

from .. import _dtypes, _ops
from .._tensor import Tensor
from . import _spatial as S
from . import functional as F
from . import init
from .modules import Module
from .parameter import Parameter


def _tuple(v, n=2):
    return tuple(int(x) for x in v) if isinstance(v, (list, tuple)) else (int(v),) * n


def _np_dtype(dtype):
    return _dtypes.to_np(dtype) if dtype is not None else _dtypes.default_float()


class _ConvNd(Module):
    _n = 2

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, bias=True, padding_mode="zeros", device=None,
                 dtype=None):
        super().__init__()
        n = self._n
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of "
                                 "{'valid', 'same'}")
            if padding == "same" and any(s != 1 for s in _tuple(stride, n)):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode != "zeros":
            raise NotImplementedError(f"padding_mode={padding_mode!r} is not supported by "
                                      "gradrepl")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = _tuple(kernel_size, n)
        self.stride = _tuple(stride, n)
        self.padding = padding if isinstance(padding, str) else _tuple(padding, n)
        self.dilation = _tuple(dilation, n)
        self.transposed = False
        self.output_padding = (0,) * n
        self.groups = groups
        self.padding_mode = padding_mode
        dt = _np_dtype(dtype)
        shape = (out_channels, in_channels // groups) + self.kernel_size
        self.weight = Parameter(Tensor._wrap(np.zeros(shape, dt)))
        if bias:
            self.bias = Parameter(Tensor._wrap(np.zeros((out_channels,), dt)))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self):
        n = self._n
        s = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
             f"stride={self.stride}")
        if self.padding != (0,) * n:
            s += f", padding={self.padding}"
        if self.dilation != (1,) * n:
            s += f", dilation={self.dilation}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        return s


class Conv2d(_ConvNd):
    """2-D convolution over (N, C, H, W) input."""

    def forward(self, input):  # noqa: A002
        return S.conv2d(input, self.weight, self.bias, self.stride, self.padding,
                        self.dilation, self.groups)


class Conv1d(_ConvNd):
    """1-D convolution over (N, C, L) input (a 2-D one of height 1)."""
    _n = 1

    def forward(self, input):  # noqa: A002
        x = _ops.unsqueeze(input, -2)
        w = _ops.unsqueeze(self.weight, -2)
        pad = self.padding if isinstance(self.padding, str) else (0, self.padding[0])
        out = S.conv2d(x, w, self.bias, (1, self.stride[0]), pad, (1, self.dilation[0]),
                       self.groups)
        return _ops.squeeze(out, -2)


# ------------------------------------------------------------------------------ pools
class MaxPool2d(Module):
    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def forward(self, input):  # noqa: A002
        return S.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            self.ceil_mode, self.return_indices)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class MaxPool1d(MaxPool2d):
    def forward(self, input):  # noqa: A002
        return S.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            self.ceil_mode, self.return_indices)


class AvgPool2d(Module):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input):  # noqa: A002
        return S.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class _AdaptivePool(Module):
    def __init__(self, output_size, *args):
        super().__init__()
        self.output_size = tuple(output_size) if isinstance(output_size, list) else output_size

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveAvgPool2d(_AdaptivePool):
    def forward(self, input):  # noqa: A002
        return S.adaptive_avg_pool2d(input, self.output_size)


class AdaptiveMaxPool2d(_AdaptivePool):
    def __init__(self, output_size, return_indices=False):
        super().__init__(output_size)
        self.return_indices = return_indices

    def forward(self, input):  # noqa: A002
        return S.adaptive_max_pool2d(input, self.output_size, self.return_indices)


# ------------------------------------------------------------------------------ batch norm
class _BatchNorm(Module):
    _dims: tuple = ()

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, device=None, dtype=None):
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        dt = _np_dtype(dtype)
        if affine:
            self.weight = Parameter(Tensor._wrap(np.ones(num_features, dt)))
            self.bias = Parameter(Tensor._wrap(np.zeros(num_features, dt)))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", Tensor._wrap(np.zeros(num_features, dt)))
            self.register_buffer("running_var", Tensor._wrap(np.ones(num_features, dt)))
            self.register_buffer("num_batches_tracked",
                                 Tensor._wrap(np.zeros((), np.int64)))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)

    def reset_running_stats(self):
        if self.track_running_stats:
            self.running_mean.data[...] = 0
            self.running_var.data[...] = 1
            self.num_batches_tracked.data[...] = 0

    def reset_parameters(self):
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            init.zeros_(self.bias)

    def _check_input_dim(self, input):  # noqa: A002
        nd = input.dim()
        if nd not in self._dims:
            want = " or ".join(f"{d}D" for d in self._dims)
            raise ValueError(f"expected {want} input (got {nd}D input)")

    def forward(self, input):  # noqa: A002
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            nbt = self.num_batches_tracked
            nbt.data[...] = nbt.data + 1
            nbt._version += 1
            factor = 1.0 / float(nbt.data) if self.momentum is None else self.momentum
        bn_training = self.training or (self.running_mean is None and self.running_var is None)
        keep = not self.training or self.track_running_stats
        return S.batch_norm(input, self.running_mean if keep else None,
                            self.running_var if keep else None, self.weight, self.bias,
                            bn_training, factor, self.eps)

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.affine}, "
                f"track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    _dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    _dims = (4,)


class Dropout2d(Module):
    """Zeroes whole channels with probability p (training), scaling the rest by 1/(1-p)."""

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input):  # noqa: A002
        return F.dropout2d(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class AvgPool1d(Module):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True):
        super().__init__()
        self.kernel_size = _tuple(kernel_size, 1)
        self.stride = _tuple(stride if stride is not None else kernel_size, 1)
        self.padding = _tuple(padding, 1)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input):  # noqa: A002
        return S.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class LayerNorm(Module):
    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True,
                 device=None, dtype=None):
        super().__init__()
        self.normalized_shape = tuple(normalized_shape) \
            if isinstance(normalized_shape, (list, tuple)) else (int(normalized_shape),)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        dt = _np_dtype(dtype)
        if elementwise_affine:
            self.weight = Parameter(Tensor._wrap(np.ones(self.normalized_shape, dt)))
            if bias:
                self.bias = Parameter(Tensor._wrap(np.zeros(self.normalized_shape, dt)))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, input):  # noqa: A002
        return S.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}")
