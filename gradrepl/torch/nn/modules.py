"""``torch.nn`` modules: ``Module`` (parameters, submodules, buffers, ``train``/``eval``,
``zero_grad``, ``state_dict``, hooks, torch's repr), the layers (``Linear``, activations,
``Dropout``, ``Flatten``, ``Embedding``), the containers and the losses."""
from __future__ import annotations

import math
from collections import OrderedDict, namedtuple

import numpy as np

from ...engine import grad_mode
from ...engine import provenance as _provenance
from .. import _creation, _meta, _ops
from .._base import EngineTensor, _DefaultDevice, raw, set_raw
from .._tensor import Tensor
from . import functional as F
from . import init
from .parameter import Parameter


def _typename(v):
    if isinstance(v, EngineTensor):
        from .. import _dtypes

        return _dtypes.legacy_type(raw(v).dtype)
    t = type(v)
    return t.__qualname__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"


def _addindent(s, n):
    lines = s.split("\n")
    if len(lines) == 1:
        return s
    first = lines.pop(0)
    return first + "\n" + "\n".join(" " * n + line for line in lines)


_NO_CODE = (lambda: None).__code__


def _on_default_device(t):
    """A parameter or buffer registered while meta is the default device becomes meta."""
    if t is not None and _DefaultDevice.device is not None and _meta.wants_meta(None):
        _meta.to_meta(t)
    return t


def _meta_aware_init(init):
    import functools

    @functools.wraps(init)
    def __init__(self, *args, **kwargs):
        dev = kwargs.get("device")
        if dev is not None and _meta.wants_meta(dev) and not _meta.wants_meta(None):
            with _meta.META:
                return init(self, *args, **kwargs)
        return init(self, *args, **kwargs)

    return __init__


class Module:
    """Base class of layers: assign Parameters and Modules as attributes to register them."""

    training: bool

    def __init_subclass__(cls, **kwargs):
        """A layer whose ``__init__`` takes ``device=`` builds on the meta device inside
        ``with torch.device('meta')`` when asked (its parameters meta, no init draw)."""
        super().__init_subclass__(**kwargs)
        init = cls.__dict__.get("__init__")
        if init is not None and "device" in getattr(init, "__code__", _NO_CODE).co_varnames:
            cls.__init__ = _meta_aware_init(init)

    def __init__(self, *args, **kwargs):
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_non_persistent", set())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "_forward_hooks", OrderedDict())
        object.__setattr__(self, "_forward_pre_hooks", OrderedDict())

    # -- attributes ----------------------------------------------------------------------
    def __setattr__(self, name, value):
        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self.__dict__.pop(name, None)
            self._modules.pop(name, None)
            self._buffers.pop(name, None)
            params[name] = _on_default_device(value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter "
                                f"'{name}' (torch.nn.Parameter or None expected)")
            params[name] = value
            return
        modules = self.__dict__.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self.__dict__.pop(name, None)
            params.pop(name, None)
            self._buffers.pop(name, None)
            modules[name] = value
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{type(value).__name__}' as child module "
                                f"'{name}' (torch.nn.Module or None expected)")
            modules[name] = value
            return
        buffers = self.__dict__.get("_buffers")
        if buffers is not None and name in buffers:
            buffers[name] = value
            return
        object.__setattr__(self, name, value)

    def __getattr__(self, name):
        d = self.__dict__
        for store in ("_parameters", "_buffers", "_modules"):
            s = d.get(store)
            if s is not None and name in s:
                return s[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        for store in (self._parameters, self._buffers, self._modules):
            if name in store:
                del store[name]
                return
        object.__delattr__(self, name)

    def __dir__(self):
        return sorted(set(object.__dir__(self)) | set(self._parameters) | set(self._modules)
                      | set(self._buffers))

    def register_parameter(self, name, param):
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{type(param).__name__}' object to parameter "
                            f"'{name}' (torch.nn.Parameter or None required)")
        self._parameters[name] = _on_default_device(param)

    def register_buffer(self, name, tensor, persistent=True):
        self._buffers[name] = _on_default_device(tensor)
        if not persistent:
            self._non_persistent.add(name)

    def add_module(self, name, module):
        self._modules[name] = module

    register_module = add_module

    def get_submodule(self, target):
        mod = self
        for part in target.split(".") if target else []:
            if not hasattr(mod, part):
                raise AttributeError(mod._get_name() + " has no attribute `" + part + "`")
            mod = getattr(mod, part)
            if not isinstance(mod, Module):
                raise AttributeError("`" + part + "` is not an nn.Module")
        return mod

    def set_submodule(self, target, module, strict=False):
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        atoms = target.split(".")
        if not isinstance(module, Module):
            raise ValueError("`module` is not an nn.Module, found " + str(type(module)))
        mod = self.get_submodule(".".join(atoms[:-1]))
        if strict and not hasattr(mod, atoms[-1]):
            raise AttributeError(mod._get_name() + " has no attribute `" + atoms[-1] + "`")
        if hasattr(mod, atoms[-1]) and not isinstance(getattr(mod, atoms[-1]), Module):
            raise AttributeError("`" + atoms[-1] + "` is not an nn.Module")
        setattr(mod, atoms[-1], module)

    def get_parameter(self, target):
        path, _, name = target.rpartition(".")
        mod = self.get_submodule(path)
        if not hasattr(mod, name):
            raise AttributeError(mod._get_name() + " has no attribute `" + name + "`")
        param = getattr(mod, name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target):
        path, _, name = target.rpartition(".")
        mod = self.get_submodule(path)
        if not hasattr(mod, name):
            raise AttributeError(mod._get_name() + " has no attribute `" + name + "`")
        if name not in mod._buffers:
            raise AttributeError("`" + name + "` is not a buffer")
        return getattr(mod, name)

    def get_extra_state(self):
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never be "
                           "called. Please file an issue at https://github.com/pytorch/pytorch/"
                           "issues/new?template=bug-report.yml to report this bug.")

    def set_extra_state(self, state):
        raise RuntimeError("Reached a code path in Module.set_extra_state() that should never be "
                           "called. Please file an issue at https://github.com/pytorch/pytorch/"
                           "issues/new?template=bug-report.yml to report this bug.")

    # -- calling -------------------------------------------------------------------------
    def forward(self, *args, **kwargs):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required '
                                  '"forward" function')

    def __call__(self, *args, **kwargs):
        if self.__dict__.get("_gr_hooks"):
            if self._hooks_of("full") or self._hooks_of("pre"):
                from ._backward_hooks import call_with_backward_hooks
                out = call_with_backward_hooks(self, self._plain_call, args, kwargs)
            else:
                out = self._plain_call(*args, **kwargs)
            if self._hooks_of("non_full"):
                from ._backward_hooks import hook_output_node
                hook_output_node(self, args, out)
            return out
        return self._plain_call(*args, **kwargs)

    def _plain_call(self, *args, **kwargs):
        for hook in list(self._forward_pre_hooks.values()):
            res = hook(self, args)
            if res is not None:
                args = res if isinstance(res, tuple) else (res,)
        rec = _provenance.ACTIVE
        if rec is None:
            out = self.forward(*args, **kwargs)
        else:
            rec.enter_layer(self)
            try:
                out = self.forward(*args, **kwargs)
            finally:
                rec.exit_layer()
        for hook in list(self._forward_hooks.values()):
            res = hook(self, args, out)
            if res is not None:
                out = res
        return out

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False):
        return _Handle(self._forward_hooks, hook)

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        return _Handle(self._forward_pre_hooks, hook)

    # the backward hooks (``_backward_hooks.py``): the module's inputs and outputs pass through
    # identity nodes (BackwardHookFunctionBackward, as in torch) whose gradients the hooks see
    def register_full_backward_hook(self, hook, prepend=False):
        from ._backward_hooks import store
        if self.__dict__.get("_gr_full_hook") is False:
            raise RuntimeError(_BOTH_BACKWARD_HOOKS)
        self._gr_full_hook = True
        return _Handle(store(self, "full"), hook)

    def register_full_backward_pre_hook(self, hook, prepend=False):
        from ._backward_hooks import store
        return _Handle(store(self, "pre"), hook)

    def register_backward_hook(self, hook):
        # torch's deprecated non-full hook: on the backward node of the module's (first) output,
        # seeing that node's input and output gradients (``_backward_hooks.hook_output_node``)
        from ._backward_hooks import store
        if self.__dict__.get("_gr_full_hook") is True:
            raise RuntimeError(_BOTH_BACKWARD_HOOKS)
        self._gr_full_hook = False
        return _Handle(store(self, "non_full"), hook)

    def _hooks_of(self, kind):
        d = self.__dict__.get("_gr_hooks")
        return d.get(kind) if d else None

    def register_state_dict_pre_hook(self, hook):
        return _Handle(self._store("state_dict_pre"), hook)

    def register_state_dict_post_hook(self, hook):
        return _Handle(self._store("state_dict_post"), hook)

    def register_load_state_dict_pre_hook(self, hook):
        return _Handle(self._store("load_pre"), hook)

    def register_load_state_dict_post_hook(self, hook):
        return _Handle(self._store("load_post"), hook)

    _register_state_dict_hook = register_state_dict_post_hook

    def _store(self, kind):
        d = self.__dict__.setdefault("_gr_hooks", {})
        return d.setdefault(kind, OrderedDict())

    def full_name(self):  # for the pictures' Layer names
        return type(self).__name__.lower()

    # -- iteration -----------------------------------------------------------------------
    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        if memo is None:
            memo = set()
        if self in memo and remove_duplicate:
            return
        memo.add(self)
        yield prefix, self
        for name, m in self._modules.items():
            if m is None:
                continue
            yield from m.named_modules(memo, prefix + ("." if prefix else "") + name,
                                       remove_duplicate)

    def modules(self):
        for _n, m in self.named_modules():
            yield m

    def named_children(self):
        seen = set()
        for name, m in self._modules.items():
            if m is not None and m not in seen:
                seen.add(m)
                yield name, m

    def children(self):
        for _n, m in self.named_children():
            yield m

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        seen = set()
        mods = self.named_modules(prefix=prefix) if recurse else [(prefix, self)]
        for mp, m in mods:
            for name, p in m._parameters.items():
                if p is None or (remove_duplicate and id(p) in seen):
                    continue
                seen.add(id(p))
                yield (mp + "." if mp else "") + name, p

    def parameters(self, recurse=True):
        for _n, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix="", recurse=True):
        mods = self.named_modules(prefix=prefix) if recurse else [(prefix, self)]
        for mp, m in mods:
            for name, b in m._buffers.items():
                if b is not None:
                    yield (mp + "." if mp else "") + name, b

    def buffers(self, recurse=True):
        for _n, b in self.named_buffers(recurse=recurse):
            yield b

    # the pictures (gradrepl.viz) look for Paddle's names
    def named_sublayers(self):
        for name, m in self.named_modules():
            if m is not self:
                yield name, m

    # -- state ---------------------------------------------------------------------------
    def train(self, mode=True):
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for m in self.children():
            m.train(mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        for p in self.parameters():
            if p._grad is not None:
                if set_to_none:
                    p._grad = None
                else:
                    g = p._grad
                    if g.grad_node is not None:
                        p._grad = Tensor._wrap(np.zeros_like(raw(g)), True)
                    else:
                        g.requires_grad_(False)
                        from .. import _inplace

                        _inplace.write(g, np.zeros((), raw(g).dtype))

    def apply(self, fn):
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    def _apply_to_tensors(self, fn):
        for m in self.modules():
            for k, p in m._parameters.items():
                if p is not None:
                    new = fn(p)
                    if new is not p:
                        q = Parameter(new, p.requires_grad)
                        m._parameters[k] = q
            for k, b in m._buffers.items():
                if b is not None:
                    m._buffers[k] = fn(b)
        return self

    def to(self, *args, **kwargs):
        from .. import _dtypes

        if any(_meta.wants_meta(a) for a in args if isinstance(a, (str, _meta.device))) or \
                _meta.wants_meta(kwargs.get("device", "cpu")):
            self._apply_to_tensors(_meta.to_meta)  # (param.data replaced, as torch's _apply)
        dtype = kwargs.get("dtype")
        for a in args:
            if isinstance(a, _dtypes.dtype):
                dtype = a
        if dtype is None:
            return self
        npd = _dtypes.to_np(dtype)
        if npd.kind == "c":   # (torch's Module.to warns so, at the caller's line)
            import warnings

            warnings.warn(
                "Complex modules are a new feature under active development whose design may "
                "change, and some modules might not work as expected when using complex tensors "
                "as parameters or buffers. Please file an issue at https://github.com/pytorch/"
                "pytorch/issues/new?template=bug-report.yml if a complex module does not work as "
                "expected.", stacklevel=2)
        from .._bfloat16 import BITS, astype  # (bfloat16's bits: converted, a float dtype)

        return self._apply_to_tensors(
            lambda t: Tensor._wrap(astype(raw(t), npd), True)
            if raw(t).dtype.kind == "f" or raw(t).dtype == BITS else t)

    def float(self):
        from .. import _dtypes

        return self.to(_dtypes.float32)

    def double(self):
        from .. import _dtypes

        return self.to(_dtypes.float64)

    def half(self):
        from .. import _dtypes

        return self.to(_dtypes.float16)

    def bfloat16(self):
        from .. import _dtypes

        return self.to(_dtypes.bfloat16)

    def to_empty(self, *, device=None, recurse=True):
        """Storage for every tensor on ``device``, values not set (zeros here): the way from
        a meta module to one that can compute."""
        if not _meta.wants_meta(device):
            def fill(t):
                if _meta.is_meta(t):
                    set_raw(t, np.zeros(raw(t).shape, raw(t).dtype))
                return t
            self._apply_to_tensors(fill)
        return self

    def cpu(self):
        return self

    def compile(self, *args, **kwargs):
        """``Module.compile()``: compiles the module's call in place in torch (returns None);
        gradrepl's call stays as it is."""
        return None

    def cuda(self, device=None):
        raise AssertionError("Torch not compiled with CUDA enabled")

    def type(self, dst_type):
        return self.to(dst_type)

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        if args:  # torch's positional (destination, prefix, keep_vars), deprecated
            destination = args[0]
            prefix = args[1] if len(args) > 1 else prefix
            keep_vars = args[2] if len(args) > 2 else keep_vars
        for m in self.modules():
            for hook in (m._hooks_of("state_dict_pre") or {}).values():
                hook(m, prefix, keep_vars)
        out = OrderedDict() if destination is None else destination
        self._state_into(out, prefix, keep_vars)
        for name, m in self.named_modules(prefix=prefix.rstrip(".")):
            for hook in (m._hooks_of("state_dict_post") or {}).values():
                res = hook(m, out, (name + ".") if name else "", {})
                if res is not None:
                    out = res
        return out

    def _state_into(self, out, prefix, keep_vars):
        for name, m in self.named_modules(prefix=prefix.rstrip(".")):
            for k, p in m._parameters.items():
                if p is not None:
                    out[(name + "." if name else "") + k] = p if keep_vars else p.detach()
            for k, b in m._buffers.items():
                if b is not None and k not in m._non_persistent:
                    out[(name + "." if name else "") + k] = b if keep_vars else b.detach()
        return out

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """torch's rules: parameters of matching shape are copied, then the errors (missing
        keys, unexpected keys, size mismatches: that order) are raised together when strict
        (size mismatches also when not)."""
        from collections.abc import Mapping

        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        for name, m in self.named_modules():
            for hook in (m._hooks_of("load_pre") or {}).values():
                hook(m, state_dict, (name + ".") if name else "", {}, strict, [], [], [])
        own = OrderedDict()
        self._state_into(own, "", True)
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        errors = []
        from .. import _base, _inplace

        for k, t in own.items():
            if k not in state_dict:
                continue
            v = state_dict[k]
            if not isinstance(v, _base.EngineTensor):
                errors.append(f'While copying the parameter named "{k}", expected torch.Tensor '
                              f"or Tensor-like object from checkpoint but received {type(v)}")
                continue
            if isinstance(t, _Uninitialized()):  # a lazy module's: torch's _lazy_load_hook
                _materialize(t, raw(v).shape)      # gives it the checkpoint's shape
            if raw(t).shape != raw(v).shape:
                errors.append(f"size mismatch for {k}: copying a param with shape "
                              f"torch.Size({list(raw(v).shape)}) from checkpoint, the shape in "
                              f"current model is torch.Size({list(raw(t).shape)}).")
                continue
            with grad_mode.no_grad():
                _inplace.write(t, raw(v).astype(raw(t).dtype, copy=False))
        keys = _IncompatibleKeys(missing, unexpected)
        for m in self.modules():
            for hook in (m._hooks_of("load_post") or {}).values():
                hook(m, keys)
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: " +
                              ", ".join(f'"{k}"' for k in unexpected) + ". ")
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: " +
                              ", ".join(f'"{k}"' for k in missing) + ". ")
        if errors:
            raise RuntimeError(f"Error(s) in loading state_dict for {self._get_name()}:\n\t"
                               + "\n\t".join(errors))
        return keys

    # -- printing ------------------------------------------------------------------------
    def extra_repr(self):
        return ""

    def _get_name(self):
        return type(self).__name__

    def __repr__(self):
        extra_lines = []
        extra = self.extra_repr()
        if extra:
            extra_lines = extra.split("\n")
        child_lines = []
        for key, module in self._modules.items():
            mod_str = _addindent(repr(module), 2)
            child_lines.append("(" + key + "): " + mod_str)
        lines = extra_lines + child_lines
        main = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main += extra_lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"

    def __getstate__(self):
        return self.__dict__

    def __setstate__(self, state):
        self.__dict__.update(state)


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns; prints ``<All keys matched successfully>`` when empty."""

    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return (f"_IncompatibleKeys(missing_keys={self.missing_keys!r}, "
                f"unexpected_keys={self.unexpected_keys!r})")

    __str__ = __repr__


_IncompatibleKeys.__module__ = "torch.nn.modules.module"


_BOTH_BACKWARD_HOOKS = ("Cannot use both regular backward hooks and full backward hooks on a "
                        "single Module. Please use only one of them.")


class _Handle:
    def __init__(self, store, hook):
        # torch.utils.hooks.RemovableHandle.next_id: one counter for module and tensor hooks,
        # from 0 (``_forward_pre_hooks`` prints ``OrderedDict([(0, ...)])`` for the first)
        from ..autograd._engine import RemovableHandle

        self.id = RemovableHandle.take_id()
        self._store = store
        store[self.id] = hook

    def remove(self):
        self._store.pop(self.id, None)


# ------------------------------------------------------------------------------ layers
class Identity(Module):
    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):  # noqa: A002
        return input


class Linear(Module):
    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        from .. import _dtypes

        dt = _dtypes.to_np(dtype) if dtype is not None else _dtypes.default_float()
        self.weight = Parameter(Tensor._wrap(np.zeros((out_features, in_features), dt)))
        if bias:
            self.bias = Parameter(Tensor._wrap(np.zeros((out_features,), dt)))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in = self.in_features
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):  # noqa: A002
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


def _Uninitialized():
    from .parameter import UninitializedParameter

    return UninitializedParameter


def _materialize(t, shape, dtype=None):
    """torch's ``UninitializedParameter.materialize(shape)``: the same object, now a Parameter
    of that shape (uninitialised memory in torch; zeros here, the load or the layer's init writes
    it next). The same object: an optimizer made before a lazy layer's first call updates it."""
    from .. import _base

    from .parameter import Parameter

    if dtype is None:
        dtype = raw(t).dtype if raw(t).size else np.float32
    _base.set_raw(t, np.zeros(tuple(shape), dtype))
    # (a lazy norm's UninitializedBuffer becomes a plain tensor)
    t.__class__ = Tensor if type(t).__name__ == "UninitializedBuffer" else Parameter
    return t


class LazyLinear(Linear):
    """``nn.LazyLinear(out_features)``: ``in_features`` is read from the first input; until
    then the weight (and bias) are UninitializedParameters and the module prints
    ``in_features=0``; the first call makes them, initialises them as Linear does (the same
    draws) and turns the module into a Linear."""

    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        from .parameter import UninitializedParameter

        Module.__init__(self)
        self.in_features = 0
        self.out_features = out_features
        self._lazy_dtype = dtype
        self.weight = UninitializedParameter()
        if bias:
            self.bias = UninitializedParameter()
        else:
            self.register_parameter("bias", None)

    def has_uninitialized_params(self):
        from .parameter import UninitializedParameter

        return any(isinstance(p, UninitializedParameter) for p in self._parameters.values())

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):  # noqa: A002
        from .. import _dtypes

        if not self.has_uninitialized_params():
            if self.in_features == 0:  # loaded from a state_dict: torch reads it now
                if raw(input).shape[-1] != raw(self.weight).shape[-1]:
                    raise AssertionError(
                        f"The in_features inferred from input: {raw(input).shape[-1]} is not "
                        f"equal to in_features from self.weight: {raw(self.weight).shape[-1]}")
                self.in_features = raw(input).shape[-1]
            return
        self.in_features = raw(input).shape[-1]
        dt = _dtypes.to_np(self._lazy_dtype) if self._lazy_dtype is not None \
            else _dtypes.default_float()
        _materialize(self.weight, (self.out_features, self.in_features), dt)
        if self.bias is not None:
            _materialize(self.bias, (self.out_features,), dt)
        self.reset_parameters()

    def __call__(self, *args, **kwargs):
        self.initialize_parameters(*args, **kwargs)
        self.__class__ = self.cls_to_become  # also when a load materialised the parameters
        return Module.__call__(self, *args, **kwargs)


class Bilinear(Module):
    def __init__(self, in1_features, in2_features, out_features, bias=True):
        super().__init__()
        self.in1_features, self.in2_features = in1_features, in2_features
        self.out_features = out_features
        self.weight = Parameter(_creation.zeros(out_features, in1_features, in2_features))
        self.bias = Parameter(_creation.zeros(out_features)) if bias else None
        bound = 1 / math.sqrt(in1_features)
        init.uniform_(self.weight, -bound, bound)
        if bias:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


def _activation(name, fn, repr_fn=None, init_args=()):
    def __init__(self, *args, **kwargs):
        Module.__init__(self)
        vals = dict(init_args)
        for (k, _d), v in zip(init_args, args):
            vals[k] = v
        vals.update(kwargs)
        for k, v in vals.items():
            setattr(self, k, v)

    def forward(self, input):  # noqa: A002
        return fn(self, input)

    def extra_repr(self):
        return repr_fn(self) if repr_fn else ""

    return type(name, (Module,), {"__init__": __init__, "forward": forward,
                                  "extra_repr": extra_repr})


ReLU = _activation("ReLU", lambda s, x: F.relu(x, s.inplace),
                   lambda s: "inplace=True" if s.inplace else "", (("inplace", False),))
ReLU6 = _activation("ReLU6", lambda s, x: F.relu6(x, s.inplace),
                    lambda s: "inplace=True" if s.inplace else "", (("inplace", False),))
Sigmoid = _activation("Sigmoid", lambda s, x: F.sigmoid(x))
Tanh = _activation("Tanh", lambda s, x: F.tanh(x))
LeakyReLU = _activation("LeakyReLU", lambda s, x: F.leaky_relu(x, s.negative_slope, s.inplace),
                        lambda s: f"negative_slope={s.negative_slope}"
                        + (", inplace=True" if s.inplace else ""),
                        (("negative_slope", 0.01), ("inplace", False)))
ELU = _activation("ELU", lambda s, x: F.elu(x, s.alpha, s.inplace),
                  lambda s: f"alpha={s.alpha}" + (", inplace=True" if s.inplace else ""),
                  (("alpha", 1.0), ("inplace", False)))
SELU = _activation("SELU", lambda s, x: F.selu(x, s.inplace),
                   lambda s: "inplace=True" if s.inplace else "", (("inplace", False),))
GELU = _activation("GELU", lambda s, x: F.gelu(x, s.approximate),
                   lambda s: f"approximate={s.approximate!r}", (("approximate", "none"),))
SiLU = _activation("SiLU", lambda s, x: F.silu(x, s.inplace),
                   lambda s: "inplace=True" if s.inplace else "", (("inplace", False),))
Mish = _activation("Mish", lambda s, x: F.mish(x, s.inplace),
                   lambda s: "inplace=True" if s.inplace else "", (("inplace", False),))
Softplus = _activation("Softplus", lambda s, x: F.softplus(x, s.beta, s.threshold),
                       lambda s: f"beta={s.beta}, threshold={s.threshold}",
                       (("beta", 1.0), ("threshold", 20.0)))
Hardtanh = _activation("Hardtanh", lambda s, x: F.hardtanh(x, s.min_val, s.max_val,
                                                              s.inplace),
                       lambda s: f"min_val={s.min_val}, max_val={s.max_val}",
                       (("min_val", -1.0), ("max_val", 1.0), ("inplace", False)))
LogSigmoid = _activation("LogSigmoid", lambda s, x: F.logsigmoid(x))
Softsign = _activation("Softsign", lambda s, x: F.softsign(x))
Hardswish = _activation("Hardswish", lambda s, x: F.hardswish(x, s.inplace), None,
                        (("inplace", False),))
Hardsigmoid = _activation("Hardsigmoid", lambda s, x: F.hardsigmoid(x, s.inplace), None,
                          (("inplace", False),))
Softmax = _activation("Softmax", lambda s, x: F.softmax(x, s.dim, _stacklevel=5),
                      lambda s: f"dim={s.dim}", (("dim", None),))
LogSoftmax = _activation("LogSoftmax", lambda s, x: F.log_softmax(x, s.dim, _stacklevel=5),
                         lambda s: f"dim={s.dim}", (("dim", None),))
Softmin = _activation("Softmin", lambda s, x: F.softmin(x, s.dim, _stacklevel=5),
                      lambda s: f"dim={s.dim}", (("dim", None),))
Dropout = _activation("Dropout", lambda s, x: F.dropout(x, s.p, s.training, s.inplace),
                      lambda s: f"p={s.p}, inplace={s.inplace}", (("p", 0.5), ("inplace", False)))
Flatten = _activation("Flatten", lambda s, x: _ops.flatten(x, s.start_dim, s.end_dim),
                      lambda s: f"start_dim={s.start_dim}, end_dim={s.end_dim}",
                      (("start_dim", 1), ("end_dim", -1)))
Unflatten = _activation("Unflatten", lambda s, x: _ops.unflatten(x, s.dim, s.unflattened_size),
                        lambda s: f"dim={s.dim}, unflattened_size={tuple(s.unflattened_size)}",
                        (("dim", 1), ("unflattened_size", (1,))))


class Embedding(Module):
    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None,
                 norm_type=2.0, scale_grad_by_freq=False, sparse=False, _weight=None,
                 _freeze=False, device=None, dtype=None):
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        if padding_idx is not None and padding_idx < 0:
            padding_idx = num_embeddings + padding_idx
        self.padding_idx = padding_idx
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        self.sparse = sparse
        if _weight is None:
            self.weight = Parameter(_creation.zeros(num_embeddings, embedding_dim))
            init.normal_(self.weight)
            if padding_idx is not None:
                with grad_mode.no_grad():
                    raw(self.weight)[padding_idx] = 0
        else:
            self.weight = Parameter(_weight, not _freeze)

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, padding_idx=None, max_norm=None,
                        norm_type=2.0, scale_grad_by_freq=False, sparse=False):
        rows, cols = raw(embeddings).shape
        return cls(rows, cols, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse,
                   _weight=embeddings, _freeze=freeze)

    def forward(self, input):  # noqa: A002
        return F.embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                           self.scale_grad_by_freq, self.sparse)

    def extra_repr(self):
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq is not False:
            s += f", scale_grad_by_freq={self.scale_grad_by_freq}"
        if self.sparse is not False:
            s += ", sparse=True"
        return s


# ------------------------------------------------------------------------------ containers
class Sequential(Module):
    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for k, m in args[0].items():
                self.add_module(k, m)
        else:
            for i, m in enumerate(args):
                self.add_module(str(i), m)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return Sequential(OrderedDict(list(self._modules.items())[idx]))
        mods = list(self._modules.values())
        if not -len(mods) <= idx < len(mods):
            raise IndexError(f"index {idx} is out of range")
        return mods[idx]

    def __setitem__(self, idx, module):
        key = list(self._modules.keys())[idx]
        self._modules[key] = module

    def __delitem__(self, idx):
        key = list(self._modules.keys())[idx]
        del self._modules[key]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def insert(self, index, module):
        """The module at ``index``, the later ones renumbered (torch's Sequential.insert)."""
        n = len(self._modules)
        if not -n <= index <= n:
            raise IndexError(f"Index out of range: {index}")
        if index < 0:
            index += n
        mods = list(self._modules.values())
        mods.insert(index, module)
        self._modules.clear()
        for i, m in enumerate(mods):
            self.add_module(str(i), m)
        return self

    def extend(self, sequential):
        for m in sequential:
            self.append(m)
        return self

    def pop(self, key):
        v = self[key]
        del self[key]
        return v

    def forward(self, input):  # noqa: A002
        for m in self._modules.values():
            input = m(input)
        return input


class ModuleList(Module):
    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            for m in modules:
                self.append(m)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return ModuleList(list(self._modules.values())[idx])
        return list(self._modules.values())[idx]

    def __setitem__(self, idx, module):
        self._modules[str(idx % len(self))] = module

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules):
        for m in modules:
            self.append(m)
        return self

    def __repr__(self):
        """Runs of identical modules are shown once: ``(0-1): 2 x Linear(...)``."""
        items = list(self._modules.items())
        if not items:
            return self._get_name() + "()"
        groups = []
        for key, m in items:
            r = repr(m)
            if groups and groups[-1][2] == r:
                groups[-1][1] = key
                groups[-1][3] += 1
            else:
                groups.append([key, key, r, 1])
        lines = []
        for start, end, r, count in groups:
            r = _addindent(r, 2)
            if count == 1:
                lines.append(f"({start}): {r}")
            else:
                lines.append(f"({start}-{end}): {count} x {r}")
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"


class ModuleDict(Module):
    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            for k, m in (modules.items() if isinstance(modules, dict) else modules):
                self.add_module(k, m)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def keys(self):
        return self._modules.keys()

    def values(self):
        return self._modules.values()

    def items(self):
        return self._modules.items()


class ParameterList(Module):
    def __init__(self, values=None):
        super().__init__()
        for v in values or []:
            self.append(v)

    def append(self, value):
        if not isinstance(value, Parameter):
            value = Parameter(value)
        self.register_parameter(str(len(self._parameters)), value)
        return self

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(list(self._parameters.values())[idx])
        return list(self._parameters.values())[idx]

    def __setitem__(self, idx, param):
        idx = list(self._parameters)[idx]
        if not isinstance(param, Parameter):
            param = Parameter(param)
        self._parameters[idx] = param

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(self._parameters.values())

    def __iadd__(self, parameters):
        return self.extend(parameters)

    def extend(self, values):
        for v in values:
            self.append(v)
        return self

    def extra_repr(self):
        return _param_lines(self, "dtype")


def _param_lines(self, kind):
    """ParameterList/ParameterDict's ``extra_repr``: ``  (0): Parameter containing:
    [torch.float32 of size 2]`` (the list prints the dtype, the dict the legacy type name)."""
    lines = []
    for k, p in self._parameters.items():
        if p is None:
            continue
        size_str = "x".join(str(size) for size in p.size())
        what = "Parameter" if isinstance(p, Parameter) else "Tensor"
        name = p.dtype if kind == "dtype" else p.type()
        lines.append(f"  ({k}): {what} containing: [{name} of size {size_str}]")
    return "\n".join(lines)


class ParameterDict(Module):
    """``nn.ParameterDict``: parameters by name (tensors become Parameters), in order."""

    def __init__(self, parameters=None):
        super().__init__()
        if parameters is not None:
            self.update(parameters)

    def _key(self, key):
        if not isinstance(key, str):
            raise TypeError(f"ParameterDict keys must be strings, got {type(key).__name__}")
        return key

    def __getitem__(self, key):
        return self._parameters[key]

    def __setitem__(self, key, value):
        if not isinstance(value, Parameter) and isinstance(value, Tensor):
            value = Parameter(value)
        self.register_parameter(self._key(key), value)

    def __delitem__(self, key):
        del self._parameters[key]

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(self._parameters)

    def __reversed__(self):
        return reversed(list(self._parameters))

    def __contains__(self, key):
        return key in self._parameters

    def copy(self):
        return ParameterDict(OrderedDict(self._parameters))

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self):
        self._parameters.clear()

    def pop(self, key):
        v = self[key]
        del self[key]
        return v

    def popitem(self):
        k = next(reversed(list(self._parameters)))
        return k, self.pop(k)

    def get(self, key, default=None):
        return self[key] if key in self else default

    def fromkeys(self, keys, default=None):
        return ParameterDict((k, default) for k in keys)

    def keys(self):
        return self._parameters.keys()

    def items(self):
        return self._parameters.items()

    def values(self):
        return self._parameters.values()

    def update(self, parameters):
        from collections.abc import Mapping

        items = parameters.items() if isinstance(parameters, (Mapping, ParameterDict)) \
            else parameters
        for k, v in items:
            self[k] = v

    def __or__(self, other):
        out = self.copy()
        out.update(other)
        return out

    def __ror__(self, other):
        out = ParameterDict(other)
        out.update(self)
        return out

    def __ior__(self, other):
        self.update(other)
        return self

    def extra_repr(self):
        return _param_lines(self, "type")


class Container(Module):
    def __init__(self, **kwargs):
        import warnings

        super().__init__()
        warnings.warn("`nn.Container` is deprecated. All of its functionality is now "
                      "implemented in `nn.Module`. Subclass that instead.", FutureWarning,
                      stacklevel=2)
        for key, value in kwargs.items():
            self.add_module(key, value)


# ------------------------------------------------------------------------------ losses
class _Loss(Module):
    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        self.reduction = F._reduction(size_average, reduce, reduction)


class MSELoss(_Loss):
    def forward(self, input, target):  # noqa: A002
        return F.mse_loss(input, target, reduction=self.reduction)


class L1Loss(_Loss):
    def forward(self, input, target):  # noqa: A002
        return F.l1_loss(input, target, reduction=self.reduction)


class SmoothL1Loss(_Loss):
    def __init__(self, size_average=None, reduce=None, reduction="mean", beta=1.0):
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input, target):  # noqa: A002
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input, target):  # noqa: A002
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class _WeightedLoss(_Loss):
    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class CrossEntropyLoss(_WeightedLoss):
    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean", label_smoothing=0.0):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input, target):  # noqa: A002
        return F.cross_entropy(input, target, self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, label_smoothing=self.label_smoothing)


class NLLLoss(_WeightedLoss):
    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean"):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input, target):  # noqa: A002
        return F.nll_loss(input, target, self.weight, ignore_index=self.ignore_index,
                          reduction=self.reduction)


class BCELoss(_WeightedLoss):
    def forward(self, input, target):  # noqa: A002
        return F.binary_cross_entropy(input, target, self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean",
                 pos_weight=None):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input, target):  # noqa: A002
        return F.binary_cross_entropy_with_logits(input, target, self.weight,
                                                  reduction=self.reduction,
                                                  pos_weight=self.pos_weight)


class KLDivLoss(_Loss):
    def __init__(self, size_average=None, reduce=None, reduction="mean", log_target=False):
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input, target):  # noqa: A002
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


ParameterDict.__module__ = Container.__module__ = "torch.nn.modules.container"
LazyLinear.__module__ = "torch.nn.modules.linear"


def _uninitialized_repr(self):
    return f"<{type(self).__name__}>"  # torch's UninitializedTensorMixin.__repr__


def _name_uninitialized():
    from .parameter import UninitializedParameter

    UninitializedParameter.__repr__ = _uninitialized_repr


_name_uninitialized()
# torch's Module.__call__ is _wrapped_call_impl (print(model.__call__))
Module.__call__.__qualname__ = "Module._wrapped_call_impl"
