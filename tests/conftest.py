"""Shared test fixtures.

gradrepl keeps a little process-wide state: the emulated Paddle version (the profile), the print
options, the random generator, the default float dtype and the gradient-recording switch. Tests
that change any of them (a conformance case calling ``paddle.seed`` or ``set_printoptions``, a
test that selects ``--paddle 3``) must not leak the change into the next test, so every test ends
with ``reset_gradrepl_state()``.
"""
from __future__ import annotations

import copy
import dataclasses

import pytest

import gradrepl.paddle  # noqa: F401  (the whole API, so every op is registered before collection)
from gradrepl.engine import grad_mode
from gradrepl.paddle import printing, profiles
from gradrepl.paddle.tensor import creation


def _snapshot_rng():
    """The random generator as it is in a fresh process, to restore between tests."""
    holder = getattr(creation, "_RNG", None)
    if isinstance(holder, list) and holder:
        return copy.deepcopy(holder[0])
    return None


_FRESH_RNG = _snapshot_rng()


def reset_print_options():
    """Put every field of the print options back to its default, in place.

    In place, because other modules may hold a reference to ``printing.OPTIONS``.
    """
    fresh = type(printing.OPTIONS)()
    for f in dataclasses.fields(fresh):
        setattr(printing.OPTIONS, f.name, getattr(fresh, f.name))


def reset_rng():
    """The random generator as a fresh process has it (``paddle.seed(0)`` if it cannot be copied)."""
    holder = getattr(creation, "_RNG", None)
    if _FRESH_RNG is not None and isinstance(holder, list) and holder:
        holder[0] = copy.deepcopy(_FRESH_RNG)
    else:
        creation.seed(0)


def reset_gradrepl_state(profile: str = profiles.DEFAULT) -> None:
    """Profile, print options, RNG, default dtype and grad mode as in a fresh process."""
    profiles.set_profile(profile)
    reset_print_options()
    reset_rng()
    creation.set_default_dtype("float32")
    grad_mode.STATE.enabled = True


@pytest.fixture(autouse=True)
def _fresh_gradrepl_state():
    """After every test, undo whatever global state the test changed."""
    yield
    reset_gradrepl_state()
