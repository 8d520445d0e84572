"""The backward pass, step by step, as picture models and plain sentences.

``BackwardLog`` is a ``backward.TRACE_SINK``: it keeps, for each backward a run made, its roots
and its events with the gradients' values as they were at that moment (previews: the engine
goes on changing ``.grad`` in place). ``frames(graph, run)`` then replays those events over the
picture model. The engine's events are grouped into the steps a student sees:

- the count: each backward op counts the gradients it waits for (Paddle's PrepareDeps);
- the start: the root's gradient is seeded, its backward op is ready;
- one step per backward op that runs: what it sent to each input (after any broadcast sum) and
  to whom, and whether it freed its saved tensors;
- one step per leaf whose ``.grad`` is written (the accumulation node runs);
- ``paddle.grad``: one step per gradient it takes as a result.

Frame k is the state after step k, with the running backward op highlighted, ready ops dashed,
each op's remaining dependency count (``deps``), gradient variables filling in (the changed
ones in bold), released backward ops greyed, and ``step``: {index, total, event (the
sentence), ready (ids), ready_names, changed, values, events, code}. Every number shown comes
from the engine's own events (``BackwardLog`` previews), never recomputed.

From the picture to the code: ``step["code"]`` lists the engine functions whose events made the
step (``backward.phase_source``, each event with its neighbours), each once, in order, as
``{"name", "file", "first", "last", "lines", "marks"}`` (``file`` relative to the folder holding
the ``gradrepl`` package, ``first``/``last`` 1-based line numbers, ``lines`` the source without
line ends, ``marks`` the numbers of the lines that emit this step's kinds of event, e.g.
``emit(ev.Run(...))``); ``code_line(step)`` says them in one line (``%step --code``).

Backward ops are named as the picture names them (``MulBackward #2`` where several share a
name), gradients as the dialect spells them (``c_grad`` / ``c.grad``), the engine's own term in
brackets (``(Paddle: PrepareDeps)``).
"""
from __future__ import annotations

import copy
import os
import re
from collections import deque

from ..engine import backward as _backward
from ..engine import events as ev
from ..engine.node import AccumulateNode
from .model import flow_name, preview, shown, words

MAX_RUNS = 4  # backward runs kept by a log (a training loop keeps only its last ones)


class LoggedRun:
    def __init__(self, roots, kw):
        self.roots = list(roots)
        self.kw = dict(kw)
        self.events = []        # (event, {what: preview}) pairs
        self.leaf_before = {}   # AccumulateNode -> preview of the leaf's .grad before the run
        self.kept_before = {}   # (node, slot) -> preview of a non-leaf's .grad before the run
        self.out_before = {}    # (node, slot) -> preview of a forward output before the run
        #                         (what pictures show of a tensor the backward lets go of)
        self.finished = False


class BackwardLog:
    """Collects every backward's events with value previews (install as TRACE_SINK)."""

    def __init__(self, max_runs=MAX_RUNS):
        self.runs = deque(maxlen=max_runs)

    def __call__(self, item):
        if isinstance(item, tuple) and item and item[0] in ("begin", "end"):
            if item[0] == "begin":
                self.runs.append(LoggedRun(item[1], item[2]))
            elif self.runs:
                self.runs[-1].finished = True
            return
        run = self.runs[-1]
        run.events.append(snapshot(item, run))

    def run_for(self, tensor):
        """The last logged backward started from ``tensor`` (else the last one)."""
        for run in reversed(self.runs):
            if any(r is tensor for r in run.roots):
                return run
        return self.runs[-1] if self.runs else None


def _p(t):
    return preview(t.data) if t is not None else None


def snapshot(e, run=None):
    """An event with the previews of the values it carries, taken now."""
    vals = {}
    if isinstance(e, ev.DepsCounted) and run is not None:
        for n in e.deps:
            if isinstance(n, AccumulateNode):
                leaf = n.leaf
                run.leaf_before[n] = _p(leaf._grad) if leaf is not None else None
                continue
            _forward_values(n, run)
    elif isinstance(e, ev.Seeded):
        vals["grad"] = _p(e.grad)
        vals["ones"] = e.grad is not None and bool((e.grad.data == 1).all())
        vals["size"] = e.grad.data.size if e.grad is not None else 0
    elif isinstance(e, ev.Accumulate):
        vals["grad"] = _p(e.grad)
        vals["total"] = _p(e.total)
    elif isinstance(e, ev.Run):
        vals["out_grads"] = [_p(g) for g in e.out_grads]
        vals["in_grads"] = [_p(g) for g in e.in_grads]
        saved = getattr(e.node, "in_data", None)   # the forward inputs the op saved
        if saved is not None:
            vals["inputs"] = [preview(a) if a is not None and hasattr(a, "shape") else None
                              for a in saved]
    elif isinstance(e, ev.Captured):
        vals["grad"] = _p(e.grad)
    return e, vals


def _forward_values(n, run):
    """What a node's outputs held before the backward ran (their values and the ``.grad``
    a retained one keeps): pictures drawn after the graph is released still show them."""
    refs = getattr(n, "out_refs", None)
    data = getattr(n, "out_data", None)
    for k in range(len(refs) if refs is not None else len(data or ())):
        t = refs[k]() if refs is not None else None
        if t is not None:
            run.out_before[(n, k)] = _p(t)
            if t._grad is not None:
                run.kept_before[(n, k)] = _p(t._grad)
        elif data is not None and k < len(data) and hasattr(data[k], "shape"):
            run.out_before[(n, k)] = preview(data[k])
    inputs = getattr(n, "inputs", None)   # (an input that lives only in the node: x * x)
    if inputs is not None:
        for t in inputs:
            node = getattr(t, "grad_node", None)
            if node is not None and not t.stop_gradient:
                run.out_before.setdefault((node, t.out_slot), _p(t))


_SUM_TO = re.compile(r"sum_to\(.*, (\[[0-9, ]*\])\)")


def _and(parts):
    parts = [p for p in parts if p]
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


class _Replay:
    """Engine state after a prefix of events, mapped onto the model's ids."""

    def __init__(self, graph, run, history=None):
        b = graph._builder
        id_map = getattr(graph, "_id_map", None)   # a cut or collapsed picture: old -> new id
        self.g = graph
        self.words = words(graph.profile)
        self.builder = b
        self.by_id = graph.by_id()

        def mapped(i):
            j = id_map.get(i) if id_map is not None else i
            return j if j in self.by_id else None

        self.bw_of = {}
        self.member = set()   # engine nodes drawn inside a collapsed Layer's backward op
        for node, info in b.bw.items():
            j = mapped(info.id)
            if j is not None:
                self.bw_of[node] = j
                if j != info.id:
                    self.member.add(node)
        self.full_gv = {}     # engine (node, slot) -> its gradient's name, drawn or not
        for gv in b.gvars.values():
            edge = b.grad_edges.get(gv.id)
            if edge is not None:
                self.full_gv[edge] = gv.name
        self.exact = id_map is None or all(  # one engine node per backward op drawn
            id_map.get(k) == k for k in id_map)
        self.gv_of = {}  # engine (node, slot) -> grad var id
        for gid, edge in b.grad_edges.items():
            if edge is not None and gid in self.by_id:
                self.gv_of[edge] = gid
        self.profile = graph.profile
        self.tid_of = {}   # engine (node, slot) -> the id of the tensor drawn for it
        for key, info in b.tensors.items():
            j = mapped(info.id)
            if j is not None and type(key[0]) is not str:
                self.tid_of[key] = j
        self.deps = {}
        self.queue = []          # the engine's ready queue (every node, drawn or not), FIFO
        self.running = None
        self.done = set()
        self.released = set()
        self.values = {}  # grad var id -> what the tensor's .grad holds (preview)
        self.flows = {}   # grad var id -> the gradient that reached it so far in this run
        self.before = {}  # grad var id -> what its .grad held when this run began
        self.leaf_grad = dict(run.leaf_before)   # AccumulateNode -> its leaf's .grad now
        for node, before in run.leaf_before.items():
            gid = self.gv_of.get((node, 0))
            if gid is not None:
                self.values[gid] = self.before[gid] = before
        for edge, before in run.kept_before.items():
            gid = self.gv_of.get(edge)
            if gid is not None and self.by_id[gid].kept:
                self.values[gid] = self.before[gid] = before
        self.xvals = {}  # tensor id -> the value it held in the backward (chain operands)
        for edge, p in run.out_before.items():
            tid = self.tid_of.get(edge)
            if tid is not None and p is not None:
                self.xvals[tid] = p
        self.buf = {}  # engine (node, slot) -> the gradient summed in its buffer so far
        self.parts = {}  # grad var id -> [previews] of the gradients summed into it this run
        self.stored = set()   # this step: grad vars whose .grad was written
        self.flowed = set()   # this step: grad vars a gradient reached
        self.contrib = {}  # bw id -> {input index: preview delivered (after broadcast sums)}
        self.changed = set()
        self.acc_ready = set()
        self.edge_ptr = None     # (node, next edge index, pending index) while a node sends
        self.inputs = list(run.kw.get("inputs") or ())   # paddle.grad's inputs
        # what this backward touches: its nodes (PrepareDeps) and their gradient variables
        counted = next((e for e, _v in run.events if isinstance(e, ev.DepsCounted)), None)
        nodes = set(counted.deps) if counted is not None else set()
        nodes.update(e.node for e, _v in run.events if isinstance(e, ev.Seeded))
        self.scope_bw = {self.bw_of[n] for n in nodes if n in self.bw_of}
        # torch frees a node's saved tensors right after it runs (no retain_graph); the
        # dialect's engine frees them all once the backward is over, without events: a node
        # this backward ran and that is released now (no later logged backward ran it) is
        # drawn released from its step on, as torch does it
        self.late_release = set()
        if graph.profile == "torch":
            later = []
            if history is not None and run in list(history):
                runs = list(history)
                later = runs[runs.index(run) + 1:]
            for n in nodes:
                if getattr(n, "released", False) and not isinstance(n, AccumulateNode) and \
                        not any(n in r.leaf_before or n in _counted(r) for r in later):
                    self.late_release.add(n)
        self.scope_gv = {gid for (n, _s), gid in self.gv_of.items() if n in nodes}
        for bid in self.scope_bw:
            self.contrib.setdefault(bid, {})

    # -- names ----------------------------------------------------------------------------
    def leaf_name(self, acc):
        gid = self.gv_of.get((acc, 0))
        if gid is not None:
            return self.by_id[self.by_id[gid].tensor].name
        leaf = acc.leaf
        name = None
        if leaf is not None:
            name = self.builder.names.get(id(leaf)) or self.builder.d.tensor_name(leaf)
        return name or "a leaf"

    def name(self, node):
        """A backward op as the picture names it (its engine name where it is not drawn)."""
        bid = self.bw_of.get(node)
        if bid is not None:
            if node in self.member:   # one engine op inside a collapsed Layer
                return f"{shown(self.by_id[bid])} ({self.builder.d.backward_name(node)})"
            return shown(self.by_id[bid])
        if isinstance(node, AccumulateNode):
            return f"the accumulation into {self.leaf_name(node)}.grad"
        info = self.builder.bw.get(node)
        if info is not None:   # an op a cut (--depth, --to) left out of the picture
            return f"{shown(info)} (not drawn)"
        try:
            return self.builder.d.backward_name(node)
        except Exception:  # noqa: BLE001 - a node the dialect cannot name
            return getattr(node, "name", "?")

    def dest(self, node):
        """Where a gradient goes: a leaf by its name, a backward op by its title."""
        if isinstance(node, AccumulateNode):
            return self.leaf_name(node)
        return self.name(node)

    def flow_name(self, node, slot):
        """The gradient that flows to (node, slot): ``c_grad`` (Paddle), ``grad(c)`` (torch)."""
        gid = self.gv_of.get((node, slot))
        if gid is not None:
            return flow_name(self.by_id[gid], self.by_id, self.profile)
        name = self.gv_name(node, slot)
        if self.profile == "torch" and name.endswith(".grad"):
            return self.words["flow"](name[:-len(".grad")])
        return name

    def gv_name(self, node, slot):
        gid = self.gv_of.get((node, slot))
        if gid is not None:
            return self.by_id[gid].name
        if (node, slot) in self.full_gv:   # a gradient inside a collapsed Layer
            return self.full_gv[(node, slot)]
        if isinstance(node, AccumulateNode):
            return self.builder.d.grad_var_name(self.leaf_name(node))
        return f"the gradient for {self.name(node)}"

    # -- state ----------------------------------------------------------------------------
    def _set(self, gid, value):
        """``.grad`` of grad var ``gid`` now holds ``value``."""
        if gid is not None:
            self.values[gid] = value
            self.changed.add(gid)
            self.stored.add(gid)

    def _flow(self, gid, value):
        """The gradient that reached grad var ``gid`` so far is ``value``."""
        if gid is not None:
            self.flows[gid] = value
            self.changed.add(gid)
            self.flowed.add(gid)

    def _pop_to(self, node):
        """``node`` left the ready queue: Paddle's queue is FIFO, so every node ahead of it
        left before it; torch's runs the node made last first (backward.SequenceQueue), and
        the nodes ahead of it still wait."""
        if node in self.queue and self.profile == "torch":
            self.queue.remove(node)
        elif node in self.queue:
            while self.queue:
                if self.queue.pop(0) is node:
                    break

    def _start(self, bid):
        if self.running is not None:
            self.done.add(self.running)
        self.running = bid

    def kind(self, e):
        """The step an event opens ("count", "seed", "run", "write", "capture"), or None
        when it belongs to the step before it."""
        if isinstance(e, ev.DepsCounted):
            return "count"
        if isinstance(e, ev.Seeded):
            return "seed"
        if isinstance(e, ev.Run):
            return "run"
        if isinstance(e, ev.Captured):
            return "capture"
        if isinstance(e, ev.Accumulate) and isinstance(e.target, AccumulateNode) \
                and e.target in self.acc_ready:
            return "write"
        return None

    def apply(self, e, vals):
        """Update the state for one event; return a note for the step's sentence."""
        if isinstance(e, ev.DepsCounted):
            for n, c in e.deps.items():
                bid = self.bw_of.get(n)
                if bid is not None and self.exact:
                    self.deps[bid] = c
            return ("count", e)
        if isinstance(e, ev.Seeded):
            gid = self.gv_of.get((e.node, e.slot))
            self._flow(gid, vals["grad"])
            if gid is not None:
                self.parts.setdefault(gid, []).append(vals["grad"])
            return ("seed", e, vals["grad"], vals.get("ones"), vals.get("size"))
        if isinstance(e, ev.Ready):
            if isinstance(e.node, AccumulateNode):
                self.acc_ready.add(e.node)
            self.queue.append(e.node)
            if self.profile == "torch":  # in the order torch's queue runs them
                self.queue.sort(key=lambda n: (0, 0) if isinstance(n, AccumulateNode)
                                else (1, -n.uid))
            return ("ready", e.node)
        if isinstance(e, ev.Run):
            self._pop_to(e.node)
            for k in [k for k in self.buf if k[0] is e.node]:
                del self.buf[k]
            bid = self.bw_of.get(e.node)
            self._start(bid)
            hooked, kept = [], []
            for k, p in enumerate(vals["out_grads"]):  # what the op ran on
                gid = self.gv_of.get((e.node, k))
                before = self.flows.get(gid) if gid is not None else None
                if gid is not None and p is not None and before != p:
                    self._flow(gid, p)
                    if before is not None:   # a hook on the output changed its gradient
                        hooked.append((flow_name(self.by_id[gid], self.by_id, self.profile),
                                       before, p))
                if gid is not None and p is not None and self.by_id[gid].kept \
                        and not self.inputs:   # (paddle.grad / torch.autograd.grad keep none)
                    self._set(gid, p)   # a retained non-leaf keeps it as .grad (the engine's
                    if not self.builder.d.retain_nonleaf:   # output_hooks, before the VJP);
                        t = self.by_id[self.by_id[gid].tensor]   # said where it is asked for
                        kept.append((t.name, p))   # (retain_grad)
            self.edge_ptr = [e.node, 0, None]
            if e.node in self.late_release and bid is not None:
                self.released.add(bid)
            if bid is not None and self.exact:
                self.contrib[bid] = {}
                op = self.by_id.get(self.by_id[bid].forward)
                if op is not None and vals.get("inputs") is not None:
                    for tid, p in zip(op.inputs, vals["inputs"]):
                        if p is not None:
                            self.xvals[tid] = p
            return ("run", e.node, hooked, kept)
        if isinstance(e, ev.Accumulate):
            gid = self.gv_of.get((e.target, e.slot))
            if isinstance(e.target, AccumulateNode) and e.target in self.acc_ready:
                # the accumulation node runs: the leaf's .grad is written
                self.acc_ready.discard(e.target)
                self.buf.pop((e.target, 0), None)
                self._pop_to(e.target)
                self._start(self.bw_of.get(e.target))
                before = self.leaf_grad.get(e.target)
                self.leaf_grad[e.target] = vals["total"]
                self._set(gid, vals["total"])
                return ("write", e.target, before, vals["grad"], vals["total"])
            before = self.buf.get((e.target, e.slot))
            self.buf[(e.target, e.slot)] = vals["total"]
            self._flow(gid, vals["total"])
            if gid is not None:
                self.parts.setdefault(gid, []).append(vals["grad"])
            index = self._edge(e.target, e.slot, sent=True)
            src = self.edge_ptr[0] if self.edge_ptr else None
            sbid = self.bw_of.get(src)
            if index is not None and sbid is not None and self.exact:
                self.contrib.setdefault(sbid, {})[index] = vals["grad"]
            return ("sent", e.target, e.slot, index, vals["grad"], vals["total"], before)
        if isinstance(e, ev.DepDec):
            bid = self.bw_of.get(e.node)
            if bid is not None and self.exact:
                self.deps[bid] = e.remaining
            self._edge(e.node, None, sent=False)
            return ("dep", e.node, e.remaining)
        if isinstance(e, ev.Released):
            bid = self.bw_of.get(e.node)
            if bid is not None:   # (it stays the running op of this step's picture)
                self.released.add(bid)
            return ("released", e.node)
        if isinstance(e, ev.Captured):
            inputs = self.inputs or ()
            t = inputs[e.index] if e.index < len(inputs) else None
            edge = t.gradient_edge() if t is not None else None
            if edge is not None:   # the node whose gradient is taken just left the queue
                self._pop_to(edge[0])
            return ("capture", e.index, vals["grad"], edge)
        return ("other", e)

    def _edge(self, child, slot, sent):
        """The input index of the running node whose edge this event is about: each edge gives
        an Accumulate (when a gradient went along it), then a DepDec."""
        ptr = self.edge_ptr
        if ptr is None:
            return None
        node, start, pending = ptr
        edges = getattr(node, "edges", ())
        if not sent and pending is not None:
            ptr[1], ptr[2] = pending + 1, None
            return pending
        for i in range(start, len(edges) // 2):
            if edges[2 * i] is child and (slot is None or edges[2 * i + 1] == slot):
                if sent:
                    ptr[2] = i
                else:
                    ptr[1] = i + 1
                return i
        return None

    def finish(self):
        """The run is over: the queue is empty and nothing runs."""
        self.queue = []
        if self.running is not None:
            self.done.add(self.running)
            self.running = None

    # -- the frame ------------------------------------------------------------------------
    def frame(self, index, total, description, chain):
        g = copy.copy(self.g)
        g.grad_vars = [copy.copy(v) for v in self.g.grad_vars]
        g.backward_ops = [copy.copy(b) for b in self.g.backward_ops]
        for v in g.grad_vars:
            if v.id in self.scope_gv:
                v.data = self.values.get(v.id)
                v.flow = self.flows.get(v.id)
        fill_values(g, self.xvals)
        for b in g.backward_ops:
            if b.id in self.scope_bw:
                b.released = b.id in self.released
                b.deps = self.deps.get(b.id) if b.kind == "op" and self.exact else None
                b.state = ("running" if b.id == self.running else
                           "ready" if b.id in self.ready() else
                           "done" if b.id in self.done else None)
        ready = self.ready()
        g.step = {"index": index, "total": total, "event": description, "ready": ready,
                  "ready_names": [self.name(n) for n in self.queue],
                  "changed": sorted(self.changed), "stored": sorted(self.stored),
                  "flowed": sorted(self.flowed)}
        g._builder = self.g._builder
        if hasattr(self.g, "_id_map"):
            g._id_map = self.g._id_map
        if chain:
            from . import fill_chain

            fill_chain(g, {k: dict(v) for k, v in self.contrib.items()} if self.exact else {},
                       dict(self.xvals))
        return g

    def ready(self):
        out = []
        for n in self.queue:
            bid = self.bw_of.get(n)
            if bid is not None and bid not in out:
                out.append(bid)
        return out


# ---------------------------------------------------------------------------- the sentences
class _Narrator:
    """One plain sentence per step, in the picture's names and the engine's numbers."""

    def __init__(self, replay, run):
        self.r = replay
        self.w = replay.words
        self.kw = run.kw

    def sentence(self, kind, notes, frame):
        text = getattr(self, "_" + kind, self._other)(notes, frame)
        return text if text.endswith(".") else text + "."

    def _count(self, notes, frame):
        e = notes[0][1]
        r = self.r
        parts = []
        for n, c in e.deps.items():
            if n in r.bw_of:
                parts.append(f"{r.name(n)} waits for {c}")
        text = (f"Before anything runs, each backward op counts the gradients it waits for "
                f"({self.w['engine']}: {self.w['count']})")
        return text + (": " + ", ".join(parts) if parts else "")

    def _seed(self, notes, frame):
        r = self.r
        seeds, ready = [], []
        for note in notes:
            if note[0] == "seed":
                e = note[1]
                gv = r.flow_name(e.node, e.slot)
                tid = r.by_id[r.gv_of[(e.node, e.slot)]].tensor if (e.node, e.slot) in r.gv_of \
                    else None
                root = r.by_id[tid].name if tid else None
                where = f" at {root}" if root else ""
                how = ""
                if note[3] and root:   # (Paddle's default seed)
                    how = (f" (d{root}/d{root} = 1)" if note[4] == 1 else
                           f" (ones, one for each element of {root})")
                seeds.append((where, f"{gv} = {note[2]}{how}"))
            elif note[0] == "ready":
                ready.append(r.name(note[1]))
        where = seeds[0][0] if len(seeds) == 1 else ""
        text = f"The backward starts{where}: " + _and(s for _w, s in seeds)
        if ready:
            text += f", so {_and(ready)} can run"
        return text

    def _run(self, notes, frame):
        r = self.r
        node = notes[0][1]
        who = r.name(node)
        bid = r.bw_of.get(node)
        info = frame.by_id().get(bid) if bid is not None else None
        sent, freed = [], False
        for note in notes[1:]:
            if note[0] == "sent":
                _k, target, slot, index, grad, total, before = note
                line = None
                if info is not None and index is not None and r.exact:
                    from .chain import line_for

                    line = line_for(info, frame, index, _attrs_of(node), r.contrib.get(bid),
                                    r.xvals)
                gv = r.flow_name(target, slot)
                text = line if line else f"{gv} = {grad}"
                if not line or not line.endswith(f"= {grad}"):
                    if line:
                        text = f"{line} = {grad}"
                m = _SUM_TO.search(text)
                text += f" to {r.dest(target)}"
                if m:   # a broadcast input: the gradient summed back to its shape
                    text += f" (summed over the broadcast to the shape {m.group(1)})"
                if before is not None:   # a second gradient for the same variable: summed
                    text += (f" (added to the {before} that reached it before: {gv} = {before} + "
                             f"{grad} = {total})")
                sent.append(text)
            elif note[0] == "released":
                freed = True
        if node in r.late_release:
            freed = True
        hooked = "".join(f" on {gv} = {after} (a hook changed it from {before})"
                         for gv, before, after in notes[0][2])
        hooked += "".join(f" on {p} (kept as {name}.grad: {name}.retain_grad())"
                          if self.r.profile == "torch" else
                          f" on {p} (kept: {name}.retain_grads())" for name, p in notes[0][3])
        if sent:
            text = f"{who} ran{hooked}: it sent {_and(sent)}"
        else:
            text = f"{who} ran{hooked}: none of its inputs takes a gradient"
        if freed:
            text += ", then freed its saved tensors (no retain_graph)"
        return text

    def _write(self, notes, frame):
        r = self.r
        _k, acc, before, grad, total = notes[0]
        leaf = r.leaf_name(acc)
        bid = r.bw_of.get(acc)
        if bid is not None:
            head = f"{r.name(acc)} ran"
        else:
            head = f"{leaf}'s gradient is stored"
        if before is None:
            return f"{head}: {leaf}.grad = {total}"
        return (f"{head}: {leaf}.grad = {before} + {grad} = {total} (a new gradient is added "
                f"to what {leaf}.grad held)")

    def _capture(self, notes, frame):
        _k, index, grad, edge = notes[0]
        r = self.r
        if edge is None:
            return f"{self.w['grad_call']} takes the gradient of its input {index}: {grad}"
        gv = r.gv_name(*edge)
        return f"{self.w['grad_call']} returns {gv} = {grad} as its result"


    def _other(self, notes, frame):
        return "The engine went on"


def _attrs_of(node):
    return getattr(node, "attrs", None) if getattr(node, "op", None) is not None else None


def _counted(run):
    e = next((e for e, _v in run.events if isinstance(e, ev.DepsCounted)), None)
    return e.deps if e is not None else {}


def _start_sentence(replay) -> str:
    """Step 0: the graph as the forward left it, and what ``.grad`` already holds (an earlier
    backward's gradients, which this one adds to)."""
    held = [f"{replay.by_id[replay.by_id[gid].tensor].name}.grad = {v}" for gid, v in sorted(
        replay.before.items(), key=lambda kv: int(kv[0][1:])) if v is not None]
    if not held:
        return "Before backward: the graph as the forward pass left it."
    return ("Before this backward: the graph as the forward pass left it, and the gradients an "
            f"earlier backward() stored: {_and(held)} (a leaf's new gradient is added to it).")


def frames(graph, run, chain=True, history=None):
    """Picture models of ``run`` (a LoggedRun): before any event, then after each step."""
    replay = _Replay(graph, run, history)
    narrator = _Narrator(replay, run)
    first = replay.frame(0, 0, _start_sentence(replay), chain)
    groups = []   # [kind, [notes], state after its last event, first event, end]
    n_seen = 0
    for e, vals in run.events:
        kind = replay.kind(e)
        if kind == "seed" and groups and groups[-1][0] == "seed":
            kind = None
        new = kind is not None or not groups
        if new:
            if groups:   # the state after the step before (taken once per step)
                groups[-1][2] = _state(replay)
            replay.changed, replay.stored, replay.flowed = set(), set(), set()
        note = replay.apply(e, vals)
        if new:
            groups.append([kind or "other", [note], None, n_seen, n_seen])
        else:
            groups[-1][1].append(note)
        n_seen += 1
        groups[-1][4] = n_seen
    if groups:
        groups[-1][2] = _state(replay)
    total = len(groups)
    first.step["total"] = total
    out = [first]
    first.step["events"] = (0, 0)
    first.step["code"] = []
    for k, (kind, notes, state, start, end) in enumerate(groups, 1):
        _restore(replay, state)
        if k == total and run.finished:
            replay.finish()
        f = replay.frame(k, total, "", chain)
        if chain and k == total and run.finished:
            add_sum_lines(f, replay, run, history)
        f.step["events"] = (start, end)   # run.events[start:end] made this step
        f.step["code"] = step_code(run.events, start, end)
        f.step["event"] = narrator.sentence(kind, notes, f)
        out.append(f)
    return out


# ------------------------------------------------------------ from the picture to the code
_SOURCES = {}   # engine function -> its code entry (the source is read once per process)
_PACKAGE_HOME = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def step_code(events, start, end) -> list[dict]:
    """The engine functions that emitted ``events[start:end]`` (``(event, previews)`` pairs of a
    ``LoggedRun``), each once, in the order they first acted: ``{"name", "file", "first",
    "last", "lines", "marks"}``."""
    out, kinds = [], {}   # function -> the kinds of event it emitted in this step
    for i in range(start, end):
        e = events[i][0]
        before = events[i - 1][0] if i > 0 else None
        after = events[i + 1][0] if i + 1 < len(events) else None
        fn = _backward.phase_of(e, before, after)
        if fn in kinds:
            kinds[fn].add(type(e).__name__)
            continue
        kinds[fn] = {type(e).__name__}
        entry = _SOURCES.get(fn)
        if entry is None:
            name, first, lines = _backward.phase_source(e, before, after)
            path = os.path.abspath(fn.__code__.co_filename)
            rel = os.path.relpath(path, _PACKAGE_HOME) if path.startswith(_PACKAGE_HOME) else path
            entry = _SOURCES[fn] = {"name": name, "file": rel.replace(os.sep, "/"),
                                    "first": first, "last": first + len(lines) - 1,
                                    "lines": tuple(lines)}
        out.append(dict(entry))
    for entry, names in zip(out, kinds.values()):   # the lines that emit them
        calls = tuple(f"emit(ev.{n}(" for n in names)
        entry["marks"] = [entry["first"] + j for j, line in enumerate(entry["lines"])
                          if any(c in line for c in calls)]
    return out


def code_line(step) -> str:
    """``engine: run_node (gradrepl/engine/backward.py:238-278), send_gradients (...)``: the
    functions that made a step, where they are; ``engine: (nothing ran yet)`` before the
    first step."""
    code = step.get("code") or ()
    if not code:
        return "engine: (nothing ran yet)"
    return "engine: " + ", ".join(f"{c['name']} ({c['file']}:{c['first']}-{c['last']})"
                                  for c in code)


_STATE = ("deps", "queue", "running", "done", "released", "values", "changed", "leaf_grad",
          "buf", "acc_ready", "xvals", "flows", "stored", "flowed")


def _state(replay):
    snap = {k: copy.copy(getattr(replay, k)) for k in _STATE}
    snap["contrib"] = {b: dict(v) for b, v in replay.contrib.items()}
    snap["parts"] = {g: list(v) for g, v in replay.parts.items()}
    return snap


def _restore(replay, snap):
    for k in _STATE:
        setattr(replay, k, copy.copy(snap[k]))
    replay.contrib = {b: dict(v) for b, v in snap["contrib"].items()}
    replay.parts = {g: list(v) for g, v in snap["parts"].items()}


def fill_final_chain(graph, run, history=None) -> None:
    """The chain lines of a picture drawn after ``run`` (a finished LoggedRun), with the
    numbers that flowed: what each op delivered (after broadcast sums) and the gradients it ran
    on, also where the dialect keeps no gradient of a non-leaf (torch, eager Paddle); each
    gradient that flowed (``GradVarInfo.flow``), the values of tensors the backward let go of,
    and how each gradient adds up (its paths; ``.grad`` over several ``backward()`` calls).
    ``history``: the log's runs (``BackwardLog.runs``), to count those calls."""
    from . import fill_chain

    replay = fill_flows(graph, run, history)
    values = {gid: v for gid, v in replay.flows.items() if v is not None}
    values.update(replay.xvals)
    fill_chain(graph, {k: dict(v) for k, v in replay.contrib.items()} if replay.exact else None,
               values)
    add_sum_lines(graph, replay, run, history)


def fill_flows(graph, run, history=None):
    """Each gradient that flowed in ``run`` (``GradVarInfo.flow``) and the values of tensors
    the backward let go of, into a picture drawn after it; returns the replay."""
    replay = _Replay(graph, run, history)
    for e, vals in run.events:
        replay.apply(e, vals)
    for v in graph.grad_vars:
        if v.id in replay.scope_gv and v.id in replay.flows:
            v.flow = replay.flows[v.id]
    fill_values(graph, replay.xvals)
    return replay


def fill_values(graph, xvals) -> None:
    """Tensors the backward let go of (``data = (freed)``) show the value they held while it
    ran (``xvals``: tensor id -> preview), copied so the graph they came from is untouched."""
    if not xvals:
        return
    out = []
    for t in graph.tensors:
        p = xvals.get(t.id)
        if t.preview is None and p is not None:
            t = copy.copy(t)
            t.preview = p
        out.append(t)
    graph.tensors = out


_SHAPE_NOTE = re.compile(r" \(\d+(?:x\d+)+\)$")


def _bare(p):
    """A preview without its shape note (a sum's terms share one shape)."""
    return _SHAPE_NOTE.sub("", p) if isinstance(p, str) else p


def _run_writes(run, acc):
    """(added, total) of the write into ``acc``'s leaf in ``run``, None if it wrote none."""
    last = None
    for e, vals in run.events:
        if isinstance(e, ev.Accumulate) and e.target is acc:
            last = (vals.get("grad"), vals.get("total"))
    return last


def add_sum_lines(graph, replay, run, history=None) -> None:
    """How each gradient adds up, under the backward op that finishes it: its paths
    (``x_grad = 2. + 2. = 4.``) and, for a ``.grad`` that already held an earlier backward's
    gradient, the calls (``x.grad = 4. + 4. = 8. over 2 backward() calls``)."""
    by_id = graph.by_id()
    from .terminal import engine_order

    order = engine_order(graph)
    last_writer, acc_of = {}, {}
    for bid in order:
        b = by_id[bid]
        if b.kind == "accumulate":
            acc_of[b.outputs[0]] = b
        for gid in b.outputs:
            if gid is not None and b.kind == "op":
                last_writer[gid] = b
    engine_acc = {gid: node for (node, _s), gid in replay.gv_of.items()
                  if isinstance(node, AccumulateNode)}
    runs = list(history) if history is not None else [run]
    if run not in runs:
        runs.append(run)
    runs = runs[:runs.index(run) + 1]
    extra: dict = {}
    for gv in graph.grad_vars:
        if gv.id not in replay.scope_gv:
            continue
        parts = replay.parts.get(gv.id) or []
        flow = replay.flows.get(gv.id)
        lines = []
        fname = flow_name(gv, by_id, graph.profile)
        if len(parts) > 1 and None not in parts and flow is not None:
            lines.append(f"{fname} = {' + '.join(map(_bare, parts))} = {_bare(flow)}  "
                         f"({len(parts)} paths reach {by_id[gv.tensor].name})")
        acc = engine_acc.get(gv.id)
        before = replay.before.get(gv.id)
        if acc is not None and before is not None and gv.id in replay.values:
            terms, complete = [], False
            for earlier in reversed(runs):
                w = _run_writes(earlier, acc)
                if w is None or w[0] is None:
                    break
                terms.insert(0, w[0])
                if earlier.leaf_before.get(acc) is None:   # the first call that wrote it
                    complete = True
                    break
            total = replay.values[gv.id]
            attr = f"{by_id[gv.tensor].name}.grad"   # (Paddle's a_grad is kept as a.grad)
            if complete and len(terms) > 1:
                lines.append(f"{attr} = {' + '.join(map(_bare, terms))} = {_bare(total)}  "
                             f"(over {len(terms)} "
                             f"backward() calls: each adds its gradient)")
            elif terms:
                lines.append(f"{attr} = {_bare(before)} + {_bare(terms[-1])} = {_bare(total)}  "
                             f"({_bare(before)} was "
                             f"already there: an earlier backward() stored it)")
        if lines:
            owner = acc_of.get(gv.id) or last_writer.get(gv.id)
            if owner is not None:
                extra.setdefault(owner.id, []).extend(lines)
    if not extra:
        return
    ops = []
    for b in graph.backward_ops:
        if b.id in extra:
            b = copy.copy(b)
            b.chain = list(b.chain) + extra[b.id]
        ops.append(b)
    graph.backward_ops = ops


# ------------------------------------------------------------ a graph a backward released
def graph_released(tensor) -> bool:
    """``tensor``'s graph was freed by a backward without ``retain_graph``: its own backward
    op (or one it reaches) let go of its saved tensors, so no backward can run it again."""
    node = getattr(tensor, "grad_node", None)
    if node is None:
        return False
    seen, stack = set(), [node]
    while stack and len(seen) < 10000:
        n = stack.pop()
        if n is None or id(n) in seen or isinstance(n, AccumulateNode):
            continue
        seen.add(id(n))
        if getattr(n, "released", False):
            return True
        stack.extend(getattr(n, "edges", ())[::2])
    return False


def logged_run_of(log, tensor):
    """The last finished backward in ``log`` (a BackwardLog) started from ``tensor``, else
    None (``run_for`` falls back to any run; a released graph's steps must be its own)."""
    if log is None:
        return None
    for run in reversed(log.runs):
        if run.finished and run.events and any(r is tensor for r in run.roots):
            return run
    return None


def released_message(name, backward_call=None) -> str:
    """What ``%step NAME`` says when NAME's graph is already released and no record of the
    backward that released it is kept."""
    call = backward_call or f"{name}.backward()"
    return (f"{name}'s graph was already released by {call}: a backward without "
            f"retain_graph=True frees the tensors each backward op saved, so %step cannot run "
            f"it again. Run %step {name} before {name}.backward() (%step runs the backward "
            f"itself), or call {name}.backward(retain_graph=True) first, or re-run the "
            f"statements that built {name} and then %step {name}.")
