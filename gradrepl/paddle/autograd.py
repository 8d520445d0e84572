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


def _tensor_list(v, name, element_msg):
    """Paddle's argument check for ``tensors`` / ``outputs`` / ``inputs``: a Tensor or a
    non-empty list of Tensors (AssertionError with Paddle's wording otherwise)."""
    if v is None:
        raise AssertionError(f"{name} should not be None")
    if isinstance(v, (list, tuple)):
        if not v:
            raise AssertionError(f"{name} {_cannot()} be empty" if name == "tensors"
                                 else f"{name} cannot be empty")
        if not all(isinstance(t, _T) for t in v):
            raise AssertionError(element_msg)
        return list(v)
    if not isinstance(v, _T):
        raise AssertionError(f"{name} must be Tensor or list of Tensor")
    return [v]


def _cannot():
    """paddle.autograd.backward's spelling in 2.x ("connot")."""
    return "connot" if profiles.current().error_wording == "2.6" else "cannot"


def _optional_tensors(v, count, message, length_message):
    """``grad_tensors`` / ``grad_outputs``: None, a Tensor, or a list of Tensors and Nones."""
    if v is None:
        return []
    v = list(v) if isinstance(v, (list, tuple)) else [v]
    if not all(g is None or isinstance(g, _T) for g in v):
        raise AssertionError(message)
    if v and len(v) != count:
        raise AssertionError(length_message)
    return v


def _seed_grads(tensors, grad_tensors):
    """The gradient each root starts from: ones where none is given; Paddle does not compare
    a given seed's shape with its root's (only Tensor.backward does). Under a "cast" profile a
    seed of another dtype is cast to its root's dtype (3.x); under "keep" it is used as given
    where it matters (the dtype of paddle.grad's results, the 2.x leaf accumulation error)."""
    grads = []
    for i, t in enumerate(tensors):
        g = grad_tensors[i] if grad_tensors and i < len(grad_tensors) else None
        if g is None:
            g = Tensor._wrap(np.ones(t.data.shape, t.data.dtype), True)
        else:
            if g.data.dtype != t.data.dtype:
                g = Tensor._wrap(g.data.astype(t.data.dtype), True)
        grads.append(g)
    return grads


def _seed_dtype_error(tensors, grad_tensors):
    """2.x: a seed whose dtype differs from its root's fails when the gradient reaches a leaf."""
    if profiles.current().grad_seed_dtype != "keep":
        return
    for t, g in zip(tensors, grad_tensors or ()):
        if g is not None and g.data.dtype != t.data.dtype:
            raise ValueError(
                f"(InvalidArgument) The type of data we are trying to retrieve "
                f"({g.data.dtype.name}) does not match the type of data ({t.data.dtype.name}) "
                "currently contained in the container.")


def bool_argument_error(position, value):
    """What Paddle's pybind layer raises for a non-bool where a bool argument is expected."""
    if profiles.current().arg_type_error == "TypeError":
        return TypeError(f"(InvalidType) argument (position {position}) must be bool, but got "
                         f"{type(value).__name__} (at /paddle/paddle/fluid/pybind/"
                         "eager_utils.cc:286)")
    return ValueError(f"(InvalidArgument) argument (position {position}) must be bool, but got "
                      f"{type(value).__name__} (at /paddle/paddle/fluid/pybind/"
                      "eager_utils.cc:236)")


def backward(tensors, grad_tensors=None, retain_graph=False):
    tensors = _tensor_list(tensors, "tensors", "Elements of tensors must be paddle.Tensor")
    if len({id(t) for t in tensors}) != len(tensors):
        raise AssertionError("The argument 'tensors' of paddle.autograd.backward contains "
                             "duplicate paddle.Tensor object.")
    grad_tensors = _optional_tensors(
        grad_tensors, len(tensors),
        "The argument 'grad_tensors' of paddle.autograd.backward is invalid, it can be 'None', "
        "'paddle.Tensor' or 'list[None/paddle.Tensor]'.",
        "The length of grad_tensors must be equal to tensors")
    if not isinstance(retain_graph, bool):
        raise AssertionError("retain_graph must be True or False")
    _run_backward(tensors, grad_tensors, retain_graph)


def _run_backward(tensors, grad_tensors, retain_graph):
    """Backward from ``tensors`` into the leaves' ``.grad`` (checked arguments)."""
    _seed_dtype_error(tensors, grad_tensors)
    grads = _seed_grads(tensors, grad_tensors)
    try:
        _bw.run_backward(tensors, grads, retain_graph=retain_graph,
                         retain_nonleaf=profiles.current().retain_nonleaf_grads)
    except _bw.GraphFreedError as exc:
        raise freed_graph_error(exc, tensors[0].name) from None
    except _bw.InplaceModifiedError as exc:
        raise inplace_error(exc) from None


def _no_grad_vars(v):
    if v is None:
        return []
    if isinstance(v, _T):
        return [v]
    if isinstance(v, (list, tuple, set)):
        if not all(isinstance(t, _T) for t in v):
            raise AssertionError("no_grad_vars can only contains Tensor")
        return list(v)
    raise AssertionError("no_grad_vars must be None, Tensor or list/tuple/set of Tensors")


def _check_grad_flags(create_graph, retain_graph, allow_unused, only_inputs):
    if not isinstance(create_graph, bool):
        raise AssertionError("create_graph must be True or False")
    if retain_graph is not None and not isinstance(retain_graph, bool):
        raise AssertionError("retain_graph must be None, True or False")
    if not isinstance(allow_unused, bool):
        raise AssertionError("allow_unused must be True or False")
    if not isinstance(only_inputs, bool):
        raise AssertionError("only_inputs must be True or False")
    if not only_inputs:
        raise AssertionError("only_inputs=False is not supported yet")


def _duplicate_input_error(inputs):
    seen = set()
    for t in inputs:
        if id(t) in seen:
            return RuntimeError(f"(AlreadyExists) inputs contain duplicate tensor {t.name}, "
                                "please check inputs carefully.")
        seen.add(id(t))
    return None


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=False, no_grad_vars=None):
    outputs = _tensor_list(outputs, "outputs", "Elements of outputs must be Tensor")
    inputs_l = _tensor_list(inputs, "inputs", "Elements of inputs must be Tensor")
    grad_outputs = _optional_tensors(
        grad_outputs, len(outputs),
        "grad_outputs must be None, a Variable or a list containing None or Variables",
        "The length of grad_outputs must be equal to outputs")
    no_grad = _no_grad_vars(no_grad_vars)
    _check_grad_flags(create_graph, retain_graph, allow_unused, only_inputs)
    dup = _duplicate_input_error(inputs_l)
    if dup is not None:
        raise dup
    if retain_graph is None:
        retain_graph = create_graph or not profiles.current().grad_frees_graph
    grads = _seed_grads(outputs, grad_outputs)
    try:
        res = _bw.run_backward(outputs, grads, retain_graph=retain_graph,
                               create_graph=create_graph, inputs=inputs_l,
                               no_grad_vars=no_grad)
    except _bw.GraphFreedError as exc:
        raise freed_graph_error(exc, outputs[0].name) from None
    except _bw.InplaceModifiedError as exc:
        raise inplace_error(exc) from None
    out_dtype = _result_dtype(outputs, grad_outputs)
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
            data = g.data if out_dtype is None else g.data.astype(out_dtype)
            out.append(Tensor._wrap(np.array(data), True))
    return out


def _result_dtype(outputs, grad_outputs):
    """2.x: a single output seeded with another dtype gives gradients in the seed's dtype."""
    if profiles.current().grad_seed_dtype != "keep" or len(outputs) != 1 or not grad_outputs:
        return None
    g = grad_outputs[0]
    return None if g is None or g.data.dtype == outputs[0].data.dtype else g.data.dtype


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


def pylayer_node_name(cls):
    """``GradNodePyLayer_<class>`` (3.x) or ``GradNodePyLayer_<class>_backward`` (2.x)."""
    return f"GradNodePyLayer_{cls.__name__}{profiles.current().pylayer_node_suffix}"


def _pylayer_error(node_name, text, line3, line26):
    """A PyLayer ValueError as Paddle's C++ node words it (3.x names the node first)."""
    if profiles.current().error_wording == "3":
        return ValueError(f"(InvalidArgument) {node_name} : {text} "
                          f"(at /paddle/paddle/fluid/eager/pylayer/py_layer_node.cc:{line3})\n")
    return ValueError(f"(InvalidArgument) {text} "
                      f"(at /paddle/paddle/fluid/eager/pylayer/py_layer_node.cc:{line26})\n")


def _missing_backward_error(cls):
    name = pylayer_node_name(cls)
    if profiles.current().error_wording == "3":
        return OSError("(External) \n{\n    ====== Error message in backward of "
                       f"{name} ======\n    NotImplementedError: You must implement the backward "
                       "function for PyLayer.\n}\n (at /paddle/paddle/fluid/eager/pylayer/"
                       "py_layer_node.cc:177)\n")
    return OSError("(External) NotImplementedError: You must implement the backward function "
                   "for PyLayer.\n (at /paddle/paddle/fluid/eager/pylayer/py_layer_node.cc:161)\n")


def _received(g, materialize):
    """An output's gradient as Paddle hands it to backward: one that arrived does not stop
    gradient; one that did not is zeros that stop gradient, or None without materialize_grads.
    (The engine fills missing gradients with zeros, so an all-zero gradient counts as missing.)"""
    if g.grad_node is None and not g.data.any():
        return g if materialize else None
    g.stop_gradient = False
    return g


def _pylayer_vjp(node, *out_grads):
    """Call the user's backward with the outputs' gradients (which, as in Paddle, do not stop
    gradient) and check what it returns the way Paddle's PyLayer node does."""
    cls, ctx = node.attrs["cls"], node.attrs["ctx"]
    out_grads = [_received(g, ctx.materialize_grads) for g in out_grads]
    if cls.backward is PyLayer.backward:
        raise _missing_backward_error(cls)
    with grad_mode.no_grad():
        res = cls.backward(ctx, *out_grads)
    res = list(res) if isinstance(res, (list, tuple)) else [res]
    name = pylayer_node_name(cls)
    n = len(node.in_meta)
    if len(res) > n:
        raise _pylayer_error(name, f"The number of outputs of `PyLayer.backward` should be {n}, "
                             f"but received {len(res)}.", 196, 182)
    for r in res:
        if r is not None and not isinstance(r, _T):
            raise _pylayer_error(
                name, "We can only support Tensor or None for backward output, , but got "
                f"{type(r).__name__}, please check your PyLayer code and make it fits", 234, 216)
    for i in range(len(res), n):
        if not node.inputs[i].stop_gradient:
            line = 243 if profiles.current().error_wording == "3" else 227
            raise ValueError(
                f"(InvalidArgument) {name}'s backward function should not return empty at {i} "
                "position.\n  [Hint: Expected this->OutputMeta()[i][0].IsStopGradient() == true, "
                "but received this->OutputMeta()[i][0].IsStopGradient():0 != true:1.] (at "
                f"/paddle/paddle/fluid/eager/pylayer/py_layer_node.cc:{line})\n")
    return tuple(res) + (None,) * (n - len(res))


PY_LAYER = register("py_layer", None, _pylayer_vjp, legacy_name="PyLayerBackward", check=False)


def _forward_output_error(cls):
    if profiles.current().error_wording == "3":
        return ValueError(f"(InvalidArgument) {cls.__name__} : At least one output of "
                          "`PyLayer.forward` is a `Tensor`. (at /paddle/paddle/fluid/pybind/"
                          "eager_py_layer.cc:524)\n")
    return ValueError("(InvalidArgument) At least one output of `PyLayer.forward` is a `Tensor`. "
                      "(at /paddle/paddle/fluid/pybind/eager_py_layer.cc:437)\n")


class PyLayer:
    """Custom forward/backward: subclass with static ``forward(ctx, ...)``, ``backward(ctx, ...)``."""

    @classmethod
    def apply(cls, *args, **kwargs):
        ctx = PyLayerContext()
        if cls.forward is PyLayer.forward:
            raise NotImplementedError("You must implement the forward function for PyLayer.")
        with grad_mode.no_grad():
            out = cls.forward(ctx, *args, **kwargs)
        outs = out if isinstance(out, (list, tuple)) else [out]
        if not any(isinstance(o, _T) for o in outs):
            raise _forward_output_error(cls)
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
