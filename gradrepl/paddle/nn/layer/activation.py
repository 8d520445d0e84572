"""Activation layers: thin wrappers over ``paddle.nn.functional`` with Paddle's reprs."""
from __future__ import annotations

from .. import functional as F
from .common import _inplace_suffix
from .layers import Layer

__all__ = ["ReLU", "ReLU6", "LeakyReLU", "ELU", "SELU", "GELU", "Silu", "SiLU", "Swish",
           "Mish", "Softplus", "Softsign", "Hardtanh", "Hardsigmoid", "Hardswish", "Sigmoid",
           "Tanh", "Softmax", "LogSoftmax", "LogSigmoid", "Tanhshrink"]


def _name_suffix(name, first=False):
    if not name:
        return ""
    return f"name={name}" if first else f", name={name}"


class _Simple(Layer):
    """An activation without arguments: ``forward`` applies ``_fn``."""

    _fn = None

    def __init__(self, name=None):
        super().__init__()
        self._name = name

    def forward(self, x):
        return type(self)._fn(x)

    def extra_repr(self):
        return _name_suffix(self._name, first=True)


class ReLU(_Simple):
    _fn = staticmethod(F.relu)


class ReLU6(_Simple):
    _fn = staticmethod(F.relu6)


class Sigmoid(_Simple):
    _fn = staticmethod(F.sigmoid)


class Tanh(_Simple):
    _fn = staticmethod(F.tanh)


class Softsign(_Simple):
    _fn = staticmethod(F.softsign)


class Hardswish(_Simple):
    _fn = staticmethod(F.hardswish)


class Swish(_Simple):
    _fn = staticmethod(F.swish)


class Mish(_Simple):
    _fn = staticmethod(F.mish)


class LogSigmoid(_Simple):
    _fn = staticmethod(F.log_sigmoid)


class Tanhshrink(_Simple):
    _fn = staticmethod(F.tanhshrink)


class Silu(Layer):
    def __init__(self, name=None, inplace=False):
        super().__init__()
        self._name = name
        self._inplace = inplace

    def forward(self, x):
        return F.silu(x)

    def extra_repr(self):
        body = _inplace_suffix().lstrip(", ") + _name_suffix(self._name, not _inplace_suffix())
        return body


SiLU = Silu


class LeakyReLU(Layer):
    def __init__(self, negative_slope=0.01, name=None):
        super().__init__()
        self._negative_slope = negative_slope
        self._name = name

    def forward(self, x):
        return F.leaky_relu(x, self._negative_slope)

    def extra_repr(self):
        return f"negative_slope={self._negative_slope}{_name_suffix(self._name)}"


class ELU(Layer):
    def __init__(self, alpha=1.0, name=None):
        super().__init__()
        self._alpha = alpha
        self._name = name

    def forward(self, x):
        return F.elu(x, self._alpha)

    def extra_repr(self):
        return f"alpha={self._alpha}{_name_suffix(self._name)}"


class SELU(Layer):
    def __init__(self, scale=1.0507009873554804934193349852946,
                 alpha=1.6732632423543772848170429916717, name=None):
        super().__init__()
        self._scale, self._alpha, self._name = scale, alpha, name

    def forward(self, x):
        return F.selu(x, self._scale, self._alpha)

    def extra_repr(self):
        return f"scale={self._scale:.16f}, alpha={self._alpha:.16f}{_name_suffix(self._name)}"


class GELU(Layer):
    def __init__(self, approximate=False, name=None):
        super().__init__()
        self._approximate = approximate
        self._name = name

    def forward(self, x):
        return F.gelu(x, self._approximate)

    def extra_repr(self):
        return f"approximate={self._approximate}{_name_suffix(self._name)}"


class Softplus(Layer):
    def __init__(self, beta=1, threshold=20, name=None):
        super().__init__()
        self._beta, self._threshold, self._name = beta, threshold, name

    def forward(self, x):
        return F.softplus(x, self._beta, self._threshold)

    def extra_repr(self):
        return f"beta={self._beta}, threshold={self._threshold}{_name_suffix(self._name)}"


class Hardtanh(Layer):
    def __init__(self, min=-1.0, max=1.0, name=None):  # noqa: A002
        super().__init__()
        self._min, self._max, self._name = min, max, name

    def forward(self, x):
        return F.hardtanh(x, self._min, self._max)

    def extra_repr(self):
        return f"min={self._min}, max={self._max}{_name_suffix(self._name)}"


class Hardsigmoid(Layer):
    def __init__(self, name=None):
        super().__init__()
        self._name = name

    def forward(self, x):
        return F.hardsigmoid(x)

    def extra_repr(self):
        return _name_suffix(self._name, first=True)


class Softmax(Layer):
    def __init__(self, axis=-1, name=None):
        super().__init__()
        self._axis = axis
        self._name = name

    def forward(self, x):
        return F.softmax(x, self._axis)

    def extra_repr(self):
        return f"axis={self._axis}{_name_suffix(self._name)}"


class LogSoftmax(Softmax):
    def forward(self, x):
        return F.log_softmax(x, self._axis)
