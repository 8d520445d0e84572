"""Whether an input is complete: the one rule the shell, the session and session files share.

Python's interactive console decides, line by line, whether to run what was typed or to ask for
another ``... `` line (``codeop``); gradrepl follows it everywhere:

- ``is_complete(source)``: the console would run ``source`` now. A simple statement runs when
  its line is complete; a block (``for``, ``def``, a decorator, a ``class`` with blank lines
  inside) runs after its closing empty line (``source`` then ends with ``"\\n"``); an unclosed
  bracket or a trailing backslash waits; a syntax error is complete (to be shown); a ``%``
  command is one line.
- ``compile_state(source)``: the same question with three answers (``"code"``, ``"more"``,
  ``"error"``), for the shell's reader of piped input, which tells a block's end from an
  unindented line that cannot go on it.
- ``needs_more(lines)``: in a session file, whether an input made of ``lines`` (prompts removed)
  takes the next ``... `` line.

Compiling to ask never warns (``1 is 1``'s SyntaxWarning is the run's to show).
"""
from __future__ import annotations

import codeop  # (imported here, not when first asked: --safe refuses it to a confined session)
import warnings


def compile_state(source: str) -> str:
    """``"code"``: the console would run ``source``; ``"more"``: it asks for another line;
    ``"error"``: it would report a syntax error."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            code = codeop.compile_command(source, "<stdin>", "single")
        except (SyntaxError, ValueError, OverflowError):
            return "error"
    return "more" if code is None else "code"


def is_complete(source: str) -> bool:
    """Whether the console would run ``source`` now (see the module's docstring)."""
    if source.lstrip().startswith("%"):
        return True
    return compile_state(source) != "more"


def needs_more(lines) -> bool:
    """Whether an input made of ``lines`` asks for another ``... `` line: the console waits
    for more, or the input is a block that its closing empty line has not ended yet."""
    src = "\n".join(lines)
    if not is_complete(src):
        return True
    if len(lines) > 1 and not lines[-1].strip():
        return False  # the closing empty line ends a block
    return not is_complete(src + "\n")
