"""``paddle.nn.functional``: activations, losses and the common layers as functions.

Each function keeps Paddle's signature and argument checks and calls the engine op that Paddle's
own kernel is (``engine/ops/nn.py``), or composes existing ops where Paddle composes them
(``linear`` is matmul + add, ``l1_loss`` is abs(subtract), reductions are the ``paddle.mean`` /
``paddle.sum`` of the loss).
"""
from __future__ import annotations

from . import activation, common, input, loss  # noqa: A004
from .activation import *  # noqa: F401,F403
from .common import *  # noqa: F401,F403
from .input import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from . import conv, norm, pooling  # noqa: E402
from .conv import *  # noqa: F401,F403,E402
from .norm import *  # noqa: F401,F403,E402
from .pooling import *  # noqa: F401,F403,E402

__all__ = activation.__all__ + common.__all__ + input.__all__ + loss.__all__ + conv.__all__ + \
    norm.__all__ + pooling.__all__


def __getattr__(name):  # the functions of nn/breadth.py (logsigmoid, maxout, pdist, ...)
    import importlib

    breadth = importlib.import_module('gradrepl.paddle.nn.breadth')

    return breadth.attribute(__import__("sys").modules[__name__], "paddle.nn.functional", name)


def __dir__():  # the module's names and the breadth names of the current profile
    import importlib

    breadth = importlib.import_module('gradrepl.paddle.nn.breadth')
    return sorted(set(globals()) | set(breadth.names("paddle.nn.functional")))


from ...names_gate import gate as _gate  # noqa: E402  (the names of the emulated version)

_gate(__name__)
