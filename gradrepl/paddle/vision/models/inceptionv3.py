"""InceptionV3 as in ``paddle.vision.models.inceptionv3``: a stem, inception blocks A (x3), B,
C (x4), D, E (x2), each branch a Conv-BN-ReLU chain; for [N, 3, 299, 299] inputs."""
from __future__ import annotations

import math

from ... import ParamAttr, nn
from ...nn.initializer import Uniform
from ...tensor.manipulation import concat, reshape
from ..ops import ConvNormActivation
from ._pretrained import refuse_pretrained

__all__ = ["InceptionV3", "inception_v3"]


def _cbr(cin, cout, kernel, stride=1, padding=0):
    return ConvNormActivation(cin, cout, kernel_size=kernel, stride=stride, padding=padding,
                              activation_layer=nn.ReLU)


def _avg_pool():
    return nn.AvgPool2D(kernel_size=3, stride=1, padding=1, exclusive=False)


class _Branches(nn.Layer):
    """Runs each branch (a tuple of sub-layer names, applied in turn) and concatenates."""
    _branches = ()

    def forward(self, x):
        outs = []
        for names in self._branches:
            y = x
            for name in names:
                if isinstance(name, tuple):  # a fork: both halves concatenated
                    y = concat([getattr(self, n)(y) for n in name], axis=1)
                else:
                    y = getattr(self, name)(y)
            outs.append(y)
        return concat(outs, axis=1)


class InceptionStem(nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv_1a_3x3 = _cbr(3, 32, 3, stride=2)
        self.conv_2a_3x3 = _cbr(32, 32, 3)
        self.conv_2b_3x3 = _cbr(32, 64, 3, padding=1)
        self.max_pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=0)
        self.conv_3b_1x1 = _cbr(64, 80, 1)
        self.conv_4a_3x3 = _cbr(80, 192, 3)

    def forward(self, x):
        x = self.max_pool(self.conv_2b_3x3(self.conv_2a_3x3(self.conv_1a_3x3(x))))
        return self.max_pool(self.conv_4a_3x3(self.conv_3b_1x1(x)))


class InceptionA(_Branches):
    _branches = (("branch1x1",), ("branch5x5_1", "branch5x5_2"),
                 ("branch3x3dbl_1", "branch3x3dbl_2", "branch3x3dbl_3"),
                 ("branch_pool", "branch_pool_conv"))

    def __init__(self, num_channels, pool_features):
        super().__init__()
        self.branch1x1 = _cbr(num_channels, 64, 1)
        self.branch5x5_1 = _cbr(num_channels, 48, 1)
        self.branch5x5_2 = _cbr(48, 64, 5, padding=2)
        self.branch3x3dbl_1 = _cbr(num_channels, 64, 1)
        self.branch3x3dbl_2 = _cbr(64, 96, 3, padding=1)
        self.branch3x3dbl_3 = _cbr(96, 96, 3, padding=1)
        self.branch_pool = _avg_pool()
        self.branch_pool_conv = _cbr(num_channels, pool_features, 1)


class InceptionB(_Branches):
    _branches = (("branch3x3",), ("branch3x3dbl_1", "branch3x3dbl_2", "branch3x3dbl_3"),
                 ("branch_pool",))

    def __init__(self, num_channels):
        super().__init__()
        self.branch3x3 = _cbr(num_channels, 384, 3, stride=2)
        self.branch3x3dbl_1 = _cbr(num_channels, 64, 1)
        self.branch3x3dbl_2 = _cbr(64, 96, 3, padding=1)
        self.branch3x3dbl_3 = _cbr(96, 96, 3, stride=2)
        self.branch_pool = nn.MaxPool2D(kernel_size=3, stride=2)


class InceptionC(_Branches):
    _branches = (("branch1x1",), ("branch7x7_1", "branch7x7_2", "branch7x7_3"),
                 tuple(f"branch7x7dbl_{i}" for i in range(1, 6)),
                 ("branch_pool", "branch_pool_conv"))

    def __init__(self, num_channels, channels_7x7):
        super().__init__()
        c = channels_7x7
        self.branch1x1 = _cbr(num_channels, 192, 1)
        self.branch7x7_1 = _cbr(num_channels, c, 1)
        self.branch7x7_2 = _cbr(c, c, (1, 7), padding=(0, 3))
        self.branch7x7_3 = _cbr(c, 192, (7, 1), padding=(3, 0))
        self.branch7x7dbl_1 = _cbr(num_channels, c, 1)
        self.branch7x7dbl_2 = _cbr(c, c, (7, 1), padding=(3, 0))
        self.branch7x7dbl_3 = _cbr(c, c, (1, 7), padding=(0, 3))
        self.branch7x7dbl_4 = _cbr(c, c, (7, 1), padding=(3, 0))
        self.branch7x7dbl_5 = _cbr(c, 192, (1, 7), padding=(0, 3))
        self.branch_pool = _avg_pool()
        self.branch_pool_conv = _cbr(num_channels, 192, 1)


class InceptionD(_Branches):
    _branches = (("branch3x3_1", "branch3x3_2"),
                 tuple(f"branch7x7x3_{i}" for i in range(1, 5)), ("branch_pool",))

    def __init__(self, num_channels):
        super().__init__()
        self.branch3x3_1 = _cbr(num_channels, 192, 1)
        self.branch3x3_2 = _cbr(192, 320, 3, stride=2)
        self.branch7x7x3_1 = _cbr(num_channels, 192, 1)
        self.branch7x7x3_2 = _cbr(192, 192, (1, 7), padding=(0, 3))
        self.branch7x7x3_3 = _cbr(192, 192, (7, 1), padding=(3, 0))
        self.branch7x7x3_4 = _cbr(192, 192, 3, stride=2)
        self.branch_pool = nn.MaxPool2D(kernel_size=3, stride=2)


class InceptionE(_Branches):
    _branches = (("branch1x1",), ("branch3x3_1", ("branch3x3_2a", "branch3x3_2b")),
                 ("branch3x3dbl_1", "branch3x3dbl_2", ("branch3x3dbl_3a", "branch3x3dbl_3b")),
                 ("branch_pool", "branch_pool_conv"))

    def __init__(self, num_channels):
        super().__init__()
        self.branch1x1 = _cbr(num_channels, 320, 1)
        self.branch3x3_1 = _cbr(num_channels, 384, 1)
        self.branch3x3_2a = _cbr(384, 384, (1, 3), padding=(0, 1))
        self.branch3x3_2b = _cbr(384, 384, (3, 1), padding=(1, 0))
        self.branch3x3dbl_1 = _cbr(num_channels, 448, 1)
        self.branch3x3dbl_2 = _cbr(448, 384, 3, padding=1)
        self.branch3x3dbl_3a = _cbr(384, 384, (1, 3), padding=(0, 1))
        self.branch3x3dbl_3b = _cbr(384, 384, (3, 1), padding=(1, 0))
        self.branch_pool = _avg_pool()
        self.branch_pool_conv = _cbr(num_channels, 192, 1)


class InceptionV3(nn.Layer):
    """Inception v3 (``forward`` gives [N, num_classes])."""

    def __init__(self, num_classes=1000, with_pool=True):
        super().__init__()
        self.num_classes = num_classes
        self.with_pool = with_pool
        self.layers_config = {"inception_a": [[192, 256, 288], [32, 64, 64]],
                              "inception_b": [288],
                              "inception_c": [[768, 768, 768, 768], [128, 160, 160, 192]],
                              "inception_d": [768], "inception_e": [1280, 2048]}
        cfg = self.layers_config
        self.inception_stem = InceptionStem()
        blocks = ([InceptionA(*a) for a in zip(*cfg["inception_a"])]
                  + [InceptionB(c) for c in cfg["inception_b"]]
                  + [InceptionC(*c) for c in zip(*cfg["inception_c"])]
                  + [InceptionD(c) for c in cfg["inception_d"]]
                  + [InceptionE(c) for c in cfg["inception_e"]])
        self.inception_block_list = nn.LayerList(blocks)
        if with_pool:
            self.avg_pool = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self.dropout = nn.Dropout(p=0.2, mode="downscale_in_infer")
            stdv = 1.0 / math.sqrt(2048 * 1.0)
            self.fc = nn.Linear(2048, num_classes,
                                weight_attr=ParamAttr(initializer=Uniform(-stdv, stdv)))

    def forward(self, x):
        x = self.inception_stem(x)
        for block in self.inception_block_list:
            x = block(x)
        if self.with_pool:
            x = self.avg_pool(x)
        if self.num_classes > 0:
            x = self.fc(self.dropout(reshape(x, shape=[-1, 2048])))
        return x


def inception_v3(pretrained=False, **kwargs):
    """InceptionV3; ``pretrained=True`` refuses (gradrepl downloads no weights)."""
    model = InceptionV3(**kwargs)
    if pretrained:
        refuse_pretrained("inception_v3", ("inception_v3",))
    return model
