"""``paddle.autograd``: backward, grad, PyLayer, on the engine's backward generator.

Version differences (non-leaf grads kept in 2.2, the freed-graph error type) come from the
profile table; the engine is told what to do, it does not know versions.
"""
from __future__ import annotations

import numpy as np

from ..engine import backward as _bw
from ..engine import grad_mode
from ..engine.node import GradNode
from ..engine.registry import register
from ..engine.tensor import Tensor as _T
from . import profiles
from .core import Tensor

__all__ = ["backward", "grad", "PyLayer", "PyLayerContext", "no_grad", "enable_grad",
           "set_grad_enabled", "is_grad_enabled", "hessian", "jacobian"]

no_grad = grad_mode.no_grad
enable_grad = grad_mode.enable_grad
set_grad_enabled = grad_mode.set_grad_enabled
is_grad_enabled = grad_mode.is_grad_enabled


def _as_list(v):
    if v is None:
        return None
    if isinstance(v, (list, tuple)):
        return list(v)
    return [v]


def freed_graph_error(exc: _bw.GraphFreedError, root_name: str):
    """The profile's exception for backward through a released graph."""
    node = exc.node
    if profiles.current().freed_graph_error == "legacy":
        return RuntimeError(
            f"(Unavailable) {root_name} trying to backward through the same graph a second time, "
            "but this graph have already been freed. Please specify Tensor.backward("
            "retain_graph=True) when calling backward at the first time.\n  [Hint: Expected "
            "var->GradVarBase()->GraphIsFreed() == false, but received var->GradVarBase()->"
            "GraphIsFreed():1 != false:0.] (at /paddle/paddle/fluid/imperative/basic_engine.cc:74)")
    return SystemError(
        f"(Fatal) The TensorWrappers of {node.op.backward_name} do not exist. This may be because:\n"
        "You calculate backward twice for the same subgraph without setting retain_graph=True. "
        "Please set retain_graph=True in the first backward/grad call.\n")


def inplace_error(exc: _bw.InplaceModifiedError):
    return RuntimeError(
        f"(PermissionDenied) Tensor '' used in gradient computation has been modified by an "
        f"inplace operation. Its version is {exc.version} but the expected version is "
        f"{exc.saved_version}. Please fix your code to void calling an inplace operator after "
        "using the Tensor which will used in gradient computation.\n  [Hint: Expected "
        "tensor_version == wrapper_version_snapshot, but received tensor_version:"
        f"{exc.version} != wrapper_version_snapshot:{exc.saved_version}.]")


def _seed_grads(tensors, grad_tensors, what="tensors"):
    grads = []
    for i, t in enumerate(tensors):
        g = grad_tensors[i] if grad_tensors is not None and i < len(grad_tensors) else None
        if g is None:
            g = Tensor._wrap(np.ones(t.data.shape, t.data.dtype), True)
        else:
            if not isinstance(g, _T):
                raise TypeError(f"grad_tensors[{i}] must be a Tensor or None, got {type(g).__name__}")
            if g.data.shape != t.data.shape:
                raise AssertionError(
                    f"The shape of grad_tensors[{i}] {list(g.data.shape)} mismatch with the shape "
                    f"of {what}[{i}] {list(t.data.shape)}, they should be the same.")
        grads.append(g)
    return grads


def backward(tensors, grad_tensors=None, retain_graph=False):
    tensors = _as_list(tensors)
    grad_tensors = _as_list(grad_tensors)
    if len({id(t) for t in tensors}) != len(tensors):
        raise AssertionError("The argument 'tensors' of paddle.autograd.backward contains "
                             "duplicate paddle.Tensor object.")
    if grad_tensors is not None and len(grad_tensors) != len(tensors):
        raise AssertionError("The length of grad_tensors must be equal to the length of tensors "
                             f"({len(grad_tensors)} != {len(tensors)})")
    grads = _seed_grads(tensors, grad_tensors)
    try:
        _bw.run_backward(tensors, grads, retain_graph=retain_graph,
                         retain_nonleaf=profiles.current().retain_nonleaf_grads)
    except _bw.GraphFreedError as exc:
        raise freed_graph_error(exc, tensors[0].name) from None
    except _bw.InplaceModifiedError as exc:
        raise inplace_error(exc) from None


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=False, no_grad_vars=None):
    outputs = _as_list(outputs)
    inputs_l = _as_list(inputs)
    grad_outputs = _as_list(grad_outputs)
    if retain_graph is None:
        retain_graph = create_graph or not profiles.current().grad_frees_graph
    grads = _seed_grads(outputs, grad_outputs, "outputs")
    try:
        res = _bw.run_backward(outputs, grads, retain_graph=retain_graph,
                               create_graph=create_graph, inputs=inputs_l,
                               no_grad_vars=_as_list(no_grad_vars))
    except _bw.GraphFreedError as exc:
        raise freed_graph_error(exc, outputs[0].name) from None
    except _bw.InplaceModifiedError as exc:
        raise inplace_error(exc) from None
    out = []
    for i, g in enumerate(res):
        if g is None:
            if not allow_unused:
                raise ValueError(
                    f"(InvalidArgument) The {i}-th input does not appear in the backward graph. Please check the "
                    "input tensor or set allow_unused=True to get None result.")
            out.append(None)
        elif create_graph:
            out.append(g)
        else:
            out.append(Tensor._wrap(np.array(g.data), True))
    return out


# ------------------------------------------------------------------------------ PyLayer
class PyLayerContext:
    def __init__(self):
        self._saved = ()
        self._non_diff = set()
        self.materialize_grads = True

    def save_for_backward(self, *tensors):
        self._saved = tensors

    def saved_tensor(self):
        return self._saved

    def mark_non_differentiable(self, *tensors):
        self._non_diff.update(id(t) for t in tensors)

    def set_materialize_grads(self, value):
        self.materialize_grads = bool(value)


def _pylayer_vjp(node, *out_grads):
    cls, ctx = node.attrs["cls"], node.attrs["ctx"]
    with grad_mode.no_grad():
        res = cls.backward(ctx, *out_grads)
    res = list(res) if isinstance(res, (list, tuple)) else [res]
    if len(res) != len(node.in_meta):
        raise ValueError(
            f"{cls.__name__}.backward returned {len(res)} gradient(s), but forward took "
            f"{len(node.in_meta)} tensor input(s)")
    return tuple(res)


PY_LAYER = register("py_layer", None, _pylayer_vjp, legacy_name="PyLayerBackward", check=False)


class PyLayer:
    """Custom forward/backward: subclass with static ``forward(ctx, ...)``, ``backward(ctx, ...)``."""

    @classmethod
    def apply(cls, *args, **kwargs):
        ctx = PyLayerContext()
        with grad_mode.no_grad():
            out = cls.forward(ctx, *args, **kwargs)
        tensor_inputs = [a for a in list(args) + list(kwargs.values()) if isinstance(a, _T)]
        needs = grad_mode.is_grad_enabled() and any(not t.stop_gradient for t in tensor_inputs)
        outs = out if isinstance(out, (list, tuple)) else [out]
        if not needs:
            return out
        results = [o for o in outs if isinstance(o, _T)]
        node = GradNode(PY_LAYER, {"cls": cls, "ctx": ctx}, tensor_inputs,
                        tuple(o.data for o in results))
        node.out_meta = tuple((o.data.shape, o.data.dtype) for o in results)
        import weakref

        node.out_refs = tuple(weakref.ref(o) for o in results)
        for k, o in enumerate(results):
            if id(o) in ctx._non_diff:
                continue
            o.grad_node = node
            o.out_slot = k
            o.stop_gradient = False
        return out

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError

    @staticmethod
    def backward(ctx, *args):
        raise NotImplementedError


class Jacobian:
    """``paddle.autograd.jacobian`` result: a [ys.size, xs.size] matrix computed on access.

    Row i is ``paddle.grad(ys, xs, grad_outputs=e_i)``; ``J[:]`` (or any index) evaluates it.
    """

    def __init__(self, ys, xs):
        self._ys, self._xs = ys, xs
        self._value = None

    @property
    def shape(self):
        return [int(self._ys.data.size), int(self._xs.data.size)]

    def _evaluate(self):
        """Row i = grad(ys, xs, e_i), taken with create_graph so J is differentiable (as Paddle's)."""
        if self._value is None:
            from ..engine.ops import shape as S

            ys, xs = self._ys, self._xs
            n = int(xs.data.size)
            rows = []
            for i in range(ys.data.size):
                e = np.zeros(ys.data.size, ys.data.dtype)
                e[i] = 1
                (g,) = grad(ys, xs, grad_outputs=Tensor._wrap(e.reshape(ys.data.shape), True),
                            retain_graph=True, create_graph=True, allow_unused=True)
                rows.append(Tensor._wrap(np.zeros(n, xs.data.dtype), True) if g is None
                            else S.reshape(g, (n,)))
            self._value = (S.stack(rows, 0) if rows
                           else Tensor._wrap(np.zeros((0, n), xs.data.dtype), True))
        return self._value

    def __getitem__(self, index):
        from .tensor import indexing  # noqa: F401  (binds __getitem__)

        return self._evaluate()[index]

    def numpy(self):
        return self._evaluate().numpy()


def _per_pair(ys, xs, make):
    if isinstance(ys, (list, tuple)):
        return tuple(_per_pair(y, xs, make) for y in ys)
    if isinstance(xs, (list, tuple)):
        return tuple(make(ys, x) for x in xs)
    return make(ys, xs)


def jacobian(ys, xs, batch_axis=None):
    """Jacobian of ``ys`` with respect to ``xs`` (no batch axis yet): [ys.size, xs.size]."""
    if batch_axis is not None:
        raise NotImplementedError("paddle.autograd.jacobian with batch_axis is not supported yet")

    def make(y, x):
        for what, t in (("xs", x), ("ys", y)):
            if t.data.ndim > 1:
                raise ValueError(f"{what}.ndim should be 0 or 1 when is_batched=False but got "
                                 f"{t.data.ndim}")
        return Jacobian(y, x)

    return _per_pair(ys, xs, make)


def hessian(ys, xs, batch_axis=None):
    """Hessian of a scalar ``ys``: the Jacobian of its gradient (taken with create_graph)."""
    if batch_axis is not None:
        raise NotImplementedError("paddle.autograd.hessian with batch_axis is not supported yet")
    if ys.data.size != 1:
        raise ValueError(f"hessian needs a tensor with one element, got shape {list(ys.data.shape)}")

    def make(y, x):
        (g,) = grad(y, x, create_graph=True, allow_unused=True)
        return Jacobian(g, x)

    return _per_pair(ys, xs, make)
