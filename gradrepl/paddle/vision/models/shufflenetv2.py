"""ShuffleNetV2 as in ``paddle.vision.models.shufflenetv2``: each unit splits the channels,
convolves one half (1x1, depthwise 3x3, 1x1), concatenates and shuffles the two groups;
down-sampling units convolve both halves. Widths 0.25x .. 2.0x, ReLU or Swish."""
from __future__ import annotations

from ... import nn
from ...tensor.manipulation import concat, flatten, reshape, split, transpose
from ..ops import ConvNormActivation
from ._pretrained import refuse_pretrained

__all__ = ["ShuffleNetV2", "shufflenet_v2_x0_25", "shufflenet_v2_x0_33", "shufflenet_v2_x0_5",
           "shufflenet_v2_x1_0", "shufflenet_v2_x1_5", "shufflenet_v2_x2_0",
           "shufflenet_v2_swish"]

_STAGE_CHANNELS = {0.25: [-1, 24, 24, 48, 96, 512], 0.33: [-1, 24, 32, 64, 128, 512],
                   0.5: [-1, 24, 48, 96, 192, 1024], 1.0: [-1, 24, 116, 232, 464, 1024],
                   1.5: [-1, 24, 176, 352, 704, 1024], 2.0: [-1, 24, 224, 488, 976, 2048]}
_STAGE_REPEATS = [4, 8, 4]


def create_activation_layer(act):
    table = {"swish": nn.Swish, "relu": nn.ReLU, None: None}
    if act not in table:
        raise RuntimeError(f"The activation function is not supported: {act}")
    return table[act]


def channel_shuffle(x, groups):
    """Interleave the channels of ``groups`` groups."""
    n, c, h, w = x.shape[0:4]
    x = reshape(x, shape=[n, groups, c // groups, h, w])
    return reshape(transpose(x, perm=[0, 2, 1, 3, 4]), shape=[n, c, h, w])


def _cna(cin, cout, kernel, stride, groups, act):
    return ConvNormActivation(cin, cout, kernel_size=kernel, stride=stride,
                              padding=(kernel - 1) // 2, groups=groups, activation_layer=act)


class InvertedResidual(nn.Layer):
    def __init__(self, in_channels, out_channels, stride, activation_layer=nn.ReLU):
        super().__init__()
        half = out_channels // 2
        self._conv_pw = _cna(in_channels // 2, half, 1, 1, 1, activation_layer)
        self._conv_dw = _cna(half, half, 3, stride, half, None)
        self._conv_linear = _cna(half, half, 1, 1, 1, activation_layer)

    def forward(self, inputs):
        c = inputs.shape[1] // 2
        x1, x2 = split(inputs, num_or_sections=[c, c], axis=1)
        x2 = self._conv_linear(self._conv_dw(self._conv_pw(x2)))
        return channel_shuffle(concat([x1, x2], axis=1), 2)


class InvertedResidualDS(nn.Layer):
    def __init__(self, in_channels, out_channels, stride, activation_layer=nn.ReLU):
        super().__init__()
        half = out_channels // 2
        self._conv_dw_1 = _cna(in_channels, in_channels, 3, stride, in_channels, None)
        self._conv_linear_1 = _cna(in_channels, half, 1, 1, 1, activation_layer)
        self._conv_pw_2 = _cna(in_channels, half, 1, 1, 1, activation_layer)
        self._conv_dw_2 = _cna(half, half, 3, stride, half, None)
        self._conv_linear_2 = _cna(half, half, 1, 1, 1, activation_layer)

    def forward(self, inputs):
        x1 = self._conv_linear_1(self._conv_dw_1(inputs))
        x2 = self._conv_linear_2(self._conv_dw_2(self._conv_pw_2(inputs)))
        return channel_shuffle(concat([x1, x2], axis=1), 2)


class ShuffleNetV2(nn.Layer):
    """ShuffleNetV2 of width ``scale`` (0.25, 0.33, 0.5, 1.0, 1.5, 2.0), ``act`` relu or swish."""

    def __init__(self, scale=1.0, act="relu", num_classes=1000, with_pool=True):
        super().__init__()
        self.scale = scale
        self.num_classes = num_classes
        self.with_pool = with_pool
        act_layer = create_activation_layer(act)
        if scale not in _STAGE_CHANNELS:
            raise NotImplementedError("This scale size:[" + str(scale) + "] is not implemented!")
        ch = _STAGE_CHANNELS[scale]
        self._conv1 = _cna(3, ch[1], 3, 2, 1, act_layer)
        self._max_pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=1)
        self._block_list = []
        for stage, repeats in enumerate(_STAGE_REPEATS):
            for i in range(repeats):
                block = (InvertedResidualDS(ch[stage + 1], ch[stage + 2], 2, act_layer) if i == 0
                         else InvertedResidual(ch[stage + 2], ch[stage + 2], 1, act_layer))
                self._block_list.append(self.add_sublayer(f"{stage + 2}_{i + 1}", block))
        self._last_conv = _cna(ch[-2], ch[-1], 1, 1, 1, act_layer)
        if with_pool:
            self._pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self._out_c = ch[-1]
            self._fc = nn.Linear(ch[-1], num_classes)

    def forward(self, inputs):
        x = self._max_pool(self._conv1(inputs))
        for block in self._block_list:
            x = block(x)
        x = self._last_conv(x)
        if self.with_pool:
            x = self._pool2d_avg(x)
        if self.num_classes > 0:
            x = self._fc(flatten(x, start_axis=1, stop_axis=-1))
        return x


def _shufflenet_v2(arch, pretrained=False, scale=1.0, **kwargs):
    model = ShuffleNetV2(scale=scale, **kwargs)
    if pretrained:
        refuse_pretrained(arch, tuple(f"shufflenet_v2_{n}" for n in (
            "x0_25", "x0_33", "x0_5", "x1_0", "x1_5", "x2_0", "swish")))
    return model


def _factory(arch, scale, act=None):
    def make(pretrained=False, **kwargs):
        if act is not None:
            kwargs["act"] = act
        return _shufflenet_v2(arch, scale=scale, pretrained=pretrained, **kwargs)
    make.__name__ = make.__qualname__ = arch
    make.__doc__ = (f"ShuffleNetV2 {arch}; ``pretrained=True`` refuses (gradrepl downloads no "
                    f"weights).")
    return make


shufflenet_v2_x0_25 = _factory("shufflenet_v2_x0_25", 0.25)
shufflenet_v2_x0_33 = _factory("shufflenet_v2_x0_33", 0.33)
shufflenet_v2_x0_5 = _factory("shufflenet_v2_x0_5", 0.5)
shufflenet_v2_x1_0 = _factory("shufflenet_v2_x1_0", 1.0)
shufflenet_v2_x1_5 = _factory("shufflenet_v2_x1_5", 1.5)
shufflenet_v2_x2_0 = _factory("shufflenet_v2_x2_0", 2.0)
shufflenet_v2_swish = _factory("shufflenet_v2_swish", 1.0, act="swish")
