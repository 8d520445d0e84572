"""What ``tensor.grad_fn`` shows of the engine's backward nodes: torch's node objects.

Each engine node is seen through a ``Node`` whose class is named as torch names the node
(``type(y.grad_fn).__name__ == "MulBackward0"``), with ``name()``, ``next_functions`` (pairs
``(node, input_nr)``, ``None`` for an input without gradient) and ``metadata``. A leaf's
accumulation node is ``AccumulateGrad`` (``name()`` is ``torch::autograd::AccumulateGrad``,
``variable`` the leaf). While a user holds a node object, asking again gives the same object.

Names come from the op copies of ``_ops`` (``torch_name``); nodes the engine made itself (the
VJPs of a ``create_graph=True`` backward) are named from the engine op by ``FALLBACK``.
"""
from __future__ import annotations

import re
import weakref

from ...engine.node import AccumulateNode

# engine op -> torch's name for nodes the engine makes on its own (double backward)
FALLBACK = {
    "add": "AddBackward0", "subtract": "SubBackward0", "multiply": "MulBackward0",
    "divide": "DivBackward0", "neg": "NegBackward0", "scale": "MulBackward0",
    "div_scale": "DivBackward0", "pow": "PowBackward0", "elementwise_pow": "PowBackward1",
    "exp": "ExpBackward0", "log": "LogBackward0", "reciprocal": "ReciprocalBackward0",
    "sqrt": "SqrtBackward0", "rsqrt": "RsqrtBackward0", "tanh": "TanhBackward0",
    "tanh_grad": "TanhBackwardBackward0", "sigmoid": "SigmoidBackward0", "sin": "SinBackward0",
    "cos": "CosBackward0", "relu": "ReluBackward0", "relu_grad": "ThresholdBackwardBackward0", "abs": "AbsBackward0",
    "reshape": "ViewBackward0", "squeeze": "SqueezeBackward1", "unsqueeze": "UnsqueezeBackward0",
    "broadcast_to": "ExpandBackward0", "expand": "ExpandBackward0", "sum_to": "SumBackward1",
    "sum": "SumBackward1", "mean": "MeanBackward1", "transpose": "PermuteBackward0",
    "matmul": "MmBackward0", "bmm": "BmmBackward0", "dot": "DotBackward0",
    "cast": "ToCopyBackward0", "where": "WhereBackward0", "concat": "CatBackward0",
    "split": "SplitBackward0", "stack": "StackBackward0", "unbind": "UnbindBackward0",
    "slice": "SliceBackward0", "strided_slice": "SliceBackward0",
    "index_elementwise_get": "IndexBackward0", "index_put_add": "IndexPutBackward0",
    "assign": "CloneBackward0", "softmax": "SoftmaxBackward0",
    "softmax_grad": "SoftmaxBackwardDataBackward0", "log_softmax": "LogSoftmaxBackward0",
    "log_softmax_grad": "LogSoftmaxBackwardDataBackward0", "maximum": "MaximumBackward0",
    "minimum": "MinimumBackward0", "clip": "ClampBackward1", "tile": "RepeatBackward0",
    "take_along_axis": "GatherBackward0", "take_along_axis_grad": "ScatterAddBackward0",
    "fused_select_along": "GatherBackward0", "fused_addmm": "AddmmBackward0",
    "fused_mse_loss": "MseLossBackward0",
}

# engine ops whose nodes keep no tensors (a second backward through them is no error)
NO_SAVES = {"add", "subtract", "neg", "reshape", "squeeze", "unsqueeze", "flatten", "sum",
            "mean", "broadcast_to", "expand", "sum_to", "transpose", "concat", "split", "stack",
            "unbind", "slice", "strided_slice", "assign", "cast", "scale", "div_scale", "tile",
            "flip", "roll", "tril", "triu", "index_put_add"}


def _camel(name):
    return "".join(p.capitalize() for p in name.split("_")) + "Backward0"


def node_name(node) -> str:
    """torch's class name of the node (``MulBackward0``, ``AccumulateGrad``, ``ExpBackward``)."""
    op = node.op
    if op is None:
        return "AccumulateGrad"
    if type(getattr(node, "handle", None)).__name__ == "CppFunction":
        return "DifferentiableGraphBackward"   # (torch.jit's profiling executor: ``jit``)
    name = getattr(op, "torch_name", None)
    if name is None:
        if op.name == "torch_function":
            return node.attrs["cls"].__name__ + "Backward"
        name = FALLBACK.get(op.name) or _camel(op.name)
    return name


def short_name(node) -> str:
    """The node's name as torch's in-place error message shows it: ``Mul`` for MulBackward0."""
    return re.sub(r"Backward\d*$", "", node_name(node))


def saves_policy(node) -> str:
    """What torch's node keeps for backward (see ``_ops``): decides the freed-graph and the
    modified-in-place errors."""
    op = node.op
    if op is None:
        return "none"
    p = getattr(op, "torch_saves", None)
    if p is not None:
        return p
    if op.name == "torch_function":
        return "function"
    return "none" if op.name in NO_SAVES else "all"


def saved_input_indices(node):
    """The engine inputs whose values torch's node saved (their versions are checked)."""
    p = saves_policy(node)
    edges = node.next_edges
    n = len(edges)
    if p in ("none", "out", "other", "function"):
        return ()
    if p in ("all", "all+out"):
        return tuple(range(n))
    if p in ("in0", "in0+out"):
        return (0,)
    if p == "cross":  # input i is kept when the other one takes a gradient
        return tuple(i for i in range(min(n, 2)) if edges[1 - i] is not None)
    if p == "cross12":  # addmm: (bias, mat1, mat2)
        return tuple(i for i in (1, 2) if edges[3 - i] is not None)
    if p.startswith("in:"):  # the listed inputs ("in:0,1")
        return tuple(int(i) for i in p[3:].split(",") if int(i) < n)
    if p == "div":
        out = []
        if edges[1] is not None:
            out.append(0)
        if edges[0] is not None or edges[1] is not None:
            out.append(1)
        return tuple(out)
    return tuple(range(n))


def saves_output(node) -> bool:
    return saves_policy(node) in ("out", "in0+out", "all+out")


def saves_anything(node) -> bool:
    p = saves_policy(node)
    if p == "none":
        return False
    if p == "function":
        ctx = node.attrs.get("ctx")
        return bool(getattr(ctx, "_saved", ()))
    return True  # (cross, div: the input kept for the other's gradient, or a wrapped number)


# ------------------------------------------------------------------------------ node objects
class Node:
    """A backward node as torch shows it (``torch.autograd.graph.Node``)."""

    __slots__ = ("_node", "_keep", "__weakref__")
    _metadata: dict = {}

    def name(self) -> str:
        name = node_name(self._node)
        # (torch's C++ nodes outside the generated ones name their namespace: CopySlices)
        return "torch::autograd::CopySlices" if name == "CopySlices" else name

    @property
    def next_functions(self):
        node = self._node
        if node.op is None:
            return ()
        edges = node.next_edges
        which = getattr(node.op, "torch_inputs", None)
        if which is None:
            which = range(len(edges))
        out = []
        for i in which:
            e = edges[i]
            out.append((None, 0) if e is None else (wrap_node(e[0]), e[1]))
        return tuple(out)

    @property
    def metadata(self):
        key = self._node.uid
        d = Node._metadata.get(key)
        if d is None:
            d = Node._metadata[key] = {}
        return d

    @property
    def requires_grad(self):
        return True

    def _saved(self, k):
        from ...engine.node import GradNode

        node = self._node
        if not isinstance(node, GradNode):
            raise AttributeError("no saved tensors")
        if node.released:
            from ._engine import FREED_MESSAGE

            raise RuntimeError(FREED_MESSAGE)
        if k == "result":
            if not saves_output(node):
                raise AttributeError(f"'{type(self).__name__}' object has no attribute "
                                     "'_saved_result'")
            return node.out()
        i = {"self": 0, "other": 1}[k]
        if i >= len(node.in_meta):
            raise AttributeError(f"'{type(self).__name__}' object has no attribute "
                                 f"'_saved_{k}'")
        return node.inputs[i] if i in saved_input_indices(node) else None

    @property
    def _saved_self(self):
        return self._saved("self")

    @property
    def _saved_other(self):
        return self._saved("other")

    @property
    def _saved_result(self):
        return self._saved("result")

    # ``_raw_saved_*``: the SavedTensor objects, whose register_hooks(pack, unpack) packs now
    # and unpacks when the backward runs (the saved-tensors-hooks tutorial)
    @property
    def _raw_saved_self(self):
        return SavedTensor(self, "self")

    @property
    def _raw_saved_other(self):
        return SavedTensor(self, "other")

    @property
    def _raw_saved_result(self):
        return SavedTensor(self, "result")

    def register_hook(self, fn):
        """torch's Node.register_hook: ``fn(grad_inputs, grad_outputs)`` runs after this node's
        backward (``grad_inputs``: the gradients it computed for its inputs, None where an input
        takes none); a tuple it returns replaces ``grad_inputs``."""
        from ...engine.backward import NODE_POST_HOOKS
        from ...engine.node import AccumulateNode

        if isinstance(self._node, AccumulateNode):
            raise NotImplementedError("gradrepl: hooks on AccumulateGrad nodes are not "
                                      "emulated; register the hook on the leaf tensor")
        hooks = NODE_POST_HOOKS.get(self._node)
        if hooks is None:
            hooks = NODE_POST_HOOKS[self._node] = []
        hook = _NodeHook(fn)
        hooks.append(hook)
        return _node_hook_handle(hooks, hook)

    def register_prehook(self, fn):
        raise NotImplementedError("gradrepl: pre-hooks on backward nodes are not supported; "
                                  "register the hook on a tensor (tensor.register_hook)")

    def __call__(self, *grads):
        raise NotImplementedError("gradrepl: calling a backward node directly is not supported")

    def __repr__(self):
        return f"<{type(self).__name__} object at {hex(id(self))}>"

    def __eq__(self, other):
        return isinstance(other, Node) and other._node is self._node

    def __hash__(self):
        return hash(id(self._node))


class _NodeHook:
    """A user's hook on a node, called by the engine as ``(node, grad_inputs, grad_outputs)``:
    the gradients as torch hands them (no history unless create_graph); its result checked as
    torch checks a post hook's."""

    __slots__ = ("fn",)

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, node, grad_inputs, grad_outputs):
        # torch's node shows only its differentiable inputs and outputs (BatchNorm's running
        # statistics, Embedding's indices and BatchNorm's saved mean/invstd are not there)
        op = node.op
        which = getattr(op, "torch_inputs", None)
        if which is None:
            which = op.diff_inputs
        if isinstance(which, int):
            which = range(which)
        if which is None:
            which = range(len(grad_inputs))
        which = [i for i in which if i < len(grad_inputs)]
        outs = op.diff_outputs
        if outs is not None:
            grad_outputs = tuple(grad_outputs[k] for k in outs if k < len(grad_outputs))
        shown = tuple(grad_inputs[i] for i in which)
        r = self.fn(shown, grad_outputs)
        if r is None:
            return None
        if not isinstance(r, tuple):
            raise TypeError(f"expected tuple, but hook returned '{type(r).__name__}'")
        if len(r) != len(shown):
            raise RuntimeError(f"hook '{getattr(self.fn, '__name__', 'hook')}' has returned an "
                               f"incorrect number of values (got {len(r)}, but expected "
                               f"{len(shown)})")
        full = list(grad_inputs)
        for i, g in zip(which, r):
            full[i] = g
        return full


_HANDLE_CLASS = []


def _node_hook_handle(hooks, hook):
    """torch's RemovableHandle (the tensor hooks' class, made once: ``_engine`` imports this
    module) for a node's hook."""
    if not _HANDLE_CLASS:
        from ._engine import RemovableHandle as _Base

        class RemovableHandle(_Base):
            def __init__(self, hooks, hook):
                self.id = _Base.take_id()
                self._hooks, self._hook = hooks, hook

            def remove(self):
                if self._hook in self._hooks:
                    self._hooks.remove(self._hook)

        _HANDLE_CLASS.append(RemovableHandle)
    return _HANDLE_CLASS[0](hooks, hook)


class AccumulateGrad(Node):
    __slots__ = ()
    __module__ = "builtins"  # <class 'AccumulateGrad'>, as torch's C++ node

    def name(self):
        return "torch::autograd::AccumulateGrad"

    @property
    def variable(self):
        leaf = self._node.leaf
        return leaf if leaf is not None else self._keep


class BackwardCFunction(Node):
    """The node of a custom ``torch.autograd.Function`` (``ExpBackward``)."""

    __slots__ = ()

    def __repr__(self):
        return f"<torch.autograd.function.{type(self).__name__} object at {hex(id(self))}>"

    def name(self):
        return type(self).__name__

    @property
    def saved_tensors(self):
        return self._node.attrs["ctx"].saved_tensors

    def __getattr__(self, item):  # the ctx's attributes (ctx.constant = ...)
        return getattr(self._node.attrs["ctx"], item)


_CLASSES: dict = {"AccumulateGrad": AccumulateGrad}


def node_class(name, function=False):
    key = (name, function)
    cls = _CLASSES.get(key) if function else _CLASSES.get(name)
    if cls is None:
        base = BackwardCFunction if function else Node
        cls = type(name, (base,), {"__slots__": (), "__module__": "torch.autograd.function"
                                   if function else "builtins"})  # (torch's C++ nodes)
        if function:
            _CLASSES[key] = cls
        else:
            _CLASSES[name] = cls
    return cls


def wrap_node(node):
    """The Node object for an engine node: one object as long as the node lives (kept on the
    node, as torch keeps a node's Python object), so two live nodes never print one address."""
    w = getattr(node, "handle", None)
    if w is not None:
        return w
    if isinstance(node, AccumulateNode):
        cls = AccumulateGrad
    else:
        function = node.op is not None and node.op.name == "torch_function"
        cls = node_class(node_name(node), function)
    w = object.__new__(cls)
    w._node = node
    # torch's AccumulateGrad keeps its leaf alive (the engine's node only refers to it)
    w._keep = node.leaf if isinstance(node, AccumulateNode) else None
    node.handle = w
    return w


def reset():
    Node._metadata.clear()


from ._saved_hooks import (disable_saved_tensors_hooks, save_on_cpu,  # noqa: E402,F401
                           saved_tensors_hooks)


class SavedTensor:
    """``torch._C._autograd.SavedTensor``: one tensor a backward node saved."""

    def __init__(self, node, key):
        self._tensor = node._saved(key)      # (raises as torch once the graph is freed)
        self._graph_node = node._node
        self._key = key

    def register_hooks(self, pack_hook, unpack_hook):
        from ._saved_hooks import _unpack_on_backward

        if not callable(pack_hook) or not callable(unpack_hook):
            raise TypeError("expected pack_hook and unpack_hook to be callables")
        packed = pack_hook(self._tensor)
        index = [] if self._key == "result" else [{"self": 0, "other": 1}[self._key]]
        _unpack_on_backward(self._graph_node, [packed], unpack_hook, index)


SavedTensor.__module__ = "torch._C._autograd"
