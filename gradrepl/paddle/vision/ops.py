"""``paddle.vision.ops``: ConvNormActivation (a convolution, a norm layer and an activation in
one Sequential), the building block of the MobileNets."""
from __future__ import annotations

from .. import nn

from .detection import (box_coder, generate_proposals, nms, prior_box, psroi_pool,  # noqa: F401
                        roi_align, roi_pool, yolo_box, yolo_loss)

__all__ = ["ConvNormActivation", "yolo_box", "yolo_loss", "nms", "roi_align", "roi_pool",
           "psroi_pool", "box_coder", "prior_box", "generate_proposals"]


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


for _cls in (RoIPool, RoIAlign, PSRoIPool):
    _cls.__module__ = "paddle.vision.ops"
__all__ += ["RoIPool", "RoIAlign", "PSRoIPool"]

from ..names_gate import gate as _gate  # noqa: E402  (the names of the emulated version)

_gate(__name__)
