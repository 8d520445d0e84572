"""Plain pictures straight from the engine: the DOT of ``viz.graph(t).dot()`` without the model.

A plain picture (no cut, collapse, ``--layers`` or chain lines) of a graph the engine still holds
whole is drawn from a flat snapshot taken in one walk of the nodes (tuples, not the model's
records), by :class:`FlatWriter`: ``DotWriter`` itself, reading the snapshot. The snapshot is
taken when the picture is made, so its DOT shows the graph as it stood then, as the model does.
The model (text, JSON, step frames) is built from the engine when first asked for.

The walk is ``model._Builder.walk`` for the common case, and gives the same ids, names, numbers
and bytes (``tests/test_viz_speed_paths.py`` compares both paths). Whatever it does not cover
makes :func:`snapshot` return None and the picture takes the general path: torch's dialect,
Paddle's accumulation nodes (2.6, 3), ops of several outputs, graphs a backward released or a
``create_graph`` extended, inputs no longer alive.

Speed (benchmarks/graph_dot.py, a chain of 2,000 ops): about 6 us an op for the snapshot
instead of 10 for the model, and the DOT written in one loop a section.
"""
from __future__ import annotations

from ..engine.node import GradNode
from . import dot as _dot
from .model import (Graph, PaddleDialect, Dialect, _DTYPE_STR, _dtype_str, _fmt_float,
                    made_up_name, preview)

_PARAM_CLASSES = ("EagerParamBase", "Parameter")
_IDS: dict = {"t": [], "g": [], "f": [], "b": []}   # the ids "t0", "t1", ..., made once


def _ids(prefix, n) -> list:
    """["t0", ..., "t<n-1>"] at least (``prefix`` "t", "g", "f" or "b"): a picture's ids are
    looked up, not formatted, one per record."""
    ids = _IDS[prefix]
    if len(ids) < n:
        ids.extend(f"{prefix}{i}" for i in range(len(ids), max(n, 2 * len(ids))))
    return ids
_PARAM_TYPES: dict = {}   # a tensor class -> (a parameter class, has ``_param_name``)


class Flat:
    """A graph as the DOT needs it, in walk order (ids ``t``/``f``/``g``/``b`` by position):

    - ``tensors``: (id, name, dtype and shape text, preview, stop_gradient, is_leaf, grad var
      id, parameter, leaf statement, unnamed: its name made up, tmp_N);
    - ``ops``: (id, title, statement, input tensor ids, output tensor id);
    - ``gvars``: [id, name, data preview, grad_op id] (the op's id once its output is linked);
    - ``bws``: (id, name, inputs, outputs, grad_pending_ops) (a backward op per op, same order).
    """

    __slots__ = ("profile", "targets", "tensors", "ops", "gvars", "bws", "titles")

    def __init__(self, profile, targets, tensors, ops, gvars, bws, titles):
        self.profile, self.targets = profile, targets
        self.tensors, self.ops, self.gvars, self.bws, self.titles = (tensors, ops, gvars, bws,
                                                                     titles)


def snapshot(targets, names, recorder, dialect) -> Flat | None:
    """The flat snapshot of everything ``targets`` came from, or None where the general path
    must draw it (see the module's docstring)."""
    if type(dialect) not in (PaddleDialect, Dialect) or dialect.accumulation_nodes \
            or type(dialect).tensor_name is not Dialect.tensor_name \
            or type(dialect).grad_var_name is not Dialect.grad_var_name:
        return None
    tnames = names.get("tensors", {}) if names else {}
    taken = {v for v in tnames.values() if v[:4] == "tmp_"}   # (see model.made_up_name)
    backward_name, op_title = dialect.backward_name, dialect.op_title
    statement_of = recorder.statement_of if recorder is not None else None
    statement_of_tensor = recorder.statement_of_tensor if recorder is not None else None
    tensors: list = []
    tindex: dict = {}      # key (a node: its one output; an int: id of a leaf) -> tensor id
    gvars: list = []
    gindex: dict = {}      # key -> grad var id
    gv_rows: dict = {}     # key -> its row in gvars (grad_op filled when its op is added)
    ops: list = []
    bws: list = []
    bindex: dict = {}      # node -> backward op id
    titles: dict = {}      # OpDef -> the forward op's title
    bnames: dict = {}      # OpDef -> the backward op's name
    shapes: dict = {}      # (dtype, shape) -> "float32[2, 3]"
    tmp = 0
    t_append, g_append = tensors.append, gvars.append
    param_types = _PARAM_TYPES
    fmt_float = _fmt_float
    Node = GradNode

    def add_tensor(key, t):
        """The record of tensor ``t`` (and of its gradient variable): its id."""
        nonlocal tmp
        tid = t_ids[len(tensors)]
        data = t.data
        stop = t.stop_gradient
        dtype = data.dtype
        st = shapes.get((dtype, data.shape))
        if st is None:
            st = shapes[(dtype, data.shape)] = \
                f"{_DTYPE_STR.get(dtype) or _dtype_str(dtype)}{list(data.shape)}"
        if data.size == 1 and dtype.kind == "f":
            pv = fmt_float(data.item())
        else:
            pv = preview(data)
        cls = type(t)
        kind = param_types.get(cls)
        if kind is None:  # (is it a parameter; has it a parameter's name: asked once a class)
            kind = param_types[cls] = (cls.__name__ in _PARAM_CLASSES,
                                       hasattr(cls, "_param_name"))
        param = kind[0]
        name = tnames.get(id(t)) or (kind[1] and getattr(t, "_param_name", None)) or t._name
        is_leaf = stop or t.grad_node is None
        label = None
        if is_leaf and statement_of_tensor is not None:
            label = statement_of_tensor(t._uid)
            if not isinstance(label, str):
                label = None
        unnamed = name is None
        if unnamed:
            if taken:
                name, tmp = made_up_name(tmp, taken)
            else:
                name = f"tmp_{tmp}"
                tmp += 1
        elif not name.strip():
            name = repr(name)
        gid = None
        if not stop:
            gid = g_ids[len(gvars)]
            g = t._grad
            row = [gid, name + "_grad", preview(g.data) if g is not None else None, None]
            g_append(row)
            gindex[key] = gid
            gv_rows[key] = row
        t_append((tid, name, st, pv, bool(stop), is_leaf, gid, param, label, unnamed))
        tindex[key] = tid
        return tid

    # 1. the order the records are made in: each tensor after the tensors its op read (a
    #    leaf: an int key, its id; a node: its one output), inputs in order, depth first
    order = []          # [(key, tensor)]
    seen = set()
    add_seen, o_append = seen.add, order.append
    for target in targets:
        node = target.grad_node
        stack = [(node if node is not None and not target.stop_gradient else id(target),
                  target, False)]
        pop, push = stack.pop, stack.append
        while stack:
            key, t, done = pop()
            if done:
                o_append((key, t))
                continue
            if key in seen:
                continue
            add_seen(key)
            if type(key) is int:  # a leaf
                o_append((key, t))
                continue
            node = key
            if type(node) is not Node or node.released or node.order or node.inputs is None:
                return None
            meta = node._out_meta
            if (len(meta) if meta is not None else len(node.out_meta)) != 1:
                return None
            saved = node.inputs
            meta = node._in_meta
            if len(saved) != (len(meta) if meta is not None else len(node.in_meta)):
                return None
            push((key, t, True))
            for s in reversed(saved):
                k = s.grad_node
                if k is None or s.stop_gradient:
                    k = id(s)
                elif type(k) is not Node:
                    return None
                if k not in seen:
                    push((k, s, False))
    # 2. the records, in that order
    n = len(order)   # (at most n tensors, n gradient variables and n ops)
    t_ids, g_ids, f_ids, b_ids = _ids("t", n), _ids("g", n), _ids("f", n), _ids("b", n)
    for key, t in order:
        if type(key) is int:
            add_tensor(key, t)
            continue
        node = key
        in_ids = []
        in_keys = []
        for s in node.inputs:
            k = s.grad_node
            if k is None or s.stop_gradient:
                k = id(s)
            in_keys.append(k)
            in_ids.append(tindex[k])
        label = node.label
        if label is None and statement_of is not None:
            label = statement_of(node.uid)
        op = node.op
        title = titles.get(op)
        if title is None:
            title = titles[op] = op_title(op)
        bname = bnames.get(op)
        if bname is None:
            bname = backward_name(node)
            if op.name != "py_layer":  # (a PyLayer's name is its class's)
                bnames[op] = bname
        n = len(ops)
        fid, bid = f_ids[n], b_ids[n]
        edges = node.edges
        if len(edges) == 2:  # (one input, the commonest op)
            child = edges[0]
            if child is None:
                outputs, pending = [None], []
            else:
                outputs = [gindex.get(in_keys[0])]
                p = bindex.get(child)
                if p is None:
                    if type(child) is Node:  # (drawn later, if at all)
                        return None
                    pending = []
                else:
                    pending = [p]
        else:
            outputs, pending = [], []
            for i in range(0, len(edges), 2):
                child = edges[i]
                if child is None:
                    outputs.append(None)
                    continue
                outputs.append(gindex.get(in_keys[i >> 1]))
                p = bindex.get(child)
                if p is None:
                    if type(child) is Node:
                        return None
                elif p not in pending:
                    pending.append(p)
        out_id = add_tensor(key, t)
        row = gv_rows.get(key)
        if row is not None:
            in_ids.append(row[0])
            row[3] = bid
            inputs = in_ids
            in_ids = in_ids[:-1]
        else:
            inputs = list(in_ids)
        ops.append((fid, title, label if isinstance(label, str) else None, in_ids, out_id))
        bws.append((bid, bname, inputs, outputs, pending))
        bindex[node] = bid
    target_ids = []
    for target in targets:
        node = target.grad_node
        target_ids.append(tindex[node if node is not None and not target.stop_gradient
                                 else id(target)])
    # backward ops' titles: their names, numbered where several share one
    count: dict = {}
    for b in bws:
        count[b[1]] = count.get(b[1], 0) + 1
    seen: dict = {}
    btitles = {}
    for b in bws:
        name = b[1]
        if count[name] == 1:
            btitles[b[0]] = name
        else:
            k = seen[name] = seen.get(name, 0) + 1
            btitles[b[0]] = f"{name} #{k}"
    return Flat(dialect.key, target_ids, tensors, ops, gvars, bws, btitles)


class FlatWriter(_dot.DotWriter):
    """``DotWriter`` over a :class:`Flat` snapshot: the same text, record for record, for a
    plain picture (every backward op in its common look)."""

    def __init__(self, flat: Flat, view="both", title=None, style=None, look="auto"):
        empty = Graph(flat.profile, list(flat.targets), [], [], [], [])
        super().__init__(empty, view=view, title=title, style=style,
                         saved=len(flat.ops) <= 40 and not _dot.is_compact(
                             look, view, len(flat.tensors), len(flat.gvars)))
        self.flat = flat
        self.targets = set(flat.targets)
        # the compact look (dot.LOOKS), decided as DotWriter decides it for the model
        self.slim = _dot.is_compact(look, view, len(flat.tensors), len(flat.gvars))
        self.brief = set()
        self._plain_tips = False  # (compact: tooltips joined as they are, nothing to escape)
        # the names that may need escaping: those a user or Paddle gave, and the backward ops'
        # (tmp_N, which the picture makes up, and the "_grad" and " #k" it adds never do)
        given = [t[1] for t in flat.tensors if not t[9]] + list({b[1] for b in flat.bws})
        try:
            joined = " ".join(given)
            plain = _dot._NEEDS_ESC(joined) is None
            # tooltips: their lines joined as they are when no name needs escaping there (the
            # values, dtypes and shapes never do)
            tip_plain = _dot._TIP_ODD(joined) is None and "\n" not in joined
        except TypeError:
            plain = tip_plain = False
        if self.slim:
            self.brief = {t[0] for t in flat.tensors if (t[9] or t[7])
                          and t[0] not in self.targets}
            self.dot.graph_attr["ranksep"] = _dot.SLIM_RANKSEP
            self._plain_tips = tip_plain
            self.dot.edge_attr["arrowsize"] = _dot.SLIM_ARROWS
        names = {t[0]: t[1] for t in flat.tensors}
        names.update({v[0]: v[1] for v in flat.gvars})
        if view != "forward":
            names.update(flat.titles)
        names[None] = "None"
        self._raw = names   # id -> its name, as shown (the compact look's tooltips)
        if not plain:
            names = {i: _dot.esc(v) for i, v in names.items()}
        self._esc = names

    def forward(self):
        pal, body, names = self.pal, self.dot.body, self._esc
        head_of = {True: self._head(pal["tensor_stop"], pal["border"]),
                   "param": self._head(pal["param"], pal["border"]),
                   False: self._head(pal["tensor"], pal["border"])}
        td = self._td
        targets = self.targets
        needs_esc, esc = _dot._NEEDS_ESC, _dot.esc
        brief, gvars = self.brief, self.flat.gvars
        tip, plain_tip = _dot.tooltip, self._plain_tips
        slim_of = {True: self.slim_look(pal["tensor_stop"], "f"),
                   "param": self.slim_look(pal["param"], "f"),
                   False: self.slim_look(pal["tensor"], "f")}
        shape_esc = {}   # dtype and shape text -> escaped
        for (tid, name, st, pv, stop, is_leaf, gid, param, label, _unnamed) in self.flat.tensors:
            data = f"data = {pv}" if pv is not None else "data = (freed)"
            if tid in brief:  # the compact look (as DotWriter.tensor, via slim_node)
                gname = gvars[int(gid[1:])][1] if gid else "None"
                if label:  # (a leaf's statement, the tooltip's second line: escaped as needed)
                    text = _dot.tooltip((f"{name}  {st}", label, data, f"grad_var = {gname}",
                                         f"stop_gradient = {stop}"))
                elif plain_tip:
                    text = f"{name}  {st}\\n{data}\\ngrad_var = {gname}\\nstop_gradient = {stop}"
                else:
                    text = tip((f"{name}  {st}", data, f"grad_var = {gname}",
                                f"stop_gradient = {stop}"))
                se = shape_esc.get(st)
                if se is None:
                    se = shape_esc[st] = esc(st)
                body.append(f'\t{tid} [label=<<b>{names[tid]}</b>&#160; <font point-size="9">'
                            f'{se}</font>> {slim_of[True if stop else ("param" if param else False)]}'
                            f' tooltip="{text}"]\n')
                continue
            if label and is_leaf:  # the statement above the record (as DotWriter.tensor)
                fill = pal["tensor_stop"] if stop else (pal["param"] if param
                                                         else pal["tensor"])
                rows = [_dot._row(data, cell=self.cell),
                        _dot._row(f"grad_var = {self.flat.gvars[int(gid[1:])][1] if gid else 'None'}",
                                  cell=self.cell),
                        _dot._row(f"stop_gradient = {stop}", bold=True, cell=self.cell)]
                lab = _dot._table(name, rows, fill, sub=st, above=label,
                                  border_color=pal["border"])
            else:
                shape_text = st
                if needs_esc(data + shape_text) is not None:
                    data, shape_text = esc(data), esc(shape_text)
                lab = (f'{head_of[True if stop else ("param" if param else False)]}'
                       f'{names[tid]}</b><br/>'
                       f'<font point-size="9">{shape_text}</font></td></tr>{td}{data}</td></tr>'
                       f'{td}grad_var = {names[gid] if gid else "None"}'
                       f'</td></tr>{td}<b>stop_gradient = {stop}</b></td></tr>'
                       f'</table>>')
            if tid in targets:
                body.append(f"\t{tid} [label={lab} penwidth=2 shape=plain]\n")
            else:
                body.append(f"\t{tid} [label={lab} shape=plain]\n")
        rest = self.op_look(pal["op"][0])
        made_by = {}   # tensor id -> the statement of the op that made it
        quote = _dot.quote
        statement = (f'<br/><font point-size="{_dot.STATEMENT_SIZE}" '
                     f'color="{pal["statement"]}">')
        quoted = {}    # title -> its DOT text
        for fid, title, label, ins, out in self.flat.ops:
            if label and not any(made_by.get(t) == label for t in ins):
                text = f'<{esc(title)}{statement}{esc(label)}</font>>'
            else:
                text = quoted.get(title)
                if text is None:
                    text = quoted[title] = quote(title)
            made_by[out] = label
            body.append(f"\t{fid} [label={text} {rest}]\n")
        edges = _dot.operand_edges
        body.extend([f"\t{ins[0]} -> {fid}\n\t{fid} -> {out}\n" if len(ins) == 1 else
                     "".join(edges(ins, f" -> {fid}")) + f"\t{fid} -> {out}\n"
                     for fid, _title, _label, ins, out in self.flat.ops])

    def backward(self):
        pal, body, names = self.pal, self.dot.body, self._esc
        cell, td = self.cell, self._td
        head = self._head(pal["grad_var"], pal["border"])
        red = pal["grad_data"]
        grad_op_word = self.words["grad_op"]
        esc = _dot.esc
        brief = {t[6] for t in self.flat.tensors if t[0] in self.brief}
        grad_op_names = self.flat.titles
        tooltip, plain_tip = _dot.tooltip, self._plain_tips
        slim = self.slim_look(pal["grad_var"], "b")
        for gid, name, data, grad_op in self.flat.gvars:
            if gid in brief:  # the compact look (as DotWriter.grad_var, via slim_node)
                op_name = grad_op_names[grad_op] if grad_op else "None"
                if plain_tip:
                    tip = f"{name}\\ndata = {data}\\n{grad_op_word} = {op_name}"
                else:
                    tip = tooltip((name, f"data = {data}", f"{grad_op_word} = {op_name}"))
                if data is None:
                    body.append(f'\t{gid} [label=<<b>{names[gid]}</b>&#160; <font point-size="9">'
                                f'None</font>> {slim} tooltip="{tip}"]\n')
                else:
                    body.append(f'\t{gid} [label=<<b>{names[gid]}</b>&#160; <font point-size="9" '
                                f'color="{red}">{esc(data)}</font>> {slim} tooltip="{tip}"]\n')
                continue
            if data is None:
                d = f'<td align="left" bgcolor="{cell}">data = None</td>'
            else:
                d = (f'<td align="left" bgcolor="{cell}"><font color="{red}">'
                     f'data = {esc(data)}</font></td>')
            body.append(f'\t{gid} [label={head}{names[gid]}</b></td></tr>'
                        f'<tr>{d}</tr>{td}<font point-size="10">{grad_op_word} = '
                        f'{names[grad_op] if grad_op else "None"}</font></td></tr>'
                        f'</table>> shape=plain]\n')
        get = names.__getitem__
        bop_head, bop_rest, pend = self._bop_head, self._bop_rest, self._esc_pend
        if self.slim:  # the compact look: the name, the rows in the tooltip (as DotWriter)
            rest = self._look(("box", "rounded,filled", self.pal["backward"][0],
                               self.pal["border"], "1"))
            pend_word = self.words["pending"]
            titles = self.flat.titles
            name_of = self._raw.__getitem__
            rest += f" fontsize={self.style.scale(11)} group=b height=0.2"
            join = " , ".join
            for bid, _name, ins, outs, pending in self.flat.bws:
                p_text = (name_of(pending[0]) if len(pending) == 1 else join(map(name_of, pending))
                          ) if pending else "None"
                i_text = join(map(name_of, ins)) if ins else "None"
                o_text = (name_of(outs[0]) if len(outs) == 1 else join(map(name_of, outs))
                          ) if outs else "None"
                if plain_tip:
                    tip = (f"{titles[bid]}\\n{pend_word} = {p_text}\\ninput = {i_text}"
                           f"\\noutput = {o_text}")
                else:
                    tip = tooltip((titles[bid], f"{pend_word} = {p_text}", f"input = {i_text}",
                                   f"output = {o_text}"))
                body.append(f'\t{bid} [label=<<b>{get(bid)}</b>> {rest} tooltip="{tip}"]\n')
        for bid, _name, ins, outs, pending in (() if self.slim else self.flat.bws):
            body.append(
                f"\t{bid} [label={bop_head}{get(bid)}</b></td></tr>"
                f"{td}{pend} = {' , '.join(map(get, pending)) if pending else 'None'}"
                f"</td></tr>{td}input = {' , '.join(map(get, ins)) if ins else 'None'}</td></tr>"
                f"{td}output = {' , '.join(map(get, outs)) if outs else 'None'}</td></tr>"
                f"</table>> {bop_rest}]\n")
        pending_edge = self._pending_edge
        for bid, _name, ins, outs, pending in self.flat.bws:
            # (ins: the op's input tensors, then its output's gradient variable if it has one)
            if ins and ins[-1][0] == "g":
                body.append(f"\t{bid} -> {ins[-1]} [dir=back]\n")
            twice = _dot._twice(outs) if len(outs) > 1 else ()
            for gid in (outs if len(outs) < 2 else dict.fromkeys(outs)):
                if gid is not None and gid in twice:   # x * x: an edge per operand
                    body.extend(line.replace("]", " dir=back]") for line in
                                _dot.operand_edges(outs, f" -> {bid}", only=gid))
                elif gid is not None:
                    body.append(f"\t{gid} -> {bid} [dir=back]\n")
            for pid in pending:
                body.append(f"\t{pid} -> {bid} [{pending_edge}]\n")

    def links(self):
        body = self.dot.body
        link = self._tensor_link
        body.extend([f"\t{t[0]} -> {t[6]} [{link}]\n" for t in self.flat.tensors if t[6]])
        op_link = self._op_link
        body.extend([f"\t{op[0]} -> {bw[0]} [{op_link}]\n"
                     f"\t{{\n\t\trank=same\n\t\t{op[0]}\n\t\t{bw[0]}\n\t}}\n"
                     for op, bw in zip(self.flat.ops, self.flat.bws)])
        if self.saved:
            for bid, _name, ins, _outs, _pending in self.flat.bws:
                for tid in _dot._unique([i for i in ins if i.startswith("t")]):
                    self.dot.edge(tid, bid, color=self.pal["saved"], constraint="false",
                                  arrowsize="0.6", **self.es["saved"])


def to_dot(flat: Flat, view="both", title=None, style=None, look="auto") -> str:
    """The DOT of a plain picture from its snapshot (as ``dot.to_dot`` of its model)."""
    return FlatWriter(flat, view=view, title=title, style=style, look=look).source()
