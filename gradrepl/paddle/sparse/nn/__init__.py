"""``paddle.sparse.nn``: the activations of sparse tensors (applied to the stored values)."""

from . import functional
from .functional import leaky_relu as _leaky_relu, relu as _relu, relu6 as _relu6
from .functional import softmax as _softmax
from .conv import BatchNorm, Conv2D, Conv3D, MaxPool3D, SubmConv2D, SubmConv3D, SyncBatchNorm
from ...nn import Layer

__all__ = ["functional", "ReLU", "ReLU6", "LeakyReLU", "Softmax", "Conv3D", "SubmConv3D",
           "BatchNorm", "SyncBatchNorm", "MaxPool3D", "Conv2D", "SubmConv2D"]


class ReLU(Layer):
    def forward(self, x):
        return _relu(x)


class ReLU6(Layer):
    def forward(self, x):
        return _relu6(x)


class LeakyReLU(Layer):
    def __init__(self, negative_slope=0.01, name=None):
        super().__init__()
        self._negative_slope = negative_slope

    def forward(self, x):
        return _leaky_relu(x, self._negative_slope)


class Softmax(Layer):
    def __init__(self, axis=-1, name=None):
        super().__init__()
        self._axis = axis

    def forward(self, x):
        return _softmax(x, self._axis)


# real Paddle's public names of paddle.sparse.nn not emulated (3.3.1 and 2.6.2)
_NOT_EMULATED = frozenset(("layer",))


def __getattr__(name):
    if name in _NOT_EMULATED:
        raise AttributeError(f"module 'paddle.sparse.nn' has no attribute '{name}' (gradrepl's "
                             f"paddle does not emulate paddle.sparse.nn.{name})")
    raise AttributeError(f"module 'paddle.sparse.nn' has no attribute '{name}'")
