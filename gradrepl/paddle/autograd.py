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
from . import core as _core
from . import bf16, glog, profiles
from .core import Tensor
from .double_grad import refuser

__all__ = ["backward", "grad", "PyLayer", "PyLayerContext", "no_grad", "enable_grad",
           "set_grad_enabled", "is_grad_enabled", "hessian", "jacobian", "saved_tensors_hooks",
           "Jacobian", "Hessian"]

from .base.dygraph.base import enable_grad, no_grad, set_grad_enabled  # noqa: E402
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
    glog.node_failed(_core.GradNodeBase(node).name())
    line = {"3": 204, "2.6": 83}.get(profiles.current().key)   # (measured; 2.2 is legacy)
    return SystemError(
        f"(Fatal) The TensorWrappers of {node.op.backward_name} do not exist. This may be because:\n"
        "You calculate backward twice for the same subgraph without setting retain_graph=True. "
        "Please set retain_graph=True in the first backward/grad call.\n"
        + ("" if line is None else "\n  [Hint: Expected node->IsTensorWrappersCleared() != true, "
           "but received node->IsTensorWrappersCleared():1 == true:1.] (at "
           f"/paddle/paddle/fluid/eager/backward.cc:{line})\n"))


def inplace_error(exc: _bw.InplaceModifiedError):
    glog.node_failed(_core.GradNodeBase(exc.node).name())
    return RuntimeError(
        f"(PermissionDenied) Tensor '' used in gradient computation has been modified by an "
        f"inplace operation. Its version is {exc.version} but the expected version is "
        f"{exc.saved_version}. Please fix your code to void calling an inplace operator after "
        "using the Tensor which will used in gradient computation.\n  [Hint: Expected "
        "tensor_version == wrapper_version_snapshot, but received tensor_version:"
        f"{exc.version} != wrapper_version_snapshot:{exc.saved_version}.]" + _wrapper_line())


def _wrapper_line():
    from .saved import WRAPPER_LINE

    line = WRAPPER_LINE.get(profiles.current().key)
    return "" if line is None else f" (at /paddle/paddle/fluid/eager/tensor_wrapper.h:{line})\n"


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
            g = Tensor._wrap(bf16.full(t.data.shape, 1, t.data.dtype), True)  # any dtype
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
                         retain_nonleaf=profiles.current().retain_nonleaf_grads,
                         refuse=refuser(False))
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
                               no_grad_vars=no_grad,
                               zero_links=profiles.current().double_grad_zeros,
                               refuse=refuser(create_graph))
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
        elif create_graph:  # a constant gradient does not stop gradient either, and is no
            # leaf (Paddle's comes out of a grad node): an assign node without edges makes it
            out.append(g if not g.stop_gradient else _bw._linked_constant(
                Tensor._wrap(g.data, True), ()))
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


# ------------------------------------------------------------------------------ saved tensors hooks
class _HookedNode(GradNode):
    """A backward node made inside ``saved_tensors_hooks``: its saved inputs are packed when
    it is made and unpacked (once) when the backward first reads them."""

    __slots__ = ("_packed", "_unpacked", "_pack_hooks")

    def __setattr__(self, name, value):
        if name == "inputs":
            self._set_inputs(value)
        else:
            GradNode.__setattr__(self, name, value)

    def _set_inputs(self, value):
        object.__setattr__(self, "_unpacked", value)
        hooks = _SAVED_HOOKS[-1] if _SAVED_HOOKS else None
        if value is None or hooks is None or not self.op.saves_inputs:
            object.__setattr__(self, "_packed", None)
            object.__setattr__(self, "_pack_hooks", None)
            return
        self.keep_meta()  # the arrays are the hooks' to keep or not
        object.__setattr__(self, "in_data", None)
        object.__setattr__(self, "_packed", [hooks[0](t) for t in value])
        object.__setattr__(self, "_pack_hooks", hooks)
        object.__setattr__(self, "_unpacked", None)

    @property
    def inputs(self):
        if self._unpacked is None and self._packed is not None:
            unpack = self._pack_hooks[1]
            object.__setattr__(self, "_unpacked", tuple(unpack(p) for p in self._packed))
            object.__setattr__(self, "_packed", None)
        return self._unpacked

    def release(self):
        object.__setattr__(self, "_packed", None)
        object.__setattr__(self, "_unpacked", None)
        self.keep_meta()
        self.in_data = None
        self.out_data = None
        self.released = True


_SAVED_HOOKS = []


class saved_tensors_hooks:
    """``with paddle.autograd.saved_tensors_hooks(pack, unpack):``: every tensor a backward op
    saves is passed to ``pack`` when the op runs, and what pack returned to ``unpack`` when the
    backward needs it."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self):
        from ..engine import registry

        _SAVED_HOOKS.append((self.pack_hook, self.unpack_hook))
        registry.GradNode = _HookedNode
        return self

    def __exit__(self, *exc):
        from ..engine import registry

        _SAVED_HOOKS.pop()
        if not _SAVED_HOOKS:
            registry.GradNode = GradNode
        return False


# ------------------------------------------------------------------------------ PyLayer
class PyLayerContext:
    def __init__(self):
        self._saved = ()
        self._non_diff = set()
        self.materialize_grads = True

    def save_for_backward(self, *tensors):
        """Keep tensors for backward (packed by an active ``saved_tensors_hooks``)."""
        hooks = _SAVED_HOOKS[-1] if _SAVED_HOOKS else None
        if hooks is not None:
            self._saved = tuple(hooks[0](t) for t in tensors)
            self._unpack = hooks[1]
        else:
            self._saved = tensors
            self._unpack = None

    def saved_tensor(self):
        unpack = getattr(self, "_unpack", None)
        if unpack is not None:
            self._saved = tuple(unpack(p) for p in self._saved)
            self._unpack = None
        return self._saved

    def mark_non_differentiable(self, *tensors):
        self._non_diff.update(id(t) for t in tensors)

    def set_materialize_grads(self, value):
        self.materialize_grads = bool(value)

    def mark_not_inplace(self, *args):
        """Paddle 3: the listed inputs are not modified in place by forward (nothing to do
        here: gradrepl never aliases a PyLayer's inputs and outputs)."""
        self.not_inplace_tensors = args

    def set_grad_in_dtype_consistent(self, flag):
        """Paddle 3: whether the incoming gradient is cast to the forward output's dtype."""
        self.grad_in_dtype_consistent = bool(flag)


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


class PyLayer(metaclass=_core.PaddleClass):
    _paddle_path = "paddle.autograd.py_layer.PyLayer"
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
        # an input returned as it is (forward is the identity for it) comes out as a new tensor
        # over the same values, so the input keeps its own place in the graph
        input_ids = {id(t) for t in tensor_inputs}
        if any(isinstance(o, _T) and id(o) in input_ids for o in outs):
            outs = [type(o)._result_type._wrap(o.data, o.stop_gradient)
                    if isinstance(o, _T) and id(o) in input_ids else o for o in outs]
            out = type(out)(outs) if isinstance(out, (list, tuple)) else outs[0]
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


# ============================================================== jacobian / hessian
# Paddle's own design (python/paddle/autograd/autograd.py): a lazily evaluated matrix whose rows
# are ``paddle.grad(ys[i], xs, create_graph=True)``, cached row by row, indexed like a tensor.
def _is_seq(v):
    return isinstance(v, (list, tuple))


def _as_tensors(xs):
    return tuple(xs) if _is_seq(xs) else xs


def _grad_for_jacobian(ys, xs):
    """paddle.grad with create_graph and allow_unused; a missing gradient is zeros."""
    from .tensor.creation import zeros_like

    single = not _is_seq(xs)
    gs = grad(ys, xs, create_graph=True, allow_unused=True)
    refs = [xs] if single else list(xs)
    out = []
    for g, ref in zip(gs, refs):
        if g is None:
            g = zeros_like(ref)
            g.stop_gradient = ref.stop_gradient
        out.append(g)
    return out[0] if single else tuple(out)


def _multi_index(indexes, shape):
    """Paddle's normalisation of a Jacobian index: one entry per axis, slices made positive."""
    indexes = tuple(indexes) if isinstance(indexes, (list, tuple)) else (indexes,)
    if any(i is Ellipsis for i in indexes):
        raise IndexError("Ellipsis index currently is not supported.")
    indexes = indexes + (slice(0, None, None),) * (len(shape) - len(indexes))
    out = []
    for i, index in enumerate(indexes):
        if isinstance(index, slice):
            index = slice(index.start or 0, index.stop or shape[i], index.step or 1)
            out.append(slice(index.start + shape[i] if index.start < 0 else index.start,
                             index.stop + shape[i] if index.stop < 0 else index.stop,
                             index.step))
        elif isinstance(index, int):
            out.append(index + shape[i] if index < 0 else index)
        else:
            raise TypeError(f"Not supported index type {index}.")
    return tuple(out)


class _LazyJacobian:
    """The rows of a Jacobian, evaluated on demand along ``_lazy_axis`` and cached."""

    is_batched = False
    _lazy_axis = 0

    def __init__(self, ys, xs):
        self.original_xs_shape = xs.shape
        self.original_ys_shape = ys.shape
        self._xs = xs
        self._ys = ys
        if len(ys.shape) == 0 and not self.is_batched:
            self._ys = ys.reshape([-1])
        if len(ys.shape) == 1 and self.is_batched:
            self._ys = ys.reshape([-1, 1])
        self._flatten_xs = self._flatten(_as_tensors(self._xs))
        self._flatten_ys = self._flatten(_as_tensors(self._ys))
        self._cache = {}

    def __getitem__(self, indexes):
        from .tensor.manipulation import concat

        if not self.is_batched:
            if len(self.shape) == 0:
                raise IndexError("0-D tensor can not be indexed.")
            if len(self.shape) == 1:
                indexes = (0, indexes) if len(self.original_ys_shape) == 0 else (indexes, 0)
        else:
            if len(self.shape) == 1:
                indexes = (indexes, 0, 0)
            elif len(self.shape) == 2:
                if isinstance(indexes, slice):
                    indexes = (indexes, slice(None, None, None))
                else:
                    indexes = ((indexes[0], 0, indexes[1]) if len(self.original_ys_shape) == 1
                               else (indexes[0], indexes[1], 0))
        indexes = _multi_index(indexes, self.inner_shape)
        lazy = self._lazy_axis
        if isinstance(indexes[lazy], int):
            other = indexes[:lazy] + indexes[lazy + 1:]
            return self._cached_evaluate(indexes[lazy])[other]
        idx = indexes[lazy]
        rows = tuple(range(idx.start, idx.stop, idx.step))
        shape = list(self.inner_shape)
        shape[lazy] = len(rows)
        part = concat([self._cached_evaluate(i) for i in rows], axis=lazy).reshape(shape)
        shifted = (*indexes[:lazy], slice(0, len(rows), 1), *indexes[lazy + 1:])
        result = part[shifted]
        for _ in range(len(result.shape) - len(self.shape)):
            result = result.squeeze(-1)
        return result

    def _cached_evaluate(self, k):
        if k is None:
            return self._cached_evaluate(0).reshape([])
        v = self._cache.get(k)
        if v is None:
            v = self._cache[k] = self._evaluate(k)
        return v

    def _evaluate_all(self):
        if len(self.shape) == 0:
            return self._cached_evaluate(None)
        return self[:]


class _JacobianNoBatch(_LazyJacobian):
    """f: R^M -> R^N gives a [N, M] matrix."""

    def __init__(self, ys, xs):
        super().__init__(ys, xs)
        self.inner_shape = [*self._flatten_ys.shape[0:1], *self._flatten_xs.shape[0:1]]
        self.shape = [*self.original_ys_shape[0:1], *self.original_xs_shape[0:1]]

    def _flatten(self, xs):
        from .tensor.manipulation import concat

        if not _is_seq(xs):
            return xs.reshape((-1,))
        return concat(tuple(x.reshape((-1,)) for x in xs))

    def _evaluate(self, row):
        return self._flatten(_grad_for_jacobian(self._flatten_ys[row], self._xs))


class _JacobianBatchFirst(_LazyJacobian):
    """f: R^{B,M} -> R^{B,N} gives a [B, N, M] tensor."""

    is_batched = True
    _lazy_axis = 1

    def __init__(self, ys, xs):
        super().__init__(ys, xs)
        self.inner_shape = [*self._flatten_xs.shape[0:1], *self._flatten_ys.shape[1:2],
                            *self._flatten_xs.shape[1:2]]
        self.shape = [*self._flatten_xs.shape[0:1], *self.original_ys_shape[1:2],
                      *self.original_xs_shape[1:2]]

    def _flatten(self, xs):
        from .tensor.manipulation import concat

        if not _is_seq(xs):
            return xs.reshape((xs.shape[0], -1))
        return concat(tuple(x.reshape((x.shape[0], -1)) for x in xs), 1)

    def _evaluate(self, row):
        return self._flatten(_grad_for_jacobian(self._flatten_ys[:, row], self._xs))


def _jacobian_binary(op):
    def method(self, other):
        rhs = other._evaluate_all() if isinstance(other, Jacobian) else other
        return op(self._evaluate_all(), rhs)
    return method


class Jacobian(metaclass=_core.PaddleClass):
    """``paddle.autograd.jacobian``'s result: index it (``J[:]``, ``J[:, i]``) to evaluate."""

    _paddle_path = "paddle.autograd.autograd.Jacobian"

    def __init__(self, ys, xs, is_batched=False):
        if not is_batched:
            if not 0 <= len(xs.shape) <= 1:
                raise ValueError(f"xs.ndim should be 0 or 1 when is_batched=False but got "
                                 f"{len(xs.shape)}")
            if not 0 <= len(ys.shape) <= 1:
                raise ValueError(f"ys.ndim should be 0 or 1 when is_batched=False but got "
                                 f"{len(ys.shape)}")
            self._jacobian = _JacobianNoBatch(ys, xs)
        else:
            if not 1 <= len(ys.shape) <= 2:
                raise ValueError(f"ys.ndim should be 1 or 2 when is_batched=True but got "
                                 f"{len(ys.shape)}")
            if not 1 <= len(xs.shape) <= 2:
                raise ValueError(f"xs.ndim should be 1 or 2 when is_batched=True but got "
                                 f"{len(xs.shape)}")
            self._jacobian = _JacobianBatchFirst(ys, xs)

    @property
    def shape(self):
        return self._jacobian.shape

    def __getitem__(self, indexes):
        return self._jacobian[indexes]

    def __getattr__(self, name):
        if name in ("_jacobian", "__setstate__", "__getstate__"):
            raise AttributeError(name)
        if name == "_evaluate_all":
            return self._jacobian._evaluate_all
        return getattr(self._jacobian._evaluate_all(), name)

    def __repr__(self):
        return _core.paddle_repr(self, _core.paddle_path(type(self)))

    import operator as _op
    __add__ = _jacobian_binary(_op.add)
    __sub__ = _jacobian_binary(_op.sub)
    __mul__ = _jacobian_binary(_op.mul)
    __truediv__ = __div__ = _jacobian_binary(_op.truediv)
    __pow__ = _jacobian_binary(_op.pow)
    __mod__ = _jacobian_binary(_op.mod)
    __floordiv__ = _jacobian_binary(_op.floordiv)
    __matmul__ = _jacobian_binary(_op.matmul)
    __eq__ = _jacobian_binary(_op.eq)
    __ne__ = _jacobian_binary(_op.ne)
    __lt__ = _jacobian_binary(_op.lt)
    __le__ = _jacobian_binary(_op.le)
    __gt__ = _jacobian_binary(_op.gt)
    __ge__ = _jacobian_binary(_op.ge)
    __hash__ = object.__hash__
    del _op


class Hessian(Jacobian):
    _paddle_path = "paddle.autograd.autograd.Hessian"


def jacobian(ys, xs, batch_axis=None):
    """The Jacobian of ``ys`` with respect to ``xs`` (each may be a tuple: then a tuple of
    Jacobians); ``batch_axis=0`` treats the first axis as a batch ([B, M, N])."""
    if batch_axis is not None and batch_axis != 0:
        raise ValueError(f"batch_axis should be None or 0, but got {batch_axis}.")
    b = batch_axis is not None
    if _is_seq(ys) and _is_seq(xs):
        return tuple(tuple(Jacobian(y, x, b) for x in xs) for y in ys)
    if _is_seq(ys):
        return tuple(Jacobian(y, xs, b) for y in ys)
    if _is_seq(xs):
        return tuple(Jacobian(ys, x, b) for x in xs)
    return Jacobian(ys, xs, b)


def hessian(ys, xs, batch_axis=None):
    """The Hessian of a one-element ``ys`` (per batch row with ``batch_axis=0``): the Jacobian
    of its Jacobian; for a tuple ``xs`` a tuple of tuples (block [i][j] is d2y/dxi dxj)."""
    if batch_axis is None:
        if ys.size > 1:
            raise ValueError(f"Only support ys.numel()({ys.size})==1 when batch_axis is None.")
        ys = ys.reshape(())
    elif isinstance(batch_axis, int):
        if ys[0].size > 1:
            raise ValueError(f"Only support ys[0].numel()({ys.size})==1 when batch_axis is int")
        if batch_axis != 0:
            raise ValueError("Only support batch_axis=0 yet.")
        ys = ys.reshape((-1,))
    else:
        raise ValueError(f"batch_axis should be None or int, but got {type(batch_axis)}.")
    jac = jacobian(ys, xs, batch_axis)
    if not _is_seq(xs):
        h = jacobian(jac, xs, batch_axis)
        h.__class__ = Hessian
        return h
    h = tuple(jacobian(j, xs, batch_axis) for j in jac)
    for row in h:
        for block in row:
            block.__class__ = Hessian
    return h


def __getattr__(name):  # Paddle 3's torch-style name of PyLayer (paddle.autograd.Function)
    if name == "Function" and profiles.current().api3:
        return PyLayer
    from .not_emulated import error

    raise error("paddle.autograd", name)


from .names_gate import gate as _gate  # noqa: E402  (the names of the emulated version)

_gate(__name__)
