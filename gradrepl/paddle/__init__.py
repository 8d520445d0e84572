"""A Paddle-compatible API on the gradrepl engine: ``import gradrepl.paddle as paddle``.

Which Paddle is emulated (2.2, 2.6, 3) is the profile (``profiles.py``); ``__version__`` follows it.
"""
from __future__ import annotations

from ..engine.grad_mode import is_grad_enabled
from . import autograd, device, dtypes, profiles
from . import docs as _docs
from .base.dygraph.base import enable_grad, no_grad, set_grad_enabled
from .core import PaddleClass as _PaddleClass
from .core import Parameter, Size, Tensor
from .device import (CPUPlace, CUDAPinnedPlace, CUDAPlace, XPUPlace, get_device,
                     is_compiled_with_cuda, set_device)
from .flags import (get_cudnn_version, get_flags, is_compiled_with_cinn,
                    is_compiled_with_custom_device, is_compiled_with_distribute,
                    is_compiled_with_ipu, is_compiled_with_rocm, is_compiled_with_xpu, set_flags)
from .printing import set_printoptions
from .typeinfo import finfo, iinfo
from .import_notes import on_script_import as _on_script_import  # noqa: F401
from .not_emulated import missing_module as _missing_module  # noqa: F401 (importhook)
from .tensor import bind_methods as _bind, exported as _exported

globals().update(_exported())
_bind(Tensor)
from .tensor import inplace as _inplace  # noqa: E402

_TWINS = _inplace.make(_exported())
globals().update(_TWINS)
_inplace.bind(Tensor, _TWINS)
from . import not_emulated as _not_emulated  # noqa: E402

_not_emulated.install_tensor(Tensor)


def _split_since3():
    """The exported names Paddle 2.6 lacks leave the module's globals: ``__getattr__`` serves
    them under a 3.x profile only (AttributeError under 2.x, as real 2.6 gives)."""
    from .api26 import PADDLE

    out = {}
    for key in list(globals()):
        if not key.startswith("_") and key not in PADDLE and key in _EXPORTED:
            out[key] = globals().pop(key)
    return out


_EXPORTED = set(_exported()) | set(_TWINS)

grad = autograd.grad
for _name, _dt in dtypes.DTYPES.items():
    globals()[_name] = _dt
dtype = dtypes.DType
del _name, _dt


def __getattr__(name):
    if name == "__version__":
        return profiles.current().version
    if name in _SINCE3:
        if profiles.current().api3:
            return _SINCE3[name]
        raise AttributeError(f"module 'paddle' has no attribute {name!r}")
    if name in ("nn", "optimizer", "vision", "linalg", "framework", "static", "io", "metric",
                "regularizer", "base", "distribution", "hapi", "text", "distributed",
                "jit", "utils", "sparse", "amp", "geometric", "fft", "incubate", "audio",
                "signal"):
        import importlib

        mod = importlib.import_module(f"{__name__}.{name}")
        globals()[name] = mod
        return mod
    if name in ("Model", "callbacks"):  # the high-level API (paddle.hapi)
        from . import hapi

        globals()[name] = getattr(hapi, name)
        return globals()[name]
    from . import not_emulated

    raise not_emulated.error("paddle", name)


def save(obj, path, protocol=4, **configs):
    """``paddle.save``: Paddle's file format (see ``framework/io.py``)."""
    from .framework.io import save as _save

    return _save(obj, path, protocol, **configs)


def load(path, **configs):
    """``paddle.load``: reads what ``paddle.save`` wrote, here or in real Paddle."""
    from .framework.io import load as _load

    return _load(path, **configs)


def create_parameter(shape, dtype=None, name=None, attr=None, is_bias=False,
                     default_initializer=None):
    """``paddle.create_parameter``: a trainable Parameter, initialised as a Layer's would be."""
    from .nn.layer.layers import make_parameter

    if name is not None:
        attr = ParamAttr(name=name)
    return make_parameter(shape, dtype, attr, is_bias, default_initializer)


def in_dynamic_mode():
    """True unless ``paddle.enable_static()`` turned static graph mode on."""
    from .static.program import MODE

    return not MODE["static"]


def disable_static(place=None):
    """Back to dynamic graph mode (the default): paddle calls compute at once again."""
    from .static import mode

    mode.disable()


def enable_static():
    """Static graph mode: paddle calls record ops into ``paddle.static`` Programs that an
    ``paddle.static.Executor`` runs (see ``gradrepl/paddle/static``)."""
    from .static import mode

    mode.enable()


def disable_signal_handler():
    """Paddle's C++ signal handlers (which gradrepl does not install): nothing to do."""
    return None


def summary(net, input_size=None, dtypes=None, input=None):
    """``paddle.summary``: prints Paddle's table of a model's layers, shapes and parameters."""
    from .hapi.model_summary import summary as _summary

    return _summary(net, input_size, dtypes, input)


def is_tensor(x):
    return isinstance(x, Tensor)


class ParamAttr(metaclass=_PaddleClass):
    _paddle_path = "paddle.base.param_attr.ParamAttr"
    def __init__(self, name=None, initializer=None, learning_rate=1.0, regularizer=None,
                 trainable=True, do_model_average=True, need_clip=True):
        self.name = name
        self.initializer = initializer
        self.learning_rate = learning_rate
        self.regularizer = regularizer
        self.trainable = trainable
        self.need_clip = need_clip


class _TensorFunctionOrModule:
    """``paddle.tensor``: in 3.x both the ``paddle.tensor`` package and the ``paddle.tensor(data,
    dtype, device, requires_grad)`` function (as Paddle 3 does it); in 2.x calling it fails as
    calling a module does."""

    def __init__(self, module):
        self.module = module

    def __call__(self, *args, **kwargs):
        if not profiles.current().param_aliases:
            raise TypeError("'module' object is not callable")
        from .tensor.creation import tensor as _tensor_fn

        return _tensor_fn(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self.module, name)

    def __repr__(self):
        from .tensor.creation import tensor as _tensor_fn

        if not profiles.current().param_aliases:
            return repr(self.module)
        return repr(_tensor_fn)

    __str__ = __repr__

    def __dir__(self):
        return dir(self.module)


_SINCE3 = _split_since3()
_docs.publish(globals())
_docs.publish(_SINCE3)
from . import docstrings as _docstrings  # noqa: E402

_docstrings.apply(globals())
tensor = _TensorFunctionOrModule(__import__("sys").modules[__name__ + ".tensor"])
# ``import paddle.callbacks`` / ``from paddle.callbacks import EarlyStopping``: the hapi module
# under Paddle's top-level name (``paddle.Model`` itself is served lazily by __getattr__)
from .hapi import callbacks as _hapi_callbacks  # noqa: E402

__import__("sys").modules.setdefault(__name__ + ".callbacks", _hapi_callbacks)
from . import complex_kernels as _complex_kernels  # noqa: E402

_complex_kernels.install([__import__("sys").modules[__name__]], Tensor)
from .names_gate import gate as _gate  # noqa: E402  (the names of the emulated version)

_gate(__name__)
