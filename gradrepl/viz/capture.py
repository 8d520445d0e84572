"""Run a Paddle script for its pictures: its namespace, where its nodes came from, its backwards.

``run_for_pictures(path)`` executes the script as ``gradrepl run`` does (the import hook, the
profile of its header), with

- a line tracer on the script's own frames that marks each statement in an engine provenance
  ``Recorder`` (so ops and leaves are labelled ``c = a * b``), and Layer calls recorded for
  ``--collapse``;
- optionally ``at=LINE``: the run stops before the first top-level line after LINE, so the
  picture shows the graph as it stood then (before ``backward()``, say) without editing the
  script;
- optionally ``steps=True``: every backward's events are logged (``steps.BackwardLog``).

The script's own output is captured, not shown (it would mix with the picture on stdout).
"""
from __future__ import annotations

import ast
import builtins
import contextlib
import io
import os
import sys
from dataclasses import dataclass, field


class _StopAt(BaseException):
    """Raised by the tracer to end the run after line ``at`` (not an Exception: user code's
    ``except Exception`` does not swallow it)."""


@dataclass
class ScriptRun:
    path: str
    namespace: dict
    recorder: object
    log: object = None                # steps.BackwardLog when steps were asked for
    output: str = ""                  # what the script printed
    error: BaseException | None = None
    stopped_at: int | None = None     # the line the run stopped after (--at)
    labels: dict = field(default_factory=dict)
    mark_lines: dict = field(default_factory=dict)  # the recorder's statement mark k -> the
    #                                 script's lines it ran (the forward frames' "line 3")


LABEL_WIDTH = 72   # a label longer than this is cut, with "..."


def statement_label(source: str, node, header: bool = False) -> str:
    """The label of statement ``node`` (parsed from ``source``): its own source segment (never
    the rest of its line: a comment, a neighbour after ``;``, the tail of a string that began
    on an earlier line), on one line with its whitespace collapsed, cut to ``LABEL_WIDTH``.
    ``header``: for a compound statement, only its first line (``for i in range(3):``)."""
    text = ast.get_source_segment(source, node) or ""
    if header and isinstance(getattr(node, "body", None), list):
        text = text.split("\n", 1)[0]
    text = " ".join(text.split())
    if len(text) > LABEL_WIDTH:
        text = text[:LABEL_WIDTH - 3].rstrip() + "..."
    return text


def statement_labels(source: str) -> dict:
    """line number -> the label of the statement starting there (compound statements: their
    header line), see :func:`statement_label`."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return {}
    out = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt):
            continue
        text = statement_label(source, node, header=True)
        if node.lineno not in out or len(text) > len(out[node.lineno]):
            out[node.lineno] = text
    return out


def _note_line(run, recorder, line) -> None:
    lines = run.mark_lines.setdefault(len(recorder._stmt_labels) - 1, [])
    if line not in lines:
        lines.append(line)


def run_for_pictures(path: str, profile: str | None = None, at: int | None = None,
                     steps: bool = False) -> ScriptRun:
    from ..engine import Recorder, quiet_fp, set_trace_sink, trace_sink
    from ..importhook import paddle_modules
    from ..paddle import state
    from ..runner import header_profile

    key = profile or header_profile(path)
    state.reset(key)
    with open(path, encoding="utf-8") as f:
        source = f.read()
    code = compile(source, path, "exec")  # a SyntaxError is the caller's to report
    labels = statement_labels(source)
    filename = code.co_filename
    namespace = {"__name__": "__main__", "__file__": path, "__builtins__": builtins}
    recorder = Recorder()
    log = None
    if steps:
        from .steps import BackwardLog

        log = BackwardLog()
    run = ScriptRun(path, namespace, recorder, log, labels=labels)

    def local(frame, event, arg):
        if event == "line":
            if at is not None and frame.f_code is code and frame.f_lineno > at:
                run.stopped_at = at
                raise _StopAt()
            label = labels.get(frame.f_lineno)
            if label is not None:  # (continuation lines of a statement keep its label)
                recorder.statement(label)
                _note_line(run, recorder, frame.f_lineno)
        elif event == "return":
            back = frame.f_back
            if back is not None and back.f_code.co_filename == filename \
                    and labels.get(back.f_lineno) is not None:
                recorder.statement(labels[back.f_lineno])
                _note_line(run, recorder, back.f_lineno)
        return local

    def global_trace(frame, event, arg):
        if frame.f_code.co_filename == filename:
            return local
        return None

    buf = io.StringIO()
    old_argv, old_path, cwd = sys.argv, list(sys.path), os.getcwd()
    sys.argv = [path]
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    old_sink = trace_sink()
    old_trace = sys.gettrace()
    try:
        with paddle_modules(), quiet_fp(), recorder, contextlib.redirect_stdout(buf):
            if log is not None:   # (chained: a sink installed before, gradcheck's tape, hears too)
                from ..engine.tracing import Tee

                set_trace_sink(log if old_sink is None else Tee((log, old_sink)))
            sys.settrace(global_trace)
            try:
                exec(code, namespace)
            finally:
                sys.settrace(old_trace)
    except _StopAt:
        pass
    except SystemExit as exc:
        if exc.code not in (None, 0):
            run.error = exc
    except Exception as exc:  # noqa: BLE001 - the caller reports the script's failure
        run.error = exc
    finally:
        set_trace_sink(old_sink)
        sys.argv = old_argv
        sys.path[:] = old_path
        os.chdir(cwd)
    run.output = buf.getvalue()
    return run


def describe_error(exc, path) -> str:
    """One line for a script that failed: the exception and the script's line it came from."""
    tb = exc.__traceback__
    line = None
    while tb is not None:
        if os.path.abspath(tb.tb_frame.f_code.co_filename) == os.path.abspath(path):
            line = tb.tb_lineno
        tb = tb.tb_next
    where = f" at line {line}" if line else ""
    msg = str(exc).strip().splitlines()
    return f"the script failed{where}: {type(exc).__name__}: {msg[0] if msg else ''}".rstrip(": ")
