"""``paddle.base``: the legacy namespace (``paddle.fluid`` before 2.6) that some examples import
from. gradrepl serves its dynamic-graph parts (flags, ``dygraph`` helpers, ``framework``); the
static-graph parts (``Program``, ``Executor``, ``program_guard``, layers of the static graph) are
left out and name themselves when used.
"""
from __future__ import annotations

from . import core, dygraph, framework  # noqa: F401
from .framework import in_dygraph_mode  # noqa: F401

_FLAGS = {
    "FLAGS_use_stride_kernel": True,
    "FLAGS_check_nan_inf": False,
    "FLAGS_set_to_1d": False,
    "FLAGS_eager_delete_tensor_gb": 0.0,
}


def enable_dygraph(place=None):
    """Dynamic mode is gradrepl's only mode (``disable_dygraph`` is recorded, not obeyed)."""
    dygraph.base._DYGRAPH[0] = True


def disable_dygraph():
    dygraph.base._DYGRAPH[0] = False


def set_flags(flags):
    """Paddle's global flags: stored and read back; they change nothing in gradrepl."""
    if not isinstance(flags, dict):
        raise TypeError("flags in set_flags should be a dict")
    for key, value in flags.items():
        if not isinstance(key, str) or not key.startswith("FLAGS_"):
            raise ValueError(f"Flag {key} cannot set its value through this function.")
        _FLAGS[key] = value


def get_flags(flags):
    names = [flags] if isinstance(flags, str) else list(flags)
    out = {}
    for key in names:
        if key not in _FLAGS:
            raise ValueError(f"Flag {key} cannot get its value through this function.")
        out[key] = _FLAGS[key]
    return out


_STATIC = ("Program", "Executor", "program_guard", "default_main_program",
           "default_startup_program", "global_scope", "scope_guard", "CompiledProgram",
           "ParallelExecutor", "layers", "io", "compiler", "executor", "Scope")


def __getattr__(name):
    if name in _STATIC:
        raise AttributeError(
            f"paddle.base.{name} is part of Paddle's static graph, which gradrepl does not "
            "emulate (it runs Paddle's dynamic graph only)")
    raise AttributeError(f"module 'paddle.base' has no attribute {name!r}")
