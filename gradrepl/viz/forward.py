"""The forward pass, statement by statement: the graph growing, before the backward's steps.

``forward_frames(graph, recorder, mark_lines)`` cuts a picture model (the graph as the forward
pass left it: a backward's step 0, or a plain picture when no backward ran) into one frame per
statement that made some of it, in the order the statements ran. Frame k holds everything the
statements up to the k-th made: its leaves and ops, each op's output tensors, their gradient
variables and the backward ops the engine recorded beside each op (Paddle and torch record
them while the forward runs); the things the k-th statement made are listed in
``frame.forward["new"]`` (ids) and drawn highlighted by :func:`frame_dot`.

Which statement made what comes from the engine's provenance ``Recorder`` (its statement marks
are uid boundaries, see ``engine/provenance.py``): an op by its backward node's uid, a leaf by
its tensor's ``_uid``, never from the source text. ``mark_lines`` ({mark index: [lines]},
``capture.ScriptRun.mark_lines``) gives the script's line numbers for the narration::

    forward: line 5 `c = a * b` made c = 10. (multiply of a and b; MulBackward recorded)

Every number in a sentence is the picture's own preview of the tensor (``TensorInfo.preview``),
so the narration and the picture always agree.
"""
from __future__ import annotations

import bisect
import copy
import re

from .model import shown, words

NAMED_MAX = 4      # tensors a sentence names one by one; more are counted ("and 12 more")
VALUE_WIDTH = 40   # a value longer than this is said by its shape, not its numbers


def _mark_of_uid(uids, uid) -> int:
    return bisect.bisect_right(uids, uid) - 1


def statement_marks(graph, recorder) -> dict:
    """{model id: the index of the recorder's statement mark that made it} for the tensors,
    ops, gradient variables and backward ops of ``graph`` (-1: before any statement)."""
    b = getattr(graph, "_builder", None)
    by_id = graph.by_id()
    id_map = getattr(graph, "_id_map", None) or {}
    node_uids = list(getattr(recorder, "_stmt_uids", ()) or ())
    tensor_uids = list(getattr(recorder, "_stmt_tensor_uids", ()) or ())
    out: dict = {}

    def put(i, k):
        i = id_map.get(i, i)
        if i in by_id:
            out[i] = max(out.get(i, -1), k)

    if b is not None:
        for node, info in b.ops.items():   # an op: its backward node's uid
            put(info.id, _mark_of_uid(node_uids, node.uid))
        for key, info in b.tensors.items():   # a leaf: its tensor's uid; an op's output: the
            t = b.tensor_objs.get(key)            # uid of the node that made it
            uid = getattr(key[0], "uid", None)
            if uid is not None and not isinstance(key[0], str):
                put(info.id, _mark_of_uid(node_uids, uid))
            elif t is not None and info.op is None:
                put(info.id, _mark_of_uid(tensor_uids, t._uid))
    ops = {o.id: o for o in graph.ops}
    first_use: dict = {}
    for o in graph.ops:   # (ops in the model's order: each after its inputs' ops)
        k = out.get(o.id)
        ins = [out[t] for t in o.inputs if t in out]
        if k is None:   # (a Layer call drawn as one op: when its outputs were made)
            k = max([out[t] for t in o.outputs if t in out] or ins, default=-1)
        out[o.id] = k = max([k] + ins)
        for t in o.inputs:
            first_use[t] = min(first_use.get(t, k), k)
        for t in o.outputs:
            out[t] = max(out.get(t, -1), k)
    for t in graph.tensors:   # a leaf no longer alive: with the first op that used it
        if t.id not in out:
            out[t.id] = first_use.get(t.id, -1) if t.op is None else out.get(t.op, -1)
    gv_tensor = {v.id: v.tensor for v in graph.grad_vars}
    for v in graph.grad_vars:
        out[v.id] = out.get(v.tensor, -1)
    for bw in graph.backward_ops:
        if bw.forward is not None and bw.forward in ops:
            out[bw.id] = out[bw.forward]
        else:   # a leaf's accumulation node: made when an op first used the leaf
            leaf = gv_tensor.get(bw.outputs[0]) if bw.outputs else None
            out[bw.id] = max(out.get(leaf, -1), first_use.get(leaf, out.get(leaf, -1)))
    for bw in graph.backward_ops:   # (never before what it sends gradients to)
        out[bw.id] = max([out[bw.id]] + [out.get(p, -1) for p in bw.grad_pending_ops])
    return out


def _edges(g):
    """Every pair of ids a picture of ``g`` joins by an edge (both views)."""
    pairs = set()
    for o in g.ops:
        pairs.update(frozenset((i, o.id)) for i in o.inputs)
        pairs.update(frozenset((o.id, t)) for t in o.outputs)
        if o.backward:
            pairs.add(frozenset((o.id, o.backward)))
    for t in g.tensors:
        if t.grad_var:
            pairs.add(frozenset((t.id, t.grad_var)))
    for b in g.backward_ops:
        for i in list(b.inputs) + [x for x in b.outputs if x is not None] + \
                list(b.grad_pending_ops):
            pairs.add(frozenset((i, b.id)))
    return {p for p in pairs if len(p) == 2}


def _subset(g, keep):
    """A copy of ``g`` with only the records whose ids are in ``keep`` (and what refers to
    them trimmed to it)."""
    sub = copy.copy(g)
    sub.tensors = [t for t in g.tensors if t.id in keep]
    sub.ops = []
    for o in g.ops:
        if o.id in keep:
            o = copy.copy(o)
            o.outputs = [t for t in o.outputs if t in keep]
            sub.ops.append(o)
    sub.grad_vars = [v for v in g.grad_vars if v.id in keep]
    sub.backward_ops = []
    for b in g.backward_ops:
        if b.id in keep:
            b = copy.copy(b)
            b.state, b.deps = None, None   # (its chain lines: the formulas it will use)
            b.inputs = [i for i in b.inputs if i in keep]
            b.grad_pending_ops = [p for p in b.grad_pending_ops if p in keep]
            sub.backward_ops.append(b)
    sub.targets = [t for t in g.targets if t in keep]
    sub.clusters = [dict(c, ops=[o for o in c.get("ops", ()) if o in keep])
                    for c in g.clusters]
    sub.clusters = [c for c in sub.clusters if c["ops"]]
    sub.groups = [gr for gr in getattr(g, "groups", ()) if gr.get("id") in keep]
    sub.step = None
    for extra in ("_builder", "_id_map"):
        if hasattr(g, extra):
            setattr(sub, extra, getattr(g, extra))
    return sub


def _value(t) -> str:
    p = t.preview
    if p is None:
        return t.name
    if len(p) > VALUE_WIDTH or "..." in p:
        return f"{t.name} ({'x'.join(map(str, t.shape)) or 'scalar'})"
    return f"{t.name} = {p}"


def _where(lines, label) -> str:
    if not lines:
        return f"`{label}`" if label else "before the script's first statement"
    at = f"line {lines[0]}" if len(lines) == 1 else \
        f"lines {', '.join(map(str, lines[:-1]))} and {lines[-1]}"
    return f"{at} `{label}`" if label else at


def sentence(g, new, lines, label, with_backward=True) -> str:
    """``forward: line 5 `c = a * b` made c = 10. (multiply of a and b; MulBackward
    recorded)``: what one statement made, the numbers as the picture shows them."""
    by_id = g.by_id()
    w = words(g.profile)
    tensor_ids, op_ids = {t.id for t in g.tensors}, {o.id for o in g.ops}
    made = [by_id[i] for i in new if i in tensor_ids]
    ops = [by_id[i] for i in new if i in op_ids]   # (a Layer call drawn as one op: L0)
    gone = [t for t in made if t.op is None and not t.live and not t.cut]   # (x * w after h
    made = [t for t in made if t not in gone]   # was rebound: the old h, known from the node)
    named = [t for t in made if not t.unnamed] + [t for t in made if t.unnamed]
    parts = []
    for t in named[:NAMED_MAX]:
        text = _value(t)
        if t.cut:   # (made by ops a cut, --depth or --to, left out of the picture)
            text += " (by ops not drawn)"
        elif t.op is None:
            text = ("the parameter " if t.parameter else "the leaf ") + text
            if not t.parameter and not t.stop_gradient:
                text += f" ({w['flag'](False)})"
        parts.append(text)
    if len(named) > NAMED_MAX:
        more = len(named) - NAMED_MAX
        parts.append(f"{more} more tensor{'s' if more > 1 else ''}")
    what = (", ".join(parts[:-1]) + " and " + parts[-1]) if len(parts) > 1 else \
        (parts[0] if parts else "no new tensor")
    text = f"forward: {_where(lines, label)} made {what}"
    if gone:
        text += (f", using {' and '.join(_value(t) for t in gone)} (a tensor made earlier that "
                 "no variable holds any more)")
    notes = []
    if ops:
        if len(ops) == 1:
            o = ops[0]
            ins = [by_id[i].name for i in o.inputs if i in by_id]   # (x * x: x and x)
            notes.append(f"{o.title} of {' and '.join(ins)}" if ins else o.title)
        else:
            notes.append(f"{len(ops)} ops")
        if with_backward:
            bws = [shown(by_id[o.backward]) for o in ops if o.backward in by_id]
            if bws:
                more = f" and {len(bws) - 2} more" if len(bws) > 2 else ""
                notes.append(f"{', '.join(bws[:2])}{more} recorded for the backward")
    if notes:
        text += f" ({'; '.join(notes)})"
    return text if text.endswith(".") else text + "."


def forward_frames(graph, recorder, mark_lines=None, view="both") -> list:
    """One picture model per statement that made part of ``graph``, in the order they ran
    (see the module's docstring); each has ``.forward`` = {index, total, event (the
    sentence), new (ids), lines, label, mark}."""
    marks = statement_marks(graph, recorder)
    labels = list(getattr(recorder, "_stmt_labels", ()) or ())
    mark_lines = mark_lines or {}
    order = sorted(set(marks.values()))
    total = len(order)
    edges = _edges(graph)
    out = []
    for k, m in enumerate(order, 1):
        keep = {i for i, v in marks.items() if v <= m}
        new = sorted((i for i, v in marks.items() if v == m), key=_id_key)
        sub = _subset(graph, keep)
        label = labels[m] if 0 <= m < len(labels) and isinstance(labels[m], str) else None
        lines = list(mark_lines.get(m, ()))
        sub.forward = {"index": k, "total": total, "mark": m, "lines": lines, "label": label,
                       "new": new,
                       "edges": sorted(tuple(sorted(p)) for p in edges
                                       if p <= keep and p & set(new)),
                       "event": sentence(sub, new, lines, label, view != "forward")}
        out.append(sub)
    return out


def _id_key(i):
    return (i[0], int(i[1:]) if i[1:].isdigit() else 0)


def forward_title(f) -> str:
    """``forward 3 of 5``: the counter of a forward frame."""
    return f"forward {f.forward['index']} of {f.forward['total']}"


_EDGE_LINE = re.compile(r"^\t(\w+) -> (\w+)(?: \[(.*)\])?\n$", re.S)
_STYLE = re.compile(r'(?:^| )style=(?:"[^"]*"|\S+)')


def hide(source: str, hidden) -> str:
    """``source`` (DOT) with the nodes ``hidden`` and their edges drawn invisible: they keep
    their place in the layout, so the frames of a growing graph never jump about."""
    hidden = set(hidden)
    if not hidden:
        return source
    out = []
    for line in source.splitlines(keepends=True):
        m = _EDGE_LINE.match(line)
        if m is not None and (m.group(1) in hidden or m.group(2) in hidden):
            attrs = _STYLE.sub("", m.group(3) or "").strip()
            line = f"\t{m.group(1)} -> {m.group(2)} [{attrs + ' ' if attrs else ''}style=invis]\n"
        out.append(line)
    text = "".join(out).rstrip()
    assert text.endswith("}")
    return text[:-1] + "".join(f"\t{i} [style=invis]\n" for i in sorted(hidden, key=_id_key)) \
        + "}\n"


def frame_dot(f, view="both", style=None, look="auto", width=100, full=None) -> str:
    """The DOT of a forward frame: its sentence above, the new records and edges highlighted.
    ``full``: the whole forward graph (the last frame), drawn with what this frame does not
    hold yet invisible, so every frame has the same layout."""
    import textwrap

    from .dot import to_dot

    fw = f.forward
    shown_ids = {t.id for t in f.tensors} | {o.id for o in f.ops}
    if view != "forward":
        shown_ids |= {v.id for v in f.grad_vars} | {b.id for b in f.backward_ops}
    nodes = [i for i in fw["new"] if i in shown_ids]
    if view == "backward":
        nodes = [i for i in nodes if i[0] in "gb"]
    elif view == "forward":
        nodes = [i for i in nodes if i[0] in "tf"]
    pairs = {frozenset(p) for p in fw["edges"] if set(p) <= shown_ids}
    event = fw["event"].removeprefix("forward: ")
    title = "\n".join(textwrap.wrap(f"{forward_title(f)}: {event}", width,
                                    subsequent_indent="    "))
    if full is None:
        return to_dot(f, view=view, chain=True, title=title, style=style, look=look,
                      highlight={"nodes": nodes, "edges": pairs})
    have = {x.id for x in f.tensors} | {x.id for x in f.ops} | {x.id for x in f.grad_vars} \
        | {x.id for x in f.backward_ops}
    every = {x.id for x in full.tensors} | {x.id for x in full.ops} | \
        {x.id for x in full.grad_vars} | {x.id for x in full.backward_ops}
    return hide(to_dot(full, view=view, chain=True, title=title, style=style, look=look,
                       highlight={"nodes": nodes, "edges": pairs}), every - have)


def forward_items(base, run, view, style, look, keep=False):
    """The forward frames of ``base`` (the graph as the forward left it) for the player and
    the slide exports of ``gradrepl graph`` (``run``: its ``capture.ScriptRun``): (items, DOT
    sources), see :func:`player_items`."""
    return player_items(base, run.recorder, getattr(run, "mark_lines", None), view, style,
                        look, keep, run.log.runs if run.log is not None else None)


def grads_before(base, history):
    """``base`` with each gradient variable as it stood while the forward ran: what ``.grad``
    held when the first logged backward of this graph began (``steps.LoggedRun.leaf_before``,
    ``kept_before``: None unless an earlier graph's backward had stored one), nothing flowed.
    ``history``: the log's runs. A copy; ``base`` is untouched."""
    from ..engine.node import AccumulateNode

    out = copy.copy(base)
    b = getattr(base, "_builder", None)
    runs = list(history or ())
    mine = []
    if b is not None:
        nodes = set(b.bw)
        for r in runs:
            counted = next((e for e, _v in r.events if type(e).__name__ == "DepsCounted"),
                           None)
            if counted is not None and nodes & set(counted.deps):
                mine.append(r)
    first = mine[0] if mine else None
    held = {}
    if first is not None and b is not None:
        for gid, edge in b.grad_edges.items():
            if edge is None:
                continue
            if isinstance(edge[0], AccumulateNode):
                held[gid] = first.leaf_before.get(edge[0])
            else:
                held[gid] = first.kept_before.get(edge)
    out.grad_vars = []
    for v in base.grad_vars:
        v = copy.copy(v)
        v.data, v.flow = held.get(v.id), None
        out.grad_vars.append(v)
    for extra in ("_builder", "_id_map"):
        if hasattr(base, extra):
            setattr(out, extra, getattr(base, extra))
    return out


def player_items(base, recorder, mark_lines, view, style=None, look="auto", keep=False,
                 history=None):
    """(items, DOT sources): each forward frame as ``player.write_player`` takes it,
    ``{"svg", "counter", "title", "description", "keep", "focus"}``; ``history``: the backward
    log's runs (the gradients as they stood while the forward ran, see ``grads_before``)."""
    from . import render
    from .camera import focus_of

    items, sources = [], []
    fr = forward_frames(grads_before(base, history), recorder, mark_lines, view)
    for f in fr:
        source = frame_dot(f, view=view, style=style, look=look, full=fr[-1])
        sources.append(source)
        fw = f.forward
        where = _where(fw["lines"], fw["label"]).replace("`", "")
        items.append({"svg": render.svg(source), "counter": forward_title(f),
                      "title": fw["event"], "description": f"the forward pass: {where}",
                      "keep": keep, "focus": focus_of(f)})
    return items, sources


def forward_texts(base, recorder, view="forward", mark_lines=None) -> list:
    """The forward frames as text (the shell's ``%step --from forward``): each frame's
    counter and sentence, then the picture of what the statements so far made."""
    from .terminal import render_text

    out = []
    for f in forward_frames(grads_before(base, None), recorder, mark_lines, view):
        head = f"{forward_title(f)}: {f.forward['event'].removeprefix('forward: ')}\n"
        out.append(head + render_text(f, view=view, color=False))
    return out
