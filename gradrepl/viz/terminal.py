"""The picture model as text for the terminal: readable over ssh, in a pipe, in a test.

One line per node, in topological order (inputs first), with a lane gutter like
``git log --graph``: a node with two consumers or two inputs is listed once, and the lines on
its left show where its value goes::

    ●  a  float32[1] = 2.  (leaf, grad_var=a_grad)
    │ ●  b  float32[1] = 5.  (leaf, grad_var=b_grad)
    ├─┘
    ●  Mul  c = a * b  [a, b -> c]

The backward section lists the backward ops in the engine's order (its FIFO ready queue from
the target's backward op), the lanes following ``grad_pending_ops``; under each op the
gradient variables it finished (``a_grad = 20.``), its chain-rule lines, and in a step-through
frame its state and remaining dependency count.

Colour (rich's ANSI styles) only on request or on a terminal without ``NO_COLOR``; otherwise
plain text with no escape codes. Box characters fall back to ASCII off UTF-8.
"""
from __future__ import annotations

import os
import sys
from collections import deque

from .model import flow_name, words
from .sanitize import is_one_line, one_line

# styles by role (rich style strings); plain mode ignores them
STYLES = {
    "gutter": "grey50", "head": "bold underline", "name": "bold cyan", "type": "grey62",
    "value": "green", "none": "dim", "flag": "grey62", "op": "bold magenta", "label": "yellow",
    "bw": "bold blue", "grad": "bold green", "released": "red", "chain": "italic grey62",
    "running": "bold reverse yellow", "ready": "bold yellow", "done": "dim", "event": "bold",
}

# box characters by the directions a gutter cell connects: N(orth) S E W
_BOX = {"NS": "│", "EW": "─", "NE": "└", "NW": "┘", "SE": "┌", "SW": "┐", "NSE": "├",
        "NSW": "┤", "NEW": "┴", "SEW": "┬", "NSEW": "┼", "N": "│", "S": "│", "E": "─",
        "W": "─"}


def _box(dirs: str, uni: bool) -> str:
    if uni:
        return _BOX[dirs]
    if dirs in ("NS", "N", "S"):
        return "|"
    if dirs in ("EW", "E", "W"):
        return "-"
    return "+"


# ---------------------------------------------------------------------------- the lane gutter
def gutter(order, succ, uni=True):
    """Gutter text for a DAG listed in ``order`` (topological); ``succ[n]``: n's consumers.

    Returns one ``(connector, prefix, below)`` per node: the connector line drawn above the node
    (merges and forks into its lane; None when it would be plain lines), the node's own prefix,
    and the prefix of detail lines printed under it. Edges to nodes listed earlier are ignored.
    """
    pos = {n: i for i, n in enumerate(order)}
    count, preds = {}, {}
    for n in order:
        outs = [c for c in dict.fromkeys(succ.get(n, ())) if pos.get(c, -1) > pos[n]]
        count[n] = len(outs)
        for c in outs:
            preds.setdefault(c, []).append(n)
    dot = "●" if uni else "*"
    lanes: list = []   # lane -> the node whose value it carries (None: free)
    where: dict = {}   # node -> its lane
    rows = []
    for n in order:
        ps = preds.get(n, ())
        ending = sorted(where[p] for p in ps if count[p] == 1)
        forking = sorted(where[p] for p in ps if count[p] > 1)
        for p in ps:
            count[p] -= 1
        if ending:
            col = ending[0]
        else:
            col = lanes.index(None) if None in lanes else len(lanes)
            if col == len(lanes):
                lanes.append(None)
        connector = None
        others = [i for i in ending if i != col] + forking
        if others:
            cells = [set("NS") if x is not None else set() for x in lanes]
            cells[col] = set("NS") if col in ending else set("S")
            for i in ending:
                if i != col:
                    cells[i] = set("N")
            lo, hi = min(others + [col]), max(others + [col])
            for j in range(lo, hi + 1):
                if j < hi:
                    cells[j].add("E")
                if j > lo:
                    cells[j].add("W")
            text = []
            for j, c in enumerate(cells):
                key = "".join(d for d in "NSEW" if d in c)
                text.append(_box(key, uni) if key else " ")
                text.append(_box("EW", uni) if lo <= j < hi else " ")
            connector = "".join(text).rstrip()
        for i in ending:
            lanes[i] = None
        lanes[col] = n
        where[n] = col
        while lanes[-1] is None:
            lanes.pop()
        prefix = "".join((dot if j == col else _box("NS", uni) if x is not None else " ") + " "
                         for j, x in enumerate(lanes))
        if count[n] == 0:
            lanes[col] = None
        while lanes and lanes[-1] is None:
            lanes.pop()
        below = "".join((_box("NS", uni) if x is not None else " ") + " " for x in lanes)
        rows.append((connector, prefix, below))
    return rows


# ---------------------------------------------------------------------------- names
class _Names:
    """Display names: the user's name, with the id in brackets where two things share it."""

    def __init__(self, graph):
        self.by_id = {}
        for group in (graph.tensors, graph.ops, graph.grad_vars, graph.backward_ops):
            for x in group:
                self.by_id[x.id] = x
        seen: dict = {}
        for group in (graph.tensors, graph.grad_vars, graph.backward_ops):
            for x in group:
                name = getattr(x, "title", None) or x.name
                seen[name] = seen.get(name, 0) + 1
        self.dup = {k for k, v in seen.items() if v > 1}
        self.step = graph.step is not None
        # torch: the gradient that flows is grad(c) (c.grad is the attribute a leaf keeps)
        self.flow = {}
        if graph.profile == "torch":
            self.flow = {g.id: flow_name(g, self.by_id, graph.profile) for g in graph.grad_vars}

    def __call__(self, ident) -> str:
        if ident is None:
            return "None"
        x = self.by_id.get(ident)
        if x is None or not getattr(x, "name", None):
            return str(ident)
        title = getattr(x, "title", None)
        if title:  # a backward op: numbered where names are shared ("MulBackward #2")
            return title
        flow = self.flow.get(ident)
        if flow is not None:
            return flow
        return f"{x.name}({ident})" if x.name in self.dup else x.name

    def join(self, ids) -> str:
        return ", ".join(self(i) for i in ids) if ids else "None"


# ---------------------------------------------------------------------------- step headers
def step_title(step) -> str:
    """The one numbering of a step-through, everywhere (frame header, player, ``%step``):
    ``step 5 of 22``; the frame before the first step is ``step 0 of 22``."""
    return f"step {step.get('index')} of {step.get('total')}"


def ready_text(step, nm=None) -> str:
    """The ready queue of a step frame, by the names the picture shows; ``(empty)``."""
    names = step.get("ready_names")
    if names is None:
        names = [nm(r) if nm is not None else str(r) for r in step.get("ready") or ()]
    return ", ".join(names) if names else "(empty)"


# ---------------------------------------------------------------------------- sections
def _one_line(s, limit=80):
    s = " ".join(str(s).split())
    return s if len(s) <= limit else s[:limit - 3] + "..."


def _forward(graph, nm, uni):
    """Forward tensors and ops, inputs first."""
    ops = {o.id: o for o in graph.ops}
    tens = {t.id: t for t in graph.tensors}
    order, done, visiting = [], set(), set()
    for t in graph.tensors:   # iterative DFS: an op after its inputs, its outputs after it
        stack = [(t.id, False)]
        while stack:
            nid, expanded = stack.pop()
            if nid in done or (not expanded and nid in visiting):
                continue
            if not expanded:
                visiting.add(nid)
                if nid in tens:
                    deps = [tens[nid].op] if tens[nid].op in ops else []
                else:
                    deps = [i for i in ops[nid].inputs if i in tens]
                stack.append((nid, True))
                stack.extend((d, False) for d in reversed(deps) if d not in done)
                continue
            done.add(nid)
            order.append(nid)
            if nid in ops:
                stack.extend((o, False) for o in reversed(ops[nid].outputs) if o in tens)
    succ = {}
    for o in graph.ops:
        for i in o.inputs:
            succ.setdefault(i, []).append(o.id)
        succ[o.id] = list(o.outputs)
    w = words(graph.profile)
    lines = [[(f"forward  (profile {graph.profile})", "head")]]
    for nid, (conn, prefix, _below) in zip(order, gutter(order, succ, uni)):
        if conn:
            lines.append([(conn, "gutter")])
        line = [(prefix + " ", "gutter")]
        if nid in tens:
            t = tens[nid]
            line += [(nm(nid), "name"), (f"  {t.dtype}{list(t.shape)}", "type")]
            if t.preview is not None:
                line += [(" = ", None), (t.preview, "value")]
            flags = []
            if t.parameter:
                flags.append("parameter")
            elif t.is_leaf:
                flags.append("leaf")
            flag = w["flag_short"](t.stop_gradient)
            if flag:
                flags.append(flag)
            if not t.stop_gradient:
                flags.append(f"{w['grad_var']}={nm(t.grad_var)}")
            if not t.live:
                flags.append("not kept")
            if nid in graph.targets:
                flags.append("target")
            line.append((f"  ({', '.join(flags)})", "flag"))
            label = getattr(t, "label", None)
            if label:
                line.append((f"  {_one_line(label)}", "label"))
        else:
            o = ops[nid]
            line.append((o.title, "op"))
            flow = f"{nm.join(o.inputs)} -> {nm.join(o.outputs)}"
            if o.label:
                line += [(f"  {_one_line(o.label)}", "label"), (f"  [{flow}]", "flag")]
            else:
                line.append((f"  {flow}", None))
            if o.order:
                line.append((f"  (order {o.order})", "flag"))
            if o.layers:
                line.append((f"  in {o.layers[-1]}", "flag"))
        lines.append(line)
    return lines


def engine_order(graph):
    """Backward op ids as the engine runs them: dependencies counted over ``grad_pending_ops``,
    then a FIFO ready queue from the targets' backward ops; ops not reached follow, by id."""
    bws = {b.id: b for b in graph.backward_ops}
    deps = dict.fromkeys(bws, 0)
    for b in graph.backward_ops:
        for p in dict.fromkeys(b.grad_pending_ops):
            if p in deps:
                deps[p] += 1
    tens = {t.id: t for t in graph.tensors}
    ops = {o.id: o for o in graph.ops}
    roots = []
    for tid in graph.targets:
        t = tens.get(tid)
        op = ops.get(t.op) if t is not None else None
        if op is not None and op.backward in bws and op.backward not in roots:
            roots.append(op.backward)
    order, seen = [], set()
    pending = deque(r for r in roots if deps[r] == 0)
    rest = iter(graph.backward_ops)
    while len(order) < len(bws):
        if not pending:   # what the targets do not reach (or a cycle guard): next free by id
            nxt = next((b.id for b in rest if b.id not in seen and deps[b.id] <= 0), None)
            if nxt is None:
                nxt = next(b.id for b in graph.backward_ops if b.id not in seen)
            pending.append(nxt)
        bid = pending.popleft()
        if bid in seen:
            continue
        seen.add(bid)
        order.append(bid)
        for p in dict.fromkeys(bws[bid].grad_pending_ops):
            if p in deps:
                deps[p] -= 1
                if deps[p] == 0 and p not in seen:
                    pending.append(p)
    return order


def _grad_line(g, nm, prefix, w):
    """A gradient: what ``.grad`` holds (a kept one), else the gradient that reached the
    tensor, said to be not kept (torch's non-leaves, eager Paddle's)."""
    line = [(prefix + "    ", "gutter")]
    if not g.kept:
        tensor = nm.by_id.get(g.tensor)
        tname = tensor.name if tensor is not None else "it"
        line += [(nm(g.id), "grad"), (" = ", None),
                 (g.flow, "value") if g.flow is not None else
                 ("(not reached yet)" if nm.step else "(not recorded)", "none"),
                 (f"  (the gradient reaching {tname}; not kept: {tname}.grad is None)", "flag")]
    else:
        line += [(g.name if nm.dup.isdisjoint((g.name,)) else nm(g.id), "grad"), (" = ", None),
                 (g.data, "value") if g.data is not None else ("None", "none")]
        if g.flow is not None and g.flow != g.data:
            line.append((f"  (reaching it: {nm(g.id)} = {g.flow})" if nm.flow.get(g.id) or
                         g.data is None else f"  (this backward: {g.flow})", "flag"))
    line.append((f"  {w['grad_op']} = {nm(g.grad_op)}", "flag"))
    return line


def _backward(graph, nm, uni):
    order = engine_order(graph)
    bws = {b.id: b for b in graph.backward_ops}
    step = graph.step
    w = words(graph.profile)
    lines = [[("backward  (engine order" + (f", from {nm(order[0])}" if order else "") + ")",
               "head")]]
    if step is not None:
        lines.append([(step_title(step) + ": ", "event"),
                      (_one_line(step.get("event") or "", 2000), "event")])
        lines.append([("ready queue: " + ready_text(step, nm), "ready")])
    # each gradient variable is shown once, under the last op that writes it (then it is final);
    # those no op writes (the target's seed) come first
    last = {}
    for bid in order:
        for gid in bws[bid].outputs:
            if gid is not None:
                last[gid] = bid
    under = {}
    for gid, bid in last.items():
        under.setdefault(bid, []).append(gid)
    for g in graph.grad_vars:
        if g.id not in last:
            lines.append(_grad_line(g, nm, "", w))
    gvars = {g.id: g for g in graph.grad_vars}
    succ = {b.id: list(b.grad_pending_ops) for b in graph.backward_ops}
    running = "▶" if uni else ">"
    for bid, (conn, prefix, below) in zip(order, gutter(order, succ, uni)):
        b = bws[bid]
        if conn:
            lines.append([(conn, "gutter")])
        if b.state == "running":
            col = prefix.index("●" if uni else "*")
            prefix = prefix[:col] + running + prefix[col + 1:]
        outs = f"output = {nm.join(b.outputs)}"
        if b.kind == "accumulate" and b.outputs and b.outputs[0] in nm.by_id:
            tensor = nm.by_id.get(nm.by_id[b.outputs[0]].tensor)
            outs = f"writes = {tensor.name}.grad" if tensor is not None else outs
        line = [(prefix + " ", "gutter"),
                (nm(bid), "running" if b.state == "running" else "bw"),
                (f"  input = {nm.join(b.inputs)}  {outs}"
                 f"  {w['pending']} = {nm.join(b.grad_pending_ops)}", None)]
        if b.order:
            line.append((f"  (order {b.order})", "flag"))
        if b.released:
            line.append(("  (released)", "released"))
        if b.deps is not None:
            line.append((f"  deps={b.deps}", "flag"))
        if b.state:
            line.append((f"  [{b.state}]", b.state if b.state in STYLES else "flag"))
        lines.append(line)
        for gid in under.get(bid, ()):
            if gid in gvars:
                lines.append(_grad_line(gvars[gid], nm, below, w))
        for c in b.chain:
            lines.append([(below + "    ", "gutter"), (str(c), "chain")])
    return lines


# ---------------------------------------------------------------------------- output
def _crop(segs, width, uni):
    out, n = [], 0
    total = sum(len(t) for t, _ in segs)
    if total <= width:
        return segs
    ell = "…" if uni else "~"
    room = width - 1
    for text, style in segs:
        if n + len(text) >= room:
            out.append((text[:room - n] + ell, style))
            break
        out.append((text, style))
        n += len(text)
    return out


def _stream_wants_color(stream) -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("TERM", "") in ("dumb", "unknown"):   # (the shell's rule too)
        return False
    try:
        return bool(stream is not None and stream.isatty())
    except (AttributeError, ValueError):
        return False


def _stream_is_unicode(stream) -> bool:
    enc = getattr(stream, "encoding", None) or "utf-8"
    return enc.lower().replace("-", "").replace("_", "") in ("utf8", "utf16", "utf32")


def render_text(graph, view="both", color=None, width=None, unicode=None) -> str:
    """The graph as text. ``view``: "forward" | "backward" | "both". ``color``: True (ANSI
    styles), False (plain), None (colour only when stdout is a terminal and ``NO_COLOR`` is
    unset). ``width``: crop lines to it (None: no cropping). ``unicode``: box characters (None:
    when stdout's encoding is UTF-8, else ASCII)."""
    if view not in ("forward", "backward", "both"):
        raise ValueError(f"unknown view {view!r}: choose forward, backward or both")
    if color is None:
        color = _stream_wants_color(sys.stdout)
    if unicode is None:
        unicode = _stream_is_unicode(sys.stdout)
    nm = _Names(graph)
    lines = []
    if view in ("forward", "both"):
        lines += _forward(graph, nm, unicode)
    if view == "both":
        lines.append([])
    if view in ("backward", "both"):
        lines += _backward(graph, nm, unicode)
    # names and statements come from the session: no control byte reaches the terminal raw
    if not is_one_line("".join(t for segs in lines for t, _ in segs)):
        lines = [[(one_line(t), st) for t, st in segs] for segs in lines]
    if width:
        lines = [_crop(segs, width, unicode) for segs in lines]
    if not color:
        return "\n".join("".join(t for t, _ in segs).rstrip() for segs in lines) + "\n"
    from rich.color import ColorSystem
    from rich.style import Style

    styles = {k: Style.parse(v) for k, v in STYLES.items()}
    out = []
    for segs in lines:
        out.append("".join(styles[st].render(t, color_system=ColorSystem.EIGHT_BIT)
                           if st and t else t for t, st in segs))
    return "\n".join(out) + "\n"


def print_graph(graph, view="both", file=None, color=None, width=None) -> None:
    """Write :func:`render_text` to ``file`` (default stdout), colour and box characters decided
    by that stream (a terminal without ``NO_COLOR``; its encoding)."""
    file = sys.stdout if file is None else file
    if color is None:
        color = _stream_wants_color(file)
    file.write(render_text(graph, view, color=color, width=width,
                           unicode=_stream_is_unicode(file)))


__all__ = ["render_text", "print_graph", "gutter", "engine_order"]
