"""The backward engine, read top to bottom as the guide tells it.

Paddle's engine (``basic_engine.cc``) runs a backward pass in six phases, and so does this one:

1. ``count_dependencies`` (Paddle's PrepareDeps): walk the backward ops reachable from the roots
   and count, for each, how many ``grad_pending_ops`` edges point at it: how many gradients it
   must wait for.
2. ``seed_roots``: put each root's gradient (ones, or the given ``grad_tensors``) into its node's
   buffer; a root that waits for nothing joins the ready queue.
3. The ready queue (the loop in ``iter_backward``): take the first ready node, first in first
   out. A backward op goes through ``run_node``: its VJP turns the gradients of the forward
   op's outputs into the gradients of its inputs.
4. ``send_gradients``: each of those gradients travels along its ``grad_pending_ops`` edge and is
   summed into the buffer of the node at the other end; that node's count goes down by one, and
   at zero the node is ready.
5. ``accumulate_into_leaf``: a leaf's node (``AccumulateNode``) sums what arrived into
   ``leaf.grad``.
6. ``release``: a backward op that ran frees what it saved for its VJP, unless ``retain_graph``.

The special modes each live in one place that the phases call:

- capture for ``paddle.grad`` (``inputs=``): ``prune_to_inputs`` keeps only the nodes from
  which a requested input is reached; ``capture_outputs`` returns gradients instead of
  accumulating them.
- hooks and retained gradients: ``output_hooks`` (a backward op's outputs), ``leaf_hooks``.
- PyLayer: ``remember_user_grad`` and ``first_grad_flag``.
- double backward (``create_graph``): ``next_order`` marks the nodes a VJP made and gives them
  Paddle's zero links to saved inputs (``link_saved_inputs``, ``zero_link_grad``).
- the zero-copy ``.grad``: ``first_grad``, ``add_into_grad`` and ``_sole_owner``.
- trace events: with ``trace=True`` the phases ``emit`` ``events.*`` as they go and
  ``hand_over`` yields them (``%step`` and the pictures); ``run_backward`` drives the same
  generator with ``trace=False``, and no event is built. ``PHASE_OF_EVENT`` and
  ``phase_source`` tell which function made an event, with its source lines.

Grad mode: the engine runs with grad mode set to ``create_graph`` (a VJP records a graph only
then); user code (hooks, whoever consumes the events) runs in the caller's mode.
"""
from __future__ import annotations

import heapq
import inspect
import sys
import weakref
from collections import deque

import numpy as np

from . import events as ev
from . import grad_mode, provenance
from . import registry as _registry
from .node import _weakref_type
from .registry import _SLOT_CLASS, STORAGE, _learn_class, _slot, reduce_grad
from .tensor import Tensor as _EngineTensor

#: the array slot's setter (a dialect's ``data`` property may look at its caller)
_SET_DATA = _EngineTensor.__dict__["data"].__set__


class InplaceModifiedError(RuntimeError):
    """A tensor saved for backward was written in place after it was saved."""

    def __init__(self, node, index, tensor, saved_version):
        self.node, self.index, self.tensor = node, index, tensor
        self.version, self.saved_version = tensor._version, saved_version
        super().__init__(
            f"{node.op.name}: its input {index} was modified by an in-place operation after it "
            f"was saved for backward (version {tensor._version}, saved at {saved_version})")


class GraphFreedError(RuntimeError):
    """Backward reached a node whose saved tensors were released by an earlier backward."""

    def __init__(self, node):
        self.node = node
        super().__init__(
            f"{node.op.name}: trying to backward through the same graph a second time, but its "
            "saved tensors have already been freed; call backward(retain_graph=True) the first time"
        )


class EngineState:
    """What one backward pass keeps while it runs."""

    __slots__ = ("deps", "buffers", "ready", "events", "emit", "retain_graph", "create_graph",
                 "retain_nonleaf", "zero_links", "refuse", "capture", "results", "keep", "cut",
                 "user_grads", "prev_mode", "own_versions")

    def __init__(self, *, retain_graph, create_graph, retain_nonleaf, zero_links, refuse, trace,
                 inputs, no_grad_vars):
        self.deps = {}              # node -> gradients it still waits for
        self.buffers = {}           # node -> [gradient of each forward output] arrived so far
        self.ready = deque()        # nodes whose count reached zero, in the order they did
        self.events = [] if trace else None  # emitted, not yet handed over (``hand_over``)
        self.emit = self.events.append if trace else None
        self.retain_graph, self.create_graph = retain_graph, create_graph
        self.retain_nonleaf, self.zero_links, self.refuse = retain_nonleaf, zero_links, refuse
        self.capture = None if inputs is None else capture_slots(inputs)  # paddle.grad
        self.results = None if inputs is None else [None] * len(inputs)
        self.keep = None            # paddle.grad: the nodes that lead to a requested input
        self.cut = edges_of(no_grad_vars) if no_grad_vars else None
        self.user_grads = set()     # ids of gradients a user's PyLayer.backward returned
        self.prev_mode = grad_mode.STATE.enabled
        # a dialect's ``refuse`` hook with ``checks_versions`` set checks saved tensors' in-place
        # versions itself (by its own rules of what each op saves): the engine's check is off
        self.own_versions = getattr(refuse, "checks_versions", False)


# ----------------------------------------------------------------------------- the pass
def iter_backward(roots, root_grads, *, retain_graph=False, create_graph=False, inputs=None,
                  no_grad_vars=None, retain_nonleaf=False, trace=False, zero_links=False,
                  refuse=None, ready_queue=None, deps=None):
    """Generator: run backward from ``roots`` (Tensors) seeded with ``root_grads`` (Tensors).

    Yields ``events.*`` when ``trace``. Returns (as StopIteration.value) the captured gradients
    when ``inputs`` is given (``paddle.grad``). ``refuse(node)``: asked before each node runs;
    an exception it returns is raised there (a dialect's op whose kernel refuses, e.g. one
    without a gradient of its gradient). ``ready_queue``: a factory of the ready queue in place
    of Paddle's first in, first out (``SequenceQueue``: torch's order). ``deps``: the counts
    ``count_dependencies`` would make from the seeds' nodes, when the caller walked the graph
    already (``collect_with_deps``); used only where nothing is traced or captured.
    """
    state = EngineState(retain_graph=retain_graph, create_graph=create_graph,
                        retain_nonleaf=retain_nonleaf, zero_links=zero_links, refuse=refuse,
                        trace=trace, inputs=inputs, no_grad_vars=no_grad_vars)
    if ready_queue is not None:
        state.ready = ready_queue()
    seeds = root_seeds(roots, root_grads)
    if deps is not None and state.capture is None and not trace:
        state.deps = deps
    else:
        count_dependencies(state, [edge[0] for edge, _g in seeds])
    if trace:
        yield from hand_over(state)
    seed_roots(state, seeds)
    if trace:
        yield from hand_over(state)
    ready, buffers, release_graph = state.ready, state.buffers, not retain_graph
    mode = grad_mode.STATE
    mode.enabled = create_graph
    # (the loop's test on the heap list itself: SequenceQueue's __bool__ is a Python call a node)
    # (and SequenceQueue's popleft written out: a Python call a node)
    seq = type(ready) is SequenceQueue
    more = ready.heap if seq else ready
    pop = heapq.heappop
    try:
        while more:  # first in, first out
            node = pop(more)[1] if seq else ready.popleft()
            buf = buffers.pop(node, None)  # the gradients that reached it
            if node.op is None:  # a leaf's node
                accumulate_into_leaf(state, node, buf)
            else:
                grads = run_node(state, node, buf)
                if grads is not None:  # (None: paddle.grad needs nothing below this node)
                    send_gradients(state, node, grads)
                    grads = None  # (a gradient held here would be copied: see _sole_owner)
                    if release_graph:
                        release(state, node)
            if trace:
                yield from hand_over(state)
            continue  # (a plain jump back: CPython 3.11 specializes the loop's code only on those)
    except Exception:
        if trace:
            yield from hand_over(state)  # the events that came before the error, then the error
        raise
    finally:
        mode.enabled = state.prev_mode
    return state.results


# ------------------------------------------------- the plain pass, written as one loop
class _PlainState:
    """What the phases read of a plain pass's state (``run_plain``): nothing captured, traced
    or hooked, no graph of the gradients built. Read-only and shared."""

    __slots__ = ()
    capture = keep = cut = emit = refuse = None
    create_graph = retain_nonleaf = zero_links = own_versions = False
    user_grads = frozenset()


_PLAIN = _PlainState()


def plain_graph(grad_nodes, leaf_nodes):
    """Whether ``run_plain`` may run these nodes (a backward's ``collect_nodes``, the leaves'
    nodes apart): no forward output with a hook or a retained gradient, no leaf with a hook,
    no structural zero links (``link_saved_inputs``) and no PyLayer (whose gradients' flag is
    remembered): the phases' special modes all stay off."""
    post = NODE_POST_HOOKS or None
    for n in grad_nodes:
        if n.zero_from is not None or n.op.name == "py_layer":
            return False
        if post is not None and n in post:
            return False
        refs = n._out_refs
        if refs is None:
            continue
        if type(refs) is tuple:
            for r in refs:
                t = r()
                if t is not None and (t._hooks or t._retain):
                    return False
        else:
            t = refs()
            if t is not None and (t._hooks or t._retain):
                return False
    for n in leaf_nodes:
        leaf = n.leaf_ref()
        if leaf is not None and leaf._hooks:
            return False
    return True


def run_plain(root, slot, g, deps):
    """``run_backward((t,), (g,), retain_graph=True, ready_queue=SequenceQueue, deps=deps)``, t's
    gradient entering ``root`` at ``slot``, for a graph ``plain_graph`` passed, no trace sink:
    the same phases in torch's order as one loop, without the special modes' tests, the state
    and the generator (``send_gradients`` inline). ``deps``: ``collect_with_deps``', used up."""
    buffers = {root: _new_buffer(root)}
    buffers[root][slot] = g
    g = None
    count = SequenceQueue.LEAF_KEY + (root.op is None)
    heap = [] if deps.get(root, 0) else [(count if root.op is None else -root.uid, root)]
    pop, push = heapq.heappop, heapq.heappush
    mode = grad_mode.STATE
    prev, mode.enabled = mode.enabled, False
    try:
        while heap:
            node = pop(heap)[1]
            buf = buffers.pop(node, None)
            op = node.op
            if op is None:  # a leaf's node
                _accumulate_plain(node, buf)
                continue
            in_grads = _run_plain_node(node, op, buf)  # phase 3
            buf = None
            # phase 4 (send_gradients)
            in_meta = node._in_meta
            in_data = node.in_data if in_meta is None else None
            n_in = len(in_grads)
            edges = node.edges
            for j in range(0, len(edges), 2):
                child = edges[j]
                if child is None:
                    continue
                i = j >> 1
                g = in_grads[i] if i < n_in else None
                if g is not None:
                    shape, dtype = in_meta[i] if in_data is None else (in_data[i].shape,
                                                                       in_data[i].dtype)
                    gd = _slot(g) if _SLOT_CLASS.get(type(g)) else _data(g)
                    if gd.shape != shape or gd.dtype is not dtype and gd.dtype != dtype:
                        g = reduce_grad(op, i, g, shape, dtype)
                    gd = None
                    cbuf = buffers.get(child)
                    if cbuf is None:
                        out = child.out_data if child.op is not None else _ONE
                        cbuf = buffers[child] = [None] * len(out) if out is not None else \
                            _new_buffer(child)
                    cur = cbuf[slot := edges[j + 1]]
                    cbuf[slot] = g if cur is None else _add(cur, g, False)
                    g = cur = cbuf = None   # (a gradient held here would be copied: _sole_owner)
                deps[child] = d = deps[child] - 1
                if d == 0:
                    if child.op is None:
                        count += 1
                        push(heap, (count, child))
                    else:
                        push(heap, (-child.uid, child))
            in_grads = None
            continue  # (a plain jump back, as in iter_backward)
    finally:
        mode.enabled = prev


def _accumulate_plain(node, buf):
    """``accumulate_into_leaf`` of a plain pass (no hook, capture or graph of the gradients)."""
    g = buf[0] if buf else None
    leaf = node.leaf_ref()
    if g is None or leaf is None:
        return
    cur = leaf._grad
    if cur is None:  # (ownership judged here, where the buffer and this frame hold ``g``)
        la = _data(leaf)
        owner = _data(g).dtype == la.dtype and _sole_owner(g, True)
        leaf._grad = first_grad(_PLAIN, node, leaf, g, owner, la)
    elif node.cleared is None or not node.take_cleared(cur, _sole_owner(g, True), g):
        add_into_grad(node, cur, g)


def _run_plain_node(node, op, buf):
    """``run_node`` of a plain pass: the VJP's input gradients, a tuple or a list."""
    if node.released:
        raise GraphFreedError(node)
    if buf is None:
        buf = _new_buffer(node)
    for x in buf:
        if x is None:
            if not getattr(op, "undefined_grads", False):
                _zeros_for_missing(node, buf)
            break
    if op.saves_inputs:
        if node.in_versions is not None:
            _check_versions(node)
        else:
            for t in node.inputs:
                if t._version:
                    _check_versions(node)
    in_grads = op.vjp(node, *buf)
    if type(in_grads) is not tuple and type(in_grads) is not list:
        in_grads = (in_grads,)
    return in_grads


class SequenceQueue:
    """torch's ready queue (the autograd engine's ReadyQueue): of the ready nodes, the one made
    last (the highest sequence number) runs first, so a branch is run to its end before an
    older one; a leaf's node (AccumulateGrad, sequence number UINT64_MAX) before any. The order
    decides in which order the gradients of a tensor used several times are summed."""

    __slots__ = ("heap", "count")

    # one integer key per entry: a node's is -uid (the last made first), a leaf's is below every
    # node's (LEAF_KEY plus its arrival count: leaves first, in the order they became ready)
    LEAF_KEY = -(1 << 62)

    def __init__(self):
        self.heap = []
        self.count = self.LEAF_KEY

    def append(self, node, _push=heapq.heappush):
        if node.op is None:
            self.count += 1
            _push(self.heap, (self.count, node))
        else:
            _push(self.heap, (-node.uid, node))

    def popleft(self, _pop=heapq.heappop):
        return _pop(self.heap)[1]

    def __bool__(self):
        return bool(self.heap)

    def __len__(self):
        return len(self.heap)

    def __contains__(self, node):
        return any(n is node for _k, n in self.heap)

    def __iter__(self):
        return iter([n for _k, n in sorted(self.heap, key=lambda e: e[0])])


def root_seeds(roots, root_grads):
    """Each root's gradient edge (the node and output slot its gradient enters), with its seed."""
    seeds = []
    for t, g in zip(roots, root_grads):
        edge = t.gradient_edge()
        if edge is not None:
            seeds.append((edge, g))
    return seeds


def count_dependencies(state, roots):
    """Phase 1 (PrepareDeps): for every backward op reachable from the ``roots``, how many
    ``grad_pending_ops`` edges point at it."""
    if state.capture is not None:
        nodes = prune_to_inputs(state, collect_nodes(roots), roots)
        deps = count_deps(nodes, state.keep)
    elif state.emit is None:
        deps = walk_deps(roots)
    else:  # (the event lists the nodes in collect_nodes' order)
        deps = count_deps(collect_nodes(roots))
    state.deps = deps
    emit = state.emit
    if emit is not None:
        emit(ev.DepsCounted(dict(deps)))


def collect_nodes(root_nodes):
    """Every backward node reachable from ``root_nodes`` (iterative: graphs may be deep)."""
    return collect_with_deps(root_nodes)[0]


def collect_with_deps(root_nodes):
    """``collect_nodes(root_nodes)`` (the same order) and ``walk_deps(root_nodes)`` (the same
    counts) in one walk."""
    deps = dict.fromkeys(root_nodes, 0)
    get = deps.get
    seen = set()
    order = []
    stack = list(root_nodes)
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        order.append(n)
        for child in n.edges[::2]:
            if child is not None:
                deps[child] = get(child, 0) + 1
                if child not in seen:
                    stack.append(child)
    return order, deps


def count_deps(nodes, keep=None):
    """For each of ``nodes``, the edges from ``nodes`` pointing at it (only into ``keep``)."""
    deps = dict.fromkeys(nodes, 0)
    for n in nodes:
        for child in n.edges[::2]:
            if child is not None and (keep is None or child in keep):
                deps[child] += 1
    return deps


def walk_deps(root_nodes):
    """``count_deps(collect_nodes(root_nodes))`` in one walk: for every node reachable from the
    roots, how many ``grad_pending_ops`` edges point at it."""
    deps = dict.fromkeys(root_nodes, 0)
    stack = list(deps)
    get = deps.get
    while stack:
        for child in stack.pop().edges[::2]:
            if child is not None:
                d = get(child)
                if d is None:
                    deps[child] = 1
                    stack.append(child)
                else:
                    deps[child] = d + 1
    return deps


def seed_roots(state, seeds):
    """Phase 2: each root's gradient goes into its node's buffer (summed, when one tensor is
    given twice); a root that waits for no other gradient joins the ready queue."""
    buffers, keep, emit = state.buffers, state.keep, state.emit
    for (node, slot), g in seeds:
        if keep is not None and node not in keep:
            continue
        buf = buffers.get(node)
        if buf is None:
            buf = buffers[node] = _new_buffer(node)
        buf[slot] = _add(buf[slot], g, state.create_graph)
        if emit is not None:
            emit(ev.Seeded(node, slot, g))
    ready, deps = state.ready, state.deps
    queued = set()  # (the queue is empty before this: the roots queued here are all it holds)
    for (node, _slot), _g in seeds:
        if node in buffers and deps.get(node, 0) == 0 and node not in queued:
            ready.append(node)
            queued.add(node)
            if emit is not None:
                emit(ev.Ready(node))


def run_node(state, node, buf):
    """Phase 3: run one backward op. Its VJP maps the gradients of the forward op's outputs
    (``out_grad``; zeros for an output no gradient reached) to those of its inputs
    (``x_grad``), which are returned; None when ``paddle.grad`` needs nothing below the node."""
    if node.released:
        raise GraphFreedError(node)
    if buf is None:
        buf = _new_buffer(node)
    hooks = NODE_POST_HOOKS.get(node) if NODE_POST_HOOKS else None
    out_grads = tuple(buf) if hooks else None   # (the hooks see None where none arrived)
    for g in buf:  # (identity tests: ``None in buf`` would call the tensors' __eq__)
        if g is None:
            if not getattr(node.op, "undefined_grads", False):  # (torch's: left undefined)
                _zeros_for_missing(node, buf)
            break
    refs = node._out_refs  # the forward outputs: is any hooked or retained?
    if refs is not None and (state.retain_nonleaf or type(refs) is tuple or (
            (t := refs()) is not None and (t._hooks is not None or t._retain))):
        output_hooks(state, node, buf)
    if state.capture is not None and not capture_outputs(state, node, buf):
        return None
    op = node.op
    if op.saves_inputs and not state.own_versions:
        if node.in_versions is not None:
            _check_versions(node)
        else:
            for t in node.inputs:
                if t._version:
                    _check_versions(node)
    refuse = state.refuse
    if refuse is not None:
        refused = refuse(node)
        if refused is not None:
            raise refused
    start = provenance.mark() if state.create_graph else None
    in_grads = op.vjp(node, *buf)
    if type(in_grads) is not tuple and type(in_grads) is not list:
        in_grads = (in_grads,)
    if start is not None:
        if getattr(op.vjp, "exact_first_order", False):
            in_grads = exact_values(node, buf, in_grads, start)
        in_grads = next_order(state, node, in_grads, start)
    if hooks:
        in_grads = _in_user_mode(state, _run_node_hooks, hooks, node, in_grads, buf, out_grads)
    emit = state.emit
    if emit is not None:
        emit(ev.Run(node, tuple(buf), tuple(in_grads)))
    return in_grads


def send_gradients(state, node, in_grads, _push=heapq.heappush):
    """Phase 4: each input gradient travels along its ``grad_pending_ops`` edge. It is reduced
    to the input's shape and dtype (a broadcast's gradient summed back) and summed into the
    buffer of the node the edge points to; that node's count goes down by one, and at zero it
    joins the ready queue."""
    buffers, deps, ready, emit = state.buffers, state.deps, state.ready, state.emit
    keep, cut, op = state.keep, state.cut, node.op
    from_user = op.name == "py_layer"
    # the inputs' shapes and dtypes: from the saved arrays (no tuples made), or the kept
    # metadata (a released or hooked node, or one with structural links)
    in_meta = node._in_meta
    in_data = node.in_data if in_meta is None else None
    n_in = len(in_grads)
    edges = node.edges
    for j in range(0, len(edges), 2):
        child = edges[j]
        if child is None or (keep is not None and child not in keep):
            continue
        slot = edges[j + 1]
        i = j >> 1
        g = in_grads[i] if i < n_in else None
        if g is None and node.zero_from is not None and i >= node.zero_from \
                and not _sibling_sends(state, node, i):
            g = zero_link_grad(state, node, i)
        if g is not None and (cut is None or (child, slot) not in cut):  # (cut: no_grad_vars)
            if in_meta is None:
                a = in_data[i]
                shape, dtype = a.shape, a.dtype
            else:
                shape, dtype = in_meta[i]
            gd = _slot(g) if _SLOT_CLASS.get(type(g)) else _data(g)
            if gd.shape != shape or gd.dtype is not dtype and gd.dtype != dtype:
                g = reduce_grad(op, i, g, shape, dtype)
            if from_user:
                remember_user_grad(state, g)
            cbuf = buffers.get(child)
            if cbuf is None:   # (_new_buffer written out for a node and a leaf's node)
                out = child.out_data if child.op is not None else _ONE
                cbuf = buffers[child] = [None] * len(out) if out is not None else \
                    _new_buffer(child)
            cur = cbuf[slot]
            cbuf[slot] = g if cur is None else _add(cur, g, state.create_graph)
            if emit is not None:
                emit(ev.Accumulate(child, slot, g, cbuf[slot]))
        d = deps[child] - 1
        deps[child] = d
        if emit is not None:
            emit(ev.DepDec(child, d))
        if d == 0:
            if type(ready) is SequenceQueue and child.op is not None:
                _push(ready.heap, (-child.uid, child))   # (SequenceQueue.append's node case)
            else:
                ready.append(child)
            if emit is not None:
                emit(ev.Ready(child))


def accumulate_into_leaf(state, node, buf):
    """Phase 5: a leaf's node (``AccumulateNode``) sums the gradient that reached it into
    ``leaf.grad``: the first one becomes ``.grad``, later ones are added into the same tensor
    (a reference the user holds sees them, as in Paddle)."""
    g = buf[0] if buf else None
    leaf = node.leaf_ref()  # (the ``leaf`` property written out)
    if g is None or leaf is None:
        return
    if leaf._hooks:
        g = leaf_hooks(state, leaf, g)
    if state.capture is not None:
        capture_outputs(state, node, [g])  # paddle.grad: returned, not accumulated
        return
    in_buffer = buf[0] is g
    cur = leaf._grad
    if state.create_graph:  # .grad keeps its graph (a gradient of the gradient)
        leaf._grad = g if cur is None else _in_user_mode(state, _add, cur, g, True)
    elif cur is None:
        # (ownership is judged here, where ``g`` is held only by the buffer and this frame)
        la = _data(leaf)
        owner = _data(g).dtype == la.dtype and _sole_owner(g, in_buffer)
        leaf._grad = first_grad(state, node, leaf, g, owner, la)
    elif node.cleared is None or not node.take_cleared(cur, _sole_owner(g, in_buffer), g):
        add_into_grad(node, cur, g)
    emit = state.emit
    if emit is not None:
        emit(ev.Accumulate(node, 0, g, leaf._grad))


def release(state, node):
    """Phase 6: the backward op frees what it saved for its VJP (without ``retain_graph``)."""
    node.release()
    emit = state.emit
    if emit is not None:
        emit(ev.Released(node))


def _zeros_for_missing(node, buf):
    """The gradient of a forward output that no gradient reached: zeros."""
    cls = _result_type(node)
    for k in range(len(buf)):
        if buf[k] is None:
            shape, dtype = node.out_meta[k]
            buf[k] = cls._wrap(np.zeros(shape, dtype), True)


def _result_type(node):
    """The tensor class of a node's inputs (its dialect's), also once it let go of them."""
    inputs = node.inputs  # (None once a node let go of them: see drop_inputs)
    return inputs[0]._result_type if inputs is not None else node.result_type


_ONE = (None,)   # (a leaf's node's buffer has one slot)


def _new_buffer(node):
    """A node's gradient buffer: one slot per forward output (a leaf's node: one)."""
    if node.op is None:
        return [None]
    data = node.out_data
    return [None] * (len(data) if data is not None else len(node.out_meta))


def _add(a, b, create_graph):
    if a is None:
        return b
    if create_graph:
        from .ops.math import add

        return add(a, b)
    if STORAGE and a.data.dtype in STORAGE:  # a dialect's stored format sums its own way
        return a._wrap(STORAGE[a.data.dtype].add(a.data, b.data), True)
    return a._wrap(_data(a) + _data(b), True)


def _data(t):
    """``t.data`` for the engine: the array slot itself for a class whose ``data`` answers
    gradrepl's code with it (the torch dialect's property looks at its caller's frame: ~0.5 us
    a read, one to three a node), as ``registry.apply`` reads it."""
    fast = _SLOT_CLASS.get(type(t))
    if fast is None:
        fast = _learn_class(type(t))
    return _slot(t) if fast else t.data


def _check_versions(node):
    for i, t in enumerate(node.inputs):
        if t._version != node.saved_version(i):
            raise InplaceModifiedError(node, i, t, node.saved_version(i))


# ------------------------------------------------------------- capture (paddle.grad)
def capture_slots(inputs):
    """``paddle.grad``'s inputs: the (node, slot) each one's gradient arrives at -> indices."""
    capture = {}
    for i, t in enumerate(inputs):
        edge = t.gradient_edge()
        if edge is not None:
            capture.setdefault(edge, []).append(i)
    return capture


def edges_of(tensors):
    """``no_grad_vars``: the gradient edges that carry nothing."""
    return {e for e in (t.gradient_edge() for t in tensors) if e is not None}


def prune_to_inputs(state, nodes, roots):
    """Only the nodes from which a requested input can be reached are run (``state.keep``)."""
    parents = {}
    for n in nodes:
        for child in n.edges[::2]:
            if child is not None:
                parents.setdefault(child, []).append(n)
    keep = state.keep = set()
    stack = [e[0] for e in state.capture if e[0] in parents or any(e[0] is r for r in roots)]
    while stack:
        n = stack.pop()
        if n in keep:
            continue
        keep.add(n)
        stack.extend(parents.get(n, ()))
    return [n for n in nodes if n in keep]


def capture_outputs(state, node, buf):
    """The gradients in ``buf`` that ``paddle.grad`` asked for are its results. Returns whether
    anything below ``node`` is still needed (a requested non-leaf input may end the path)."""
    capture, results, emit = state.capture, state.results, state.emit
    for k in range(len(buf)):
        for i in capture.get((node, k), ()):
            results[i] = buf[k]
            if emit is not None:
                emit(ev.Captured(i, buf[k]))
    keep = state.keep
    return any(child is not None and child in keep for child in node.edges[::2])


# ---------------------------------------------------------- hooks, retained gradients
def output_hooks(state, node, buf):
    """A backward op's forward outputs: each one's hooks see (and may replace) its gradient;
    a retained one (``retain_grads()``; every non-leaf in Paddle 2.2) keeps it as ``.grad``."""
    refs, retain_nonleaf = node._out_refs, state.retain_nonleaf
    if type(refs) is _weakref_type:  # (one output: no tuple made)
        t = refs()
        if t is not None and (t._hooks is not None or t._retain or retain_nonleaf):
            _output_grad(state, node, t, buf, 0)
        return
    for k, r in enumerate(refs):
        t = r()
        if t is not None and (t._hooks is not None or t._retain or retain_nonleaf):
            _output_grad(state, node, t, buf, k)


def _output_grad(state, node, t, buf, k):
    if t._hooks:
        buf[k] = _in_user_mode(state, _run_hooks, t._hooks, buf[k])
    if state.retain_nonleaf or t._retain:
        inputs = node.inputs
        cls = inputs[0]._result_type if inputs is not None else node.result_type
        t._grad = cls._wrap(np.array(buf[k].data), False)


#: hooks on backward nodes (torch's ``grad_fn.register_hook``): node -> [fn(node, in_grads,
#: out_grads)], each called after the node's VJP with the gradients it computed for its inputs
#: (None where an input takes none; each reduced to its input's shape) and those of its outputs;
#: what one returns (a sequence, one entry per input) replaces the input gradients
NODE_POST_HOOKS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _run_node_hooks(hooks, node, in_grads, buf, out_grads):
    edges, op = node.edges, node.op
    n_in = len(in_grads)
    grads = []
    for i in range(len(edges) // 2):
        g = in_grads[i] if i < n_in and edges[2 * i] is not None else None
        if g is not None:
            shape, dtype = node.in_meta[i]
            gd = _data(g)
            if gd.shape != shape or gd.dtype != dtype:
                g = reduce_grad(op, i, g, shape, dtype)
        grads.append(g)
    grads = tuple(grads)
    for k, g in enumerate(out_grads):   # (output hooks may have replaced some since)
        if g is not None:
            out_grads = out_grads[:k] + (buf[k],) + out_grads[k + 1:]
    for hook in list(hooks):
        r = hook(node, grads, out_grads)
        if r is not None:
            grads = tuple(r)
    return grads


def leaf_hooks(state, leaf, g):
    """A leaf's hooks see (and may replace) its gradient before it is accumulated."""
    return _in_user_mode(state, _run_hooks, leaf._hooks, g)


def _run_hooks(hooks, g):
    for hook in hooks:
        r = hook(g)
        if r is not None:
            g = r
    return g


def _in_user_mode(state, fn, *args):
    """Call ``fn`` in the caller's grad mode (the engine's is ``create_graph``)."""
    mode = grad_mode.STATE
    mode.enabled = state.prev_mode
    try:
        return fn(*args)
    finally:
        mode.enabled = state.create_graph


# ------------------------------------------------------------------------- PyLayer
def remember_user_grad(state, g):
    """A gradient a user's ``PyLayer.backward`` returned (see ``first_grad_flag``)."""
    state.user_grads.add(id(g))


def first_grad_flag(state, g):
    """The ``stop_gradient`` of a leaf's first ``.grad``: False, but a PyLayer's backward result
    keeps its own (Paddle does)."""
    return g.stop_gradient if id(g) in state.user_grads else False


# ------------------------------------------------------------------ double backward
def next_order(state, node, in_grads, start):
    """``create_graph``: the nodes this VJP made (uids from ``start``) are of the next
    derivative order; with ``zero_links``, they link the op's saved inputs as Paddle's
    double-grad nodes do."""
    if state.zero_links and node.op.double_grad_zeros:
        in_grads = link_saved_inputs(node, in_grads, start)
    provenance.set_order(in_grads, start, provenance.order_of(node) + 1)
    return in_grads


def exact_values(node, buf, in_grads, start):
    """``create_graph`` and a VJP marked ``registry.exact_first_order`` (its exact kernels run
    only with grad mode off): run it again with grad mode off and give the recorded gradients
    those values, so first-order values do not depend on create_graph (real torch and Paddle
    run the same backward kernels either way, with double-backward formulas attached). The
    recorded graph is unchanged, so second-order gradients are the formula's. A fresh result
    (its node made by this VJP) takes the values in place; any other (the incoming gradient,
    a constant) is replaced by a new tensor on the same gradient edge. Not run when every
    gradient is an output of a fresh node whose op ``carries_exact`` values (the torch
    dialect's XBackwardBackward0 nodes record the exact values themselves)."""
    carried = False
    for r in in_grads:
        if r is not None:
            head = r.grad_node
            if head is None or head.uid <= start or not getattr(head.op, "carries_exact",
                                                                    False):
                carried = False
                break
            carried = True
    if carried:
        return in_grads
    mode = grad_mode.STATE
    mode.enabled = False
    try:
        exact = node.op.vjp(node, *buf)
    finally:
        mode.enabled = True
    if type(exact) is not tuple and type(exact) is not list:
        exact = (exact,)
    out = list(in_grads)
    done = set()
    for k in range(min(len(out), len(exact))):
        r, e = out[k], exact[k]
        if r is None or e is None:
            continue
        rd, ed = _data(r), _data(e)
        if rd is ed or rd.shape != ed.shape or rd.dtype != ed.dtype:
            continue
        if _registry.EXACT_LISTENER is not None:
            _registry.EXACT_LISTENER(node, rd, ed)
        head = r.grad_node
        if head is not None and head.uid > start and id(r) not in done:
            _SET_DATA(r, ed)
            done.add(id(r))
        elif head is not None or r.stop_gradient:
            out[k] = type(r)._wrap(ed, r.stop_gradient, head, r.out_slot)
    return out


# a double-grad head -> {edge index of a zero link: the other gradients' nodes of the same VJP
# that reach that input}. Paddle's double-grad node gives each saved input one gradient, its
# formula's; the zeros stand in only where none of the op's other gradients takes part.
_LINK_SIBLINGS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _sibling_sends(state, node, i):
    """Whether another gradient of ``node``'s VJP that reaches input ``i`` runs in this
    backward (then ``i`` gets that gradient alone, as from Paddle's one double-grad node, and
    a -0. stays -0.: the structural zeros are not added)."""
    sibs = _LINK_SIBLINGS.get(node)
    if not sibs:
        return False
    sibs = sibs.get(i)
    if not sibs:
        return False
    deps, keep = state.deps, state.keep
    return any(s in deps and (keep is None or s in keep) for s in sibs)


def zero_link_grad(state, node, i):
    """The zeros a structural link (``link_saved_inputs``) carries to input ``i``."""
    shape, dtype = node._in_meta[i]
    return _result_type(node)._wrap(np.zeros(shape, dtype), not state.create_graph)


def link_saved_inputs(node, in_grads, start):
    """Paddle's double-grad nodes take every saved input of the op (``x``, ``y`` of a multiply,
    ``out`` of a relu), so a second backward through them gives an input the gradient does not
    depend on a zero gradient, not None. Here the VJP's Tensor ops reach only what the formula
    uses; each gradient's newest node gets, for every saved input that takes a gradient and that
    none of this VJP's nodes reaches, one more edge that carries zeros (``zero_from``).
    """
    inputs = node.inputs
    if not node.op.saves_inputs or inputs is None:
        return in_grads
    links = getattr(node.op, "double_grad_links", None)   # (op, node) -> whether Paddle links
    if links is not None and not links(node):
        return in_grads
    wanted = []
    for t in inputs:
        e = t.gradient_edge()
        if e is not None:
            wanted.append((e, t.data.shape, t.data.dtype))
    if not wanted:
        return in_grads
    heads = {}
    for k, g in enumerate(in_grads):
        head = None if g is None else g.grad_node
        if head is not None and head.uid >= start and head.op is not None:
            heads[k] = (head, _edges_reached(node, head, start))
    for k, g in enumerate(in_grads):
        head = None if g is None else g.grad_node
        if head is None and g is not None and g.stop_gradient \
                and node.op.name in CONSTANT_GRAD_LINKS:
            # a constant gradient (x * w's, w constant): a node of its own carries the links
            in_grads = list(in_grads)
            in_grads[k] = _linked_constant(g, wanted)
            continue
        if head is None or head.uid < start or head.op is None:
            continue
        reached = heads[k][1]
        extra = [(e, shape, dtype) for e, shape, dtype in wanted
                 if (id(e[0]), e[1]) not in reached]
        if not extra:
            continue
        edges, meta = list(head.next_edges), list(head.in_meta)
        if head.zero_from is None:
            head.zero_from = len(edges)
        for e, shape, dtype in extra:
            key = (id(e[0]), e[1])
            sibs = tuple(h for j, (h, r) in heads.items() if j != k and h is not head and key in r)
            if sibs:
                _LINK_SIBLINGS.setdefault(head, {})[len(edges)] = sibs
            edges.append(e)
            meta.append((shape, dtype))
        head.next_edges, head.in_meta = tuple(edges), tuple(meta)
    return in_grads


# Ops whose double-grad node links the saved inputs even when the first gradient is a
# constant (measured on real Paddle 3.3.1/2.6.2: multiply does, giving zeros on a second
# backward; leaky_relu, maximum and minimum do not, giving None: tests/test_numerics_more.py).
CONSTANT_GRAD_LINKS = frozenset({"multiply"})


def _linked_constant(g, wanted):
    """``g``'s value as the output of an ``assign`` node whose only edges are zero links to the
    saved inputs (``wanted``: (edge, shape, dtype) each)."""
    import weakref

    from .node import GradNode
    from .registry import OPS

    node = GradNode(OPS["assign"], {}, (g,), (g.data,))
    edges, meta = list(node.next_edges), [(g.data.shape, g.data.dtype)]
    node.zero_from = len(edges)
    for e, shape, dtype in wanted:
        edges.append(e)
        meta.append((shape, dtype))
    node.next_edges, node.in_meta = tuple(edges), tuple(meta)
    out = g._result_type._wrap(g.data, False, node, 0)
    node._out_refs = weakref.ref(out)
    return out


def _edges_reached(node, head, start):
    """The (id(node), slot) edges leaving the nodes this VJP made (uids from ``start``), from
    ``head`` down, and the op's own ``node`` reached through ``out()``."""
    reached = set()
    stack, seen = [head], set()
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        for e in n.next_edges:
            if e is None:
                continue
            reached.add((id(e[0]), e[1]))
            child = e[0]
            if child.op is not None and (child.uid >= start or child is node):
                stack.append(child)
    return reached


# ------------------------------------------------------------- the zero-copy .grad
def first_grad(state, node, leaf, g, owner, var=None):
    """A leaf's first gradient, as its ``.grad``: ``g``'s own array where nothing else holds it
    (``owner``, judged by the caller), else a copy in the leaf's dtype. ``var``: the leaf's
    array, when the caller read it already."""
    flag = first_grad_flag(state, g) if state.user_grads else False
    if var is None:
        var = _data(leaf)
    arr = _data(g)
    if not owner:
        arr = np.array(arr, dtype=var.dtype)
    if not (arr.flags.c_contiguous and var.flags.c_contiguous) and getattr(
            type(leaf), "_grad_layout_contract", False):
        arr = obey_layout(arr, var)
    node.own_grad_data(arr)
    return leaf._result_type._wrap(arr, flag)


def obey_layout(arr, var):
    """torch's AccumulateGrad layout contract (a dialect whose tensor class sets
    ``_grad_layout_contract``): a leaf's first ``.grad`` has the leaf's strides when the leaf is
    dense (the incoming gradient kept when its strides already match on every dim of size > 1),
    else it is contiguous; a transposed or permuted gradient (a bmm's, an einsum's) is copied
    so. Its values are unchanged; its layout decides the order of a later reduction over it."""
    dense = np.empty_like(var)   # (numpy's 'K' order: the leaf's axis order, densely packed)
    if all(n == 1 or sv == sd for n, sv, sd in zip(var.shape, var.strides, dense.strides)):
        if all(n == 1 or sa // arr.itemsize == sv // var.itemsize
               for n, sa, sv in zip(arr.shape, arr.strides, var.strides)):
            return arr
        out = np.empty_like(var, dtype=arr.dtype)
    else:
        if arr.flags.c_contiguous:
            return arr
        out = np.empty(arr.shape, arr.dtype)
    out[...] = arr
    return out


def add_into_grad(node, cur, g):
    """Sum ``g`` into the leaf's ``.grad`` tensor ``cur``: in place into the array the engine
    allocated for it when it still holds it and can take the sum, else into a new array."""
    arr = node.owned_grad_data()
    gd = g.data
    if STORAGE and cur.data.dtype in STORAGE:
        cur.data = STORAGE[cur.data.dtype].add(cur.data, gd)
    elif arr is not None and arr.flags.writeable and (
            (arr.shape == gd.shape and arr.dtype == gd.dtype)
            or (arr.shape == np.broadcast_shapes(arr.shape, gd.shape)
                and np.can_cast(gd.dtype, arr.dtype, "same_kind")
                and np.result_type(arr, gd) == arr.dtype)):
        np.add(arr, gd, out=arr)
    else:
        cur.data = cur.data + gd


def _sole_owner(g, in_buffer, probe=False):
    """Whether nothing but the backward's own bookkeeping holds the gradient ``g`` and its array,
    which then becomes the leaf's ``.grad`` without a copy (vgg11's first Linear: 400 MB). A
    VJP that sends one tensor to two leaves, an array two tensors wrap, a view of another
    tensor's data, a hook or a trace that keeps the gradient: each adds a reference, and the
    array is copied. An array may be a view of a whole buffer nothing else holds (a conv's
    filter gradient is a reshape of the matrix product's result)."""
    arr = _data(g)
    if not arr.flags.writeable:
        return False
    base = arr.base
    if base is not None and not (type(base) is np.ndarray and base.base is None
                                 and base.nbytes == arr.nbytes and arr.flags.c_contiguous):
        return False
    counts = (sys.getrefcount(arr), sys.getrefcount(g),
              0 if base is None else sys.getrefcount(base))
    if probe:
        return counts
    return (counts[0] <= _ARRAY_REFS and counts[1] <= _TENSOR_REFS - (not in_buffer)
            and counts[2] <= _BASE_REFS)


def _baseline_ref_counts():
    """The counts ``_sole_owner`` sees for a gradient held only by a buffer list and the
    backward's local variable (measured, not assumed: interpreters count differently)."""
    from .tensor import Tensor

    buf = [Tensor._wrap(np.empty(2).reshape(1, 2))]
    g = buf[0]
    return _sole_owner(g, True, probe=True)


_ARRAY_REFS, _TENSOR_REFS, _BASE_REFS = _baseline_ref_counts()


# ------------------------------------------------------------------- trace events
def hand_over(state):
    """Trace mode: yield the events the phases emitted since the last hand-over, in the
    caller's grad mode (whoever consumes them runs code of their own)."""
    mode = grad_mode.STATE
    engine_mode, mode.enabled = mode.enabled, state.prev_mode
    yield from state.events
    state.events.clear()
    mode.enabled = engine_mode


TRACE_SINK = None  # a callable given every event of every backward (pictures of a script's run)


def run_backward(roots, root_grads, **kw):
    """Drive ``iter_backward`` to the end without building events; return captured grads.

    With a ``TRACE_SINK`` installed, events are built and handed to it as they happen.
    """
    sink = TRACE_SINK
    if sink is not None:
        gen = iter_backward(roots, root_grads, trace=True, **kw)
        sink(("begin", roots, kw))
        try:
            while True:
                sink(next(gen))
        except StopIteration as stop:
            sink(("end", roots, kw))
            return stop.value
    gen = iter_backward(roots, root_grads, trace=False, **kw)
    if kw.get("inputs") is None:  # (nothing to return: no StopIteration caught for its value)
        for _ in gen:
            pass
        return None
    try:
        while True:
            next(gen)
    except StopIteration as stop:
        return stop.value


# ------------------------------------------------------ from the picture to the code
#: The phase that emits each kind of event. Two kinds come from two phases: a ``Ready`` from
#: ``seed_roots`` too (a root), an ``Accumulate`` from ``accumulate_into_leaf`` too (into
#: ``.grad``); ``phase_of`` tells them apart by the neighbouring events.
PHASE_OF_EVENT = {
    ev.DepsCounted: count_dependencies,
    ev.Seeded: seed_roots,
    ev.Ready: send_gradients,
    ev.Run: run_node,
    ev.Accumulate: send_gradients,
    ev.DepDec: send_gradients,
    ev.Released: release,
    ev.Captured: capture_outputs,
}


def phase_of(event, before=None, after=None):
    """The function that emitted ``event``; ``before``/``after``: the events next to it in its
    stream. A ``Ready`` that does not follow a ``DepDec`` is a root's (``seed_roots``); an
    ``Accumulate`` that no ``DepDec`` follows went into a leaf's ``.grad``
    (``accumulate_into_leaf``); without neighbours, the ``PHASE_OF_EVENT`` entry."""
    kind = type(event)
    if kind is ev.Ready and before is not None and type(before) is not ev.DepDec:
        return seed_roots
    if kind is ev.Accumulate and type(after) is not ev.DepDec and (
            after is not None or before is not None) and event.target.op is None:
        return accumulate_into_leaf
    return PHASE_OF_EVENT[kind]


def phase_source(event, before=None, after=None):
    """``(function name, first line number, source lines)`` of the engine function that
    emitted ``event`` (see ``phase_of``), lines without their line ends."""
    fn = phase_of(event, before, after)
    lines, first = inspect.getsourcelines(fn)
    return fn.__name__, first, [line.rstrip("\n") for line in lines]
