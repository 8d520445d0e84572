"""``torch.Tensor``: the engine's Tensor with torch's API, autograd attributes and printing.

``requires_grad`` is the engine's ``not stop_gradient``; ``grad_fn`` wraps the engine's backward
node in a node object named as torch names it (``MulBackward0``, see ``autograd/graph.py``);
``is_leaf`` is torch's rule (no grad_fn, or no gradient required). The functions behind the
methods live in ``_ops`` (the same ones the ``torch`` namespace exports).
"""
from __future__ import annotations

import sys
import warnings

import numpy as np

from ..engine import grad_mode
from ..engine import registry as _registry
from . import _bfloat16, _dtypes, _meta, _printing, _view_meta
from ._base import CPU, GRADREPL_DIR, EngineTensor, Size, raw, set_raw

_BF16 = _bfloat16.BITS

_getframe = sys._getframe
# id(code object) -> True when it is gradrepl's own code. By id: a code object's hash is not
# kept but computed anew over its constants, nested functions' code included (a script's module
# code, where lecture loops run: ~20 us a lookup)
_INTERNAL: dict = {}
_CODES: list = []   # the code objects _INTERNAL has ids of, kept alive: no id is reused
_STATE = grad_mode.STATE
_new = object.__new__
# depth of active torch.inference_mode() blocks (kept by _ops_math._track_inference_mode)
_INFERENCE = _view_meta._INFERENCE   # (one list: _view_meta reads it too)
#: called with each new tensor while a vmap runs (``_vmap_checks.made``, ``_vmap.trace``)
_MADE = [None]
_AUTOGRAD_ENGINE = [None]   # autograd._engine, once Tensor.backward first ran

_NONLEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad field "
    "to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you "
    "access the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead. See "
    "github.com/pytorch/pytorch/pull/30531 for more information. (Triggered internally at "
    "/__w/pytorch/pytorch/build/aten/src/ATen/core/TensorBody.h:493.)")


_SCALAR_GRAD_WARNING = (
    "Converting a tensor with requires_grad=True to a scalar may lead to unexpected behavior.\n"
    "Consider using tensor.detach() first. (Triggered internally at "
    "/__w/pytorch/pytorch/torch/csrc/autograd/generated/python_variable_methods.cpp:822.)")


def _warn_scalar_grad():
    """float()/complex() of a tensor that requires grad: torch's TORCH_WARN_ONCE (int(), bool(),
    .item() and format() do not warn)."""
    from ._ops_shape import _warn_once

    _warn_once(_SCALAR_GRAD_WARNING)


def _internal(code) -> bool:
    v = _INTERNAL.get(id(code))
    if v is None:
        _CODES.append(code)
        v = _INTERNAL[id(code)] = code.co_filename.startswith(GRADREPL_DIR)
    return v


def _real_scalar(v, ctype):
    """A complex value as a real C type: c10's checked_convert refuses a nonzero imaginary
    part."""
    if isinstance(v, np.complexfloating):
        if v.imag != 0:
            raise RuntimeError(f"value cannot be converted to type {ctype} without overflow")
        return v.real
    return v


class Tensor(EngineTensor):
    # _alias: the tensor this one aliases (detach, views): in-place writes bump both versions;
    # _retains: retain_grad() was called; _hook_ids: torch hook handles -> engine hook slots
    __slots__ = ("_alias", "_retains", "_user_grad", "_post_hooks", "_fw", "__dict__")
    # _fw: (level, tangent) of a dual tensor of forward AD (autograd/forward_ad.py)
    # __dict__: a user's own attributes (fast.ai's lessons keep a manual gradient in ``t.g``)

    # how a view made without grad was made (``_view_meta``: creation, root, version), set in
    # the instance; _view_own: such a view was given requires_grad_() (it accumulates)
    _view_meta = None
    _view_own = False
    __array_priority__ = 1000  # numpy defers its operators to ours (np.float32(2) * x is a Tensor)
    _grad_layout_contract = True  # a leaf's .grad takes its strides (engine/backward.obey_layout)
    _vmap_checked = False  # True: vmap's checked class, a Tensor as this one (_vmap_checks)

    def __array_wrap__(self, array):
        """A numpy ufunc of a tensor (``np.sqrt(t)``, CS231n's ``np.sqrt(2. / fan_in)``) is a tensor
        again, bool as uint8, as torch's. The one-argument signature is torch's own: NumPy 2
        warns about it (DeprecationWarning) under gradrepl as under real torch."""
        if array.dtype == bool:
            array = array.astype("uint8")
        return Tensor._wrap(array, True)

    @classmethod
    def _wrap(cls, data, stop_gradient=True, grad_node=None, out_slot=0):
        t = _new(cls)
        set_raw(t, data)
        t.stop_gradient = stop_gradient
        t.grad_node = grad_node
        t.out_slot = out_slot
        t._grad = None
        t._accum = None
        t._retain = False
        t._hooks = None
        t._uid = next(_uids)
        t._name = None
        t._version = 0
        if _INFERENCE[0]:  # made inside torch.inference_mode(): an inference tensor
            t._inference = True
        if _MADE[0] is not None:
            _MADE[0](t)
        return t

    def __init__(self, *args, **kwargs):
        """``torch.Tensor(2, 3)`` (uninitialised, here zeros) or ``torch.Tensor([1, 2])``."""
        from . import _creation

        if len(args) == 1 and not isinstance(args[0], int):
            arr = np.array(_creation.infer_array(args[0], None), dtype=_dtypes.default_float())
        else:
            shape = args[0] if len(args) == 1 and isinstance(args[0], (tuple, list)) else args
            arr = np.zeros(tuple(int(s) for s in shape), _dtypes.default_float())
        EngineTensor.__init__(self, arr, True)

    # ------------------------------------------------------------------ the values
    @property
    def data(self, _getframe=_getframe, _known=_INTERNAL, _raw=raw):
        """The values: gradrepl's code gets the numpy array, the user a tensor without history
        (sharing the values; its own version counter, as torch's ``.data``)."""
        code = _getframe(1).f_code
        known = _known.get(id(code))
        if known is None:
            known = _internal(code)
        if known:
            return _raw(self)
        return Tensor._wrap(_raw(self), True)

    @data.setter
    def data(self, value):
        if type(value) is np.ndarray:
            set_raw(self, value)
        elif isinstance(value, EngineTensor):
            set_raw(self, raw(value))
        else:
            set_raw(self, np.asarray(value))

    @property
    def shape(self):
        return Size(raw(self).shape)

    def size(self, dim=None):
        s = raw(self).shape
        if dim is None:
            return Size(s)
        return s[_dim(dim, len(s))]

    @property
    def dtype(self):
        return _dtypes.from_np(raw(self).dtype)

    @property
    def device(self):
        return _meta.META if _meta.is_meta(self) else CPU

    @property
    def is_meta(self):
        return _meta.is_meta(self)

    @property
    def is_cuda(self):
        return False

    @property
    def is_cpu(self):
        return True

    @property
    def is_sparse(self):
        return False

    @property
    def is_quantized(self):
        return False

    @property
    def layout(self):
        from . import strided

        return strided

    @property
    def ndim(self):
        return raw(self).ndim

    def dim(self):
        return raw(self).ndim

    ndimension = dim

    def numel(self):
        return int(raw(self).size)

    nelement = numel

    def element_size(self):
        return raw(self).dtype.itemsize

    def stride(self, dim=None):
        a = raw(self)
        st = tuple(s // a.itemsize for s in a.strides) if a.size else _contig_strides(a.shape)
        return st if dim is None else st[_dim(dim, a.ndim)]

    def is_contiguous(self, memory_format=None):
        a = raw(self)
        if memory_format is not None:  # torch.channels_last ...: torch's own check
            from ._storage import is_contiguous_as

            r = is_contiguous_as(a, memory_format)
            if r is not None:
                return r
        return bool(a.flags.c_contiguous) or a.size <= 1

    def storage_offset(self):
        from ._storage import offset

        return offset(self)

    def data_ptr(self):
        return raw(self).__array_interface__["data"][0]

    def type(self, dtype=None):
        if dtype is None:
            return _dtypes.legacy_type(raw(self).dtype)
        from . import _ops

        if isinstance(dtype, str):
            for d in _dtypes.ALL:
                if f"torch.{d.legacy}Tensor" == dtype:
                    return _ops.to_dtype(self, d.np)
        return _ops.to_dtype(self, _dtypes.to_np(dtype))

    def is_floating_point(self):
        return raw(self).dtype.kind == "f" or raw(self).dtype == _BF16

    def is_complex(self):
        return raw(self).dtype.kind == "c"

    def get_device(self):
        return -1

    # ------------------------------------------------------------------ autograd attributes
    @property
    def requires_grad(self):
        if self._view_meta is not None and _view_meta.stale(self):
            _view_meta.raise_stale(self)
        return not self.stop_gradient

    @requires_grad.setter
    def requires_grad(self, flag):
        _set_requires_grad(self, flag, "setter")

    def requires_grad_(self, requires_grad=True):
        _set_requires_grad(self, requires_grad, "method")
        return self

    @property
    def is_leaf(self):
        if self._view_meta is not None and _view_meta.stale(self):
            _view_meta.raise_stale(self)
        return self.grad_node is None or self.stop_gradient

    @property
    def grad_fn(self):
        node = self.grad_node
        if node is None or self.stop_gradient:
            if self._view_meta is not None and _view_meta.stale(self):
                _view_meta.raise_stale(self)
            return None
        from .autograd.graph import wrap_node

        return wrap_node(node)

    @property
    def grad(self):
        if self.grad_node is not None and not self.stop_gradient \
                and not getattr(self, "_retains", False):
            warnings.warn(_NONLEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        g = self._grad
        if g is not None and g.grad_node is None and not g.stop_gradient \
                and not getattr(self, "_user_grad", False):
            g.stop_gradient = True  # the engine's accumulated gradient, without history
        return g

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, EngineTensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad "
                                f"of type {type(value).__name__}")
            if raw(value).shape != raw(self).shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{list(raw(value).shape)}' to a "
                    f"tensor of size '{list(raw(self).shape)}'. Please ensure that the gradient "
                    "and the tensor are the same size")
            if raw(value).dtype != raw(self).dtype:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype "
                    f"'{_c_type_name(raw(value).dtype)}' to a tensor with grad_dtype "
                    f"'{_dtypes.from_np(raw(self).dtype).legacy}'. The gradient must match the "
                    "tensor's grad_dtype (defaults to the tensor's dtype). You can set the "
                    "tensor's grad_dtype attribute with a specific dtype, or None to allow any "
                    "dtype. Set grad_dtype with caution. Diverging the dtypes of a tensor and its "
                    "gradient may break downstream systems that assume they match.")
        self._grad = value
        self._user_grad = value is not None and not value.stop_gradient

    @grad.deleter
    def grad(self):
        self._grad = None

    @property
    def _version_counter(self):
        return self._version

    @property
    def output_nr(self):
        return self.out_slot if self.grad_node is not None else 0

    @property
    def retains_grad(self):
        return bool(getattr(self, "_retains", False)) and not self.is_leaf

    def retain_grad(self):
        from .autograd import _engine

        _engine.retain_grad(self)

    def register_hook(self, hook):
        from .autograd import _engine

        return _engine.register_hook(self, hook)

    def register_post_accumulate_grad_hook(self, hook):
        """``hook(tensor)`` after a backward accumulated into this leaf's ``.grad``."""
        from .autograd import _engine

        return _engine.register_post_accumulate_hook(self, hook)

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        engine = _AUTOGRAD_ENGINE[0]   # (an import statement here cost ~10k instructions a call)
        if engine is None:
            from .autograd import _engine as engine

            _AUTOGRAD_ENGINE[0] = engine
        engine.backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def detach(self):
        t = Tensor._wrap(raw(self), True)
        t._alias = self
        return t

    def accumulate_node(self):
        """A view made without grad has no gradient edge of its own (torch: no grad
        accumulator), until ``requires_grad_()`` gave it one; once stale, using it raises."""
        if self._view_meta is not None and _view_meta.no_edge(self):
            if _view_meta.stale(self):
                _view_meta.raise_stale(self)
            return None
        return EngineTensor.accumulate_node(self)

    def _is_view(self):
        return self._view_meta is not None or _view_meta.root_of(self) is not None

    @property
    def _base(self):
        return _view_meta.root_of(self)

    def detach_(self):
        if self._is_view():
            raise RuntimeError(_view_meta.DETACH_VIEW_MESSAGE)
        self.grad_node = None
        self.out_slot = 0
        self.stop_gradient = True
        return self

    # ------------------------------------------------------------------ conversions
    def item(self):
        a = raw(self)
        if a.size != 1:
            raise RuntimeError(f"a Tensor with {a.size} elements cannot be converted to Scalar")
        if a.dtype == _BF16:
            return _bfloat16.item(a)
        return a.reshape(-1)[0].item()

    def tolist(self):
        if _meta.is_meta(self):
            raise NotImplementedError("Cannot copy out of meta tensor; no data!")
        if raw(self).dtype == _BF16:
            return _bfloat16.tolist(raw(self))
        return raw(self).tolist()

    def numpy(self, *, force=False):
        if not self.stop_gradient and not force and grad_mode.STATE.enabled:
            # (torch checks requires_grad() && GradMode::is_enabled(): under no_grad, and in a
            # custom Function's forward, numpy() is allowed)
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use "
                               "tensor.detach().numpy() instead.")
        if raw(self).dtype == _BF16:
            raise TypeError("Got unsupported ScalarType BFloat16")
        return raw(self)

    def __array__(self, dtype=None):  # no copy=: as torch 2.13's (numpy 2 then warns np.array's
        code = _getframe(1).f_code      # caller: DeprecationWarning, shown in __main__)
        a = raw(self) if _internal(code) else self.numpy()  # (torch refuses a tensor that
        return a if dtype is None else a.astype(dtype)     # requires grad; gradrepl's code not)

    def _scalar(self):
        a = raw(self)
        if a.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        if a.dtype == _BF16:
            return _bfloat16.item(a)
        return a.reshape(-1)[0]

    def __float__(self):
        if not self.stop_gradient and not _internal(_getframe(1).f_code):
            _warn_scalar_grad()
        return float(_real_scalar(self._scalar(), "double"))

    def __int__(self):
        return int(_real_scalar(self._scalar(), "int64_t"))

    def __complex__(self):
        if not self.stop_gradient and not _internal(_getframe(1).f_code):
            _warn_scalar_grad()
        return complex(self._scalar())

    def __index__(self):
        a = raw(self)
        if a.size != 1 or a.dtype.kind not in "iub":
            raise TypeError("only integer tensors of a single element can be converted to an "
                            "index")
        return int(a.reshape(-1)[0])

    def __bool__(self):
        a = raw(self)
        if a.size != 1:
            if a.size == 0:
                raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(a.reshape(-1)[0])

    def __len__(self):
        a = raw(self)
        if a.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return a.shape[0]

    def __iter__(self):
        a = raw(self)
        if a.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        from . import _ops

        if a.shape[0] and not self.stop_gradient and _STATE.enabled:
            return iter(_ops.unbind(self, 0))
        return iter([self[i] for i in range(a.shape[0])])

    def __contains__(self, element):
        return bool((raw(self) == (raw(element) if isinstance(element, EngineTensor)
                                   else element)).any())

    def __hash__(self):
        return id(self)

    def __reversed__(self):
        from . import _ops

        return _ops.flip(self, 0) if raw(self).ndim else self

    def __deepcopy__(self, memo):
        if not self.is_leaf:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) "
                               "support the deepcopy protocol at the moment.  If you were "
                               "attempting to deepcopy a module, this may be because of a "
                               "torch.nn.utils.weight_norm usage, see "
                               "https://github.com/pytorch/pytorch/pull/103001")
        if id(self) in memo:
            return memo[id(self)]
        t = Tensor._wrap(np.array(raw(self)), self.stop_gradient)
        if self._grad is not None:
            t._grad = Tensor._wrap(np.array(raw(self._grad)), True)
        memo[id(self)] = t
        if getattr(self, "__dict__", None):
            import copy

            t.__dict__.update(copy.deepcopy(self.__dict__, memo))
        return t

    def __reduce_ex__(self, protocol):
        return (_rebuild, (np.array(raw(self)), not self.stop_gradient, type(self).__name__))

    # ------------------------------------------------------------------ printing
    def __repr__(self, *, tensor_contents=None):
        node = self.grad_node
        name = None
        if node is not None and not self.stop_gradient:
            from .autograd.graph import node_name

            name = node_name(node)
        elif self._view_meta is not None and _view_meta.stale(self):
            name = "Invalid"   # (torch's repr: its grad_fn raised)
        tangent = None
        if getattr(self, "_fw", None) is not None:
            from .autograd.forward_ad import tangent_of

            tangent = tangent_of(self)
        if _meta.is_meta(self):
            return _printing.meta_repr(raw(self), name, not self.stop_gradient)
        return _printing.tensor_repr(raw(self), name, not self.stop_gradient, tangent=tangent)

    def __str__(self):
        return self.__repr__()

    def __format__(self, spec):
        if raw(self).ndim == 0 and (type(self) is Tensor or self._vmap_checked):
            return raw(self).item().__format__(spec)
        if spec:
            raise TypeError("unsupported format string passed to Tensor.__format__")
        return str(self)

    def __dir__(self):
        return sorted(set(object.__dir__(self)) - {"stop_gradient", "grad_node", "out_slot"})


from ..engine.tensor import _uids  # noqa: E402

Tensor._result_type = Tensor
# (the engine's apply reads the array slot itself: .data answers gradrepl's code with it)
_registry.SLOT_DATA.add(Tensor.__dict__["data"])


def _rebuild(arr, requires_grad, kind):
    if kind == "Parameter":
        from .nn.parameter import Parameter

        return Parameter(Tensor._wrap(arr), requires_grad)
    t = Tensor._wrap(arr, not requires_grad)
    return t


def _c_type_name(npdtype):
    """The C++ name torch's messages use: ``float``, ``double``, ``long int``."""
    return {"float32": "float", "float64": "double", "int64": "long int", "int32": "int",
            "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
            "bool": "bool", "float16": "c10::Half"}.get(np.dtype(npdtype).name,
                                                         np.dtype(npdtype).name)


def _contig_strides(shape):
    st = []
    acc = 1
    for s in reversed(shape):
        st.append(acc)
        acc *= max(s, 1)
    return tuple(reversed(st))


def _dim(d, ndim):
    """A dim argument made non-negative, with torch's IndexError when out of range."""
    d = int(d)
    n = max(ndim, 1)
    if not -n <= d < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {d})")
    return d % n


def _set_requires_grad(t, flag, how):
    flag = bool(flag)
    if not t.is_leaf and not flag:
        raise RuntimeError(
            "you can only change requires_grad flags of leaf variables. If you want to use a "
            "computed variable in a subgraph that doesn't require differentiation use "
            "var_no_grad = var.detach().")
    if flag and raw(t).dtype.kind not in "fc" and raw(t).dtype != _BF16:
        raise RuntimeError("only Tensors of floating point dtype can require gradients")
    if flag and getattr(t, "_inference", False) and not _INFERENCE[0]:
        raise RuntimeError("Setting requires_grad=True on inference tensor outside "
                           "InferenceMode is not allowed.")
    m = t._view_meta
    if m is not None and m[0] in _view_meta.WITHOUT_GRAD and t.grad_node is None:
        # a view made without grad: its own flag (an accumulator of its own), while it still
        # requires grad as long as its base does (torch 2.13: requires_grad_(False) keeps True)
        t._view_own = flag
        t.stop_gradient = not (flag or not m[1].stop_gradient)
        return
    if t.grad_node is None:
        t.stop_gradient = not flag
