"""``paddle.sparse.nn``: the activations of sparse tensors (applied to the stored values)."""

from . import functional
from .functional import leaky_relu as _leaky_relu, relu as _relu, relu6 as _relu6
from ...nn import Layer

__all__ = ["functional", "ReLU", "ReLU6", "LeakyReLU"]


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
