"""SqueezeNet 1.0 / 1.1 as in ``paddle.vision.models.squeezenet``: fire modules (a 1x1 squeeze,
then 1x1 and 3x3 expansions concatenated), a 1x1 convolution as classifier."""
from __future__ import annotations

from ... import nn
from ...nn import functional as F
from ...tensor.manipulation import concat, squeeze
from ._pretrained import refuse_pretrained

__all__ = ["SqueezeNet", "squeezenet1_0", "squeezenet1_1"]

_FIRES = [(16, 64, 64), (16, 64, 64), (32, 128, 128), (32, 128, 128), (48, 192, 192),
          (48, 192, 192), (64, 256, 256), (64, 256, 256)]
# the fire modules after which max pooling runs (besides the stem's)
_POOL_AFTER = {"1.0": (3, 7), "1.1": (2, 4)}


class MakeFireConv(nn.Layer):
    def __init__(self, input_channels, output_channels, filter_size, padding=0):
        super().__init__()
        self._conv = nn.Conv2D(input_channels, output_channels, filter_size, padding=padding)

    def forward(self, x):
        return F.relu(self._conv(x))


class MakeFire(nn.Layer):
    def __init__(self, input_channels, squeeze_channels, expand1x1_channels,
                 expand3x3_channels):
        super().__init__()
        self._conv = MakeFireConv(input_channels, squeeze_channels, 1)
        self._conv_path1 = MakeFireConv(squeeze_channels, expand1x1_channels, 1)
        self._conv_path2 = MakeFireConv(squeeze_channels, expand3x3_channels, 3, padding=1)

    def forward(self, inputs):
        x = self._conv(inputs)
        return concat([self._conv_path1(x), self._conv_path2(x)], axis=1)


class SqueezeNet(nn.Layer):
    """SqueezeNet ``version`` '1.0' or '1.1'."""

    def __init__(self, version, num_classes=1000, with_pool=True):
        super().__init__()
        self.version = version
        self.num_classes = num_classes
        self.with_pool = with_pool
        supported = ["1.0", "1.1"]
        assert version in supported, \
            f"supported versions are {supported} but input version is {version}"
        if version == "1.0":
            self._conv = nn.Conv2D(3, 96, 7, stride=2)
        else:
            self._conv = nn.Conv2D(3, 64, 3, stride=2, padding=1)
        self._pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=0)
        cin = 96 if version == "1.0" else 64
        for i, (sq, e1, e3) in enumerate(_FIRES, start=1):
            setattr(self, f"_conv{i}", MakeFire(cin, sq, e1, e3))
            cin = e1 + e3
        self._drop = nn.Dropout(p=0.5, mode="downscale_in_infer")
        self._conv9 = nn.Conv2D(512, num_classes, 1)
        self._avg_pool = nn.AdaptiveAvgPool2D(1)

    def forward(self, inputs):
        x = self._pool(F.relu(self._conv(inputs)))
        pools = _POOL_AFTER[self.version]
        for i in range(1, 9):
            x = getattr(self, f"_conv{i}")(x)
            if i in pools:
                x = self._pool(x)
        if self.num_classes > 0:
            x = self._conv9(self._drop(x))
        if self.with_pool:
            x = squeeze(self._avg_pool(F.relu(x)), axis=[2, 3])
        return x


def _squeezenet(arch, version, pretrained, **kwargs):
    if pretrained:
        refuse_pretrained(arch, ("squeezenet1_0", "squeezenet1_1"))
    return SqueezeNet(version, **kwargs)


def squeezenet1_0(pretrained=False, **kwargs):
    """SqueezeNet 1.0; ``pretrained=True`` refuses (gradrepl downloads no weights)."""
    return _squeezenet("squeezenet1_0", "1.0", pretrained, **kwargs)


def squeezenet1_1(pretrained=False, **kwargs):
    """SqueezeNet 1.1; ``pretrained=True`` refuses (gradrepl downloads no weights)."""
    return _squeezenet("squeezenet1_1", "1.1", pretrained, **kwargs)
