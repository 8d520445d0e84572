"""Activation layers: thin wrappers over ``paddle.nn.functional`` with Paddle's reprs."""
from __future__ import annotations

from ... import profiles
from .. import functional as F
from .layers import Layer

__all__ = ["ReLU", "ReLU6", "LeakyReLU", "ELU", "SELU", "GELU", "Silu", "SiLU", "Swish",
           "Mish", "Softplus", "Softsign", "Hardtanh", "Hardsigmoid", "Hardswish", "Sigmoid",
           "Tanh", "Softmax", "LogSoftmax", "LogSigmoid", "Tanhshrink"]


def _bind_args(cls, names, defaults, args, kwargs):
    """Python's own binding of a constructor's arguments, with its TypeErrors."""
    if len(args) > len(names):
        raise TypeError(f"{cls}.__init__() takes from 1 to {len(names) + 1} positional arguments "
                        f"but {len(args) + 1} were given")
    out = dict(zip(names, defaults))
    for n, v in zip(names, args):
        out[n] = v
    for k, v in kwargs.items():
        if k not in out:
            raise TypeError(f"{cls}.__init__() got an unexpected keyword argument '{k}'")
        if k in names[:len(args)]:
            raise TypeError(f"{cls}.__init__() got multiple values for argument '{k}'")
        out[k] = v
    return out


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
    """``nn.Silu(inplace=False, name=None)`` in 3.x; ``nn.Silu(name=None)`` in 2.x."""

    def __init__(self, *args, **kwargs):
        super().__init__()
        if profiles.current().layer_repr_inplace:
            params = _bind_args("Silu", ("inplace", "name"), (False, None), args, kwargs)
        else:
            params = _bind_args("Silu", ("name",), (None,), args, kwargs)
        self._name = params.get("name")
        self._inplace = bool(params.get("inplace", False))

    def forward(self, x):
        return F.silu(x, self._inplace)

    def extra_repr(self):
        if profiles.current().layer_repr_inplace:
            return f"inplace={self._inplace}" + _name_suffix(self._name)
        return _name_suffix(self._name, first=True)


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


# ---------------------------------------------------------------- more activation layers
class CELU(Layer):
    def __init__(self, alpha=1.0, name=None):
        super().__init__()
        self._alpha, self._name = alpha, name

    def forward(self, x):
        return F.celu(x, self._alpha, self._name)

    def extra_repr(self):
        return f"alpha={self._alpha}{_name_suffix(self._name)}"


class GLU(Layer):
    def __init__(self, axis=-1, name=None):
        super().__init__()
        self._axis, self._name = axis, name

    def forward(self, x):
        return F.glu(x, self._axis, self._name)

    def extra_repr(self):
        return f"axis={self._axis}{_name_suffix(self._name)}"


class _Shrink(Layer):
    _fn = None

    def __init__(self, threshold=0.5, name=None):
        super().__init__()
        self._threshold, self._name = threshold, name

    def forward(self, x):
        return type(self)._fn(x, self._threshold, self._name)

    def extra_repr(self):
        return f"threshold={self._threshold}{_name_suffix(self._name)}"

    @property
    def lambd(self):
        return self._threshold


class Hardshrink(_Shrink):
    _fn = staticmethod(F.hardshrink)


class Softshrink(_Shrink):
    _fn = staticmethod(F.softshrink)


class ThresholdedReLU(Layer):
    def __init__(self, threshold=1.0, value=0.0, name=None):
        super().__init__()
        self._threshold, self._value, self._name = threshold, value, name

    def forward(self, x):
        return F.thresholded_relu(x, self._threshold, self._value, self._name)

    def extra_repr(self):
        return f"threshold={self._threshold}, value={self._value}{_name_suffix(self._name)}"


class PReLU(Layer):
    """x where x > 0, weight * x elsewhere; the weight is a Parameter (one, or one per
    channel) initialised to ``init``."""

    def __init__(self, num_parameters=1, init=0.25, weight_attr=None, data_format="NCHW",
                 name=None):
        super().__init__()
        from ..initializer import Constant
        from ...tensor.creation import get_default_dtype

        self._num_parameters, self._init = num_parameters, init
        self._weight_attr, self._name, self._data_format = weight_attr, name, data_format
        self._weight = self.create_parameter(attr=weight_attr, shape=[num_parameters],
                                             dtype=get_default_dtype(), is_bias=False,
                                             default_initializer=Constant(init))

    def forward(self, x):
        return F.prelu(x, self._weight, data_format=self._data_format)

    def extra_repr(self):
        return (f"num_parameters={self._num_parameters}, data_format={self._data_format}, "
                f"init={self._init}, dtype={self._dtype}{_name_suffix(self._name)}")


class RReLU(Layer):
    def __init__(self, lower=1.0 / 8.0, upper=1.0 / 3.0, name=None):
        super().__init__()
        self._lower, self._upper, self._name = lower, upper, name

    def forward(self, x):
        return F.rrelu(x, lower=self._lower, upper=self._upper, training=self.training)

    def extra_repr(self):
        return (f"lower={self._lower}, upper={self._upper}, training={self.training}, "
                f"dtype={self._dtype}{_name_suffix(self._name)}")


class Softmax2D(Layer):
    def __init__(self, name=None):
        super().__init__()
        self._dtype, self._name = None, name

    def forward(self, x):
        if x.ndim not in (3, 4):
            raise AssertionError(f"Softmax2D requires a 3D or 4D tensor as input. Received: "
                                 f"{x.ndim}D.")
        return F.softmax(x, axis=-3, dtype=self._dtype, name=self._name)

    def extra_repr(self):
        return f"name={self._name}" if self._name else ""


__all__ += ["CELU", "GLU", "Hardshrink", "Softshrink", "ThresholdedReLU", "PReLU", "RReLU",
            "Softmax2D"]
