"""``paddle.nn``: Layer and the layers, ``functional`` and ``initializer``."""
from . import clip, functional, initializer, utils  # noqa: F401
from .clip import ClipGradByGlobalNorm, ClipGradByNorm, ClipGradByValue  # noqa: F401
from .layer import *  # noqa: F401,F403
from .layer import Layer  # noqa: F401
from .layer.activation import __all__ as _act
from .layer.common import __all__ as _common
from .layer.container import __all__ as _container
from .layer.loss import __all__ as _loss
from .layer.conv import __all__ as _conv
from .layer.norm import __all__ as _norm
from .layer.pooling import __all__ as _pooling

__all__ = ["Layer", "functional", "initializer", "ClipGradByGlobalNorm", "ClipGradByNorm",
           "ClipGradByValue"] + _act + _common + _container + _loss + _conv + _norm + _pooling


def __getattr__(name):  # Paddle 3's torch-style names and the layers of nn/breadth.py
    import importlib

    breadth = importlib.import_module('gradrepl.paddle.nn.breadth')

    return breadth.attribute(__import__("sys").modules[__name__], "paddle.nn", name)


def __dir__():  # the module's names and the breadth names of the current profile
    import importlib

    breadth = importlib.import_module('gradrepl.paddle.nn.breadth')
    return sorted(set(globals()) | set(breadth.names("paddle.nn")))


from ..names_gate import gate as _gate  # noqa: E402  (the names of the emulated version)

_gate(__name__)
