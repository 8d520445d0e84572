"""AlexNet as in ``paddle.vision.models.alexnet``: five convolutions (three followed by max
pooling), three fully connected layers; every weight and bias starts Uniform(-1/sqrt(fan_in),
1/sqrt(fan_in)); dropout 'downscale_in_infer'."""
from __future__ import annotations

import math

from ... import ParamAttr, nn
from ...nn import functional as F
from ...nn.initializer import Uniform
from ...tensor.manipulation import flatten
from ._pretrained import refuse_pretrained

__all__ = ["AlexNet", "alexnet"]


def _uniform(fan_in):
    stdv = 1.0 / math.sqrt(fan_in)
    return (ParamAttr(initializer=Uniform(-stdv, stdv)),
            ParamAttr(initializer=Uniform(-stdv, stdv)))


class ConvPoolLayer(nn.Layer):
    def __init__(self, input_channels, output_channels, filter_size, stride, padding, stdv,
                 groups=1, act=None):
        super().__init__()
        self.relu = nn.ReLU() if act == "relu" else None
        self._conv = nn.Conv2D(input_channels, output_channels, filter_size, stride=stride,
                               padding=padding, groups=groups,
                               weight_attr=ParamAttr(initializer=Uniform(-stdv, stdv)),
                               bias_attr=ParamAttr(initializer=Uniform(-stdv, stdv)))
        self._pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=0)

    def forward(self, inputs):
        x = self._conv(inputs)
        if self.relu is not None:
            x = self.relu(x)
        return self._pool(x)


class AlexNet(nn.Layer):
    """AlexNet for [N, 3, 224, 224] inputs (``num_classes <= 0``: the features only)."""

    def __init__(self, num_classes=1000):
        super().__init__()
        self.num_classes = num_classes
        s = lambda n: 1.0 / math.sqrt(n)  # noqa: E731
        self._conv1 = ConvPoolLayer(3, 64, 11, 4, 2, s(3 * 11 * 11), act="relu")
        self._conv2 = ConvPoolLayer(64, 192, 5, 1, 2, s(64 * 5 * 5), act="relu")
        w, b = _uniform(192 * 3 * 3)
        self._conv3 = nn.Conv2D(192, 384, 3, stride=1, padding=1, weight_attr=w, bias_attr=b)
        w, b = _uniform(384 * 3 * 3)
        self._conv4 = nn.Conv2D(384, 256, 3, stride=1, padding=1, weight_attr=w, bias_attr=b)
        self._conv5 = ConvPoolLayer(256, 256, 3, 1, 1, s(256 * 3 * 3), act="relu")
        if num_classes > 0:
            fan = 256 * 6 * 6
            self._drop1 = nn.Dropout(p=0.5, mode="downscale_in_infer")
            self._fc6 = nn.Linear(fan, 4096, *_uniform(fan))
            self._drop2 = nn.Dropout(p=0.5, mode="downscale_in_infer")
            self._fc7 = nn.Linear(4096, 4096, *_uniform(fan))
            self._fc8 = nn.Linear(4096, num_classes, *_uniform(fan))

    def forward(self, inputs):
        x = self._conv2(self._conv1(inputs))
        x = F.relu(self._conv3(x))
        x = F.relu(self._conv4(x))
        x = self._conv5(x)
        if self.num_classes > 0:
            x = flatten(x, start_axis=1, stop_axis=-1)
            x = F.relu(self._fc6(self._drop1(x)))
            x = F.relu(self._fc7(self._drop2(x)))
            x = self._fc8(x)
        return x


def alexnet(pretrained=False, **kwargs):
    """AlexNet; ``pretrained=True`` refuses (gradrepl downloads no weights)."""
    if pretrained:
        refuse_pretrained("alexnet", ("alexnet",))
    return AlexNet(**kwargs)
