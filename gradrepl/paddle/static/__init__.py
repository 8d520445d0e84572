"""``paddle.static``: only ``InputSpec`` (a shape and dtype, as ``paddle.summary`` takes). gradrepl
emulates dynamic graph mode; every other static-graph name fails with an error that says so."""
from __future__ import annotations

from .. import dtypes


class InputSpec:
    """The shape (None read as -1), dtype and name of a model input."""

    def __init__(self, shape, dtype="float32", name=None, stop_gradient=False):
        self.shape = tuple(-1 if d is None else int(d) for d in shape)
        self.dtype = dtypes.from_np(dtypes.to_np(dtype))
        self.name = name
        self.stop_gradient = stop_gradient

    def __repr__(self):
        return (f"InputSpec(shape={self.shape}, dtype={self.dtype}, name={self.name}, "
                f"stop_gradient={self.stop_gradient})")


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    from .. import _STATIC_MODE

    raise AttributeError(f"paddle.static.{name}: {_STATIC_MODE}")
