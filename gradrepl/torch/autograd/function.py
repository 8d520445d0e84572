"""``torch.autograd.Function``: a user's forward and backward as one backward node.

``apply`` runs ``forward(ctx, *args)`` without recording, then (when grad mode is on and an
input requires grad) makes one engine node, named ``<Class>Backward`` as torch names it, whose
VJP calls the user's ``backward(ctx, *grad_outputs)``. ``ctx.save_for_backward`` keeps tensors
(with their versions: a saved tensor modified in place makes backward fail, as in torch);
``ctx.saved_tensors`` gives them back until a backward without ``retain_graph`` frees them.
"""
from __future__ import annotations

import weakref

from ...engine import grad_mode
from ...engine.node import GradNode
from ...engine.registry import OPS, register
from .._base import EngineTensor, raw


class FunctionCtx:
    """The ``ctx`` of forward/backward."""

    def __init__(self):
        self._saved = ()
        self._saved_versions = ()
        self._freed = False
        self._non_diff = set()
        self._dirty = set()
        self.materialize_grads = True
        self.needs_input_grad = ()

    def save_for_backward(self, *tensors):
        for t in tensors:
            if t is not None and not isinstance(t, EngineTensor):
                raise TypeError("save_for_backward can only save variables, but argument 0 is "
                                f"of type {type(t).__name__}")
        self._saved = tensors
        self._saved_versions = tuple(None if t is None else t._version for t in tensors)

    @property
    def saved_tensors(self):
        if self._freed:
            from ._engine import FREED_MESSAGE

            raise RuntimeError(FREED_MESSAGE)
        return tuple(self._saved)

    saved_variables = saved_tensors

    def save_for_forward(self, *tensors):
        self._saved_forward = tensors

    def mark_non_differentiable(self, *tensors):
        self._non_diff.update(id(t) for t in tensors)

    def mark_dirty(self, *tensors):
        self._dirty.update(id(t) for t in tensors)

    def set_materialize_grads(self, value):
        self.materialize_grads = bool(value)


def _function_vjp(node, *out_grads):
    cls, ctx = node.attrs["cls"], node.attrs["ctx"]
    positions = node.attrs["positions"]  # forward-argument position of each engine input
    n_args = node.attrs["n_args"]
    grads = []
    for g in out_grads:
        if not ctx.materialize_grads and g.grad_node is None and not raw(g).any():
            g = None  # (the engine hands zeros to an output no gradient reached)
        grads.append(g)
    res = cls.backward(ctx, *grads)
    if not isinstance(res, tuple):
        res = (res,)
    if len(res) != n_args:
        if len(res) > n_args and all(r is None for r in res[n_args:]):
            res = res[:n_args]
        else:
            raise RuntimeError(f"function {cls.__name__}Backward returned an incorrect number of "
                               f"gradients (expected {n_args}, got {len(res)})")
    out = []
    for pos in positions:
        r = res[pos]
        if r is not None and not isinstance(r, EngineTensor):
            raise TypeError(f"function {cls.__name__}Backward returned a gradient different "
                            f"than None at position {pos + 1}, but the corresponding forward "
                            "input was not a Variable")
        out.append(r)
    return tuple(out)


FUNCTION_OP = OPS.get("torch_function") or register("torch_function", None, _function_vjp,
                                                    legacy_name="FunctionBackward", check=False)
FUNCTION_OP.saves_inputs = False


class _FunctionMeta(type):
    pass


class Function(metaclass=_FunctionMeta):
    """Subclass with static ``forward(ctx, *args)`` and ``backward(ctx, *grads)``; call with
    ``apply``."""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for "
                                  "your custom autograd.Function to use it with backward "
                                  "mode AD.")

    vjp = backward

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError("You must implement the jvp function for custom "
                                  "autograd.Function to use it with forward mode AD.")

    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Legacy autograd function with non-static forward method is "
                           "deprecated. Please use new-style autograd function with static "
                           "forward method. (Example: "
                           "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    @classmethod
    def apply(cls, *args, **kwargs):
        from . import forward_ad

        tangents = [forward_ad.tangent_of(a) if isinstance(a, EngineTensor) else None
                    for a in args] if forward_ad._LEVELS else None
        if tangents is None or all(t is None for t in tangents):
            return cls._apply(*args, **kwargs)
        # forward AD: forward sees the primals; jvp(ctx, *tangents) gives the outputs' tangents
        ctx_box = []
        primals = tuple(forward_ad.unpack_dual(a).primal if t is not None else a
                        for a, t in zip(args, tangents))
        out = cls._apply(*primals, _ctx_box=ctx_box, _graph_inputs=args, **kwargs)
        ins = [t if t is not None else (forward_ad._zeros_for(a) if isinstance(a, EngineTensor)
                                        else None) for a, t in zip(args, tangents)]
        with forward_ad.untracked():
            res = cls.jvp(ctx_box[0], *ins)
        outs = out if isinstance(out, tuple) else (out,)
        res = res if isinstance(res, tuple) else (res,)
        for o, t in zip(outs, res):
            if isinstance(o, EngineTensor) and isinstance(t, EngineTensor):
                forward_ad.set_tangent(o, t)
        return out

    @classmethod
    def _apply(cls, *args, _ctx_box=None, _graph_inputs=None, **kwargs):
        ctx = FunctionCtx()
        if _ctx_box is not None:
            _ctx_box.append(ctx)
        ctx.needs_input_grad = tuple(isinstance(a, EngineTensor) and not a.stop_gradient
                                     for a in args)
        custom_setup = cls.setup_context is not Function.setup_context
        with grad_mode.no_grad():
            if custom_setup:
                out = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, out)
            else:
                out = cls.forward(ctx, *args, **kwargs)
        outs = out if isinstance(out, tuple) else (out,)
        graph_args = args if _graph_inputs is None else _graph_inputs
        positions = [i for i, a in enumerate(graph_args) if isinstance(a, EngineTensor)]
        tensor_inputs = [graph_args[i] for i in positions]
        needs = grad_mode.STATE.enabled and any(not t.stop_gradient for t in tensor_inputs)
        if not needs:
            return out
        from .._tensor import Tensor

        results = []
        fixed = []
        for o in outs:
            if isinstance(o, EngineTensor):
                if any(o is t for t in tensor_inputs) and id(o) not in ctx._dirty:
                    o = Tensor._wrap(raw(o), True)  # an input returned as is: a new alias
                results.append(o)
            fixed.append(o)
        if not results:
            return out
        node = GradNode(FUNCTION_OP, {"cls": cls, "ctx": ctx, "positions": positions,
                                      "n_args": len(args)},
                        tensor_inputs, tuple(raw(o) for o in results))
        node.out_meta = tuple((raw(o).shape, raw(o).dtype) for o in results)
        node.out_refs = tuple(weakref.ref(o) for o in results)
        for k, o in enumerate(results):
            if id(o) in ctx._non_diff or raw(o).dtype.kind not in "fc":
                continue
            o.grad_node = node
            o.out_slot = k
            o.stop_gradient = False
        fixed = tuple(fixed)
        return fixed if isinstance(out, tuple) else fixed[0]


class InplaceFunction(Function):
    def __init__(self, inplace=False):
        self.inplace = inplace


class NestedIOFunction(Function):
    pass


def _delayed_error_vjp(node, *out_grads):
    raise RuntimeError(node.attrs["msg"])


DELAYED_ERROR_OP = OPS.get("torch_delayed_error") or register(
    "torch_delayed_error", None, _delayed_error_vjp, legacy_name="ErrorBackward", check=False)
DELAYED_ERROR_OP.torch_name = "Error"  # torch's C++ node class (DelayedError's grad_fn)
DELAYED_ERROR_OP.saves_inputs = False

_ONCE_MESSAGE = ("trying to differentiate twice a function that was marked with "
                 "@once_differentiable")


def once_differentiable(fn):
    """torch's decorator: the backward runs without recording; when grad mode is on and a
    gradient it was given requires grad (a double backward), its results hang off an ``Error``
    node over detached copies, whose backward raises."""
    import functools

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with grad_mode.no_grad():
            outputs = fn(ctx, *args)
        if not grad_mode.STATE.enabled:
            return outputs
        if not any(isinstance(a, EngineTensor) and not a.stop_gradient for a in args):
            return outputs
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        fakes = []
        for v in outs:
            if isinstance(v, EngineTensor):
                v = v.detach()
                v.requires_grad_(True)
            fakes.append(v)
        leaves = [v for v in fakes if isinstance(v, EngineTensor)]
        if leaves:
            from .._tensor import Tensor

            node = GradNode(DELAYED_ERROR_OP, {"msg": _ONCE_MESSAGE}, leaves,
                            tuple(raw(v) for v in leaves))
            node.out_meta = tuple((raw(v).shape, raw(v).dtype) for v in leaves)
            k = 0
            for i, v in enumerate(fakes):
                if isinstance(v, EngineTensor):
                    o = Tensor._wrap(raw(v), True)
                    o.grad_node, o.out_slot, o.stop_gradient = node, k, False
                    k += 1
                    fakes[i] = o
            node.out_refs = tuple(weakref.ref(o) for o in fakes if isinstance(o, EngineTensor))
        return fakes[0] if single else tuple(fakes)

    return wrapper


BackwardCFunction = None  # the node class lives in graph.py
