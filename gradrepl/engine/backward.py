"""The backward engine: Paddle's dependency-counting ready-queue engine, as a generator of events.

1. PrepareDeps: walk the backward ops reachable from the roots and count, for each, the
   ``grad_pending_ops`` edges pointing at it.
2. Seed each root's buffer with its gradient (ones, or the given ``grad_tensors``).
3. Run the ready queue (FIFO): a node runs when every edge into it has delivered; its VJP's
   gradients are summed into the buffers of the nodes its edges point to, whose counts go down.
4. A leaf's AccumulateNode sums into ``.grad``; a node's saved tensors are freed unless
   ``retain_graph``.

``iter_backward(..., trace=True)`` yields ``events.*`` at every step (for ``%step`` and the
pictures); ``run_backward`` drives the same generator with ``trace=False`` and no events are
built. ``inputs=`` turns on capture mode (``paddle.grad``): gradients for those tensors are
returned instead of accumulated, and only paths that reach them are run.
"""
from __future__ import annotations

import sys
from collections import deque

import numpy as np

from . import events as ev
from . import grad_mode, provenance
from .node import AccumulateNode, _weakref_type
from .registry import STORAGE, reduce_grad


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


def _add(a, b, create_graph):
    if a is None:
        return b
    if create_graph:
        from .ops.math import add

        return add(a, b)
    if STORAGE and a.data.dtype in STORAGE:  # a dialect's stored format sums its own way
        return a._wrap(STORAGE[a.data.dtype].add(a.data, b.data), True)
    return a._wrap(a.data + b.data, True)


def _output_grad(t, buf, k, retain_nonleaf, cls):
    """An output tensor's hooks see (and may replace) its gradient; a retained one keeps it."""
    if t._hooks:
        for hook in t._hooks:
            res = hook(buf[k])
            if res is not None:
                buf[k] = res
    if retain_nonleaf or t._retain:
        t._grad = cls._wrap(np.array(buf[k].data), False)


def _check_versions(node):
    for i, t in enumerate(node.inputs):
        if t._version != node.saved_version(i):
            raise InplaceModifiedError(node, i, t, node.saved_version(i))


def _n_outputs(node):
    data = node.out_data
    return len(data) if data is not None else len(node.out_meta)


def _baseline_ref_counts():
    """The counts ``_sole_owner`` sees for a gradient held only by a buffer list and the
    backward's local variable (measured, not assumed: interpreters count differently)."""
    from .tensor import Tensor

    buf = [Tensor._wrap(np.empty(2).reshape(1, 2))]
    g = buf[0]
    return _sole_owner(g, True, probe=True)


def _sole_owner(g, in_buffer, probe=False):
    """Whether nothing but the backward's own bookkeeping holds the gradient ``g`` and its array,
    which then becomes the leaf's ``.grad`` without a copy (vgg11's first Linear: 400 MB). A
    VJP that sends one tensor to two leaves, an array two tensors wrap, a view of another
    tensor's data, a hook or a trace that keeps the gradient: each adds a reference, and the
    array is copied. An array may be a view of a whole buffer nothing else holds (a conv's
    filter gradient is a reshape of the matrix product's result)."""
    arr = g.data
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


_ARRAY_REFS, _TENSOR_REFS, _BASE_REFS = _baseline_ref_counts()


def collect_nodes(root_nodes):
    """Every backward node reachable from ``root_nodes`` (iterative: graphs may be deep)."""
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
            if child is not None and child not in seen:
                stack.append(child)
    return order


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


def count_deps(nodes, keep=None):
    deps = dict.fromkeys(nodes, 0)
    for n in nodes:
        for child in n.edges[::2]:
            if child is not None and (keep is None or child in keep):
                deps[child] += 1
    return deps


def iter_backward(roots, root_grads, *, retain_graph=False, create_graph=False, inputs=None,
                  no_grad_vars=None, retain_nonleaf=False, trace=False, zero_links=False,
                  refuse=None):
    """Generator: run backward from ``roots`` (Tensors) seeded with ``root_grads`` (Tensors).

    Returns (as StopIteration.value) the captured gradients when ``inputs`` is given.
    ``refuse(node)``: asked before each node runs; an exception it returns is raised there (a
    dialect's op whose kernel refuses, e.g. one without a gradient of its gradient).
    """
    seeds = []
    for t, g in zip(roots, root_grads):
        e = t.gradient_edge()
        if e is not None:
            seeds.append((e, g))
    capture = None
    results = None
    if inputs is not None:
        capture = {}
        results = [None] * len(inputs)
        for i, t in enumerate(inputs):
            e = t.gradient_edge()
            if e is not None:
                capture.setdefault(e, []).append(i)
    cut = None
    if no_grad_vars:
        cut = set()
        for t in no_grad_vars:
            e = t.gradient_edge()
            if e is not None:
                cut.add(e)

    keep = None
    if capture is None and not trace:
        deps = walk_deps([e[0] for e, _ in seeds])
    elif capture is None:  # (the event lists the nodes in collect_nodes' order)
        deps = count_deps(collect_nodes([e[0] for e, _ in seeds]))
    else:
        nodes = collect_nodes([e[0] for e, _ in seeds])
        # only nodes from which a requested input can be reached are run
        parents = {}
        for n in nodes:
            for child in n.edges[::2]:
                if child is not None:
                    parents.setdefault(child, []).append(n)
        keep = set()
        stack = [e[0] for e in capture if e[0] in parents or any(e[0] is s[0][0] for s in seeds)]
        while stack:
            n = stack.pop()
            if n in keep:
                continue
            keep.add(n)
            stack.extend(parents.get(n, ()))
        nodes = [n for n in nodes if n in keep]
        deps = count_deps(nodes, keep)
    if trace:
        yield ev.DepsCounted(dict(deps))

    buffers = {}
    ready = deque()
    for (node, slot), g in seeds:
        if keep is not None and node not in keep:
            continue
        buf = buffers.get(node)
        if buf is None:
            n_out = 1 if isinstance(node, AccumulateNode) else _n_outputs(node)
            buf = buffers[node] = [None] * n_out
        buf[slot] = _add(buf[slot], g, create_graph)
        if trace:
            yield ev.Seeded(node, slot, g)
    for (node, _slot), _g in seeds:
        if node in buffers and deps.get(node, 0) == 0 and node not in ready:
            ready.append(node)
            if trace:
                yield ev.Ready(node)

    state = grad_mode.STATE
    prev_mode = state.enabled
    user_grads = set()  # ids of gradients a user's PyLayer.backward returned
    try:
        while ready:
            node = ready.popleft()
            buf = buffers.pop(node, None)
            if node.op is None:  # a leaf's AccumulateNode
                g = buf[0] if buf else None
                leaf = node.leaf
                if g is None or leaf is None:
                    continue
                if leaf._hooks:
                    for hook in leaf._hooks:
                        r = hook(g)
                        if r is not None:
                            g = r
                if capture is not None:
                    for i in capture.get((node, 0), ()):
                        results[i] = g
                        if trace:
                            yield ev.Captured(i, g)
                    continue
                cur = leaf._grad
                if cur is None:
                    if create_graph:
                        leaf._grad = g
                    else:
                        # a PyLayer's backward result keeps its own stop_gradient (Paddle does)
                        flag = g.stop_gradient if id(g) in user_grads else False
                        if g.data.dtype == leaf.data.dtype and _sole_owner(g, buf[0] is g):
                            arr = g.data
                        else:
                            arr = np.array(g.data, dtype=leaf.data.dtype)
                        leaf._grad = leaf._result_type._wrap(arr, flag)
                        node.own_grad_data(arr)
                elif create_graph:
                    from .ops.math import add

                    leaf._grad = add(cur, g)
                else:  # summed into the same .grad tensor, as Paddle: a held reference sees it
                    # (ownership is judged before ``g.data`` is loaded for the call: a
                    # reference on the stack would count as another owner)
                    if node.cleared is not None and node.take_cleared(
                            cur, _sole_owner(g, buf[0] is g), g):
                        if trace:
                            yield ev.Accumulate(node, 0, g, leaf._grad)
                        continue
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
                        cur.data = cur.data + g.data
                if trace:
                    yield ev.Accumulate(node, 0, g, leaf._grad)
                continue

            if node.released:
                raise GraphFreedError(node)
            # the gradients of this node's forward outputs (zeros where none arrived)
            if buf is None:
                buf = [None] * _n_outputs(node)
            inputs = node.inputs  # (None once a node let go of them: see drop_inputs)
            cls = inputs[0]._result_type if inputs is not None else node.result_type
            # (identity tests: ``None in buf`` would call the tensors' __eq__)
            for k in range(len(buf)):
                if buf[k] is None:
                    shape, dtype = node.out_meta[k]
                    buf[k] = cls._wrap(np.zeros(shape, dtype), True)
            refs = node._out_refs
            if refs is not None:  # hooks and retained gradients of the output tensors
                if type(refs) is _weakref_type:
                    t = refs()
                    if t is not None and (t._hooks is not None or t._retain or retain_nonleaf):
                        _output_grad(t, buf, 0, retain_nonleaf, cls)
                else:
                    for k, r in enumerate(refs):
                        t = r()
                        if t is not None and (t._hooks is not None or t._retain
                                              or retain_nonleaf):
                            _output_grad(t, buf, k, retain_nonleaf, cls)
            if capture is not None:
                for k in range(len(buf)):
                    for i in capture.get((node, k), ()):
                        results[i] = buf[k]
                        if trace:
                            yield ev.Captured(i, buf[k])
                if not any(child is not None and child in keep for child in node.edges[::2]):
                    continue  # a requested non-leaf input: nothing below it is needed

            op = node.op
            if op.saves_inputs:
                versions = node.in_versions
                if versions is None:
                    for t in node.inputs:
                        if t._version:
                            _check_versions(node)
                else:
                    _check_versions(node)
            if refuse is not None:
                refused = refuse(node)
                if refused is not None:
                    raise refused
            state.enabled = create_graph
            if create_graph:
                start = provenance.mark()
                in_grads = op.vjp(node, *buf)
            else:
                in_grads = op.vjp(node, *buf)
            state.enabled = prev_mode
            if type(in_grads) is not tuple and type(in_grads) is not list:
                in_grads = (in_grads,)
            if create_graph:  # the nodes this VJP made are of the next derivative order
                provenance.set_order(in_grads, start, provenance.order_of(node) + 1)
                if zero_links and op.double_grad_zeros:
                    link_saved_inputs(node, in_grads, start)
            if trace:
                yield ev.Run(node, tuple(buf), tuple(in_grads))
            keep_flag = op.name == "py_layer"
            # the inputs' shapes and dtypes: from the saved arrays (no tuples made), or the
            # kept metadata (a released or hooked node, or one with structural links)
            in_meta = node._in_meta
            in_data = node.in_data if in_meta is None else None
            n_in = len(in_grads)
            edges = node.edges
            for j in range(0, len(edges), 2):
                child = edges[j]
                if child is None:
                    continue
                slot = edges[j + 1]
                i = j >> 1
                if keep is not None and child not in keep:
                    continue
                g = in_grads[i] if i < n_in else None
                if g is None and node.zero_from is not None and i >= node.zero_from:
                    shape, dtype = in_meta[i]  # a structural link: a zero gradient
                    g = cls._wrap(np.zeros(shape, dtype), not create_graph)
                if g is not None and (cut is None or (child, slot) not in cut):
                    if in_meta is None:
                        a = in_data[i]
                        shape, dtype = a.shape, a.dtype
                    else:
                        shape, dtype = in_meta[i]
                    gd = g.data
                    if gd.shape != shape or gd.dtype is not dtype and gd.dtype != dtype:
                        state.enabled = create_graph
                        g = reduce_grad(op, i, g, shape, dtype)
                        state.enabled = prev_mode
                    if keep_flag:
                        user_grads.add(id(g))
                    cbuf = buffers.get(child)
                    if cbuf is None:
                        cbuf = buffers[child] = [None] * (
                            1 if child.op is None else _n_outputs(child))
                    cur = cbuf[slot]
                    if cur is None:
                        cbuf[slot] = g
                    else:
                        state.enabled = create_graph
                        cbuf[slot] = _add(cur, g, create_graph)
                        state.enabled = prev_mode
                    if trace:
                        yield ev.Accumulate(child, slot, g, cbuf[slot])
                d = deps[child] - 1
                deps[child] = d
                if trace:
                    yield ev.DepDec(child, d)
                if d == 0:
                    ready.append(child)
                    if trace:
                        yield ev.Ready(child)
            in_grads = g = gd = None  # (no stale references: see _sole_owner)
            if not retain_graph:
                node.release()
                if trace:
                    yield ev.Released(node)
    finally:
        state.enabled = prev_mode
    return results


def link_saved_inputs(node, in_grads, start):
    """Paddle's double-grad nodes take every saved input of the op (``x``, ``y`` of a multiply,
    ``out`` of a relu), so a second backward through them gives an input the gradient does not
    depend on a zero gradient, not None. Here the VJP's Tensor ops reach only what the formula
    uses; each gradient's newest node gets, for every saved input that takes a gradient and that
    none of this VJP's nodes reaches, one more edge that carries zeros (``zero_from``).
    """
    inputs = node.inputs
    if not node.op.saves_inputs or inputs is None:
        return
    wanted = []
    for t in inputs:
        e = t.gradient_edge()
        if e is not None:
            wanted.append((e, t.data.shape, t.data.dtype))
    if not wanted:
        return
    for g in in_grads:
        head = None if g is None else g.grad_node
        if head is None or head.uid < start or head.op is None:
            continue
        reached = set()
        stack, seen = [head], set()
        while stack:  # the nodes this VJP made, and the op's own node reached through out()
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
        extra = [(e, shape, dtype) for e, shape, dtype in wanted
                 if (id(e[0]), e[1]) not in reached]
        if not extra:
            continue
        edges, meta = list(head.next_edges), list(head.in_meta)
        if head.zero_from is None:
            head.zero_from = len(edges)
        for e, shape, dtype in extra:
            edges.append(e)
            meta.append((shape, dtype))
        head.next_edges, head.in_meta = tuple(edges), tuple(meta)


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
    try:
        while True:
            next(gen)
    except StopIteration as stop:
        return stop.value
