"""What torch's ``vmap`` refuses, refused here too: a vmapped function that reads a batched
tensor's values into Python (``.item()``, ``float(t)``, ``if t > 0:``, ``.tolist()``,
``.numpy()``) or calls an op whose result's shape would depend on the sample (``nonzero``,
``unique``, ``masked_select``, a boolean mask as an index).

gradrepl runs a vmapped function on one sample at a time (``func.vmap``: traced, then replayed
on the batch, or looped), where every such read works, so without these checks a student's
``vmap(lambda r: r if r.sum() > 0 else -r)`` ran here and failed in torch. torch raises because
its batched tensors have no one value per sample; here a tensor is *batched* when it is one of
the samples of a running ``vmap`` or an op's result with a batched input (marked in its
``__dict__``, so nothing is kept alive), and the readers raise torch's ``RuntimeError`` for it
(methods of ``checked_class``, the class the batched tensors take, and wrappers put on the
``torch`` module while a vmap runs; made once: the Tensor class itself is never changed).

Only reads by the user's code raise: gradrepl's own kernels read values where torch's C++ does
not (a check, a count), and torch runs those on the whole batch.
"""
from __future__ import annotations

import functools
import operator
import sys

from ..engine import registry

#: the running vmaps' scopes, innermost last
_SCOPES: list = []
_MARK = "_vmap_batched"

ITEM = ("vmap: It looks like you're calling .item() on a Tensor. We don't support vmap over "
        "calling .item() on a Tensor, please try to rewrite what you're doing with other "
        "operations. If error is occurring somewhere inside PyTorch internals, please file a "
        "bug report.")
CONTROL_FLOW = ("vmap: It looks like you're attempting to use a Tensor in some data-dependent "
                "control flow. We don't support that yet, please file an issue at "
                "https://github.com/pytorch/pytorch/issues .")
#: under a transform inside vmap (``vmap(grad(f))``: the tensor read is a grad level's wrapper
#: of a batched tensor), torch cannot tell the two apart
EITHER = ("vmap: It looks like you're either (1) calling .item() on a Tensor or (2) attempting "
          "to use a Tensor in some data-dependent control flow or (3) encountering this error "
          "in PyTorch internals. For (1): we don't support vmap over calling .item() on a "
          "Tensor, please try to rewrite what you're doing with other operations. For (2): we "
          "don't support data-dependent control flow in vmap yet, please file an issue at "
          "https://github.com/pytorch/pytorch/issues . For (3): please file an issue.")
NO_STORAGE = "Cannot access data pointer of Tensor that doesn't have storage"

#: reader method -> torch's message for a batched tensor (None: torch's EITHER/ITEM choice)
READERS = {"item": ITEM, "__float__": ITEM, "__int__": ITEM, "__index__": ITEM,
           "__complex__": ITEM, "__bool__": CONTROL_FLOW,
           "tolist": NO_STORAGE, "numpy": NO_STORAGE, "__array__": NO_STORAGE,
           # (torch runs these on a batched tensor; a trace still takes them as reads)
           "__iter__": None, "__len__": None}


def _scope_of(t):
    d = getattr(t, "__dict__", None)
    s = d.get(_MARK) if d else None
    return s if s is not None and s in _SCOPES else None


def mark(t, scope=None):
    """``t`` is batched in ``scope`` (the innermost running one by default)."""
    if _SCOPES:
        t.__dict__[_MARK] = scope or _SCOPES[-1]
        _checked(t)
    return t


def propagate(inputs, out):
    """An op ran on ``inputs``: its outputs are batched where an input is."""
    for t in inputs:
        s = _scope_of(t)
        if s is not None:
            for o in (out if isinstance(out, tuple) else (out,)):
                d = getattr(o, "__dict__", None)
                if d is not None:
                    d[_MARK] = s
                    _checked(o)
            return


def _taint_hook(op, inputs, attrs):
    """The apply hook of a vmap's samples loop: the op as usual, its outputs marked."""
    before = registry.set_apply_hook(None)
    try:
        out = registry.apply(op, inputs, attrs)
    finally:
        registry.set_apply_hook(before)
    propagate(inputs, out)
    return out


def batched(t) -> bool:
    return bool(_SCOPES) and _scope_of(t) is not None


def _refusal(message):
    e = RuntimeError(message)
    e._vmap_refusal = True
    return e


def refused(e) -> bool:
    """Whether ``e`` is one of these checks' errors (vmap does not retry it in a loop)."""
    return getattr(e, "_vmap_refusal", False)


def dynamic_shape(what, *tensors):
    """Raise torch's error for an op whose output shape depends on the values, called on a
    batched tensor (``what``: torch's words for the op)."""
    if _SCOPES and any(_scope_of(t) is not None for t in tensors):
        raise _refusal(what)


NONZERO = ("vmap: We do not support batching operators that can output dynamic shape. "
           "Attempted to vmap over aten::{}. Please file an issue at "
           "https://github.com/pytorch/pytorch/issues if you need this feature.")
MASKED_SELECT = ("vmap: Attempted to vmap over `mask` in torch.masked_select(self, mask) We "
                 "cannot support this because for each batch this would return a differently "
                 "shaped Tensor. Please file an issue at "
                 "https://github.com/pytorch/pytorch/issues if you need this feature.")
BOOL_INDEX = ("vmap: We do not support batching operators that can support dynamic shape. "
              "Attempting to batch over indexing with a boolean mask.")


def _from_gradrepl(frame) -> bool:
    """Whether the reader was called by gradrepl's code, not by the user's."""
    return frame is not None and frame.f_globals.get("__name__", "").startswith("gradrepl.")


#: called with the tensor on each read of a value into Python while vmap traces a sample
#: (``_vmap.trace``: the trace is then not one for all samples), else None
READ_WATCH: list = [None]


def _reader(name, method, message):
    def read(self, *a, **k):
        if _SCOPES or READ_WATCH[0] is not None:
            watch = READ_WATCH[0]
            if watch is not None:
                watch(self)
            s = _scope_of(self) if message is not None and _SCOPES else None
            if s is not None and not _from_gradrepl(sys._getframe(1)):
                from .func import _DEPTH

                msg = message
                if msg is ITEM or msg is CONTROL_FLOW:
                    if _DEPTH[0] > s.depth:
                        msg = EITHER
                raise _refusal(msg)
        return method(self, *a, **k)
    read.__name__ = name
    read.__wrapped__ = method
    return read


#: Tensor methods (and ``torch`` functions of the same names) that make their results outside
#: the engine's ops (so the apply hook does not see them): results batched where an input is
PASSING = ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__floordiv__",
           "__invert__", "__and__", "__or__", "__xor__",
           "eq", "ne", "lt", "le", "gt", "ge", "greater", "greater_equal", "less", "less_equal",
           "not_equal", "all", "any", "argmax", "argmin", "argsort", "isclose", "isfinite",
           "isinf", "isnan", "isneginf", "isposinf", "isreal", "isin", "signbit",
           "logical_and", "logical_not", "logical_or", "logical_xor", "bool", "byte", "char",
           "short", "int", "long", "half", "double", "bfloat16", "cfloat", "cdouble", "detach",
           "diag", "diagflat", "float_power", "count_nonzero", "histc", "where", "sort",
           "topk", "max", "min", "clone", "to", "type", "float", "contiguous")
#: ops whose result's shape depends on the values: torch's refusal when an input is batched
DYNAMIC = {"nonzero": NONZERO.format("nonzero"), "argwhere": NONZERO.format("nonzero"),
           "unique": NONZERO.format("_unique2"),
           "unique_consecutive": NONZERO.format("unique_consecutive")}


def _tensors(args, kwargs):
    for v in args:
        if isinstance(v, (list, tuple)):
            yield from v
        else:
            yield v
    yield from kwargs.values()


def _passing(method):
    def f(*args, **kwargs):
        out = method(*args, **kwargs)
        if _SCOPES:
            propagate(tuple(_tensors(args, kwargs)), out)
        return out
    f.__wrapped__ = method
    return f


def _dynamic(method, message):
    def f(*args, **kwargs):
        if _SCOPES:
            dynamic_shape(message, *_tensors(args, kwargs))
        return method(*args, **kwargs)
    f.__wrapped__ = method
    return f


def _masked_select(method):
    def f(input, mask, *a, **k):  # noqa: A002
        if _SCOPES:
            dynamic_shape(MASKED_SELECT, mask)
        return method(input, mask, *a, **k)
    f.__wrapped__ = method
    return f


def _getitem(method):
    def f(self, index):
        if _SCOPES:
            for v in (index if isinstance(index, tuple) else (index,)):
                if _scope_of(v) is not None and str(getattr(v, "dtype", "")) == "torch.bool":
                    raise _refusal(BOOL_INDEX)
        return method(self, index)
    f.__wrapped__ = method
    return f


INPLACE = ("vmap: {op}(self, *extra_args) is not possible because there exists a Tensor `other` "
           "in extra_args that has more elements than `self`. This happened due to `other` being "
           "vmapped over but `self` not being vmapped over {where}. Please try to use "
           "out-of-place operators instead of {op}. If said operator is being called inside the "
           "PyTorch framework, please file a bug report instead.")
FALLBACK_WARNING = ("There is a performance drop because we have not yet implemented the "
                    "batching rule for {}. Please file us an issue on GitHub so that we can "
                    "prioritize its implementation. (Triggered internally at /__w/pytorch/pytorch/"
                    "aten/src/ATen/functorch/BatchedFallback.cpp:82.)")
_BROADCAST = "broadcast"      # (add-like ops: TensorIterator's shape check on the batch)
_ARITH = ("inplace arithmetic", None)
#: in-place method -> how torch 2.13 refuses it on an unbatched self with a batched argument
#: (recorded here): the add-like ops' broadcast error, or INPLACE with (the op's words, and for
#: ops without a batching rule the fallback warning's op name)
INPLACE_OPS = {
    "add_": _BROADCAST, "__iadd__": _BROADCAST, "atan2_": _BROADCAST, "copysign_": _BROADCAST,
    "sub_": _ARITH, "__isub__": _ARITH, "mul_": _ARITH, "__imul__": _ARITH, "div_": _ARITH,
    "__itruediv__": _ARITH, "true_divide_": _ARITH, "copy_": _ARITH, "clamp_min_": _ARITH,
    "clamp_max_": _ARITH, "__setitem__": _ARITH,
    "fill_": ("fill_", None), "index_add_": ("index_add_", None),
    "pow_": ("aten::pow_", "aten::pow_.Tensor"), "__ipow__": ("aten::pow_", "aten::pow_.Tensor"),
    "hypot_": ("aten::hypot_", "aten::hypot_"), "fmod_": ("aten::fmod_", "aten::fmod_.Tensor"),
    "remainder_": ("aten::remainder_", "aten::remainder_.Tensor"),
    "floor_divide_": ("aten::floor_divide_", "aten::floor_divide_.Tensor"),
    "masked_fill_": ("aten::masked_fill_", "aten::masked_fill_.Tensor"),
    "scatter_": ("aten::scatter_", "aten::scatter_.src"),
    "addcmul_": ("aten::addcmul_", "aten::addcmul_"), "addcdiv_": ("aten::addcdiv_",
                                                                "aten::addcdiv_"),
    "lerp_": ("aten::lerp_", "aten::lerp_.Scalar"), "xlogy_": ("aten::xlogy_", "aten::xlogy_.Tensor"),
    "clamp_": ("aten::clamp_", "aten::clamp_.Tensor"),
}


#: in-place methods torch defines in Python (torch/_tensor.py's wrapper calls the op)
_PYTHON_METHODS = frozenset({"__ipow__"})


def _shape(shape):
    return "[" + ", ".join(str(int(v)) for v in shape) + "]"


def _inplace(name, method, how):
    """``method`` (an in-place Tensor method) refusing, as torch's vmap, an unbatched ``self``
    written with a batched argument (its values differ per sample: torch has no place for them)."""
    def f(self, *args, **kwargs):
        if _SCOPES and _scope_of(self) is None:
            for v in _tensors(args, kwargs):
                s = _scope_of(v)
                if s is not None and not _from_gradrepl(sys._getframe(1)):
                    if how is _BROADCAST:
                        import numpy as np

                        both = np.broadcast_shapes(tuple(self.shape), tuple(v.shape))
                        batch = tuple(o.size for o in _SCOPES[:_SCOPES.index(s) + 1])
                        raise _refusal(f"output with shape {_shape(self.shape)} doesn't match "
                                       f"the broadcast shape {_shape(batch + both)}")
                    op, fallback = how
                    if fallback is not None and name in _PYTHON_METHODS:
                        from .. import _libsite   # (torch's Python-level method: its line)

                        _libsite.warn_at("torch", "_tensor.py", 39,
                                         "            return f(self, *args, **kwargs)",
                                         FALLBACK_WARNING.format(fallback), UserWarning)
                    elif fallback is not None:
                        import warnings

                        warnings.warn(FALLBACK_WARNING.format(fallback), UserWarning,
                                      stacklevel=2)
                    where = "in a vmap" if fallback is None else f"at level {s.level}"
                    raise _refusal(INPLACE.format(op=op, where=where))
        return method(self, *args, **kwargs)
    f.__name__ = name
    f.__wrapped__ = method
    return f


def batched_text(t):
    """torch's text of a batched tensor printed inside a vmap, ``BatchedTensor(lvl=1, bdim=0,
    value=...)`` (the batch's values, indented by 4), or None where it is not known here: only
    for one vmap level, while its function is traced on sample 0 (``_vmap.trace``): the batch's
    values are the traced ops so far replayed on the batch (``_vmap.replay``); a vmapped input
    prints as given (its own bdim), an op's result with the batch dim first."""
    s = _scope_of(t)
    batch = getattr(s, "batch", None)
    if s is None or len(_SCOPES) != 1 or batch is None:
        return None
    from . import _vmap
    from ._base import raw
    from ._tensor import Tensor

    if not _vmap._ACTIVE:
        return None
    tr = _vmap._ACTIVE[-1]
    ref = tr.src.get(id(raw(t)))
    if ref is None or ref[0] == "const":
        return None
    moved, n, in_dims = batch
    try:
        if ref[0] == "in":
            import numpy as np

            bdim = in_dims[ref[1]] % moved[ref[1]].ndim
            arr = np.moveaxis(moved[ref[1]], 0, bdim)
        else:
            (arr, on), = _vmap.replay(tr.entries, [ref], moved, n, tr.basis)
            if not on:
                return None
            bdim = 0
    except Exception:  # noqa: BLE001  (a batching rule that does not fit: the plain text)
        return None
    inner = Tensor.__dict__["__repr__"]
    inner = getattr(inner, "__wrapped__", inner)(Tensor._wrap(arr, True))
    body = "\n".join("    " + line for line in inner.split("\n"))
    text = f"BatchedTensor(lvl={s.level}, bdim={bdim}, value=\n{body}\n)"
    from .func import _DEPTH

    if _DEPTH[0] == s.depth + 1 and not t.stop_gradient:
        # (inside one grad transform within the vmap, vmap(grad(f)): its wrapper around it)
        body = "\n".join("    " + line for line in text.split("\n"))
        text = f"GradTrackingTensor(lvl={_DEPTH[0]}, value=\n{body}\n)"
    return text


def _printer(method):
    def f(self, *a, **k):
        if _SCOPES:
            text = batched_text(self)
            if text is not None:
                return text
        return method(self, *a, **k)
    f.__name__ = method.__name__
    f.__wrapped__ = method
    return f


def _like(wrapper, method):
    """``wrapper`` prints and reads as ``method`` (its name, qualname and ``_method_repr``'s
    mark: a bound method of a checked tensor prints as torch's)."""
    functools.update_wrapper(wrapper, method)
    return wrapper


def _tensor_checks():
    """{name: wrapper} of the checked tensors' class (``checked_class``)."""
    from ._tensor import Tensor

    own = Tensor.__dict__
    out = {}
    for name, message in READERS.items():
        if name in own:
            out[name] = _reader(name, own[name], message)
    for name in PASSING:
        if name in own and callable(own[name]):
            out[name] = _passing(own[name])
    for name, message in DYNAMIC.items():
        if name in own and callable(own[name]):
            out[name] = _dynamic(own[name], message)
    if "masked_select" in own:
        out["masked_select"] = _masked_select(own["masked_select"])
    if "__getitem__" in own:
        out["__getitem__"] = _getitem(own["__getitem__"])
    for name in ("__repr__", "__str__"):
        if name in own:
            out[name] = _printer(own[name])
    return {name: _like(f, own[name]) for name, f in out.items()}


#: {name: the in-place wrapper put on the Tensor class itself} (``_inplace_on_tensor``)
_INPLACE_ON_TENSOR: dict = {}


def _inplace_on_tensor():
    """The in-place methods' checks (``_inplace``) on the Tensor class itself, put there once,
    at the first vmap of the process (again only for a method replaced since): the tensor
    written is most often one made before the vmap (``z.add_(x)`` of a captured ``z``), a plain
    Tensor, so the checked class alone cannot refuse it as torch does. Outside a vmap each
    wrapper costs one test of ``_SCOPES``; programs that never vmap never get them."""
    from ._tensor import Tensor

    own = Tensor.__dict__
    for name, how in INPLACE_OPS.items():
        method = own.get(name)
        if method is None or not callable(method) or method is _INPLACE_ON_TENSOR.get(name):
            continue
        wrapper = _like(_inplace(name, method, how), method)
        _INPLACE_ON_TENSOR[name] = wrapper
        setattr(Tensor, name, wrapper)


#: [the class, (names, the base methods it wraps)]: made at the first vmap, again if one was
#: replaced since
_CHECKED: list = [None, None]


def checked_class():
    """The class of the tensors a running vmap checks: a subclass of Tensor, named as it is,
    whose readers, printers and in-place methods check, as torch's vmap does (the wrappers
    above). A sample, an op's result with a batched input and a tensor made while a vmap runs
    take it (``mark``, ``propagate``, ``made``). The Tensor class is changed once at most (the
    in-place checks, ``_inplace_on_tensor``: a tensor made before the vmap and written in place
    with a batched value is refused too), never per call, so Python keeps specialising its
    attribute reads (assigning a class attribute invalidates the class's caches, and after
    1,000 changes CPython 3.12+ stops specialising them for the process)."""
    cls, originals = _CHECKED
    if cls is not None:
        own = cls.__base__.__dict__
        if not any(map(operator.is_not, map(own.get, originals[0]), originals[1])):
            return cls
    from ._tensor import Tensor

    _inplace_on_tensor()
    methods = _tensor_checks()
    watched = dict(_INPLACE_ON_TENSOR, **{name: Tensor.__dict__[name] for name in methods})
    originals = (tuple(watched), tuple(watched.values()))
    ns = dict(methods, __slots__=(), __module__=Tensor.__module__,
              __qualname__=Tensor.__qualname__, __doc__=Tensor.__doc__,
              __hash__=Tensor.__dict__.get("__hash__", object.__hash__), _vmap_checked=True)
    cls = type(Tensor.__name__, (Tensor,), ns)
    _CHECKED[:] = [cls, originals]
    return cls


def _checked(t):
    """``t`` takes the checked class (a plain Tensor only: a Parameter or a user's subclass
    keeps its own)."""
    cls = _CHECKED[0]
    if cls is not None and t.__class__ is cls.__base__:
        t.__class__ = cls


def plain(tensors):
    """The tensors a vmap returned, outside every vmap: plain tensors again (``checked_class``)."""
    cls = _CHECKED[0]
    for t in tensors:
        if t.__class__ is cls:
            t.__class__ = cls.__base__


def made(t):
    """A tensor made while a vmap runs (``_tensor._MADE``): checked (an in-place write of a
    batched value into it is refused; a trace watches its reads)."""
    cls = _CHECKED[0]
    if t.__class__ is cls.__base__:
        t.__class__ = cls


#: [the torch module's functions checked while a vmap runs, their wrappers] (made once; made
#: anew where a function was replaced since)
_MODULE_PATCHES: list = [()]
_MADE_BEFORE: list = [None]   # _tensor._MADE's watch before the outermost vmap


def _module_patches(own):
    """(names, originals, wrappers) of the torch module's checked functions."""
    names, originals, wrappers = [], [], []
    for name in PASSING:
        if name in own and callable(own[name]):
            names.append(name), originals.append(own[name]), wrappers.append(_passing(own[name]))
    for name, message in DYNAMIC.items():
        if name in own and callable(own[name]):
            names.append(name), originals.append(own[name])
            wrappers.append(_dynamic(own[name], message))
    if "masked_select" in own:
        names.append("masked_select"), originals.append(own["masked_select"])
        wrappers.append(_masked_select(own["masked_select"]))
    return tuple(names), tuple(originals), tuple(wrappers)


def _put_on():
    """For the outermost running vmap: the checked class made, tensors made from now on take
    it, and the torch module's checked functions on (put back by ``_take_off``: outside a vmap
    the torch module is as it was). A module's attributes, unlike a class's, carry no caches
    that a change invalidates."""
    from . import _tensor
    import gradrepl.torch as torch_module

    checked_class()
    _MADE_BEFORE[0] = _tensor._MADE[0]
    if _tensor._MADE[0] is None:   # (a trace outside a vmap has its own watch: it checks too)
        _tensor._MADE[0] = made
    own = torch_module.__dict__
    names, originals, wrappers = _MODULE_PATCHES[0] or _module_patches(own)
    if any(map(operator.is_not, map(own.get, names), originals)):
        names, originals, wrappers = _module_patches(own)
    _MODULE_PATCHES[0] = (names, originals, wrappers)
    own.update(zip(names, wrappers))


def _take_off():
    from . import _tensor
    import gradrepl.torch as torch_module

    names, originals, _wrappers = _MODULE_PATCHES[0]
    torch_module.__dict__.update(zip(names, originals))
    _tensor._MADE[0], _MADE_BEFORE[0] = _MADE_BEFORE[0], None


class scope:
    """``with scope(depth) as s:`` one running ``vmap`` call: readers checked, ops' outputs
    marked. ``s.depth``: the transforms running when its function is called (a read with more
    running is inside ``grad``/``jacrev`` within the vmap: torch's other message)."""
    __slots__ = ("depth", "hooked", "size", "level", "batch", "runs", "__weakref__")

    def __init__(self, depth, size=0):
        self.depth = depth
        self.hooked = False
        self.size = size          # (the batch size)
        self.level = depth + 1    # (torch's level of this vmap: the transforms around it, + 1)
        self.batch = None         # (the batched inputs, batch dim first; n; their in_dims)
        self.runs = 0             # (the calls of the function so far: the first one prints)

    def __enter__(self):
        if not _SCOPES:
            _put_on()
        _SCOPES.append(self)
        return self

    def loop_hook(self):
        """Marks for the samples loop (when no other hook is on: the trace marks its own)."""
        if not registry.apply_hook_active():
            registry.set_apply_hook(_taint_hook)
            self.hooked = True

    def __exit__(self, *exc):
        if self.hooked:
            registry.set_apply_hook(None)
            self.hooked = False
        _SCOPES.remove(self)
        if not _SCOPES:
            _take_off()
        return False


def taint_hook_on() -> bool:
    cur = registry.set_apply_hook(None)
    registry.set_apply_hook(cur)
    return cur is _taint_hook
