"""A Paddle-compatible API on the gradrepl engine: ``import gradrepl.paddle as paddle``.

Which Paddle is emulated (2.2, 2.6, 3) is the profile (``profiles.py``); ``__version__`` follows it.
"""
from __future__ import annotations

from ..engine.grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from . import autograd, device, dtypes, profiles
from .core import Parameter, Size, Tensor
from .device import CPUPlace, CUDAPlace, get_device, is_compiled_with_cuda, set_device
from .printing import set_printoptions
from .tensor import bind_methods as _bind, exported as _exported

globals().update(_exported())
_bind(Tensor)

grad = autograd.grad
for _name, _dt in dtypes.DTYPES.items():
    globals()[_name] = _dt
dtype = dtypes.DType
del _name, _dt


def __getattr__(name):
    if name == "__version__":
        return profiles.current().version
    if name in ("nn", "optimizer", "vision", "linalg", "framework", "static", "io", "metric",
                "regularizer"):
        import importlib

        mod = importlib.import_module(f"{__name__}.{name}")
        globals()[name] = mod
        return mod
    raise AttributeError(f"module 'paddle' has no attribute {name!r}")


def create_parameter(shape, dtype=None, name=None, attr=None, is_bias=False,
                     default_initializer=None):
    """``paddle.create_parameter``: a trainable Parameter, initialised as a Layer's would be."""
    from .nn.layer.layers import make_parameter

    if name is not None:
        attr = ParamAttr(name=name)
    return make_parameter(shape, dtype, attr, is_bias, default_initializer)


def in_dynamic_mode():
    return True


def disable_static(place=None):
    return None


def is_tensor(x):
    return isinstance(x, Tensor)


class ParamAttr:
    def __init__(self, name=None, initializer=None, learning_rate=1.0, regularizer=None,
                 trainable=True, do_model_average=True, need_clip=True):
        self.name = name
        self.initializer = initializer
        self.learning_rate = learning_rate
        self.regularizer = regularizer
        self.trainable = trainable
        self.need_clip = need_clip
