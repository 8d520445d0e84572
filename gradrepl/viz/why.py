"""``why``: why is this gradient this number? The chain rule, with the engine's own numbers.

A gradient is a sum over paths: every path from a root of ``backward()`` back to the tensor
contributes the product of the local derivatives along it (``e -> c -> a: d * b = 4 * 5 = 20``),
and the contributions add up (``y = x * x + x`` at 3: ``3 + 3 + 1 = 7``). Where a path goes
through an op whose local derivative is not a number per element (a matmul, a multi-output op),
its contribution is the vector the engine's backward op delivered along that edge (a
vector-Jacobian product), and the paths that share that last edge are counted together.

Nothing here re-runs the engine. ``WhyLog`` is a ``backward.TRACE_SINK`` that keeps, for each
backward run, what was seeded, what every backward op received (after hooks) and what it sent
along each ``grad_pending_ops`` edge (after the broadcast reduction), and, per leaf, every write
into ``.grad`` (before, added, after): that answers "why did it double" (two ``backward()``
calls), "why is it 0" (``clear_grad()``) and "why is it None" (a cut path). Values are copied
only for small arrays (``MAX_KEEP`` elements).

Each local derivative is computed from a small table (``LOCAL``) and checked against what the
engine delivered; an edge that does not check out is shown with the engine's vector instead, so
the terms of an explanation always add up to the engine's value.

    >>> from gradrepl.viz.why import recording, why
    >>> with recording():
    ...     e.backward()
    >>> print(why(a, namespace=globals()).text())
"""
from __future__ import annotations

import contextlib
import re
import weakref
from collections import deque
from dataclasses import dataclass, field

import numpy as np

from ..engine import events as ev
from ..engine.node import AccumulateNode, GradNode

MAX_KEEP = 1 << 16   # values of larger arrays are not copied (their explanation says so)
MAX_RUNS = 8         # backward runs a log keeps (a training loop keeps only its last ones)
MAX_WRITES = 64      # writes into one leaf's .grad kept
MAX_PATHS = 32       # more paths than this: grouped by their last edge
MAX_SHOWN = 12       # terms written out in the text


def _keep(t):
    if t is None:
        return None
    a = t.data
    if a.size > MAX_KEEP:
        return None
    return np.array(a, copy=True)


def _keep_array(a):
    return None if a is None or a.size > MAX_KEEP else np.array(a, copy=True)


# ---------------------------------------------------------------------------- recording
class RunRecord:
    """One backward run, as the explanation needs it."""

    def __init__(self, no, roots, kw):
        self.no = no                                   # 1, 2, ... within the log
        self.roots = [weakref.ref(r) for r in roots]
        self.root_ids = [id(r) for r in roots]
        self.retain_graph = bool(kw.get("retain_graph"))
        self.create_graph = bool(kw.get("create_graph"))
        self.capture = kw.get("inputs") is not None   # paddle.grad / torch.autograd.grad
        self.nodes = set()
        self.seeds = {}        # (node, slot) -> array
        self.arrivals = {}     # (node, slot) -> [(parent node, edge index, array)]
        self.raw = {}          # (parent node, edge index) -> shape before the broadcast sum
        self.out_grads = {}    # node -> [array per output] as the node ran (after hooks)
        self.in_vals = {}      # matmul node -> its forward inputs (for one element's sum)
        self.writes = {}       # AccumulateNode -> (before, added, after)
        self.big = False       # some value was too large to keep
        self.finished = False  # the run ended without an error


class Write:
    __slots__ = ("run", "before", "added", "after", "arrived", "retain_graph")

    def __init__(self, run, before, added, after, arrived, retain_graph):
        self.run, self.before, self.added, self.after = run, before, added, after
        self.arrived, self.retain_graph = arrived, retain_graph


class WhyLog:
    """Keeps what ``why`` needs from every backward (install as ``backward.TRACE_SINK``;
    ``forward``: another sink that also gets every item, e.g. a step-through's log)."""

    def __init__(self, forward=None, max_runs=MAX_RUNS):
        self.forward = forward
        self.runs = deque(maxlen=max_runs)
        self.count = 0
        self.leaf_writes = weakref.WeakKeyDictionary()  # AccumulateNode -> [Write]
        self._run = None
        self._running = None
        self._ptr = 0
        self._acc_ready = set()
        self._before = {}

    def __call__(self, item):
        try:
            self._take(item)
        finally:
            if self.forward is not None:
                self.forward(item)

    def _take(self, item):
        if isinstance(item, tuple) and item and item[0] in ("begin", "end"):
            if item[0] == "begin":
                self.count += 1
                self._run = RunRecord(self.count, item[1], item[2])
                self.runs.append(self._run)
                self._running, self._ptr, self._acc_ready, self._before = None, 0, set(), {}
            else:
                if self._run is not None:
                    self._run.finished = True
                self._run = None
            return
        run = self._run
        if run is None:
            return
        if isinstance(item, ev.DepsCounted):
            run.nodes = set(item.deps)
            for n in item.deps:
                if isinstance(n, AccumulateNode):
                    leaf = n.leaf
                    g = leaf._grad if leaf is not None else None
                    self._before[n] = _keep(g)
        elif isinstance(item, ev.Seeded):
            run.seeds[(item.node, item.slot)] = self._val(item.grad)
            run.nodes.add(item.node)
        elif isinstance(item, ev.Ready):
            if isinstance(item.node, AccumulateNode):
                self._acc_ready.add(item.node)
        elif isinstance(item, ev.Run):
            self._running, self._ptr = item.node, 0
            run.out_grads[item.node] = [self._val(g) for g in item.out_grads]
            node = item.node
            if node.op is not None and node.op.name == "matmul":
                run.in_vals[node] = [_keep_array(_input_data(node, k))
                                     for k in range(len(node.in_meta))]
            self._raw = [None if g is None else g.data.shape for g in item.in_grads]
        elif isinstance(item, ev.Accumulate):
            target = item.target
            if isinstance(target, AccumulateNode) and target in self._acc_ready:
                self._write(run, target, item)
                return
            node = self._running
            if node is None:
                return
            edges = node.next_edges
            i = self._ptr
            while i < len(edges) and edges[i] != (target, item.slot):
                i += 1
            if i == len(edges):
                return
            self._ptr = i + 1
            run.arrivals.setdefault((target, item.slot), []).append((node, i,
                                                                     self._val(item.grad)))
            if i < len(self._raw) and self._raw[i] is not None:
                run.raw[(node, i)] = self._raw[i]

    def _val(self, t):
        v = _keep(t)
        if v is None and t is not None:
            self._run.big = True
        return v

    def _write(self, run, acc, item):
        added = self._val(item.grad)
        after = _keep(item.total)
        arrived = _sum([a for _p, _i, a in run.arrivals.get((acc, 0), ())]
                       + ([run.seeds[(acc, 0)]] if (acc, 0) in run.seeds else []))
        before = self._before.get(acc)
        run.writes[acc] = (before, added, after)
        if run.capture:
            return
        hist = self.leaf_writes.setdefault(acc, [])
        hist.append(Write(run.no, before, added, after, arrived, run.retain_graph))
        if len(hist) > MAX_WRITES:
            del hist[0]

    def run_no(self, no):
        for r in self.runs:
            if r.no == no:
                return r
        return None


LOG: WhyLog | None = None  # the log of the last ``recording()`` (what ``why`` reads by default)


@contextlib.contextmanager
def recording(log: WhyLog | None = None):
    """Record every backward run inside the block for ``why`` (another sink already installed
    keeps getting every event, and so does the log's own ``forward``, e.g. the shell's
    ``%graph --chain`` log). Yields the log."""
    global LOG
    from ..engine import Tee, trace_sink, trace_to

    if log is None:
        log = LOG if LOG is not None else WhyLog()
    old = trace_sink()
    if old is log:
        yield log
        return
    own = log.forward
    log.forward = own if old is None or old is own else old if own is None else Tee((own, old))
    LOG = log
    try:
        with trace_to(log, chain=False):  # (the log passes every event on to ``old`` itself)
            yield log
    finally:
        log.forward = own


def _sum(arrays):
    arrays = [a for a in arrays if a is not None]
    if not arrays:
        return None
    total = np.array(arrays[0], dtype=np.result_type(arrays[0], np.float64)
                     if arrays[0].dtype.kind in "biuf" else arrays[0].dtype)
    for a in arrays[1:]:
        total = total + a
    return total


def _close(a, b):
    if a is None or b is None:
        return False
    try:
        a = np.asarray(a)
        b = np.asarray(b)
        if a.shape != b.shape and a.size != b.size:
            return False
        if a.shape != b.shape:
            b = b.reshape(a.shape)
        scale = max(1.0, float(np.max(np.abs(b))) if b.size else 1.0)
        return bool(np.allclose(a, b, rtol=1e-4, atol=1e-5 * scale, equal_nan=True))
    except (TypeError, ValueError):
        return False


def _sum_to(a, shape):
    """Sum ``a`` down to ``shape`` (undo broadcasting)."""
    shape = tuple(shape)
    if a.shape == shape:
        return a
    if a.size == int(np.prod(shape)) and a.size == 1:
        return a.reshape(shape) if a.ndim >= len(shape) else np.sum(a).reshape(shape)
    lead = a.ndim - len(shape)
    if lead < 0:
        return None
    out = a.sum(axis=tuple(range(lead))) if lead else a
    axes = tuple(k for k, n in enumerate(shape) if n == 1 and out.shape[k] != 1)
    if axes:
        out = out.sum(axis=axes, keepdims=True)
    return out if out.shape == shape else None


# ---------------------------------------------------------------------------- local derivatives
def _pow_sym(f, x):
    ft = _num(f)
    if f == 2:
        return f"2 * {x}"
    return f"{ft} * {x}^{_num(f - 1)}"


# op -> per input: (symbol template, local(xs, out, attrs) -> array broadcastable to out);
# a diagonal (element-by-element) local derivative, then summed back over broadcast axes
LOCAL = {
    "multiply": (("{x1}", lambda x, o, a: x[1]), ("{x0}", lambda x, o, a: x[0])),
    "add": (("1", lambda x, o, a: 1.0), ("1", lambda x, o, a: 1.0)),
    "subtract": (("1", lambda x, o, a: 1.0), ("-1", lambda x, o, a: -1.0)),
    "divide": (("1/{x1}", lambda x, o, a: 1.0 / x[1]),
               ("-{x0}/{x1}^2", lambda x, o, a: -x[0] / (x[1] * x[1]))),
    "scale": (("{scale}", lambda x, o, a: a["scale"]),),
    "neg": (("-1", lambda x, o, a: -1.0),),
    "pow": ((lambda names, a: _pow_sym(a["factor"], names["x0"]),
             lambda x, o, a: a["factor"] * x[0] ** (a["factor"] - 1)),),
    "elementwise_pow": (("{x1} * {x0}^({x1} - 1)", lambda x, o, a: x[1] * x[0] ** (x[1] - 1)),
                        ("{x0}^{x1} * ln({x0})", lambda x, o, a: o * np.log(x[0]))),
    "exp": (("exp({x0_})", lambda x, o, a: o),),
    "log": (("1/{x0}", lambda x, o, a: 1.0 / x[0]),),
    "tanh": (("(1 - {out}^2)", lambda x, o, a: 1.0 - o * o),),
    "sigmoid": (("{out} * (1 - {out})", lambda x, o, a: o * (1.0 - o)),),
    "relu": (("[{x0_} > 0]", lambda x, o, a: (x[0] > 0).astype(np.float64)),),
    "sin": (("cos({x0_})", lambda x, o, a: np.cos(x[0])),),
    "cos": (("-sin({x0_})", lambda x, o, a: -np.sin(x[0])),),
    "square": (("2 * {x0}", lambda x, o, a: 2.0 * x[0]),),
    "sqrt": (("1 / (2 * {out})", lambda x, o, a: 0.5 / o),),
    "abs": (("sign({x0_})", lambda x, o, a: np.sign(x[0])),),
    "reciprocal": (("-1/{x0}^2", lambda x, o, a: -1.0 / (x[0] * x[0])),),
    "assign": (("1", lambda x, o, a: 1.0),),
    "cast": (("1", lambda x, o, a: 1.0),),
}

# ops whose backward spreads the output gradient back over the input (sum, mean, reshapes):
# op -> (symbol, pull(u, in_shape, attrs) -> array of in_shape)


def _expand_back(u, shape, attrs):
    axis = attrs.get("axis")
    n_in = int(np.prod(shape)) if shape else 1
    kept = list(shape)
    if axis is None or axis == () or u.size == 1:
        kept = [1] * len(shape)
    else:
        axes = axis if isinstance(axis, (tuple, list)) else (axis,)
        for ax in axes:
            kept[ax % len(shape)] = 1
    if u.size != int(np.prod(kept)) or n_in == 0:
        return None
    return np.broadcast_to(u.reshape(kept), shape)


SPREAD = {
    "sum": ("1", lambda u, s, a: _expand_back(u, s, a)),
    "mean": ("1/n", lambda u, s, a: None if _expand_back(u, s, a) is None else
             _expand_back(u, s, a) * (u.size / max(1, int(np.prod(s))))),
    "reshape": ("1", lambda u, s, a: u.reshape(s) if u.size == int(np.prod(s)) else None),
    "flatten": ("1", lambda u, s, a: u.reshape(s) if u.size == int(np.prod(s)) else None),
    "squeeze": ("1", lambda u, s, a: u.reshape(s) if u.size == int(np.prod(s)) else None),
    "unsqueeze": ("1", lambda u, s, a: u.reshape(s) if u.size == int(np.prod(s)) else None),
    "expand": ("1", lambda u, s, a: _sum_to(u, s)),
    "broadcast_to": ("1", lambda u, s, a: _sum_to(u, s)),
}


def _input_data(node, i):
    d = node.in_data
    if d is not None and i < len(d):
        return d[i]
    t = node.input_tensor(i)
    if t is not None:
        return t.data
    e = node.next_edges[i] if i < len(node.next_edges) else None   # the op that made it kept
    child = e[0] if e is not None else None                        # its output (relu's, say)
    od = getattr(child, "out_data", None) if isinstance(child, GradNode) else None
    return od[e[1]] if od is not None and e[1] < len(od) else None


def _output_data(node):
    d = node.out_data
    if d is not None:
        return d[0]
    refs = node.out_refs
    t = refs[0]() if refs else None
    return t.data if t is not None else None


@dataclass
class Edge:
    """How a gradient goes from the output of backward op ``node`` to its input ``index``."""
    symbol: str                  # the local derivative, in the picture's names ("b", "2 * x")
    local: object                # its value (array, broadcast to the output), None: not diagonal
    pull: object                 # u -> the contribution to the input (array), None: use engine's
    reduced: tuple | None = None  # (output shape, input shape) when summed over broadcast axes
    spread: bool = False         # the output gradient is spread back (sum, mean, reshape)


def edge_rule(node, i, namer):
    """The local derivative of input ``i`` of ``node`` (an ``Edge``), or None when it is no
    number per element (then the engine's delivered vector stands for the path)."""
    op = node.op
    if op is None or len(node.out_meta) != 1:
        return None
    name = op.name
    in_shape = tuple(node.in_meta[i][0])
    out_shape = tuple(node.out_meta[0][0])
    attrs = node.attrs or {}
    names = {f"x{k}": namer.input_name(node, k) for k in range(len(node.in_meta))}
    names.update({f"x{k}_": _bare(v) for k, v in list(names.items())})
    names["out"] = namer.key((node, 0))
    names.update({k: _num(v) for k, v in attrs.items() if isinstance(v, (int, float))})
    if name in SPREAD:
        sym, fn = SPREAD[name]
        if sym == "1/n":
            n = int(np.prod(in_shape)) // max(1, int(np.prod(out_shape)))
            sym = f"1/{n}"
        return Edge(sym, None, lambda u: fn(np.asarray(u, np.float64), in_shape, attrs),
                    spread=True)
    rules = LOCAL.get(name)
    if rules is None or i >= len(rules):
        return None
    tmpl, fn = rules[i]
    xs = [_input_data(node, k) for k in range(len(node.in_meta))]
    out = _output_data(node) if name in ("exp", "tanh", "sigmoid", "sqrt", "elementwise_pow") \
        else None
    try:
        with np.errstate(all="ignore"):
            xs64 = [None if x is None else np.asarray(x, np.float64) for x in xs]
            out64 = None if out is None else np.asarray(out, np.float64)
            local = fn(xs64, out64, attrs)
            local = np.broadcast_to(np.asarray(local, np.float64), out_shape)
    except (TypeError, ValueError, KeyError, IndexError):
        return None
    try:
        sym = tmpl(names, attrs) if callable(tmpl) else tmpl.format(**names)
    except (KeyError, IndexError):
        sym = f"d({namer.node_name(node)})/d({names.get(f'x{i}', '?')})"
    reduced = (out_shape, in_shape, names.get(f"x{i}", "?")) if in_shape != out_shape \
        else None

    def pull(u, local=local, in_shape=in_shape):
        return _sum_to(local * np.asarray(u, np.float64), in_shape)

    return Edge(sym, local, pull, reduced)


# ---------------------------------------------------------------------------- names
_INFIX = {"multiply": "*", "add": "+", "subtract": "-", "divide": "/", "matmul": "@"}


def _num(v) -> str:
    """A number as a student writes it: 4, 0.5, -2.25 (no float noise)."""
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v))
    f = float(np.real(v)) if not isinstance(v, (complex, np.complexfloating)) else None
    if f is None:
        return f"{complex(v):.6g}"
    if f != f or f in (float("inf"), float("-inf")):
        return str(f)
    if f == int(f) and abs(f) < 1e15:
        return str(int(f))
    return f"{f:.6g}"


def _fmt(a) -> str:
    """A value: one number plainly, an array as a short list."""
    if a is None:
        return "(too large to keep)"
    a = np.asarray(a)
    if a.size == 1:
        return _num(a.reshape(-1)[0])
    flat = [_num(x) for x in a.reshape(-1)[:6]]
    body = ", ".join(flat) + (", ..." if a.size > 6 else "")
    if a.ndim >= 2:
        return f"[{body}] (shape {list(a.shape)})"
    return f"[{body}]"


def student_name(name):
    """``model[0].weight`` for Paddle's ``model.0.weight``: a name as the script would write it."""
    return re.sub(r"\.(\d+)(?=\.|\[|$)", r"[\1]", name) if isinstance(name, str) else name


class Namer:
    def __init__(self, namespace=None, names=None, recorder=None):
        from .model import names_from_namespace

        if names is None:
            names = names_from_namespace(namespace)
        self.raw_names = names.get("tensors", {})   # as the picture writes them (model.0.weight)
        self.names = {k: student_name(v) for k, v in self.raw_names.items()}
        self.layer_names = {k: student_name(v) for k, v in names.get("layers", {}).items()}
        self.recorder = recorder
        self.namespace = namespace
        self.layer_out = {}    # backward node -> the Layer call whose output it made
        self.layer_in = {}     # backward node -> the innermost Layer call it ran in
        self._memo = {}

    def attach(self, run):
        """Learn, from the recorder's Layer calls, which nodes of ``run`` made a Layer's output
        (named "the output of model[0]") and which ran inside one."""
        rec = self.recorder
        if rec is None or not getattr(rec, "spans", None):
            return
        nodes = sorted((n for n in run.nodes if isinstance(n, GradNode)), key=lambda n: n.uid)
        if not nodes:
            return
        import bisect

        uids = [n.uid for n in nodes]
        for layer, _parent, start, end in rec.spans:   # outer calls first: inner ones win
            if end is None:
                continue
            lo, hi = bisect.bisect_right(uids, start), bisect.bisect_left(uids, end)
            if lo >= hi:
                continue
            self.layer_out[nodes[hi - 1]] = layer
            for n in nodes[lo:hi]:
                self.layer_in[n] = layer

    def resolve(self, expr):
        """The object ``expr`` (``model[0]``) names in the namespace, or None."""
        try:
            return _evaluate(self.namespace or {}, expr)
        except KeyError:
            return None

    def layer_name(self, layer):
        """``model[0]``, or the Layer's class when the namespace does not reach it."""
        n = self.layer_names.get(id(layer))
        return n if n is not None else type(layer).__name__

    def layer_words(self, layer):
        """``model[0], a Linear layer from 4 to 8 features``."""
        kind = type(layer).__name__
        w = getattr(layer, "weight", None)
        shape = list(getattr(getattr(w, "data", None), "shape", ()) or ())
        what = f"a {kind} layer"
        if kind == "Linear" and len(shape) == 2:
            a, b = (shape[1], shape[0]) if isinstance(words_for(w), TorchWords) \
                else (shape[0], shape[1])
            what += f" from {a} to {b} features"
        return f"{self.layer_name(layer)}, {what}"

    def tensor(self, t, depth=0):
        if t is None:
            return "?"
        n = self.names.get(id(t))
        if n is not None:
            return n
        if t.grad_node is not None and not t.stop_gradient:
            return self.key((t.grad_node, t.out_slot), depth)
        if t.data.size == 1:
            return _num(t.data.reshape(-1)[0])
        return getattr(t, "_name", None) or f"a tensor of shape {list(t.data.shape)}"

    def input_name(self, node, i, depth=0):
        t = node.input_tensor(i)
        if t is not None:
            return self.tensor(t, depth + 1)
        e = node.next_edges[i] if i < len(node.next_edges) else None
        if e is not None:
            return self.key(e, depth + 1)
        d = node.in_data
        if d is not None and i < len(d) and d[i].size == 1:  # a constant no longer alive
            return _num(d[i].reshape(-1)[0])
        return "?"

    def key(self, key, depth=0):
        """The name of the tensor whose gradient arrives at (node, slot)."""
        node, slot = key
        if isinstance(node, AccumulateNode):
            leaf = node.leaf
            return self.tensor(leaf, depth) if leaf is not None else "a leaf"
        refs = node.out_refs
        t = refs[slot]() if refs is not None and slot < len(refs) else None
        if t is not None and id(t) in self.names:
            return self.names[id(t)]
        layer = self.layer_out.get(node)
        if layer is not None and slot == 0 and id(layer) in self.layer_names:
            return f"the output of {self.layer_name(layer)}"
        if depth > 2:
            return "(...)"
        memo = self._memo.get((key, depth))
        if memo is not None:
            return memo
        name = self.node_name(node, depth)
        if node.op is not None and node.op.name == "cross_entropy_with_softmax":
            name = ("the per-sample losses " + name) if slot == 1 else \
                f"softmax({self.input_name(node, 0, depth)})"
        elif len(node.out_meta) > 1:
            name += f"[{slot}]"
        self._memo[(key, depth)] = name
        return name

    def node_name(self, node, depth=0, limit=64):
        op = node.op
        if op is None:
            return self.key((node, 0), depth)
        n = len(node.in_meta)
        args = [self.input_name(node, k, depth) for k in range(n)]
        attrs = node.attrs or {}
        if op.name in _INFIX and n == 2:
            text = f"({args[0]} {_INFIX[op.name]} {args[1]})"
        elif op.name == "scale" and n == 1:
            s, b = attrs.get("scale", 1.0), attrs.get("bias", 0.0)
            text = f"({_num(s)} * {args[0]})" if not b else \
                f"({args[0]} + {_num(b)})" if s == 1 else f"({_num(s)} * {args[0]} + {_num(b)})"
        elif op.name == "pow" and n == 1:
            text = f"({args[0]} ** {_num(attrs.get('factor'))})"
        elif op.name == "transpose" and n == 1 and tuple(attrs.get("perm", ())) == (1, 0):
            text = f"{_paren(args[0])}.T"
        elif op.name == "fused_addmm" and n == 3:
            text = f"({args[1]} @ {args[2]} + {args[0]})"
        elif op.name == "fused_nll_loss" and n == 1:
            text = f"nll_loss({args[0]})"
        elif op.name == "cross_entropy_with_softmax":
            label = args[1] if len(args) > 1 and args[1] not in ("?", "(...)") else "the labels"
            text = f"cross_entropy({args[0]}, {label})"
        else:
            text = f"{op.name}({', '.join(args)})"
        return text if len(text) <= limit else f"{op.name}(...)"


# ---------------------------------------------------------------------------- explanations
@dataclass
class Term:
    """One addend of a gradient: a path (or a group of paths) and its value."""
    path: list                    # names, root first ("e", "c", "a")
    keys: list                    # engine keys along it: (node, slot), root first
    edges: list                   # (node, input index) per step, root first
    factors: list                 # [(symbol, local value array or None)] per step
    value: object                 # array: this term's contribution (input shape)
    kind: str = "path"            # "path" | "vector" (engine's vector) | "earlier" | "hook"
    count: int = 1                # how many paths it stands for
    note: str = ""                # a word on this term (broadcast sum, hook, ...)
    reduced: list = field(default_factory=list)  # [(output shape, input shape)] broadcast sums
    positional: bool = True       # every tensor on the path is a number or the target's shape
    pre: object = None            # the last broadcast sum's addends (before it), for elements
    vectors: list = field(default_factory=list)  # (grad name, value) sent along a vector path


class _Builder:
    def __init__(self, run, namer, words):
        self.run = run
        self.namer = namer
        self.w = words
        self.memo = {}
        self.count_memo = {}
        self.rules = {}
        self.hooked = {}   # node -> True where the node's out_grad differs from what arrived

    def arrived(self, key):
        run = self.run
        parts = [a for _p, _i, a in run.arrivals.get(key, ())]
        if key in run.seeds:
            parts.append(run.seeds[key])
        return _sum(parts)

    def rule(self, node, i):
        k = (node, i)
        if k not in self.rules:
            r = edge_rule(node, i, self.namer)
            og = self.run.out_grads.get(node)
            sent = [a for p, j, a in self._sent(node, i)]
            if r is not None and og is not None and og[0] is not None and sent:
                got = r.pull(og[0])
                if got is None or not _close(got, sent[0]):
                    r = None
            elif r is not None:
                r = None
            self.rules[k] = r
        return self.rules[k]

    def _sent(self, node, i):
        e = node.next_edges[i]
        return [(p, j, a) for p, j, a in self.run.arrivals.get(e, ()) if p is node and j == i]

    def is_hooked(self, node):
        if node not in self.hooked:
            og = self.run.out_grads.get(node)
            arr = self.arrived((node, 0))
            self.hooked[node] = og is not None and og[0] is not None and arr is not None \
                and not _close(og[0], arr)
        return self.hooked[node]

    def count(self, key):
        """How many paths from the roots reach ``key``."""
        if key in self.count_memo:
            return self.count_memo[key]
        self.count_memo[key] = 1  # (a DAG; guards against surprises)
        n = 1 if key in self.run.seeds else 0
        for p, _i, _a in self.run.arrivals.get(key, ()):
            n += self.count_src(p)
        self.count_memo[key] = n
        return n

    def count_src(self, node):
        if len(node.out_meta) != 1:
            return sum(self.count((node, k)) for k in range(len(node.out_meta)))
        if self.is_hooked(node):
            return 1
        return self.count((node, 0))

    def terms(self, key, expand=True):
        """Terms that add up to what arrived at ``key`` (before its hooks)."""
        mk = (key, expand)
        if mk in self.memo:
            return self.memo[mk]
        out = []
        run = self.run
        name = self.namer.key(key)
        if key in run.seeds:
            out.append(Term([name], [key], [], [], run.seeds[key], kind="path",
                            note="the seed"))
        for p, i, a in run.arrivals.get(key, ()):
            out.extend(self.through(p, i, a, key, name, expand))
        self.memo[mk] = out
        return out

    def through(self, p, i, a, key, name, expand):
        rule = self.rule(p, i) if expand else None
        src = (p, 0)
        if rule is None or len(p.out_meta) != 1:
            return [self.vector_term(p, i, a, key, name)]
        if self.is_hooked(p):
            og = self.run.out_grads[p][0]
            base = [Term([self.namer.key(src)], [src], [], [], og, kind="hook",
                         note=f"{self.namer.key(src)}'s gradient after its hook")]
        else:
            base = self.terms(src, expand)
        out = []
        for t in base:
            v = rule.pull(t.value) if t.value is not None else None
            if v is None:
                return [self.vector_term(p, i, a, key, name)]
            shape_t = np.shape(t.value)
            tgt_shape = np.shape(a)
            positional = t.positional and (np.size(v) == 1 or shape_t == tgt_shape
                                           or np.size(t.value) == 1) and rule.reduced is None \
                and not (rule.spread and np.size(t.value) > 1 and np.size(v) > np.size(t.value))
            pre = None
            if rule.reduced is not None and t.value is not None:
                pre = rule.local * np.asarray(t.value, np.float64)
            nt = Term(t.path + [name], t.keys + [key], t.edges + [(p, i)],
                      t.factors + [(rule.symbol, rule.local)], v, kind=t.kind, count=t.count,
                      note=t.note, reduced=t.reduced + ([rule.reduced] if rule.reduced else []),
                      positional=positional, pre=pre)
            out.append(nt)
        return out

    def vector_term(self, p, i, a, key, name):
        src = self.src_of(p)
        n = self.count_src(p)
        keys, edges, vectors = self.chain_to(src) if n == 1 else ([src], [], [])
        path = [self.namer.key(k) for k in keys] + [name]
        t = Term(path, keys + [key], edges + [(p, i)], [(self.vjp_symbol(p, i), None)], a,
                 kind="vector", count=n, positional=False)
        og = self.run.out_grads.get(p)
        t.vectors = vectors + [(self.w.grad_name(self.namer.key(src)),
                                og[src[1]] if og is not None and src[1] < len(og) else None)]
        return t

    def src_of(self, p):
        """The output of ``p`` whose gradient the paths come through (the first that got one)."""
        if len(p.out_meta) == 1:
            return (p, 0)
        for k in range(len(p.out_meta)):
            if (p, k) in self.run.seeds or (p, k) in self.run.arrivals:
                return (p, k)
        return (p, 0)

    def chain_to(self, key):
        """The one path from the root to ``key`` (keys, edges, the gradients sent along it)."""
        keys, edges, vectors = [key], [], []
        run = self.run
        while key not in run.seeds and len(keys) < 64:
            arr = run.arrivals.get(key, ())
            if len(arr) != 1:
                break
            p, i, _a = arr[0]
            src = self.src_of(p)
            og = run.out_grads.get(p)
            vectors.insert(0, (self.w.grad_name(self.namer.key(src)),
                               og[src[1]] if og is not None and src[1] < len(og) else None))
            keys.insert(0, src)
            edges.insert(0, (p, i))
            key = src
        return keys, edges, vectors

    def vjp_symbol(self, p, i):
        from .chain import FORMULAS

        tmpl = FORMULAS.get(p.op.name) if p.op is not None else None
        g = self.w.grad_name(self.namer.key(self.src_of(p)))
        if tmpl is not None and i < len(tmpl):
            names = {"g": g, **{f"x{k}": self.namer.input_name(p, k)
                                for k in range(len(p.in_meta))}}
            names.update({k: _num(v) for k, v in (p.attrs or {}).items()
                          if isinstance(v, (int, float))})
            try:
                n_in = int(np.prod(p.in_meta[i][0])) if i < len(p.in_meta) else 0
                n_out = int(np.prod(p.out_meta[0][0])) if p.out_meta else 0
                names.setdefault("n", str(max(n_in, n_out) // max(1, min(n_in, n_out))))
            except (TypeError, ValueError, IndexError):
                pass
            try:
                return tmpl[i].format(**names)
            except (KeyError, IndexError):
                pass
        return f"what {self.w.node_label(p)} computes from {g}"

    def build(self, key):
        """The terms for ``key``: paths expanded while there are at most MAX_PATHS of them,
        else one term per last edge. Returns (terms, grouped)."""
        n = self.count(key)
        if n <= MAX_PATHS:
            return self.terms(key, True), False
        run = self.run
        out = []
        name = self.namer.key(key)
        if key in run.seeds:
            out.append(Term([name], [key], [], [], run.seeds[key], note="the seed"))
        for p, i, a in run.arrivals.get(key, ()):
            t = self.vector_term(p, i, a, key, name)
            rule = self.rule(p, i)
            og = run.out_grads.get(p)
            if rule is not None and og is not None and og[0] is not None:
                src = self.src_of(p)
                t.factors = [(self.w.grad_name(self.namer.key(src)), og[0]),
                             (rule.symbol, rule.local)]
                t.vectors = []
            out.append(t)
        return out, True


# ---------------------------------------------------------------------------- words
class Words:
    """Each dialect in its own words."""
    dialect = "paddle"
    stops = "stop_gradient=True"
    takes = "stop_gradient=False"
    clear = "clear_grad()"
    clear_none = "clear_gradient(set_to_zero=False)"
    retain = "retain_grads()"
    node_word = "backward op"

    def grad_name(self, name):
        return f"{name}_grad"

    def node_label(self, node):
        from .model import PaddleDialect

        try:
            return PaddleDialect().backward_name(node)
        except Exception:  # noqa: BLE001 - a name only
            return node.op.name if node.op is not None else "accumulation"


class TorchWords(Words):
    dialect = "torch"
    stops = "requires_grad=False"
    takes = "requires_grad=True"
    clear = "zero_()"
    clear_none = "zero_grad() (grad = None)"
    retain = "retain_grad()"
    node_word = "grad_fn"

    def grad_name(self, name):
        return f"{name}.grad"

    def node_label(self, node):
        try:
            from ..torch.autograd.graph import node_name

            return node_name(node)
        except Exception:  # noqa: BLE001
            return node.op.name if node.op is not None else "AccumulateGrad"


def words_for(tensor):
    for cls in type(tensor).__mro__:   # (torch.nn.Parameter, torch.Tensor, ...)
        mod = cls.__module__
        if mod.startswith("gradrepl.torch") or mod == "torch" or mod.startswith("torch."):
            return TorchWords()
    return Words()


@dataclass
class Explanation:
    """Why ``name``'s gradient is what it is: ``terms`` add up to ``total``; ``engine`` is the
    engine's value (``.grad``, or the gradient the tensor got in its last backward)."""
    name: str
    element: tuple | None
    words: Words
    status: str                   # "paths" | "grouped" | "none" | "cleared" | "changed" |
    #                               "unrecorded" | "stops"
    terms: list = field(default_factory=list)
    total: object = None
    engine: object = None
    run: RunRecord | None = None
    notes: list = field(default_factory=list)   # sentences before the paths
    after: list = field(default_factory=list)   # sentences after the sum
    arrived_terms: list = field(default_factory=list)  # before a leaf hook changed them
    before_change: list = field(default_factory=list)  # the terms of the backward runs, when
    #                                                    .grad was cleared or changed since
    root_names: list = field(default_factory=list)
    namer: object = None                        # the Namer the names came from
    who: str = ""                               # "W is model[0].weight, ..." (or "")

    @property
    def paths(self):
        return [t.path for t in self.terms if t.kind in ("path", "vector")]

    def value_of(self, a):
        if a is None:
            return None
        a = np.asarray(a)
        if self.element is None:
            return a
        try:
            return a[self.element]
        except (IndexError, TypeError):
            return a.reshape(-1)[0] if a.size == 1 else None

    def term_values(self):
        return [self.value_of(t.value) for t in self.terms]

    def explained_total(self):
        vals = [v for v in self.term_values() if v is not None]
        if not vals:
            return None
        s = np.asarray(vals[0], np.float64) if np.asarray(vals[0]).dtype.kind != "c" \
            else np.asarray(vals[0])
        for v in vals[1:]:
            s = s + v
        return s

    def highlight(self, graph):
        """Model ids to highlight in ``graph`` (built by ``model.build``): {"nodes", "edges"}."""
        b = getattr(graph, "_builder", None)
        nodes, edges = set(), set()
        if b is None:
            return {"nodes": nodes, "edges": edges}
        gv_of = {}
        for gid, edge in b.grad_edges.items():
            if edge is not None:
                gv_of[edge] = gid
        tensor_of = {key: info.id for key, info in b.tensors.items()}
        for t in self.terms:
            keys = t.keys
            for k, key in enumerate(keys):
                tid = _tensor_id(key, tensor_of)
                gid = gv_of.get(key)
                for x in (tid, gid):
                    if x is not None:
                        nodes.add(x)
                if isinstance(key[0], AccumulateNode) and key[0] in b.bw:
                    nodes.add(b.bw[key[0]].id)
                    if gid:
                        edges.add(frozenset((gid, b.bw[key[0]].id)))
                if k == 0:
                    continue
                p, _i = t.edges[k - 1]
                prev = keys[k - 1]
                op = b.ops.get(p)
                bw = b.bw.get(p)
                ptid = _tensor_id(prev, tensor_of)
                pgid = gv_of.get(prev)
                if op is not None:
                    nodes.add(op.id)
                    for x, y in ((tid, op.id), (op.id, ptid)):
                        if x and y:
                            edges.add(frozenset((x, y)))
                if bw is not None:
                    nodes.add(bw.id)
                    for x, y in ((pgid, bw.id), (bw.id, gid)):
                        if x and y:
                            edges.add(frozenset((x, y)))
                    child = b.bw.get(key[0])
                    if child is not None:
                        nodes.add(child.id)
                        edges.add(frozenset((child.id, bw.id)))
        return {"nodes": nodes, "edges": edges}

    def text(self) -> str:
        return render_text(self)

    def __str__(self):
        return self.text()


def _tensor_id(key, tensor_of):
    node = key[0]
    if isinstance(node, AccumulateNode):
        leaf = node.leaf
        return tensor_of.get(("leaf", id(leaf))) if leaf is not None else None
    return tensor_of.get(key)


def _target_key(t):
    if t.stop_gradient:
        return None
    if t.grad_node is None:
        acc = t._accum
        return (acc, 0) if acc is not None else None
    return (t.grad_node, t.out_slot)


def why(tensor, namespace=None, element=None, log=None, name=None, names=None,
        recorder=None) -> Explanation:
    """Explain ``tensor``'s gradient as the chain rule (``element``: one index of it).

    ``namespace``: the variables to name tensors by (``globals()``); ``log``: the ``WhyLog``
    that recorded the backward runs (default: the last ``recording()``); ``recorder``: the
    engine's ``provenance.Recorder`` of the run, to name a Layer's output "the output of
    model[0]"."""
    log = log if log is not None else LOG
    namer = Namer(namespace, names, recorder)
    w = words_for(tensor)
    if name is None:
        name = namer.names.get(id(tensor)) or namer.tensor(tensor)
    if element is not None and not isinstance(element, tuple):
        element = (element,)
    gname = f"{name}.grad" + (_index_text(element) if element is not None else "")
    engine = tensor._grad.data if tensor._grad is not None else None
    if element is not None:
        _check_element(tensor, element, name)
    ex = Explanation(gname, element, w, "none", engine=engine, namer=namer)
    ex.who = _who_words(tensor, name, namer)
    key = _target_key(tensor)
    if tensor.stop_gradient:
        ex.status = "stops"
        ex.notes += _stop_words(tensor, name, namer, w, log)
        return ex
    if log is None or not log.runs and not log.leaf_writes:
        ex.status = "unrecorded"
        ex.notes.append(f"no backward() was recorded while {name} existed: `gradrepl why`, the "
                        "shell's %why and gradrepl.viz.why.recording() record them")
        return ex
    if tensor.grad_node is None:
        return _explain_leaf(ex, tensor, key, name, namer, log)
    return _explain_nonleaf(ex, tensor, key, name, namer, log)


def _index_text(element):
    return "[" + ", ".join(str(i) for i in element) + "]"


def _check_element(tensor, element, name):
    shape = tensor.data.shape
    if len(element) != len(shape) and not (tensor.data.size == 1 and all(i == 0 for i in element)):
        raise IndexError(f"{name} has shape {list(shape)}: an element needs {len(shape)} "
                         f"index(es), got {len(element)}")
    for i, n in zip(element, shape):
        if not -n <= i < n:
            raise IndexError(f"index {i} is out of range for {name} of shape {list(shape)}")


def _explain_run(ex, run, key, namer):
    """Fill ``ex.terms`` with the paths of ``run`` into ``key``."""
    namer.attach(run)
    b = _Builder(run, namer, ex.words)
    terms, grouped = b.build(key)
    terms = sorted(terms, key=lambda t: [i for _p, i in t.edges])
    ex.run = run
    for node, hooked in b.hooked.items():
        if hooked:
            src = (node, 0)
            ex.notes.append(f"a hook on {namer.key(src)} changed the gradient that arrived "
                            f"there, {_fmt(ex.value_of(b.arrived(src)) if _fits(ex, b.arrived(src)) else b.arrived(src))}, "
                            f"into {_fmt(run.out_grads[node][0])}: the paths through it start "
                            "from the changed value")
    ex.root_names = [namer.key(k) for k in run.seeds]
    ex.status = "grouped" if grouped else "paths"
    if run.big:
        ex.after.append(f"(some gradients of this backward were larger than {MAX_KEEP} "
                        "elements and were not kept: their paths show no numbers)")
    return terms, b


def _explain_leaf(ex, tensor, key, name, namer, log):
    w = ex.words
    acc = tensor._accum
    hist = log.leaf_writes.get(acc, []) if acc is not None else []
    if not hist:
        ex.status = "none"
        ex.notes += _unreached_words(tensor, name, namer, w, log)
        return ex
    last = hist[-1]
    run = log.run_no(last.run)
    cur = tensor._grad.data if tensor._grad is not None else None
    # what the history says, earliest first: the writes that add up to the last one
    chain = [last]
    for prev in reversed(hist[:-1]):
        first = chain[0]
        if first.before is None or _is_zero(first.before) or not _close(first.before, prev.after):
            break
        chain.insert(0, prev)
    start = chain[0].before
    terms = []
    if run is not None:
        terms, b = _explain_run(ex, run, key, namer)
        arrived = _sum([t.value for t in terms if t.value is not None])
        if not _close(arrived, last.added) and last.added is not None:
            ex.arrived_terms = terms
            terms = [Term([name], [key], [], [], last.added, kind="hook",
                          note=f"what {name}'s hook returned")]
            ex.after.append(f"a hook on {name} changed the gradient that arrived, "
                            f"{_fmt(ex.value_of(arrived))}, into "
                            f"{_fmt(ex.value_of(last.added))}, which is what {name}.grad got")
    else:
        ex.status = "paths"
        terms = [Term([name], [key], [], [], last.added, kind="earlier",
                      note=f"backward #{last.run} (no longer kept in detail)")]
    earlier = [Term([name], [key], [], [], wr.added, kind="earlier",
                    note=f"backward() #{k} added") for k, wr in enumerate(chain[:-1], 1)]
    if len(chain) > 1:
        ex.notes.append(
            f"{name}.grad adds up: backward() reached {name} {len(chain)} times"
            + (" since its gradient was last empty" if start is None or _is_zero(start) else "")
            + " and each time its gradient was added to what .grad already held"
            + " (Paddle and torch accumulate; clear it between steps to start again)")
        if any(wr.retain_graph for wr in chain[:-1]) and _same_graph(log, chain):
            ex.notes.append("the same graph was used again: that works because the earlier "
                            "backward() was called with retain_graph=True (without it its "
                            "saved tensors would have been freed)")
    if start is not None and not _is_zero(start):
        terms.insert(0, Term([name], [key], [], [], start, kind="earlier",
                             note="what .grad held before"))
        ex.notes.append(f"before that, {name}.grad already held {_fmt(ex.value_of(start))}")
    elif start is not None and len(hist) > len(chain):
        ex.notes.append(f"{name}.grad was 0 before (set to zero by {w.clear})")
    ex.terms = earlier + terms
    ex.total = ex.explained_total()
    if cur is None:
        ex.status = "cleared"
        ex.after.append(f"but {name}.grad is None now: it was cleared after that backward "
                        f"({w.clear_none}, or {name}.grad = None)")
        ex.before_change, ex.terms = ex.terms, []
        ex.total = None
    elif not _close(cur, last.after):
        if _is_zero(cur):
            ex.status = "cleared"
            ex.after.append(f"but {name}.grad is 0 now: {w.clear} set it to zero after the "
                            f"last backward (which had left {_fmt(ex.value_of(last.after))})")
        else:
            ex.status = "changed"
            ex.after.append(f"but {name}.grad was changed after the last backward (an "
                            f"optimizer step or an in-place write?): it is "
                            f"{_fmt(ex.value_of(cur))} now")
        ex.before_change = ex.terms  # what the backward runs had added up to
        ex.terms = [Term([name], [key], [], [], cur, kind="earlier", note="its value now")]
        ex.total = ex.value_of(cur)
    return ex


def _explain_nonleaf(ex, tensor, key, name, namer, log):
    w = ex.words
    run = None
    for r in reversed(log.runs):
        if r.finished and not r.capture and (key in r.arrivals or key in r.seeds):
            run = r
            break
    if run is None:
        ex.status = "none"
        ex.notes += _unreached_words(tensor, name, namer, w, log)
        return ex
    terms, b = _explain_run(ex, run, key, namer)
    og = run.out_grads.get(key[0])
    got = og[key[1]] if og is not None and key[1] < len(og) else None
    arrived = b.arrived(key)
    ex.terms = terms
    if got is not None and arrived is not None and not _close(got, arrived):
        ex.arrived_terms = terms
        ex.terms = [Term([name], [key], [], [], got, kind="hook",
                         note=f"what {name}'s hook returned")]
        ex.after.append(f"a hook on {name} changed the gradient that arrived, "
                        f"{_fmt(ex.value_of(arrived))}, into {_fmt(ex.value_of(got))}")
    ex.total = ex.explained_total()
    cur = tensor._grad.data if tensor._grad is not None else None
    if cur is not None and got is not None and not _close(cur, got):
        ex.status = "cleared" if _is_zero(cur) else "changed"
        ex.after.append(f"but {name}.grad is {_fmt(ex.value_of(cur))} now: "
                        + (f"{w.clear} set it to zero after that backward" if _is_zero(cur)
                           else "it was changed after that backward"))
        ex.before_change = ex.terms
        ex.terms = [Term([name], [key], [], [], cur, kind="earlier", note="its value now")]
        ex.total = ex.value_of(cur)
    if ex.engine is None:
        ex.engine = got
        ex.after.append(f"{name} is not a leaf: {name}.grad is not kept (call {name}."
                        f"{w.retain} before backward() to keep it); the gradient it got in "
                        "that backward is explained here")
    return ex


def _fits(ex, a):
    return a is not None and ex.element is not None and np.shape(a) == np.shape(ex.engine)


def _is_zero(a):
    return a is not None and not np.any(np.asarray(a))


def _same_graph(log, chain):
    runs = [log.run_no(wr.run) for wr in chain]
    runs = [r for r in runs if r is not None]
    for r1, r2 in zip(runs, runs[1:]):
        if r1.nodes & r2.nodes - {n for n in r2.nodes if isinstance(n, AccumulateNode)}:
            return True
    return False


def _stop_words(tensor, name, namer, w, log):
    out = [f"{name} has {w.stops}: backward() computes no gradient for it (and none flows "
           f"through it to what it was made from)"]
    uses = _cut_uses(tensor, namer, log)
    if uses:
        out.append(f"the last backward() that used {name} (from {uses[0][0]}) reached "
                   f"{uses[0][1]} but the path stops at {name}: it is cut there")
    elif log is not None and log.runs:
        out.append(f"no backward() reached {name}: a gradient never flows into a tensor with "
                   f"{w.stops}, nor through ops computed only from such tensors")
    if tensor.grad_node is None and not getattr(tensor, "_param_name", None):
        out.append(f"(a tensor made by detach(), under no_grad(), or created without "
                   f"{w.takes} has no history and stops gradient)")
    return out


def _cut_uses(tensor, namer, log):
    """Where recorded backward runs met ``tensor`` as an input that takes no gradient."""
    found = []
    if log is None:
        return found
    for run in reversed(log.runs):
        for node in run.nodes:
            if not isinstance(node, GradNode):
                continue
            for i, e in enumerate(node.next_edges):
                if e is None and node.input_tensor(i) is tensor:
                    roots = list(dict.fromkeys(namer.key(k) for k in run.seeds))
                    found.append((", ".join(roots) or "its root", namer.node_name(node)))
        if found:
            return found
    return found


def _unreached_words(tensor, name, namer, w, log):
    return [f"no recorded backward() reached {name} (backward() sends gradients only to "
            f"what the tensor it starts from was computed from)"]


# ---------------------------------------------------------------------------- text
def _ordinal(k):
    return {0: "left", 1: "right"}.get(k, f"input {k + 1}")


def _path_text(t):
    parts = [t.path[0]]
    for k, name in enumerate(t.path[1:]):
        edge = t.edges[k] if k < len(t.edges) else None
        arrow = " -> "
        if edge is not None:
            p, i = edge
            e = p.next_edges
            if sum(1 for x in e if x is not None and x == e[i]) > 1:
                name = f"{name} (as the {_ordinal(i)} operand)" if len(e) == 2 else \
                    f"{name} (as input {i + 1})"
        parts.append(arrow + name)
    return "".join(parts)


def _bare(name):
    """``(x @ w) + b`` for ``((x @ w) + b)``: a name without its outer parentheses."""
    if name.startswith("(") and name.endswith(")"):
        depth = 0
        for k, ch in enumerate(name):
            depth += ch == "("
            depth -= ch == ")"
            if depth == 0 and k < len(name) - 1:
                return name
        return name[1:-1]
    return name


def _factor(sym):
    """A factor of a product: parenthesized when it is a sum or difference."""
    depth = 0
    for k, ch in enumerate(sym):
        depth += ch in "([{"
        depth -= ch in ")]}"
        if depth == 0 and ch in "+-" and 0 < k < len(sym) - 1 and sym[k - 1] == " ":
            return f"({sym})"
    return sym


def _broadcast_words(out_shape, in_shape):
    n = int(np.prod(out_shape)) // max(1, int(np.prod(in_shape)))
    rows = len(out_shape) == len(in_shape) + 1 and tuple(out_shape[1:]) == tuple(in_shape)
    what = "rows" if rows else "positions"
    return n, what


def _term_line(ex, t):
    val = ex.value_of(t.value)
    if t.kind == "earlier":
        return f"{t.note} {_fmt(val)}" if t.note.endswith("added") else f"{t.note}: {_fmt(val)}"
    if t.kind == "hook" and len(t.path) == 1:
        return f"{t.note}: {_fmt(val)}"
    path = _path_text(t)
    if t.kind == "vector":
        head = f"{path}" + (f"  ({t.count} paths end with this edge)" if t.count > 1 else "")
        line = f"{head}: " + " * ".join(_factor(f[0]) for f in t.factors)
        vals = [f[1] for f in t.factors]
        if len(vals) > 1 and all(v is not None and np.size(v) == 1 for v in vals):
            line += " = " + " * ".join(_num(np.asarray(v).reshape(-1)[0]) for v in vals)
        if t.reduced:
            out_shape, in_shape, who = t.reduced[-1]
            n, what = _broadcast_words(out_shape, in_shape)
            line += (f", summed over the {n} broadcast {what} ({who} {list(in_shape)} "
                     f"was broadcast to {list(out_shape)})")
            if ex.element is not None and t.pre is not None:
                adds = _broadcast_addends(t.pre, in_shape, ex.element)
                if adds is not None and len(adds) <= 12:
                    line += " = " + " + ".join(_num(x) for x in adds)
        line += f" = {_fmt(val)}"
        shown = [(n, v) for n, v in t.vectors if v is not None][-4:]
        if shown and ex.element is None:
            line += ("\n      the gradients along it: "
                     + "; ".join(f"{n} = {_fmt(v)}" for n, v in shown))
        return line
    syms = [s for s, _l in t.factors]
    line = f"{path}:"
    if t.kind == "hook":
        syms = [ex.words.grad_name(t.path[0]) + " (after its hook)"] + syms
    if not syms:
        return f"{line} {_fmt(val)} ({t.note or 'the seed'})"
    seed = _seed_value(ex, t)
    if seed is not None and seed != "1":
        syms = [ex.words.grad_name(t.path[0])] + syms
    sym_text = " * ".join(_factor(x) for x in syms)
    parts = [sym_text]
    nums = _factor_numbers(ex, t)
    if nums:
        num_text = " * ".join(nums)
        if num_text != sym_text:
            parts.append(num_text)
    if t.reduced:
        out_shape, in_shape, who = t.reduced[-1]
        n, what = _broadcast_words(out_shape, in_shape)
        parts[-1] += (f", summed over the {n} broadcast {what} ({who} {list(in_shape)} "
                      f"was broadcast to {list(out_shape)})")
        if t.pre is not None:
            if ex.element is not None:
                adds = _broadcast_addends(t.pre, in_shape, ex.element)
                if adds is not None and len(adds) <= 12:
                    parts.append(" + ".join(_num(x) for x in adds))
            elif what == "rows" and n <= 4:
                parts.append(" + ".join(_fmt(r) for r in np.asarray(t.pre)))
    result = _fmt(val)
    if parts[-1] != result:
        parts.append(result)
    return line + " " + " = ".join(parts)


def _factor_numbers(ex, t):
    """The numbers of the factors where every one is a single number at this element."""
    if not t.positional or t.reduced:
        return None
    nums = []
    seed_val = _seed_value(ex, t)
    if seed_val is not None and seed_val != "1":
        nums.append(seed_val)
    if t.kind == "hook" and t.factors:
        hooked = _hook_value(ex, t)
        if hooked is None:
            return None
        nums.append(hooked)
    for sym, local in t.factors:
        if local is None:
            return None
        a = np.asarray(local)
        if a.size == 1:
            nums.append(_num(a.reshape(-1)[0]))
        elif ex.element is not None and a.shape == np.shape(t.value):
            nums.append(_num(a[ex.element]))
        else:
            return None
    return nums


def _hook_value(ex, t):
    run = ex.run
    og = run.out_grads.get(t.keys[0][0]) if run is not None else None
    if og is None or og[0] is None or np.size(og[0]) != 1:
        return None
    return _num(np.asarray(og[0]).reshape(-1)[0])


def _seed_value(ex, t):
    key = t.keys[0]
    run = ex.run
    if run is None or key not in run.seeds:
        return None
    s = np.asarray(run.seeds[key])
    if s.size == 1:
        return _num(s.reshape(-1)[0])
    return None


def _broadcast_addends(pre, in_shape, element):
    pre = np.asarray(pre)
    in_shape = tuple(in_shape)
    try:
        idx = np.arange(int(np.prod(in_shape))).reshape(in_shape)
        lead = pre.ndim - len(in_shape)
        idx = np.broadcast_to(idx.reshape((1,) * lead + in_shape), pre.shape)
        flat = int(np.ravel_multi_index(tuple(e % n for e, n in zip(element, in_shape)),
                                        in_shape)) if in_shape else 0
        return list(pre[idx == flat])
    except (ValueError, TypeError):
        return None


def _sum_text(ex, head, vals, eq=" = "):
    total = None
    for v in vals:
        if v is None:
            return None
        total = np.asarray(v, np.float64) if total is None else total + v
    if total is None:
        return None
    if 1 < len(vals) <= MAX_SHOWN:
        return f"{head}{eq}" + " + ".join(_fmt(v) for v in vals) + f" = {_fmt(total)}"
    return f"{head}{eq}{_fmt(total)}"


def _who_words(tensor, name, namer):
    """``W is model[0].weight: the weight of model[0], a Linear layer from 4 to 8 features``."""
    full = namer.names.get(id(tensor))
    if full is None or "." not in full:
        return ""
    owner, _dot, attr = full.rpartition(".")
    layer = next((lid for lid, lname in namer.layer_names.items() if lname == owner), None)
    if layer is None:
        return f"{name} is {full}" if full != name else ""
    obj = namer.resolve(owner)
    words = namer.layer_words(obj) if obj is not None else owner
    raw = namer.raw_names.get(id(tensor))
    pic = f" ({raw} in the picture)" if raw and raw != full else ""
    head = f"{name} is {full}{pic}: " if full != name else f"{full}{pic} is "
    return f"{head}the {attr} of {words}"


def _gname(ex, name):
    """The gradient of ``name`` as a student reads it: ``c_grad`` / ``c.grad`` for a name, "the
    gradient reaching (x @ W)" for an expression or a phrase."""
    if re.fullmatch(r"[A-Za-z_][\w.\[\]'\"]*", name):
        if isinstance(ex.words, TorchWords):   # a gradient that flows: grad(c), as the picture
            return f"grad({name})"
        return ex.words.grad_name(name)
    return f"the gradient reaching {name}"


def _batch_words(ex, p, n):
    """"the 32 samples of the batch" inside a Layer call, "the 32 rows" elsewhere."""
    namer = ex.namer
    if namer is not None and (p in namer.layer_in or p in namer.layer_out):
        return f"the {n} samples of the batch"
    return f"the {n} rows"


def _walk_lines(ex, t):
    """One plain sentence per op along a single path whose gradients are whole arrays (a
    matmul or a softmax on it), root first, with what each op passed on; then, for one element
    of a matmul's weight or input, the sum over the batch that gave it."""
    run, namer = ex.run, ex.namer
    if run is None or namer is None or t.kind != "vector" or t.count != 1 or not t.edges:
        return []
    out = []
    keys = t.keys
    for k, (p, i) in enumerate(t.edges):
        src, dst = keys[k], keys[k + 1]
        sname, dname = namer.key(src), namer.key(dst)
        g = _gname(ex, sname) if k == 0 else "it"
        og = run.out_grads.get(p)
        gval = og[src[1]] if og is not None and src[1] < len(og) else None
        sent = next((a for q, j, a in run.arrivals.get(dst, ()) if q is p and j == i), None)
        op = p.op.name if p.op is not None else ""
        xs = [namer.input_name(p, m) for m in range(len(p.in_meta))]
        in_shape = list(p.in_meta[i][0]) if i < len(p.in_meta) else []
        out_shape = list(p.out_meta[src[1]][0]) if src[1] < len(p.out_meta) else []
        n_in = int(np.prod(in_shape)) if in_shape else 1
        n_out = int(np.prod(out_shape)) if out_shape else 1
        dg = _gname(ex, dname)
        expr = _bare(namer.node_name(p, limit=120))
        what = expr if sname.endswith("(...)") else _bare(sname) \
            if sname.startswith("(") or _bare(sname) == expr else f"{sname} = {expr}"
        if op == "mean":
            n = n_in // max(1, n_out)
            of = f"the {n} per-sample losses" if dname.startswith("the per-sample") \
                else f"{n} numbers"
            line = f"{sname} is the mean of {of}: each gets {g} / {n}"
            a = None if sent is None else np.asarray(sent).reshape(-1)
            if a is not None and a.size and np.all(a == a[0]):
                out.append(f"{line} = {_num(a[0])}")
                continue
        elif op == "sum":
            line = f"{sname} is a sum: each of its {n_in // max(1, n_out)} terms gets {g} as it is"
        elif op == "cross_entropy_with_softmax":
            n = _one_over(gval)
            label = xs[1] if len(xs) > 1 and xs[1] not in ("?", "(...)") else "labels"
            if n is not None:
                line = (f"cross_entropy with softmax: {dg} = (softmax({xs[0]}) - "
                        f"one_hot({label})) / {n}, softmax minus one-hot over the batch size "
                        f"{n}, one row per sample")
            else:
                line = (f"cross_entropy with softmax: {dg} = (softmax({xs[0]}) - "
                        f"one_hot({label})) * {g}, row by row")
        elif op in ("add", "subtract"):
            sign = "minus " if op == "subtract" and i == 1 else ""
            line = f"{what}: {g} passes on {sign}unchanged to {dname}"
            if in_shape != out_shape and n_in:
                line += (f", summed over {_batch_words(ex, p, n_out // n_in)} "
                         f"({dname} {in_shape} was broadcast to {out_shape})")
                if ex.element is not None and k == len(t.edges) - 1 and gval is not None:
                    adds = _broadcast_addends(np.asarray(gval) * (-1 if sign else 1),
                                              in_shape, ex.element)
                    if adds is not None and sent is not None:
                        out.append(line + f" = {_fmt(sent)}")
                        line = _addends_line(ex, adds, "sample" if "samples" in line
                                             else "row")
                        out.append(line)
                        continue
        elif op == "matmul":
            line = f"{what}: {dname} gets " + (f"{g} @ {_T(xs[1])}" if i == 0
                                               else f"{_T(xs[0])} @ {g}")
        elif op == "fused_addmm" and len(xs) == 3:
            what = f"{_bare(sname)}" if sname.startswith("(") else \
                f"{sname} = {xs[1]} @ {xs[2]} + {xs[0]}"
            if i == 0:
                line = f"{what}: {g} passes on unchanged to {dname}"
                if in_shape != out_shape and n_in:
                    line += f", summed over {_batch_words(ex, p, n_out // n_in)}"
            else:
                line = f"{what}: {dname} gets " + (f"{g} @ {_T(xs[2])}" if i == 1
                                                   else f"{_T(xs[1])} @ {g}")
        elif op == "transpose":
            line = f"{what}: {dname} gets {g} transposed back"
        elif op in ("reshape", "flatten", "squeeze", "unsqueeze"):
            line = f"{what}: {dname} gets {g} reshaped back to {in_shape}"
        elif op == "pool2d" and i == 0:
            kind = (p.attrs or {}).get("pooling_type", "max")
            line = (f"{kind} pooling: {dname} gets {g} "
                    + ("at the position of each window's maximum, 0 elsewhere" if kind == "max"
                       else "spread evenly over each window"))
        elif op in ("conv2d", "depthwise_conv2d"):
            line = (f"{what}: " + (f"{dname} gets {g} sent back through the kernel "
                                   f"{xs[1]} (a transposed convolution)" if i == 0 else
                                   f"each weight of {dname} gets the sum, over every position "
                                   f"it was applied at, of the input there times {g}"))
        elif op == "fused_nll_loss":
            red = (p.attrs or {}).get("reduction", "mean")
            n = in_shape[0] if in_shape else 1
            line = (f"{sname} = nll_loss: " + (f"the mean over the {n} samples" if red == "mean"
                                               else "the sum over the samples")
                    + f" of minus each sample's log-probability at its label: {dg} is "
                    + (f"-{g} / {n}" if red == "mean" else f"-{g}")
                    + " at each sample's label and 0 elsewhere")
        elif op == "log_softmax":
            line = (f"{what}: {dg} = {g} - softmax({xs[0]}) * (the sum of {g} over the row)")
            prev = t.edges[k - 1][0] if k else None
            if prev is not None and prev.op is not None and prev.op.name == "fused_nll_loss" \
                    and (prev.attrs or {}).get("reduction", "mean") == "mean":
                n = in_shape[0] if in_shape else 1
                line = (f"log_softmax with the nll_loss before it (together cross_entropy): "
                        f"{dg} = (softmax({xs[0]}) - one_hot(labels)) / {n}, softmax minus "
                        f"one-hot over the batch size {n}, one row per sample")
        elif op == "relu":
            line = f"relu passes {g} on where {xs[0]} > 0 and sends 0 elsewhere"
        else:
            rule = edge_rule(p, i, namer) if p.op is not None else None
            if rule is not None:
                line = f"{what}: {dname} gets {g} times its local derivative {rule.symbol}"
            else:
                line = f"{ex.words.node_label(p)} took {g} and sent {dg}"
        if sent is not None:
            line += f" = {_fmt_each(sent)}"
        out.append(line)
    extra = _matmul_element_sum(ex, t)
    if extra:
        out += extra
    return out


def _addends_line(ex, adds, what):
    """``so b.grad[2] = 0.0153 + 0.0186 + ... = 0.0554 (the other 20 samples sent 0)``."""
    nz = [x for x in adds if x != 0]
    shown = [_num(x) for x in (nz if len(adds) > 6 else adds)]
    body = " + ".join(shown if len(shown) <= 6 else shown[:4] + ["..."] + shown[-1:]) or "0"
    total = float(np.sum(np.asarray(adds, np.float64)))
    tail = f" (the other {len(adds) - len(nz)} {what}s sent 0)" \
        if len(adds) > 6 and len(nz) < len(adds) else ""
    return f"so {ex.name} = {body} = {_num(total)}, one term per {what}{tail}"


def _T(name):
    """``W`` for ``W.T``'s transpose, else ``(name).T``."""
    return name[:-2] if name.endswith(".T") else f"{_paren(name)}.T"


def _paren(name):
    return f"({name})" if " " in name and not name.startswith("(") else name


def _fmt_each(a):
    """A gradient: ``0.03125 for each of the 32`` when every element is the same, else _fmt."""
    a = np.asarray(a)
    if a.size > 1 and np.all(a == a.reshape(-1)[0]):
        return f"{_num(a.reshape(-1)[0])} for each of the {a.size} (shape {list(a.shape)})"
    return _fmt(a)


def _one_over(gval):
    """n where every element of ``gval`` is 1/n (the mean over a batch of n), else None."""
    if gval is None:
        return None
    a = np.asarray(gval, np.float64).reshape(-1)
    if not a.size or not np.all(a == a[0]) or a[0] <= 0:
        return None
    n = 1.0 / a[0]
    return int(round(n)) if abs(n - round(n)) < 1e-3 * max(1.0, n) and round(n) > 1 else None


def _matmul_element_sum(ex, t):
    """W.grad[i, j] = x[0, i] * g[0, j] + x[1, i] * g[1, j] + ..., summed over the samples."""
    if ex.element is None or len(ex.element) != 2 or not t.edges:
        return []
    p, i = t.edges[-1]
    keys = t.keys
    flip = False
    if p.op is not None and p.op.name == "transpose" and len(t.edges) >= 2 \
            and tuple((p.attrs or {}).get("perm", ())) == (1, 0):
        flip = True                      # torch's Linear: addmm(b, x, W.T), W.grad = (..).T
        p, i = t.edges[-2]
        keys = keys[:-1]
    if p.op is None or p.op.name not in ("matmul", "fused_addmm") or \
            (p.attrs or {}).get("transpose_x") or (p.attrs or {}).get("transpose_y"):
        return []
    first = 1 if p.op.name == "fused_addmm" else 0   # addmm's inputs: bias, mat1, mat2
    if len(p.in_meta) != first + 2 or i < first:
        return []
    i -= first
    og = ex.run.out_grads.get(p)
    g = og[0] if og is not None else None
    kept = ex.run.in_vals.get(p) or [None] * (first + 2)
    x0 = kept[first] if kept[first] is not None else _input_data(p, first)
    x1 = kept[first + 1] if kept[first + 1] is not None else _input_data(p, first + 1)
    if g is None or x0 is None or x1 is None or np.ndim(g) != 2 or np.ndim(x0) != 2 \
            or np.ndim(x1) != 2:
        return []
    namer = ex.namer
    src = namer.key(keys[-2])
    gn = "g"
    r, c = ex.element
    if flip:
        r, c = c, r
    if i == 1:   # W.grad[r, c] = sum_s x[s, r] * g[s, c]
        xn = namer.input_name(p, first)
        a, b = np.asarray(x0)[:, r], np.asarray(g)[:, c]
        head = (f"so {ex.name} = {_paren(xn)}[s, {r}] * {gn}[s, {c}] summed over "
                + _batch_words(ex, p, len(a)).replace(" of the", " s of the", 1)
                .replace(" rows", " rows s"))
    else:        # x.grad[r, c] = sum_k g[r, k] * W[c, k]
        wn = namer.input_name(p, first + 1)
        a, b = np.asarray(g)[r, :], np.asarray(x1)[c, :]
        head = (f"so {ex.name} = {gn}[{r}, k] * {wn[:-2]}[k, {c}] summed over the {len(a)} "
                f"rows k of {wn[:-2]}" if wn.endswith(".T") else
                f"so {ex.name} = {gn}[{r}, k] * {_paren(wn)}[{c}, k] summed over the {len(a)} "
                f"columns k of {wn}")
    head += f", g being {_gname(ex, src)}:"
    pairs = [(u, v) for u, v in zip(a, b)]
    nonzero = [(u, v) for u, v in pairs if u * v != 0]
    total = float(np.dot(np.asarray(a, np.float64), np.asarray(b, np.float64)))
    show = nonzero if len(pairs) > 6 and len(nonzero) < len(pairs) else pairs
    prods = [f"{_num(u)} * {_num(v)}" for u, v in show]
    shown = prods if len(prods) <= 6 else prods[:4] + ["..."] + prods[-1:]
    body = " + ".join(shown) if shown else "0"
    tail = ""
    if show is nonzero:
        zero = len(pairs) - len(nonzero)
        tail = (f" (the other {zero} products are 0" + (": relu sent 0 there)" if any(
            q.op is not None and q.op.name == "relu" for q, _j in t.edges) else ")"))
    return [head, f"  {body} = {_num(total)}{tail}"]


def render_text(ex: Explanation) -> str:
    """The explanation in plain sentences, with the numbers."""
    w = ex.words
    head = ex.name
    if ex.status == "unrecorded" and ex.engine is not None:  # a value, but not how it came
        return "\n".join([f"{head} = {_fmt(ex.value_of(ex.engine))}"] + ex.notes) + "\n"
    if ex.status in ("stops", "unrecorded") or (ex.status == "none" and ex.engine is None):
        return "\n".join([f"{head} is None"] + ex.notes) + "\n"
    shown = ex.value_of(ex.engine)
    lines = [f"{head} = {_fmt(shown)}" if shown is not None else f"{head} is None"]
    if ex.who:
        lines.append(ex.who)
    lines += ex.notes
    if ex.status == "none":
        return "\n".join(lines) + "\n"
    run = ex.run
    all_terms = ex.before_change or ex.terms
    earlier = [t for t in all_terms if t.kind == "earlier"]
    last = [t for t in all_terms if t.kind != "earlier"]
    indent = "  "
    if earlier:
        for t in earlier:
            lines.append(indent + _term_line(ex, t))
    if run is not None and last:
        terms_src = ex.arrived_terms or last
        n_paths = sum(t.count for t in terms_src)
        roots = ", ".join(dict.fromkeys(ex.root_names)) or "its root"
        seeds = [np.asarray(v) for v in run.seeds.values() if v is not None]
        seed_words = ""
        if seeds and all(s.size == 1 for s in seeds):
            seed_words = (" (its gradient set to "
                          + ", ".join(_num(s.reshape(-1)[0]) for s in seeds) + ")")
        elif seeds and all(np.all(s == 1) for s in seeds):
            seed_words = " (its gradient set to ones)"
        elif seeds:
            seed_words = " (with the given gradient " + ", ".join(_fmt(s) for s in seeds) + ")"
        target = head.split(".grad")[0]
        where = "the last backward()" if not earlier else f"backward() #{len(earlier) + 1}"
        if any(t.note == "what .grad held before" for t in earlier):
            where = "the last backward()"
        lines.append(f"{'  ' if earlier else ''}{where} started from {roots}{seed_words} and "
                     f"reached {target} along {n_paths} path{'s' if n_paths != 1 else ''}"
                     + (":" if earlier else "."))
        if earlier:
            indent = "    "
        elif ex.status == "grouped":
            lines.append(f"more than {MAX_PATHS} paths: they are grouped by their last edge "
                         "(each line is what one op's backward sent along it)")
        elif n_paths == 1:
            lines.append("by the chain rule, a path contributes the product of the local "
                         "derivatives along it:")
        else:
            lines.append("by the chain rule, each path contributes the product of the local "
                         "derivatives along it, and the paths add up:")
        walks = {id(t): _walk_lines(ex, t) for t in terms_src[:2]} \
            if len(terms_src) <= 2 and ex.status != "grouped" else {}
        if any(t.kind == "vector" for t in terms_src) and ex.status != "grouped":
            lines.append("(a matmul or a softmax mixes the elements of its input, so no single "
                         "number per element stands for it: there the whole gradient its "
                         f"{w.node_word} passed on is shown, which Paddle and torch call a "
                         "vector-Jacobian product)")
        for t in terms_src[:MAX_SHOWN]:
            walk = walks.get(id(t))
            if walk:
                lines.append(indent + _path_text(t) + ", step by step from "
                             + t.path[0] + ":")
                lines += [indent + "  " + x for x in walk]
                continue
            lines.append(indent + _term_line(ex, t))
        if len(terms_src) > MAX_SHOWN:
            lines.append(f"{indent}... and {len(terms_src) - MAX_SHOWN} more (only "
                         f"{MAX_SHOWN} lines are shown)")
        if earlier and len(last) > 1 and not ex.arrived_terms:
            part = _sum_text(ex, f"{indent}backward() #{len(earlier) + 1} added",
                             [ex.value_of(t.value) for t in last], eq=" ")
            if part:
                lines.append(part)
        if ex.arrived_terms:
            lines.append(indent + _term_line(ex, last[0]))
    elif last:
        for t in last[:MAX_SHOWN]:
            lines.append(indent + _term_line(ex, t))
    if earlier and not ex.arrived_terms:
        vals = [ex.value_of(t.value) for t in earlier]
        vals.append(_sum_values([ex.value_of(t.value) for t in last]))
    else:
        vals = [ex.value_of(t.value) for t in all_terms]
    text = _sum_text(ex, head if not ex.before_change else "the backward runs left "
                     + head, vals)
    if text:
        lines.append(text)
    lines += ex.after
    return "\n".join(lines) + "\n"


def _sum_values(vals):
    total = None
    for v in vals:
        if v is None:
            return None
        total = np.asarray(v, np.float64) if total is None else total + v
    return total


# ---------------------------------------------------------------------------- NAME parsing
def parse_target(text):
    """``a``, ``a.grad``, ``a.grad[1, 2]``, ``model.fc.weight.grad[0]`` -> (name, element)."""
    import re

    s = text.strip()
    m = re.fullmatch(r"(.+?)(?:\.grad)?\s*(?:\[([^\]]*)\])?", s)
    if not m:
        raise ValueError(f"cannot read {text!r}: write NAME, NAME.grad or NAME.grad[i, j]")
    name, idx = m.group(1).strip(), m.group(2)
    element = None
    if idx is not None:
        try:
            element = tuple(int(x) for x in idx.replace(" ", "").split(",") if x != "")
        except ValueError:
            raise ValueError(f"cannot read the index [{idx}]: write whole numbers, "
                             "NAME.grad[i, j]") from None
    return name, element


def lookup(namespace, name):
    """The tensor called ``name`` in ``namespace``: a variable, its attributes and items as the
    script writes them (``model.fc.weight``, ``model[0].weight``, ``params['w']``, ``xs[-1]``,
    and Paddle's ``model.0.weight``). Nothing is called: only names, attributes and constant
    indexes are read."""
    from ..engine.tensor import Tensor

    value = _evaluate(namespace, name)
    if not isinstance(value, Tensor):
        raise KeyError(f"{name!r} is a {type(value).__name__}, not a tensor")
    return value


def resolve_target(namespace, text):
    """``NAME``, ``NAME.grad``, ``NAME.grad[i, j]`` -> (tensor, name, element); ``model[0]``
    (no ``.grad``) names the item, not an element, when ``model`` is no tensor."""
    from ..engine.tensor import Tensor

    name, element = parse_target(text)
    if element is not None and ".grad" not in text:
        head = _evaluate(namespace, name)
        if not isinstance(head, Tensor):
            name, element = text.strip(), None
    return lookup(namespace, name), name, element


def _evaluate(namespace, name):
    """What ``name`` reads in ``namespace`` (names, attributes, constant indexes only)."""
    import ast

    from ..engine.tensor import Tensor

    text = student_name(name.strip())  # model.0.weight
    try:
        tree = ast.parse(text, mode="eval").body
    except SyntaxError:
        raise KeyError(f"cannot read {name!r}: write a variable, its attributes and indexes "
                       "(model[0].weight)") from None

    def tensors_hint():
        tensors = [k for k, v in namespace.items() if isinstance(v, Tensor)
                   and not str(k).startswith("_")]
        return f" (its tensors: {', '.join(tensors)})" if tensors else ""

    def ev(node):
        if isinstance(node, ast.Name):
            if node.id not in namespace:
                raise KeyError(f"no variable named {node.id!r}{tensors_hint()}")
            return namespace[node.id]
        if isinstance(node, ast.Attribute):
            base = ev(node.value)
            try:
                return getattr(base, node.attr)
            except Exception:  # noqa: BLE001 - any failing attribute: one line for the user
                raise KeyError(f"{name!r}: {ast.unparse(node.value)} has no attribute "
                               f"{node.attr!r}") from None
        if isinstance(node, ast.Subscript):
            base = ev(node.value)
            idx = node.slice
            try:
                key = ast.literal_eval(idx)
            except ValueError:
                raise KeyError(f"{name!r}: write a number or a quoted name inside the "
                               "brackets") from None
            if isinstance(base, Tensor):
                raise KeyError(f"{name!r}: an element of a tensor is asked for with .grad"
                               f"[...], as {ast.unparse(node.value)}.grad[...]")
            try:
                return base[key]
            except Exception:  # noqa: BLE001
                raise KeyError(f"{name!r}: {ast.unparse(node.value)} has no item "
                               f"{key!r}") from None
        raise KeyError(f"cannot read {name!r}: write a variable, its attributes and indexes "
                       "(model[0].weight)")

    return ev(tree)


__all__ = ["why", "recording", "WhyLog", "Explanation", "Term", "parse_target", "lookup",
           "resolve_target", "student_name",
           "render_text", "LOG"]


# ---------------------------------------------------------------------------- gradrepl why
def picture_dot(ex: Explanation, tensor, namespace=None, recorder=None, view="both",
                steps_log=None, tape=None) -> str:
    """DOT of the graph the explained backward ran on, with the paths drawn thick;
    ``steps_log``: a ``steps.BackwardLog`` that saw that backward (the gradients that flowed
    and the values it let go of are shown); ``tape``: a ``teach.numeric.Tape`` that saw the
    run (``why --numeric``: the tensor's gradient box gets the numeric check)."""
    from .dot import to_dot
    from .model import build

    roots = []
    if ex.run is not None:
        roots = [r() for r in ex.run.roots]
        roots = [r for r in roots if r is not None]
    targets = roots or [tensor]
    if tensor.grad_node is not None and not tensor.stop_gradient and not roots:
        targets = [tensor]
    g = build(targets, namespace=namespace, recorder=recorder)
    if steps_log is not None and roots:
        from .steps import fill_flows, logged_run_of

        logged = logged_run_of(steps_log, roots[0])
        if logged is not None:
            fill_flows(g, logged, steps_log.runs)
    if tape is not None:
        from .numeric import annotate_model

        annotate_model(g, tape, namespace, Namer(namespace), only=[tensor])
    return to_dot(g, view=view, highlight=ex.highlight(g),
                  title=f"why {ex.name}: its paths in orange")


def write_picture(ex, tensor, output, namespace=None, recorder=None, steps_log=None,
                  tape=None) -> str:
    """Write the highlighted picture to ``output`` (.svg .png .pdf .dot); returns its path."""
    from pathlib import Path

    from . import render

    ext = Path(output).suffix.lower()
    if ext not in (".svg", ".png", ".pdf", ".dot"):
        raise ValueError(f"unknown extension {ext or '(none)'!r} for -o {output}: use one of "
                         ".svg, .png, .pdf, .dot")
    source = picture_dot(ex, tensor, namespace, recorder, steps_log=steps_log, tape=tape)
    data = source if ext == ".dot" else getattr(render, ext[1:])(source)
    render.write_atomic(output, data)
    return str(output)


class WhyError(Exception):
    """A bad argument or a failed script: one line for the user, exit status 2."""


def why_command(script, target, output=None, paddle=None, numeric=False
                ) -> tuple[str, str | None]:
    """What ``gradrepl why SCRIPT NAME`` does: (text for stdout, message for stderr);
    ``numeric``: central differences beside autograd for the tensor (a leaf), in the text and
    in the picture's gradient box."""
    import contextlib
    import os

    from .capture import run_for_pictures
    from .capture import describe_error as _describe_error

    if not os.path.isfile(script):
        raise WhyError(f"no such file: {script}")
    try:
        name, element = parse_target(target)
    except ValueError as exc:
        raise WhyError(str(exc)) from None
    if paddle:
        from ..paddle import profiles

        try:
            profiles.resolve(paddle)
        except ValueError as exc:
            raise WhyError(str(exc)) from None
    steps_log = None
    if output is not None:   # (the picture shows the gradients that flowed, as graph --chain)
        from .steps import BackwardLog

        steps_log = BackwardLog()
    log = WhyLog(forward=steps_log)
    tape, taped = None, contextlib.nullcontext()
    if numeric:   # (the ops recorded, to run the forward again with the leaf nudged)
        from ..teach import numeric as _numeric

        tape = _numeric.Tape()
        taped = _numeric.recording(tape)
    try:
        with taped, recording(log):
            run = run_for_pictures(script, profile=paddle)
    except SyntaxError as exc:
        raise WhyError(f"{script} line {exc.lineno}: SyntaxError: {exc.msg}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise WhyError(f"cannot read {script}: {exc}") from None
    except ValueError as exc:
        raise WhyError(str(exc)) from None
    if run.error is not None:
        raise WhyError(_describe_error(run.error, script))
    try:
        tensor, name, element = resolve_target(run.namespace, target)
        ex = why(tensor, namespace=run.namespace, element=element, log=log, name=name,
                 recorder=run.recorder)
    except (KeyError, IndexError) as exc:
        raise WhyError(str(exc.args[0]) if exc.args else str(exc)) from None
    message = None
    if output is not None:
        from . import render

        try:
            message = "wrote " + write_picture(ex, tensor, output, run.namespace, run.recorder,
                                               steps_log, tape=tape)
        except ValueError as exc:
            raise WhyError(str(exc)) from None
        except render.RenderError as exc:
            raise WhyError(str(exc)) from None
        except OSError as exc:
            raise WhyError(f"cannot write {output}: {exc}") from None
    if tape is not None:
        return ex.text() + numeric_text(tape, tensor, run.namespace, name), message
    return ex.text(), message


def numeric_text(tape, tensor, namespace, name) -> str:
    """``why --numeric``'s paragraph: the tensor's gradient checked by central differences
    (``teach.numeric``, as ``gradrepl gradcheck`` says it)."""
    from ..teach import numeric as _numeric

    if not tensor.is_leaf:
        return (f"\nnumerically: {name} is not a leaf; the check nudges leaves (the tensors the "
                "forward pass started from): ask for one of them\n")
    checks = [c for c in _numeric.check_leaves(tape, namespace, only=[tensor])
              if c.what == "grad"]
    if not checks:
        return f"\nnumerically: no recorded backward wrote {name}.grad\n"
    return "\nnumerically (central differences beside autograd):\n" + \
        "".join(_numeric.describe(c) for c in checks)
