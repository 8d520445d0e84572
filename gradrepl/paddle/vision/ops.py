"""``paddle.vision.ops``: ConvNormActivation (a convolution, a norm layer and an activation in
one Sequential), the building block of the MobileNets."""
from __future__ import annotations

from .. import nn

from .detection import (box_coder, distribute_fpn_proposals, generate_proposals,  # noqa: F401
                        matrix_nms, nms, prior_box, psroi_pool, roi_align, roi_pool,
                        yolo_box, yolo_loss)

__all__ = ["ConvNormActivation", "yolo_box", "yolo_loss", "nms", "roi_align", "roi_pool",
           "psroi_pool", "box_coder", "prior_box", "generate_proposals", "matrix_nms",
           "distribute_fpn_proposals"]


class ConvNormActivation(nn.Sequential):
    """Conv2D (padding keeps the size at stride 1; a bias only without a norm layer), then
    ``norm_layer(out_channels)`` and ``activation_layer()`` unless they are None."""

    def __init__(self, in_channels, out_channels, kernel_size=3, stride=1, padding=None,
                 groups=1, norm_layer=nn.BatchNorm2D, activation_layer=nn.ReLU, dilation=1,
                 bias=None):
        if padding is None:
            padding = (kernel_size - 1) // 2 * dilation
        if bias is None:
            bias = norm_layer is None
        layers = [nn.Conv2D(in_channels, out_channels, kernel_size, stride, padding,
                            dilation=dilation, groups=groups, bias_attr=bias)]
        if norm_layer is not None:
            layers.append(norm_layer(out_channels))
        if activation_layer is not None:
            layers.append(activation_layer())
        super().__init__(*layers)


class RoIPool(nn.Layer):
    """``roi_pool`` as a layer (output_size, spatial_scale kept; Paddle's repr)."""

    def __init__(self, output_size, spatial_scale=1.0):
        super().__init__()
        self._output_size = output_size
        self._spatial_scale = spatial_scale

    def forward(self, x, boxes, boxes_num):
        return roi_pool(x=x, boxes=boxes, boxes_num=boxes_num, output_size=self._output_size,
                        spatial_scale=self._spatial_scale)

    def extra_repr(self):
        return f"output_size={self._output_size}, spatial_scale={self._spatial_scale}"


class RoIAlign(nn.Layer):
    """``roi_align`` as a layer (Paddle's has no extra_repr)."""

    def __init__(self, output_size, spatial_scale=1.0):
        super().__init__()
        self._output_size = output_size
        self._spatial_scale = spatial_scale

    def forward(self, x, boxes, boxes_num, aligned=True):
        return roi_align(x=x, boxes=boxes, boxes_num=boxes_num, output_size=self._output_size,
                         spatial_scale=self._spatial_scale, aligned=aligned)


class PSRoIPool(nn.Layer):
    """``psroi_pool`` as a layer (Paddle's has no extra_repr)."""

    def __init__(self, output_size, spatial_scale=1.0):
        super().__init__()
        self.output_size = output_size
        self.spatial_scale = spatial_scale

    def forward(self, x, boxes, boxes_num):
        return psroi_pool(x, boxes, boxes_num, self.output_size, self.spatial_scale)


def deform_conv2d(x, offset, weight, bias=None, stride=1, padding=0, dilation=1,
                  deformable_groups=1, groups=1, mask=None, name=None):
    """Deformable convolution (v1 without ``mask``, v2 with it): Paddle's CPU kernels
    (``engine/ops/deform_conv.py``), the bias added along the channels afterwards as Paddle
    does."""
    from ...engine.ops import deform_conv as _dc
    from ..nn.functional.conv import _add_bias, convert_to_list

    stride = convert_to_list(stride, 2, "stride")
    padding = convert_to_list(padding, 2, "padding")
    dilation = convert_to_list(dilation, 2, "dilation")
    if mask is None:  # v1: a mask of ones (every product by it exact: the same bits)
        from ..tensor.creation import ones

        mask = ones([offset.shape[0], offset.shape[1] // 2, offset.shape[2], offset.shape[3]],
                    dtype=x.dtype)
    out = _dc.deform_conv2d(x, offset, weight, mask, stride=tuple(stride),
                            padding=tuple(padding), dilation=tuple(dilation),
                            deformable_groups=int(deformable_groups), groups=int(groups))
    return _add_bias(out, bias)


class DeformConv2D(nn.Layer):
    """A deformable convolution layer: its filter drawn from Normal(0, sqrt(2 / (k*k*C_in))),
    its bias zeros, as Paddle's."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 deformable_groups=1, groups=1, weight_attr=None, bias_attr=None):
        from ..nn.functional.conv import convert_to_list
        from ..nn.initializer import Normal

        super().__init__()
        assert weight_attr is not False, "weight_attr should not be False in Conv."
        self._weight_attr = weight_attr
        self._bias_attr = bias_attr
        self._deformable_groups = deformable_groups
        self._groups = groups
        self._in_channels = in_channels
        self._out_channels = out_channels
        self._channel_dim = 1
        self._stride = convert_to_list(stride, 2, "stride")
        self._dilation = convert_to_list(dilation, 2, "dilation")
        self._kernel_size = convert_to_list(kernel_size, 2, "kernel_size")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups.")
        self._padding = convert_to_list(padding, 2, "padding")
        filter_shape = [out_channels, in_channels // groups] + self._kernel_size
        std = (2.0 / (self._kernel_size[0] * self._kernel_size[1] * in_channels)) ** 0.5
        self.weight = self.create_parameter(shape=filter_shape, attr=self._weight_attr,
                                            default_initializer=Normal(0.0, std))
        self.bias = self.create_parameter(attr=self._bias_attr, shape=[self._out_channels],
                                          is_bias=True)

    def forward(self, x, offset, mask=None):
        return deform_conv2d(x=x, offset=offset, weight=self.weight, bias=self.bias,
                             stride=self._stride, padding=self._padding,
                             dilation=self._dilation, deformable_groups=self._deformable_groups,
                             groups=self._groups, mask=mask)


for _cls in (RoIPool, RoIAlign, PSRoIPool, DeformConv2D):
    _cls.__module__ = "paddle.vision.ops"
__all__ += ["RoIPool", "RoIAlign", "PSRoIPool", "DeformConv2D", "deform_conv2d"]

from ..names_gate import gate as _gate  # noqa: E402  (the names of the emulated version)

_gate(__name__)
