"""``paddle.Tensor`` and ``Parameter``: the engine's Tensor with Paddle's API and printing.

Methods that are plain functions of the ``paddle.*`` namespace (``x.sum()``, ``x.reshape()``)
are bound from ``tensor_methods.METHODS``; this module holds what is special to a tensor:
attributes, gradients, printing, Python protocols and operators.
"""
from __future__ import annotations

import warnings

import numpy as np

from ..engine import registry as _registry
from ..engine.ops import math as M
from ..engine.tensor import Tensor as _EngineTensor
from . import bf16, dtypes, printing, profiles, promotion
from . import saved as _saved
from . import selected_rows as _selected_rows


_NAME_COUNTERS = {"generated_tensor": 0, "eager_tmp": 0}
#: prefixes numbered by another's counter: Paddle's C++ GenerateUniqueName numbers a
#: DataLoader's tensors (eager_in_tmp_N) and to_tensor's (generated_tensor_N) from one counter
_SHARED_COUNTER = {"eager_in_tmp": "generated_tensor"}
_AUTOGRAD = [None]   # paddle.autograd, once Tensor.backward first ran


def next_name(prefix):
    """Paddle's unique_name: ``prefix_N`` with one counter per prefix (or shared, above)."""
    key = _SHARED_COUNTER.get(prefix, prefix)
    n = _NAME_COUNTERS[key]
    _NAME_COUNTERS[key] = n + 1
    return f"{prefix}_{n}"


def reset_tensor_names():
    """Restart the tensor-name counters, as in a fresh process."""
    for k in _NAME_COUNTERS:
        _NAME_COUNTERS[k] = 0


_LINALG = [None]   # paddle.tensor.linalg, imported on first use (it imports this module)


def _linalg():
    from .tensor import linalg

    _LINALG[0] = linalg
    return linalg


class PaddleClass(type):
    """The metaclass of the Paddle-facing classes: ``type(t)`` prints as Paddle's class does
    (``<class 'paddle.Tensor'>``) while ``__module__`` stays gradrepl's (the pictures read it).
    A class that prints with object's default repr gets Paddle's path in it as well
    (``<paddle.optimizer.sgd.SGD object at 0x...>``)."""

    def __init__(cls, name, bases, ns, **kwargs):
        super().__init__(name, bases, ns, **kwargs)
        if cls.__repr__ is object.__repr__:
            cls.__repr__ = PaddleObject.__repr__

    def __repr__(cls):
        return f"<class '{paddle_path(cls)}'>"

    def __dir__(cls):
        # a class declaring ``_paddle_dir`` (Tensor) lists the emulated version's names
        listing = cls.__dict__.get("_paddle_dir")
        return listing(cls) if listing is not None else type.__dir__(cls)

    def _repr_pretty_(cls, p, cycle):
        """IPython (a notebook cell ending in ``type(x)``) shows a class as its module path."""
        p.text(paddle_path(cls))


def paddle_path(cls):
    """Where Paddle defines ``cls``: its ``_paddle_path``, else gradrepl's module path without
    the ``gradrepl.`` prefix (gradrepl.paddle mirrors Paddle's tree)."""
    path = cls.__dict__.get("_paddle_path")
    if path:
        return path
    mod = cls.__module__
    if mod.startswith("gradrepl."):
        mod = mod[len("gradrepl."):]
    return f"{mod}.{cls.__qualname__}"


class PaddleObject:
    """A mixin: instances print as Paddle's default object repr (``<paddle.x.Y object at
    0x...>``) under the class's Paddle path."""

    __slots__ = ()

    def __repr__(self):
        return paddle_repr(self, paddle_path(type(self)))


def paddle_repr(obj, path):
    """``<paddle.x.Y object at 0x...>``: the default object repr under Paddle's module path."""
    return f"<{path} object at {hex(id(obj))}>"


class Size(list, metaclass=PaddleClass):
    """``paddle.Size`` (3.x): a list that prints as ``paddle.Size([2, 3])``."""

    _paddle_path = "paddle.base.libpaddle.Size"

    def __repr__(self):
        return f"paddle.Size({list.__repr__(self)})"

    __str__ = __repr__


_ND_REFUSED: list = []


def _numpy_refuses_nd() -> bool:
    """Whether 2.x's ``float(np.array(x))`` of a [1] / [1, 1] tensor raises as it does on this
    machine: real 2.6.2 converts with the numpy beside it, and numpy 2.4 (this machine's: real
    2.6.2 prints "TypeError: only 0-dimensional arrays can be converted to Python scalars" for
    float(paddle.to_tensor([0.25]))) refuses arrays of more dimensions, numpy 1.26 (the one
    ``GRADREPL_PADDLE_NUMPY=1`` says the compared Paddle runs) converts them."""
    from . import numpy_era

    if numpy_era.numpy1_scalars():
        return False
    if not _ND_REFUSED:
        import warnings as _w
        with _w.catch_warnings():
            _w.simplefilter("ignore")
            try:
                float(np.ones(1))
                _ND_REFUSED.append(False)
            except TypeError:
                _ND_REFUSED.append(True)
    return _ND_REFUSED[0]


class Tensor(_EngineTensor, metaclass=PaddleClass):
    __slots__ = ()
    _paddle_path = "paddle.Tensor"

    def _is_initialized(self):
        """Whether the tensor has memory (False only for ``Layer.create_tensor``'s tensors)."""
        return True

    def value(self):
        """The tensor itself (Paddle's old variable API: ``param.value()``)."""
        return self

    value.__qualname__ = "monkey_patch_tensor.<locals>.value"  # as Paddle's bound method reads

    def bump_version(self):
        """An in-place write: the version goes up, and a node that saved this tensor as its
        output remembers the version it saved (``saved.before_write``)."""
        _saved.bump(self)

    # ------------------------------------------------------------------ attributes
    @property
    def shape(self):
        s = list(self.data.shape)
        return Size(s) if profiles.current().shape_is_size else s

    @property
    def dtype(self):
        return dtypes.from_np(self.data.dtype)

    @property
    def ndim(self):
        return self.data.ndim

    def dim(self):
        return self.data.ndim

    ndimension = dim

    @property
    def size(self):
        return int(self.data.size)

    def numel(self):
        from .tensor import creation

        return creation.numel(self)

    @property
    def place(self):
        from . import device

        return device.CPUPlace()

    @property
    def name(self):
        """An op's result is named when its name is first read (``eager_tmp_N``)."""
        if self._name is None:
            self._name = next_name("eager_tmp")
        return self._name

    @name.setter
    def name(self, value):
        self._name = value

    @property
    def persistable(self):
        return False

    @property
    def grad(self):
        return self._grad

    @grad.setter
    def grad(self, value):
        """Paddle copies the given tensor into the existing gradient tensor (in place: a
        reference to ``x.grad`` sees the new values), or makes a new one that stops gradient."""
        if value is None and profiles.current().arg_type_error == "TypeError":
            self._grad = None
            return
        if not isinstance(value, _EngineTensor):
            line = 51 if profiles.current().arg_type_error == "TypeError" else 56
            raise ValueError(f"(InvalidArgument) argument (position 1) must be Tensor, but got "
                             f"{type(value).__name__} (at /paddle/paddle/utils/pybind.cc:{line})\n")
        if self._grad is not None and value.data.dtype != self._grad.data.dtype:
            raise RuntimeError(f"(PreconditionNotMet) Tensor  has different data type with "
                               f"Tensor {value.name}, Tensor Copy cannot be performed!")
        if self._grad is not None:  # copied into the gradient tensor itself (one a holder sees)
            self._grad.data = np.array(value.data)
            return
        # no gradient yet: a new one, stopping gradient (real 3.3.1)
        self._grad = type(self)._result_type._wrap(np.array(value.data), True)

    @property
    def grad_fn(self):
        """The node that computed this tensor; a leaf has Paddle's GradNodeAccumulation (eager
        Paddle), or none (2.2)."""
        node = self.grad_node
        if node is None:
            return GradNodeBase(None) if self._accumulates() else None
        return GradNodeBase(node)

    def _accumulates(self):
        """Eager Paddle gives a leaf made by to_tensor (or one that needs a gradient) an
        accumulation node; an op's result under no_grad has none."""
        if profiles.current().node_names != "eager":
            return False
        return not self.stop_gradient or (self._name or "").startswith("generated_tensor")

    @property
    def inplace_version(self):
        return self._version

    @property
    def T(self):
        from .tensor import manipulation

        return manipulation.transpose(self, list(range(self.ndim))[::-1])

    @property
    def is_leaf(self):
        return self.grad_node is None

    # ------------------------------------------------------------------ conversions
    def numpy(self):
        return np.array(self.data)

    def __reduce_ex__(self, protocol):
        """pickle and copy.copy: Paddle 2.x's Tensor has no reduce (TypeError); 3.x pickles."""
        if not profiles.current().tensor_pickle:
            raise TypeError(f"cannot pickle '{type(self).__name__}' object")
        return object.__reduce_ex__(self, protocol)

    def __deepcopy__(self, memo):
        """copy.deepcopy as Paddle's (every version): a new leaf holding a copy of the values,
        the same stop_gradient, no gradient, no graph, no hooks, named ``self.name`` +
        ``unique_name.generate("_deepcopy")`` (``linear_0.w_0_deepcopy_0``); a Parameter keeps its
        attributes (deep copies). Before, every slot was copied: the copy of a trained Layer or
        state_dict kept the original's gradient and accumulated into the original's (an EWC
        penalty on deepcopy(model.state_dict()) trained nothing)."""
        import copy

        from .utils import unique_name

        new = type(self)._wrap(np.array(self.data, copy=True), self.stop_gradient)
        memo[id(self)] = new
        if isinstance(self, EagerParamBase):
            for attr in ("optimize_attr", "regularizer", "need_clip", "is_distributed"):
                if hasattr(self, attr):
                    setattr(new, attr, copy.deepcopy(getattr(self, attr), memo))
            new._param_name = None
        new.name = self.name + unique_name.generate("_deepcopy")
        return new

    def __array__(self, dtype=None, copy=None):
        return self.data if dtype is None else self.data.astype(dtype)

    def item(self, *args):
        """One element as a python scalar: the only one, or the one at a flat index or at
        one index per dimension (Paddle's pybind wording on misuse)."""
        a = bf16.values(self.data)
        if not args:
            if a.size != 1:
                raise ValueError("(InvalidArgument) only one element tensors can be converted to "
                                 "Python scalars when no input coordinates")
            return a.reshape(()).item()
        if len(args) == 1:
            if not -a.size <= args[0] < a.size:
                raise ValueError(f"(InvalidArgument) index {args[0]} is out of bounds for size "
                                 f"{a.size}")
            return a.reshape(-1)[args[0]].item()
        if len(args) != a.ndim:
            raise ValueError("(InvalidArgument) incorrect number of indices for Tensor")
        return a.item(*args)

    def tolist(self):
        return self.data.tolist()

    def _python_scalar(self, what):
        """The single element as a numpy scalar for float()/int()/complex()/index(): Paddle
        asserts one element, then numpy converts ``np.array(x)`` (numpy 2, under 3.x, only
        converts 0-D arrays)."""
        a = bf16.values(self.data)
        if a.size != 1:
            raise AssertionError(f"only one element variable can be converted to {what}.")
        if a.ndim and (profiles.current().scalar_convert_0d_only or _numpy_refuses_nd()):
            raise TypeError("only 0-dimensional arrays can be converted to Python scalars")
        return a.reshape(())

    def __float__(self):
        return float(self._python_scalar("float"))

    def __int__(self):
        return int(self._python_scalar("int"))

    def __complex__(self):
        if not profiles.current().scalar_convert_0d_only:  # 2.x has no __complex__: via float
            return complex(float(self))
        return complex(self._python_scalar("complex"))

    def __index__(self):
        return int(self._python_scalar("python index"))

    def __bool__(self):
        """Paddle's truth value: the one element compared ``> 0``."""
        if self.data.size != 1:
            raise AssertionError("When Variable is used as the condition of if/while , Variable "
                                 "can only contain one element.")
        return bool(self.data.reshape(()) > 0)

    def __len__(self):
        if self.data.ndim == 0:
            raise AssertionError("len() of a 0-D tensor is wrong")
        return self.data.shape[0]

    def __iter__(self):
        """Iterating a 0-D tensor yields nothing (Python's __getitem__ protocol stops at once)."""
        for i in range(self.data.shape[0] if self.data.ndim else 0):
            yield self[i]

    def __hash__(self):
        return id(self)

    def astype(self, dtype):
        return Tensor._cast(self, dtypes.to_np(dtype))

    cast = astype

    @staticmethod
    def _cast(x, npdtype):
        if npdtype == np.float16 and x.data.dtype.kind in "fiuc" and \
                x.data.dtype not in (np.float16, bf16.BITS) and \
                profiles.current().f16_rounding == "zero":   # (a bfloat16 source: its hook)
            return M.apply(M.CAST, (x,), {"dtype": np.dtype(npdtype), "f16": "zero"})
        return M.cast(x, npdtype)

    def clone(self):
        from .tensor import creation

        return creation.assign(self)

    def detach(self):
        t = type(self)._result_type._wrap(self.data, True)
        _saved.share(t, self)  # (Paddle's detach shares the inplace version counter)
        return t

    def detach_(self):
        self._grad = None
        self.grad_node = None
        self.stop_gradient = True
        return self

    # ------------------------------------------------------------------ device, layout, storage
    def element_size(self):
        """Bytes per element."""
        return int(self.data.itemsize)

    def cpu(self):
        return self

    def cuda(self, device_id=None, blocking=True):
        raise ValueError("(InvalidArgument) CUDA is not available: gradrepl emulates Paddle's "
                         "CPU build")

    def pin_memory(self, blocking=True):
        return self

    def is_contiguous(self):
        return True

    def contiguous(self):
        return self

    @property
    def strides(self):
        return [int(s // self.data.itemsize) for s in np.empty(self.data.shape).strides] if \
            self.data.ndim else []

    @property
    def offset(self):
        return 0

    def data_ptr(self):
        return int(self.data.__array_interface__["data"][0])

    def to(self, *args, **kwargs):
        """``x.to(device)``, ``x.to(dtype)``, ``x.to(device, dtype)``, ``x.to(other)``: a
        tensor of the asked dtype (gradrepl has the CPU only)."""
        dtype = kwargs.get("dtype")
        for a in args:
            if isinstance(a, _EngineTensor):
                dtype = a.dtype
            elif isinstance(a, (dtypes.DType, np.dtype, type)) or (
                    isinstance(a, str) and a.replace("paddle.", "") in dtypes.DTYPES):
                dtype = a
        # Paddle's Tensor._to runs under warnings.catch_warnings() with UserWarning ignored: the
        # filters change, so every "once per location" warning may show again afterwards
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", category=UserWarning)
            if dtype is None:
                return self
            return Tensor._cast(self, dtypes.to_np(dtype))

    def apply(self, func):
        """``func(self)`` for a tensor that does not need a gradient."""
        if not self.stop_gradient:
            raise RuntimeError("Cannot apply function on a tensor that required gradient.")
        return func(self)

    def apply_(self, func):
        if not self.stop_gradient:
            raise RuntimeError("Cannot apply function on a tensor that required gradient.")
        out = func(self)
        self.data = np.array(out.data, dtype=self.data.dtype)
        self.bump_version()
        return self

    def type(self, dtype=None):
        if dtype is None:
            return str(self.dtype)
        return self.astype(dtype)

    # ------------------------------------------------------------------ printing
    def _repr_prefix(self):
        return "Tensor"

    def __repr__(self):
        prof = profiles.current()
        return printing.tensor_repr(self.data, list(self.data.shape), self.dtype.name,
                                    prof.place, self.stop_gradient, self._repr_prefix())

    __str__ = __repr__

    def __format__(self, spec):
        prof = profiles.current()
        if self.data.ndim == 0 and prof.format_0d_as_scalar:
            return format(self.data.item(), spec)
        if spec:
            raise TypeError("unsupported format string passed to Tensor.__format__")
        return repr(self)

    # ------------------------------------------------------------------ autograd
    def backward(self, grad_tensor=None, retain_graph=False):
        """Paddle's Tensor.backward checks (asserts on grad_tensor, pybind's bool check)."""
        autograd = _AUTOGRAD[0]   # (an import statement here cost ~10k instructions a call)
        if autograd is None:
            from . import autograd

            _AUTOGRAD[0] = autograd
        if grad_tensor is not None:
            if not isinstance(grad_tensor, _EngineTensor):
                raise AssertionError("The type of grad_tensor must be paddle.Tensor")
            if grad_tensor.data.shape != self.data.shape:
                raise AssertionError(
                    f"Tensor shape not match, Tensor of grad_tensor [ {grad_tensor.name} ] with "
                    f"shape {grad_tensor.shape} mismatch Tensor [ {self.name} ] with shape "
                    f"{self.shape}")
        if not isinstance(retain_graph, bool):
            raise autograd.bool_argument_error(3, retain_graph)
        autograd._run_backward([self], [grad_tensor], retain_graph)

    def gradient(self):
        if self._grad is None:
            return None
        return np.array(self._grad.data)

    def clear_grad(self):
        if self._grad is None:
            return
        if _selected_rows.forget(self):  # a sparse embedding's gradient: cleared to None
            self._grad = None
            return
        acc = self._accum
        if acc is not None and acc.clear():  # zeros without a pass (see AccumulateNode.clear)
            return
        self._grad.data = np.zeros_like(self._grad.data)
        if acc is not None and self._grad.grad_node is None:
            acc.own_grad_data(self._grad.data)

    def clear_gradient(self, set_to_zero=True):
        if set_to_zero:
            self.clear_grad()
        else:
            self._grad = None
            _selected_rows.forget(self)

    def retain_grads(self):
        self._retain = True

    def register_hook(self, hook):
        if self.stop_gradient:
            raise RuntimeError("Cannot register hook on a tensor that stop gradient.")
        idx = self.add_hook(_paddle_hook(hook))
        return TensorHookRemoveHelper(self, idx)

    # ------------------------------------------------------------------ operators
    # Arithmetic and comparisons go through paddle/tensor/math.py (``operator``): Paddle's
    # promotion, its choice of op (``scale`` for ``x + 2``) and its kernels' dtypes.
    # numpy defers to these operators (``np.float32(2) * x`` is a Tensor), as with Paddle.
    __array_ufunc__ = None

    # Fast path for the commonest case, a float tensor with a python number: Paddle's ``scale``
    # op (what ``_binary`` ends in too, after promotion checks that cannot change anything here).
    def __add__(self, o):
        if (type(o) is float or type(o) is int) and self.data.dtype in _SCALE_FAST:
            return _scale(self, 1.0, _bias(self, float(o)))
        if _same_float(self, o):
            return _float_pair(M.ADD, self, o)
        return _binary(self, o, "add")

    def __radd__(self, o):
        if (type(o) is float or type(o) is int) and self.data.dtype in _SCALE_FAST:
            return _scale(self, 1.0, _bias(self, float(o)))
        return _binary(self, o, "add", True)

    def __sub__(self, o):
        if (type(o) is float or type(o) is int) and self.data.dtype in _SCALE_FAST:
            return _scale(self, 1.0, _bias(self, -float(o)))
        if _same_float(self, o):
            return _float_pair(M.SUBTRACT, self, o)
        return _binary(self, o, "subtract")

    def __rsub__(self, o):
        return _binary(self, o, "subtract", True)

    def __mul__(self, o):
        if (type(o) is float or type(o) is int) and self.data.dtype in _SCALE_FAST:
            return _scale(self, float(o), 0.0)
        if _same_float(self, o):
            return _float_pair(M.MULTIPLY, self, o)
        return _binary(self, o, "multiply")

    def __rmul__(self, o):
        if (type(o) is float or type(o) is int) and self.data.dtype in _SCALE_FAST:
            return _scale(self, float(o), 0.0)
        return _binary(self, o, "multiply", True)

    def __truediv__(self, o):
        return _binary(self, o, "divide")

    def __rtruediv__(self, o):
        return _binary(self, o, "divide", True)

    __div__, __rdiv__ = __truediv__, __rtruediv__

    def __floordiv__(self, o):
        return _binary(self, o, "floor_divide")

    def __rfloordiv__(self, o):
        return _binary(self, o, "floor_divide", True, "__rfloordiv__", "//")

    def __mod__(self, o):
        return _binary(self, o, "remainder")

    def __rmod__(self, o):
        return _binary(self, o, "remainder", True, "__rmod__", "%")

    def __pow__(self, o):
        return _binary(self, o, "elementwise_pow")

    def __rpow__(self, o):
        return _binary(self, o, "elementwise_pow", True)

    def __eq__(self, o):
        return _binary(self, o, "equal")

    def __ne__(self, o):
        return _binary(self, o, "not_equal")

    def __lt__(self, o):
        return _binary(self, o, "less_than")

    def __le__(self, o):
        return _binary(self, o, "less_equal")

    def __gt__(self, o):
        return _binary(self, o, "greater_than")

    def __ge__(self, o):
        return _binary(self, o, "greater_equal")

    def __and__(self, o):
        return _binary(self, o, "bitwise_and")

    def __rand__(self, o):
        return _binary(self, o, "bitwise_and", True, "__rand__", "&")

    def __or__(self, o):
        return _binary(self, o, "bitwise_or")

    def __ror__(self, o):
        return _binary(self, o, "bitwise_or", True, "__ror__", "|")

    def __xor__(self, o):
        return _binary(self, o, "bitwise_xor")

    def __rxor__(self, o):
        return _binary(self, o, "bitwise_xor", True, "__rxor__", "^")

    def __lshift__(self, o):
        return _binary(self, o, "bitwise_left_shift", False, "__lshift__", "<<")

    def __rshift__(self, o):
        return _binary(self, o, "bitwise_right_shift", False, "__rshift__", ">>")

    def __invert__(self):
        from .tensor import logic

        return logic.bitwise_not(self)

    def __neg__(self):
        return M.scale(self, -1.0, 0.0)

    def __pos__(self):
        return _binary(self, None, "pos", False, "__pos__", "unary +")

    def __abs__(self):
        return _binary(self, None, "abs", False, "__abs__", "abs()")

    def __matmul__(self, o):
        linalg = _LINALG[0] or _linalg()   # (an import statement here: ~10 k instructions)
        return linalg.matmul(self, o)

    def __rmatmul__(self, o):
        from .tensor import linalg

        return linalg.matmul(o, self)



class UninitializedTensor(Tensor):
    """A tensor with no memory yet (``Layer.create_tensor``): shape ``[]`` but an empty numpy
    array, printed as Paddle prints one; ``paddle.assign(x, t)`` gives it x's data and makes it
    an ordinary Tensor."""

    __slots__ = ()

    @property
    def shape(self):
        return Size([]) if profiles.current().shape_is_size else []

    @property
    def ndim(self):
        return 0

    def dim(self):
        return 0

    def _is_initialized(self):
        return False

    @property
    def size(self):
        return 1

    def __repr__(self):
        if profiles.current().uninit_repr == "short":
            return "Tensor(Not initialized)"
        return (f"Tensor(shape=[], dtype={self.dtype.name}, place=Place(undefined:0), "
                f"stop_gradient={self.stop_gradient},\n       [])")

    __str__ = __repr__

class _Since3Property:
    """A Tensor attribute Paddle 3 added (``requires_grad``, ``itemsize``, ``device``): under a
    2.x profile reading it raises AttributeError, as real Paddle 2.6 does."""

    def __init__(self, fget, fset=None):
        self.fget, self.fset = fget, fset
        self.name = fget.__name__

    def __get__(self, obj, cls=None):
        if not profiles.current().api3:
            raise AttributeError(f"'Tensor' object has no attribute '{self.name}'"
                                 if obj is not None else
                                 f"type object 'Tensor' has no attribute '{self.name}'")
        if obj is None:
            return self
        return self.fget(obj)

    def __set__(self, obj, value):
        if self.fset is None or not profiles.current().api3:
            raise AttributeError(f"'Tensor' object has no attribute '{self.name}'")
        self.fset(obj, value)


def _requires_grad_get(self):
    return not self.stop_gradient


def _requires_grad_set(self, value):
    self.stop_gradient = not bool(value)


def _itemsize(self):
    return int(self.data.itemsize)


def _device(self):
    return "cpu"


def _repeat(self, *repeats):
    """``x.repeat(2, 3)`` (3.x, torch's meaning): tile by ``repeats`` (more axes in front)."""
    from .tensor import manipulation

    if len(repeats) == 1 and isinstance(repeats[0], (list, tuple, _EngineTensor)):
        repeats = repeats[0]
    if isinstance(repeats, _EngineTensor):
        repeats = repeats.tolist()
    repeats = [int(r) for r in repeats]
    x = self
    if len(repeats) > x.ndim:
        x = manipulation.reshape(x, [1] * (len(repeats) - x.ndim) + list(x.shape))
    return manipulation.tile(x, repeats)


def _stride(self, dim=None):
    st = Tensor.strides.fget(self)
    return st if dim is None else st[dim]


_requires_grad_get.__name__ = "requires_grad"
_itemsize.__name__ = "itemsize"
_device.__name__ = "device"
Tensor.requires_grad = _Since3Property(_requires_grad_get, _requires_grad_set)
Tensor.itemsize = _Since3Property(_itemsize)
Tensor.device = _Since3Property(_device)


def _since3_method(fn, name):
    def get(self):
        return fn.__get__(self, Tensor)
    get.__name__ = name
    return _Since3Property(get)


def _dense_sparse_method(name, error, message):
    """A sparse-only Tensor method called on a dense tensor: Paddle's error."""
    def method(self, *args, **kwargs):
        raise error(message)
    method.__name__ = name
    return method


_ONLY_COO = "(Fatal) this method is only effective for SparseCooTensor"
_ONLY_CSR = "(Fatal) this method is only effective for SparseCsrTensor"
_ONLY_SPARSE = "(Fatal) this method is only effective for SparseCooTensor or SparseCsrTensor"


def _unimplemented(kernel):
    return (f"(Unimplemented) The kernel of ({kernel}) for input tensors is unimplemented, "
            "please check the type of input tensors.")


for _n, _err, _msg in (("to_dense", NotImplementedError, _unimplemented("to_dense")),
                       ("values", NotImplementedError, _unimplemented("values")),
                       ("coalesce", NotImplementedError, _unimplemented("coalesce")),
                       ("indices", SystemError, _ONLY_COO),
                       ("crows", SystemError, _ONLY_CSR), ("cols", SystemError, _ONLY_CSR),
                       ("nnz", SystemError, _ONLY_SPARSE)):
    setattr(Tensor, _n, _dense_sparse_method(_n, _err, _msg))
del _n, _err, _msg


def _to_sparse_coo(self, sparse_dim):
    from .sparse import dense_to_sparse_coo

    return dense_to_sparse_coo(self, sparse_dim)


def _to_sparse_csr(self):
    from .sparse import dense_to_sparse_csr

    return dense_to_sparse_csr(self)


Tensor.to_sparse_coo = _to_sparse_coo
Tensor.to_sparse_csr = _to_sparse_csr
Tensor.is_sparse = lambda self: False
Tensor.is_sparse_coo = lambda self: False
Tensor.is_sparse_csr = lambda self: False
Tensor.is_dense = lambda self: True

def _new_like(name, fill):
    """``Tensor.new_empty/new_ones/new_zeros(*size, dtype=None, ...)`` (3.x): a new tensor of
    this one's dtype (unless given), the size as ints or one list."""
    def method(self, *size, dtype=None, device=None, requires_grad=False, pin_memory=False):
        from .tensor.creation import full

        if len(size) == 1 and isinstance(size[0], (list, tuple, Tensor)):
            size = size[0]
        t = full(size, fill, dtype=self.dtype if dtype is None else dtype)
        t.stop_gradient = not requires_grad
        return t
    method.__name__ = name
    return method


def _new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False,
              pin_memory=False):
    from .tensor.creation import full

    t = full(size, fill_value, dtype=self.dtype if dtype is None else dtype)
    t.stop_gradient = not requires_grad
    return t


for _n, _fill in (("new_empty", 0), ("new_zeros", 0), ("new_ones", 1)):
    setattr(Tensor, _n, _since3_method(_new_like(_n, _fill), _n))
Tensor.new_full = _since3_method(_new_full, "new_full")
del _n, _fill

Tensor.repeat = _since3_method(_repeat, "repeat")
Tensor.stride = _since3_method(_stride, "stride")
Tensor.is_cuda = _Since3Property(lambda self: False)
Tensor.__dict__["is_cuda"].name = "is_cuda"
Tensor.get_device = _since3_method(lambda self: -1, "get_device")

_SCALE_FAST = frozenset((np.dtype(np.float32), np.dtype(np.float64)))
_scale = M.scale
_F64 = np.dtype(np.float64)


def _bias(x, b):
    """The scale op's bias as the profile's kernel takes it (``scale_op``)."""
    if x.data.dtype == _F64 and b and profiles.current().scale_bias32:
        return float(np.float32(b))
    return b
_M_add, _M_subtract, _M_multiply = M.add, M.subtract, M.multiply


def _float_pair(op, x, y):
    """``apply(op, (x, y))`` for ``_same_float`` operands: ``registry.apply_pair`` (the same node
    and tensor, without apply's tests) unless an apply hook records (static graph, vmap)."""
    if _registry._HOOK is not None:
        return _registry.apply(op, (x, y))
    return _apply_pair(op, x, y, x.data, y.data)


_apply_pair = _registry.apply_pair


def _same_float(x, y):
    """Two float32/float64 tensors of one dtype and one shape: no promotion or broadcast checks
    to make, so the operators go straight to the engine op (what ``_binary`` ends in too)."""
    if not isinstance(y, _EngineTensor):
        return False
    xd, yd = x.data, y.data
    return xd.dtype is yd.dtype and xd.shape == yd.shape and xd.dtype in _SCALE_FAST


class GradNodeBase(metaclass=PaddleClass):
    """What ``tensor.grad_fn`` shows of a backward node: ``name()`` as this Paddle calls it."""

    __slots__ = ("node",)
    _paddle_path = "paddle.base.libpaddle.GradNodeBase"

    def __init__(self, node):
        self.node = node

    def name(self):
        if self.node is None or self.node.op is None:
            return "GradNodeAccumulation"
        op = self.node.op
        if op.name == "py_layer" and profiles.current().node_names == "eager":
            from . import autograd

            return autograd.pylayer_node_name(self.node.attrs["cls"])
        if profiles.current().node_names == "legacy":
            return op.legacy_name or op.backward_name
        from .double_grad import paddle_op

        # a resize composed of engine ops, a depthwise transposed conv: Paddle's own op
        tagged = paddle_op(self.node)
        if tagged and (tagged.endswith("_interp") or tagged == "depthwise_conv2d_transpose"):
            return "".join(p.capitalize() for p in tagged.split("_")) + "GradNode"
        return op.backward_name

    @property
    def next_functions(self):
        """The nodes this one sends gradients to (a leaf's is its GradNodeAccumulation)."""
        if self.node is None or self.node.op is None:
            return []
        return [GradNodeBase(e[0]) for e in self.node.next_edges if e is not None]

    def __eq__(self, other):
        return isinstance(other, GradNodeBase) and other.node is self.node

    def __hash__(self):
        return hash(id(self.node))

    def __repr__(self):
        """Paddle prints the pybind class (``GradNodeBase``), whatever the node; ``name()``
        tells which it is."""
        return paddle_repr(self, "paddle.base.libpaddle.GradNodeBase")


def _paddle_hook(hook):
    """A user's gradient hook as Paddle calls it: the gradient it is handed does not stop
    gradient (``stop_gradient=False`` in its repr), whether or not the backward records."""
    def run(g):
        if g.stop_gradient:
            g = type(g)._wrap(g.data, False)
        return hook(g)
    return run


def _removed_hook(g):
    """Stands in for a removed hook (the engine's hook list keeps its indices)."""
    return None


class TensorHookRemoveHelper(metaclass=PaddleClass):
    """What ``register_hook`` returns: ``remove()`` is True once, then False (Paddle warns)."""

    _paddle_path = "paddle.base.dygraph.tensor_patch_methods.TensorHookRemoveHelper"

    def __repr__(self):
        return paddle_repr(self, self._paddle_path)

    def __init__(self, tensor, idx):
        self._t = tensor
        self._idx = idx

    def remove(self):
        hooks = self._t._hooks
        if hooks and self._idx < len(hooks) and hooks[self._idx] is not _removed_hook:
            hooks[self._idx] = _removed_hook
            return True
        return False


GradFn = GradNodeBase
Tensor._result_type = Tensor


class EagerParamBase(Tensor):
    """A trainable tensor of a Layer; prints as ``Parameter containing:`` then the tensor.

    Paddle's class name is ``EagerParamBase`` (``type(p).__name__``); ``Parameter`` is an alias.
    """
    _paddle_path = "paddle.base.framework.EagerParamBase"

    __slots__ = ("optimize_attr", "regularizer", "need_clip", "is_distributed", "_param_name")

    def __repr__(self):
        return "Parameter containing:\n" + Tensor.__repr__(self)

    @property
    def trainable(self):
        """``not stop_gradient``, as Paddle's property: setting it sets stop_gradient."""
        return not self.stop_gradient

    @trainable.setter
    def trainable(self, trainable):
        if not isinstance(trainable, bool):
            head = "The type of trainable MUST be bool, but the type is "
            if profiles.current().error_wording == "3":  # 3.3.1's f-string; 2.6.2 passes two args
                raise ValueError(f"{head}{type(trainable)}")
            raise ValueError(head, type(trainable))
        self.stop_gradient = not trainable

    __str__ = __repr__

    @property
    def name(self):
        return self._param_name or Tensor.name.fget(self)

    @name.setter
    def name(self, value):
        self._param_name = value

    @property
    def persistable(self):
        return True


Parameter = EagerParamBase
Parameter._result_type = Tensor


def _wrap_np(arr, stop_gradient=True):
    return Tensor._wrap(arr if type(arr) is np.ndarray else np.asarray(arr), stop_gradient)


def _float_for_div(x):
    """true division of integer tensors computes in float32 (Paddle casts first)."""
    from . import promotion as _p

    dt = _p.true_divide_dtype(x.data.dtype)
    return x if dt == x.data.dtype else M.cast(x, dt)


def _scalar_affine(x, s, b, opname):
    """``x * s + b`` for a python scalar operand: Paddle's ``scale`` op (``opname`` is the
    operator it stands for, for the kernel check)."""
    promotion.check_kernel("scale", x.data.dtype)
    return scale_op(x, s, b)


def scale_op(x, s, b=0.0, bias_after_scale=True):
    """Paddle's ``scale`` op; a float16 tensor's results round as the profile's kernel does;
    under 2.x the bias is a float attribute (rounded to float32 for float64 inputs too)."""
    if b and profiles.current().scale_bias32 and x.data.dtype in (np.float64, np.complex128):
        b = float(np.float32(b))
    if x.data.dtype == np.float16:
        rounding = profiles.current().f16_rounding
        if rounding != "zero":
            from ..engine.registry import apply

            attrs = {"scale": s, "bias": b, "f16": rounding}
            if not bias_after_scale:
                attrs["bias_after_scale"] = False
            return apply(M.SCALE, (x,), attrs)
    return M.scale(x, s, b, bias_after_scale)


def as_tensor(v, like=None):
    """A python scalar / numpy value as a constant tensor (dtype per the promotion rules)."""
    if isinstance(v, _EngineTensor):
        return v
    if like is not None and isinstance(v, (int, float, bool, np.number)):
        dt = promotion.with_scalar(like.data.dtype, promotion.scalar_kind(v))
        return _wrap_np(np.asarray(v, dt))
    from .tensor.creation import to_tensor

    return to_tensor(v)


def _binary(x, y, opname, reverse=False, dunder=None, symbol=None):
    """The Tensor operators: ``x (op) y`` (``y (op) x`` when ``reverse``) for a Tensor x, with
    Paddle's promotion and op choice (paddle/tensor/math.py ``operator``). ``dunder``/``symbol``
    name an operator that Paddle 2.x's Tensor lacks (the profile's ``missing_dunders``): there
    Python's TypeError is raised. ``abs``/``pos`` are the unary ones (y is None)."""
    if dunder is not None and dunder in profiles.current().missing_dunders:
        if y is None and opname in ("abs", "pos"):
            raise TypeError(f"bad operand type for {symbol}: 'Tensor'")
        left, right = (type(y).__name__, "Tensor") if reverse else ("Tensor", type(y).__name__)
        raise TypeError(f"unsupported operand type(s) for {symbol}: '{left}' and '{right}'")
    if opname == "pos":
        return x
    if opname == "abs":
        from .tensor import math as _math

        return _math.abs(x)
    if opname.startswith("bitwise") or opname.endswith("shift"):
        from .tensor import logic as _logic

        if not isinstance(y, (_EngineTensor, bool, int, float, np.number, np.bool_)):
            return NotImplemented
        if reverse and isinstance(y, (float, np.floating)):
            return NotImplemented
        if reverse and isinstance(y, _EngineTensor):
            x, y, reverse = y, x, False
        return _logic.bitwise(opname, x, y, reverse)
    from .tensor import math as _math

    return _math.operator(opname, x, y, reverse)


def _cast_promote(t, target):
    """Cast for promotion: a float cast to an integer (2.x) truncates and stops gradient."""
    target = np.dtype(target)
    if t.data.dtype == target:
        return t
    if target.kind in "iub":
        return _wrap_np(t.data.astype(target), True)
    return M.cast(t, target)
