"""``torch.jit`` for a workbench without TorchScript: scripted and traced code runs eagerly (one
path, the same values), dressed as torch 2.13 shows it (d2l's hybrid-programming chapter:
``net = torch.jit.script(net)``, ``net.save(...)``).

What real torch shows, measured here:

- ``torch.jit.script(module)`` -> a ``RecursiveScriptModule`` (``torch.jit._script``) that prints
  ``RecursiveScriptModule(original_name=Linear)`` per module; it holds the module's parameters
  (the same objects: gradients reach them); ``s[i]`` and iteration give the ORIGINAL children
  (their ``training`` is not changed by ``s.eval()``), ``s.fc`` a scripted child. Its forward
  runs with the scripted tree's train/eval flags.
- The profiling executor: the first call of a scripted module or function runs the graph as
  eager code (``grad_fn=<AddmmBackward0>``); from the second call a graph of two or more
  differentiable ops runs as one autodiff subgraph: ``grad_fn=<DifferentiableGraphBackward>``
  (``name()`` ``torch::jit::(anonymous namespace)::DifferentiableGraphBackward``, printed as a
  ``CppFunction``). One op stays as it is.
- ``torch.jit.trace(module, example)`` -> ``TopLevelTracedModule`` printing its original class
  names (``M(original_name=M ...)``); tracing calls the Python forward three times (once with
  grad, twice under no_grad to check the trace); traced calls keep eager ``grad_fn`` names.
- Functions: ``torch.jit.script(f)`` / ``trace(f, ...)`` -> ``torch.jit.ScriptFunction``.

Not emulated (errors say so): TorchScript's compiler itself (its type checks and messages:
a scripted module runs any Python), ``.code``/``.graph``, the file format of ``save`` (gradrepl
writes its own pickle; ``torch.jit.load`` reads what gradrepl saved).
"""
from __future__ import annotations

import pickle
import re

from ._grad_mode import enable_grad, is_grad_enabled, no_grad
from .nn.modules import Module

_DG_NAME = "torch::jit::(anonymous namespace)::DifferentiableGraphBackward"


def _not_emulated(what):
    return AttributeError(f"gradrepl's torch does not emulate {what} (TorchScript is not "
                          "compiled here: scripted code runs as Python)")


# ------------------------------------------------------------------ the profiling executor's grad_fn
class CppFunction:
    """The grad_fn of an autodiff subgraph (its next functions are the eager graph's)."""

    __slots__ = ("_node", "_keep", "_kind", "__weakref__")

    def name(self):
        return _DG_NAME

    @property
    def next_functions(self):
        """The subgraph's inputs that take a gradient, the last the forward used first
        (torch 2.13, Linear-ReLU-Linear: 2.bias, 2.weight, 0.bias, 0.weight)."""
        from .autograd.graph import wrap_node

        region = sorted(_subgraph(self._node), key=lambda n: n.uid)
        inside = {id(n) for n in region}
        out, seen = [], set()
        for node in region:
            for e in node.next_edges:
                if e is not None and id(e[0]) not in inside and id(e[0]) not in seen:
                    seen.add(id(e[0]))
                    out.append((wrap_node(e[0]), e[1]))
        return tuple(reversed(out))

    @property
    def metadata(self):
        return {}

    def __repr__(self):
        return f"<CppFunction object at {hex(id(self))}>"


CppFunction.__module__ = "builtins"


def is_graph_node(node) -> bool:
    return type(getattr(node, "handle", None)) is CppFunction


# Ops torch's autodiff puts into a differentiable subgraph (views and ops without a symbolic
# gradient, convolutions, batch norm, pooling, embeddings, recurrent layers, stay outside and split
# the subgraphs). Measured on torch 2.13: Linear+ReLU, ReLU+Tanh, Linear+Linear,
# tanh(a) * 2 + a -> DifferentiableGraphBackward; Linear, ReLU, a.view(-1) * 2, Conv2d+ReLU,
# Conv2d+BatchNorm2d+Flatten+Linear keep their eager names.
_AUTODIFF = frozenset(
    "Addmm Mm Bmm Add Sub Mul Div Neg Relu Tanh Sigmoid Exp Log Pow Sqrt Rsqrt Abs Sum Mean "
    "Softmax LogSoftmax Gelu Silu LeakyRelu Hardtanh Elu Clamp Where Maximum Minimum Sin Cos "
    "Reciprocal Erf".split())


def _op_kind(node):
    from .autograd.graph import node_name

    h = getattr(node, "handle", None)
    if type(h) is CppFunction:
        return h._kind   # (the eager op's kind)
    return re.sub(r"Backward\d*$", "", node_name(node))


def _subgraph(node, limit=None):
    """The autodiff ops joined to ``node`` (with linear's weight transposes), up to ``limit``
    counted ops."""
    from ..engine.node import GradNode

    seen, todo, found, n = {}, [node], [], 0
    while todo and (limit is None or n < limit):
        node = todo.pop()
        if not isinstance(node, GradNode) or id(node) in seen:
            continue
        kind = _op_kind(node)
        if kind not in _AUTODIFF and kind != "T":
            continue
        seen[id(node)] = node
        n += kind != "T"
        todo.extend(e[0] for e in node.next_edges if e is not None)
    return list(seen.values())


def _subgraph_size(node, limit=2):
    return sum(_op_kind(n) != "T" for n in _subgraph(node, limit))


def _mark_outputs(out):
    from ._tensor import Tensor

    outs = out if isinstance(out, (tuple, list)) else (out,)
    for t in outs:
        if not isinstance(t, Tensor) or t.grad_node is None or t.stop_gradient:
            continue
        node = t.grad_node
        if getattr(node, "handle", None) is not None or _subgraph_size(node) < 2:
            continue
        w = object.__new__(CppFunction)
        w._node, w._keep, w._kind = node, None, _op_kind(node)
        node.handle = w
    return out


class _Executor:
    """The profiling executor of one scripted graph. The first call profiles (which tensor
    inputs require grad); the second builds the optimized plan: with autodiff subgraphs when
    grad mode is on then, without them when it is off (that plan stays). A later call whose
    inputs do not match the profile takes the fallback (eager nodes). Measured on torch 2.13:
    three no_grad calls then grad calls keep ``AddmmBackward0``; grad calls from the second on
    give ``DifferentiableGraphBackward``."""

    def __init__(self):
        self.calls = 0
        self.profile = None
        self.subgraphs = False

    def run(self, fn, args, kwargs):
        from ._tensor import Tensor

        key = tuple(a.requires_grad for a in args if isinstance(a, Tensor))
        self.calls += 1
        if self.calls == 1:
            self.profile = key
        elif self.calls == 2:
            self.subgraphs = is_grad_enabled() and key == self.profile
        if self.calls == 1 or not self.subgraphs or key != self.profile:
            return fn(*args, **kwargs)
        # the optimized plan records its subgraphs' gradients even under no_grad (as torch 2.13)
        with enable_grad():
            out = fn(*args, **kwargs)
        return _mark_outputs(out)

    def __getstate__(self):   # (a loaded module is compiled again: it profiles anew)
        return {"calls": 0, "profile": None, "subgraphs": False}


# Scripted instances of one module type share their compiled forward and its executor (torch's
# concrete module types); a type here is the module's class and its printed structure.
_EXECUTORS: dict = {}


def _executor_for(module):
    key = (type(module), repr(module))
    ex = _EXECUTORS.get(key)
    if ex is None:
        ex = _EXECUTORS[key] = _Executor()
    return ex


# ------------------------------------------------------------------------------- functions
class ScriptFunction:
    """``torch.jit.script(fn)`` / ``torch.jit.trace(fn, example)``: ``fn`` run as it is."""

    def __init__(self, fn, profiled=True):
        self._fn = fn
        self._executor = _Executor() if profiled else None
        self.__doc__ = fn.__doc__   # (no __name__, as torch's: ``.name`` gives it)

    def __call__(self, *args, **kwargs):
        if self._executor is None:
            return self._fn(*args, **kwargs)
        return self._executor.run(self._fn, args, kwargs)

    @property
    def name(self):
        return self._fn.__name__

    @property
    def code(self):
        raise _not_emulated("ScriptFunction.code")

    graph = code

    def save(self, f, **kwargs):
        save(self, f)

    def __repr__(self):
        return f"<torch.jit.torch.jit.ScriptFunction object at {hex(id(self))}>"


ScriptFunction.__module__ = "torch.jit"
ScriptFunction.__qualname__ = "torch.jit.ScriptFunction"


# --------------------------------------------------------------------------------- modules
class ScriptModule(Module):
    """Base of scripted and traced modules (``torch.jit.ScriptModule``)."""


ScriptModule.__module__ = "torch.jit._script"


class RecursiveScriptModule(ScriptModule):
    """A scripted module: the original's parameters and buffers, scripted children."""

    def __init__(self, original, top=True):
        super().__init__()
        object.__setattr__(self, "_original", original)
        object.__setattr__(self, "original_name", type(original).__name__)
        object.__setattr__(self, "training", original.training)
        self._parameters.update(original._parameters)
        self._buffers.update(original._buffers)
        for name, child in original._modules.items():
            self._modules[name] = None if child is None else self._child_class(child, top=False)
        object.__setattr__(self, "_executor", _executor_for(original) if top else None)

    _child_class = None   # (set below: scripted children are RecursiveScriptModules)

    def extra_repr(self):
        return f"original_name={self.original_name}"

    def __getattr__(self, name):
        try:
            return Module.__getattr__(self, name)
        except AttributeError:
            pass
        original = self.__dict__.get("_original")
        if original is None or name.startswith("__"):
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        return getattr(original, name)

    def _flags(self):
        """(module, flag) for the original tree, the scripted tree's flags applied."""
        pairs = [(self._original, self.training)]
        for name, child in self._modules.items():
            if child is not None:
                pairs += child._flags()
        return pairs

    def forward(self, *args, **kwargs):
        flags = self._flags()
        old = [(m, m.training) for m, _ in flags]
        for m, mode in flags:
            object.__setattr__(m, "training", mode)
        try:
            if self._executor is None:
                return self._original.forward(*args, **kwargs)
            return self._executor.run(self._original.forward, args, kwargs)
        finally:
            for m, mode in old:
                object.__setattr__(m, "training", mode)

    # containers: torch forwards these to the original module (its children come back)
    def __getitem__(self, idx):
        return self._original[idx]

    def __len__(self):
        return len(self._original)

    def __iter__(self):
        return iter(self._original)

    def __contains__(self, key):
        return key in self._original

    @property
    def code(self):
        raise _not_emulated("ScriptModule.code")

    graph = inlined_graph = code

    def save(self, f, **kwargs):
        save(self, f)

    def __reduce__(self):   # (saved as the original module: loading compiles it again)
        return _rebuild, (self._original, self.training)


def _rebuild(original, training):
    """A loaded module, scripted or traced: a RecursiveScriptModule (as torch.jit.load gives)
    with its own compilation (a fresh executor: the first call profiles)."""
    m = RecursiveScriptModule(original)
    object.__setattr__(m, "_executor", _Executor())
    m.train(training)
    return m


RecursiveScriptModule.__module__ = "torch.jit._script"
RecursiveScriptModule._child_class = RecursiveScriptModule


class TracedModule(RecursiveScriptModule):
    """A traced module's child: prints as its original class."""

    def _get_name(self):
        return self.original_name


TracedModule.__module__ = "torch.jit._trace"
TracedModule._child_class = TracedModule


class TopLevelTracedModule(TracedModule):
    """What ``torch.jit.trace(module, example)`` returns."""

    def __init__(self, original, top=True):
        super().__init__(original, top)
        object.__setattr__(self, "_executor", None)   # (traced calls keep eager grad_fns)


TopLevelTracedModule.__module__ = "torch.jit._trace"


# ------------------------------------------------------------------------------- the calls
def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """``torch.jit.script``: a module -> RecursiveScriptModule, a function -> ScriptFunction."""
    if isinstance(obj, ScriptModule) or isinstance(obj, ScriptFunction):
        return obj
    if isinstance(obj, Module):
        return RecursiveScriptModule(obj)
    if isinstance(obj, type):
        return obj   # a class: scripted lazily by torch; here used as is
    if callable(obj):
        return ScriptFunction(obj)
    raise RuntimeError(f"Type '{type(obj)}' cannot be compiled since it inherits from "
                       "nn.Module, pass an instance instead")


def trace(func, example_inputs=None, optimize=None, check_trace=True, check_inputs=None,
          check_tolerance=1e-05, strict=True, _force_outplace=False, _module_class=None,
          _compilation_unit=None, example_kwarg_inputs=None, _store_inputs=True):
    """``torch.jit.trace``: runs ``func`` on the example once with grad and, checking the trace,
    twice under no_grad (as torch does); then returns the traced callable (eager here)."""
    from ._tensor import Tensor

    if isinstance(example_inputs, Tensor):
        example_inputs = (example_inputs,)
    args = tuple(example_inputs or ())
    kwargs = dict(example_kwarg_inputs or {})
    target = func.forward if isinstance(func, Module) else func
    target(*args, **kwargs)
    if check_trace:
        with no_grad():
            target(*args, **kwargs)
            target(*args, **kwargs)
    if isinstance(func, Module):
        return TopLevelTracedModule(func)
    return ScriptFunction(func, profiled=False)


def trace_module(mod, inputs, **kwargs):
    return trace(mod, inputs.get("forward"), **kwargs)


def save(m, f, _extra_files=None):
    """``torch.jit.save`` / ``ScriptModule.save``: gradrepl's own pickle of the module (not
    TorchScript's zip)."""
    if hasattr(f, "write"):
        pickle.dump(("gradrepl.jit", m), f)
        return
    with open(f, "wb") as fh:
        pickle.dump(("gradrepl.jit", m), fh)


def load(f, map_location=None, _extra_files=None, _restore_shapes=False):
    """``torch.jit.load`` of a file ``torch.jit.save`` wrote here."""
    try:
        if hasattr(f, "read"):
            tag, m = pickle.load(f)
        else:
            with open(f, "rb") as fh:
                tag, m = pickle.load(fh)
    except (pickle.UnpicklingError, ValueError, TypeError, EOFError):
        tag = None
    if tag != "gradrepl.jit":
        raise RuntimeError("gradrepl: torch.jit.load reads only files gradrepl's torch.jit.save "
                           "wrote (TorchScript archives are not emulated)")
    return m


# --------------------------------------------------------------------- decorators and helpers
def _identity_decorator(drop=False):
    def deco(fn=None, **kwargs):
        if fn is None or not callable(fn):
            return lambda f: f
        return fn
    return deco


ignore = unused = _identity_decorator()


def export(fn):
    return fn


def is_scripting():
    """False: code runs as Python here (inside real TorchScript it is True)."""
    return False


def is_tracing():
    return False


def annotate(the_type, the_value):
    return the_value


def freeze(mod, preserved_attrs=None, optimize_numerics=True):
    return mod


def optimize_for_inference(mod, other_methods=None):
    return mod


def enable_onednn_fusion(enabled):
    return None


def onednn_fusion_enabled():
    return False


def fork(func, *args, **kwargs):
    return _Future(func(*args, **kwargs))


def wait(future):
    return future.wait()


class _Future:
    def __init__(self, value):
        self._value = value

    def wait(self):
        return self._value


class _FinalMeta(type):
    def __getitem__(cls, item):
        return item


class Final(metaclass=_FinalMeta):
    """``torch.jit.Final[int]``: the type itself here."""


Attribute = annotate
interface = _identity_decorator()


def script_if_tracing(fn):
    return fn


def __getattr__(name):
    raise AttributeError(f"module 'torch.jit' has no attribute '{name}' (gradrepl's torch does "
                         f"not emulate torch.jit.{name})")
