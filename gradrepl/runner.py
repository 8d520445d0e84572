"""Run a Paddle script file with gradrepl standing in for Paddle (``gradrepl run``)."""
from __future__ import annotations

import os
import re
import runpy
import sys

from .engine import quiet_fp
from .importhook import paddle_modules
from .paddle import profiles
from .paddle.import_notes import script_run
from .paddle.numpy_era import numpy_era

_HEADER = re.compile(r"^#\s*gradrepl:\s*paddle\s*=\s*([\w.]+)")


def header_profile(path) -> str | None:
    """The ``# gradrepl: paddle=3`` first line of a script, if any."""
    try:
        with open(path, encoding="utf-8") as f:
            first = f.readline()
    except OSError:
        return None
    m = _HEADER.match(first.strip())
    return m.group(1) if m else None


def run_script(path: str, argv=None, profile: str | None = None) -> int:
    key = profile or header_profile(path)
    if key is not None:
        profiles.set_profile(key)
    old_argv, old_path = sys.argv, list(sys.path)
    sys.argv = [path] + list(argv or [])
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))  # as `python script.py` does
    try:
        with paddle_modules(), quiet_fp(), numpy_era(path), script_run():
            # __main__'s __file__ (warnings, tracebacks) is absolute, as Python >= 3.9 makes it
            runpy.run_path(os.path.abspath(path), run_name="__main__")
    finally:
        sys.argv = old_argv
        sys.path[:] = old_path
    return 0


def run_captured(path: str, profile: str | None = None) -> tuple[str, BaseException | None]:
    """Run a script in a fresh state (``paddle.state.reset``) under ``profile`` and return what
    it printed, with the exception it ended with (None if it ran to the end).

    The working directory is restored afterwards. Used by the tests and the session replays.
    """
    import contextlib
    import io

    from .paddle import state

    state.reset(profile)
    buf = io.StringIO()
    error = None
    cwd = os.getcwd()
    try:
        with contextlib.redirect_stdout(buf):
            run_script(path, profile=profile)
    except Exception as exc:  # noqa: BLE001 - the caller decides what a failing script means
        error = exc
    finally:
        os.chdir(cwd)
    return buf.getvalue(), error
