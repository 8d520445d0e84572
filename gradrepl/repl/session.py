"""The evaluator: a namespace, statements in, what the shell would show out. No UI imports.

``Session.run(source)`` executes one input (a statement, a block, or several statements pasted
at once) the way Python's interactive console does: each top-level statement is compiled in
``single`` mode so an expression statement echoes its value (a Tensor in the profile's Paddle
format) and binds ``_``. It returns a ``Result``: the text the shell shows (the statement's
prints, the echo, or the error), plus data the shell may render richer (``Result.value``,
``Result.table``).

- ``import paddle`` (and ``paddle.nn.functional`` ...) resolves to gradrepl's API while the
  session runs; ``import numpy as np`` is numpy.
- Errors show a short traceback of the user's own code (``File "<stdin>", line 1``) and the
  exception with Paddle's type and message; ``verbose=True`` keeps gradrepl's frames.
- A ``KeyboardInterrupt`` during a statement shows ``KeyboardInterrupt``; the namespace keeps
  what the statements before it bound.
- Every statement is marked in an engine provenance ``Recorder``, so pictures label ops with
  the statement that made them (``c = a * b``) and ``%graph --collapse`` sees Layer calls.
- ``%`` lines go to the command table (``commands.py``).

Importing this module is cheap: gradrepl.paddle is imported at the first statement, so the shell
shows its prompt at once.
"""
from __future__ import annotations

import ast
import builtins
import contextlib
import io
import os
import sys
import traceback

from .complete import is_complete  # noqa: F401  (the shell's rule, named here as before)
from .result import Result

PS1, PS2 = ">>> ", "... "
_GRADREPL_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class SessionExit(Exception):
    def __init__(self, code):
        self.code = code


def _exit(code=None):
    raise SessionExit(0 if code is None else code)


class Session:
    """One interactive session: its namespace, history, profile and recorder."""

    def __init__(self, profile: str | None = None, verbose: bool = False, color: bool = False,
                 interactive: bool = False, safe: bool = False):
        self.profile_key = profile
        self.verbose = verbose
        self.color = color
        self.interactive = interactive
        self.safe = safe
        self.history: list[str] = []     # every input, as typed (commands included)
        self.transcript: list[tuple[str, str]] = []  # (input, output) for %record
        self.namespace: dict = {}
        self.recorder = None
        self._ready = False
        self._counter = 0

    # -- set up lazily (the first statement pays for importing paddle) ---------------------
    def _setup(self):
        if self._ready:
            return
        from ..engine import Recorder
        from ..paddle import state

        state.reset(self.profile_key or os.environ.get("GRADREPL_PADDLE") or None)
        self.recorder = Recorder()
        from ..viz.steps import BackwardLog
        from ..viz.why import WhyLog

        # the last backwards' events, with their values: %graph --chain's numbers
        self.backward_log = BackwardLog(max_runs=2)
        self._chain_budget = _ChainBudget(self.backward_log)
        self.why_log = WhyLog(forward=self._chain_budget)  # every backward's gradients, for %why
        self.namespace.clear()
        self.namespace.update({"__name__": "__main__", "__builtins__": self._builtins()})
        self._ready = True

    def _builtins(self):
        b = dict(vars(builtins))
        b["exit"] = b["quit"] = _exit
        if self.safe:
            from .sandbox import safe_builtins

            b = safe_builtins()
            b["exit"] = b["quit"] = _exit
        return b

    def reset(self, profile: str | None = None):
        """A fresh session: the namespace, the profile's state and the names start again."""
        if profile is not None:
            self.profile_key = profile
        self._ready = False
        self._setup()

    @property
    def profile(self) -> str:
        from ..paddle import profiles

        return profiles.current().key

    # -- running input ---------------------------------------------------------------------
    def run(self, source: str, record: bool = True, stream=None, first_line: int = 1) -> Result:
        """Run one input and return what the shell shows for it.

        ``stream``: also write the output there as it comes (the terminal shell), not only
        into ``Result.output``. ``first_line``: where the input starts in its file (safe mode
        names refused lines by it)."""
        self.stream = stream
        self.first_line = first_line
        if not source.strip():
            return Result(kind="empty")
        self.history.append(source.rstrip("\n"))
        if getattr(self, "_chain_budget", None) is not None:
            self._chain_budget.count = 0   # (a new input: its first backward runs are logged)
        stripped = source.strip()
        if stripped.startswith("%"):
            from .commands import run_command

            self._setup()
            if self.safe:
                refusals = self._checker().check(stripped, first_line)
                if refusals:
                    return Result(output=f"gradrepl --safe: refused: {refusals[0]}\n",
                                  error=PermissionError(str(refusals[0])), kind="command")
            res = run_command(self, stripped)
            res.kind = "command"
        else:
            res = self._run_python(source)
        if record and not stripped.startswith("%load"):  # (what %load runs is recorded)
            self.transcript.append((source.rstrip("\n"), res.output))
        return res

    def _checker(self):
        checker = getattr(self, "_safe_checker", None)
        if checker is None:
            from .sandbox import SessionChecker

            checker = self._safe_checker = SessionChecker(allow_syntax_errors=True)
        return checker

    def _run_python(self, source: str) -> Result:
        self._setup()
        from ..engine import quiet_fp
        from ..importhook import paddle_modules
        from ..viz.why import recording
        from ..viz.capture import statement_label

        self._counter += 1
        try:
            tree = ast.parse(source, "<stdin>", "exec")
        except (SyntaxError, ValueError, OverflowError) as exc:
            return Result(output=self._format_syntax_error(exc, source), error=exc)
        if self.safe:
            refusals = self._checker().check(source, getattr(self, "first_line", 1), "<stdin>")
            if refusals:
                err = PermissionError("; ".join(str(r) for r in refusals))
                return Result(output=f"gradrepl --safe: refused: {refusals[0]}\n", error=err)
        out = _Tee(getattr(self, "stream", None))
        result = Result()
        echoed = []

        def displayhook(value):
            if value is None:
                return
            self.namespace["_"] = value
            echoed.append(value)
            out.write(self._repr(value) + "\n")

        old_hook = sys.displayhook
        try:
            with paddle_modules(), quiet_fp(), recording(self.why_log), \
                    contextlib.redirect_stdout(out), \
                    contextlib.redirect_stderr(out):
                sys.displayhook = displayhook
                for stmt in tree.body:
                    # the label is the statement's own source segment, never its whole lines
                    self.recorder.statement(statement_label(source, stmt))
                    mod = ast.Interactive(body=[stmt])
                    code = compile(mod, "<stdin>", "single")
                    with self.recorder:
                        exec(code, self.namespace)
        except SessionExit as exc:
            result.exit_code = exc.code if isinstance(exc.code, int) else 1
            if not isinstance(exc.code, int):
                out.write(f"{exc.code}\n")
        except SystemExit as exc:
            result.exit_code = exc.code if isinstance(exc.code, int) else (
                0 if exc.code is None else 1)
            if exc.code is not None and not isinstance(exc.code, int):
                out.write(f"{exc.code}\n")
        except KeyboardInterrupt as exc:
            out.write("KeyboardInterrupt\n")
            result.error = exc
        except MemoryError as exc:
            out.write(self._format_exception(exc))
            result.error = exc
        except RecursionError as exc:
            out.write(self._format_exception(exc))
            result.error = exc
        except BaseException as exc:  # noqa: BLE001 - the user's error, shown; the session goes on
            out.write(self._format_exception(exc))
            result.error = exc
        finally:
            sys.displayhook = old_hook
        result.output = out.getvalue()
        result.streamed = out.streamed
        if echoed:
            result.value = echoed[-1]
        return result

    # -- showing values and errors ---------------------------------------------------------
    def _repr(self, value) -> str:
        return repr(value)

    def _format_exception(self, exc) -> str:
        tb = exc.__traceback__
        frames = traceback.extract_tb(tb)
        if not self.verbose:
            frames = [f for f in frames if not os.path.abspath(f.filename).startswith(
                _GRADREPL_DIR + os.sep)]
        lines = ["Traceback (most recent call last):\n"]
        lines += traceback.format_list(frames)
        shown = exc
        if isinstance(exc, MemoryError) and type(exc) is not MemoryError:
            shown = MemoryError(str(exc))  # numpy's _ArrayMemoryError, by its public name
        lines += traceback.format_exception_only(type(shown), shown)
        text = "".join(lines)
        if not str(exc).strip():
            # never an exception with an empty message
            text = text.rstrip("\n") + f" (raised by {_raiser(tb)})\n"
        return text

    def _format_syntax_error(self, exc, source) -> str:
        return "".join(traceback.format_exception_only(type(exc), exc))


class _ChainBudget:
    """Passes the first ``PER_INPUT`` backward runs of each input on to the session's
    ``backward_log`` (``%graph --chain``'s numbers). Snapshotting every gradient costs ~0.3 ms
    a backward: a training loop's hundreds are not logged. When an input runs more, the log
    forgets its runs, so a picture never gets the numbers of another run than the last: it
    shows the chain rules without numbers, as before any backward."""

    PER_INPUT = 8

    def __init__(self, log):
        self.log = log
        self.count = 0

    def __call__(self, item):
        if isinstance(item, tuple) and item and item[0] == "begin":
            self.count += 1
            if self.count == self.PER_INPUT + 1:
                self.log.runs.clear()
        if self.count <= self.PER_INPUT:
            self.log(item)


class _Tee(io.StringIO):
    """Keeps what is written and, for the terminal, writes it through at once."""

    def __init__(self, stream=None):
        super().__init__()
        self._stream = stream
        self.streamed = 0  # how much of the text went through to the stream

    def write(self, s):
        if self._stream is not None:
            self._stream.write(s)
            self._stream.flush()
            self.streamed += len(s)
        return super().write(s)


def _raiser(tb) -> str:
    last = None
    while tb is not None:
        last = tb
        tb = tb.tb_next
    if last is None:
        return "an unknown place"
    code = last.tb_frame.f_code
    return f"{code.co_name} in {os.path.basename(code.co_filename)}"
