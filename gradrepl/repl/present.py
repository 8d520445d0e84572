"""``gradrepl replay FILE --present``: a session walked through in front of a class.

For each block of the file, in order: a header ``block k of n`` (the step-through's numbering
style, ``step k of n``), the block's ``#`` comments and its input as the shell shows them
(``>>> `` and ``... `` lines); then it waits for a key; then it runs the input in one
``Session`` (the same evaluator as the shell and the plain replay) and shows the output as it
comes. A ``%graph`` block shows its picture as text (``viz.terminal.render_text``; with ``-o
FILE`` the file is written and the picture shown too); a ``%step`` block shows its frames one
at a time, as the shell does. A block that fails shows its error and the lesson goes on.

Keys, while waiting: Enter (or space, ``n``) runs the block; ``q`` quits (exit 0); Ctrl-D
(end of input) ends the lesson (exit 0); Ctrl-C ends it too (exit 130). Inside a ``%step``:
Enter shows the next frame, ``q`` the last one. When stdin is not a terminal, keys are lines:
an empty line is Enter, ``q`` quits, the end of the input ends.

Colour (headers, comments, errors) only on a terminal without ``NO_COLOR``.
"""
from __future__ import annotations

import os
import shlex
import sys

PROG = "gradrepl replay --present"

# a key (bytes read in cbreak mode, or a line's text) -> what it does
KEYS = {b"\r": "next", b"\n": "next", b" ": "next", b"n": "next", b"q": "quit", b"Q": "quit",
        b"\x04": "eof", b"": "eof"}
LINE_KEYS = {"": "next", "n": "next", "q": "quit", "quit": "quit"}

ANSI = {"head": "\x1b[1m", "rule": "\x1b[90m", "comment": "\x1b[3;90m", "err": "\x1b[31m",
        "hint": "\x1b[2m", "off": "\x1b[0m"}


def terminal_keys(stream=None):
    """A function returning the next key ("next", "quit", "eof") read from ``stream`` (stdin):
    single keys on a terminal (cbreak mode, so Ctrl-C still interrupts), else lines."""
    stream = sys.stdin if stream is None else stream
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):
        tty = False
    if not tty:
        def read_line():
            line = stream.readline()
            if not line:
                return "eof"
            return LINE_KEYS.get(line.strip().lower(), "next")
        read_line.interactive = False
        return read_line

    import termios
    import tty as _tty

    fd = stream.fileno()

    def read_key():
        old = termios.tcgetattr(fd)
        try:
            _tty.setcbreak(fd)
            while True:
                key = KEYS.get(os.read(fd, 32))
                if key is not None:
                    return key
        finally:
            termios.tcsetattr(fd, termios.TCSADRAIN, old)
    read_key.interactive = True
    return read_key


class Presenter:
    """Shows one file after another on ``out``, asking ``keys()`` before each block."""

    def __init__(self, out, keys, color: bool = False):
        self.out = out
        self.keys = keys
        self.color = color
        self.interactive = getattr(keys, "interactive", False)

    # -- writing ---------------------------------------------------------------------------
    def write(self, text: str, style: str | None = None) -> None:
        if style and self.color and text:  # styled line by line: a pager-safe escape pairing
            text = "\n".join(ANSI[style] + ln + ANSI["off"] if ln else ln
                             for ln in text.split("\n"))
        self.out.write(text)
        self.out.flush()

    def wait(self, hint: str) -> str:
        """The next key; on a terminal the hint stands on its own line until a key comes."""
        if self.interactive:
            self.write(hint, "hint")
        try:
            return self.keys()
        finally:
            if self.interactive:
                self.write("\r\x1b[K")  # the hint goes; what comes next takes its line

    # -- one file ----------------------------------------------------------------------------
    def present(self, t, profile: str | None = None) -> str:
        """Walk ``t`` (a parsed ``Transcript``); returns "done", "quit", "eof" or "exited"."""
        from .replay_cli import _profile_key
        from .session import Session
        from .transcript import HEADER

        key = _profile_key(t, profile)
        session = Session(profile=key, color=self.color)
        n = len(t.blocks)
        self.write(f"presenting {t.path}: {_plural(n, 'block')}, Paddle {key} profile\n"
                   "Enter runs the next block, q quits.\n")
        for k, block in enumerate(t.blocks, 1):
            self.write("\n")
            self.write(f"── block {k} of {n} ── line {block.line}\n", "head")
            comments = [c for c in block.comments if not HEADER.match(c)]
            if comments:
                self.write("".join(c + "\n" for c in comments), "comment")
            self.write(self._input(block.source))
            key_ = self.wait("(Enter: run it · q: quit)")
            if key_ != "next":
                self.write(f"({'quit' if key_ == 'quit' else 'end of input'} at block {k} "
                           f"of {n})\n")
                return key_
            res = self._run(session, block)
            if res is None:
                continue
            if res.exit_code is not None:
                left = n - k
                self.write(f"(the session exited at block {k} of {n}"
                           + (f"; {_plural(left, 'block')} not run)\n" if left else ")\n"))
                return "exited"
        trailing = [c for c in t.trailing_comments if not HEADER.match(c)]
        if trailing:
            self.write("\n" + "".join(c + "\n" for c in trailing), "comment")
        self.write(f"\n(end of {t.path}: {_plural(n, 'block')})\n")
        return "done"

    def _input(self, source: str) -> str:
        from .transcript import format_input

        text = "".join(ln + "\n" for ln in format_input(source))
        if not self.color or source.lstrip().startswith("%"):
            return text
        try:
            from pygments import highlight
            from pygments.formatters import TerminalFormatter
            from pygments.lexers import PythonConsoleLexer

            return highlight(text, PythonConsoleLexer(), TerminalFormatter())
        except Exception:  # noqa: BLE001 - plain text is fine
            return text

    def _run(self, session, block):
        """Run one block and show what it gives; None when gradrepl itself failed."""
        stream = _Stream(self.out)
        try:
            res = session.run(block.source, stream=stream, first_line=block.line)
        except Exception as exc:  # noqa: BLE001 - a gradrepl bug: say so, go on
            self.write(f"gradrepl failed on this input: {type(exc).__name__}: {exc}\n", "err")
            return None
        rest = res.output[res.streamed:]
        src = block.source.strip()
        if res.kind == "command" and res.error is None:
            if res.frames:
                self.step_through(res.frames)
                return res
            if _command_name(src) == "graph":
                self.write(rest if not self.color or res.value is None else "")
                self.write(self._picture(session, src, res))
                return res
        self.write(rest, "err" if res.error is not None and not res.streamed else None)
        return res

    def _picture(self, session, src, res) -> str:
        """A ``%graph`` block's picture as text: the one it returned, or (``-o FILE``) the same
        picture drawn again without writing."""
        pic = res.value
        if pic is None:
            from .commands import CommandError, graph_picture

            try:
                _, pic, _ = graph_picture(session, shlex.split(src[1:])[1:])
            except (CommandError, ValueError):
                return ""
        elif not self.color:
            return ""  # its text is the output already
        from ..viz.terminal import render_text

        return render_text(pic.model, view=pic.view, color=self.color,
                           unicode=_unicode(self.out))

    def step_through(self, frames) -> None:
        n = len(frames)
        k = 0
        while True:
            text = frames[k]
            self.write(text if text.endswith("\n") else text + "\n")
            if k == n - 1:
                return
            key = self.wait("(Enter: next step · q: the last step)")
            if key == "next":
                k += 1
                self.write("\n")
            elif key == "quit":
                if k < n - 2:
                    self.write(f"(on to the last of the {n} frames)\n")
                k = n - 1
            else:
                return


class _Stream:
    """What a running block prints, written through to the terminal as it comes."""

    def __init__(self, out):
        self.out = out

    def write(self, s):
        self.out.write(s)
        return len(s)

    def flush(self):
        self.out.flush()


def _command_name(src: str) -> str:
    body = src[1:].split(None, 1) if src.startswith("%") else []
    return body[0] if body else ""


def _plural(n, word):
    return f"{n} {word}" + ("" if n == 1 else "s")


def _unicode(stream) -> bool:
    enc = getattr(stream, "encoding", None) or "utf-8"
    return enc.lower().replace("-", "").replace("_", "") in ("utf8", "utf16", "utf32")


def present_files(files, profile: str | None = None, out=None, err=None, keys=None,
                  color: bool | None = None) -> int:
    """``gradrepl replay FILE... --present``; returns the exit status: 0 (the end, ``q`` or
    the end of input), 2 (a file that cannot be read or parsed: nothing of it is shown), 130
    (Ctrl-C)."""
    from .replay_cli import load
    from .transcript import TranscriptError

    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    if color is None:
        from ..viz.terminal import _stream_wants_color

        color = _stream_wants_color(out)
    p = Presenter(out, keys if keys is not None else terminal_keys(), color=color)
    status = 0
    try:
        for k, path in enumerate(files):
            if len(files) > 1:
                out.write(f"{chr(10) if k else ''}==> {path} <==\n")
            try:
                t = load(path)
                end = p.present(t, profile)
            except TranscriptError as exc:
                err.write(f"{PROG}: {exc}\n")
                status = 2
                continue
            if end in ("quit", "eof"):
                break
    except KeyboardInterrupt:
        if p.interactive:
            out.write("\r")
        out.write("\n(stopped: Ctrl-C)\n")
        out.flush()
        return 130
    out.flush()
    return status
