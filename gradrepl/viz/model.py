"""The picture model: what the engine built, as plain data (no Graphviz, no printing).

Built from live tensors and the engine's nodes, never by re-running anything:

- ``TensorInfo``: a forward tensor, as the guide draws it: name, shape, dtype, a value preview,
  ``stop_gradient``, and ``grad_var`` (the id of its gradient variable, None if it stops
  gradient);
- ``OpInfo``: a forward op, with the source statement that made it where known (``c = a * b``)
  and the Layer calls it ran inside;
- ``GradVarInfo``: a gradient variable (``a_grad``): its data once computed (else None) and its
  ``grad_op``;
- ``BackwardInfo``: a backward op (``MulBackward`` / ``MultiplyGradNode``, per profile) with its
  ``input``, ``output`` and ``grad_pending_ops``, whether its saved tensors were released, and the
  derivative order it belongs to; the leaves' accumulation nodes where the profile has them.

Ids are given in a deterministic walk from the target (inputs before outputs, in input order),
never from ``id()``, so the same script gives the same model and the same DOT on every run.

``Graph.to_dict()`` is the JSON form (``gradrepl graph ... -o model.json``); its fields are the
dataclass fields below, documented on each.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields

import numpy as np

from ..engine.node import AccumulateNode, GradNode
from . import heatmap as _heatmap
from .fmt import _INF, _fmt_float, fmt_number  # noqa: F401  (model.fmt_number: one value, short)

VIEWS = ("forward", "backward", "both")


@dataclass(slots=True)
class TensorInfo:
    id: str                      # "t0", "t1", ... in walk order
    name: str                    # the user's variable name, else Paddle's name, else tmp_N
    shape: list
    dtype: str
    preview: str | None          # a few values ("2.", "[1., 2., 3., ...]"); None once freed
    stop_gradient: bool
    is_leaf: bool
    grad_var: str | None         # id of the gradient variable ("g0"), None if it stops gradient
    op: str | None = None        # id of the forward op that made it (None for a leaf)
    parameter: bool = False      # a Layer's parameter
    live: bool = True            # the tensor object still exists (else known from the node only)
    label: str | None = None     # the statement that made a leaf (``a = paddle.to_tensor(2.0)``)
    cut: bool = False            # made by an op that a cut (--depth, --to) left out
    unnamed: bool = False        # no variable or Paddle name: its name is made up (tmp_N)


@dataclass(slots=True)
class OpInfo:
    id: str                      # "f0", ...
    op: str                      # the engine/Paddle op name: "multiply"
    title: str                   # as the profile shows it: "Mul" (2.2 guide) or "multiply"
    label: str | None            # the source statement that made it, where known
    inputs: list                 # tensor ids (input order)
    outputs: list                # tensor ids (output order)
    backward: str                # id of its backward op ("b0")
    layers: list = field(default_factory=list)  # Layer calls it ran inside, outermost first
    order: int = 0               # derivative order: 0 forward, 1 made by a first create_graph ...
    calls: list = field(default_factory=list)  # ids of those calls ("L0"), outermost first:
    #                                           two calls of one Layer have two ids


@dataclass(slots=True)
class GradVarInfo:
    id: str                      # "g0", ...
    name: str                    # "a_grad"
    tensor: str                  # id of its forward tensor
    shape: list
    dtype: str
    data: str | None             # what the tensor's ``.grad`` holds (a preview), else None
    grad_op: str | None          # the backward op that takes it as input (None for a leaf)
    kept: bool = True            # the framework keeps it as ``.grad`` (a leaf, a retained
    #                              non-leaf, Paddle 2.2's non-leaves); else it only flows
    flow: str | None = None      # the gradient that reached it in the backward shown (summed
    #                              over its paths; in a step frame: so far), where known


@dataclass(slots=True)
class BackwardInfo:
    id: str                      # "b0", ...
    name: str                    # "MulBackward" (2.2) / "MultiplyGradNode" / "GradNodeAccumulation"
    kind: str                    # "op" | "accumulate"
    op: str | None               # forward op name ("multiply"), None for accumulation
    forward: str | None          # id of the forward op it differentiates
    inputs: list                 # saved forward inputs (tensor ids) then out grads (grad var ids)
    outputs: list                # grad var ids per forward input, None where it stops gradient
    grad_pending_ops: list       # ids of the backward ops its outputs flow to
    released: bool = False       # its saved tensors were freed (backward without retain_graph)
    order: int = 0               # derivative order (see OpInfo)
    deps: int | None = None      # step-through: dependencies still outstanding
    state: str | None = None     # step-through: "ready" | "running" | "done" | None
    chain: list = field(default_factory=list)  # chain-rule lines ("a_grad = c_grad * b = ...")
    title: str | None = None     # as pictures, text and narration show it: the name, numbered
    #                              where several backward ops share it ("MulBackward #2")


@dataclass
class Graph:
    profile: str                 # "2.2" | "2.6" | "3"
    targets: list                # tensor ids the picture was asked for
    tensors: list
    ops: list
    grad_vars: list
    backward_ops: list
    clusters: list = field(default_factory=list)  # [{id, name, ops: [...]}] Layer calls
    step: dict | None = None     # step-through frame: {index, total, event, ready: [ids]}
    groups: list = field(default_factory=list)  # Layer calls drawn as one box (--layers N):
    #   [{id (the box's op), name, ops: {title: count}, params: [[name, shape, dtype]], ...}]

    def to_dict(self) -> dict:
        return asdict(self)

    def __deepcopy__(self, memo):
        """A copy of the data; the engine handles (``_builder``, ``_id_map``) are shared."""
        import copy

        new = Graph(*(copy.deepcopy(getattr(self, f.name), memo) for f in fields(self)))
        for extra in ("_builder", "_id_map", "numeric"):   # (numeric: viz/numeric.py's rows)
            if hasattr(self, extra):
                setattr(new, extra, getattr(self, extra))
        return new

    # -- lookups ----------------------------------------------------------------------
    def by_id(self):
        out = {}
        for group in (self.tensors, self.ops, self.grad_vars, self.backward_ops):
            for x in group:
                out[x.id] = x
        return out

    def tensor_named(self, name):
        for t in self.tensors:
            if t.name == name:
                return t
        return None


_DTYPE_STR: dict = {}


def _dtype_str(dtype) -> str:
    s = _DTYPE_STR.get(dtype)
    if s is None:
        s = _DTYPE_STR[dtype] = str(dtype)
    return s


# ---------------------------------------------------------------------------- previews


def made_up_name(n: int, taken) -> tuple:
    """(the name of an unnamed tensor, the next n): ``tmp_<n>``, or the next number whose name
    no variable in ``taken`` has (a user's ``tmp_3`` and the picture's are not confused)."""
    name = f"tmp_{n}"
    while name in taken:
        n += 1
        name = f"tmp_{n}"
    return name, n + 1


PREVIEW_ITEMS = 12   # arrays of at most this many elements are shown whole (``--values N``)
CUT_ITEMS = 4        # the first elements shown of a larger one


def preview_items(n=None):
    """Set how many elements an array may have to be shown whole (None: the default, 12);
    returns the previous setting. ``gradrepl graph --values N``."""
    global PREVIEW_ITEMS
    old = PREVIEW_ITEMS
    PREVIEW_ITEMS = 12 if n is None else max(1, int(n))
    return old


def _shape_note(shape) -> str:
    return " (" + "x".join(str(s) for s in shape) + ")"


def _nested(a) -> str:
    if a.ndim == 1:
        return "[" + ", ".join(fmt_number(v) for v in a.tolist()) + "]"
    return "[" + ", ".join(_nested(x) for x in a) + "]"


def preview(arr, max_items: int | None = None) -> str:
    """An array's values: ``2.`` for one element; whole when it has at most ``max_items``
    (default ``PREVIEW_ITEMS``) elements, nested by rows with its shape after it
    (``[[10., 20., 30.], [10., 20., 30.]] (2x3)``); else its first elements, flat
    (``[1., 2., 3., 4., ...]``), with the shape of a matrix or more."""
    if arr is None:
        return None
    a = arr if type(arr) is np.ndarray else np.asarray(arr)
    n = a.size
    if n == 1:
        v = a.item() if a.dtype.kind == "f" else a.reshape(-1)[0]
        return _fmt_float(v) if type(v) is float else fmt_number(v)  # (the float: fast)
    if n == 0:
        return "[]"
    limit = PREVIEW_ITEMS if max_items is None else max_items
    if n <= limit:
        if a.ndim <= 1:
            flat = a.reshape(-1)
            if a.dtype.kind in "fiub":
                return "[" + ", ".join(fmt_number(v) for v in flat.tolist()) + "]"
            return "[" + ", ".join(fmt_number(flat[i]) for i in range(n)) + "]"
        if a.dtype.kind in "fiub":
            return _nested(a) + _shape_note(a.shape)
    cut = min(CUT_ITEMS, limit)
    flat = a.reshape(-1)
    if a.dtype.kind in "fiub":  # Python numbers print alike, and faster
        items = [fmt_number(v) for v in flat[:cut].tolist()]
    else:
        items = [fmt_number(flat[i]) for i in range(min(n, cut))]
    if n > cut:
        items.append("...")
    text = "[" + ", ".join(items) + "]" + (_shape_note(a.shape) if a.ndim >= 2 else "")
    if _heatmap.ON and n > limit:   # (--heatmap: the picture draws it as a grid of cells)
        return _heatmap.attach(text, a)
    return text


# ---------------------------------------------------------------------------- dialect words
# the words pictures, text and narration use for the engine's parts, per dialect
WORDS = {
    "paddle": {
        "engine": "Paddle",
        "pending": "grad_pending_ops",       # a backward op's edges to the ops its outputs feed
        "grad_op": "grad_op",                # a gradient variable's consumer
        "grad_var": "grad_var",              # a tensor's gradient variable
        "count": "PrepareDeps",              # counting the dependencies before the run
        "grad_call": "paddle.grad",
        "flag": lambda stop: f"stop_gradient = {stop}",
        "flag_short": lambda stop: "stop_gradient" if stop else None,
        "flow": lambda name: name + "_grad",  # the gradient that flows to tensor ``name``
    },
    "torch": {
        "engine": "torch",
        "pending": "next_functions",
        "grad_op": "grad_fn",
        "grad_var": "grad",
        "count": "compute_dependencies",
        "grad_call": "torch.autograd.grad",
        "flag": lambda stop: f"requires_grad={not stop}",
        "flag_short": lambda stop: f"requires_grad={not stop}",
        # torch's .grad is an attribute kept only on leaves (and retain_grad()): the gradient
        # that flows is written grad(c), as torch.autograd.grad(e, c) would return it
        "flow": lambda name: f"grad({name})",
    },
}


def words(profile) -> dict:
    """The dialect's words for a graph of ``profile`` ("torch", else Paddle's)."""
    return WORDS["torch" if profile == "torch" else "paddle"]


def flow_name(gv, by_id, profile) -> str:
    """The name of the gradient that flows to ``gv``'s tensor (along the edges, into the
    backward ops): Paddle's gradient variable ``c_grad``; torch's ``grad(c)``, never
    ``c.grad``, which torch keeps only on leaves and retained tensors."""
    if profile != "torch":
        return gv.name
    t = by_id.get(gv.tensor)
    base = t.name if t is not None else gv.name.removesuffix(".grad")
    return WORDS["torch"]["flow"](base)


# ---------------------------------------------------------------------------- dialect names
class Dialect:
    """How the emulated framework names things. Paddle's, per profile; the torch dialect will
    give its own (MulBackward0, AccumulateGrad)."""

    key = "2.2"
    retain_nonleaf = True       # a non-leaf's .grad is kept after backward (Paddle 2.2)
    retain_attr = "_retain"     # the tensor's flag of retain_grads() / retain_grad()
    accumulation_nodes = False  # draw the leaves' accumulation nodes (eager Paddle has them)
    accumulation_name = "GradNodeAccumulation"  # what a leaf's accumulation node is called

    def grad_var_name(self, name: str) -> str:
        """The gradient variable of tensor ``name``: the guide's ``a_grad``."""
        return name + "_grad"

    def backward_name(self, node) -> str:
        if node.op is None:
            return "GradNodeAccumulation"
        return node.op.legacy_name or node.op.backward_name

    def op_title(self, op) -> str:
        return op.name

    def tensor_name(self, t):
        return getattr(t, "_param_name", None) or t._name


class PaddleDialect(Dialect):
    def __init__(self):
        from ..paddle import profiles

        p = profiles.current()
        self._names = {}
        self.key = p.key
        self.legacy = p.node_names == "legacy"
        self.accumulation_nodes = not self.legacy
        self.retain_nonleaf = bool(p.retain_nonleaf_grads)

    def backward_name(self, node) -> str:
        """As ``tensor.grad_fn.name()`` says it under the current profile (cached per op,
        but a PyLayer's name depends on its class)."""
        op = node.op
        if op is None:
            return "GradNodeAccumulation"
        cache = self._names
        name = cache.get(op)
        if name is None:
            from ..paddle.core import GradNodeBase

            name = GradNodeBase(node).name()
            if op.name != "py_layer":
                cache[op] = name
        return name

    def op_title(self, op) -> str:
        """The guide's forward op names (``Mul``) under 2.2; Paddle's op names after."""
        if self.legacy and op.legacy_name:
            return op.legacy_name[:-len("Backward")] if op.legacy_name.endswith("Backward") \
                else op.legacy_name
        return op.name


class TorchDialect(Dialect):
    """torch's names: ``MulBackward0``, the leaves' ``AccumulateGrad``, gradients ``x.grad``."""

    key = "torch"
    retain_nonleaf = False
    retain_attr = "_retains"    # (the torch dialect's retain_grad() flag)
    accumulation_nodes = True
    accumulation_name = "AccumulateGrad"

    def grad_var_name(self, name: str) -> str:
        return name + ".grad"

    def backward_name(self, node) -> str:
        from ..torch.autograd.graph import node_name

        return node_name(node)

    def op_title(self, op) -> str:
        """The forward op as torch's node names it without ``Backward0``: ``Mul``."""
        import re

        name = getattr(op, "torch_name", None)
        if name is None:
            from ..torch.autograd.graph import FALLBACK

            name = FALLBACK.get(op.name)
        return re.sub(r"Backward\d*$", "", name) if name else op.name


def dialect_for(tensor) -> Dialect:
    mod = type(tensor).__module__
    if mod.startswith("gradrepl.paddle"):
        return PaddleDialect()
    if mod.startswith("gradrepl.torch") or mod == "torch":  # (torch.Tensor names itself torch)
        return TorchDialect()
    return Dialect()


# ---------------------------------------------------------------------------- names
def _ipython_history() -> set:
    """The ids of IPython's ``In`` and ``Out`` when running under IPython: a notebook's
    ``globals()`` holds every echoed tensor as ``Out[N]`` too, which is never its name."""
    import sys

    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    hist = getattr(shell, "history_manager", None)
    if hist is None:
        return set()
    return {id(h) for h in (getattr(hist, "output_hist", None),
                            getattr(hist, "input_hist_parsed", None)) if h is not None}


def names_from_namespace(namespace) -> dict:
    """``id(tensor) -> name`` from a script's globals or the shell's namespace.

    Tensors bound to a name, parameters of Layers bound to a name (``model.fc1.weight``), and
    tensors one level inside lists, tuples and dicts (``xs[0]``). The first binding wins, in
    the namespace's order (assignment order), so names are deterministic.
    """
    from ..engine.tensor import Tensor

    names: dict = {}
    layers: dict = {}
    if not namespace:
        return {"tensors": names, "layers": layers}
    history = _ipython_history()
    for key, value in list(namespace.items()):
        if not isinstance(key, str) or key.startswith("_") or id(value) in history:
            continue
        if isinstance(value, Tensor):
            names.setdefault(id(value), key)
        elif isinstance(value, (list, tuple)) and len(value) <= 64:
            for i, v in enumerate(value):
                if isinstance(v, Tensor):
                    names.setdefault(id(v), f"{key}[{i}]")
        elif isinstance(value, dict) and len(value) <= 64:
            for k, v in value.items():
                if isinstance(v, Tensor):
                    names.setdefault(id(v), f"{key}[{k!r}]")
        elif hasattr(value, "named_sublayers") and hasattr(value, "named_parameters") \
                and not isinstance(value, type):
            try:
                layers.setdefault(id(value), key)
                for sub_name, sub in value.named_sublayers():
                    layers.setdefault(id(sub), f"{key}.{sub_name}")
                for pname, p in value.named_parameters():
                    names.setdefault(id(p), f"{key}.{pname}")
            except Exception:  # noqa: BLE001 - a half-built user Layer: no names from it
                pass
    # grad tensors read into names keep their own names; the guide names grad vars x_grad
    return {"tensors": names, "layers": layers}


# ---------------------------------------------------------------------------- the walk
def _n_inputs(node):
    """How many forward inputs ``node`` keeps records of (its saved inputs, or their refs)."""
    held = node.inputs if node.inputs is not None else getattr(node, "input_refs", None)
    return len(held) if held is not None else len(node.next_edges)


def _meta(node, i):
    return node.in_meta[i] if i < len(node.in_meta) else None


class _Builder:
    """One walk of the engine's nodes into the records above.

    Speed (benchmarks/graph_dot.py: a chain of 2,000 ops, four records an op): each op's
    records are made where the walk reaches it (its backward op's outputs and the output of a
    one-output op included, so ``finish`` only sees multi-output ops, leaves' accumulation nodes
    and edges to nodes made later), with positional arguments and the per-op and per-type words
    cached (op titles, parameter classes, dtype text, Layer names)."""

    def __init__(self, dialect, names, recorder, max_preview):
        self.d = dialect
        self.names = names.get("tensors", {}) if names else {}
        self.layer_names = names.get("layers", {}) if names else {}
        self.recorder = recorder
        self.max_preview = max_preview
        self.tensors: dict = {}     # key -> TensorInfo
        self.tensor_objs: dict = {}  # key -> live tensor (kept while building)
        self.grad_edges: dict = {}  # grad var id -> the engine's (node, slot) for it
        self.ops: dict = {}         # GradNode -> OpInfo
        self.bw: dict = {}          # node -> BackwardInfo
        self.gvars: dict = {}       # tensor key -> GradVarInfo
        self.lost: dict = {}        # key of an input no longer alive -> (meta, stop_gradient)
        self.in_keys: dict = {}     # node -> the keys of its inputs (walk order)
        self._tmp = 0
        self._taken = None   # the names the user's variables give (made-up names skip them)
        self._titles: dict = {}     # OpDef -> its title (the dialect's op_title)
        self._layer_names: dict = {}  # id(Layer) -> its name (layer_name)
        self._multi: list = []      # nodes of several outputs: their outputs in ``finish``
        self._later: list = []      # nodes with an edge to a node not yet drawn when added
        self.layered = False        # some op ran inside a Layer call

    # keys: a non-leaf is (node, slot); a leaf is ("leaf", id); a lost input ("const", node, i)
    def key_of(self, t):
        if t.grad_node is not None and not t.stop_gradient:
            return (t.grad_node, t.out_slot)
        return ("leaf", id(t))

    def inputs_of(self, node):
        """[(key, tensor or None)] of ``node``'s forward inputs, in input order."""
        n = len(node.in_meta)
        saved = node.inputs
        if saved is not None and len(saved) == n:  # not released: the saved tensors (fast)
            return [((t.grad_node, t.out_slot) if t.grad_node is not None
                     and not t.stop_gradient else ("leaf", id(t)), t) for t in saved]
        return [self.input_key(node, i) for i in range(n)]

    def input_key(self, node, i):
        # (a double-grad node under Paddle 3 links a saved input past its forward inputs:
        # that edge is drawn from the edge alone)
        t = node.input_tensor(i) if i < _n_inputs(node) else None
        if t is not None:
            return self.key_of(t), t
        e = node.next_edges[i]
        if e is None:  # a tensor that stopped gradient, no longer alive
            key = ("const", node, i)
            self.lost[key] = (_meta(node, i), True)
            return key, None
        child, slot = e
        if isinstance(child, AccumulateNode):
            leaf = child.leaf
            if leaf is not None:
                return ("leaf", id(leaf)), leaf
            key = ("lost", child)  # a leaf that took gradient, no longer alive
            self.lost[key] = (_meta(node, i), False)
            return key, None
        refs = child.out_refs
        t = refs[slot]() if refs is not None and slot < len(refs) else None
        return (child, slot), t

    def add_tensor(self, key, t, node=None, slot=0, meta=None):
        info = self.tensors.get(key)
        if info is not None:
            return info
        tid = f"t{len(self.tensors)}"
        if t is not None:
            self.tensor_objs[key] = t
            data = t.data
            stop = t.stop_gradient
            dtype = data.dtype
            text = _DTYPE_STR.get(dtype) or _dtype_str(dtype)
            if data.size == 1 and dtype.kind == "f":  # (preview's commonest case, inline)
                pv = _fmt_float(data.item())
            else:
                pv = preview(data, self.max_preview)
            cls = type(t)
            param = _PARAM_TYPES.get(cls)
            if param is None:
                param = _PARAM_TYPES[cls] = cls.__name__ in ("EagerParamBase", "Parameter")
            info = TensorInfo(tid, self.names.get(id(t)) or self.d.tensor_name(t),
                              list(data.shape), text, pv, bool(stop),
                              t.grad_node is None or stop, None, None, param)
            if info.is_leaf and self.recorder is not None:
                label = self.recorder.statement_of_tensor(t._uid)
                info.label = label if isinstance(label, str) else None
        else:
            lost = self.lost.get(key)
            if lost is not None:
                meta = lost[0]
            shape, dtype = meta if meta is not None else ((), np.dtype("float32"))
            data = None
            if node is not None and key[0] is node and not node.released \
                    and node.out_data is not None:
                data = node.out_data[slot]
            info = TensorInfo(tid, None, list(shape), _dtype_str(dtype),
                              preview(data, self.max_preview) if data is not None else None,
                              lost[1] if lost is not None else False,
                              not isinstance(key[0], GradNode), None, live=False)
        if info.name is None:
            if self._taken is None:
                self._taken = set(self.names.values())
            info.name, self._tmp = made_up_name(self._tmp, self._taken)
            info.unnamed = True
        elif not info.name.strip():  # t.name = "": shown as its repr ('') so a record has a title
            info.name = repr(info.name)
        self.tensors[key] = info
        if not info.stop_gradient:  # its gradient variable (a_grad)
            g = t._grad if t is not None else None
            gid = info.grad_var = f"g{len(self.gvars)}"
            kept = t is not None and (info.is_leaf or self.d.retain_nonleaf
                                      or getattr(t, self.d.retain_attr, False) or t._retain)
            self.gvars[key] = GradVarInfo(gid, self.d.grad_var_name(info.name), tid, info.shape,
                                          info.dtype,
                                          preview(g.data, self.max_preview) if g is not None
                                          else None, None, bool(kept))
            k0 = key[0]
            if type(k0) is GradNode:
                self.grad_edges[gid] = key
            elif t is not None:
                self.grad_edges[gid] = (t._accum, 0) if t._accum is not None else None
            elif k0 == "lost":
                self.grad_edges[gid] = (key[1], 0)
        return info

    def walk(self, targets):
        """Post-order over the forward graph from ``targets``: inputs get ids first, then the
        op, then its output."""
        tensors, ops, add_tensor = self.tensors, self.ops, self.add_tensor
        for t in targets:
            stack = [(self.key_of(t), t, None)]
            pop, push = stack.pop, stack.append
            while stack:
                key, t, ins = pop()  # ins: the inputs, once they are in (second visit)
                node = key[0]
                if ins is not None:
                    op = ops.get(node) or self.add_op(node, ins)
                    info = add_tensor(key, t, node, key[1], node.out_meta[key[1]])
                    if not op.outputs and len(node.out_meta) == 1:  # its one output
                        self.link_output(key, op, info)
                    continue
                if key in tensors:
                    continue
                if not isinstance(node, GradNode):  # a leaf, or an input no longer alive
                    add_tensor(key, t)
                elif node in ops:  # another output of an op already in
                    add_tensor(key, t, node, key[1], node.out_meta[key[1]])
                else:
                    ins = self.inputs_of(node)
                    push((key, t, ins))
                    for item in reversed(ins):
                        if item[0] not in tensors:
                            push((item[0], item[1], None))

    def link_output(self, key, op, info):
        """The output of a one-output op: into the op's outputs, its gradient variable into
        the backward op's inputs (``finish`` does this for ops of several outputs)."""
        info.op = op.id
        op.outputs.append(info.id)
        gv = self.gvars.get(key)
        if gv is not None:
            b = self.bw[key[0]]
            b.inputs.append(gv.id)
            gv.grad_op = b.id

    def add_op(self, node, ins=None):
        if ins is None:
            ins = self.inputs_of(node)
        tensors, gvars, bw = self.tensors, self.gvars, self.bw
        keys = self.in_keys[node] = [k for k, _t in ins]
        inputs = []
        for i, (ikey, it) in enumerate(ins):
            info = tensors.get(ikey) or self.add_tensor(ikey, it, meta=node.in_meta[i])
            inputs.append(info.id)
        label = node.label
        layers = []
        recorder = self.recorder
        if recorder is not None:
            if label is None:
                label = recorder.statement_of(node.uid)
            layers = [(start, self.layer_name(layer)) for start, layer in
                      recorder.layers_of(node.uid)]
            if layers:
                self.layered = True
        op = node.op
        title = self._titles.get(op)
        if title is None:
            title = self._titles[op] = self.d.op_title(op)
        order = node.order
        fid, bid = f"f{len(self.ops)}", f"b{len(bw)}"
        info = self.ops[node] = OpInfo(fid, op.name, title,
                                       label if isinstance(label, str) else None, inputs, [],
                                       bid, layers, order)
        # its backward op: the gradients it gives (per input) and the ops they flow to
        outputs, pending_ops = [], []
        edges = node.edges  # flat: (node, slot) per input; None, None where it takes none
        later = False
        for i in range(0, len(edges), 2):
            child = edges[i]
            if child is None:
                outputs.append(None)
                continue
            gv = gvars.get(keys[i >> 1])
            outputs.append(gv.id if gv is not None else None)
            pending = bw.get(child)
            if pending is None:
                later = True  # (a leaf's accumulation node, made in finish)
            elif pending.id not in pending_ops:
                pending_ops.append(pending.id)
        if later:
            self._later.append(node)
        bw[node] = BackwardInfo(bid, self.d.backward_name(node), "op", info.op, fid,
                                list(inputs), outputs, pending_ops, node.released, order)
        if len(node.out_meta) != 1:
            self._multi.append(node)
        return info

    def layer_name(self, layer):
        """``Linear model.fc1``: the Layer's class and its name in the namespace (else its
        Paddle name, ``linear_0``); once per Layer."""
        name = self._layer_names.get(id(layer))
        if name is None:
            name = self.layer_names.get(id(layer))
            if name is None:
                try:
                    name = layer.full_name()
                except Exception:  # noqa: BLE001
                    name = "?"
            name = self._layer_names[id(layer)] = f"{type(layer).__name__} {name}"
        return name

    # -- after the walk: the rest of the outputs, the leaves' nodes, late edges ---------------
    def finish(self):
        tensors, gvars, bw = self.tensors, self.gvars, self.bw
        for node in self._multi:  # outputs in slot order, siblings that are alive included
            op, b = self.ops[node], bw[node]
            for slot in range(len(node.out_meta)):
                key = (node, slot)
                info = tensors.get(key)
                if info is None:
                    refs = node.out_refs
                    t = refs[slot]() if refs is not None and slot < len(refs) else None
                    if t is None:
                        continue
                    info = self.add_tensor(key, t, node, slot, node.out_meta[slot])
                info.op = op.id
                op.outputs.append(info.id)
            for slot in range(len(node.out_meta)):  # the out grads its backward op takes
                gv = gvars.get((node, slot))
                if gv is not None:
                    b.inputs.append(gv.id)
                    gv.grad_op = b.id
        acc_for = {}
        if self.d.accumulation_nodes:
            for key, info in tensors.items():
                t = self.tensor_objs.get(key)
                if info.is_leaf and not info.stop_gradient and t is not None \
                        and t._accum is not None:
                    bid = f"b{len(bw)}"
                    acc = t._accum
                    gid = gvars[key].id
                    bw[acc] = BackwardInfo(bid, self.d.accumulation_name, "accumulate", None,
                                           None, [gid], [gid], [])
                    acc_for[acc] = key
        for node in self._later:  # edges to nodes made after their op: all of them again
            pending_ops = bw[node].grad_pending_ops
            pending_ops.clear()
            for child in node.edges[::2]:
                pending = bw.get(child) if child is not None else None
                if pending is not None and pending.id not in pending_ops:
                    pending_ops.append(pending.id)
        for acc, key in acc_for.items():
            gvars[key].grad_op = None  # the guide: a leaf's gradient has no grad_op

    def graph(self, targets):
        return Graph(self.d.key, [self.tensors[self.key_of(t)].id for t in targets],
                     list(self.tensors.values()), list(self.ops.values()),
                     list(self.gvars.values()), list(self.bw.values()))


_PARAM_TYPES: dict = {}  # tensor class -> a Layer's parameter (EagerParamBase, Parameter)


def build(targets, *, names=None, recorder=None, dialect=None, max_preview=None,
          namespace=None) -> Graph:
    """The picture model of everything ``targets`` (a tensor or a list) was computed from.

    ``names``: from :func:`names_from_namespace` (or give ``namespace`` to compute them);
    ``recorder``: an engine ``provenance.Recorder`` that saw the run (statements, Layers).
    """
    from ..engine.tensor import Tensor

    if isinstance(targets, Tensor):
        targets = [targets]
    targets = list(targets)
    if names is None:
        names = names_from_namespace(namespace)
    if dialect is None:
        dialect = dialect_for(targets[0]) if targets else Dialect()
    b = _Builder(dialect, names, recorder, max_preview)
    b.walk(targets)
    b.finish()
    g = b.graph(targets)
    g._builder = b  # engine handles for step frames (not part of the data)
    number_backward_ops(g.backward_ops, g)
    _clusters(g)
    return g


def number_backward_ops(backward_ops, g=None) -> None:
    """Give each backward op its ``title``: its name, with ``#1``, ``#2`` (in id order, which
    is the order the forward made them) where several share the name. torch's nodes (``g`` of
    the torch profile) are told apart as torch users reach them, never by a number torch does
    not print: ``MulBackward0 (c.grad_fn)``, ``AccumulateGrad (w)`` (the leaf it writes)."""
    by_name: dict = {}
    for b in backward_ops:
        by_name.setdefault(b.name, []).append(b)
    which = _torch_which(g) if g is not None and g.profile == "torch" else None
    for name, same in by_name.items():
        if len(same) == 1:
            same[0].title = name
        elif which is not None and all(b.id in which for b in same) \
                and len({which[b.id] for b in same}) == len(same):
            for b in same:
                b.title = f"{name} ({which[b.id]})"
        else:
            for k, b in enumerate(same, 1):
                b.title = f"{name} #{k}"


def _torch_which(g) -> dict:
    """{backward op id: how torch reaches it}: ``c.grad_fn`` (its forward op's first output),
    the leaf's name for an ``AccumulateGrad``."""
    tensors = {t.id: t for t in g.tensors}
    outputs = {o.id: o.outputs for o in g.ops}
    gvars = {v.id: v for v in g.grad_vars}
    out = {}
    for b in g.backward_ops:
        if b.kind == "accumulate":
            gv = gvars.get(b.outputs[0]) if b.outputs else None
            t = tensors.get(gv.tensor) if gv is not None else None
            if t is not None:
                out[b.id] = t.name
        else:
            outs = outputs.get(b.forward) or ()
            if outs and outs[0] in tensors:
                out[b.id] = f"{tensors[outs[0]].name}.grad_fn"
    return out


def shown(info) -> str:
    """The name a picture shows for a model record (a backward op's numbered title)."""
    return getattr(info, "title", None) or info.name


def _clusters(g: Graph) -> None:
    """One cluster per innermost Layer call the ops ran in (``--collapse`` draws each as one
    node: ``Linear model.fc1``); ops outside any Layer stay ops."""
    layered = [op for op in g.ops if op.layers]  # (the others keep their empty lists)
    seen = {}
    for op in layered:
        start, name = op.layers[-1]
        c = seen.get(start)
        if c is None:
            c = seen[start] = {"id": f"c{len(seen)}", "name": name, "ops": [],
                               "layers": [n for _s, n in op.layers]}
        c["ops"].append(op.id)
    # two calls of one Layer get "#2"
    counts = {}
    for c in seen.values():
        counts[c["name"]] = counts.get(c["name"], 0) + 1
        if counts[c["name"]] > 1:
            c["name"] = f"{c['name']} #{counts[c['name']]}"
    g.clusters = list(seen.values())
    call_ids = {}  # the start uids only tell calls apart; keep names and call ids in the data
    for op in layered:
        op.calls = [call_ids.setdefault(s, f"L{len(call_ids)}") for s, _n in op.layers]
        op.layers = [name for _s, name in op.layers]


# ---------------------------------------------------------------------------- from data
_RECORDS = (("tensors", TensorInfo), ("ops", OpInfo), ("grad_vars", GradVarInfo),
            ("backward_ops", BackwardInfo))


def graph_from_dict(d: dict) -> Graph:
    """The ``Graph`` a :meth:`Graph.to_dict` describes (no engine handles: it draws, it does not
    step). Every key must be a field and every field given: ``ValueError`` otherwise. The types
    and sizes are not checked here: data from elsewhere goes through a schema first
    (``repl.safe_pictures``)."""
    def make(cls, rec, what):
        if not isinstance(rec, dict):
            raise ValueError(f"{what}: not a record")
        names = [f.name for f in fields(cls)]
        if set(rec) != set(names):
            odd = sorted(set(rec) ^ set(names), key=str)[:3]
            raise ValueError(f"{what}: fields {odd} unknown or missing")
        return cls(**{k: rec[k] for k in names})

    if not isinstance(d, dict):
        raise ValueError("a graph: not a record")
    rest = {k: v for k, v in d.items() if k not in dict(_RECORDS)}
    g = make(Graph, {**rest, **{k: [] for k, _c in _RECORDS}}, "graph")
    for key, cls in _RECORDS:
        items = d.get(key)
        if not isinstance(items, list):
            raise ValueError(f"graph: {key} is not a list")
        setattr(g, key, [make(cls, rec, key) for rec in items])
    return g


Graph.from_dict = staticmethod(graph_from_dict)
