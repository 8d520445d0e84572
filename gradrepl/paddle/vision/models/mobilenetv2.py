"""MobileNetV2 as in ``paddle.vision.models.mobilenetv2``: inverted residual blocks (1x1
expansion, 3x3 depthwise, 1x1 linear projection; ReLU6), channels rounded to multiples of 8."""
from __future__ import annotations

from ... import nn
from ...tensor.manipulation import flatten
from ..ops import ConvNormActivation
from ._pretrained import refuse_pretrained
from ._utils import _make_divisible

__all__ = ["MobileNetV2", "mobilenet_v2"]

# expansion t, channels c, repeats n, first stride s
_SETTING = [[1, 16, 1, 1], [6, 24, 2, 2], [6, 32, 3, 2], [6, 64, 4, 2], [6, 96, 3, 1],
            [6, 160, 3, 2], [6, 320, 1, 1]]


class InvertedResidual(nn.Layer):
    def __init__(self, inp, oup, stride, expand_ratio, norm_layer=nn.BatchNorm2D):
        super().__init__()
        self.stride = stride
        assert stride in [1, 2]
        hidden = int(round(inp * expand_ratio))
        self.use_res_connect = stride == 1 and inp == oup
        layers = []
        if expand_ratio != 1:
            layers.append(ConvNormActivation(inp, hidden, kernel_size=1, norm_layer=norm_layer,
                                             activation_layer=nn.ReLU6))
        layers += [ConvNormActivation(hidden, hidden, stride=stride, groups=hidden,
                                      norm_layer=norm_layer, activation_layer=nn.ReLU6),
                   nn.Conv2D(hidden, oup, 1, 1, 0, bias_attr=False), norm_layer(oup)]
        self.conv = nn.Sequential(*layers)

    def forward(self, x):
        return x + self.conv(x) if self.use_res_connect else self.conv(x)


class MobileNetV2(nn.Layer):
    """MobileNetV2 with width multiplier ``scale``."""

    def __init__(self, scale=1.0, num_classes=1000, with_pool=True):
        super().__init__()
        self.num_classes = num_classes
        self.with_pool = with_pool
        norm = nn.BatchNorm2D
        cin = _make_divisible(32 * scale, 8)
        self.last_channel = _make_divisible(1280 * max(1.0, scale), 8)
        features = [ConvNormActivation(3, cin, stride=2, norm_layer=norm,
                                       activation_layer=nn.ReLU6)]
        for t, c, n, s in _SETTING:
            cout = _make_divisible(c * scale, 8)
            for i in range(n):
                features.append(InvertedResidual(cin, cout, s if i == 0 else 1, expand_ratio=t,
                                                 norm_layer=norm))
                cin = cout
        features.append(ConvNormActivation(cin, self.last_channel, kernel_size=1,
                                           norm_layer=norm, activation_layer=nn.ReLU6))
        self.features = nn.Sequential(*features)
        if with_pool:
            self.pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self.classifier = nn.Sequential(nn.Dropout(0.2),
                                            nn.Linear(self.last_channel, num_classes))

    def forward(self, x):
        x = self.features(x)
        if self.with_pool:
            x = self.pool2d_avg(x)
        if self.num_classes > 0:
            x = self.classifier(flatten(x, 1))
        return x


def mobilenet_v2(pretrained=False, scale=1.0, **kwargs):
    """MobileNetV2; ``pretrained=True`` refuses (gradrepl downloads no weights)."""
    if pretrained:
        refuse_pretrained("mobilenetv2_" + str(scale), ("mobilenetv2_1.0",))
    return MobileNetV2(scale=scale, **kwargs)
