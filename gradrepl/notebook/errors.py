"""An error in a notebook cell as the shell shows it.

- gradrepl's own files are left out of the traceback (``gradrepl/paddle/core.py`` and the
  rest): the user sees their cell's line and Paddle's or torch's message, as under real Paddle
  (whose C++ is not in a Python traceback either). ``%gradrepl --verbose`` keeps them.
- IPython's "Line magic function `%grpah` not found." gets the magic meant: "did you mean
  %graph?".
"""
from __future__ import annotations

import difflib
import os
import re
import types

_GRADREPL_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_UNKNOWN_MAGIC = re.compile(r"(Line|Cell) magic function `%{1,2}([^`]+)` not found")
OURS = ("graph", "step", "why", "gradrepl")


def is_ours(filename: str) -> bool:
    try:
        return os.path.abspath(filename).startswith(_GRADREPL_DIR + os.sep)
    except (TypeError, ValueError):
        return False


def without_ours(tb):
    """The traceback ``tb`` with gradrepl's own frames taken out (the rest linked anew); the
    first frame (IPython's, which it skips itself) always stays."""
    frames = []
    while tb is not None:
        frames.append(tb)
        tb = tb.tb_next
    if not frames:
        return None
    kept = [frames[0]] + [f for f in frames[1:] if not is_ours(f.tb_frame.f_code.co_filename)]
    new = None
    for f in reversed(kept):
        new = types.TracebackType(new, f.tb_frame, f.tb_lasti, f.tb_lineno)
    return new


def compile_stage(tb) -> bool:
    """Whether the error came while IPython compiled the cell (every frame IPython's own)."""
    import IPython

    ipy = os.path.dirname(os.path.abspath(IPython.__file__)) + os.sep
    while tb is not None:
        if not os.path.abspath(tb.tb_frame.f_code.co_filename).startswith(ipy):
            return False
        tb = tb.tb_next
    return True


def did_you_mean(shell, message: str) -> str | None:
    """The unknown-magic message with the magic meant, or None when it is another message."""
    m = _UNKNOWN_MAGIC.search(message)
    if m is None:
        return None
    kind = "line" if m.group(1) == "Line" else "cell"
    name = m.group(2)
    try:
        known = list(shell.magics_manager.magics[kind])
    except Exception:  # noqa: BLE001 - no table: our own names
        known = list(OURS)
    close = difflib.get_close_matches(name, [n for n in OURS if n in known], n=1, cutoff=0.6) \
        or difflib.get_close_matches(name, known, n=1, cutoff=0.75)
    if not close:
        return None
    pct = "%%" if kind == "cell" else "%"
    return message.rstrip(".") + f": did you mean {pct}{close[0]}?"


def shown_exception(shell, etype, value, tb, verbose=False):
    """``(etype, value, tb)`` as the notebook should show them."""
    from IPython.core.error import UsageError

    if isinstance(value, UsageError):
        better = did_you_mean(shell, str(value))
        if better is not None:
            value = UsageError(better)
            etype = UsageError
        return etype, value, tb
    if verbose:
        return etype, value, tb
    tb = without_ours(tb)
    seen = {id(value)}
    chained = value.__cause__ or value.__context__
    while chained is not None and id(chained) not in seen:   # a chain's tracebacks too
        seen.add(id(chained))
        chained.__traceback__ = without_ours(chained.__traceback__)
        chained = chained.__cause__ or chained.__context__
    value.__traceback__ = tb
    return etype, value, tb
