"""Keeping big pictures readable: cuts and Layer collapse, as model -> model functions.

- ``cut_depth(g, n)``: only the ops at most ``n`` steps above the targets;
- ``cut_to(g, name)``: only what lies on a path from the tensor ``name`` to the targets;
- ``collapse(g)``: each outermost Layer call becomes one op (``Linear fc1``) with one backward op;
  the tensors inside it disappear, its parameters stay as its inputs.
- ``layers(g, n)``: a whole model on one slide: each Layer call nested deeper than ``n`` (the
  model's own call is level 1) drawn as one box with one backward op, its parameters listed in
  the box, the tensors flowing between the boxes kept (``--layers 1`` on vgg11: ``features``,
  ``avgpool``, ``classifier``).

A tensor whose making op was cut away keeps its place as an input and is marked ``cut``.
"""
from __future__ import annotations

import copy

from .model import BackwardInfo, Graph, OpInfo


def _consumers(g):
    out = {}
    for o in g.ops:
        for t in o.inputs:
            out.setdefault(t, []).append(o.id)
    return out


def _restrict(g: Graph, keep_ops: set) -> Graph:
    """The subgraph of the kept ops, their tensors, gradient variables and backward ops."""
    g = copy.deepcopy(g)
    ops = [o for o in g.ops if o.id in keep_ops]
    keep_t = set(g.targets)
    for o in ops:
        keep_t.update(o.inputs)
        keep_t.update(o.outputs)
    tensors = [t for t in g.tensors if t.id in keep_t]
    for t in tensors:
        if t.op is not None and t.op not in keep_ops:
            t.op = None
            t.cut = True
    keep_g = {t.grad_var for t in tensors if t.grad_var}
    keep_b = {o.backward for o in ops}
    for b in g.backward_ops:
        if b.kind == "accumulate" and b.outputs and b.outputs[0] in keep_g:
            keep_b.add(b.id)
    grad_vars = [v for v in g.grad_vars if v.id in keep_g]
    for v in grad_vars:
        if v.grad_op is not None and v.grad_op not in keep_b:
            v.grad_op = None
    bws = [b for b in g.backward_ops if b.id in keep_b]
    for b in bws:
        b.grad_pending_ops = [p for p in b.grad_pending_ops if p in keep_b]
    out = Graph(g.profile, g.targets, tensors, ops, grad_vars, bws,
                [c for c in g.clusters if any(o in keep_ops for o in c["ops"])], g.step)
    for c in out.clusters:
        c["ops"] = [o for o in c["ops"] if o in keep_ops]
    return _carry(g, out)


def _carry(src: Graph, out: Graph, id_map=None) -> Graph:
    """Keep the engine handles a step-through needs (``_builder``) on a transformed picture;
    ``id_map``: old backward op id -> the id that now draws it (collapse)."""
    if hasattr(src, "_builder"):
        out._builder = src._builder
    old = getattr(src, "_id_map", None)
    if id_map is not None and old is not None:
        id_map = {k: id_map.get(v, v) for k, v in old.items()}
    elif id_map is None:
        id_map = old
    if id_map is not None:
        out._id_map = id_map
    return out


def cut_depth(g: Graph, depth: int) -> Graph:
    if depth < 0:
        raise ValueError(f"--depth must be 0 or more, got {depth}")
    by_id = g.by_id()
    keep = set()
    frontier = [by_id[t].op for t in g.targets if by_id[t].op]
    level = 1
    while frontier and level <= depth:
        nxt = []
        for fid in frontier:
            if fid in keep:
                continue
            keep.add(fid)
            for tid in by_id[fid].inputs:
                if by_id[tid].op:
                    nxt.append(by_id[tid].op)
        frontier = nxt
        level += 1
    return _restrict(g, keep)


def cut_to(g: Graph, name: str) -> Graph:
    start = [t for t in g.tensors if t.name == name]
    if not start:
        raise ValueError(f"no tensor named {name!r} in this graph")
    by_id = g.by_id()
    consumers = _consumers(g)
    # ops downstream of the start tensor
    down = set()
    stack = [s.id for s in start]
    seen_t = set()
    while stack:
        tid = stack.pop()
        if tid in seen_t:
            continue
        seen_t.add(tid)
        for fid in consumers.get(tid, ()):
            if fid not in down:
                down.add(fid)
                stack.extend(by_id[fid].outputs)
    # ops upstream of the targets
    up = set()
    stack = [by_id[t].op for t in g.targets if by_id[t].op]
    while stack:
        fid = stack.pop()
        if fid in up:
            continue
        up.add(fid)
        stack.extend(by_id[t].op for t in by_id[fid].inputs if by_id[t].op)
    return _restrict(g, down & up)


def collapse(g: Graph) -> Graph:
    """Each outermost Layer call (``Graph.clusters``) drawn as one op and one backward op."""
    if not g.clusters:
        return g
    g = copy.deepcopy(g)
    by_id = g.by_id()
    # a Layer call that made one op stays that op (a ReLU layer is its relu)
    op_cluster = {fid: c for c in g.clusters if len(c["ops"]) > 1 for fid in c["ops"]}
    consumers = _consumers(g)
    new_ops, removed_t = [], set()
    bw_map = {}  # old backward id -> new backward id
    merged = {}
    members = {}
    for o in g.ops:
        c = op_cluster.get(o.id)
        if c is None:
            new_ops.append(o)
            continue
        m = merged.get(c["id"])
        if m is None:
            m = merged[c["id"]] = OpInfo(c["id"], "layer", c["name"], None, [], [],
                                        "b" + c["id"], layers=[c["name"]], order=o.order)
            members[c["id"]] = []
            new_ops.append(m)
        members[c["id"]].append(o)
        bw_map[o.backward] = m.backward
    for cid, m in merged.items():
        inside = {o.id for o in members[cid]}
        produced = [t for o in members[cid] for t in o.outputs]
        for o in members[cid]:
            for t in o.inputs:
                if by_id[t].op not in inside and t not in m.inputs:
                    m.inputs.append(t)
        for t in produced:
            outside = [f for f in consumers.get(t, ()) if f not in inside]
            if outside or t in g.targets:
                m.outputs.append(t)
                by_id[t].op = cid
            else:
                removed_t.add(t)
        m.label = next((o.label for o in members[cid] if o.label), None)
        m.title = f"{m.title}  ({len(members[cid])} ops)"
    tensors = [t for t in g.tensors if t.id not in removed_t]
    removed_g = {by_id[t].grad_var for t in removed_t if by_id[t].grad_var}
    grad_vars = [v for v in g.grad_vars if v.id not in removed_g]
    new_bw, seen = [], {}
    for b in g.backward_ops:
        nid = bw_map.get(b.id)
        if nid is None:
            b.grad_pending_ops = _dedup(bw_map.get(p, p) for p in b.grad_pending_ops)
            new_bw.append(b)
            continue
        m = merged[nid[1:]]
        nb = seen.get(nid)
        if nb is None:
            nb = seen[nid] = BackwardInfo(
                nid, f"{m.title.split('  (')[0]} backward", "op", "layer", m.id,
                list(m.inputs) + [by_id[t].grad_var for t in m.outputs if by_id[t].grad_var],
                [by_id[t].grad_var for t in m.inputs], [], released=True, order=b.order)
            new_bw.append(nb)
        nb.released = nb.released and b.released
        for p in b.grad_pending_ops:
            p2 = bw_map.get(p, p)
            if p2 != nid and p2 not in nb.grad_pending_ops:
                nb.grad_pending_ops.append(p2)
    for v in grad_vars:
        if v.grad_op in bw_map:
            v.grad_op = bw_map[v.grad_op]
    out = Graph(g.profile, g.targets, tensors, new_ops, grad_vars, new_bw, g.clusters, g.step)
    return _carry(g, out, {b.id: bw_map.get(b.id, b.id) for b in g.backward_ops})


def layers(g: Graph, depth: int) -> Graph:
    """Each Layer call nested deeper than ``depth`` (the outermost call is level 1: ``--layers 1``
    keeps the model's children, ``--layers 0`` draws the model as one box) drawn as one op and
    one backward op. What only the call itself used goes into its box: its parameters (listed,
    their gradients written by its backward op) and nameless constants made inside it (a dropout
    mask); the tensors between boxes stay, so the data still flows from box to box."""
    if depth < 0:
        raise ValueError(f"--layers must be 0 or more, got {depth}")
    # an op's box: its call at level depth + 1, else its innermost call when that one called no
    # other Layer (a leaf Layer: vgg11's avgpool at --layers 2); ops a model runs between its
    # sublayers (vgg11's flatten) stay ops
    outer = {c for o in g.ops for c in o.calls[:-1]}
    call_of = {o.id: o.calls[depth] if len(o.calls) > depth else o.calls[-1]
               for o in g.ops if len(o.calls) > depth or (o.calls and o.calls[-1] not in outer)}
    if not call_of:
        return g
    g = copy.deepcopy(g)
    by_id = g.by_id()
    consumers = _consumers(g)
    members, names = {}, {}
    for o in g.ops:
        cid = call_of.get(o.id)
        if cid is not None:
            members.setdefault(cid, []).append(o)
            names.setdefault(cid, o.layers[o.calls.index(cid)])
    seen_names = {}
    for cid, name in names.items():  # two calls of one Layer: "#2"
        seen_names[name] = seen_names.get(name, 0) + 1
        if seen_names[name] > 1:
            names[cid] = f"{name} #{seen_names[name]}"
    new_ops, bw_map, boxes, removed_t, groups = [], {}, {}, set(), []
    for o in g.ops:
        cid = call_of.get(o.id)
        if cid is None:
            new_ops.append(o)
        elif cid not in boxes:
            k = o.calls.index(cid) + 1
            box = boxes[cid] = OpInfo(cid, "layer", names[cid], None, [], [], "b" + cid,
                                      layers=o.layers[:k], order=o.order, calls=o.calls[:k])
            new_ops.append(box)
    for cid, box in boxes.items():
        inside = {o.id for o in members[cid]}
        folded, constants = [], 0
        for o in members[cid]:
            bw_map[o.backward] = box.backward
            box.order = min(box.order, o.order)
            for t in o.inputs:
                info = by_id[t]
                if info.op in inside or t in box.inputs or t in removed_t:
                    continue
                if _folds(info, consumers.get(t, ()), inside, g.targets):
                    removed_t.add(t)
                    if info.parameter:
                        folded.append(info)
                    else:
                        constants += 1
                else:
                    box.inputs.append(t)
        for o in members[cid]:
            for t in o.outputs:
                if t in g.targets or any(f not in inside for f in consumers.get(t, ())):
                    box.outputs.append(t)
                    by_id[t].op = cid
                else:
                    removed_t.add(t)
        box.label = next((o.label for o in members[cid] if o.label), None)
        counts = {}
        for o in members[cid]:
            counts[o.title] = counts.get(o.title, 0) + 1
        prefix = names[cid].split(" ", 1)[-1].split(" #")[0] + "."
        groups.append({"id": cid, "name": names[cid], "ops": counts,
                       "params": [[_relative(p.name, prefix), p.shape, p.dtype]
                                  for p in folded],
                       "param_values": sum(_numel(p.shape) for p in folded),
                       "param_grads": [_relative(by_id[p.grad_var].name, prefix)
                                       for p in folded if p.grad_var],
                       "constants": constants})
    removed_g = {by_id[t].grad_var for t in removed_t if by_id[t].grad_var}
    # the folded parameters' accumulation nodes (eager Paddle, torch) go with them
    gone_b = {b.id for b in g.backward_ops if b.kind == "accumulate" and b.outputs
              and b.outputs[0] in removed_g}
    new_bw, made = [], {}
    for b in g.backward_ops:
        if b.id in gone_b:
            continue
        nid = bw_map.get(b.id)
        pending = [bw_map.get(p, p) for p in b.grad_pending_ops if p not in gone_b]
        if nid is None:
            b.grad_pending_ops = _dedup(pending)
            new_bw.append(b)
            continue
        nb = made.get(nid)
        if nb is None:
            box = boxes[nid[1:]]
            nb = made[nid] = BackwardInfo(
                nid, f"{box.title} backward", "op", "layer", box.id,
                list(box.inputs) + [by_id[t].grad_var for t in box.outputs
                                    if by_id[t].grad_var],
                [by_id[t].grad_var for t in box.inputs], [], released=True, order=box.order,
                title=f"{box.title} backward")
            new_bw.append(nb)
        nb.released = nb.released and b.released
        for p in pending:
            if p != nid and p not in nb.grad_pending_ops:
                nb.grad_pending_ops.append(p)
    for v in g.grad_vars:
        if v.grad_op in bw_map:
            v.grad_op = bw_map[v.grad_op]
    kept = {o.id for o in new_ops}
    clusters = []
    for c in g.clusters:  # what --collapse may still merge: the calls left as ops
        ops = [f for f in c["ops"] if f in kept]
        if ops:
            clusters.append(dict(c, ops=ops))
    out = Graph(g.profile, g.targets, [t for t in g.tensors if t.id not in removed_t], new_ops,
                [v for v in g.grad_vars if v.id not in removed_g], new_bw, clusters, g.step,
                groups=list(getattr(g, "groups", [])) + groups)
    return _carry(g, out, {b.id: bw_map.get(b.id, b.id) for b in g.backward_ops})


def _folds(info, users, inside, targets) -> bool:
    """An input only this call used goes into its box: a parameter, or a constant without a
    name of its own made while it ran (a dropout mask); the user's tensors stay outside."""
    if info.id in targets or any(f not in inside for f in users) or info.op is not None:
        return False
    return info.parameter or (info.stop_gradient and info.is_leaf and info.unnamed
                              and info.label is None)


def _relative(name, prefix) -> str:
    """A parameter's name inside its Layer's box: ``0.weight`` for ``model.features.0.weight``."""
    return name[len(prefix):] if name.startswith(prefix) and len(name) > len(prefix) else name


def _numel(shape) -> int:
    n = 1
    for d in shape:
        n *= int(d)
    return n


def _dedup(xs):
    out = []
    for x in xs:
        if x not in out:
            out.append(x)
    return out
