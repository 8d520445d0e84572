"""The backward pass, one engine event at a time, as picture models.

``BackwardLog`` is a ``backward.TRACE_SINK``: it keeps, for each backward a run made, its roots
and its events with the gradients' values as they were at that moment (previews: the engine
goes on changing ``.grad`` in place). ``frames(graph, run)`` then replays those events over the
picture model: frame k is the state after k events, with

- the running backward op highlighted, ready ops dashed, and each op's remaining dependency
  count (``deps``);
- gradient variables filling in as gradients are accumulated (the changed ones in bold);
- released backward ops greyed;
- ``step``: the event's description and the ready queue.

``iter_frames`` does the same for a live backward (the shell's ``%step``): it drives the
engine's generator itself.
"""
from __future__ import annotations

import copy
from collections import deque

from ..engine import events as ev
from ..engine.node import AccumulateNode
from .model import preview

MAX_RUNS = 4  # backward runs kept by a log (a training loop keeps only its last ones)


class LoggedRun:
    def __init__(self, roots, kw):
        self.roots = list(roots)
        self.kw = dict(kw)
        self.events = []        # (event, {what: preview}) pairs
        self.leaf_before = {}   # AccumulateNode -> preview of the leaf's .grad before the run
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
    elif isinstance(e, ev.Seeded):
        vals["grad"] = _p(e.grad)
    elif isinstance(e, ev.Accumulate):
        vals["grad"] = _p(e.grad)
        vals["total"] = _p(e.total)
    elif isinstance(e, ev.Run):
        vals["out_grads"] = [_p(g) for g in e.out_grads]
        vals["in_grads"] = [_p(g) for g in e.in_grads]
    elif isinstance(e, ev.Captured):
        vals["grad"] = _p(e.grad)
    return e, vals


class _Replay:
    """Engine state after a prefix of events, mapped onto the model's ids."""

    def __init__(self, graph, run):
        b = graph._builder
        self.g = graph
        self.bw_of = {node: info.id for node, info in b.bw.items()}
        self.gv_of = {}  # engine (node, slot) -> grad var id
        for gid, edge in b.grad_edges.items():
            if edge is not None:
                self.gv_of[edge] = gid
        self.by_id = graph.by_id()
        self.deps = {}
        self.ready = []
        self.running = None
        self.done = set()
        self.released = set()
        self.values = {}  # grad var id -> preview
        for node, before in run.leaf_before.items():
            gid = self.gv_of.get((node, 0))
            if gid is not None:
                self.values[gid] = before
        self.contrib = {}  # bw id -> {input index: preview}
        self.changed = set()
        self.acc_ready = set()
        # what this backward touches: its nodes (PrepareDeps) and their gradient variables
        counted = next((e for e, _v in run.events if isinstance(e, ev.DepsCounted)), None)
        nodes = set(counted.deps) if counted is not None else set()
        nodes.update(e.node for e, _v in run.events if isinstance(e, ev.Seeded))
        self.scope_bw = {self.bw_of[n] for n in nodes if n in self.bw_of}
        self.scope_gv = {gid for (n, _s), gid in self.gv_of.items() if n in nodes}

    def name(self, node):
        bid = self.bw_of.get(node)
        if bid is None:
            if isinstance(node, AccumulateNode):
                gid = self.gv_of.get((node, 0))
                leaf = self.by_id[self.by_id[gid].tensor].name if gid else "a leaf"
                return f"the accumulation into {leaf}.grad"
            return getattr(node, "name", "?")
        return f"{self.by_id[bid].name} ({bid})"

    def gv_name(self, node, slot):
        gid = self.gv_of.get((node, slot))
        return self.by_id[gid].name if gid else f"{self.name(node)}[{slot}]"

    def apply(self, e, vals) -> str:
        self.changed = set()
        if isinstance(e, ev.DepsCounted):
            parts = []
            for n, c in e.deps.items():
                bid = self.bw_of.get(n)
                if bid is not None:
                    self.deps[bid] = c
                    parts.append(f"{self.by_id[bid].name} ({bid}): {c}")
            return ("PrepareDeps counts the grad_pending edges into each backward op: "
                    + ", ".join(parts))
        if isinstance(e, ev.Seeded):
            gid = self.gv_of.get((e.node, e.slot))
            if gid:
                self.values[gid] = vals["grad"]
                self.changed.add(gid)
            return f"{self.gv_name(e.node, e.slot)} = {vals['grad']}: the root's gradient"
        if isinstance(e, ev.Ready):
            if isinstance(e.node, AccumulateNode):
                self.acc_ready.add(e.node)
            bid = self.bw_of.get(e.node)
            if bid and bid not in self.ready:
                self.ready.append(bid)
            return f"{self.name(e.node)} has every gradient it waits for and joins the ready queue"
        if isinstance(e, ev.Run):
            bid = self.bw_of.get(e.node)
            if self.running is not None:
                self.done.add(self.running)
            self.running = bid
            if bid in self.ready:
                self.ready.remove(bid)
            info = self.by_id.get(bid)
            outs = []
            if info is not None:
                self.contrib[bid] = {}
                for i, (gid, p) in enumerate(zip(info.outputs, vals["in_grads"])):
                    self.contrib[bid][i] = p
                    if gid is not None and p is not None:
                        outs.append(f"{self.by_id[gid].name} += {p}")
            ins = ", ".join(p for p in vals["out_grads"] if p is not None)
            return (f"{self.name(e.node)} runs on out_grad {ins}: "
                    + ("; ".join(outs) if outs else "no gradients out"))
        if isinstance(e, ev.Accumulate):
            gid = self.gv_of.get((e.target, e.slot))
            if gid:
                self.values[gid] = vals["total"]
                self.changed.add(gid)
            where = self.gv_name(e.target, e.slot)
            if isinstance(e.target, AccumulateNode):
                leaf = self.name(e.target).split(" into ")[-1]
                if e.target in self.acc_ready:  # the accumulation node runs: .grad is written
                    return f"{leaf} is now {vals['total']} (summed {vals['grad']} into it)"
                return (f"{where} += {vals['grad']}: waits in {self.name(e.target)}")
            return f"{where} += {vals['grad']}: now {vals['total']}"
        if isinstance(e, ev.DepDec):
            bid = self.bw_of.get(e.node)
            if bid:
                self.deps[bid] = e.remaining
            return f"{self.name(e.node)} waits for {e.remaining} more gradient(s)"
        if isinstance(e, ev.Released):
            bid = self.bw_of.get(e.node)
            if bid:
                self.released.add(bid)
                if self.running == bid:  # released is its last step: it is done
                    self.done.add(bid)
                    self.running = None
            return f"the saved tensors of {self.name(e.node)} are released (no retain_graph)"
        if isinstance(e, ev.Captured):
            return f"paddle.grad captures input {e.index}'s gradient: {vals['grad']}"
        return type(e).__name__

    def frame(self, index, total, description, chain):
        g = copy.copy(self.g)
        g.grad_vars = [copy.copy(v) for v in self.g.grad_vars]
        g.backward_ops = [copy.copy(b) for b in self.g.backward_ops]
        for v in g.grad_vars:
            if v.id in self.scope_gv:
                v.data = self.values.get(v.id)
        for b in g.backward_ops:
            if b.id in self.scope_bw:
                b.released = b.id in self.released
                b.deps = self.deps.get(b.id) if b.kind == "op" else None
                b.state = ("running" if b.id == self.running else
                           "ready" if b.id in self.ready else
                           "done" if b.id in self.done else None)
        g.step = {"index": index, "total": total, "event": description,
                  "ready": list(self.ready), "changed": sorted(self.changed)}
        g._builder = self.g._builder
        if chain:
            from . import fill_chain

            fill_chain(g, dict(self.contrib))
        return g


def frames(graph, run, chain=True):
    """Picture models of ``run`` (a LoggedRun): before any event, then after each one."""
    replay = _Replay(graph, run)
    total = len(run.events)
    out = [replay.frame(0, total, "before backward: the graph as the forward pass left it",
                        chain)]
    for k, (e, vals) in enumerate(run.events, 1):
        desc = replay.apply(e, vals)
        out.append(replay.frame(k, total, f"{type(e).__name__}: {desc}", chain))
    return out
