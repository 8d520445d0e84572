"""``paddle.nn.Layer``: parameters, sublayers and buffers registered by attribute assignment.

Names follow Paddle's unique-name generator: a layer is ``<snake_class>_<n>`` (``linear_0``),
its parameters ``<layer>.w_<k>`` / ``<layer>.b_<k>`` (``linear_0.w_0``); counters are per key.
"""
from __future__ import annotations

import contextlib
import copy
import re
import warnings
from collections import OrderedDict

import numpy as np

from ....engine import provenance as _provenance
from ....engine.tensor import Tensor as _T
from ... import dtypes, libwarn, profiles
from ...core import PaddleClass as _PaddleClass
from ...core import Parameter, Tensor

# ---------------------------------------------------------------------- unique names
def unique_name(key):
    """``key_<n>`` with a counter per key: ``paddle.utils.unique_name.generate`` (one generator,
    so layers and parameters made inside ``unique_name.guard()`` count from 0 again, as in
    Paddle: a model rebuilt there has the names of the one saved)."""
    from ...utils import unique_name as _un
    return _un.generate(key)


def reset_names():
    """Forget every counter (a fresh session)."""
    from ...utils import unique_name as _un
    _un.switch()


def camel_to_snake(name):
    s1 = re.sub("(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub("([a-z])([A-Z])", r"\1_\2", s1).lower()  # Paddle: no digit before a capital


# ---------------------------------------------------------------------- parameters
def to_param_attr(arg):
    """ParamAttr._to_attr: None/True -> a default ParamAttr, str -> its name, an initializer
    -> its initializer, False -> False (no parameter)."""
    from ... import ParamAttr
    from ..initializer import Initializer

    if arg is None or arg is True:
        return ParamAttr()
    if arg is False:
        return False
    if isinstance(arg, ParamAttr):
        return arg
    if isinstance(arg, str):
        return ParamAttr(name=arg)
    if isinstance(arg, Initializer):
        return ParamAttr(initializer=arg)
    if isinstance(arg, (list, tuple)):
        return [to_param_attr(a) for a in arg]
    raise TypeError(f"{type(arg)} cast to ParamAttr")


def make_parameter(shape, dtype=None, attr=None, is_bias=False, default_initializer=None,
                   owner_name=None):
    """A new Parameter filled by the attr's initializer (default: Xavier-uniform for weights,
    zeros for biases), named after ``owner_name`` unless the attr names it. Without an owner it
    is ``paddle.create_parameter``: ``create_parameter_<n>.w_0`` / ``.b_0``."""
    from ..initializer import Constant, XavierUniform

    attr = to_param_attr(attr)
    if attr is False:
        return None
    attr = copy.copy(attr)
    npdt = dtypes.to_np(dtype) if dtype is not None else _default_dtype()
    shape = [int(s) for s in shape]
    for s in shape:
        if s < 0:
            raise ValueError(
                f"Expected every dim's size to be larger than 0, but the size of dim is {s}")
    from ..initializer import global_initializers

    init = attr.initializer or global_initializers()[1 if is_bias else 0] or default_initializer
    if init is None:
        init = Constant(0.0) if is_bias else XavierUniform()
    name = attr.name
    if name is None:
        prefix = owner_name if owner_name is not None else unique_name("create_parameter")
        name = unique_name(f"{prefix}.{'b' if is_bias else 'w'}")
    p = new_parameter(np.zeros(shape, npdt), name, trainable=attr.trainable)
    p.optimize_attr = {"learning_rate": attr.learning_rate}
    p.regularizer = attr.regularizer
    p.need_clip = getattr(attr, "need_clip", True)
    init(p)
    return p


def new_parameter(array, name, trainable=True):
    """A Parameter holding ``array`` with every Parameter attribute set."""
    p = Parameter(np.asarray(array), stop_gradient=not trainable)
    p.name = name
    p.trainable = trainable
    p.optimize_attr = {"learning_rate": 1.0}
    p.regularizer = None
    p.need_clip = True
    p.is_distributed = False
    return p


def _default_dtype():
    from ...tensor.creation import get_default_dtype

    return np.dtype(get_default_dtype())


# ---------------------------------------------------------------------- Layer
def _addindent(string, indent):
    lines = string.split("\n")
    if len(lines) == 1:
        return string
    return lines[0] + "\n" + "\n".join(" " * indent + line for line in lines[1:])


@contextlib.contextmanager
def _cast_quiet():
    """Paddle casts a layer (``to``, ``float``, ``float16``, ``bfloat16``, 3.x ``double``) inside
    ``warnings.catch_warnings()`` with UserWarnings ignored. Leaving it resets Python's
    once-per-location warning registries, so a warning shown before (BatchNorm's "always track
    global mean and variance") shows again at its next call, as under real Paddle."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=UserWarning)
        yield


class HookRemoveHelper:
    """What ``register_forward_*_hook`` returns: ``remove()`` unregisters the hook."""

    _next = [0]

    def __init__(self, hooks):
        self._hooks = hooks
        self._id = HookRemoveHelper._next[0]
        HookRemoveHelper._next[0] += 1

    def remove(self):
        self._hooks.pop(self._id, None)


class Layer(metaclass=_PaddleClass):
    """The base of every layer: call it to run ``forward``; assign Parameters, Layers and
    Tensors as attributes to register them."""

    training: bool

    def __init__(self, name_scope=None, dtype="float32"):
        self.training = True
        self._full_name = unique_name(name_scope or camel_to_snake(type(self).__name__))
        self._dtype = dtype
        self._parameters = OrderedDict()
        self._sub_layers = OrderedDict()
        self._buffers = OrderedDict()
        self._non_persistable_buffer_names_set = set()
        self._forward_pre_hooks = OrderedDict()
        self._forward_post_hooks = OrderedDict()

    # ------------------------------------------------------------------ calling
    def forward(self, *inputs, **kwargs):
        raise NotImplementedError

    def __call__(self, *inputs, **kwargs):
        for hook in list(self._forward_pre_hooks.values()):
            res = hook(self, inputs)
            if res is not None:
                inputs = res if isinstance(res, tuple) else (res,)
        rec = _provenance.ACTIVE
        if rec is None:
            out = self.forward(*inputs, **kwargs)
        else:  # a picture is being recorded: note which nodes this call makes (collapse)
            rec.enter_layer(self)
            try:
                out = self.forward(*inputs, **kwargs)
            finally:
                rec.exit_layer()
        for hook in list(self._forward_post_hooks.values()):
            res = hook(self, inputs, out)
            if res is not None:
                out = res
        return out

    def register_forward_pre_hook(self, hook):
        h = HookRemoveHelper(self._forward_pre_hooks)
        self._forward_pre_hooks[h._id] = hook
        return h

    def register_forward_post_hook(self, hook):
        h = HookRemoveHelper(self._forward_post_hooks)
        self._forward_post_hooks[h._id] = hook
        return h

    # ------------------------------------------------------------------ mode
    def train(self):
        for layer in self.sublayers(include_self=True):
            layer.training = True
        return self if profiles.current().layer_mode_returns_self else None

    def eval(self):
        for layer in self.sublayers(include_self=True):
            layer.training = False
        return self if profiles.current().layer_mode_returns_self else None

    def full_name(self):
        return self._full_name

    # ------------------------------------------------------------------ registration
    def create_parameter(self, shape, attr=None, dtype=None, is_bias=False,
                         default_initializer=None):
        """A Parameter named after this layer (``<layer>.w_<k>``); not registered until it is
        assigned to an attribute (as in Paddle)."""
        if dtype is None:
            dtype = self._dtype
        return make_parameter(shape, dtype, attr, is_bias, default_initializer, self._full_name)

    def create_tensor(self, name=None, persistable=None, dtype=None):
        """A tensor with no memory yet (it prints as not initialized) named after this layer
        (``<layer>.<name>``, else ``<layer>._generated_var_<k>``); ``paddle.assign`` fills it."""
        from ...core import UninitializedTensor

        t = UninitializedTensor(np.zeros([0], dtypes.to_np(dtype or self._dtype)))
        t.name = (f"{self._full_name}.{name}" if name is not None
                  else unique_name(f"{self._full_name}._generated_var"))
        return t

    create_variable = create_tensor

    def add_parameter(self, name, parameter):
        if "_parameters" not in self.__dict__:
            raise RuntimeError("super().__init__() should be called firstly.")
        if not isinstance(name, str):
            raise TypeError(
                f"The name of parameter should be a string, but received {type(name).__name__}.")
        if "." in name:
            raise KeyError("The name of parameter can not contain `.`, because when you access "
                           "the newly added parameter in the form of `self.**.**`, it will cause "
                           "AttributeError.")
        if name == "":
            raise KeyError("The name of parameter can not be empty.")
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"The parameter '{name}' already exists.")
        if parameter is not None and not isinstance(parameter, Parameter):
            raise TypeError(
                f"The parameter to be added should be a Parameter, but received "
                f"{type(parameter).__name__}.")
        self._parameters[name] = parameter
        return parameter

    register_parameter = add_parameter

    def add_sublayer(self, name, sublayer):
        if not (isinstance(sublayer, Layer) or sublayer is None):
            raise TypeError(f"{type(sublayer).__name__} is not a Layer subclass")
        self._sub_layers[str(name)] = sublayer
        return sublayer

    add_module = add_sublayer

    def register_buffer(self, name, tensor, persistable=True):
        if "_buffers" not in self.__dict__:
            raise ValueError("super().__init__() should be called first")
        if not isinstance(name, str):
            raise TypeError(
                f"The name of buffer should be a string, but received {type(name).__name__}.")
        if "." in name:
            raise KeyError("The name of buffer can not contain `.`")
        if name == "":
            raise KeyError("The name of buffer can not be empty.")
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists.")
        if tensor is not None and not isinstance(tensor, _T):
            raise TypeError(
                f"The registered buffer should be a Paddle.Tensor, but received "
                f"{type(tensor).__name__}.")
        self._buffers[name] = tensor
        if persistable:
            self._non_persistable_buffer_names_set.discard(name)
        else:
            self._non_persistable_buffer_names_set.add(name)

    # ------------------------------------------------------------------ traversal
    def named_sublayers(self, prefix="", include_self=False, layers_set=None,
                        remove_duplicate=True):
        """(name, layer) of every sublayer, depth first; a layer reached twice is listed once
        unless ``remove_duplicate=False``."""
        if layers_set is None:
            layers_set = set()
        if include_self and (not remove_duplicate or id(self) not in layers_set):
            layers_set.add(id(self))
            yield prefix, self
        for key, layer in self._sub_layers.items():
            if layer is None:
                continue
            p = prefix + ("." if prefix else "") + key
            yield from layer.named_sublayers(p, True, layers_set, remove_duplicate)

    def sublayers(self, include_self=False):
        return [layer for _, layer in self.named_sublayers(include_self=include_self)]

    def named_children(self):
        seen = set()
        for name, layer in self._sub_layers.items():
            if layer is not None and id(layer) not in seen:
                seen.add(id(layer))
                yield name, layer

    def children(self):
        for _, layer in self.named_children():
            yield layer

    def named_parameters(self, prefix="", include_sublayers=True, remove_duplicate=True):
        seen = set()
        layers = self.named_sublayers(prefix, include_self=True) if include_sublayers \
            else [(prefix, self)]
        for lp, layer in layers:
            for key, p in layer._parameters.items():
                if p is None or (remove_duplicate and id(p) in seen):
                    continue
                seen.add(id(p))
                yield lp + ("." if lp else "") + key, p

    def parameters(self, include_sublayers=True):
        return [p for _, p in self.named_parameters(include_sublayers=include_sublayers)]

    def named_buffers(self, prefix="", include_sublayers=True):
        seen = set()
        layers = self.named_sublayers(prefix, include_self=True) if include_sublayers \
            else [(prefix, self)]
        for lp, layer in layers:
            for key, b in layer._buffers.items():
                if b is None or id(b) in seen:
                    continue
                seen.add(id(b))
                yield lp + ("." if lp else "") + key, b

    def buffers(self, include_sublayers=True):
        return [b for _, b in self.named_buffers(include_sublayers=include_sublayers)]

    def apply(self, fn):
        for layer in self.children():
            layer.apply(fn)
        fn(self)
        return self

    # ------------------------------------------------------------------ gradients, state
    def clear_gradients(self, set_to_zero=True):
        for p in self.parameters():
            if p.trainable:
                p.clear_gradient(set_to_zero)

    def state_dict(self, destination=None, include_sublayers=True, structured_name_prefix="",
                   use_hook=True, keep_vars=True):
        out = OrderedDict() if destination is None else destination
        self._collect_state(out, structured_name_prefix, include_sublayers)
        return out

    def _collect_state(self, out, prefix, include_sublayers):
        for name, p in self._parameters.items():
            if p is not None:
                out[prefix + name] = p
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistable_buffer_names_set:
                out[prefix + name] = b
        if include_sublayers:
            for name, layer in self._sub_layers.items():
                if layer is not None:
                    layer._collect_state(out, prefix + name + ".", True)

    to_static_state_dict = state_dict

    def set_state_dict(self, state_dict, use_structured_name=True):
        missing, matched = [], set()
        pairs = []
        for key, param in self.state_dict().items():
            k = key if use_structured_name else param.name
            state = state_dict.get(k)
            if state is None:
                missing.append(k)
                libwarn.warn("skip_loading",
                             f"Skip loading for {key}. {k} is not found in the provided dict.")
                continue
            shape = list(np.shape(state.data if isinstance(state, _T) else state))
            if shape != list(param.data.shape):
                missing.append(k)
                libwarn.warn("skip_loading", f"Skip loading for {key}. {k} receives a shape "
                             f"{shape}, but the expected shape is {list(param.data.shape)}.")
                continue
            matched.add(k)
            pairs.append((param, state))
        unexpected = [k for k in state_dict if k not in matched]
        for param, state in pairs:
            _assign_value(param, state)
        return missing, unexpected

    set_dict = set_state_dict
    load_dict = set_state_dict
    load_state_dict = set_state_dict

    # ------------------------------------------------------------------ dtype / device
    def to(self, device=None, dtype=None, blocking=None):
        if device is None and dtype is None and blocking is None:
            return self
        with _cast_quiet():
            if dtype is not None:
                self._cast_floats(dtypes.to_np(dtype))
        return self

    def astype(self, dtype=None):
        """Paddle sets the layers' dtype (a paddle dtype: ``dtype=paddle.int8`` in reprs) and
        casts parameters and buffers (2.x; 3.3.1's cast of them does nothing)."""
        if dtype is None:
            return self
        dt = dtypes.from_np(dtypes.to_np(dtype)) if not isinstance(dtype, dtypes.DType) else dtype
        if profiles.current().layer_astype_casts:
            for t in list(self.parameters()) + list(self.buffers()):
                t.data = t.data.astype(dt.np)
        for layer in self.sublayers(include_self=True):
            layer._dtype = dt
        return self

    def _cast_floats(self, npdt):
        for t in list(self.parameters()) + list(self.buffers()):
            if t.data.dtype.kind == "f":
                t.data = t.data.astype(npdt)
        for layer in self.sublayers(include_self=True):
            layer._dtype = dtypes.from_np(npdt).name

    def float16(self, excluded_layers=None):
        """The floating parameters and buffers in float16 (the layers' dtype is kept)."""
        with _cast_quiet():
            for t in list(self.parameters()) + list(self.buffers()):
                if t.data.dtype.kind == "f":
                    t.data = t.data.astype(np.float16)
        return self

    def bfloat16(self, excluded_layers=None):
        """bfloat16 has no numpy dtype: gradrepl keeps the values as they are."""
        with _cast_quiet():
            return self

    def float(self, excluded_layers=None):
        with _cast_quiet():
            return self.astype("float32")

    def double(self, excluded_layers=None):
        with _cast_quiet():
            return self.astype("float64")

    def cpu(self):
        return self

    def cuda(self, device=None):
        return self

    # ------------------------------------------------------------------ attributes
    def __getattr__(self, name):
        d = self.__dict__
        for store in ("_parameters", "_sub_layers", "_buffers"):
            s = d.get(store)
            if s is not None and name in s:
                return s[name]
        raise _missing_attribute(self, name)

    def __setattr__(self, name, value):
        d = self.__dict__

        def _remove(*stores):
            for s in stores:
                if s is not None and name in s:
                    del s[name]

        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise ValueError("super().__init__() should be called first")
            _remove(d, d.get("_buffers"), d.get("_sub_layers"))
            params[name] = value
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"assignment to parameter '{name}' should be of type Parameter or None, but "
                    f"got '{type(value).__name__}'")
            params[name] = None
            return
        layers = d.get("_sub_layers")
        if isinstance(value, Layer):
            if layers is None:
                raise ValueError("super().__init__() should be called first")
            _remove(d, params, d.get("_buffers"))
            layers[name] = value
            return
        if layers is not None and name in layers:
            if value is not None:
                raise TypeError(
                    f"assignment to sublayer '{name}' should be of type Layer or None, but got "
                    f"'{type(value).__name__}'")
            layers[name] = None
            return
        buffers = d.get("_buffers")
        if isinstance(value, _T):
            if buffers is None:
                raise ValueError("super().__init__() should be called first")
            _remove(d, params, layers)
            if name not in buffers:
                self._non_persistable_buffer_names_set.add(name)
            buffers[name] = value
            return
        if buffers is not None and name in buffers:
            if value is not None:
                raise TypeError(
                    f"assignment to buffer '{name}' should be of type Tensor or None, but got "
                    f"'{type(value).__name__}'")
            buffers[name] = None
            return
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        for store in ("_parameters", "_sub_layers", "_buffers"):
            s = self.__dict__.get(store)
            if s is not None and name in s:
                del s[name]
                return
        object.__delattr__(self, name)

    def __dir__(self):
        keys = list(super().__dir__())
        for store in ("_parameters", "_sub_layers", "_buffers"):
            keys += list(self.__dict__.get(store, {}).keys())
        return sorted(set(keys))

    # ------------------------------------------------------------------ printing
    def extra_repr(self):
        return ""

    def __repr__(self):
        extra_lines = self.extra_repr().split("\n")
        sub = [f"({name}): {_addindent(repr(layer), 2)}"
               for name, layer in self._sub_layers.items()]
        s = type(self).__name__ + "("
        if len(extra_lines) > 1:
            s += "\n  " + "\n  ".join(extra_lines) + "\n"
        else:
            s += extra_lines[0]
        if sub:
            s += "\n  " + "\n  ".join(sub) + "\n"
        return s + ")"


def _assign_value(param, value):
    """Parameter.set_value without relying on the Tensor API: copy values in, keep dtype."""
    arr = value.data if isinstance(value, _T) else np.asarray(value)
    param.data = np.array(arr, dtype=param.data.dtype).reshape(param.data.shape)


def _missing_attribute(layer, name):
    """The AttributeError for ``layer.name``: when the emulated Paddle's Layer class on the
    layer's MRO (or ``Layer`` itself) has that name (``_layer_names``: real Paddle's
    ``MultiHeadAttention.gen_cache``, ``Layer.to_static_state_dict`` ...), it says gradrepl does
    not emulate it; otherwise Python's plain message."""
    plain = AttributeError(f"'{type(layer).__name__}' object has no attribute '{name}'")
    if name[:1] == "_":
        return plain
    from ... import profiles
    from ._layer_names import NAMES

    table = NAMES["3" if profiles.current().api3 else "2.6"]
    for cls in type(layer).__mro__:
        if not cls.__module__.startswith(("gradrepl.paddle", "paddle.")):
            continue
        owner = "Layer" if cls is Layer else cls.__name__
        if name in table.get(owner, ()):
            where = "paddle.nn.Layer" if owner == "Layer" else f"paddle.nn.{owner}"
            return AttributeError(f"'{type(layer).__name__}' object has no attribute '{name}' "
                                  f"(gradrepl's paddle does not emulate {where}.{name})")
    return plain
