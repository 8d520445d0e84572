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
- ``needs_more(lines, following)``: whether an input made of ``lines`` takes another line: the
  shell's Enter key, its reader of piped input and the session file parser ask it. When the
  next line is known (piped input, a session file), an empty line followed by an indented one
  does not end a block: a class with an empty line between its methods stays one input.

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


def needs_more(lines, following=None) -> bool:
    """Whether an input made of ``lines`` asks for another ``... `` line: the console waits
    for more, or the input is a block that its closing empty line has not ended yet.

    ``following``: the line after ``lines`` when it can be known (a session file, a script
    piped in), or a function giving it (asked only when needed), or None (someone typing). An
    empty line inside a block does not end the block when the line after it is indented: the
    block goes on (a ``class`` with an empty line between its methods), as a script means it."""
    blank_end = len(lines) > 1 and not lines[-1].strip()
    src = "\n".join(lines[:-1]) + "\n" if blank_end else "\n".join(lines)  # (its indent aside)
    if not is_complete(src):
        return True
    if blank_end:
        # the closing empty line ends a block, unless the block goes on after it
        nxt = following() if callable(following) else following
        return bool(nxt and nxt[:1] in (" ", "\t") and nxt.strip())
    return not is_complete(src + "\n")
