"""In-place operations (``x.add_(1)``, ``x.zero_()``, ``x[0] = 5``) with torch's rules.

- A leaf that requires grad cannot be modified in place while grad mode is on ("a leaf Variable
  that requires grad is being used in an in-place operation."); under ``no_grad`` it can.
- Every in-place write bumps the tensor's version (``x._version``), and the version of the
  tensor it aliases (``detach()``, views). Backward compares the versions of saved tensors.
- When a gradient is involved, the tensor takes a new place in the graph: the op runs on a
  snapshot of the old value (which keeps the old place, so gradients flow on through it) and
  the tensor becomes the op's output (``grad_fn`` is then ``AddBackward0`` ...).
"""
from __future__ import annotations

import weakref

import numpy as np

from ..engine import grad_mode
from ..engine import registry as _registry
from ..engine.ops._util import FP as _FP
from ..engine.ops._util import quiet as _quiet
from . import _dispatch, _dtypes, _storage, _view_meta
from ._base import EngineTensor, raw, set_raw
from ._tensor import Tensor

_STATE = grad_mode.STATE
_wrap = Tensor._wrap

LEAF_MESSAGE = "a leaf Variable that requires grad is being used in an in-place operation."
VIEW_LEAF_MESSAGE = ("a view of a leaf Variable that requires grad is being used in an in-place "
                     "operation.")

_VIEW_OPS = {"ViewBackward0", "ReshapeAliasBackward0", "SelectBackward0", "SliceBackward0",
             "AliasBackward0", "TBackward0", "TransposeBackward0", "PermuteBackward0",
             "UnsqueezeBackward0", "SqueezeBackward0", "SqueezeBackward1", "SqueezeBackward2",
             "ExpandBackward0", "UnbindBackward0", "SplitBackward0", "SplitWithSizesBackward0"}


def check_leaf(x):
    if _STATE.enabled and not x.stop_gradient:
        if x._view_meta is not None or x.grad_node is not None:
            _view_meta.check_inplace(x)   # (a view made under no_grad ...: torch's errors)
        if x.grad_node is None:
            m = x._view_meta   # (a view given requires_grad_(): of a leaf, torch says so)
            raise RuntimeError(VIEW_LEAF_MESSAGE if m is not None and m[1].grad_node is None
                               else LEAF_MESSAGE)
    check_view_of_leaf(x)


def check_operand_grad(x):
    """x needs no gradient but the in-place op's result does (``vx.add_(w)``): a view made
    without grad still refuses."""
    if x._view_meta is not None and _STATE.enabled:
        _view_meta.check_inplace(x)


def check_view_of_leaf(x):
    """An in-place write to a view (``x[0]``, ``x.view(...)``) of a leaf that requires grad."""
    if not _STATE.enabled or x.stop_gradient or x.grad_node is None:
        return
    node = x.grad_node
    while node is not None and getattr(node.op, "torch_name", None) in _VIEW_OPS:
        src = node.inputs[0] if node.inputs is not None else None
        if src is None:
            return
        if src.grad_node is None and not src.stop_gradient:
            raise RuntimeError(VIEW_LEAF_MESSAGE)
        node = src.grad_node


def bump(x):
    x._version += 1
    base = getattr(x, "_alias", None)
    seen = 0
    while base is not None and seen < 8:
        base._version += 1
        base = getattr(base, "_alias", None)
        seen += 1


def _cast_check(x, dt):
    xd = raw(x).dtype
    if dt is None or dt == xd:
        return
    if _dtypes.category(dt) > _dtypes.category(xd):
        raise RuntimeError(f"result type {_dtypes.from_np(dt).legacy} can't be cast to the "
                           f"desired output type {_dtypes.from_np(xd).legacy}")


def write(x, data, overlap_ok=False):
    """``data`` into x's own memory (views of x see it); x's version goes up. An expanded x
    (elements sharing memory) raises torch's error unless ``overlap_ok`` (``fill_``, ``zero_``)."""
    a = raw(x)
    if not overlap_ok and _storage.overlapping(a):
        raise RuntimeError(_storage.OVERLAP_MESSAGE)
    data = np.asarray(data)
    if data.shape != a.shape:
        try:
            data = np.broadcast_to(data, a.shape)
        except ValueError:
            raise RuntimeError(f"output with shape {list(a.shape)} doesn't match the broadcast "
                               f"shape {list(np.broadcast_shapes(a.shape, data.shape))}") \
                from None
    w = _storage.writable(a)
    if w is not None:
        np.copyto(w, data, casting="unsafe")
    else:
        set_raw(x, np.array(data, dtype=a.dtype))
    bump(x)


def write_at(x, index, value):
    a = raw(x)
    w = _storage.writable(a)
    if w is None:
        w = np.array(a)
        set_raw(x, w)
    elif w is not a and all(i is None or i is Ellipsis or isinstance(i, (int, np.integer, slice))
                            for i in (index if isinstance(index, tuple) else (index,))):
        # x is expanded: the elements a basic index writes must not share memory (torch)
        part = a[index]
        if isinstance(part, np.ndarray) and _storage.overlapping(part):
            raise RuntimeError(_storage.OVERLAP_MESSAGE)
    w[index] = value
    bump(x)


def snapshot(x):
    """x's current value as a separate tensor at x's place in the graph."""
    return _wrap(np.array(raw(x)), x.stop_gradient, x.grad_node, x.out_slot)


def take_place(x, r, old, overlap_ok=False):
    """x becomes r (values written into x's memory, r's place in the graph); the node that made
    x before keeps ``old`` as its output, and remembers that x (saved there) moved on."""
    from .autograd._engine import DIRTY_OUTPUTS

    chain = _view_chain(x) if r.grad_node is not None else None
    before = chain[0]._version if chain is not None else 0
    _leave_place(x, old)
    write(x, raw(r), overlap_ok)
    _adopt_place(x, r)
    if chain is not None:
        base = chain[0]
        if base._version == before:   # (torch's view and base share one version counter)
            base._version += 1
        _rebase(base, x, chain[1], before)
    return x


def _leave_place(x, old, version=None):
    """The node that made x keeps ``old`` as its output, and remembers that x moved on (at
    ``version``, x's own by default)."""
    from .autograd._engine import DIRTY_OUTPUTS

    prev = x.grad_node
    if prev is not None and not x.stop_gradient:
        if prev not in DIRTY_OUTPUTS:
            DIRTY_OUTPUTS[prev] = (x, x._version if version is None else version)
        refs = prev.out_refs
        if refs is not None:
            refs = list(refs)
            if x.out_slot < len(refs):
                refs[x.out_slot] = weakref.ref(old)
            prev.out_refs = tuple(refs)


def _view_chain(x):
    """(base, the views between x and base) when torch rebases base after an in-place write
    through x: x made by view ops recorded from a base that requires grad, or a view made in
    grad mode of data needing none (``_view_meta`` DEFAULT); None otherwise (no view, a view
    made under no_grad: refused before, a base that is a leaf: refused before)."""
    node = x.grad_node
    if node is None or x.stop_gradient:
        m = x._view_meta
        return (m[1], ()) if m is not None and m[0] == _view_meta.DEFAULT else None
    if not getattr(node.op, "view_kind", 0):
        return None
    t, between = x, []
    while node is not None and getattr(node.op, "view_kind", 0):
        if t is not x:
            between.append(t)
        t = node.input_tensor(0)
        if t is None or t.stop_gradient:
            return None
        node = t.grad_node
    return (t, between) if t is not x and t.grad_node is not None else None


def _positions(ba, xa):
    """The index into C-ordered ``ba`` of each element of ``xa``, a strided view of its memory
    (None when xa does not lie on ba's elements)."""
    item = ba.itemsize
    start = xa.__array_interface__["data"][0] - ba.__array_interface__["data"][0]
    if xa.dtype != ba.dtype or not xa.size or start % item or \
            any(st % item for st in xa.strides) or not np.shares_memory(ba, xa):
        return None
    flat = np.arange(ba.size, dtype=np.int64)
    positions = np.lib.stride_tricks.as_strided(
        flat[start // item:], shape=xa.shape,
        strides=tuple(st // item * flat.itemsize for st in xa.strides))
    return np.unravel_index(np.array(positions), ba.shape)


def _rebase(base, x, between=(), version=None):
    """torch's rebase after an in-place write through view x: base's place becomes
    ``CopySlices`` of its old place with x's new value at the elements x views, and x's place a
    view of the new base (``AsStridedBackward0``), so gradients reach what wrote x (``b = a * 2;
    b[:2].mul_(3)``: a.grad 6, 6, 2). Values are already in base's memory: nothing is written
    and no version moves. A base whose memory is not C-ordered stays as it was."""
    from ._ops import top

    ba = raw(base)
    if not ba.flags.c_contiguous:
        return
    index = _positions(ba, raw(x))
    if index is None:
        return
    value = snapshot(x)            # x's new value at its place (what wrote it)
    _leave_place(x, value)
    old_base = snapshot(base)
    copy = _apply(top("set_value_with_tensor", "CopySlices", "none"), (old_base, value),
                  {"index": index})
    _leave_place(base, old_base, version)
    _adopt_place(base, copy)
    as_strided = top("index_elementwise_get", "AsStridedBackward0", "none")
    for t in (x, *between):        # (the views between x and base: views of the new base)
        where = index if t is x else _positions(ba, raw(t))
        if where is not None:
            if t is not x:
                _leave_place(t, snapshot(t))
            _adopt_place(t, _apply(as_strided, (base,), {"index": where}))


def _adopt_place(x, r):
    """x takes r's place in the graph (r's node now names x as its output)."""
    node = r.grad_node
    if node is None:
        return x
    refs = list(node.out_refs or ())
    if r.out_slot < len(refs):
        refs[r.out_slot] = weakref.ref(x)
        node.out_refs = tuple(refs)
    if node.out_data is not None:  # the node's saved result is x itself (torch saves the tensor)
        outs = list(node.out_data)
        outs[r.out_slot] = raw(x)
        node.out_data = tuple(outs)
    x.grad_node = node
    x.out_slot = r.out_slot
    x.stop_gradient = False
    return x


def inplace(x, compute, result_dtype=None, overlap_ok=False, plain=False):
    """``x = compute(x)`` in place: ``compute`` gets the tensor standing for x's old value.
    ``plain``: the caller's other operands need no gradient, so that, x needing none either
    and no layer (forward AD, the profiler) or recorder (vmap) watching, nothing is recorded
    and x's old value needs no snapshot (``p.data += -lr * p.grad``)."""
    check_leaf(x)
    if not overlap_ok and _storage.overlapping(raw(x)):
        raise RuntimeError(_storage.OVERLAP_MESSAGE)
    _cast_check(x, result_dtype)
    if not _STATE.enabled or (plain and x.stop_gradient and _registry._HOOK is None
                              and not _dispatch._LAYERS):
        r = compute(x)
        write(x, raw(r), overlap_ok)
        return x
    old = snapshot(x)
    r = compute(old)
    if r.grad_node is None or r.stop_gradient:
        write(x, raw(r), overlap_ok)
        return x
    if x.stop_gradient:
        check_operand_grad(x)
    return take_place(x, r, old, overlap_ok)


_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
_UFUNCS: dict = {}   # the ``_ops`` function -> its numpy ufunc (add, sub, mul: see ``_methods``)


def plain_binary(x, other, fn):
    """``x += other`` (``-=``, ``*=``, ``add_`` ...) for ``fn`` in ``_UFUNCS``, computed into x's
    own memory when nothing is recorded: grad mode off, or x and other needing no gradient, no
    layer or recorder watching; x a writable float32/float64 tensor without expanded dims,
    other a tensor of x's dtype and shape or a Python number (taken in x's dtype, as
    ``_ops.const``). The ufunc writes what ``compute`` then ``write`` would (numpy computes an
    overlapping operand as if copied first); None: the caller takes the general path."""
    uf = _UFUNCS.get(fn)
    if uf is None or _registry._HOOK is not None or _dispatch._LAYERS:
        return None
    a = raw(x)
    if a.dtype not in _FLOATS or not a.flags.writeable or 0 in a.strides or not a.size:
        return None
    t = type(other)
    if t is float or t is int:
        if _STATE.enabled and not x.stop_gradient:
            return None
        b = _const(other, a.dtype)
    elif isinstance(other, EngineTensor):
        if _STATE.enabled and not (x.stop_gradient and other.stop_gradient):
            return None
        b = raw(other)
        if b.dtype != a.dtype or b.shape != a.shape:
            return None
    else:
        return None
    if _FP.on:   # (quiet as the ops' forwards: numpy's warnings off)
        uf(a, b, out=a)
    else:
        with _quiet(**_QUIET):
            uf(a, b, out=a)
    bump(x)
    return x


_QUIET = dict(divide="ignore", invalid="ignore", over="ignore", under="ignore")


def plain_number(x, other, uf):
    """``x * 2.0``, ``0.1 * x``, ``x + 1``, ``x - 0.5`` (``uf``: np.multiply, np.add, np.subtract,
    x first) when nothing is recorded: what ``_binary_prep`` (a number with a float32/float64
    ``Tensor``: ``_ops.const`` of x's dtype) and ``apply`` (the op's numpy forward, quiet, a
    numpy scalar made an array, no node) compute, without their plumbing. With a gradient to
    record, the op itself on ``(x, const)`` as ``_ops.add/sub/mul`` apply it (the same node and
    bits, without ``_operand_ok``, ``_binary_prep`` and ``_out`` between). None: the caller's
    general path (a tensor operand, a subclass, a layer or recorder on)."""
    t = type(other)
    if (t is not float and t is not int) or type(x) is not Tensor or \
            _registry._HOOK is not None or _dispatch._LAYERS:
        return None
    a = raw(x)
    dt = a.dtype
    if dt not in _FLOATS:
        return None
    if _BY_UFUNC is None:
        _learn_ops()
    # the constant's array as _ops.const finds it (its table of numbers not zero by dtype)
    b = _CONST_TABLE.get(dt, _NO_TABLE).get(other) if other else None
    if _STATE.enabled and not x.stop_gradient:
        if b is None:
            c = _CONST(other, dt)
            b = raw(c)
        else:   # (the tensor _ops.const makes of it)
            c = _wrap(b, True)
        if _FP.on and a.flags.c_contiguous:   # (the op's forward, called here: _ops.UFUNC_OF)
            return _apply_pair(_BY_UFUNC[uf], x, c, a, b, uf(a, b))
        return _apply_pair(_BY_UFUNC[uf], x, c, a, b)
    if b is None:
        b = raw(_CONST(other, dt))
    if _FP.on:
        out = uf(a, b)
    else:
        with _quiet(**_QUIET):
            out = uf(a, b)
    if type(out) is not np.ndarray:
        out = np.asarray(out)
    return _wrap(out, True)


def _const(value, dtype):
    """``_ops.const(value, dtype)``'s array (a number not zero from its table, no tensor)."""
    if _BY_UFUNC is None:   # (_ops imports this module; an import in the function costs ~10k
        _learn_ops()        # instructions a call)
    b = _CONST_TABLE.get(dtype, _NO_TABLE).get(value) if value else None
    return raw(_CONST(value, dtype)) if b is None else b


_CONST = None
_CONST_TABLE = None   # _ops._CONST_BY_DTYPE: dtype -> {number not zero: its read-only array}
_NO_TABLE: dict = {}
_BY_UFUNC = None   # np.add/np.subtract/np.multiply -> the torch ops _ops.add/sub/mul apply
_apply = _registry.apply
_apply_pair = _registry.apply_pair


def _learn_ops():
    global _CONST, _CONST_TABLE, _BY_UFUNC
    from . import _ops

    _CONST, _CONST_TABLE = _ops.const, _ops._CONST_BY_DTYPE
    _BY_UFUNC = {uf: op for op, uf in _ops.UFUNC_OF.items()}


def write_out(out, t):
    """An ``out=`` argument: t's values written into ``out``."""
    _storage.check_overlap(raw(out))
    if raw(out).shape != raw(t).shape:
        set_raw(out, np.array(raw(t), dtype=raw(out).dtype))
        bump(out)
        return out
    write(out, raw(t))
    return out


# ------------------------------------------------------------------------------ the methods
def _rt(a, b):
    return _dtypes.result_type(a, b)


def _binary_inplace(fn):
    def method(self, other, *args, **kwargs):
        if not args and not kwargs:
            r = plain_binary(self, other, fn)
            if r is not None:
                return r
        if self._view_meta is not None and isinstance(other, EngineTensor) and \
                not other.stop_gradient:
            check_operand_grad(self)   # (before the op: torch checks first)
        return inplace(self, lambda s: fn(s, other, *args, **kwargs), _rt(self, other))
    return method


def _unary_inplace(fn):
    def method(self, *args, **kwargs):
        return inplace(self, lambda s: fn(s, *args, **kwargs), None)
    return method


def _filled(name, value):
    """``compute`` for zero_/fill_ of a tensor that requires grad: torch's ZeroBackward0 /
    FillBackward0 node, whose gradient for the old value is zeros (the writes before it get
    none: ``b = a * 2; b.zero_()`` gives a.grad 0), as masked_fill of an all-true mask."""
    from ._ops import const, top

    def compute(old):
        a = raw(old)
        mask = _wrap(np.broadcast_to(np.True_, a.shape), True)
        return _apply(top("masked_fill", name, "other", inputs=(0,)),
                      (old, mask, const(value, a.dtype)))
    return compute


def zero_(self):
    check_leaf(self)
    if _STATE.enabled and not self.stop_gradient:
        return inplace(self, _filled("ZeroBackward0", 0), overlap_ok=True)
    write(self, np.zeros((), raw(self).dtype), overlap_ok=True)
    return self


def fill_(self, value):
    check_leaf(self)
    v = raw(value) if isinstance(value, EngineTensor) else value
    if _STATE.enabled and not self.stop_gradient:
        a = raw(self)
        if not isinstance(value, EngineTensor) or value.stop_gradient:
            name = "FillBackward3" if isinstance(value, EngineTensor) else "FillBackward0"
            return inplace(self, _filled(name, np.asarray(v).item()),
                           overlap_ok=True)
        return inplace(self, lambda s: _wrap(np.full(a.shape, v, a.dtype), True),
                       overlap_ok=True)
    write(self, np.asarray(v).astype(raw(self).dtype), overlap_ok=True)
    return self


def copy_(self, src, non_blocking=False):
    from . import _ops

    check_leaf(self)
    if not isinstance(src, EngineTensor):
        src = _wrap(np.asarray(src), True)
    if not _STATE.enabled or (self.stop_gradient and src.stop_gradient):
        write(self, raw(src).astype(raw(self).dtype, copy=False))
        return self
    a = raw(self)

    def compute(old):
        s = src if raw(src).dtype == a.dtype else _ops.to_dtype(src, a.dtype)
        if raw(s).shape != a.shape:
            s = _ops.expand(s, a.shape)
        from ..engine.registry import apply

        return apply(_ops.top("assign", "CopyBackwards", "none"), (s,))

    return inplace(self, compute)


def _scalar(v):
    return raw(v).item() if isinstance(v, EngineTensor) else v


def uniform_(self, a=0.0, b=1.0, generator=None):
    from . import _random

    check_leaf(self)
    arr = raw(self)
    _storage.check_overlap(arr)
    a, b = _scalar(a), _scalar(b)
    write(self, _storage.in_memory_order(arr, _random.uniform((arr.size,), arr.dtype, a, b,
                                                              generator)))
    return self


def normal_(self, mean=0.0, std=1.0, generator=None):
    from . import _random

    check_leaf(self)
    arr = raw(self)
    _storage.check_overlap(arr)
    dense = _storage.dense(arr)
    mean, std = _scalar(mean), _scalar(std)  # (a 0-d tensor mean: fastai's rand_erase)
    write(self, _storage.in_memory_order(arr, _random.normal((arr.size,), arr.dtype, mean, std,
                                                             generator, contiguous=dense)))
    return self


def random_(self, low=None, high=None, generator=None):
    """``random_()``: integers over the dtype's range (torch's draws: ``random64() % 2**63`` for
    int64, ``random() % 2**31`` for int32, ``% (2**24 + 1)`` for float32 ...); ``random_(to)``
    and ``random_(from, to)`` as ``randint``."""
    from . import _random

    check_leaf(self)
    arr = raw(self)
    if low is None and high is None:
        g = _random.DEFAULT if generator is None else generator
        n = arr.size
        dt = arr.dtype
        if dt == np.int64:
            vals = g.random64(n) % np.uint64(1 << 63)
        elif dt == np.float64:
            vals = g.random64(n) % np.uint64((1 << 53) + 1)
        elif dt == np.float32:
            vals = g.random(n) % np.uint64((1 << 24) + 1)
        else:
            bits = {1: 8, 2: 16, 4: 32}[dt.itemsize] - (1 if dt.kind == "i" else 0)
            vals = g.random(n) % np.uint64(1 << bits) if dt.kind != "b" else g.random(n) % 2
        write(self, vals.astype(dt).reshape(arr.shape))
        return self
    if high is None:
        low, high = 0, low
    write(self, _random.randint(int(low), int(high), arr.shape, arr.dtype, generator))
    return self


def bernoulli_(self, p=0.5, generator=None):
    from . import _random

    check_leaf(self)
    arr = raw(self)
    u = _random.uniform_like(arr, generator)  # a transposed self is filled in memory order
    write(self, (u < p).astype(arr.dtype))
    return self


def exponential_(self, lambd=1.0, generator=None):
    from . import _random

    arr = raw(self)
    u = _random.uniform(arr.shape, np.dtype(np.float64), 0.0, 1.0, generator)
    from ._bfloat16 import astype

    write(self, astype(-np.log1p(-u) / lambd, arr.dtype))
    return self


def requires_grad_(self, requires_grad=True):
    return Tensor.requires_grad_(self, requires_grad)


def _shape_inplace(fn):
    """``t_``, ``unsqueeze_`` ...: the tensor takes the new shape (and the op's graph place);
    it stays a view of the same memory, as torch's (``c.expand(3, 4).t_()``: strides (1, 0))."""
    def method(self, *args):
        r = fn(self, *args)
        check_leaf(self)
        old = snapshot(self) if r.grad_node is not None else None
        set_raw(self, raw(r) if np.shares_memory(raw(r), raw(self)) else np.array(raw(r)))
        bump(self)
        if r.grad_node is not None:
            node = r.grad_node
            node.out_refs = (weakref.ref(self),)
            self.grad_node, self.out_slot, self.stop_gradient = node, 0, False
        del old
        return self
    return method
