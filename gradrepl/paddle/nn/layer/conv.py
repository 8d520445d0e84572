"""Conv1D, Conv2D and their transposes, printed as Paddle prints them
(``Conv2D(3, 64, kernel_size=[3, 3], padding=1, data_format=NCHW)``)."""
from __future__ import annotations

import re

import numpy as np

from .. import functional as F
from ..functional.conv import convert_to_list, update_padding_nd
from .layers import Layer

__all__ = ["Conv1D", "Conv2D", "Conv3D", "Conv1DTranspose", "Conv2DTranspose",
           "Conv3DTranspose"]


_FIRST_CAP = re.compile("(.)([A-Z][a-z]+)")
_ALL_CAP = re.compile("([a-z])([A-Z])")


def paddle_snake(name):
    """Paddle's ``_convert_camel_to_snake`` (a digit before a capital is not split:
    ``Conv2D`` -> ``conv2d``, ``BatchNorm2D`` -> ``batch_norm2d``): the layer's name scope."""
    return _ALL_CAP.sub(r"\1_\2", _FIRST_CAP.sub(r"\1_\2", name)).lower()


def _reverse_repeat_list(t, n):
    return [x for x in reversed(t) for _ in range(n)]


class _ConvNd(Layer):
    def __init__(self, in_channels, out_channels, kernel_size, transposed, dims, stride=1,
                 padding=0, padding_mode="zeros", output_padding=0, dilation=1, groups=1,
                 weight_attr=None, bias_attr=None, data_format="NCHW"):
        super().__init__(name_scope=paddle_snake(type(self).__name__))
        if weight_attr is False:
            raise AssertionError("weight_attr should not be False in Conv.")
        self._param_attr = weight_attr
        self._bias_attr = bias_attr
        self._groups = groups
        self._in_channels = in_channels
        self._out_channels = out_channels
        self._data_format = data_format
        modes = {"zeros", "reflect", "replicate", "circular"}
        if padding_mode not in modes:
            raise ValueError(f"padding_mode must be one of {modes}, but got "
                             f"padding_mode='{padding_mode}'")
        if padding_mode in {"reflect", "replicate", "circular"} and not isinstance(padding, int):
            raise TypeError("when padding_mode in ['reflect', 'replicate', 'circular'], type of "
                            "padding must be int")
        valid_format = {"NHWC", "NCHW", "NDHWC", "NCDHW", "NLC", "NCL"}
        if data_format not in valid_format:
            raise ValueError(f"data_format must be one of {valid_format}, but got "
                             f"data_format='{data_format}'")
        channel_last = data_format in ("NHWC", "NDHWC", "NLC")
        self._channel_dim = len(data_format) - 1 if channel_last else 1
        self._stride = convert_to_list(stride, dims, "stride")
        self._dilation = convert_to_list(dilation, dims, "dilation")
        self._kernel_size = convert_to_list(kernel_size, dims, "kernel_size")
        self._padding = padding
        self._padding_mode = padding_mode
        self.output_padding = output_padding
        if dims != 1:
            self._updated_padding, self._padding_algorithm = update_padding_nd(
                padding, channel_last, dims)
        if transposed:
            filter_shape = [self._in_channels, out_channels // groups] + self._kernel_size
        else:
            if in_channels % groups != 0:
                raise ValueError("in_channels must be divisible by groups.")
            if padding_mode in {"reflect", "replicate", "circular"}:
                paired = convert_to_list(padding, dims, "padding")
                self._reversed_padding_repeated_twice = _reverse_repeat_list(paired, 2)
            filter_shape = [out_channels, in_channels // groups] + self._kernel_size

        def _default_init():
            if transposed:
                return None
            from ..initializer import Normal

            filter_elem_num = np.prod(self._kernel_size) * self._in_channels
            return Normal(0.0, (2.0 / filter_elem_num) ** 0.5)

        self.weight = self.create_parameter(shape=filter_shape, attr=self._param_attr,
                                            default_initializer=_default_init())
        self.bias = self.create_parameter(attr=self._bias_attr, shape=[self._out_channels],
                                          is_bias=True)

    def _conv_padding(self):
        return 0 if self._padding_mode != "zeros" else self._padding

    _functional = None  # the F function a forward calls (conv2d, conv3d_transpose, ...)

    def _padded(self, x):
        if self._padding_mode == "zeros":
            return x
        return F.pad(x, self._reversed_padding_repeated_twice, mode=self._padding_mode,
                     data_format=self._data_format)

    def extra_repr(self):
        main_str = "{_in_channels}, {_out_channels}, kernel_size={_kernel_size}"
        if self._stride != [1] * len(self._stride):
            main_str += ", stride={_stride}"
        if self._padding != 0:
            main_str += ", padding={_padding}"
        if self._padding_mode != "zeros":
            main_str += ", padding_mode={_padding_mode}"
        if self.output_padding != 0:
            main_str += ", output_padding={output_padding}"
        if self._dilation != [1] * len(self._dilation):
            main_str += ", dilation={_dilation}"
        if self._groups != 1:
            main_str += ", groups={_groups}"
        main_str += ", data_format={_data_format}"
        return main_str.format(**self.__dict__)


class _Conv(_ConvNd):
    def forward(self, x):
        return getattr(F, self._functional)(
            self._padded(x), self.weight, bias=self.bias, stride=self._stride,
            padding=self._conv_padding(), dilation=self._dilation, groups=self._groups,
            data_format=self._data_format)


class _ConvTranspose(_ConvNd):
    _size_drops_output_padding = True  # an output_size given: output_padding 0 (2-D, 3-D)

    def forward(self, x, output_size=None):
        output_padding = self.output_padding
        if output_size is not None and self._size_drops_output_padding:
            output_padding = 0
        return getattr(F, self._functional)(
            x, self.weight, bias=self.bias, padding=self._padding,
            output_padding=output_padding, stride=self._stride, dilation=self._dilation,
            groups=self._groups, output_size=output_size, data_format=self._data_format)


class Conv1D(_Conv):
    """1-D convolution over [N, C, L] (``data_format='NCL'``) with weight [M, C/groups, K]."""

    _functional = "conv1d"

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, padding_mode="zeros", weight_attr=None, bias_attr=None,
                 data_format="NCL"):
        super().__init__(in_channels, out_channels, kernel_size, False, 1, stride=stride,
                         padding=padding, padding_mode=padding_mode, dilation=dilation,
                         groups=groups, weight_attr=weight_attr, bias_attr=bias_attr,
                         data_format=data_format)


class Conv2D(_Conv):
    """2-D convolution over [N, C, H, W] with weight [M, C/groups, KH, KW] (He-normal init,
    std sqrt(2 / (C * KH * KW)), as Paddle) and bias [M] (zeros)."""

    _functional = "conv2d"

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, padding_mode="zeros", weight_attr=None, bias_attr=None,
                 data_format="NCHW"):
        super().__init__(in_channels, out_channels, kernel_size, False, 2, stride=stride,
                         padding=padding, padding_mode=padding_mode, dilation=dilation,
                         groups=groups, weight_attr=weight_attr, bias_attr=bias_attr,
                         data_format=data_format)


class Conv1DTranspose(_ConvTranspose):
    _functional = "conv1d_transpose"
    _size_drops_output_padding = False

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, dilation=1, weight_attr=None, bias_attr=None,
                 data_format="NCL"):
        super().__init__(in_channels, out_channels, kernel_size, True, 1, stride=stride,
                         padding=padding, dilation=dilation, output_padding=output_padding,
                         groups=groups, weight_attr=weight_attr, bias_attr=bias_attr,
                         data_format=data_format)


class Conv2DTranspose(_ConvTranspose):
    """Transposed 2-D convolution with weight [C, M/groups, KH, KW] (Xavier-uniform init)."""

    _functional = "conv2d_transpose"

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, dilation=1, groups=1, weight_attr=None, bias_attr=None,
                 data_format="NCHW"):
        super().__init__(in_channels, out_channels, kernel_size, True, 2, stride=stride,
                         padding=padding, dilation=dilation, output_padding=output_padding,
                         groups=groups, weight_attr=weight_attr, bias_attr=bias_attr,
                         data_format=data_format)


class Conv3D(_Conv):
    """3-D convolution over [N, C, D, H, W] with weight [M, C/groups, KD, KH, KW] (He-normal
    init, as Conv2D) and bias [M]."""

    _functional = "conv3d"

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, padding_mode="zeros", weight_attr=None, bias_attr=None,
                 data_format="NCDHW"):
        super().__init__(in_channels, out_channels, kernel_size, False, 3, stride=stride,
                         padding=padding, padding_mode=padding_mode, dilation=dilation,
                         groups=groups, weight_attr=weight_attr, bias_attr=bias_attr,
                         data_format=data_format)


class Conv3DTranspose(_ConvTranspose):
    """Transposed 3-D convolution with weight [C, M/groups, KD, KH, KW]."""

    _functional = "conv3d_transpose"

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, dilation=1, groups=1, weight_attr=None, bias_attr=None,
                 data_format="NCDHW"):
        super().__init__(in_channels, out_channels, kernel_size, True, 3, stride=stride,
                         padding=padding, dilation=dilation, output_padding=output_padding,
                         groups=groups, weight_attr=weight_attr, bias_attr=bias_attr,
                         data_format=data_format)