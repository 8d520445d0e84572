"""Every number a step-through shows is one the engine computed at that moment (issue 19).

Over every session in ``sessions/``, every example in ``examples/`` and a few hundred random
small programs (broadcasting adds and muls, sums, means, matmuls, a tensor used twice,
stop_gradient leaves, two backwards that accumulate; Paddle 2.2 and 3 and the torch dialect),
each step frame is checked against the engine's own event trace (``BackwardLog``: the values
each event carried, previewed when it happened), never against numbers written here:

- the gradient boxes: what ``.grad`` holds (a leaf's once its accumulation ran, a retained
  non-leaf's once its op ran on it), checked both against the events and against the tensors
  themselves at that very event (``WatchedLog``: torch keeps no ``.grad`` of a non-leaf, so a
  torch picture shows none); and apart from it the gradient that reached the tensor so far
  (``flow``: the seed, the sum in a buffer, the gradient an op ran on);
- the chain lines of each op that has run: they end in the gradient it delivered along that
  edge (after any broadcast sum), and a line written with numbers evaluates to its result;
- the sentence: the seed, each delivered gradient ("= 4. to MulBackward #1"), each ``.grad``
  written ("a.grad = 20. + 1. = 21.": the sum adds up), each dependency count; no engine class
  names or internal ids; one spelling of a gradient per sentence;
- the numbering: "step k of n" on every frame; the ready queue empty when the run is over;
- ``%step``: the frames it prints are these frames (header, sentence, boxes).
"""
from __future__ import annotations

import os
import random
import re
from pathlib import Path

import pytest

from gradrepl.engine import backward as _bw
from gradrepl.engine import events as ev
from gradrepl.engine.node import AccumulateNode
from gradrepl.viz import model, steps
from gradrepl.viz.terminal import render_text

ROOT = Path(__file__).resolve().parent.parent
FORBIDDEN = re.compile(r"DepsCounted|DepDec|Seeded|Ready:|\(b\d+\)|\bb\d+\b|ready queue: None"
                       r"|Accumulate\b|Released")


# ---------------------------------------------------------------------------- the checks
def _num(text):
    """A preview's number (``4.``, ``-0.1548``, ``inf``), else None (a list, a name)."""
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def _close(a, b):
    return a == b or abs(a - b) <= 2e-3 * max(1.0, abs(a), abs(b))


_ARITH = re.compile(r"^[0-9eE.+\-*/() ]+$")


def _evaluates_to(numeric, result):
    """``1. * 4.`` equals ``4.`` (previews have 4 significant digits)."""
    expr = numeric.replace("^", "**")
    r = _num(result)
    if r is None or not _ARITH.match(expr):
        return True   # not plain arithmetic on numbers (a function, a list): nothing to add up
    try:
        v = eval(expr, {"__builtins__": {}})  # noqa: S307 - digits and operators only
    except (ArithmeticError, SyntaxError, TypeError, ValueError):
        return True
    return _close(float(v), r)


def _edges(node):
    e = getattr(node, "edges", ())
    return [(e[2 * i], e[2 * i + 1]) for i in range(len(e) // 2)]


class Expect:
    """What the engine's events say, replayed here with the simplest rules (independent of
    ``steps._Replay``)."""

    def __init__(self, g, run):
        b = g._builder
        self.gv_of = {edge: gid for gid, edge in b.grad_edges.items() if edge is not None}
        self.bw_of = {node: info.id for node, info in b.bw.items()}
        self.kept = {v.id for v in g.grad_vars if v.kept} if not run.kw.get("inputs") else set()
        self.box = {}    # what .grad holds
        self.flow = {}   # the gradient that reached it so far
        for node, before in run.leaf_before.items():
            gid = self.gv_of.get((node, 0))
            if gid is not None:
                self.box[gid] = before
        for edge, before in run.kept_before.items():
            gid = self.gv_of.get(edge)
            if gid is not None and gid in self.kept:
                self.box[gid] = before
        self.leaf = dict(run.leaf_before)   # AccumulateNode -> .grad preview now
        self.delivered = {}                 # bw id -> {input index: preview}
        self.ran = set()
        self.queue = []
        self.current = None                 # the node that last ran, its unused edge indices

    def apply(self, e, vals):
        """Returns the facts this event adds to the step's sentence."""
        facts = []
        if isinstance(e, ev.Seeded):
            self._flow(e.node, e.slot, vals["grad"])
            facts.append(("seed", vals["grad"]))
        elif isinstance(e, ev.Ready):
            self.queue.append(e.node)
        elif isinstance(e, ev.Run):
            while self.queue and self.queue.pop(0) is not e.node:
                pass
            for k, p in enumerate(vals["out_grads"]):
                self._flow(e.node, k, p)
                if self.gv_of.get((e.node, k)) in self.kept and p is not None:
                    self._box(e.node, k, p)   # a retained non-leaf keeps it
            bid = self.bw_of.get(e.node)
            if bid is not None:
                self.ran.add(bid)
                self.delivered[bid] = {}
            self.current = (e.node, bid, list(range(len(_edges(e.node)))))
        elif isinstance(e, ev.Accumulate):
            target = e.target
            if isinstance(target, AccumulateNode) and target in self.queue:
                while self.queue and self.queue.pop(0) is not target:
                    pass
                before = self.leaf.get(target)
                self.leaf[target] = vals["total"]
                self._box(target, 0, vals["total"])
                facts.append(("write", before, vals["grad"], vals["total"]))
            else:
                self._flow(target, e.slot, vals["total"])
                if self.current is not None:
                    node, bid, unused = self.current
                    edges = _edges(node)
                    i = next((i for i in unused if edges[i][0] is target
                              and edges[i][1] == e.slot), None)
                    if i is not None:
                        unused.remove(i)
                        if bid is not None:
                            self.delivered[bid][i] = vals["grad"]
                facts.append(("sent", vals["grad"]))
        elif isinstance(e, ev.DepsCounted):
            facts.append(("count", e.deps))
        return facts

    def _box(self, node, slot, value):
        gid = self.gv_of.get((node, slot))
        if gid is not None:
            self.box[gid] = value

    def _flow(self, node, slot, value):
        gid = self.gv_of.get((node, slot))
        if gid is not None and value is not None:
            self.flow[gid] = value


class WatchedLog(steps.BackwardLog):
    """A ``BackwardLog`` that also reads, after every event, what ``.grad`` of each tensor the
    backward touches holds (``run.real``: one {engine (node, slot): preview} per event; a
    leaf under its accumulation node's (node, 0)): the framework's own state, step by step."""

    def __call__(self, item):
        super().__call__(item)
        if isinstance(item, tuple) and item and item[0] in ("begin", "end"):
            return
        run = self.runs[-1]
        if not hasattr(run, "real"):
            run.real, run.watched = [], {}
        if isinstance(item, ev.DepsCounted):
            for n in item.deps:
                if isinstance(n, AccumulateNode):
                    if n.leaf is not None:
                        run.watched[(n, 0)] = n.leaf
                    continue
                for k, r in enumerate(n.out_refs or ()):
                    t = r()
                    if t is not None:
                        run.watched[(n, k)] = t
        run.real.append({key: steps._p(t._grad) for key, t in run.watched.items()})


def _check_sum_line(line, at):
    """``x_grad = 2. + 2. = 4.  (2 paths reach x)``: the terms add up to the total."""
    head, _sep, _note = line.partition("  (")
    parts = head.split(" = ")
    assert len(parts) == 3 and " + " in parts[1], (at, line)
    terms = [_num(t) for t in parts[1].split(" + ")]
    total = _num(parts[2])
    if None not in terms and total is not None:
        assert _close(sum(terms), total), (at, line)


def check_frames(g, run, where, dialect_words=None):
    """Check every frame of ``run`` (a LoggedRun) drawn over ``g``; returns the frames."""
    fr = steps.frames(g, run, chain=True)
    n = len(fr) - 1
    exp = Expect(g, run)
    counted = next((e for e, _v in run.events if isinstance(e, ev.DepsCounted)), None)
    nodes = set(counted.deps) if counted is not None else set()
    nodes.update(e.node for e, _v in run.events if isinstance(e, ev.Seeded))
    scope = {gid for (node, _s), gid in exp.gv_of.items() if node in nodes}
    names = {t.name for t in g.tensors}
    assert fr[0].step["index"] == 0 and fr[0].step["total"] == n, where
    real = getattr(run, "real", None)
    edge_of = {gid: edge for edge, gid in exp.gv_of.items()}

    def check_real(f, index, at):
        """Each kept gradient box shows what the tensor's .grad held after event ``index``;
        a gradient the framework does not keep shows no .grad at all."""
        if real is None or index >= len(real):
            return
        for v in f.grad_vars:
            if v.id not in scope:
                continue
            if not v.kept:
                assert v.data is None, (at, v.name, v.data)
                continue
            key = edge_of.get(v.id)
            if key in real[index]:
                assert v.data == real[index][key], (at, v.name, v.data, real[index][key])

    if run.events and isinstance(run.events[0][0], ev.DepsCounted):
        check_real(fr[0], 0, f"{where}, step 0")
    done = 0
    for k, f in enumerate(fr[1:], 1):
        start, end = f.step["events"]
        assert start == done and end > start, (where, k)
        done = end
        facts = []
        for e, vals in run.events[start:end]:
            facts += exp.apply(e, vals)
        text = f.step["event"]
        at = f"{where}, step {k} of {n}: {text}"
        assert f.step["index"] == k and f.step["total"] == n, at
        assert not FORBIDDEN.search(text), at
        for name in names:   # one spelling of a gradient per sentence
            assert not (f"{name}_grad" in text and f"{name}.grad" in text), at
        by_id = f.by_id()
        # the gradient boxes
        for v in f.grad_vars:
            if v.id in scope:
                assert v.data == exp.box.get(v.id), (at, v.name, v.data, exp.box.get(v.id))
                assert v.flow == exp.flow.get(v.id), (at, v.name, v.flow, exp.flow.get(v.id))
        check_real(f, end - 1, at)
        # the chain lines of the ops that ran
        for b in f.backward_ops:
            if b.id not in exp.ran or b.kind != "op":
                continue
            outs = [i for i, o in enumerate(b.outputs) if o is not None and o in by_id]
            assert len(outs) <= len(b.chain), (at, b.title, b.chain)
            for line in b.chain[len(outs):]:   # then how gradients add up: each sum adds up
                _check_sum_line(line, at)
            for i, line in zip(outs, b.chain):
                sent = exp.delivered.get(b.id, {}).get(i)
                if sent is None:
                    continue
                assert line.endswith(f" = {sent}"), (at, line, sent)
                parts = line.split(" = ")
                if len(parts) >= 4:
                    assert _evaluates_to(parts[-2], parts[-1]), (at, line)
        # the sentence's numbers
        for fact in facts:
            if fact[0] == "seed":
                assert f"= {fact[1]}" in text, (at, fact)
            elif fact[0] == "sent":
                assert f"= {fact[1]} to " in text, (at, fact)
            elif fact[0] == "write":
                _k, before, grad, total = fact
                if before is None:
                    assert text.endswith(f".grad = {total}.") or \
                        text.endswith(f".grad = {total}"), (at, fact)
                else:
                    assert f".grad = {before} + {grad} = {total}" in text, (at, fact)
                    b, g_, t = _num(before), _num(grad), _num(total)
                    if None not in (b, g_, t):
                        assert _close(b + g_, t), (at, fact)
            elif fact[0] == "count":
                for node, c in fact[1].items():
                    bid = exp.bw_of.get(node)
                    if bid is not None and bid in by_id:
                        assert f"{model.shown(by_id[bid])} waits for {c}" in text, (at, node)
        if dialect_words is not None:
            for word in dialect_words:
                assert word not in text, (at, word)
    if run.finished:
        assert fr[-1].step["ready"] == [] and fr[-1].step["ready_names"] == [], where
    return fr


def check_log(log, namespace, where, recorder=None):
    count = 0
    for i, run in enumerate(log.runs):
        if not run.events:
            continue
        g = model.build(run.roots, namespace=namespace, recorder=recorder)
        torch = g.profile == "torch"
        check_frames(g, run, f"{where} backward #{i + 1}",
                     ["stop_gradient", "grad_pending", "_grad "] if torch else None)
        count += 1
    return count


# ---------------------------------------------------------------------------- sessions
class _Tee:
    """The session's own trace sink (``%why``'s log) and ours, both fed."""

    def __init__(self, first, second):
        self._first, self._second = first, second

    def __call__(self, item):
        self._first(item)
        self._second(item)

    def __getattr__(self, name):
        return getattr(self._first, name)


SESSIONS = sorted((ROOT / "sessions").glob("*.pycon"))


@pytest.mark.parametrize("path", SESSIONS, ids=[p.stem for p in SESSIONS])
def test_every_session(path):
    from gradrepl.repl import transcript
    from gradrepl.repl.replay_cli import _profile_key
    from gradrepl.repl.session import Session

    if path.stem == "s000_vgg11":
        pytest.skip("vgg11 is checked as a script (examples/seeds/s000_vgg11.py, GRADREPL_SLOW=1)")
    t = transcript.parse(path.read_text(encoding="utf-8"), str(path))
    s = Session(profile=_profile_key(t, None))
    s._setup()
    log = WatchedLog(max_runs=64)
    s.why_log = _Tee(s.why_log, log)
    seen_frames = _watch_step_frames()
    try:
        for b in t.blocks:
            res = s.run(b.source, first_line=b.line)
            if res.exit_code is not None:
                break
    finally:
        seen = seen_frames.stop()
    check_log(log, s.namespace, path.name, s.recorder)
    for g, run, texts in seen:   # what %step printed: the same checked frames
        _check_step_texts(g, run, texts, path.name)


# ---------------------------------------------------------------------------- examples
EXAMPLES = sorted(p for p in (ROOT / "examples").rglob("*.py"))


# resnet18's frames take seconds: slow (pytest -m "not slow" leaves it out)
@pytest.mark.parametrize("path", [pytest.param(p, marks=pytest.mark.slow) if p.stem == "resnet18"
                                  else p for p in EXAMPLES], ids=[p.stem for p in EXAMPLES])
def test_every_example(path):
    from gradrepl.viz.capture import run_for_pictures

    if path.stem == "s000_vgg11" and not os.environ.get("GRADREPL_SLOW"):
        pytest.skip("vgg11's forward and backward take ~40 s here (GRADREPL_SLOW=1 runs it)")
    orig, steps.BackwardLog = steps.BackwardLog, WatchedLog
    try:
        run = run_for_pictures(str(path), steps=True)
    finally:
        steps.BackwardLog = orig
    assert run.error is None, run.error
    n = check_log(run.log, run.namespace, path.name, run.recorder)
    if re.search(r"^[^#\n]*\.backward\(", path.read_text(encoding="utf-8"), re.M):
        assert n >= 1, path


# ---------------------------------------------------------------------------- %step
class _watch_step_frames:
    """Record the (graph, run) of each ``%step`` with the text frames it returned."""

    def __init__(self):
        from gradrepl.repl import commands

        self.seen = []
        self._orig = steps.frames
        self._cmd = commands.cmd_step
        watch = self

        def frames(g, run, chain=True, history=None):
            out = watch._orig(g, run, chain, history)
            watch.seen.append([g, run, None])
            return out

        def cmd_step(session, args):
            res = watch._cmd(session, args)
            if watch.seen and watch.seen[-1][2] is None:
                watch.seen[-1][2] = res.frames
            return res

        steps.frames = frames
        commands.cmd_step = cmd_step
        commands.COMMANDS["step"] = commands.Command(
            "step", commands.COMMANDS["step"].usage, commands.COMMANDS["step"].summary,
            cmd_step)

    def stop(self):
        from gradrepl.repl import commands

        steps.frames = self._orig
        commands.cmd_step = self._cmd
        commands.COMMANDS["step"] = commands.Command(
            "step", commands.COMMANDS["step"].usage, commands.COMMANDS["step"].summary,
            self._cmd)
        return [x for x in self.seen if x[2] is not None]


def _check_step_texts(g, run, texts, where):
    fr = check_frames(g, run, f"{where} %step")
    assert len(texts) == len(fr), where
    for f, text in zip(fr, texts):
        head = f"step {f.step['index']} of {f.step['total']}: {f.step['event']}"
        assert head in text, (where, head)
        assert "ready queue: None" not in text and "ready queue: " in text
        assert text == render_text(f, view="backward", color=False), where


def test_step_command_shows_the_checked_frames():
    from gradrepl.repl.session import Session

    s = Session(profile="3")
    watch = _watch_step_frames()
    try:
        for src in ["import paddle",
                    "x = paddle.to_tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], stop_gradient=False)",
                    "b = paddle.to_tensor([10.0, 20.0, 30.0], stop_gradient=False)",
                    "y = (x + b) * x", "loss = y.sum()", "%step loss"]:
            res = s.run(src)
            assert res.error is None, res.output
    finally:
        seen = watch.stop()
    assert len(seen) == 1
    g, run, texts = seen[0]
    _check_step_texts(g, run, texts, "%step loss")
    assert "ready queue: (empty)" in texts[-1]


# ---------------------------------------------------------------------------- random programs
SHAPES = [(), (1,), (3,), (2, 3), (1, 3), (2, 1)]


def _program(rng, dialect):
    """A small program as source lines: leaves, a few ops, a scalar loss, its backward."""
    P = "torch" if dialect == "torch" else "paddle"

    def leaf(name, shape, grad):
        data = [round(rng.uniform(-3, 3), 1) for _ in range(max(1, _size(shape)))]
        arr = f"np.array({data}, dtype='float32').reshape({list(shape)})"
        if P == "torch":
            return f"{name} = torch.tensor({arr}, requires_grad={grad})"
        return f"{name} = paddle.to_tensor({arr}, stop_gradient={not grad})"

    lines = ["import numpy as np", f"import {P}"]
    names, shapes = [], {}
    for i in range(rng.randint(2, 4)):
        shape = rng.choice(SHAPES)
        name = "abcd"[i]
        lines.append(leaf(name, shape, rng.random() > 0.2))
        names.append(name)
        shapes[name] = shape
    for j in range(rng.randint(2, 5)):
        kind = rng.choice(["add", "mul", "sub", "twice", "sum", "mean", "matmul", "scale"])
        out = f"v{j}"
        a = rng.choice(names)
        b = rng.choice(names)
        try:
            import numpy as np

            bshape = np.broadcast_shapes(shapes[a], shapes[b])
        except ValueError:
            b, bshape = a, shapes[a]
        if kind in ("add", "mul", "sub"):
            op = {"add": "+", "mul": "*", "sub": "-"}[kind]
            lines.append(f"{out} = {a} {op} {b}")
            shapes[out] = bshape
        elif kind == "twice":   # a tensor used twice
            lines.append(f"{out} = {a} * {a} + {a}")
            shapes[out] = shapes[a]
        elif kind == "sum":
            lines.append(f"{out} = {a}.sum()")
            shapes[out] = ()
        elif kind == "mean":
            lines.append(f"{out} = {a}.mean()")
            shapes[out] = ()
        elif kind == "scale":
            lines.append(f"{out} = {a} * 2.5")
            shapes[out] = shapes[a]
        else:  # matmul: a [2, 3] with a fresh [3, 2]
            m = f"m{j}"
            lines.append(leaf(m, (3, 2), True))
            shapes[m] = (3, 2)
            src = a if shapes[a] == (2, 3) else None
            if src is None:
                lines.append(f"{out} = {m}.sum() * 1.0")
                shapes[out] = ()
            else:
                mm = "torch.matmul" if P == "torch" else "paddle.matmul"
                lines.append(f"{out} = {mm}({src}, {m})")
                shapes[out] = (2, 2)
        names.append(out)
    last = names[-1]
    lines.append(f"loss = ({last} * 1.0).sum() + ({names[0]} * 0.5).sum()")
    if rng.random() < 0.3:   # two backwards: the leaves' .grad accumulate
        lines.append("loss.backward(retain_graph=True)")
    lines.append("loss.backward()")
    return lines


def _size(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def _run_program(lines, dialect):
    from gradrepl.paddle import state

    state.reset("3" if dialect == "3" else "2.2")
    import gradrepl.paddle as paddle
    import gradrepl.torch as torch

    import numpy as np

    ns = {"paddle": paddle, "torch": torch, "np": np}
    log = WatchedLog(max_runs=4)
    old = _bw.TRACE_SINK
    _bw.TRACE_SINK = log
    try:
        exec(compile("\n".join(l for l in lines if not l.startswith("import ")), "<prog>",
                     "exec"), ns)
    finally:
        _bw.TRACE_SINK = old
    return ns, log


@pytest.mark.parametrize("dialect", ["2.2", "3", "torch"])
def test_random_programs(dialect):
    rng = random.Random({"2.2": 19, "3": 20, "torch": 21}[dialect])
    checked = 0
    for k in range(80):
        lines = _program(rng, dialect)
        try:
            ns, log = _run_program(lines, dialect)
        except Exception as exc:  # noqa: BLE001 - a program whose loss takes no gradient
            if "does not require grad" in str(exc) or "stop_gradient" in str(exc) \
                    or "element 0 of tensors" in str(exc):
                continue
            raise AssertionError("\n".join(lines)) from exc
        where = f"random program {dialect}/{k}:\n" + "\n".join(lines) + "\n"
        checked += check_log(log, ns, where)
    assert checked >= 67, checked   # 3 x 67 >= 200 programs checked in all
