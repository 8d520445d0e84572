"""DenseNet 121/161/169/201/264 as in ``paddle.vision.models.densenet``: dense blocks whose
layers (BN-ReLU-1x1 conv, BN-ReLU-3x3 conv) concatenate their output onto their input, and
transition layers (BN-ReLU-1x1 conv, 2x2 average pooling) between the blocks."""
from __future__ import annotations

import math

from ... import ParamAttr, nn
from ...nn.initializer import Uniform
from ...tensor.manipulation import concat, flatten
from ._pretrained import refuse_pretrained

__all__ = ["DenseNet", "densenet121", "densenet161", "densenet169", "densenet201",
           "densenet264"]

# layers: (initial features, growth rate, layers per block)
_SPEC = {121: (64, 32, [6, 12, 24, 16]), 161: (96, 48, [6, 12, 36, 24]),
         169: (64, 32, [6, 12, 32, 32]), 201: (64, 32, [6, 12, 48, 32]),
         264: (64, 32, [6, 12, 64, 48])}


class BNACConvLayer(nn.Layer):
    """BatchNorm with ReLU, then a bias-free convolution."""

    def __init__(self, num_channels, num_filters, filter_size, stride=1, pad=0, groups=1,
                 act="relu"):
        super().__init__()
        self._batch_norm = nn.BatchNorm(num_channels, act=act)
        self._conv = nn.Conv2D(num_channels, num_filters, filter_size, stride=stride,
                               padding=pad, groups=groups, bias_attr=False)

    def forward(self, input):
        return self._conv(self._batch_norm(input))


class DenseLayer(nn.Layer):
    def __init__(self, num_channels, growth_rate, bn_size, dropout):
        super().__init__()
        self.dropout = dropout
        self.bn_ac_func1 = BNACConvLayer(num_channels, bn_size * growth_rate, 1, pad=0,
                                         stride=1)
        self.bn_ac_func2 = BNACConvLayer(bn_size * growth_rate, growth_rate, 3, pad=1,
                                         stride=1)
        if dropout:
            self.dropout_func = nn.Dropout(p=dropout, mode="downscale_in_infer")

    def forward(self, input):
        conv = self.bn_ac_func2(self.bn_ac_func1(input))
        if self.dropout:
            conv = self.dropout_func(conv)
        return concat([input, conv], axis=1)


class DenseBlock(nn.Layer):
    def __init__(self, num_channels, num_layers, bn_size, growth_rate, dropout, name=None):
        super().__init__()
        self.dropout = dropout
        self.dense_layer_func = []
        for i in range(num_layers):
            layer = DenseLayer(num_channels + i * growth_rate, growth_rate, bn_size, dropout)
            self.dense_layer_func.append(self.add_sublayer(f"{name}_{i + 1}", layer))

    def forward(self, input):
        for layer in self.dense_layer_func:
            input = layer(input)
        return input


class TransitionLayer(nn.Layer):
    def __init__(self, num_channels, num_output_features):
        super().__init__()
        self.conv_ac_func = BNACConvLayer(num_channels, num_output_features, 1, pad=0, stride=1)
        self.pool2d_avg = nn.AvgPool2D(kernel_size=2, stride=2, padding=0)

    def forward(self, input):
        return self.pool2d_avg(self.conv_ac_func(input))


class ConvBNLayer(nn.Layer):
    """A bias-free convolution, then BatchNorm with ReLU."""

    def __init__(self, num_channels, num_filters, filter_size, stride=1, pad=0, groups=1,
                 act="relu"):
        super().__init__()
        self._conv = nn.Conv2D(num_channels, num_filters, filter_size, stride=stride,
                               padding=pad, groups=groups, bias_attr=False)
        self._batch_norm = nn.BatchNorm(num_filters, act=act)

    def forward(self, input):
        return self._batch_norm(self._conv(input))


class DenseNet(nn.Layer):
    """DenseNet with ``layers`` in (121, 161, 169, 201, 264)."""

    def __init__(self, layers=121, bn_size=4, dropout=0.0, num_classes=1000, with_pool=True):
        super().__init__()
        self.num_classes = num_classes
        self.with_pool = with_pool
        supported = [121, 161, 169, 201, 264]
        assert layers in supported, \
            f"supported layers are {supported} but input layer is {layers}"
        features, growth, block_config = _SPEC[layers]
        self.conv1_func = ConvBNLayer(3, features, 7, stride=2, pad=3, act="relu")
        self.pool2d_max = nn.MaxPool2D(kernel_size=3, stride=2, padding=1)
        self.block_config = block_config
        self.dense_block_func_list = []
        self.transition_func_list = []
        for i, n in enumerate(block_config):
            block = DenseBlock(features, n, bn_size, growth, dropout, name=f"conv{i + 2}")
            self.dense_block_func_list.append(self.add_sublayer(f"db_conv_{i + 2}", block))
            features += n * growth
            if i != len(block_config) - 1:
                trans = TransitionLayer(features, features // 2)
                self.transition_func_list.append(self.add_sublayer(f"tr_conv{i + 2}_blk", trans))
                features //= 2
        self.batch_norm = nn.BatchNorm(features, act="relu")
        if with_pool:
            self.pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            stdv = 1.0 / math.sqrt(features * 1.0)
            self.out = nn.Linear(features, num_classes,
                                 weight_attr=ParamAttr(initializer=Uniform(-stdv, stdv)))

    def forward(self, input):
        y = self.pool2d_max(self.conv1_func(input))
        for i in range(len(self.block_config)):
            y = self.dense_block_func_list[i](y)
            if i != len(self.block_config) - 1:
                y = self.transition_func_list[i](y)
        y = self.batch_norm(y)
        if self.with_pool:
            y = self.pool2d_avg(y)
        if self.num_classes > 0:
            y = self.out(flatten(y, start_axis=1, stop_axis=-1))
        return y


def _densenet(arch, layers, pretrained, **kwargs):
    if pretrained:
        refuse_pretrained(arch, tuple(f"densenet{n}" for n in _SPEC))
    return DenseNet(layers=layers, **kwargs)


def _factory(layers):
    arch = f"densenet{layers}"

    def make(pretrained=False, **kwargs):
        return _densenet(arch, layers, pretrained, **kwargs)
    make.__name__ = make.__qualname__ = arch
    make.__doc__ = f"DenseNet-{layers}; ``pretrained=True`` refuses (no downloads)."
    return make


densenet121, densenet161, densenet169, densenet201, densenet264 = (
    _factory(n) for n in (121, 161, 169, 201, 264))
