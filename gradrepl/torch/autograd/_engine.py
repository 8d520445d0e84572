"""``backward`` and ``grad`` with torch's semantics, on the engine's backward generator.

torch's rules that the engine is told, or that are checked here before it runs:

- ``backward()`` without a gradient only for a one-element output ("grad can be implicitly
  created only for scalar outputs"); a given gradient must have the output's shape;
- every output must require grad ("element 0 of tensors does not require grad and does not
  have a grad_fn"), every input of ``grad`` too;
- a node keeps its saved tensors until a backward without ``retain_graph`` has run it; a node
  that saved nothing (AddBackward0, SumBackward0, ViewBackward0 ...) can run again, one that
  saved something raises "Trying to backward through the graph a second time ...". The engine
  is run with its graph retained and the nodes that saved tensors are released afterwards;
- a saved tensor modified in place since (its version moved) raises "one of the variables
  needed for gradient computation has been modified by an inplace operation: ...";
- ``.grad`` of a leaf accumulates; ``retain_grad()`` keeps a non-leaf's gradient (a hook that
  runs after the user's hooks, accumulating out of place).
"""
from __future__ import annotations

import weakref

import numpy as np

from ...engine import backward as _bw
from ...engine import grad_mode
from ...engine.node import AccumulateNode, GradNode
from ...engine.registry import apply, needs_grad
from .._base import EngineTensor, Size, raw
from .. import _bfloat16, _dtypes, _view_meta   # (module level: an import in backward() costs ~10k)
from . import graph

FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed when "
    "you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward "
    "through the graph a second time or if you need to access saved tensors after calling "
    "backward.")

_HINT = ("Hint: enable anomaly detection to find the operation that failed to compute its "
         "gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).")

# nodes whose saved output was modified in place afterwards: node -> (tensor, saved version)
DIRTY_OUTPUTS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
# nodes made by an in-place op: the version their (in-place) output was saved at
OUTPUT_VERSIONS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _wrap(a, stop=True):
    global _TENSOR
    if _TENSOR is None:   # (imported on first use and kept: ~10k instructions an import)
        from .._tensor import Tensor as _TENSOR
    return _TENSOR._wrap(a, stop)


_TENSOR = None


def _tensors(v, what):
    if isinstance(v, EngineTensor):
        return [v]
    if isinstance(v, (list, tuple)):
        return list(v)
    raise TypeError(f"{what}: expected a Tensor or a sequence of Tensors, got "
                    f"{type(v).__name__}")


def _make_grads(outputs, grads):
    """torch.autograd._make_grads: the seed gradient of each output."""
    out = []
    for i, (t, g) in enumerate(zip(outputs, grads)):
        a = raw(t)
        if isinstance(g, EngineTensor):
            if raw(g).shape != a.shape:
                raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of "
                                   f"{Size(raw(g).shape)} and output[{i}] has a shape of "
                                   f"{Size(a.shape)}.")
            if (raw(g).dtype.kind == "c") != (a.dtype.kind == "c"):
                raise RuntimeError("For complex Tensors, both grad_output and output are "
                                   "required to have the same dtype.")
            if raw(g).dtype != a.dtype:
                from .._bfloat16 import astype

                g = _wrap(astype(raw(g), a.dtype), g.stop_gradient)
            out.append(g)
        elif g is None:
            if not t.stop_gradient:
                if a.size != 1:
                    raise RuntimeError("grad can be implicitly created only for scalar outputs")
                if a.dtype.kind != "f" and a.dtype != np.uint16:  # (uint16: bfloat16)
                    raise RuntimeError("grad can be implicitly created only for real scalar "
                                       f"outputs but got {_dtypes.from_np(a.dtype)}")
                out.append(_wrap(np.ones(a.shape, a.dtype) if a.dtype.kind == "f" else
                                 _bfloat16.filled(np.ones, a.shape, a.dtype)))
            else:
                out.append(None)
        else:
            raise TypeError(f"gradients can be either Tensors or None, but got "
                            f"{type(g).__name__}")
    return out


def _seq(v, n):
    if v is None:
        return [None] * n
    if isinstance(v, EngineTensor):
        return [v]
    return list(v)


def _check_outputs(outputs):
    for i, t in enumerate(outputs):
        if t.stop_gradient or (t._view_meta is not None and t.grad_node is None
                               and _view_meta.no_edge(t)):   # (a view made without grad)
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have "
                               "a grad_fn")


def _check_inputs(inputs):
    for t in inputs:
        if t.stop_gradient:
            raise RuntimeError("One of the differentiated Tensors does not require grad")


# ------------------------------------------------------------------------------ the plan
def _plan(outputs, inputs):
    """The backward nodes the engine will run (as ``iter_backward`` prunes them), the leaves'
    nodes, and (without ``inputs``) the engine's dependency counts from the same walk and
    whether the engine's plain pass may run them (``backward.plain_graph``)."""
    roots = []
    for t in outputs:
        e = t.gradient_edge()
        if e is not None:
            roots.append(e[0])
    if inputs is None:
        nodes, deps = _bw.collect_with_deps(roots)
        grad_nodes, leaves = [], []
        for n in nodes:
            if type(n) is GradNode or isinstance(n, GradNode):
                grad_nodes.append(n)
            elif isinstance(n, AccumulateNode):
                leaves.append(n)
        # (a node of another kind: the general pass)
        plain = len(grad_nodes) + len(leaves) == len(nodes) and _bw.plain_graph(grad_nodes,
                                                                                leaves)
        return grad_nodes, leaves, deps, plain
    nodes = _bw.collect_nodes(roots)
    wanted = set()
    for t in inputs:
        e = t.gradient_edge()
        if e is not None:
            wanted.add(e[0])
    parents = {}
    for n in nodes:
        for child in n.edges[::2]:
            if child is not None:
                parents.setdefault(child, []).append(n)
    keep = set()
    stack = [n for n in wanted if n in parents or n in roots]
    while stack:
        n = stack.pop()
        if n in keep:
            continue
        keep.add(n)
        stack.extend(parents.get(n, ()))
    return [n for n in nodes if isinstance(n, GradNode) and n in keep and
            any(child is not None and child in keep for child in n.edges[::2])], [], None, False


def _describe(t):
    a = raw(t)
    return f"[{_dtypes.legacy_type(a.dtype)} [{', '.join(str(s) for s in a.shape)}]]"


def _inplace_error(t, saved_version, node=None, slot=0):
    """torch's message for a saved tensor modified in place (``node``: the node whose output it
    is, when it was saved as an output; else the tensor's own current grad_fn)."""
    owner = node
    if owner is None and not t.stop_gradient and t.grad_node is not None:
        owner, slot = t.grad_node, t.out_slot
    where = f", which is output {slot} of {graph.short_name(owner)}," if owner is not None else ""
    return RuntimeError(
        "one of the variables needed for gradient computation has been modified by an inplace "
        f"operation: {_describe(t)}{where} is at version {t._version}; expected version "
        f"{saved_version} instead. {_HINT}")


def _check(nodes):
    """torch's checks before its engine runs these nodes (freed saved tensors, saved tensors
    modified in place); returns the nodes that saved tensors (released after the backward)."""
    saving = []
    append = saving.append
    policy = graph.saves_policy
    indices = graph.saved_input_indices
    any_dirty = len(DIRTY_OUTPUTS.data) > 0   # (not its Python __len__; a key whose tensor
    # died but is not yet removed only costs a lookup below)
    for n in nodes:
        op = n.op
        p = getattr(op, "torch_saves", None) or policy(n)
        if p == "none":
            continue
        if n.released:
            if graph.saves_anything(n):
                raise RuntimeError(FREED_MESSAGE)
            continue
        if p == "out":
            if any_dirty:
                _check_output(n)
            append(n)
            continue
        if p != "other":
            saved = n.saved_version
            inputs = n.inputs
            if p == "cross":   # (needs_grad and saved_version written out)
                edges, versions = n.edges, n.in_versions
                t = inputs[1]
                if edges[0] is not None and t._version != (versions[1] if versions else 0):
                    raise _inplace_error(t, saved(1))
                t = inputs[0]
                if edges[2] is not None and t._version != (versions[0] if versions else 0):
                    raise _inplace_error(t, saved(0))
            else:
                for i in indices(n):
                    t = inputs[i]
                    if t._version != saved(i):
                        raise _inplace_error(t, saved(i))
        if any_dirty and p.endswith("+out"):
            _check_output(n)
        if p == "function":
            ctx = n.attrs["ctx"]
            for t, v in zip(ctx._saved, ctx._saved_versions):
                if t is not None and t._version != v:
                    raise _inplace_error(t, v)
            if not ctx._saved:
                continue
        append(n)
    return saving


def _check_output(n):
    dirty = DIRTY_OUTPUTS.get(n)
    if dirty is not None:
        t, saved = dirty
        if t._version != saved:
            raise _inplace_error(t, saved, n, 0)


def _release(nodes):
    for n in nodes:
        if not n.released:
            n.release()
            if n.op is not None and n.op.name == "torch_function":
                n.attrs["ctx"]._freed = True


def _run(outputs, grads, retain_graph, create_graph, inputs=None):
    nodes, leaves, deps, plain = _plan(outputs, inputs)
    saving = _check(nodes)
    fresh = [acc for acc in leaves if create_graph and acc.leaf is not None
             and acc.leaf._grad is None]
    prev = grad_mode.STATE.enabled
    if plain and len(grads) == 1 and grads[0] is not None and not create_graph \
            and _bw.TRACE_SINK is None:   # (one root, nothing hooked, traced or built)
        root, slot = outputs[0].gradient_edge()
        try:
            _bw.run_plain(root, slot, grads[0], deps)
        except _bw.GraphFreedError:
            raise RuntimeError(FREED_MESSAGE) from None
        except _bw.InplaceModifiedError as exc:
            raise _inplace_error(exc.tensor, exc.saved_version) from None
        finally:
            grad_mode.STATE.enabled = prev
        return _after(saving, leaves, retain_graph)
    roots = [t for t, g in zip(outputs, grads) if g is not None]
    seeds = [g for g in grads if g is not None]
    if len(seeds) != len(grads):   # (the walk above started from every output)
        deps = None
    try:
        res = _bw.run_backward(roots, seeds, retain_graph=True, create_graph=create_graph,
                               inputs=inputs, ready_queue=_bw.SequenceQueue, deps=deps)
    except _bw.GraphFreedError:
        raise RuntimeError(FREED_MESSAGE) from None
    except _bw.InplaceModifiedError as exc:
        raise _inplace_error(exc.tensor, exc.saved_version) from None
    finally:
        grad_mode.STATE.enabled = prev
    if inputs is None:
        _after(saving, leaves, retain_graph)
    elif not retain_graph:
        _release(saving)
    for acc in fresh:  # torch's AccumulateGrad copies a first gradient that has a history
        leaf = acc.leaf
        g = leaf._grad if leaf is not None else None
        if g is not None and g.grad_node is not None:
            from .. import _ops

            leaf._grad = apply(_ops.top("assign", "CopyBackwards", "none"), (g,))
    return res


def _after(saving, leaves, retain_graph):
    """After a backward without ``inputs``: the nodes that saved tensors release them (unless
    ``retain_graph``), then the leaves' post-accumulate hooks run."""
    if not retain_graph:
        _release(saving)
    for acc in leaves:
        leaf = acc.leaf_ref()
        hooks = getattr(leaf, "_post_hooks", None) if leaf is not None else None
        if hooks:  # torch runs them inside backward, where grad mode is off
            with grad_mode.no_grad():
                for hook in list(hooks.values()):
                    hook(leaf)


# ------------------------------------------------------------------------------ the API
def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False,
             grad_variables=None, inputs=None):
    """``torch.autograd.backward`` (and ``Tensor.backward``)."""
    if grad_variables is not None:
        if grad_tensors is not None:
            raise RuntimeError("'grad_tensors' and 'grad_variables' (deprecated) arguments both "
                               "passed to `backward()`. Please only use `grad_tensors`.")
        grad_tensors = grad_variables
    outputs = _tensors(tensors, "backward")
    ins = None
    if inputs is not None:
        ins = [inputs] if isinstance(inputs, EngineTensor) else list(inputs)
        if not ins:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    grads = _make_grads(outputs, _seq(grad_tensors, len(outputs)))
    if retain_graph is None:
        retain_graph = create_graph
    _check_outputs(outputs)
    if ins is not None:
        for t in ins:
            if not t.is_leaf:
                retain_grad(t)
        _check_inputs(ins)
        res = _run(outputs, grads, retain_graph, create_graph, ins)
        for t, g in zip(ins, res):
            if g is not None:
                _accumulate(t, g, create_graph)
        return None
    _run(outputs, grads, retain_graph, create_graph)
    return None


def _accumulate(t, g, create_graph):
    """AccumulateGrad: the first gradient is kept, later ones are added (in place, unless the
    graph of the gradient is being built)."""
    cur = t._grad
    if cur is None:
        t._grad = g if create_graph else _wrap(np.array(raw(g), dtype=raw(t).dtype))
    elif create_graph:
        from .. import _ops

        t._grad = _ops.add(cur, g)
    else:
        cur.data = raw(cur) + raw(g)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """``torch.autograd.grad``: a tuple of the gradients of ``outputs`` w.r.t. ``inputs``."""
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when "
                         "materialize_grads=True, but got: allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    outs = _tensors(outputs, "grad")
    ins = [inputs] if isinstance(inputs, EngineTensor) else list(inputs)
    if not ins:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    grads = _make_grads(outs, _seq(grad_outputs, len(outs)))
    if retain_graph is None:
        retain_graph = create_graph
    _check_outputs(outs)
    _check_inputs(ins)
    res = _run(outs, grads, retain_graph, create_graph, ins)
    result = []
    for i, (t, g) in enumerate(zip(ins, res)):
        if g is None:
            if not allow_unused:
                raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have "
                                   "been used in the graph. Set allow_unused=True if this is the "
                                   "desired behavior.")
            if materialize_grads:
                z = _wrap(np.zeros_like(raw(t)), not create_graph)
                result.append(z)
            else:
                result.append(None)
            continue
        if create_graph:
            if g.grad_node is None and not g.stop_gradient:
                g = _wrap(raw(g), True)
            result.append(g)
        else:
            result.append(_wrap(np.array(raw(g), dtype=raw(t).dtype)))
    return tuple(result)


# ------------------------------------------------------------------------------ hooks
class RemovableHandle:
    """What ``register_hook`` returns: ``remove()`` takes the hook out."""

    _next_id = 0

    def __init__(self, tensor, hook):
        self._t = weakref.ref(tensor)
        self._hook = hook
        self.id = RemovableHandle.take_id()

    @staticmethod
    def take_id():
        """torch's ``RemovableHandle.next_id``: 0, 1, ... over all hooks of the process."""
        i = RemovableHandle._next_id
        RemovableHandle._next_id = i + 1
        return i

    def remove(self):
        t = self._t()
        if t is not None and t._hooks:
            t._hooks[:] = [h for h in t._hooks if h is not self._hook]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


class _UserHook:
    """The user's hook: its return value (a tensor) replaces the gradient."""

    __slots__ = ("fn",)

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, g):
        if not g.stop_gradient and g.grad_node is None:
            g.stop_gradient = True  # the gradient as torch hands it: no history
        r = self.fn(g)
        if r is not None and not isinstance(r, EngineTensor):
            raise TypeError(f"expected Tensor or None as the return value of a hook, but got "
                            f"{type(r).__name__}")
        return r


class _RetainHook:
    """retain_grad(): keep the gradient in ``.grad`` (accumulating out of place)."""

    __slots__ = ("ref",)

    def __init__(self, t):
        self.ref = weakref.ref(t)

    def __call__(self, g):
        t = self.ref()
        if t is None:
            return None
        cur = t._grad
        if cur is None:
            t._grad = _wrap(np.array(raw(g))) if g.grad_node is None else g
        else:
            from .. import _ops

            if g.grad_node is None and cur.grad_node is None:
                t._grad = _wrap(raw(cur) + raw(g))
            else:
                t._grad = _ops.add(cur, g)
        return None


def register_hook(t, fn):
    if t.stop_gradient:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    hook = _UserHook(fn)
    hooks = t._hooks
    if hooks is None:
        hooks = t._hooks = []
    k = len(hooks)
    while k and isinstance(hooks[k - 1], _RetainHook):  # retain_grad's hook runs last
        k -= 1
    hooks.insert(k, hook)
    return RemovableHandle(t, hook)


class _DictHandle:
    _next = 0

    def __init__(self, store, hook):
        _DictHandle._next += 1
        self.id = _DictHandle._next
        self._store = store
        store[self.id] = hook

    def remove(self):
        self._store.pop(self.id, None)


def register_post_accumulate_hook(t, fn):
    if t.stop_gradient:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if not t.is_leaf:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    store = getattr(t, "_post_hooks", None)
    if store is None:
        store = t._post_hooks = {}
    return _DictHandle(store, fn)


def retain_grad(t):
    if t.stop_gradient:
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    if t.is_leaf or getattr(t, "_retains", False):
        return
    t._retains = True
    if t._hooks is None:
        t._hooks = []
    t._hooks.append(_RetainHook(t))
