"""Picture model -> DOT source, in the style of the Paddle guide's figures.

- forward tensors: green records (``data``, ``grad_var``, ``stop_gradient``), olive when they stop
  gradient, the statement that made a leaf above it;
- forward ops: lavender rounded boxes (``Mul``) with the statement that made them under the name
  (inside the box: a label beside it sat on the arrowheads);
- gradient variables: blue records (``data``, ``grad_op``), the data in red once computed;
- backward ops: light-blue ovals holding ``grad_pending_ops``, ``input``, ``output``; greyed once
  their saved tensors were released; coloured by derivative order in higher-order graphs;
- edges: black data flow; dotted links from each tensor to its gradient variable and from each
  forward op to its backward op; grey edges from the saved tensors into the backward op; the
  ``grad_pending_ops`` edges in red.

The compact look (``look="compact"``, or ``"auto"`` on a big picture: ``LOOKS``) draws the
tensors without a name of their own (tmp_N) and the parameters, their gradient variables and the
backward ops on one line each (their rows in the SVG tooltip), layer boxes by name and statement,
the chains straight.

The backward graph is drawn upward, as in the guide: the root's gradient at the bottom, the
leaves' gradients at the top, each backward op on the rank of its forward op.

Output is deterministic: ids come from the model (walk order), attributes in fixed order.

The text is laid out as the ``graphviz`` package writes DOT, but written by ``_Digraph`` below:
the package's ``Digraph`` costs ~10 us a call in argument-checking wrappers and regex quoting, and
copies the whole graph for every ``subgraph()``: 4x slower on a 2,000-op chain
(benchmarks/graph_dot.py). The quoting is our own (``quote``): the package passes any string
shaped ``<...>`` unquoted and leaves a trailing backslash to escape the closing quote, and every
name and statement here comes from a session: only this module's own ``HtmlLabel``s go unquoted.
"""
from __future__ import annotations

import math
import re
from functools import lru_cache

from . import heatmap as _heatmap
from . import theme as _theme
from .sanitize import _NEEDS_ESC, esc, one_line as clean  # noqa: F401  (dot.esc: the labels' escaping)
from .model import VIEWS, Graph, flow_name, shown, words

# the guide's palette (theme.PALETTES["light"]; the other themes are rows of the same table)
_LIGHT = _theme.PALETTES["light"]
TENSOR_FILL = _LIGHT["tensor"]
TENSOR_STOP_FILL = _LIGHT["tensor_stop"]
PARAM_FILL = _LIGHT["param"]
OP_FILL = _LIGHT["op"][0]
GRADVAR_FILL = _LIGHT["grad_var"]
BACKWARD_FILL = _LIGHT["backward"][0]
RELEASED_FILL = _LIGHT["released"]
PENDING_COLOR = _LIGHT["pending"]
GRAD_DATA_COLOR = _LIGHT["grad_data"]
SAVED_COLOR = _LIGHT["saved"]
ORDER_FILLS = _LIGHT["backward"]  # backward ops by derivative order
ORDER_OP_FILLS = _LIGHT["op"]
RUNNING_FILL = _LIGHT["running"]
READY_COLOR = _LIGHT["ready"]
FONT = "Helvetica"
STATEMENT_SIZE = "11"      # the source statement under an op's name
STATEMENT_COLOR = _LIGHT["statement"]

# the look of a picture: "full" records everywhere; "compact" draws the tensors without a name
# of their own (intermediates, constants, masks: the tmp_N the picture gives them) and the
# parameters, not the targets, their gradient variables and the backward ops on one line each,
# their rows in the node's tooltip (SVG; a leaf's statement too); "auto": compact when
# the picture has more than LOOK_LIMIT tensor nodes (forward tensors + gradient variables), or
# LAYERS_LOOK_LIMIT in a picture of Layer boxes (--layers: a chain of tall records, past a
# slide's height from about 20 on: LeNet --layers 2 has 26, resnet18 --layers 1 has 28)
LOOKS = ("full", "compact", "auto")
LOOK_LIMIT = 40
LAYERS_LOOK_LIMIT = 20
SLIM_RANKSEP = "0.1"   # inches between ranks in the compact look
SLIM_ARROWS = "0.6"    # its arrowheads (dot keeps an arrowhead's length between ranks)


def check_look(look) -> str:
    if look not in LOOKS:
        raise ValueError(f"unknown look {look!r}: choose one of {', '.join(LOOKS)}")
    return look


def is_compact(look, view, n_tensors, n_grad_vars, layers=False) -> bool:
    """Whether ``look`` draws a picture compact: "auto" when its graph has more than
    LOOK_LIMIT tensors and gradient variables (LAYERS_LOOK_LIMIT with ``layers`` boxes),
    counted alike in every ``view``, so the three views of one graph look alike."""
    if check_look(look) != "auto":
        return look == "compact"
    return n_tensors + n_grad_vars > (LAYERS_LOOK_LIMIT if layers else LOOK_LIMIT)


def tooltip(lines) -> "_EscString":
    """A node's tooltip (shown on hover in SVG): ``lines`` as one escString, each line through
    :func:`esc_plain`, joined by DOT's line breaks (in one go when no line needs escaping)."""
    text = "\n".join(lines)
    if _TIP_ODD(text) is None and text.count("\n") == len(lines) - 1:
        return _EscString(text.replace("\n", "\\n"))
    return _EscString("\\n".join(esc_plain(x) for x in lines))


# what esc_plain would change, but the line breaks tooltip() puts between lines
_TIP_ODD = re.compile("[\\\\\"\x00-\x09\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]").search


# -- quoting -------------------------------------------------------------------------------
# Every string that reaches the DOT text is either one of gradrepl's own HTML-like labels (an
# ``HtmlLabel``, made only by the builders below, with all text in it through ``esc``) or text,
# written as a DOT ID or a quoted string with its backslashes and quotes escaped. Names,
# statements, values, titles: all come from the session, so none is trusted by its shape.

class HtmlLabel(str):
    """An HTML-like label (``<...>``) built by this module from escaped text: written unquoted.
    Any other string is text, quoted, whatever it looks like."""

    __slots__ = ()


class _EscString(str):
    """A DOT escString built by this module (its backslashes are DOT's line ends, ``\\l``):
    written in quotes as it is."""

    __slots__ = ()


_ID = re.compile(r"([a-zA-Z_][a-zA-Z0-9_]*|-?(\.[0-9]+|[0-9]+(\.[0-9]*)?))$").match
_KEYWORDS = frozenset({"node", "edge", "graph", "digraph", "subgraph", "strict"})
@lru_cache(maxsize=8192)
def _q(s: str) -> str:
    """Text as a DOT ID: bare when it is a plain name or number, else a quoted string with its
    backslashes and quotes escaped (so a trailing ``\\`` or a ``"`` stays text)."""
    s = clean(s)
    if _ID(s) is not None and s.lower() not in _KEYWORDS:
        return s
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def quote(s: str) -> str:
    """A DOT ID for ``s``: an :class:`HtmlLabel` as it is, anything else quoted as text."""
    t = type(s)
    if t is HtmlLabel:
        return s
    if t is _EscString:
        return f'"{s}"'
    return _q(str(s))


_ATTRS: dict = {}


def _a_list(label, attrs):
    """``label=... k=v ...``: the label first, the rest sorted (as the graphviz package writes
    them); the rest is cached by its items, as most edges share a handful of styles."""
    rest = ""
    if attrs:
        items = tuple(attrs.items())
        key = items
        if any(type(v) is not str for _k, v in items):  # (an HtmlLabel equals its text)
            key = (type,) + tuple((k, v, type(v)) for k, v in items)
        rest = _ATTRS.get(key)
        if rest is None:
            rest = _ATTRS[key] = " ".join(f"{_q(k)}={quote(v)}" for k, v in sorted(items)
                                          if v is not None)
    if label is None:
        return rest
    return f"label={quote(label)} {rest}" if rest else f"label={quote(label)}"


class _Digraph:
    """What gradrepl uses of ``graphviz.Digraph``, with the same output."""

    def __init__(self, name, graph_attr=None, node_attr=None, edge_attr=None):
        self.name = name
        self.graph_attr = dict(graph_attr or {})
        self.node_attr = dict(node_attr or {})
        self.edge_attr = dict(edge_attr or {})
        self.body = []

    def node(self, name, label=None, **attrs):
        al = _a_list(label, attrs)
        self.body.append(f"\t{_q(name)} [{al}]\n" if al else f"\t{_q(name)}\n")

    def edge(self, tail, head, label=None, **attrs):
        al = _a_list(label, attrs)
        self.body.append(f"\t{_q(tail)} -> {_q(head)} [{al}]\n" if al
                         else f"\t{_q(tail)} -> {_q(head)}\n")

    def attr(self, kw=None, **attrs):
        if attrs:
            self.body.append(f"\t{_a_list(None, attrs)}\n" if kw is None
                             else f"\t{kw} [{_a_list(None, attrs)}]\n")

    def rank_same(self, *names):
        self.body.append("\t{\n\t\trank=same\n" + "".join(f"\t\t{_q(n)}\n" for n in names)
                         + "\t}\n")

    @property
    def source(self):
        lines = [f"digraph {_q(self.name)} {{\n"]
        for kw in ("graph", "node", "edge"):
            attrs = getattr(self, f"{kw}_attr")
            if attrs:
                lines.append(f"\t{kw} [{_a_list(None, attrs)}]\n")
        lines += self.body
        lines.append("}\n")
        return "".join(lines)


def _numeric_rows(g, gid, cell, data=None, color=None) -> list:
    """The numeric rows of gradient variable ``gid`` as HTML table rows: none if unchecked, or
    if its record shows another value than the one checked (``data``: a step frame before the
    backward wrote it, or between two backward runs that add into it)."""
    entry = (getattr(g, "numeric", None) or {}).get(gid)
    if not entry or data is None or data != entry["data"]:
        return []
    said = entry["lines"]
    out = []
    for k, line in enumerate(said):
        text = esc(line)
        if k == len(said) - 1 and "DISAGREE" in line:
            text = f"<b>{text}</b>"
        if color:
            text = f'<font color="{color}">{text}</font>'
        out.append(f'<tr><td align="left" bgcolor="{cell}"><font point-size="10">{text}'
                   f'</font></td></tr>')
    return out


def _row(text, color=None, bold=False, small=False, cell="white"):
    t = esc(text)
    if bold:
        t = f"<b>{t}</b>"
    if color:
        t = f'<font color="{color}">{t}</font>'
    if small:
        t = f'<font point-size="10">{t}</font>'
    return f'<tr><td align="left" bgcolor="{cell}">{t}</td></tr>'


def _table(title, rows, fill, sub=None, border_color="#333333", title_color=None, above=None):
    head = f"<b>{esc(title)}</b>"
    if title_color:
        head = f'<font color="{title_color}">{head}</font>'
    if sub:
        head += f'<br/><font point-size="9">{esc(sub)}</font>'
    table = (f'<table border="1" cellborder="1" cellspacing="3" cellpadding="3" '
             f'bgcolor="{fill}" color="{border_color}"><tr><td border="0">{head}</td></tr>'
             + "".join(rows) + "</table>")
    if above:  # the statement that made it, above the record (as the guide writes it)
        return HtmlLabel(f'<<table border="0" cellspacing="0" cellpadding="1"><tr><td>'
                         f'<font point-size="11">{esc(above)}</font></td></tr><tr><td>{table}'
                         f'</td></tr></table>>')
    return HtmlLabel(f"<{table}>")


def _names(ids, by_id, none="None"):
    items = [shown(by_id[i]) if i is not None else "None" for i in ids]
    return " , ".join(items) if items else none


def _shape(info):
    return f"{info.dtype}{info.shape}"


class DotWriter:
    def __init__(self, g: Graph, view="both", chain=False, saved=None, title=None,
                 highlight=None, style=None, look="auto"):
        if view not in VIEWS:
            raise ValueError(f"unknown view {view!r}: choose one of {', '.join(VIEWS)}")
        # the compact look (see LOOKS): which tensors are drawn on one line
        self.slim = is_compact(look, view, len(g.tensors), len(g.grad_vars),
                               bool(getattr(g, "groups", None)))
        self.brief = set()
        if self.slim:
            targets = set(g.targets)
            self.brief = {t.id for t in g.tensors if (t.unnamed or t.parameter) and not t.cut
                          and t.id not in targets
                          and not (t.parameter and _heatmap.of(t.preview))}   # (--heatmap:
            #   a parameter and its gradient keep their records, to show their maps)
        self.g = g
        self.view = view
        self.chain = chain
        # the saved tensors' edges (compact: in the backward ops' tooltips only)
        self.saved = saved if saved is not None else len(g.ops) <= 40 and not self.slim
        self.by_id = g.by_id()
        self.title = title
        # the slide options (theme.Style) and the theme's colours and edge lines
        st = self.style = style if style is not None else _theme.DEFAULT
        pal = self.pal = _theme.palette(st.theme)
        es = _theme.edge_styles(st.theme)
        # a whole model on a slide (--layers): backward ops as rounded boxes, ranks closer
        self.groups = {gr["id"]: gr for gr in getattr(g, "groups", ())}
        self.compact = bool(self.groups)
        graph_attr = {"rankdir": st.rankdir or "TB", "fontname": FONT, "nodesep": "0.35",
                      "ranksep": SLIM_RANKSEP if self.slim else
                      "0.3" if self.compact else "0.45",
                      "newrank": "true",
                      **st.graph_attrs()}
        node_attr = {"fontname": FONT, "fontsize": st.scale(12)}
        edge_attr = {"fontname": FONT, "fontsize": st.scale(10), "color": pal["edge"],
                     "arrowsize": SLIM_ARROWS if self.slim else "0.8"}
        if pal["background"]:
            graph_attr["bgcolor"] = pal["background"]
        if pal["text"]:  # (dark: op boxes' outlines light too)
            graph_attr["fontcolor"] = node_attr["fontcolor"] = pal["text"]
            edge_attr["fontcolor"] = pal["text"]
            node_attr["color"] = pal["border"]
        self.dot = _Digraph("gradrepl", graph_attr=graph_attr, node_attr=node_attr,
                            edge_attr=edge_attr)
        self.es = es
        self.cell = pal["cell"]
        self._pending_edge = _a_list(None, {"dir": "back", "color": pal["pending"],
                                            "constraint": "false", **es["pending"]})
        self._tensor_link = _a_list(None, {"constraint": "false", "color": pal["link"],
                                           "arrowhead": "vee", **es["link"]})
        self._op_link = _a_list(None, {"color": pal["link"], "arrowhead": "vee", **es["link"]})
        self._node_attrs = {}  # (look) -> the attribute text of a node drawn that way
        self._shown = {}       # model id -> the name pictures show for it
        self.targets = set(g.targets)
        self.words = words(g.profile)   # the dialect's words (torch: requires_grad, grad_fn)
        self.highlight = highlight  # {"nodes": ids, "edges": {frozenset((a, b))}} (why's paths)
        self._esc = _escaped_names(g, self.by_id, view)  # id -> esc(its shown name)
        # torch: the gradient that flows is grad(c) (c.grad is the attribute torch keeps on
        # leaves and retained tensors only): backward ops' rows and edges name it so
        self._flow = {}
        if g.profile == "torch":
            self._flow = {v.id: flow_name(v, self.by_id, g.profile) for v in g.grad_vars}
            for gid, name in self._flow.items():
                self._esc[gid] = esc(name)
                self._shown[gid] = name
        self._td = f'<tr><td align="left" bgcolor="{self.cell}">'  # a record's row, opened
        self._heads = {}       # (fill, border) -> a record's table opened up to its title
        fill0 = pal["backward"][0]  # the common backward op's look, made once
        self._bop_head = self._head(fill0, fill0)
        self._bop_rest = self._look(("oval", "filled", fill0, pal["border"], "1"))
        self._esc_pend = esc(self.words["pending"])
        self._slim_looks = {}  # fill -> the attribute text of a one-line node of that fill

    # -- the compact look's one-line nodes ----------------------------------------------
    def slim_node(self, nid, name, detail, fill, tip, color=None):
        """A one-line node: ``name`` in bold, ``detail`` smaller (both escaped already, in
        ``color`` if given), the record's rows in its tooltip (``tip``: lines of text, or the
        tooltip's escString text made already)."""
        rest = self.slim_look(fill, "b" if nid[0] == "g" else "f")
        font = f'<font point-size="9" color="{color}">' if color else '<font point-size="9">'
        self.dot.body.append(f"\t{nid} [label=<<b>{name}</b>&#160; {font}{detail}</font>> "
                             f'{rest} tooltip="{tip if isinstance(tip, str) else tooltip(tip)}"]\n')

    def slim_look(self, fill, group) -> str:
        """The attribute text of a one-line node of ``fill`` in ``group`` ("f": the forward's
        chain, "b": the backward's, each drawn straight), made once."""
        rest = self._slim_looks.get((fill, group))
        if rest is None:
            rest = self._slim_looks[(fill, group)] = _a_list(None, {
                "shape": "box", "style": "filled", "fillcolor": fill,
                "color": self.pal["border"], "fontsize": self.style.scale(10),
                "margin": "0.06,0.01", "height": "0.2", "group": group})
        return rest

    def tensor_lines(self, t) -> list:
        """A tensor record's rows as text (the compact look's tooltip)."""
        data = f"data = {t.preview}" if t.preview is not None else "data = (freed)"
        w = self.words
        grad_var = self.by_id[t.grad_var].name if t.grad_var else "None"
        if w["engine"] == "Paddle":
            return [data, f"grad_var = {grad_var}", f"stop_gradient = {t.stop_gradient}"]
        grad_var = _kept_name(self.by_id[t.grad_var]) if t.grad_var else "None"
        op = self.by_id.get(t.op) if t.op else None
        grad_fn = self.by_id[op.backward].name if op is not None \
            and op.backward in self.by_id else "None"
        return [data, f"{w['grad_var']} = {grad_var}", f"grad_fn = {grad_fn}",
                w["flag"](t.stop_gradient)]

    # -- nodes ------------------------------------------------------------------------
    def tensor(self, t):
        pal, cell = self.pal, self.cell
        fill = pal["tensor_stop"] if t.stop_gradient else (pal["param"] if t.parameter
                                                           else pal["tensor"])
        if t.id in self.brief:  # the compact look: one line, the rows in its tooltip
            shape = _shape(t)
            lines = [f"{t.name}  {shape}"]
            if t.label and t.is_leaf:  # (the statement a full record shows above it)
                lines.append(t.label)
            return self.slim_node(t.id, self._esc[t.id], esc(shape), fill,
                                  lines + self.tensor_lines(t))
        data = f"data = {t.preview}" if t.preview is not None else "data = (freed)"
        above = t.label if t.label and t.is_leaf else None
        w = self.words
        heat = _heatmap.rows(t.preview, cell, theme=self.style.theme)   # (--heatmap: a larger
        #                                                   value as a grid of cells)
        if w["engine"] != "Paddle":  # torch: x.grad, grad_fn, requires_grad
            grad_var = _kept_name(self.by_id[t.grad_var]) if t.grad_var else "None"
            op = self.by_id.get(t.op) if t.op else None
            grad_fn = self.by_id[op.backward].name if op is not None \
                and op.backward in self.by_id else "None"
            rows = [*(heat or [_row(data, cell=cell)]),
                    _row(f"{w['grad_var']} = {grad_var}", cell=cell),
                    _row(f"grad_fn = {grad_fn}", cell=cell),
                    _row(w["flag"](t.stop_gradient), bold=True, cell=cell)]
            if t.cut:
                rows.append(_row("(made by ops cut from this picture)", small=True, cell=cell))
            label = _table(t.name, rows, fill, sub=_shape(t), above=above,
                           border_color=pal["border"])
        elif above is None and not t.cut and heat is None:  # the common case, in one go (fast)
            shape = f"{t.dtype}{t.shape}"
            if _NEEDS_ESC(data + shape) is not None:
                data, shape = esc(data), esc(shape)
            td, names = self._td, self._esc
            label = (f'{self._head(fill, pal["border"])}{names[t.id]}</b><br/>'
                     f'<font point-size="9">{shape}</font></td></tr>{td}{data}</td></tr>'
                     f'{td}grad_var = {names[t.grad_var] if t.grad_var else "None"}'
                     f'</td></tr>{td}<b>stop_gradient = {t.stop_gradient}</b></td></tr>'
                     f'</table>>')
        else:
            grad_var = self.by_id[t.grad_var].name if t.grad_var else "None"
            rows = [*(heat or [_row(data, cell=cell)]),
                    _row(f"grad_var = {grad_var}", cell=cell),
                    _row(f"stop_gradient = {t.stop_gradient}", bold=True, cell=cell)]
            if t.cut:
                rows.append(_row("(made by ops cut from this picture)", small=True, cell=cell))
            label = _table(t.name, rows, fill, sub=_shape(t), above=above,
                           border_color=pal["border"])
        if t.id in self.targets:
            self.dot.body.append(f"\t{t.id} [label={label} penwidth=2 shape=plain]\n")
        else:
            self.dot.body.append(f"\t{t.id} [label={label} shape=plain]\n")

    def op(self, o):
        if o.id in self.groups:
            return self.layer_box(o, self.groups[o.id])
        fills = self.pal["op"]
        fill = fills[min(o.order, len(fills) - 1)]
        label = o.title
        # the statement once per statement: not on an op fed by an op of the same statement;
        # inside the op's box, under its name (an outside label sat on the arrows into it)
        if o.label:
            by_id = self.by_id
            fed_by = {by_id[t].op for t in o.inputs}
            if not any(by_id[f].label == o.label for f in fed_by if f in by_id):
                label = HtmlLabel(f'<{esc(o.title)}<br/><font point-size="{STATEMENT_SIZE}" '
                                  f'color="{self.pal["statement"]}">{esc(o.label)}</font>>')
        self.dot.body.append(f"\t{_q(o.id)} [label={quote(label)} {self.op_look(fill)}]\n")

    def op_look(self, fill) -> str:
        """A forward op's attributes after its label (the compact look: lower boxes, on the
        forward's straight chain)."""
        rest = self._node_attrs.get(fill)
        if rest is None:
            attrs = {"fillcolor": fill, "fontsize": self.style.scale(14), "shape": "box",
                     "style": "rounded,filled"}
            if self.slim:
                attrs.update(fontsize=self.style.scale(11), group="f", height="0.2",
                             margin="0.08,0.02")
            rest = self._node_attrs[fill] = _a_list(None, attrs)
        return rest

    def layer_box(self, o, group):
        """A Layer call drawn as one box (``--layers N``): its name, the ops it ran, its
        parameters (listed when few, else counted)."""
        ops = list(group["ops"].items())
        n_ops = sum(c for _t, c in ops)
        kinds = ", ".join(t if c == 1 else f"{t} \u00d7{c}" for t, c in ops[:4])
        if len(ops) > 4:
            kinds += ", ..."
        rows = [f"{n_ops} op{'s' if n_ops != 1 else ''}: {kinds}"]
        params = group["params"]
        if 0 < len(params) <= 4:
            rows += [f"{name}  {dtype}{shape}" for name, shape, dtype in params]
        elif params:
            rows.append(f"{len(params)} parameters: {group['param_values']:,} values")
        if group.get("constants"):
            rows.append(f"{group['constants']} constant{'s' if group['constants'] > 1 else ''}"
                        " made inside")
        fed_by = {self.by_id[t].op for t in o.inputs}
        if o.label and not any(self.by_id[f].label == o.label for f in fed_by if f in self.by_id):
            rows.insert(0, o.label)
        if self.slim:  # the compact look: its name and statement, the rest in the tooltip
            stated = rows[0] if o.label and rows[0] == o.label else None
            learns = ""
            if params:  # what it learns stays on the face, beside the name: "20 params, 148,480"
                values = group.get("param_values")
                if values is None:
                    values = sum(math.prod(shape) for _n, shape, _d in params)
                learns = (f'&#160; <font point-size="9">{len(params)} param'
                          f'{"s" if len(params) != 1 else ""}, {values:,} values</font>')
            small = (f'<br/><font point-size="9">{esc(stated)}</font>' if stated else "")
            self.dot.node(o.id, label=HtmlLabel(f"<<b>{esc(o.title)}</b>{learns}{small}>"),
                          fillcolor=self.pal["layer"], fontsize=self.style.scale(11),
                          shape="box", style="rounded,filled", penwidth="2", group="f",
                          height="0.2", margin="0.08,0.02",
                          tooltip=tooltip([o.title] + rows[1 if stated else 0:]))
            return
        body = "".join(f'<tr><td align="left"><font point-size="10">{esc(r)}</font></td></tr>'
                       for r in rows)
        label = HtmlLabel(f'<<table border="0" cellborder="0" cellspacing="0" cellpadding="2">'
                          f'<tr><td><b>{esc(o.title)}</b></td></tr>{body}</table>>')
        self.dot.node(o.id, label=label, fillcolor=self.pal["layer"],
                      fontsize=self.style.scale(14), shape="box", style="rounded,filled",
                      penwidth="2")

    def grad_var(self, gv):
        changed = self.g.step is not None and gv.id in self.g.step.get("changed", ())
        names = self._esc
        grad_op = names[gv.grad_op] if gv.grad_op else "None"
        pal, cell = self.pal, self.cell
        red = pal["grad_data"]
        if not gv.kept or (gv.flow is not None and (gv.flow != gv.data
                                                    or self.g.step is not None)):
            return self.flow_var(gv, changed, grad_op)
        if gv.tensor in self.brief:  # the compact look: one line, the rows in its tooltip
            tip = [gv.name, f"data = {gv.data}",
                   f"{self.words['grad_op']} = {self.name_list((gv.grad_op,))}"]
            title = self._esc_kept(gv) if self._flow else names[gv.id]
            if gv.data is None:
                return self.slim_node(gv.id, title, "None", pal["grad_var"], tip)
            return self.slim_node(gv.id, title, esc(gv.data), pal["grad_var"], tip, color=red)
        if gv.data is None:
            data = f'<td align="left" bgcolor="{cell}">data = None</td>'
        elif changed:
            data = (f'<td align="left" bgcolor="{cell}"><font color="{red}"><b>'
                    f'data = {esc(gv.data)}</b></font></td>')
        else:
            data = (f'<td align="left" bgcolor="{cell}"><font color="{red}">'
                    f'data = {esc(gv.data)}</font></td>')
        heat = _heatmap.rows(gv.data, cell, text_color=red, bold=changed,
                             theme=self.style.theme)
        label = (f'{self._head(pal["grad_var"], pal["border"])}'
                 f'{names[gv.id] if not self._flow else self._esc_kept(gv)}</b></td></tr>'
                 f'{"".join(heat) if heat else f"<tr>{data}</tr>"}'
                 f'{"".join(_numeric_rows(self.g, gv.id, cell, gv.data))}'
                 f'{self._td}<font point-size="10">{self.words["grad_op"]} = '
                 f'{grad_op}</font></td></tr></table>>')
        self.dot.body.append(f"\t{gv.id} [label={label} shape=plain]\n")

    def flow_var(self, gv, changed, grad_op):
        """A gradient whose picture must tell the gradient that flows from what ``.grad``
        keeps: one the framework does not keep (torch's non-leaves, eager Paddle's), dashed,
        titled by the gradient's own name (``grad(c)``), "not kept: c.grad is None"; or a
        kept one whose ``.grad`` differs from what reached it in this backward (not written
        yet, or added to an earlier backward's gradient)."""
        pal, cell = self.pal, self.cell
        red = pal["grad_data"]
        tensor = self.by_id.get(gv.tensor)
        tname = tensor.name if tensor is not None else "?"
        fname = flow_name(gv, self.by_id, self.g.profile)
        value = esc(gv.flow) if gv.flow is not None else None
        step = self.g.step
        if step is not None and "flowed" in step:   # bold: what this step changed
            stored_now, changed = gv.id in step["stored"], gv.id in step["flowed"]
        else:
            stored_now = changed
        reach = (f'<font color="{red}">{"<b>" if changed else ""}{value}'
                 f'{"</b>" if changed else ""}</font>' if value is not None else
                 "(not reached yet)")
        td = self._td
        if not gv.kept:
            title = f"<b>{esc(fname)}</b>"
            if value is None and self.g.step is None:   # (no backward logged: no value)
                first = f"{td}the gradient reaching {esc(tname)}</td></tr>"
            else:
                first = f"{td}the gradient reaching {esc(tname)} = {reach}</td></tr>"
            heat = _heatmap.rows(gv.flow, cell, f"the gradient reaching {tname}",
                                 text_color=red, bold=changed, theme=self.style.theme)
            rows = [*(heat or [first]),
                    f'{td}<font point-size="10">not kept: {esc(tname)}.grad is None</font>'
                    f"</td></tr>"]
            style = "dashed"
        else:
            title = f"<b>{self._esc_kept(gv)}</b>"
            data = esc(gv.data) if gv.data is not None else "None"
            if gv.data is not None:
                data = f'<font color="{red}">{f"<b>{data}</b>" if stored_now else data}</font>'
            rows = [*(_heatmap.rows(gv.data, cell, text_color=red, bold=stored_now,
                                    theme=self.style.theme)
                      or [f"{td}data = {data}</td></tr>"]),
                    *((gv.flow != gv.data or None) and   # (a second map only if it differs)
                      _heatmap.rows(gv.flow, cell, f"reaching it: {fname}", text_color=red,
                                    theme=self.style.theme)
                      or [f"{td}reaching it: {esc(fname)} = {reach}</td></tr>"]),
                    *_numeric_rows(self.g, gv.id, cell, gv.data)]
            style = "solid"
        if self.slim and gv.tensor in self.brief:   # the compact look: one line
            reached = f"the gradient reaching {tname}" + (f" = {gv.flow}" if gv.flow is not None
                                                          else "")
            tip = [fname if not gv.kept else gv.name, reached,
                   f"not kept: {tname}.grad is None" if not gv.kept else f"data = {gv.data}",
                   f"{self.words['grad_op']} = {self.name_list((gv.grad_op,))}"]
            return self.slim_node(gv.id, esc(fname if not gv.kept else gv.name),
                                  value or "None", pal["grad_var"], tip,
                                  color=red if value is not None else None)
        label = (f'<<table border="1" cellborder="1" cellspacing="3" cellpadding="3" '
                 f'bgcolor="{pal["grad_var"]}" color="{pal["border"]}" style="{style}">'
                 f'<tr><td border="0">{title}</td></tr>{"".join(rows)}{td}'
                 f'<font point-size="10">{self.words["grad_op"]} = {grad_op}</font></td></tr>'
                 f'</table>>')
        self.dot.body.append(f"\t{gv.id} [label={label} shape=plain]\n")

    def _esc_kept(self, gv) -> str:
        """A kept gradient's record title: the attribute (``a.grad``, Paddle's ``a_grad``)."""
        return esc(gv.name)

    def name_list(self, ids) -> str:
        """``a , b , c_grad``: the shown names of model ids (cached: a name is asked for by
        every op that takes or sends it)."""
        names = self._shown
        out = []
        for i in ids:
            n = names.get(i)
            if n is None:
                n = names[i] = shown(self.by_id[i]) if i is not None else "None"
            out.append(n)
        return " , ".join(out) if out else "None"

    def esc_list(self, ids) -> str:
        """``esc(self.name_list(ids))``, from the names escaped once per picture."""
        return " , ".join(map(self._esc.__getitem__, ids)) if ids else "None"

    def _head(self, fill, border):
        """A record's table opened up to its bold title (one string per look)."""
        head = self._heads.get((fill, border))
        if head is None:
            head = self._heads[(fill, border)] = (
                f'<<table border="1" cellborder="1" cellspacing="3" cellpadding="3" '
                f'bgcolor="{fill}" color="{border}"><tr><td border="0"><b>')
        return head

    def backward_op(self, b):
        if b.kind == "op" and b.order == 0 and b.deps is None and b.state is None \
                and not b.released and not self.compact and not self.slim \
                and not (self.chain and b.chain):
            # the common look (as below), written in one go
            get, td = self._esc.__getitem__, self._td
            ins, outs, pending = b.inputs, b.outputs, b.grad_pending_ops
            self.dot.body.append(
                f"\t{_q(b.id)} [label={self._bop_head}{get(b.id)}</b></td></tr>"
                f"{td}{self._esc_pend} = {' , '.join(map(get, pending)) if pending else 'None'}"
                f"</td></tr>{td}input = {' , '.join(map(get, ins)) if ins else 'None'}</td></tr>"
                f"{td}output = {' , '.join(map(get, outs)) if outs else 'None'}</td></tr>"
                f"</table>> {self._bop_rest}]\n")
            return
        by_id = self.by_id
        pend = self.words["pending"]
        pal, cell = self.pal, self.cell
        if b.kind == "accumulate":
            pending = self.name_list(b.grad_pending_ops)
            rows = [_row(f"{pend} = {pending}", cell=cell),
                    _row(f"input = {self.name_list(b.inputs)}", cell=cell),
                    _row(f"writes = {by_id[by_id[b.outputs[0]].tensor].name}.grad", cell=cell)]
        else:  # (the common rows written as _row writes them, without its calls)
            td, names = self._td, self.esc_list
            rows = [f"{td}{esc(pend)} = {names(b.grad_pending_ops)}</td></tr>",
                    f"{td}input = {names(b.inputs)}</td></tr>",
                    f"{td}output = {names(b.outputs)}</td></tr>"]
            group = self.groups.get(b.forward)
            if group is not None and group["param_grads"]:  # a Layer call's box (--layers)
                pg = group["param_grads"]
                rows.append(_row("writes = " + (" , ".join(pg) if len(pg) <= 4 else
                                                f"{len(pg)} parameter gradients"), cell=cell))
        tip = None
        if self.slim:  # the compact look: the name (edges say the rest), rows in the tooltip
            tip = [shown(b)] + self._backward_lines(b)
            rows = []
        if self.chain and b.chain:
            rows += [_row(line, color=pal["grad_data"], cell=cell) for line in b.chain]
        if b.deps is not None:
            rows.append(_row(f"deps = {b.deps}", bold=b.state == "ready", cell=cell))
        fills = pal["backward"]
        fill = fills[min(b.order, len(fills) - 1)]
        border = pal["border"]
        title_color = None
        penwidth = "1"
        style = "filled"
        if b.released:
            fill, border, title_color = (pal["released"], pal["released_border"],
                                         pal["released_text"])
            if not self.compact and not self.slim:  # (the header says what grey means)
                rows.append(_row("saved tensors released", color=pal["released_text"],
                                 small=True, cell=cell))
        shape = "oval"
        if self.compact or self.slim:
            shape, style = "box", "rounded,filled"
            if b.forward in self.groups:
                penwidth = "2"
        if b.state == "running":
            fill, penwidth = pal["running"], "3"
        elif b.state == "ready":
            border, penwidth, style = pal["ready"], "3", style + ",dashed"
        if tip is not None and not rows:  # (one line: the name)
            sub = "" if b.order == 0 else \
                f'<br/><font point-size="9">derivative order {b.order + 1}</font>'
            text = f"<b>{self.esc_list((b.id,))}</b>"
            if title_color:
                text = f'<font color="{title_color}">{text}</font>'
            label = HtmlLabel(f"<{text}{sub}>")
        elif b.order == 0 and title_color is None:  # (as _table writes it, in one go)
            label = (f"{self._head(fill, fill)}{self.esc_list((b.id,))}</b></td></tr>"
                     f"{''.join(rows)}</table>>")
        else:
            sub = None if b.order == 0 else f"derivative order {b.order + 1}"
            label = _table(shown(b), rows, fill, sub=sub, border_color=fill,
                           title_color=title_color)
        rest = self._look((shape, style, fill, border, penwidth))
        if tip is not None:
            rest += f" fontsize={self.style.scale(11)} group=b height=0.2 " \
                    f"tooltip={quote(tooltip(tip))}"
        self.dot.body.append(f"\t{_q(b.id)} [label={label} {rest}]\n")

    def _backward_lines(self, b) -> list:
        """A backward op's rows as text (the compact look's tooltip)."""
        lines = [f"{self.words['pending']} = {self.name_list(b.grad_pending_ops)}",
                 f"input = {self.name_list(b.inputs)}"]
        if b.kind == "accumulate":
            by_id = self.by_id
            lines.append(f"writes = {by_id[by_id[b.outputs[0]].tensor].name}.grad")
        else:
            lines.append(f"output = {self.name_list(b.outputs)}")
            group = self.groups.get(b.forward)
            if group is not None and group["param_grads"]:
                lines.append("writes = " + " , ".join(group["param_grads"]))
        if b.released:
            lines.append("saved tensors released")
        return lines

    def _look(self, key):
        """A backward op's attributes after its label, for ``key`` (shape, style, fill,
        border, penwidth): a handful of looks, each written once (the compact look's boxes
        with less margin)."""
        rest = self._node_attrs.get(key)
        if rest is None:
            shape, style, fill, border, penwidth = key
            rest = self._node_attrs[key] = _a_list(None, {
                "shape": shape, "style": style, "fillcolor": fill, "color": border,
                "penwidth": penwidth, "margin": "0.06,0.01" if self.slim else "0.05"})
        return rest

    # -- the views --------------------------------------------------------------------
    def forward(self):
        for t in self.g.tensors:
            self.tensor(t)
        for o in self.g.ops:
            self.op(o)
        body = self.dot.body
        for o in self.g.ops:
            oid = o.id
            body.extend(operand_edges(o.inputs, f" -> {oid}"))
            for tid in o.outputs:
                body.append(f"\t{oid} -> {tid}\n")

    def backward(self):
        g, by_id = self.g, self.by_id
        for gv in g.grad_vars:
            self.grad_var(gv)
        for b in g.backward_ops:
            self.backward_op(b)
        acc_of = {b.outputs[0]: b for b in g.backward_ops if b.kind == "accumulate"}
        for b in g.backward_ops:
            if b.kind == "accumulate":
                # the accumulation node writes the leaf's gradient (drawn above it)
                self.dot.edge(b.outputs[0], b.id, dir="back", color=self.pal["accumulate"],
                              **self.es["accumulate"])
                continue
            body = self.dot.body
            bid = b.id
            for gid in dict.fromkeys(b.inputs):  # (in order, once each)
                if gid[0] == "g":
                    body.append(f"\t{bid} -> {gid} [dir=back]\n")  # out_grad flows up into it
            pending_drawn = set()
            twice = _twice(b.outputs)
            for gid in dict.fromkeys(b.outputs):
                if gid is None:
                    continue
                if gid in twice and b.kind == "op":   # x * x: a gradient per operand, drawn
                    body.extend(line.replace("]", " dir=back]") for line in   # each
                                operand_edges([o for o in b.outputs], f" -> {b.id}", only=gid))
                    continue
                acc = acc_of.get(gid) if acc_of else None
                if acc is not None:  # eager Paddle: the gradient goes to the leaf's node
                    gv = by_id[gid]
                    text = flow_name(gv, by_id, g.profile)
                    if gv.flow is not None and (g.step is not None or self.chain):
                        text += f" = {gv.flow}"
                    self.dot.edge(acc.id, b.id, dir="back", color=self.pal["pending"],
                                  label=text, fontcolor=self.pal["pending"],
                                  **self.es["pending"])
                    pending_drawn.add(acc.id)
                else:
                    body.append(f"\t{gid} -> {b.id} [dir=back]\n")
            for pid in b.grad_pending_ops:
                if pid not in pending_drawn:
                    body.append(f"\t{pid} -> {b.id} [{self._pending_edge}]\n")

    def links(self):
        """The 'both' view: tensors to their gradient variables, ops to their backward ops."""
        g = self.g
        body = self.dot.body
        for t in g.tensors:
            if t.grad_var:
                body.append(f"\t{t.id} -> {t.grad_var} [{self._tensor_link}]\n")
        for o in g.ops:
            if o.backward:
                body.append(f"\t{o.id} -> {o.backward} [{self._op_link}]\n"
                            f"\t{{\n\t\trank=same\n\t\t{o.id}\n\t\t{o.backward}\n\t}}\n")
        if self.saved:
            for b in g.backward_ops:
                if b.kind != "op":
                    continue
                for tid in _unique([i for i in b.inputs if i.startswith("t")]):
                    self.dot.edge(tid, b.id, color=self.pal["saved"], constraint="false",
                                  arrowsize="0.6", **self.es["saved_released" if b.released
                                                             else "saved"])

    def header(self):
        lines = []
        if self.title:   # (a title of several lines: one per line, as written)
            lines.extend(str(self.title).split("\n"))
        step = self.g.step
        if step is not None:
            from .terminal import ready_text, step_title

            import textwrap

            # the sentence in lines of a picture's width (one long line widened every frame)
            lines += textwrap.wrap(f"{step_title(step)}: {step['event']}", 100,
                                   subsequent_indent="    ") or [""]
            lines.append("ready queue: " + ready_text(step, lambda r: shown(self.by_id[r])))
        if self.view != "forward" and self.g.profile == "torch" \
                and getattr(self.g, "forward", None) is None:   # (model.number_backward_ops;
            # a forward frame draws nodes not made yet invisible: no word on them)
            shared = [b.title for b in self.g.backward_ops if b.title and b.title != b.name
                      and " (" in b.title]
            if shared:
                first = min(shared, key=lambda t: ".grad_fn)" not in t)
                what = first.split(" (", 1)[1][:-1]
                lines.append(f"{first} is the node torch reaches as {what}" if what.endswith(
                    ".grad_fn") else f"{first} is the AccumulateGrad that writes {what}.grad")
                lines[-1] += ": nodes of one name are told apart so (torch numbers none)"
        if (self.compact or self.slim) and self.view != "forward" and any(b.released
                                                          for b in self.g.backward_ops):
            lines.append("grey backward ops: their saved tensors were released")
        if any(o.order for o in self.g.ops):
            lines.append("orange: ops made by a backward with create_graph=True (their backward "
                         "ops give the next derivative); blue/lavender: the forward's own")
        if lines:
            self.dot.attr(label=_EscString("\\l".join(esc_plain(x) for x in lines) + "\\l"),
                          labelloc="t", labeljust="l", fontsize=self.style.scale(13))

    def source(self) -> str:
        self.header()
        if self.view in ("forward", "both"):
            self.forward()
        if self.view in ("backward", "both"):
            self.backward()
        if self.view == "both":
            self.links()
        if self.highlight:
            self.mark(self.highlight)
        if self.style.font_size is not None:  # the HTML labels' own sizes, scaled alike
            text = _POINT_SIZE.sub(lambda m: f'point-size="{self.style.scale(m.group(1))}"',
                                   self.dot.source)   # (and x * x's left/right edge labels)
            return _OPERAND_SIZE.sub(lambda m: m.group(1) + self.style.scale(9), text)
        return self.dot.source

    def mark(self, highlight):
        """Draw the given nodes and edges (``why``'s paths) thick and orange: edges in place,
        nodes by a later statement that adds to their attributes."""
        nodes = set(highlight.get("nodes", ()))
        pairs = set(highlight.get("edges", ()))
        body = self.dot.body
        for k, line in enumerate(body):
            m = _EDGE_LINE.match(line)
            if m is None or frozenset((m.group(1), m.group(2))) not in pairs:
                continue
            tail, head, attrs = m.group(1), m.group(2), m.group(4)
            if attrs:  # (its own colour and width give way)
                attrs = _COLOR_WIDTH.sub("", attrs).strip()
            extra = f"color={quote(self.pal['highlight'])} penwidth=3"
            body[k] = f"\t{tail} -> {head} [{attrs + ' ' if attrs else ''}{extra}]\n"
        for nid in sorted(nodes):
            if nid in self.by_id:
                kind = nid[:1]
                if kind in ("t", "g"):  # records drawn as plain tables: a box around them
                    body.append(f"\t{nid} [color={quote(self.pal['highlight'])} penwidth=3 "
                                f"shape=box]\n")
                else:
                    body.append(f"\t{nid} [color={quote(self.pal['highlight'])} penwidth=3]\n")


def _kept_name(gv) -> str:
    """A tensor's gradient as its record names it: ``a.grad``, or "None (not kept)" where the
    framework keeps none (torch's non-leaves)."""
    return gv.name if gv.kept else "None (not kept)"


def esc_plain(s: str) -> str:
    """Text for one line of a DOT escString (a quoted label): one line (see :func:`clean`),
    its backslashes and quotes escaped."""
    return clean(s).replace("\\", "\\\\").replace('"', '\\"')


class _EscNames(dict):
    """{model id: esc(the name pictures show for it)} (see ``shown``), None: "None"; an id not
    filled in up front is looked up in ``by_id`` when first asked for (KeyError if absent)."""

    __slots__ = ("by_id",)

    def __missing__(self, i):
        v = self[i] = esc(shown(self.by_id[i])) if i is not None else "None"
        return v


def _escaped_names(g, by_id, view) -> _EscNames:
    """The escaped names of the records ``view`` lists by name (tensors, gradient variables,
    backward ops), with one search over all of them when none needs escaping (the common
    case); escaping goes character by character, so joined escaped names are the escaped
    joined names."""
    names = {t.id: t.name for t in g.tensors}
    names.update({v.id: v.name for v in g.grad_vars})
    if view != "forward":
        names.update({b.id: b.title or b.name for b in g.backward_ops})
    try:
        plain = _NEEDS_ESC(" ".join(names.values())) is None
    except TypeError:  # (a name that is not text: escaped one by one)
        plain = False
    out = _EscNames(names) if plain else _EscNames({i: esc(v) for i, v in names.items()})
    out.by_id = by_id
    out[None] = "None"
    return out


def _twice(ids) -> set:
    seen, out = set(), set()
    for i in ids:
        if i is not None:
            (out if i in seen else seen).add(i)
    return out


def operand_edges(ids, tail, only=None) -> list:
    """DOT edge lines ``\\t<id><tail>`` for an op's operands, once each; an operand used
    twice (``x * x``) gets an edge per use, labelled by its place ("left", "right"; "input 2"
    of more), as ``why`` counts a path through each. ``only``: that operand's edges alone."""
    twice = _twice(ids)
    if not twice:
        return [f"\t{i}{tail}\n" for i in _unique(ids) if only is None or i == only]
    out, done = [], set()
    for k, i in enumerate(ids):
        if i is None or (only is not None and i != only):
            continue
        if i in twice:
            place = ("left", "right")[k] if len(ids) == 2 else f"input {k + 1}"
            out.append(f"\t{i}{tail} [label={place} fontsize=9]\n")
        elif i not in done:
            out.append(f"\t{i}{tail}\n")
        done.add(i)
    return out


def _unique(ids):
    seen = []
    for i in ids:
        if i not in seen:
            seen.append(i)
    return seen


def to_dot(g: Graph, view="both", chain=False, saved=None, title=None, highlight=None,
           style=None, look="auto") -> str:
    """The DOT source of the picture of ``g`` (deterministic); ``highlight``: ids of nodes and
    pairs of ids of edges to draw thick (``why``'s paths); ``style``: slide options
    (:class:`theme.Style`: rankdir, size, dpi, theme, font size), None for the default;
    ``look``: "full", "compact" or "auto" (see ``LOOKS``)."""
    return DotWriter(g, view=view, chain=chain, saved=saved, title=title,
                     highlight=highlight, style=style, look=look).source()


HIGHLIGHT = _LIGHT["highlight"]
_EDGE_LINE = re.compile(r"^\t(\w+) -> (\w+)( \[(.*)\])?\n$", re.S)
_POINT_SIZE = re.compile(r'point-size="(\d+(?:\.\d+)?)"')
_OPERAND_SIZE = re.compile(r"(\[label=\w+ fontsize=)9\b")   # operand_edges' labels
_COLOR_WIDTH = re.compile(r'(?:^| )(?:color|penwidth)=(?:"[^"]*"|\S+)')
