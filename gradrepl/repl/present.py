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

With ``--safe`` the blocks run in the sandbox's kernel-confined child (``SafeRunner``): the
child runs ahead, each output is shown when its key comes (nothing streams, a ``%step`` shows
its frames at once, a ``%graph`` the child's text picture).

Colour (headers, comments, errors) only on a terminal without ``NO_COLOR``. Whatever comes from
the session (comments, inputs, outputs) reaches a terminal with its control characters escaped
(``replay.for_terminal``): an output cannot clear the screen or move the cursor.
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

STOPPED = object()   # a runner with no more blocks to give (its child ended)

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
    def present(self, t, runner) -> str:
        """Walk ``t`` (a parsed ``Transcript``), its blocks run by ``runner`` (``LocalRunner``
        or ``SafeRunner``); returns "done", "quit", "eof", "exited" or "stopped"."""
        from .transcript import HEADER

        n = len(t.blocks)
        where = " in the --safe sandbox" if isinstance(runner, SafeRunner) else ""
        self.write(f"presenting {self.clean(t.path)}: {_plural(n, 'block')}, Paddle "
                   f"{runner.profile} profile{where}\nEnter runs the next block, q quits.\n")
        for k, block in enumerate(t.blocks, 1):
            self.write("\n")
            self.write(f"── block {k} of {n} ── line {block.line}\n", "head")
            comments = [c for c in block.comments if not HEADER.match(c)]
            if comments:
                self.write(self.clean("".join(c + "\n" for c in comments)), "comment")
            self.write(self._input(block.source))
            key = self.wait("(Enter: run it · q: quit)")
            if key != "next":
                self.write(f"({'quit' if key == 'quit' else 'end of input'} at block {k} "
                           f"of {n})\n")
                return key
            res = self._run(runner, block)
            if res is None:
                continue
            if res is STOPPED:
                self.write(f"(block {k} of {n} did not run: {self.clean(runner.why())})\n",
                           "err")
                return "stopped"
            if res.exit_code is not None:
                left = n - k
                self.write(f"(the session exited at block {k} of {n}"
                           + (f"; {_plural(left, 'block')} not run)\n" if left else ")\n"))
                return "exited"
        trailing = [c for c in t.trailing_comments if not HEADER.match(c)]
        if trailing:
            self.write("\n" + self.clean("".join(c + "\n" for c in trailing)), "comment")
        self.write(f"\n(end of {self.clean(t.path)}: {_plural(n, 'block')})\n")
        return "done"

    def clean(self, text: str) -> str:
        """Text from the session (comments, inputs, outputs) as it may reach ``out``: lone
        surrogates written as escapes; on a terminal, control characters too (``\\x1b``), so
        an output cannot move the cursor or hide lines."""
        from .replay import clean_text, for_terminal

        return for_terminal(self.out, clean_text(text))

    def _input(self, source: str) -> str:
        from .transcript import format_input

        text = self.clean("".join(ln + "\n" for ln in format_input(source)))
        if not self.color or source.lstrip().startswith("%"):
            return text
        try:
            from pygments import highlight
            from pygments.formatters import TerminalFormatter
            from pygments.lexers import PythonConsoleLexer

            return highlight(text, PythonConsoleLexer(), TerminalFormatter())
        except Exception:  # noqa: BLE001 - plain text is fine
            return text

    def _run(self, runner, block):
        """Run one block and show what it gives: its ``Result``; None when gradrepl itself
        failed (said, and the lesson goes on); ``STOPPED`` when the runner has no more."""
        stream = _Stream(self.out, self.clean)
        try:
            res = runner.run(block, stream)
        except Exception as exc:  # noqa: BLE001 - a gradrepl bug: say so, go on
            self.write(self.clean(f"gradrepl failed on this input: {type(exc).__name__}: "
                                  f"{exc}\n"), "err")
            return None
        if res is None:
            return STOPPED
        rest = self.clean(res.output[res.streamed:])
        src = block.source.strip()
        if res.kind == "command" and res.error is None:
            if res.frames:
                self.step_through([self.clean(f) for f in res.frames])
                return res
            if _command_name(src) == "graph":
                picture = self._picture(getattr(runner, "session", None), src, res)
                self.write(rest if picture is None or res.value is None else "")
                self.write(picture or "")
                return res
        self.write(rest, "err" if res.error is not None and not res.streamed else None)
        return res

    def _picture(self, session, src, res):
        """A ``%graph`` block's picture as text, when it adds to the output: in colour, or the
        picture a ``%graph -o FILE`` wrote (drawn again, not written). None: the output is
        all there is to show."""
        pic = res.value
        if pic is None and session is not None:
            from .commands import CommandError, graph_picture

            try:
                _, pic, _ = graph_picture(session, shlex.split(src[1:])[1:])
            except (CommandError, ValueError):
                return None
        elif pic is None or not self.color:
            return None  # its text is the output already
        from ..viz.terminal import render_text

        plain = render_text(pic.model, view=pic.view, color=False, unicode=_unicode(self.out))
        if not self.color or self.clean(plain) != plain:
            return self.clean(plain)  # (a name or label with control characters: no colour)
        return render_text(pic.model, view=pic.view, color=True, unicode=_unicode(self.out))

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


class LocalRunner:
    """Each block runs here, in one ``Session``, when its key comes; its prints stream."""

    def __init__(self, t, profile, color=False):
        from .replay import profile_key as _profile_key
        from .session import Session

        self.profile = _profile_key(t, profile)
        self.session = Session(profile=self.profile, color=color)

    def run(self, block, stream):
        return self.session.run(block.source, stream=stream, first_line=block.line)

    def why(self) -> str:
        return "the session ended"


class SafeRunner:
    """``--present --safe``: the session runs in the sandbox's kernel-confined child
    (``safe_replay.run_file``: the parent sends the text, the child sends each block's output
    back as data). The child starts at once and runs ahead of the class; each output is shown
    when its key comes. So nothing streams while it runs, a ``%step`` shows all its frames at
    once, and a ``%graph`` shows the child's text picture (no colour)."""

    def __init__(self, t, profile):
        import queue
        import threading

        from . import safe_replay
        from .replay import profile_key as _profile_key

        self.profile = _profile_key(t, profile)
        self.result = None
        self._records = queue.Queue()
        text = getattr(t, "text", None) or "".join(ln + "\n" for ln in t.lines)

        def work():
            try:
                self.result = safe_replay.run_file(text, t.path, profile, len(t.blocks),
                                                   on_record=self._records.put)
            except Exception as exc:  # noqa: BLE001 - said when the next block is asked for
                self.result = exc
            finally:
                self._records.put(None)

        threading.Thread(target=work, name="gradrepl-present-safe", daemon=True).start()

    def run(self, block, stream):
        from .safe_replay import SandboxedError
        from .result import Result

        rec = self._records.get()   # (Ctrl-C interrupts the wait)
        if rec is None:
            self._records.put(None)   # (asked again: still none)
            return None
        failed = SandboxedError(str(rec.get("error_name") or "Error")) if rec.get("failed") \
            else None
        return Result(output=rec["output"], error=failed, kind=str(rec.get("kind") or
                                                                   "statement"))

    def why(self) -> str:
        r = self.result
        if isinstance(r, Exception):
            return f"the sandbox failed: {type(r).__name__}: {r}"
        if r is None:
            return "the sandboxed session ended"
        if r.exited_at is not None:
            return f"the session exited at line {r.exited_at}"
        return r.limit or r.error or "the sandboxed session ended early"


class _Stream:
    """What a running block prints, written through to the terminal as it comes."""

    def __init__(self, out, clean):
        self.out = out
        self.clean = clean

    def write(self, s):
        self.out.write(self.clean(s))
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
                  color: bool | None = None, safe: bool = False) -> int:
    """``gradrepl replay FILE... --present [--safe]``; returns the exit status: 0 (the end,
    ``q`` or the end of input), 2 (a file that cannot be read or parsed: nothing of it is
    shown; ``--safe`` where this kernel cannot confine the child), 130 (Ctrl-C)."""
    from .replay import load
    from .transcript import TranscriptError

    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    if safe:
        from .kernel import probe

        why = probe()
        if why:
            err.write(f"{PROG} --safe: {why}\n")
            return 2
    if color is None:
        from ..viz.terminal import _stream_wants_color

        color = _stream_wants_color(out)
    p = Presenter(out, keys if keys is not None else terminal_keys(), color=color)
    status = 0
    try:
        for k, path in enumerate(files):
            if len(files) > 1:
                out.write(f"{chr(10) if k else ''}==> {p.clean(path)} <==\n")
            try:
                t = load(path)
                runner = SafeRunner(t, profile) if safe else LocalRunner(t, profile, color)
                end = p.present(t, runner)
            except TranscriptError as exc:
                err.write(f"{PROG}: {p.clean(str(exc))}\n")
                status = 2
                continue
            if end in ("quit", "eof"):
                break
    except KeyboardInterrupt:
        if p.interactive:
            out.write("\r\x1b[K")
        out.write("\n(stopped: Ctrl-C)\n")
        out.flush()
        return 130
    out.flush()
    return status
