"""``paddle.static``: a small static graph mode.

``paddle.enable_static()`` makes paddle calls record ops into a ``Program`` (``program.py``) and
return symbolic ``Value``s; an ``Executor`` (``executor.py``) runs a Program on fed arrays and
returns numpy arrays. ``InputSpec`` describes a model input for ``paddle.summary`` and
``paddle.jit.save``. Programs and inference models saved here are files of gradrepl's own
format (``io.py``): they round-trip within gradrepl only.
"""
from __future__ import annotations

from .. import dtypes
from . import nn  # noqa: F401
from .executor import Executor, Scope, global_scope
from .io import load_inference_model, save_inference_model
from .program import (Program, Value, data, default_main_program, default_startup_program,
                      program_guard, setitem)

Variable = Value


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


def cpu_places(device_count=None):
    """The CPU places (one unless ``device_count`` says more)."""
    from ..device import CPUPlace

    return [CPUPlace() for _ in range(device_count or 1)]


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    if name in ("CPUPlace", "CUDAPlace"):
        from .. import device

        return getattr(device, name)
    from ..not_emulated import error

    raise error("paddle.static", name)


from ..names_gate import gate as _gate  # noqa: E402  (the names of the emulated version)

_gate(__name__)
