"""``gradrepl replay FILE --present``: a session walked through in front of a class.

For each block of the file, in order: the block's ``#`` comments and its input as the shell
shows them (``>>> `` and ``... `` lines); then it waits for a key, with a status line at the
bottom (``block 7 of 21 · Enter: run · b: back · g: go to · q: quit``, dim, gone once a key
comes: the only place the progress is shown); then it runs the input in one ``Session`` (the
same evaluator as the shell and the plain replay) and shows the output as it comes. A
``%graph`` block shows its picture as text (``viz.terminal.render_text``) and says where an SVG
of it was written for a browser or a projector (``-o FILE``: that file); a ``%step`` block
shows its frames one at a time, each in place of the one before on a terminal. A block that
fails shows its error and the lesson goes on.

Keys, while waiting: Enter (or space, ``n``, Right) runs the block; ``b`` (or Left, ``p``) goes
back one block: a block that already ran is shown again with the output it gave (it does not
run twice: the session has moved on); ``g`` then a number and Enter goes to that block (the
blocks before it that have not run yet run first, their output not shown); ``q`` quits
(exit 0); Ctrl-D (end of input) ends the lesson (exit 0); Ctrl-C ends it too (exit 130).
Inside a ``%step``: Enter shows the next frame, ``b`` the one before, ``q`` the last one. When
stdin is not a terminal, keys are lines: an empty line is Enter, ``b`` back, ``g 7`` goes to
block 7, ``q`` quits, the end of the input ends.

With ``--safe`` the blocks run in the sandbox's kernel-confined child (``SafeRunner``): the
child runs ahead, each output is shown when its key comes (nothing streams, a ``%step`` shows
its frames at once, a ``%graph`` the child's text picture).

Colour (headers, comments, errors) only on a terminal without ``NO_COLOR``. Whatever comes from
the session (comments, inputs, outputs) reaches a terminal with its control characters escaped
(``replay.for_terminal``): an output cannot clear the screen or move the cursor.
"""
from __future__ import annotations

import os
import re
import shlex
import sys

PROG = "gradrepl replay --present"

from .transcript import HEADER as _HEADER  # noqa: E402  (# gradrepl: lines, not comments)

# a key (bytes read in cbreak mode, or a line's text) -> what it does
KEYS = {b"\r": "next", b"\n": "next", b" ": "next", b"n": "next", b"\x1b[C": "next",
        b"\x1bOC": "next", b"q": "quit", b"Q": "quit", b"\x04": "eof", b"": "eof",
        b"\x00": "eof",   # a Ctrl-D typed before cbreak mode: the line discipline's EOF mark
        b"b": "back", b"B": "back", b"p": "back", b"\x1b[D": "back", b"\x1bOD": "back",
        b"g": "goto", b"G": "goto"}
LINE_KEYS = {"": "next", "n": "next", "q": "quit", "quit": "quit", "b": "back", "back": "back",
             "p": "back", "g": "goto"}

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
            word = line.strip().lower()
            m = re.fullmatch(r"(?:g|go|goto)\s*(\d+)", word)
            if m:
                return ("goto", int(m.group(1)))
            return LINE_KEYS.get(word, "next")

        def read_number():
            line = stream.readline()
            return int(line.strip()) if line.strip().isdigit() else None
        read_line.interactive = False
        read_line.number = read_number
        return read_line

    import termios
    import tty as _tty

    fd = stream.fileno()

    pending = bytearray()   # bytes read but not yet taken (keys typed faster than read)

    def token():
        """The next key press: one byte, or an arrow's escape sequence; b"" at the end."""
        if not pending:
            chunk = os.read(fd, 32)
            if not chunk:
                return b""
            pending.extend(chunk)
        n = 3 if pending[:2] in (b"\x1b[", b"\x1bO") and len(pending) >= 3 else 1
        tok = bytes(pending[:n])
        del pending[:n]
        return tok

    def read_key():
        old = termios.tcgetattr(fd)
        try:
            _tty.setcbreak(fd, termios.TCSANOW)   # keep keys typed before (TCSAFLUSH drops them)
            while True:
                key = KEYS.get(token())
                if key is not None:
                    return key
        finally:
            termios.tcsetattr(fd, termios.TCSADRAIN, old)

    def read_number(echo):
        """Digits typed after ``g``, shown through ``echo``; Enter ends, Esc or q cancels."""
        old = termios.tcgetattr(fd)
        digits = ""
        try:
            _tty.setcbreak(fd, termios.TCSANOW)   # keep keys typed before (TCSAFLUSH drops them)
            while True:
                b = token()
                if b in (b"\r", b"\n"):
                    return int(digits) if digits else None
                if b in (b"\x1b", b"q", b"\x04", b"\x00", b""):
                    return None
                if b in (b"\x7f", b"\x08"):
                    if digits:
                        digits = digits[:-1]
                        echo("\b \b")
                    continue
                ch = b.decode("ascii", "replace")
                if ch.isdigit() and len(digits) < 6:
                    digits += ch
                    echo(ch)
        finally:
            termios.tcsetattr(fd, termios.TCSADRAIN, old)
    read_key.interactive = True
    read_key.number = read_number
    return read_key


class Presenter:
    """Shows one file after another on ``out``, asking ``keys()`` before each block."""

    def __init__(self, out, keys, color: bool = False):
        self.out = out
        self.keys = keys
        self.color = color
        self.interactive = getattr(keys, "interactive", False)
        self._capture = None     # while a block runs: what it showed (to show it again)
        self._mute = False       # a block run by ``g N``: kept, not shown
        self.pictures = None     # a folder for the SVGs of %graph blocks (made when needed)

    # -- writing ---------------------------------------------------------------------------
    def write(self, text: str, style: str | None = None) -> None:
        if style and self.color and text:  # styled line by line: a pager-safe escape pairing
            text = "\n".join(ANSI[style] + ln + ANSI["off"] if ln else ln
                             for ln in text.split("\n"))
        if self._capture is not None:
            self._capture.append(text)
        if self._mute:
            return
        self.out.write(text)
        self.out.flush()

    def control(self, seq: str) -> None:
        """A cursor movement of the presenter's own (never captured, never from the session)."""
        self.out.write(seq)
        self.out.flush()

    def wait(self, hint: str, status: str = ""):
        """The next key; on a terminal the status and hint stand on the last line until a key
        comes (and go then: what comes next takes their line)."""
        if self.interactive:
            self.control((ANSI["hint"] if self.color else "") + (status + " · " if status
                                                                  else "") + hint
                         + (ANSI["off"] if self.color else ""))
        try:
            key = self.keys()
            if key == "goto":
                key = self._ask_number()
            return key
        finally:
            if self.interactive:
                self.control("\r\x1b[K")

    def _ask_number(self):
        number = getattr(self.keys, "number", None)
        if number is None:
            return "next"
        if self.interactive:
            self.control("\r\x1b[K" + "go to block: ")
            n = number(self.control)
        else:
            n = number()
        return ("goto", n) if n is not None else "stay"

    # -- one file ----------------------------------------------------------------------------
    def present(self, t, runner) -> str:
        """Walk ``t`` (a parsed ``Transcript``), its blocks run by ``runner`` (``LocalRunner``
        or ``SafeRunner``); returns "done", "quit", "eof", "exited" or "stopped"."""
        n = len(t.blocks)
        where = " in the --safe sandbox" if isinstance(runner, SafeRunner) else ""
        self.write(f"presenting {self.clean(t.path)}: {_plural(n, 'block')}, Paddle "
                   f"{runner.profile} profile{where}\nEnter runs the next block, b goes back, "
                   "g N goes to block N, q quits.\n")
        self.name = os.path.splitext(os.path.basename(str(t.path)))[0]
        shown = {}       # block number -> what it showed when it ran
        k = 1
        again = False    # (a cancelled ``g``: the block stands on the screen already)
        while k <= n:
            block = t.blocks[k - 1]
            if not again:
                self._show_block(block)
            status = f"block {k} of {n}"
            if k in shown:
                if not again:
                    self.write(shown[k])
                key = self.wait("ran before · Enter: next · b: back · g: go to · q: quit",
                                status)
            else:
                key = self.wait(f"Enter: run it · b: back · g: go to · q: quit", status)
            if key in ("quit", "eof"):
                self.write(f"({'quit' if key == 'quit' else 'end of input'} at block {k} "
                           f"of {n})\n")
                return key
            again = key == "stay"
            if key == "back":
                k = max(1, k - 1)
                continue
            if key == "stay":
                continue
            if isinstance(key, tuple):          # ("goto", N)
                target = min(max(1, key[1]), n)
                end = self._run_quietly(t, runner, shown, k, target)
                if end is not None:
                    return end
                k = target
                continue
            if k in shown:
                k += 1
                continue
            self._capture = []
            try:
                res = self._run(runner, block)
            finally:
                shown[k], self._capture = "".join(self._capture), None
            end = self._after(res, k, n, runner)
            if end is not None:
                return end
            k += 1
        trailing = [c for c in t.trailing_comments if not _HEADER.match(c)]
        if trailing:
            self.write("\n" + self.clean("".join(c + "\n" for c in trailing)), "comment")
        self.write(f"\n(end of {self.clean(t.path)}: {_plural(n, 'block')})\n")
        return "done"

    def _show_block(self, block):
        self.write("\n")
        comments = [c for c in block.comments if not _HEADER.match(c)]
        if comments:
            self.write(self.clean("".join(c + "\n" for c in comments)), "comment")
        self.write(self._input(block.source))

    def _after(self, res, k, n, runner):
        """What a run block's result means for the lesson: None (go on) or how it ends."""
        if res is None or res == "quiet":
            return None
        if res is STOPPED:
            self.write(f"(block {k} of {n} did not run: {self.clean(runner.why())})\n", "err")
            return "stopped"
        if res.exit_code is not None:
            left = n - k
            self.write(f"(the session exited at block {k} of {n}"
                       + (f"; {_plural(left, 'block')} not run)\n" if left else ")\n"))
            return "exited"
        return None

    def _run_quietly(self, t, runner, shown, k, target):
        """``g N`` forward: the blocks from ``k`` up to ``N`` that have not run, run now with
        their output kept (shown when one goes back to them), not shown."""
        todo = [j for j in range(k, target) if j not in shown]
        if not todo:
            return None
        n = len(t.blocks)
        self.write(f"(running block{'s' if len(todo) > 1 else ''} "
                   + (f"{todo[0]} to {todo[-1]}" if len(todo) > 1 else f"{todo[0]}")
                   + f" without showing {'them' if len(todo) > 1 else 'it'})\n", "hint")
        for j in todo:
            self._capture, self._mute = [], True
            try:
                res = self._run(runner, t.blocks[j - 1], steps=False)
            finally:
                shown[j], self._capture, self._mute = "".join(self._capture), None, False
            end = self._after(res, j, n, runner)
            if end is not None:
                self.write(shown[j])
                return end
        return None

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

    def _run(self, runner, block, steps=True):
        """Run one block and show what it gives: its ``Result``; None when gradrepl itself
        failed (said, and the lesson goes on); ``STOPPED`` when the runner has no more."""
        stream = _Stream(self, self.clean)
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
                frames = [self.clean(f) for f in res.frames]
                if steps:
                    self.step_through(frames)
                else:
                    self.write(frames[-1] if frames[-1].endswith("\n") else frames[-1] + "\n")
                return res
            if _command_name(src) == "graph":
                session = getattr(runner, "session", None)
                picture = self._picture(session, src, res)
                self.write(rest if picture is None or res.value is None else "")
                self.write(picture or "")
                svg = self._svg(session, src, res)
                if svg:
                    self.write(f"(the picture: {self.clean(svg)})\n", "hint")
                return res
        self.write(rest, "err" if res.error is not None and not res.streamed else None)
        return res

    def _svg(self, session, src, res):
        """A ``%graph`` block without ``-o``: its picture written as an SVG in a folder of the
        lesson's pictures (for a browser beside the terminal); its path, or None."""
        if session is None:
            return None
        try:
            args = shlex.split(src[1:])[1:]
        except ValueError:
            return None
        if "-o" in args or "--output" in args or any(a.startswith("--output=") for a in args):
            return None
        try:
            from .commands import CommandError, graph_picture

            name, pic, _ = graph_picture(session, args)
        except Exception:  # noqa: BLE001 - the text picture is shown already
            return None
        if self.pictures is None:
            import tempfile

            self.pictures = tempfile.mkdtemp(prefix=f"gradrepl-present-{self.name}-")
        self._svg_count = getattr(self, "_svg_count", 0) + 1
        safe = re.sub(r"[^A-Za-z0-9_.-]", "_", str(name or "graph"))[:40]
        path = os.path.join(self.pictures, f"{self._svg_count:02d}_{safe}.svg")
        try:
            pic.render(path)
        except Exception:  # noqa: BLE001 - no Graphviz, a full disk: the text picture stays
            return None
        return path

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
        """A ``%step``'s frames one at a time; on a terminal each takes the place of the one
        before (the cursor goes back up over it), so the tree stays where it is and only what
        the step changed changes. Enter: the next, ``b``: the one before, ``q``: the last."""
        n = len(frames)
        k = 0
        mark = len(self._capture) if self._capture is not None else None
        height = 0
        while True:
            text = frames[k] if frames[k].endswith("\n") else frames[k] + "\n"
            if mark is not None:
                del self._capture[mark:]   # (shown again later: the last frame it showed)
            self.write(text)
            height = _rows(text, self._columns())
            if k == n - 1:
                return
            key = self.wait("Enter: next step · b: the step before · q: the last step",
                            f"step {k} of {n - 1}")
            if key == "next":
                k += 1
            elif key == "back":
                k = max(0, k - 1)
            elif key == "quit":
                if k < n - 2 and not self.interactive:
                    self.write(f"(on to the last of the {n} frames)\n")
                k = n - 1
            elif key == "stay" or isinstance(key, tuple):
                pass
            else:
                return
            if self.interactive:
                self._erase(height)
            else:
                self.write("\n")

    def _columns(self):
        try:
            return os.get_terminal_size(self.out.fileno()).columns
        except (AttributeError, OSError, ValueError):
            return 80

    def _lines(self):
        try:
            return os.get_terminal_size(self.out.fileno()).lines
        except (AttributeError, OSError, ValueError):
            return 24

    def _erase(self, height):
        """Take back the last ``height`` rows written (the frame before), or the whole screen
        when they no longer all stand on it."""
        if height < self._lines():
            self.control(f"\x1b[{height}A\r\x1b[J" if height else "\r\x1b[J")
        else:
            self.control("\x1b[H\x1b[2J\x1b[3J")


def _rows(text, columns):
    """Terminal rows ``text`` takes (ending with a newline), lines wrapped at ``columns``."""
    plain = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text)
    rows = 0
    for ln in plain.split("\n")[:-1]:
        rows += max(1, -(-len(ln) // max(1, columns)))
    return rows


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
    """What a running block prints, written through to the terminal as it comes (through the
    presenter, which keeps it to show the block again)."""

    def __init__(self, presenter, clean):
        self.presenter = presenter
        self.clean = clean

    def write(self, s):
        self.presenter.write(self.clean(s))
        return len(s)

    def flush(self):
        self.presenter.out.flush()


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
