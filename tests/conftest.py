"""Shared test fixtures.

gradrepl keeps a little process-wide state: the emulated Paddle version (the profile), the print
options, the random generator, the default float dtype and the gradient-recording switch. Tests
that change any of them (a conformance case calling ``paddle.seed`` or ``set_printoptions``, a
test that selects ``--paddle 3``) must not leak the change into the next test, so every test ends
with ``reset_gradrepl_state()``.
"""
from __future__ import annotations

import pytest

import gradrepl.paddle  # noqa: F401  (the whole API, so every op is registered before collection)
from gradrepl.paddle import profiles, state


def reset_gradrepl_state(profile: str = profiles.DEFAULT) -> None:
    """Profile, print options, RNG, default dtype, grad mode and layer names as in a fresh process."""
    state.reset(profile)


@pytest.fixture(autouse=True)
def _fresh_gradrepl_state():
    """After every test, undo whatever global state the test changed."""
    yield
    reset_gradrepl_state()
