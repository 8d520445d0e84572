"""The process-wide state of the Paddle API, and how to put it back as a fresh process has it.

gradrepl keeps a little global state, as Paddle does: the emulated version (the profile), the
print options, the random generator, the default float dtype, the gradient-recording switch and
the counters that name tensors, layers and parameters (``generated_tensor_3``, ``linear_0.w_0``). ``reset()`` restores all of it:
the test suite calls it between tests, the conformance runner between cases, and the shell when
a new session starts.
"""
from __future__ import annotations

import dataclasses

from ..engine import grad_mode
from . import printing, profiles
from .tensor import creation


def reset_print_options():
    """Every field of the print options back to its default, in place (others hold a reference)."""
    fresh = type(printing.OPTIONS)()
    for f in dataclasses.fields(fresh):
        setattr(printing.OPTIONS, f.name, getattr(fresh, f.name))


def reset(profile: str | None = None) -> None:
    """Profile (the default unless given), print options, RNG, default dtype, grad mode, names."""
    profiles.set_profile(profile or profiles.DEFAULT)
    reset_print_options()
    creation._RNG[0] = creation.Generator(0)
    creation.set_default_dtype("float32")
    grad_mode.STATE.enabled = True
    from . import core, flags
    from .nn.layer import layers

    flags.reset()

    layers.reset_names()
    core.reset_tensor_names()
