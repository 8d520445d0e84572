"""The shell's ``%`` commands: ONE table (``COMMANDS``), which ``%help`` prints.

Each entry: the usage line, a one-line summary, and the function ``(session, args) -> Result``.
Arguments are split like a shell line (``shlex``); a bad argument gets one clear line and the
session goes on. Commands return data (text, a table, step frames); the shell renders it.
"""
from __future__ import annotations

import argparse
import shlex
import time
from dataclasses import dataclass
from typing import Callable

from .result import Result


@dataclass(frozen=True)
class Command:
    name: str
    usage: str
    summary: str
    run: Callable


class CommandError(Exception):
    """A bad argument: one line for the user."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise CommandError(message)

    def exit(self, status=0, message=None):
        raise CommandError(message or "bad arguments")


def _tensor_arg(session, name, need_graph=False):
    from ..engine.tensor import Tensor

    ns = session.namespace
    if name is None:
        for k, v in reversed(list(ns.items())):
            if isinstance(v, Tensor) and not k.startswith("_") and v.grad_node is not None:
                return k, v
        raise CommandError("no tensor with a graph yet: name one")
    if name not in ns:
        tensors = [k for k, v in ns.items() if isinstance(v, Tensor) and not str(k).startswith("_")]
        hint = f" (its tensors: {', '.join(tensors)})" if tensors else ""   # (as %why says it)
        raise CommandError(f"no variable named {name!r}{hint}")
    value = ns[name]
    if not isinstance(value, Tensor):
        raise CommandError(f"{name!r} is a {type(value).__name__}, not a tensor")
    if need_graph and value.stop_gradient:
        raise CommandError(f"{name!r} stops gradient: it has no backward to step through")
    return name, value


# ---------------------------------------------------------------------------- the commands
def cmd_help(session, args):
    if args:
        name = args[0].lstrip("%")
        cmd = COMMANDS.get(name)
        if cmd is None:
            raise CommandError(f"no command %{name}; %help lists them")
        return Result(output=f"{cmd.usage}\n    {cmd.summary}\n")
    rows = [[c.usage, c.summary] for c in COMMANDS.values()]
    text = "".join(f"{u}\n    {s}\n" for u, s in rows)
    return Result(output=text, table={"columns": ["command", "what it does"], "rows": rows})


def graph_picture(session, args):
    """What ``%graph ARGS`` draws, without writing it: ``(name, picture, options)``. The
    handout and ``replay --present`` show a ``%graph`` line's picture through this, so every
    option counts the same there as in the shell."""
    p = _Parser(prog="%graph", add_help=False)
    p.add_argument("name", nargs="?")
    p.add_argument("-o", "--output")
    p.add_argument("--view", default="both", choices=["forward", "backward", "both"])
    p.add_argument("--chain", action="store_true")
    p.add_argument("--collapse", action="store_true")
    p.add_argument("--depth", type=int)
    p.add_argument("--to")
    p.add_argument("--layers", type=int)
    p.add_argument("--rankdir", type=str.upper, choices=["TB", "LR"])
    p.add_argument("--size")
    p.add_argument("--dpi", type=float)
    p.add_argument("--theme", choices=["light", "dark", "print"])
    p.add_argument("--font-size", type=float)
    p.add_argument("--look", default="auto", choices=["full", "compact", "auto"])
    p.add_argument("--values", type=int)      # arrays of at most N elements shown whole
    p.add_argument("--heatmap", action="store_true")   # larger ones as heat maps
    p.add_argument("--numeric", action="store_true")   # central differences beside autograd
    a = p.parse_args(args)
    if a.values is not None and a.values < 1:
        raise CommandError(f"--values must be 1 or more, got {a.values}")
    a.checked, a.rerun = {}, None
    if a.numeric:   # (the picture of the session's inputs run again with every op recorded)
        from ..teach.numeric import rerun_session

        tape, session = rerun_session(session)
        a.rerun = session.rerun
    name, tensor = _tensor_arg(session, a.name)
    from .. import viz
    from ..viz import heatmap
    from ..viz.model import preview_items

    old, old_heat = preview_items(a.values), heatmap.enable(a.heatmap)
    try:   # (the previews, and their heat maps, are made as the model is built)
        pic = viz.graph(tensor, view=a.view, namespace=session.namespace,
                        recorder=session.recorder, chain=a.chain, collapse=a.collapse,
                        depth=a.depth, to=a.to, layers=a.layers, rankdir=a.rankdir,
                        size=a.size, dpi=a.dpi, theme=a.theme, font_size=a.font_size,
                        look=a.look)
        if a.values is not None or a.heatmap:
            pic.model   # (a plain picture builds its model when first asked: now)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    finally:
        preview_items(old)
        heatmap.enable(old_heat)
    log = getattr(session, "backward_log", None)
    if a.chain and log is not None:   # the numbers that flowed in the last backward, as the
        from ..viz.steps import fill_final_chain   # script path (gradrepl graph --chain) has

        logged = log.run_for(tensor)
        if logged is not None and logged.finished and logged.events:
            fill_final_chain(pic.model, logged, log.runs)
    if a.numeric:   # each leaf's gradient box: central differences beside autograd
        from ..viz.numeric import annotate
        from ..viz.why import Namer

        a.checked = annotate(pic, tape, session.namespace, Namer(session.namespace))
    return name, pic, a


NUMERIC = "\nnumerically ("   # where %graph --numeric's check begins (the shell shows it after
#                                 the coloured graph)


def cmd_graph(session, args):
    name, pic, a = graph_picture(session, args)
    if a.output:
        from ..viz.render import RenderError

        try:
            path = pic.render(a.output)
        except (ValueError, RenderError, OSError) as exc:
            raise CommandError(str(exc)) from None
        return Result(output=f"wrote {path}\n")
    text = pic.text(color=False)
    if a.numeric:   # (as gradrepl graph --numeric says it, under the graph)
        from ..teach.numeric import describe

        n = a.rerun
        text += (f"{NUMERIC}central differences beside autograd; the session's {n} "
                 f"input{'s' if n != 1 else ''} ran again with every op recorded):\n"
                 + ("".join(describe(c) for c in a.checked.values())
                    or "no leaf of this graph got a gradient from a recorded backward\n"))
    return Result(output=text, value=pic)


def cmd_step(session, args):
    p = _Parser(prog="%step", add_help=False)
    p.add_argument("name", nargs="?")
    p.add_argument("--view", default="backward", choices=["forward", "backward", "both"])
    p.add_argument("--code", action="store_true")   # each frame's engine functions, file:lines
    p.add_argument("--from", dest="start", default="backward", choices=["backward", "forward"])
    a = p.parse_args(args)
    name, tensor = _tensor_arg(session, a.name, need_graph=True)
    from ..engine import quiet_fp, trace_to
    from ..viz import model as _model
    from ..viz.steps import BackwardLog, frames
    from ..viz.terminal import render_text

    from ..viz.steps import graph_released, logged_run_of, released_message

    g = _model.build(tensor, namespace=session.namespace, recorder=session.recorder)
    note = None
    history = None
    if graph_released(tensor):   # e.backward() ran first (the lesson's order): its record
        session_log = getattr(session, "backward_log", None)
        run = logged_run_of(session_log, tensor)
        if run is None:
            raise CommandError(released_message(name))
        history = session_log.runs
        note = (f"{name}.backward() already ran and released the graph (no retain_graph=True): "
                f"these are the steps it took, as they were recorded; %step {name} does not run "
                f"it again (the gradients stay as they are).\n")
    else:
        log = BackwardLog(max_runs=1)
        # the step log, the session's %why log and whatever else records backwards all see it
        try:
            with trace_to(log, getattr(session, "why_log", None)), quiet_fp():
                tensor.backward()
        except Exception as exc:  # noqa: BLE001 - the engine's error, as the user would see it
            raise CommandError(f"{type(exc).__name__}: {exc}") from None
        run = log.run_for(tensor)
    shown = frames(g, run, history=history)
    texts = [render_text(f, view=a.view, color=False) for f in shown]
    if note is not None:
        texts[0] = note + texts[0]
    if a.code:   # from the picture to the code: the engine functions that made each frame
        from ..viz.steps import code_line

        texts = [t + ("" if t.endswith("\n") else "\n") + code_line(f.step) + "\n"
                 for t, f in zip(texts, shown)]
    if a.start == "forward":   # the forward pass statement by statement first (viz/forward.py)
        from ..viz.forward import forward_texts

        texts = forward_texts(shown[0], session.recorder,
                              "both" if a.view == "both" else "forward") + texts
    return Result(output="".join(t if t.endswith("\n") else t + "\n" for t in texts),
                  frames=texts)


def cmd_why(session, args):
    p = _Parser(prog="%why", add_help=False)
    p.add_argument("name", nargs="+")
    p.add_argument("-o", "--output")
    a = p.parse_args(args)
    from ..viz.why import resolve_target, why, write_picture

    try:
        tensor, name, element = resolve_target(session.namespace, " ".join(a.name))
        ex = why(tensor, namespace=session.namespace, element=element, name=name,
                 log=getattr(session, "why_log", None),
                 recorder=getattr(session, "recorder", None))
    except (ValueError, KeyError, IndexError) as exc:
        raise CommandError(str(exc.args[0]) if exc.args else str(exc)) from None
    from ..viz.sanitize import terminal

    out = terminal(ex.text())   # (shown: names with control characters escaped; ex keeps them)
    if a.output:
        from ..viz.render import RenderError

        try:
            path = write_picture(ex, tensor, a.output, session.namespace, session.recorder)
        except (ValueError, RenderError, OSError) as exc:
            raise CommandError(str(exc)) from None
        out += f"wrote {path}\n"
    return Result(output=out, value=ex)


def cmd_vars(session, args):
    from ..engine.tensor import Tensor

    rows = []
    for k, v in session.namespace.items():
        if k.startswith("_") or not isinstance(v, Tensor):
            continue
        g = v._grad
        rows.append([k, str(list(v.data.shape)), str(v.data.dtype), str(v.stop_gradient),
                     str(v.grad_node is None), str(list(g.data.shape)) if g is not None
                     else "None"])
    cols = ["name", "shape", "dtype", "stop_gradient", "is_leaf", "grad"]
    if not rows:
        return Result(output="no tensors yet\n", table={"columns": cols, "rows": []})
    widths = [max(len(c), *(len(r[i]) for r in rows)) for i, c in enumerate(cols)]
    line = lambda r: "  ".join(x.ljust(w) for x, w in zip(r, widths)).rstrip() + "\n"  # noqa
    text = line(cols) + "".join(line(r) for r in rows)
    return Result(output=text, table={"columns": cols, "rows": rows})


def cmd_profile(session, args):
    from ..paddle import profiles

    if len(args) > 1:
        raise CommandError("usage: %profile [2.2|2.6|3]")
    if args:
        try:
            profiles.set_profile(args[0])
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        session.profile_key = profiles.current().key
    p = profiles.current()
    return Result(output=f"profile {p.key} (Paddle {p.version})\n")


def cmd_record(session, args):
    if len(args) != 1:
        raise CommandError("usage: %record FILE")
    from .transcript import format_transcript
    from ..viz.render import write_atomic

    import re

    from .transcript import WILDCARD

    address = re.compile(r" at 0x[0-9a-fA-F]+>")   # an object's address: never the same twice,
    entries = [(i, "\n".join(WILDCARD if address.search(ln) else ln   # so any line there
                             for ln in o.split("\n")))
               for i, o in session.transcript if not i.strip().startswith("%record")]
    try:
        write_atomic(args[0], format_transcript(entries, profile=session.profile))
    except OSError as exc:
        raise CommandError(f"cannot write {args[0]}: {exc.strerror or exc}") from None
    return Result(output=f"recorded {len(entries)} inputs to {args[0]}\n")


def cmd_load(session, args):
    if len(args) != 1:
        raise CommandError("usage: %load FILE")
    path = args[0]
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as exc:
        raise CommandError(f"cannot read {path}: {exc.strerror or exc}") from None
    from .transcript import TranscriptError, format_input, inputs_of

    try:
        inputs = inputs_of(text, path)
    except TranscriptError as exc:
        raise CommandError(str(exc)) from None
    if len(inputs) == 1 and inputs[0] == text:   # a script: statement by statement, as typed,
        inputs = script_inputs(text)              # so %record writes what replay reads
    out = []
    stream = getattr(session, "stream", None)
    for source in inputs:
        shown = "".join(ln + "\n" for ln in format_input(source))
        out.append(shown)
        if stream is not None:
            stream.write(shown)
        res = session.run(source, stream=stream)
        out.append(res.output)
        if stream is not None and res.streamed < len(res.output):
            stream.write(res.output[res.streamed:])  # what did not stream (commands, errors)
        if res.exit_code is not None:
            break
    session.stream = stream
    return Result(output="".join(out) if stream is None else "")


def script_inputs(text: str) -> list[str]:
    """A script's top-level statements, each as the shell would take it typed (a decorated
    def with its decorators; statements sharing a line together); comments between them
    dropped. A script that does not parse stays one input (its error is then shown)."""
    import ast

    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return [text]
    lines = text.splitlines()
    spans: list[list[int]] = []
    for node in tree.body:
        start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", ())])
        end = node.end_lineno or node.lineno
        if spans and start <= spans[-1][1]:
            spans[-1][1] = max(end, spans[-1][1])
        else:
            spans.append([start, end])
    out = []
    for start, end in spans:
        body = [ln for ln in lines[start - 1:end]]
        while body and not body[-1].strip():
            body.pop()
        out.append("\n".join(body))
    return out or [text]


def cmd_reset(session, args):
    session.reset()
    return Result(output=f"a fresh session (profile {session.profile})\n")


def cmd_time(session, args, raw=None):
    if not raw:
        raise CommandError("usage: %time STATEMENT")
    t0 = time.perf_counter()
    res = session._run_python(raw)
    dt = time.perf_counter() - t0
    unit = f"{dt * 1e3:.3g} ms" if dt < 1 else f"{dt:.3g} s"
    res.output += f"Wall time: {unit}\n"
    return res


def cmd_history(session, args):
    items = session.history[:-1]  # not this %history itself
    text = "".join(f"{k:>4}  {src.replace(chr(10), chr(10) + '      ')}\n"
                   for k, src in enumerate(items, 1))
    return Result(output=text or "no history yet\n")


COMMANDS: dict[str, Command] = {c.name: c for c in [
    Command("graph", "%graph [NAME] [-o FILE] [--view forward|backward|both] [--chain] "
            "[--collapse] [--depth N] [--to NAME] [--layers N] [--rankdir TB|LR] "
            "[--size WxH] [--dpi N] [--theme light|dark|print] [--font-size N] "
            "[--look full|compact|auto] [--values N] [--heatmap] [--numeric]",
            "draw NAME's forward and backward graphs (text here; -o FILE: .svg .png .pdf .dot "
            ".json .txt; --numeric: central differences beside each leaf's .grad)", cmd_graph),
    Command("step", "%step [NAME] [--code] [--from forward]",
            "run NAME's backward one step at a time, one sentence each (Enter: next, "
            "q: finish; --code: the engine functions of each step, file:lines; --from forward: "
            "first the forward pass, one frame per statement that built NAME)", cmd_step),
    Command("why", "%why NAME[.grad[i, j]] [-o FILE]",
            "why NAME's gradient is what it is: the chain rule, path by path, with the numbers "
            "(-o FILE: the graph with the paths highlighted)", cmd_why),
    Command("vars", "%vars", "the session's tensors: shape, dtype, stop_gradient, is_leaf, grad",
            cmd_vars),
    Command("profile", "%profile [2.2|2.6|3]", "show or switch the emulated Paddle version",
            cmd_profile),
    Command("record", "%record FILE", "write the session so far as a transcript (replayable)",
            cmd_record),
    Command("load", "%load FILE", "replay a transcript or a script into this session", cmd_load),
    Command("reset", "%reset", "start a fresh session (namespace, names, random seed)",
            cmd_reset),
    Command("time", "%time STATEMENT", "run STATEMENT and show how long it took", cmd_time),
    Command("history", "%history", "the inputs of this session, numbered", cmd_history),
    Command("quiz", "%quiz [NAME [ANSWER]]",
            "work out NAME's gradient yourself: right or wrong, and which chain-rule path a "
            "wrong answer missed (ANSWER: a number, a list, an expression)",
            lambda session, args: _teach("cmd_quiz")(session, args)),
    Command("gradcheck", "%gradcheck [NAME ...]",
            "central finite differences (float64) beside each leaf's .grad: the step and the "
            "error said plainly (reruns the session's inputs)",
            lambda session, args: _teach("cmd_gradcheck")(session, args)),
    Command("help", "%help [COMMAND]", "this table, or one command's usage", cmd_help),
]}


def _teach(name):
    from ..teach import shellcmds

    return getattr(shellcmds, name)


def run_command(session, line: str) -> Result:
    """Run a ``%`` line; bad input gives one line of output, never an exception."""
    body = line.strip()[1:]
    name, _, rest = body.partition(" ")
    cmd = COMMANDS.get(name)
    if cmd is None:
        import difflib

        close = difflib.get_close_matches(name, list(COMMANDS), n=1, cutoff=0.6)
        mean = f": did you mean %{close[0]}?" if close else ""
        return Result(output=f"unknown command %{name}{mean} (%help lists the commands)\n"
                      if mean else f"unknown command %{name}; %help lists the commands\n",
                      error=CommandError(name))
    if session.safe and name in ("record", "load"):
        return Result(output=f"%{name} is not allowed with --safe\n",
                      error=CommandError(name))
    try:
        if name == "time":
            return cmd_time(session, None, raw=rest.strip())
        try:
            args = shlex.split(rest)
        except ValueError as exc:
            raise CommandError(f"%{name}: {exc}") from None
        return cmd.run(session, args)
    except CommandError as exc:
        msg = str(exc).strip()
        if not msg.startswith("%"):
            msg = f"%{name}: {msg}"
        return Result(output=msg + "\n", error=exc)
