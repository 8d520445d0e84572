"""Backward ops (GradNode) and the leaf accumulation node.

A GradNode is the backward op of one forward op: its *inputs* are the forward inputs it saved and
the gradient(s) of the forward output(s) (``out_grad``); its *outputs* are the gradients of the
forward inputs (``x_grad``), None where an input stops gradient; ``next_edges`` are its
``grad_pending_ops``: the (node, slot) each output gradient flows to.
"""
from __future__ import annotations

import itertools
import weakref

import numpy as np

from .grad_mode import STATE as _STATE

_node_uids = itertools.count()
_NO_EDGE = (None, None)
_weakref_type = weakref.ref
_META: dict = {}


KEEP_BYTES = 256


def meta_of(arrays):
    """``((shape, dtype), ...)`` of ``arrays``, one shared tuple per distinct value: a released
    graph keeps its nodes' metadata without a new tuple per node (each would be another object
    for the garbage collector to walk while the graph lives)."""
    key = tuple([(a.shape, a.dtype) for a in arrays])
    meta = _META.get(key)
    if meta is None:
        if len(_META) >= 4096:
            _META.clear()
        meta = _META[key] = key
    return meta


def _let_go(data, meta):
    """A released node's (saved arrays, metadata): the arrays go once the metadata is fixed or
    one of them is larger than ``KEEP_BYTES``; small ones stay as their own metadata."""
    if data is None or meta is not None:
        return None, meta
    for a in data:
        if a.nbytes > KEEP_BYTES:
            return None, meta_of(data)
    return data, None


class GradNode:
    # Few objects per node: every tracked container made here is work for the garbage collector
    # on every collection while the graph lives (a chain of 60,000 ops made ~15 per op; now 5).
    # The metadata of inputs and outputs is read from the saved arrays when first asked for, and
    # kept when the node is released.
    __slots__ = (
        "op",          # the registry OpDef
        "attrs",       # the forward op's attributes (dict)
        "inputs",      # the saved forward inputs (Tensors); None once released
        "in_data",     # the inputs' arrays as the op saw them (their shapes and dtypes); once
        #                released, None unless small (see ``release``; else ``_in_meta``)
        "out_data",    # the forward outputs' arrays (saved for VJPs that use them), as in_data
        "_out_meta",   # [(shape, dtype)] of each forward output, once asked for (``out_meta``)
        "_in_meta",    # [(shape, dtype)] of each forward input, once asked for (``in_meta``)
        "_out_refs",   # weakref to the forward output tensor, a tuple of them when there are
        #                several (``out_refs``: for retain_grads, hooks and names)
        "in_versions", # each saved input's version when saved (in-place writes are detected);
        #                None when all were 0 (the common case: no tuple made)
        "edges",       # grad_pending_ops, flat: (node, slot) per input, None, None where the
        #                input takes no gradient (``next_edges`` gives the pairs)
        "released",    # the saved tensors were freed by a backward without retain_graph
        "uid",
        "label",       # source text of the forward statement, filled by the shell if it likes
        "order",       # derivative order: 0, or k for nodes made by a create_graph backward
        "input_refs",  # weakrefs to the saved inputs, set when they are released (pictures)
        "result_type", # the inputs' tensor class, once the inputs are let go (``drop_inputs``)
        "zero_from",   # edges from this index on carry zeros (a double-grad node's structural
        #                links to saved inputs, see backward.link_saved_inputs); else None
        "handle",      # a front end's object for this node (the torch dialect's grad_fn), set
        #                when first asked for and kept as long as the node (unset until then)
        "__weakref__",
    )

    def __init__(self, op, attrs, inputs, outputs_data, in_data=None):
        self.op = op
        self.attrs = attrs
        self.out_data = outputs_data
        self._out_meta = None
        self._in_meta = None
        if len(inputs) == 1:  # the common case, without list building
            t = inputs[0]
            self.in_data = (t.data,) if in_data is None else in_data
            self.in_versions = None if t._version == 0 else (t._version,)
            if t.stop_gradient:
                self.edges = _NO_EDGE
            elif t.grad_node is not None:
                self.edges = (t.grad_node, t.out_slot)
            else:
                self.edges = (t.accumulate_node(), 0)
        else:
            self.in_data = tuple([t.data for t in inputs]) if in_data is None else in_data
            edges = []
            versions = None
            for t in inputs:
                if t._version:
                    versions = True
                if t.stop_gradient:
                    edges += _NO_EDGE
                elif t.grad_node is not None:
                    edges += (t.grad_node, t.out_slot)
                else:
                    edges += (t.accumulate_node(), 0)
            self.in_versions = None if versions is None else tuple([t._version for t in inputs])
            self.edges = tuple(edges)
        self.inputs = inputs
        self.released = False
        self.zero_from = None
        self.uid = next(_node_uids)
        self.order = 0
        self.label = None
        self._out_refs = None

    @property
    def next_edges(self):
        """Paddle's ``grad_pending_ops`` of this node: per input, (node, slot) or None."""
        e = self.edges
        return tuple([None if e[j] is None else (e[j], e[j + 1]) for j in range(0, len(e), 2)])

    @next_edges.setter
    def next_edges(self, pairs):
        flat = []
        for e in pairs:
            flat += _NO_EDGE if e is None else e
        self.edges = tuple(flat)

    @property
    def out_refs(self):
        r = self._out_refs
        return (r,) if type(r) is _weakref_type else r

    @out_refs.setter
    def out_refs(self, refs):
        self._out_refs = refs

    @property
    def in_meta(self):
        """[(shape, dtype)] of each forward input, as the op saw them."""
        meta = self._in_meta
        if meta is None:
            meta = self._in_meta = meta_of(self.in_data)
        return meta

    @in_meta.setter
    def in_meta(self, meta):
        self._in_meta = tuple(meta)

    @property
    def out_meta(self):
        """[(shape, dtype)] of each forward output."""
        meta = self._out_meta
        if meta is None:
            meta = self._out_meta = meta_of(self.out_data)
        return meta

    @out_meta.setter
    def out_meta(self, meta):
        self._out_meta = tuple(meta)

    def saved_version(self, i):
        """The version input ``i`` had when this node saved it."""
        v = self.in_versions
        return 0 if v is None else v[i]

    # -- what VJPs use -----------------------------------------------------------------
    @property
    def name(self) -> str:
        return self.op.name

    def out(self, k: int = 0):
        """The k-th forward output as a tensor whose gradient flows back through this node.

        VJPs that need the forward output (tanh, exp, sqrt, ...) use it; with create_graph the
        result is differentiable again (the alias shares this node as its grad_node).
        """
        inputs = self.inputs
        cls = inputs[0]._result_type if inputs is not None else self.result_type
        if _STATE.enabled:
            return cls._wrap(self.out_data[k], False, self, k)
        return cls._wrap(self.out_data[k], True)

    def input_tensor(self, i):
        """The i-th forward input: the saved tensor, or (once released) it if still alive:
        found through its gradient edge (the leaf, or the output of the node that made it),
        or, for an input without one, through the weakref kept at release."""
        if self.inputs is not None:
            return self.inputs[i]
        refs = getattr(self, "input_refs", None)
        if refs is not None and refs[i] is not None:
            return refs[i]()
        child = self.edges[2 * i]
        if child is None:
            return None
        if child.op is None:
            return child.leaf
        outs = child.out_refs
        slot = self.edges[2 * i + 1]
        return outs[slot]() if outs is not None and slot < len(outs) else None

    def output_tensors(self):
        if self.out_refs is None:
            return []
        return [r() for r in self.out_refs]

    def keep_meta(self):
        """Fix the inputs' and outputs' (shape, dtype) before their arrays are let go."""
        if self._in_meta is None and self.in_data is not None:
            self._in_meta = meta_of(self.in_data)
        if self._out_meta is None and self.out_data is not None:
            self._out_meta = meta_of(self.out_data)

    def release(self):
        """Free what the node saved for its VJP: the input tensors, and every saved array of
        more than ``KEEP_BYTES`` (those leave their (shape, dtype) behind). Smaller arrays stay
        as their own metadata, which costs less than making it; no VJP runs on them again."""
        # (``_let_go`` of the inputs' and the outputs' arrays, written out: a torch backward
        # releases every node that saved anything)
        data = self.in_data
        if data is not None:
            if self._in_meta is not None:
                self.in_data = None
            else:
                for a in data:
                    if a.nbytes > KEEP_BYTES:
                        self.in_data, self._in_meta = None, meta_of(data)
                        break
        data = self.out_data
        if data is not None:
            if self._out_meta is not None:
                self.out_data = None
            else:
                for a in data:
                    if a.nbytes > KEEP_BYTES:
                        self.out_data, self._out_meta = None, meta_of(data)
                        break
        self._forget_inputs()
        self.released = True

    def drop_inputs(self):
        """Let go of the input tensors and their arrays before any backward, for an op whose
        VJP reads only their shapes (its output and attributes aside): Paddle keeps nothing of
        them either. Pictures still find inputs that are alive (see ``input_tensor``)."""
        if self._in_meta is None:
            self._in_meta = meta_of(self.in_data)
        self.in_data = None
        if self.inputs is not None:
            self.result_type = self.inputs[0]._result_type
        self._forget_inputs()

    def drop_outputs(self):
        """Let go of the forward outputs' arrays, for an op whose VJP does not read them (the
        output tensors keep them while they live)."""
        if self._out_meta is None:
            self._out_meta = meta_of(self.out_data)
        self.out_data = None

    def _forget_inputs(self):
        inputs = self.inputs
        edges = self.edges
        if inputs is not None and None in edges:
            # who the inputs were stays known (for pictures) while they live: those with a
            # gradient edge are found through it, the others by a weakref
            if len(inputs) == 2:   # (x * 2.0's node: written out, no list or enumerate)
                t, u = inputs
                self.input_refs = (_weakref(t) if edges[0] is None else None,
                                   _weakref(u) if edges[2] is None else None)
            else:
                self.input_refs = tuple([_weakref(t) if edges[2 * i] is None else None
                                         for i, t in enumerate(inputs)])
        self.inputs = None

    def __repr__(self):
        return f"<{self.op.name} node #{self.uid}>"


_new = object.__new__
_weakref = weakref.ref


def _edge(t):
    """(node, slot) of input ``t`` as ``GradNode.__init__`` links it (``_NO_EDGE`` if none)."""
    if t.stop_gradient:
        return _NO_EDGE
    node = t.grad_node
    if node is not None:
        return node, t.out_slot
    acc = t._accum
    return (acc if acc is not None else t.accumulate_node()), 0


def new_node(op, attrs, inputs, outputs_data, in_data):
    """``GradNode(op, attrs, inputs, outputs_data, in_data)`` for ``registry.apply``, the same
    node made without the class call (a Python ``__init__`` behind ``type.__call__``) and with
    one and two inputs unrolled: the forward hot path of every recorded op."""
    n = len(inputs)
    if n > 2 or in_data is None:
        return GradNode(op, attrs, inputs, outputs_data, in_data)
    node = _new(GradNode)
    node.op = op
    node.attrs = attrs
    node.out_data = outputs_data
    node._out_meta = None
    node._in_meta = None
    node.in_data = in_data
    # (``_edge`` written out for an input that is a node's output or stops gradient)
    if n == 1:
        t = inputs[0]
        v = t._version
        node.in_versions = None if v == 0 else (v,)
        if t.stop_gradient:
            node.edges = _NO_EDGE
        else:
            g = t.grad_node
            node.edges = (g, t.out_slot) if g is not None else _edge(t)
    else:
        t, u = inputs
        v, w = t._version, u._version
        node.in_versions = None if not v and not w else (v, w)
        if t.stop_gradient:
            e = _NO_EDGE
        else:
            g = t.grad_node
            e = (g, t.out_slot) if g is not None else _edge(t)
        if u.stop_gradient:
            node.edges = e + _NO_EDGE
        else:
            g = u.grad_node
            node.edges = e + ((g, u.out_slot) if g is not None else _edge(u))
    node.inputs = inputs
    node.released = False
    node.zero_from = None
    node.uid = next(_node_uids)
    node.order = 0
    node.label = None
    node._out_refs = None
    return node


_ZERO_SCALARS: dict = {}


def zeros_view(shape, dtype):
    """A read-only array of zeros of any shape that holds one element (a broadcast view)."""
    zero = _ZERO_SCALARS.get(dtype)
    if zero is None:
        zero = _ZERO_SCALARS[dtype] = np.zeros((), dtype)
        zero.flags.writeable = False
    return np.ndarray(shape, dtype, buffer=zero, strides=(0,) * len(shape))  # (as broadcast_to)


class AccumulateNode:
    """The end of a leaf's gradient path: sums into ``leaf.grad`` (GradNodeAccumulation)."""

    __slots__ = ("leaf_ref", "uid", "released", "grad_buffer", "cleared", "handle",
                 "__weakref__")

    op = None
    name = "accumulate"
    edges = ()
    next_edges = ()

    def __init__(self, leaf):
        self.leaf_ref = weakref.ref(leaf)
        self.uid = next(_node_uids)
        self.released = False
        # a weakref to the array the engine allocated for leaf.grad: while leaf.grad still holds
        # that array, later gradients are summed into it in place (a held reference sees them,
        # as in Paddle); clear_grad() swaps it for a view of one zero (see ``clear``)
        self.grad_buffer = None
        # (zeros view, version): what clear_grad() left in leaf.grad.data (see ``clear``)
        self.cleared = None

    def clear(self):
        """Zero ``leaf.grad`` for the next backward (Paddle's ``clear_grad()``): its data
        becomes a read-only view of one zero, which costs no memory and no pass over it; the
        next backward, finding that view untouched, takes its new gradient as the data (0 + g,
        computed in place) instead of adding it into zeros (vgg11: 532 MB filled and then read
        again each step). Anything that writes into the grad first replaces the view with an
        array of its own (read-only data is copied before an in-place write), and is summed
        into as usual. Returns False where leaf.grad's array is not the engine's own."""
        leaf = self.leaf_ref()
        arr = self.owned_grad_data()
        if arr is None or not arr.flags.writeable:
            return False
        grad = leaf._grad
        grad.data = zeros_view(arr.shape, arr.dtype)
        self.cleared = (grad.data, grad._version)
        self.grad_buffer = None
        return True

    def take_cleared(self, grad, sole_owner, g_tensor):
        """After ``clear``: make the array of ``g_tensor`` (the new gradient) the data of
        ``grad`` if grad still shows the cleared zeros and the array can stand for them
        (``sole_owner``: nothing else holds it; same shape and dtype); True if it did. Where
        the zeros are still there but the array cannot take their place, they become a real
        zero array of the engine's, which the caller then sums the gradient into as before
        (its casting rules included). The caller judges ``sole_owner`` before it passes the
        tensor: its array on the call's stack would count as one more owner."""
        cleared, self.cleared = self.cleared, None
        if cleared is None or grad.data is not cleared[0] or grad._version != cleared[1]:
            return False
        g = g_tensor.data
        if sole_owner and g.shape == grad.data.shape and g.dtype == grad.data.dtype:
            np.add(g, 0, out=g)  # 0 + g, as accumulating into zeros gives: -0 becomes +0
            grad.data = g
            self.own_grad_data(g)
            return True
        grad.data = np.zeros(grad.data.shape, grad.data.dtype)
        self.own_grad_data(grad.data)
        return False

    def owned_grad_data(self):
        """``leaf.grad.data`` if it is the array the engine allocated for it, else None."""
        ref = self.grad_buffer
        if ref is None:
            return None
        leaf = self.leaf_ref()
        arr = ref()
        if leaf is None or arr is None or leaf._grad is None or leaf._grad.data is not arr:
            return None
        return arr

    def own_grad_data(self, arr):
        self.grad_buffer = weakref.ref(arr)

    @property
    def leaf(self):
        return self.leaf_ref()

    def __repr__(self):
        return f"<accumulate node #{self.uid}>"
