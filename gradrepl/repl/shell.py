"""The interactive shell: ``gradrepl`` (alone) or ``gradrepl shell [--paddle 3] [--verbose]``.

Python's habits: ``>>> `` and ``... `` prompts, expression statements echo their value (a Tensor
in the profile's Paddle format), ``_`` holds the last one, ``import paddle`` is gradrepl's Paddle,
``exit()`` and Ctrl-D leave. The evaluating is ``Session``'s (``session.py``); this module only
reads input and shows results, in one of three ways:

- a terminal (stdin and stdout ttys, ``TERM`` not dumb): prompt_toolkit, with Python highlighting,
  Tab completion (``completion.py``), suggestions from a persistent history, multi-line blocks
  with auto-indent, bracketed paste of whole scripts (run statement by statement, as the console
  would), a bottom toolbar with the profile; rich for tables, step frames and errors (plain text
  under ``NO_COLOR``);
- stdin not a terminal (``gradrepl < file``, pipes): the input is fed line by line as Python's
  console would (values echo), outputs on stdout, errors on stderr, no prompts, no banner.
  A block may end without its empty line (the next unindented statement ends it), and an empty
  line inside a block is kept when the block goes on after it, so scripts run as written.
  Errors do not stop the run; the exit status is 1 if any input failed (``exit(n)``: n);
- a dumb terminal, or stdout not a terminal: the same line reading with prompts (on stderr when
  stdout is not a terminal, as ``python`` does).

The first prompt comes before anything heavy is imported (``benchmarks/startup.py``):

- ``>>> `` is written as soon as the shell knows it has a terminal, before prompt_toolkit
  (0.1-0.2 s of imports) is; the terminal keeps what is typed meanwhile (``_EarlyPrompt``) and
  prompt_toolkit draws the same prompt over it;
- gradrepl.paddle (0.3-0.8 s) is imported in a background thread once prompt_toolkit has drawn
  its prompt. gradrepl's modules import each other in circles, which Python's per-module import
  locks do not survive when two threads import them at once, so the main thread waits for that
  thread before it runs a statement or completes a name;
- the ``gradrepl`` command's own options go around typer's option processing, which imports
  pydantic (0.1-0.2 s) for any option value (see ``gradrepl/cli.py``);
- keep the imports at the top of this module light (``python -X importtime -c "import
  gradrepl.repl.shell"``).
"""
from __future__ import annotations

import os
import sys

from .complete import compile_state, is_complete, needs_more
from .commands import NUMERIC
from .session import PS1, PS2, Session

BANNER = ("gradrepl {version}: Python with Paddle {paddle} (profile {profile}); "
          "%help lists the commands, Ctrl-D leaves.")


# ---------------------------------------------------------------------------------- profile
def _profiles():
    """gradrepl.paddle.profiles without importing gradrepl.paddle (which costs ~0.5 s): the
    module only needs ``os`` and ``dataclasses``, so it is loaded from its file when the
    package is not imported yet."""
    mod = sys.modules.get("gradrepl.paddle.profiles")
    if mod is not None:
        return mod
    import importlib.util

    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        "paddle", "profiles.py")
    name = "_gradrepl_shell_profiles"
    try:
        spec = importlib.util.spec_from_file_location(name, path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        try:
            spec.loader.exec_module(mod)
        finally:
            sys.modules.pop(name, None)
        return mod
    except Exception:  # noqa: BLE001 - it grew imports: the real one, at the real price
        import importlib

        return importlib.import_module("gradrepl.paddle.profiles")


def resolve_profile(key):
    """``(key, version)`` of the profile ``key`` names (None: ``GRADREPL_PADDLE`` or the
    default); ValueError with the profiles' message for an unknown one."""
    prof = _profiles()
    key = key or os.environ.get("GRADREPL_PADDLE") or prof.DEFAULT
    p = prof.resolve(key)
    return p.key, p.version


def _current_profile(session, fallback):
    """The session's profile for the toolbar, without importing paddle to find it."""
    mod = sys.modules.get("gradrepl.paddle.profiles")
    if mod is not None and session._ready:
        p = mod.current()
        return p.key, p.version
    return fallback


# ---------------------------------------------------------------------------------- output
class _Display:
    """Where results go: stdout for output, the error channel (stderr when stdin is not a
    terminal, else the terminal in red) for errors; remembers whether the cursor is at the
    start of a line so the next prompt starts on a fresh one."""

    def __init__(self, stdout, stderr, color=False, errors_to_stderr=False):
        self.stdout = stdout
        self.stderr = stderr
        self.color = color
        self.errors_to_stderr = errors_to_stderr
        self.at_line_start = True
        self._console = None
        self.had_error = False

    def console(self):
        if self._console is None:
            from rich.console import Console

            self._console = Console(file=self.stdout, force_terminal=True, highlight=False,
                                    soft_wrap=True, emoji=False, markup=False)
        return self._console

    def out(self, text):
        if not text:
            return
        self.stdout.write(text)
        self.stdout.flush()
        self.at_line_start = text.endswith("\n")

    def error(self, text):
        if not text:
            return
        self.had_error = True
        if self.errors_to_stderr:
            self.stdout.flush()
            self.stderr.write(text)
            self.stderr.flush()
            return
        if self.color:
            self._styled_error(text)
        else:
            self.out(text)
        self.at_line_start = True if text.endswith("\n") else self.at_line_start

    def _styled_error(self, text):
        from rich.text import Text

        lines = text.splitlines(keepends=True)
        # the exception line(s): from the last line that does not start with a space
        last = len(lines) - 1
        while last > 0 and lines[last][:1] in (" ", "\t"):
            last -= 1
        body = Text()
        for k, ln in enumerate(lines):
            if ln.startswith("Traceback"):
                body.append(ln, style="bold")
            elif k < last:
                body.append(ln, style="dim" if ln.startswith("    ") else "")
            else:
                body.append(ln, style="bold red")
        self.console().print(body, end="")
        self.stdout.flush()
        self.at_line_start = text.endswith("\n")

    def newline_if_needed(self):
        if not self.at_line_start:
            self.out("\n")

    def flush(self):
        self.stdout.flush()


class _Stream:
    """Session.run's ``stream``: what a statement writes goes through at once; tracebacks
    (marked by ``_ShellSession``) and ``KeyboardInterrupt`` go to the error channel."""

    def __init__(self, display, session):
        self.display = display
        self.session = session
        self.parts = []

    def write(self, s):
        if not s:
            return 0
        self.parts.append(s)
        if self.session._error_next:
            self.session._error_next = False
            self.display.error(s)
        elif _is_interrupt_message(s):
            self.display.error(s)
        else:
            self.display.out(s)
        return len(s)

    def flush(self):
        self.display.flush()

    def mark(self):
        return len(self.parts)

    def since(self, mark):
        return "".join(self.parts[mark:])


def _is_interrupt_message(s):
    """The line Session writes for KeyboardInterrupt / SystemExit('message') while handling it."""
    exc = sys.exc_info()[1]
    if isinstance(exc, KeyboardInterrupt):
        return s == "KeyboardInterrupt\n"
    if isinstance(exc, SystemExit) and exc.code is not None and not isinstance(exc.code, int):
        return s == f"{exc.code}\n"
    return False


def _unstreamed(res, streamed):
    """The part of ``res.output`` that was not written through the stream already."""
    out = res.output or ""
    if not streamed:
        return out
    if out.startswith(streamed):
        return out[len(streamed):]
    return ""


class _ShellSession(Session):
    """Session with two hooks for the shell: a traceback it formats is marked so the stream
    sends it to the error channel, and an input run by ``%load`` shows what it did not stream
    (syntax errors, command output)."""

    _error_next = False
    _depth = 0

    def _builtins(self):
        # exit("message") as Python's: the message on stderr, status 1 (Session's own exit()
        # keeps only the status); SystemExit is what Python's exit() raises
        b = super()._builtins()

        def exit(code=None):  # noqa: A001 - the builtin's name
            raise SystemExit(code)

        b["exit"] = b["quit"] = exit
        return b

    def _format_exception(self, exc):
        text = super()._format_exception(exc)
        self._error_next = True
        return text

    def run(self, source, record=True, stream=None, **kw):
        nested = self._depth > 0
        self._depth += 1
        mark = stream.mark() if isinstance(stream, _Stream) else None
        try:
            res = super().run(source, record=record, stream=stream, **kw)
        finally:
            self._depth -= 1
            self._error_next = False
        if nested and mark is not None:  # an input %load replays: show all of it
            streamed = stream.since(mark)
            rest = _unstreamed(res, streamed)
            if rest:
                stream.parts.append(rest)
                if res.error is not None and not streamed:
                    stream.display.error(rest)
                else:
                    stream.display.out(rest)
        return res


# ------------------------------------------------------------------------- running inputs
class _Runner:
    """Runs one input through the session and shows the result; returns an exit code when the
    input asked to leave."""

    def __init__(self, session, display, interactive_steps=False, read_key=None,
                 before_run=None):
        self.session = session
        self.display = display
        self.interactive_steps = interactive_steps
        self.read_key = read_key
        self.before_run = before_run
        self.failed = False

    def execute(self, source):
        stream = _Stream(self.display, self.session)
        try:
            try:
                if self.before_run is not None:
                    self.before_run()
                res = self.session.run(source, stream=stream)
            except KeyboardInterrupt:
                self.display.newline_if_needed()
                self.display.error("KeyboardInterrupt\n")
                self.failed = True
                return None
            except RecursionError as exc:  # never let a deep structure end the shell
                self.display.error(f"RecursionError: {exc}\n")
                self.failed = True
                return None
            except Exception as exc:  # noqa: BLE001 - a bug in a command must not end the shell
                self.display.newline_if_needed()
                self.display.error(f"gradrepl: internal error: {type(exc).__name__}: {exc}\n")
                self.failed = True
                return None
            if res.error is not None:
                self.failed = True
            self.show(res, stream.since(0))
            if res.exit_code is not None:
                self.display.flush()
                return res.exit_code
        except KeyboardInterrupt:  # while showing: stop showing
            self.display.newline_if_needed()
            self.display.error("KeyboardInterrupt\n")
        return None

    def show(self, res, streamed):
        rest = _unstreamed(res, streamed)
        d = self.display
        if res.kind == "command" and not streamed and res.error is None:
            if res.frames and self.interactive_steps:
                self.step_through(res.frames)
                return
            if d.color and res.table and res.table.get("rows"):
                self.table(res.table, res)
                return
            pic = res.value
            if d.color and pic is not None and hasattr(pic, "text") and hasattr(pic, "model"):
                try:
                    d.out(pic.text(color=True))
                    d.newline_if_needed()
                    if NUMERIC in res.output:   # (%graph --numeric: the check, under it)
                        d.out(NUMERIC + res.output.rpartition(NUMERIC)[2])
                    return
                except Exception:  # noqa: BLE001 - fall back to the plain text
                    pass
        if not rest:
            return
        if res.error is not None and not streamed:
            d.error(rest)
        else:
            d.out(rest)

    def table(self, table, res):
        from rich import box
        from rich.table import Table

        help_table = table["columns"][:1] == ["command"]
        t = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False,
                  header_style="bold", expand=False)
        for k, col in enumerate(table["columns"]):
            t.add_column(col, style="bold cyan" if k == 0 else None,
                         no_wrap=(k == 0 and not help_table), overflow="fold",
                         max_width=44 if (help_table and k == 0) else None)
        for row in table["rows"]:
            t.add_row(*[str(x) for x in row])
        con = self.display.console()
        if help_table:
            from rich.panel import Panel

            con.print(Panel(t, title="gradrepl commands", title_align="left", expand=False,
                            subtitle="Tab completes · Esc Enter runs a block · Ctrl-D leaves",
                            subtitle_align="left"), soft_wrap=False)
        else:
            con.print(t, soft_wrap=False)
        self.display.flush()
        self.display.at_line_start = True

    def step_through(self, frames):
        d = self.display
        n = len(frames)
        k = 0
        while True:
            self._show_frame(frames, k)
            if k == n - 1:
                return
            hint = "-- Enter next, q finish --"
            d.out(hint)
            try:
                key = self.read_key()
            except KeyboardInterrupt:
                key = "stop"
            d.out("\r" + " " * len(hint) + "\r")
            d.at_line_start = True
            if key == "next":
                k += 1
            elif key == "finish":
                if k < n - 2:
                    d.out(f"(on to step {n - 1} of {n - 1})\n")
                self._show_frame(frames, n - 1)
                return
            else:
                return

    def _show_frame(self, frames, k):
        d = self.display
        if k:  # (each frame names its own step: "step 1 of 9: ...")
            if d.color:
                from rich.rule import Rule

                d.console().print(Rule(style="grey50"), soft_wrap=False)
            else:
                d.out("\n")
        text = frames[k]
        d.out(text if text.endswith("\n") else text + "\n")


def _read_step_key():
    """One key from the terminal for %step: "next", "finish" or "stop"."""
    import termios
    import tty

    fd = sys.stdin.fileno()
    old = termios.tcgetattr(fd)
    try:
        tty.setcbreak(fd, termios.TCSANOW)   # keep keys typed before (TCSAFLUSH drops them)
        while True:
            data = os.read(fd, 32)
            if not data or data in (b"\x04", b"\x00"):   # NUL: a Ctrl-D typed before cbreak
                return "stop"
            if data in (b"\r", b"\n", b" ", b"n", b"j", b"\x1b[B", b"\x1b[C", b"\x1bOB",
                        b"\x1bOC"):
                return "next"
            if data in (b"q", b"Q", b"\x1b"):
                return "finish"
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, old)


# -------------------------------------------------------------------------- line feeding
class _Feeder:
    """Python's console rules for text arriving line by line: a simple statement runs when its
    line is complete, a block when an empty line ends it. Two allowances so scripts run as
    written: an unindented statement right after a block ends the block (Python's console
    would report a SyntaxError), and an empty line inside a block is kept when the next line
    is indented (``peek`` looks at it)."""

    def __init__(self):
        self.buf: list[str] = []

    @property
    def waiting(self):
        return bool(self.buf)

    def push(self, line, peek=None):
        """Add one line (without its newline); return the inputs to run now."""
        ready = []
        if not self.buf:
            if not line.strip():
                return ready
            self.buf = [line]
        elif not line.strip():
            # inside brackets, a header alone, or the block goes on after the empty line
            if needs_more(self.buf + [""], following=peek):
                self.buf.append(line)
                return ready
            src = "\n".join(self.buf)
            self.buf = []
            ready.append(_strip_blank_tail(src))
            return ready
        elif line[:1] not in (" ", "\t", "#"):
            src = "\n".join(self.buf)
            if compile_state(src + "\n" + line) == "error" and \
                    compile_state(src + "\n") == "code":
                ready.append(_strip_blank_tail(src))  # the unindented line ends the block
                self.buf = [line]
            else:
                self.buf.append(line)
        else:
            self.buf.append(line)
        src = "\n".join(self.buf)
        if is_complete(src):
            ready.append(_strip_blank_tail(src))
            self.buf = []
        return ready

    def flush(self):
        src = "\n".join(self.buf)
        self.buf = []
        return [_strip_blank_tail(src)] if src.strip() else []


def _strip_blank_tail(src):
    lines = src.split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    return "\n".join(lines)


class _LineReader:
    """Lines from a file descriptor, with a look at the next one (for ``_Feeder``) that waits
    at most ``timeout`` seconds on a pipe, so an interactive pipe is never held up."""

    def __init__(self, fd, timeout=0.2):
        self.fd = fd
        self.timeout = timeout
        self._buf = b""
        self._eof = False
        self._regular = False
        try:
            import stat

            self._regular = stat.S_ISREG(os.fstat(fd).st_mode)
        except OSError:
            pass

    def _fill(self, wait=True):
        if self._eof:
            return False
        if not wait and not self._regular:
            import select

            try:
                r, _, _ = select.select([self.fd], [], [], self.timeout)
            except (OSError, ValueError):
                r = [self.fd]
            if not r:
                return False
        data = os.read(self.fd, 1 << 16)
        if not data:
            self._eof = True
            return False
        self._buf += data
        return True

    def _line(self, raw):
        return raw.decode("utf-8", errors="replace").rstrip("\r")

    def readline(self):
        """The next line without its newline; None at the end of the input."""
        while b"\n" not in self._buf and self._fill(True):
            pass
        if not self._buf:
            return None
        i = self._buf.find(b"\n")
        if i < 0:
            raw, self._buf = self._buf, b""
        else:
            raw, self._buf = self._buf[:i], self._buf[i + 1:]
        return self._line(raw)

    def peek(self):
        """The next non-empty line, not consumed; None at the end of the input, or when a pipe
        brings nothing within ``timeout``."""
        pos = 0
        while True:
            i = self._buf.find(b"\n", pos)
            if i < 0:
                if self._fill(False):
                    continue
                s = self._line(self._buf[pos:])
                return s if s.strip() else None
            s = self._line(self._buf[pos:i])
            if s.strip():
                return s
            pos = i + 1


def run_stdin(session, display, fd=0) -> int:
    """``gradrepl < file`` / pipes: feed the input as the console would, no prompts."""
    runner = _Runner(session, display)
    reader = _LineReader(fd)
    feeder = _Feeder()
    while True:
        line = reader.readline()
        ready = feeder.flush() if line is None else feeder.push(line, peek=reader.peek)
        for src in ready:
            code = runner.execute(src)
            if code is not None:
                return code
        if line is None:
            display.flush()
            return 1 if runner.failed or display.had_error else 0


def run_plain(session, display, prompt_stream) -> int:
    """A dumb terminal, or stdout not a terminal: lines with ``>>> ``/``... `` prompts."""
    runner = _Runner(session, display)
    feeder = _Feeder()
    while True:
        display.newline_if_needed()
        try:
            prompt_stream.write(PS2 if feeder.waiting else PS1)
            prompt_stream.flush()
            line = sys.stdin.readline()
        except KeyboardInterrupt:
            prompt_stream.write("\nKeyboardInterrupt\n")
            feeder.buf = []
            continue
        if not line:
            prompt_stream.write("\n")
            prompt_stream.flush()
            for src in feeder.flush():
                code = runner.execute(src)
                if code is not None:
                    return code
            return 0
        for src in feeder.push(line.rstrip("\n").rstrip("\r")):
            code = runner.execute(src)
            if code is not None:
                return code


# ------------------------------------------------------------------ the terminal (p_t)
def _history_path():
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"),
                                                            ".local", "state")
    return os.path.join(base, "gradrepl", "history")


def _block_chunks(text):
    """A pasted script as the console would take it: top-level statements (decorators and
    several statements on one line stay together), as source text."""
    import ast

    tree = ast.parse(text)
    lines = text.split("\n")
    groups = []
    for node in tree.body:
        start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        end = node.end_lineno
        if groups and start <= groups[-1][1]:
            groups[-1][1] = max(end, groups[-1][1])
        else:
            groups.append([start, end])
    return ["\n".join(lines[s - 1:e]) for s, e in groups]


class _Paste:
    def __init__(self, chunks):
        self.chunks = chunks


def _indent_after(line):
    """The indentation of the line after ``line``: one more level after a ``:``, one less
    after ``return``/``pass``/``break``/``continue``/``raise``."""
    import re

    ind = line[:len(line) - len(line.lstrip())]
    code = line.split("#", 1)[0].rstrip() if "'" not in line and '"' not in line else \
        line.rstrip()
    if code.endswith(":"):
        return ind + "    "
    if re.match(r"\s*(return|pass|break|continue|raise)\b", line):
        return ind[:-4] if ind.endswith("    ") else ind[:-1]
    return ind


class _EarlyPrompt:
    """The first ``>>> `` before prompt_toolkit is imported (0.1-0.2 s): the prompt is drawn
    at once and the terminal set to keep what is typed meanwhile (no echo, no line editing,
    Ctrl-C and Ctrl-D as plain bytes), for prompt_toolkit to read as its first keys; it draws
    the same prompt over this one. prompt_toolkit restores the settings it found when its
    first prompt ends; ``restore`` then gives the terminal its own back (before any statement
    runs, so Ctrl-C interrupts it)."""

    def __init__(self, display, color):
        self.saved = None
        try:
            import termios

            fd = sys.stdin.fileno()
            self.saved = termios.tcgetattr(fd)
            quiet = termios.tcgetattr(fd)
            quiet[3] &= ~(termios.ECHO | termios.ICANON | termios.ISIG | termios.IEXTEN)
            termios.tcsetattr(fd, termios.TCSANOW, quiet)
        except (ImportError, OSError, ValueError, AttributeError):
            self.saved = None
        prompt = f"\x1b[0;35;1m{PS1}\x1b[0m" if color else PS1
        display.stdout.write(prompt + "\r")
        display.stdout.flush()

    def restore(self):
        if self.saved is None:
            return
        try:
            import termios

            termios.tcsetattr(sys.stdin.fileno(), termios.TCSANOW, self.saved)
        except (OSError, ValueError):
            pass
        self.saved = None


class _TerminalShell:
    def __init__(self, session, display, profile, ready=None):
        self.session = session
        self.display = display
        self.profile = profile
        self.ready = ready
        self.runner = _Runner(session, display, interactive_steps=True,
                              read_key=_read_step_key, before_run=self._wait_for_imports)
        self.history = None
        self.paddle_ready = None
        self._import_started = False
        self.pt = self._make_prompt()

    def _wait_for_imports(self):
        if not self._import_started:
            self._start_background_import()
        self.paddle_ready.wait()

    # -- building the prompt ---------------------------------------------------------------
    def _make_prompt(self):
        import threading

        from prompt_toolkit import PromptSession
        from prompt_toolkit.auto_suggest import AutoSuggestFromHistory
        from prompt_toolkit.styles import Style

        from .completion import ShellCompleter, ShellLexer

        self.paddle_ready = threading.Event()
        self.history = _safe_history(_history_path())
        session = PromptSession(
            multiline=True, prompt_continuation=lambda width, n, soft: [("class:prompt", PS2)],
            style=Style.from_dict({"prompt": "bold ansimagenta"}),
            lexer=ShellLexer(), completer=ShellCompleter(self.session, self.paddle_ready),
            complete_while_typing=False, auto_suggest=AutoSuggestFromHistory(),
            # read in the event loop before the first key (a file of at most 10,000 entries:
            # milliseconds): Up typed at once still recalls, even on a loaded machine (a
            # ThreadedHistory could lose that race)
            history=self.history, key_bindings=self._bindings(),
            bottom_toolbar=self._toolbar, enable_open_in_editor=True, tempfile_suffix=".py",
            include_default_pygments_style=True)
        return session

    def _toolbar(self):
        key, version = _current_profile(self.session, self.profile)
        return (f" gradrepl · Paddle {version} (profile {key}) · Tab completes · "
                f"%help · Ctrl-D leaves ")

    def _bindings(self):
        from prompt_toolkit.filters import Condition
        from prompt_toolkit.key_binding import KeyBindings
        from prompt_toolkit.keys import Keys

        kb = KeyBindings()

        def blank_before(event_buffer):
            return not event_buffer.document.current_line_before_cursor.strip()

        @Condition
        def at_indent():
            from prompt_toolkit.application import get_app

            buf = get_app().current_buffer
            before = buf.document.current_line_before_cursor
            return before != "" and not before.strip(" ")

        @Condition
        def tab_indents():
            from prompt_toolkit.application import get_app

            return blank_before(get_app().current_buffer)

        @kb.add("enter")
        def _enter(event):
            buf = event.current_buffer
            if buf.complete_state is not None:
                chosen = buf.complete_state.current_completion is not None
                buf.complete_state = None  # Enter closes the menu, keeping the choice
                if chosen:
                    return
            doc = buf.document
            text = doc.text
            lines = text.split("\n")
            at_end = not doc.text_after_cursor.strip() or len(lines) == 1
            if at_end:
                if not text.strip():
                    buf.text = ""
                    buf.validate_and_handle()
                    return
                if not needs_more(lines):  # (an empty line after a block ends it)
                    if not lines[-1].strip():
                        buf.text = _strip_blank_tail(text)
                    buf.validate_and_handle()
                    return
            if len(lines) == 1:  # one line goes on as a whole, wherever the cursor was
                buf.cursor_position = len(text)
                doc = buf.document
            buf.insert_text("\n" + _indent_after(doc.current_line_before_cursor))

        @kb.add("escape", "enter")
        def _run(event):
            buf = event.current_buffer
            buf.text = _strip_blank_tail(buf.text)
            buf.validate_and_handle()

        @kb.add("tab", filter=tab_indents)
        def _tab(event):
            before = event.current_buffer.document.current_line_before_cursor
            event.current_buffer.insert_text(" " * (4 - len(before) % 4))

        @kb.add("backspace", filter=at_indent)
        def _dedent(event):
            before = event.current_buffer.document.current_line_before_cursor
            event.current_buffer.delete_before_cursor(len(before) % 4 or 4)

        @kb.add(Keys.BracketedPaste)
        def _paste(event):
            data = event.data.replace("\r\n", "\n").replace("\r", "\n")
            buf = event.current_buffer
            if not buf.text.strip() and data.endswith("\n") and data.strip() and \
                    not data.lstrip().startswith("%"):
                try:
                    chunks = _block_chunks(data)
                except (SyntaxError, ValueError, OverflowError):
                    chunks = None
                if chunks:
                    buf.text = chunks[0]
                    buf.cursor_position = len(buf.text)
                    try:
                        buf.history.append_string(_strip_blank_tail(data))
                    except Exception:  # noqa: BLE001 - history is never fatal
                        pass
                    event.app.exit(result=_Paste(chunks))
                    return
            buf.insert_text(data)

        return kb

    # -- the loop ----------------------------------------------------------------------------
    def _start_background_import(self):
        import threading

        if self._import_started:
            return
        self._import_started = True

        # gradrepl's modules import each other in circles, which Python's per-module import
        # locks do not survive when two threads import them at once: the main thread waits for
        # this one (``paddle_ready``) before it runs anything or completes a name.
        def work():
            try:
                import gradrepl.paddle  # noqa: F401
                from .. import engine, importhook  # noqa: F401
                from . import commands  # noqa: F401
                if self.display.color:
                    import rich.console  # noqa: F401
                    import rich.table  # noqa: F401
            except BaseException:  # noqa: BLE001 - the first statement will show the error
                pass
            finally:
                self.paddle_ready.set()

        threading.Thread(target=work, name="gradrepl-import", daemon=True).start()

    def loop(self) -> int:
        def after_render(_app):
            self._start_background_import()

        self.pt.app.after_render += after_render
        while True:
            try:
                self.display.newline_if_needed()
                try:
                    text = self.pt.prompt([("class:prompt", PS1)])
                except KeyboardInterrupt:
                    # nothing runs: the terminal keeps the early prompt's settings, so keys
                    # typed before the next prompt stay bytes for it (in the terminal's own
                    # cooked mode a Ctrl-D typed in between would become an EOF and be lost)
                    continue
                except EOFError:
                    self._terminal_ready()
                    return 0
                except BaseException:
                    self._terminal_ready()
                    raise
                # prompt_toolkit gave back the early prompt's terminal settings (it keeps what
                # it found): the terminal's own go back before a statement runs (Ctrl-C
                # interrupts it)
                self._terminal_ready()
                self._report_history()
                if isinstance(text, _Paste):
                    code = self._run_paste(text.chunks)
                else:
                    code = self.runner.execute(text)
                if code is not None:
                    return code
            except KeyboardInterrupt:
                self.display.newline_if_needed()
                self.display.error("KeyboardInterrupt\n")

    def _terminal_ready(self):
        if self.ready is not None:
            self.ready()
            self.ready = None

    def _run_paste(self, chunks):
        for k, chunk in enumerate(chunks):
            if k:
                self.display.newline_if_needed()
                self._echo_input(chunk)
            code = self.runner.execute(chunk)
            if code is not None:
                return code
        return None

    def _echo_input(self, chunk):
        shown = "".join((PS2 if k else PS1) + ln + "\n" for k, ln in enumerate(chunk.split("\n")))
        if self.display.color:
            try:
                from prompt_toolkit import print_formatted_text
                from prompt_toolkit.formatted_text import PygmentsTokens
                from pygments import lex
                from pygments.lexers.python import PythonLexer

                tokens = []
                for k, ln in enumerate(chunk.split("\n")):
                    tokens.append(("", PS2 if k else PS1))
                    tokens.extend(lex(ln, PythonLexer()))
                print_formatted_text(PygmentsTokens(tokens), end="",
                                     include_default_pygments_style=True)
                self.display.at_line_start = True
                return
            except Exception:  # noqa: BLE001 - plain text then
                pass
        self.display.out(shown)

    def _report_history(self):
        msg = self.history.take_problem()
        if msg:
            self.display.newline_if_needed()
            self.display.stderr.write(msg + "\n")
            self.display.stderr.flush()


def _safe_history(path):
    """A FileHistory whose trouble (a broken file, a directory where the file should be, no
    permission) is reported once and never fatal: the session keeps its history in memory."""
    from prompt_toolkit.history import FileHistory

    class SafeHistory(FileHistory):
        def __init__(self, filename):
            super().__init__(filename)
            self.problem = None
            self.reported = False
            self.broken = False
            try:
                os.makedirs(os.path.dirname(filename), exist_ok=True)
            except OSError as exc:
                self._fail(exc)

        def _fail(self, exc):
            self.broken = True
            if self.problem is None and not self.reported:
                why = exc.strerror or str(exc) if isinstance(exc, OSError) else str(exc)
                self.problem = (f"gradrepl: history file {self.filename}: {why}; "
                                f"this session's history is kept in memory only")

        def take_problem(self):
            msg, self.problem = self.problem, None
            if msg:
                self.reported = True
            return msg

        def load_history_strings(self):
            if self.broken:
                return []
            try:
                items = list(super().load_history_strings())
            except (OSError, ValueError) as exc:
                self._fail(exc)
                return []
            return items[:10000]

        def store_string(self, string):
            if self.broken:
                return
            try:
                super().store_string(string)
            except (OSError, ValueError) as exc:
                self._fail(exc)

    return SafeHistory(path)


# ---------------------------------------------------------------------------------- main
def main(profile=None, verbose=False) -> int:
    """Start the shell; return the exit status."""
    try:
        key, version = resolve_profile(profile)
    except ValueError as exc:
        sys.stderr.write(f"gradrepl: {exc}\n")
        return 2
    stdin_tty = _isatty(sys.stdin)
    stdout_tty = _isatty(sys.stdout)
    term = os.environ.get("TERM", "")
    color = stdout_tty and not os.environ.get("NO_COLOR") and term not in ("dumb", "unknown")
    session = _ShellSession(profile=key, verbose=verbose, color=color, interactive=stdin_tty)
    try:
        if not stdin_tty:
            display = _Display(sys.stdout, sys.stderr, color=False, errors_to_stderr=True)
            try:
                return run_stdin(session, display, sys.stdin.fileno())
            except (OSError, ValueError):  # no file descriptor: read the text object
                return _run_stdin_text(session, display)
        from .. import __version__

        banner = BANNER.format(version=__version__, paddle=version, profile=key)
        plain = not stdout_tty or term in ("dumb", "unknown")
        if not plain:
            try:
                import prompt_toolkit  # noqa: F401
            except ImportError:
                plain = True
        if plain:
            display = _Display(sys.stdout, sys.stderr, color=False,
                               errors_to_stderr=not stdout_tty)
            prompt_stream = sys.stdout if stdout_tty else sys.stderr
            prompt_stream.write(banner + "\n")
            return run_plain(session, display, prompt_stream)
        display = _Display(sys.stdout, sys.stderr, color=color)
        display.out(banner + "\n")
        early = _EarlyPrompt(display, color)
        try:
            shell = _TerminalShell(session, display, (key, version), ready=early.restore)
            return shell.loop()
        finally:
            early.restore()
    except BrokenPipeError:
        try:
            sys.stderr.close()
        except OSError:
            pass
        return 0


def main_args(argv) -> int:
    """``gradrepl shell [--paddle KEY] [--verbose]`` from its arguments."""
    profile, verbose = None, False
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--verbose":
            verbose = True
        elif a == "--paddle" and args:
            profile = args.pop(0)
        elif a.startswith("--paddle="):
            profile = a.split("=", 1)[1]
        else:
            sys.stderr.write(f"gradrepl shell: unexpected argument {a!r} "
                             f"(usage: gradrepl shell [--paddle 2.2|2.6|3] [--verbose])\n")
            return 2
    return main(profile=profile, verbose=verbose)


def _run_stdin_text(session, display):
    runner = _Runner(session, display)
    feeder = _Feeder()
    for line in sys.stdin:
        for src in feeder.push(line.rstrip("\n")):
            code = runner.execute(src)
            if code is not None:
                return code
    for src in feeder.flush():
        code = runner.execute(src)
        if code is not None:
            return code
    return 1 if runner.failed or display.had_error else 0


def _isatty(f):
    try:
        return f.isatty()
    except (AttributeError, ValueError, OSError):
        return False


if __name__ == "__main__":
    sys.exit(main())
