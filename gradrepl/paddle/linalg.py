"""``paddle.linalg``: the linear-algebra functions, gathered from the API modules."""
from .tensor import linalg as _linalg
from .tensor import reduce as _reduce


def __getattr__(name):
    for mod in (_linalg, _reduce):
        if hasattr(mod, name):
            return getattr(mod, name)
    raise AttributeError(f"module 'paddle.linalg' has no attribute {name!r}")
