"""``torch._dynamo`` and what ``torch.compile`` gives back, for a CPU workbench that has no
compiler: a compiled function is the function itself (called as it is, same values: gradrepl
has one eager path), a compiled module is torch's ``OptimizedModule`` wrapper (its repr, its
``_orig_mod.`` state-dict keys, attribute look-ups passed to the wrapped module)."""
from __future__ import annotations

import functools
import types

from .nn.modules import Module

config = types.SimpleNamespace(suppress_errors=False, verbose=False, cache_size_limit=8,
                               recompile_limit=8, capture_scalar_outputs=False)


def reset():
    """``torch._dynamo.reset()``: forget compiled code (there is none here)."""
    return None


def _passthrough(fn=None, *args, **kwargs):
    if fn is None or not callable(fn):
        return lambda f: f
    return fn


disable = allow_in_graph = disallow_in_graph = assume_constant_result = _passthrough


def mark_dynamic(t, index, **kwargs):
    return None


mark_static = maybe_mark_dynamic = mark_dynamic


def graph_break():
    return None


class OptimizedModule(Module):
    """What ``torch.compile(module)`` returns: the module under ``_orig_mod``."""

    def __init__(self, mod, dynamo_ctx=None):
        super().__init__()
        self._orig_mod = mod
        self.dynamo_ctx = dynamo_ctx
        self.training = mod.training

    def forward(self, *args, **kwargs):
        return self._orig_mod(*args, **kwargs)

    def __getattr__(self, name):
        if name == "_orig_mod":
            return self._modules["_orig_mod"]
        return getattr(self._modules["_orig_mod"], name)


OptimizedModule.__module__ = "torch._dynamo.eval_frame"


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None,  # noqa: A001
            options=None, disable=False):
    """``torch.compile``: as a decorator (with or without arguments) or a call; modules are
    wrapped in ``OptimizedModule``, functions run as they are."""
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be "
                           "specified at the same time.")
    if model is None:
        return lambda m: compile(m, fullgraph=fullgraph, dynamic=dynamic, backend=backend,
                                 mode=mode, options=options, disable=disable)
    if isinstance(model, Module):
        return OptimizedModule(model)
    if not callable(model):
        raise RuntimeError("compile only supports functions and modules")

    @functools.wraps(model)
    def compiled(*args, **kwargs):
        return model(*args, **kwargs)

    return compiled
