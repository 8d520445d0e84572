"""torch's ``meta`` device: tensors with a shape and a dtype and no data ("Reasoning about
Shapes in PyTorch": a model run on meta inputs to see every layer's output shape).

A meta tensor's array is one element of its dtype seen under every index (all strides 0), so
it costs nothing at any size; views of it stay meta by themselves. From the first meta tensor
on, an engine apply hook turns every op with a meta input into a meta result: the op runs as
usual (recording its backward node, so ``grad_fn=<ConvolutionBackward0>`` shows) on those
arrays when that is cheap, or, for ops in ``SHAPES``, on no data at all (a convolution of a
(1024, 3, 65536, 65536) meta input). Nothing draws random numbers for a meta tensor: factory
functions and ``nn.init`` leave the generator where it was, as in torch.

The hook is on only while some meta array is alive: every meta array (and every view of one)
holds its dtype's element, which ``_SENTINELS`` keeps by weak reference; when the last element
goes, the hook is taken off again, so the engine's paths for a hook-free apply (the in-place and
one-input fast paths) come back after a script or test that used meta tensors.
"""
from __future__ import annotations

import functools
import weakref

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..engine import registry
from ._base import EngineTensor, _DefaultDevice, device, raw, set_raw

META = device("meta")
_SENTINELS: dict = {}  # numpy dtype -> weakref to the one element its meta arrays show
_IDS: set = set()  # ids of the elements alive
_PREV = [None]  # the apply hook that was on when meta's went on (chained)
_ON = [False]


def meta_array(shape, dtype) -> np.ndarray:
    """An array of ``shape`` with no data (writable: an in-place op writes the one element)."""
    dt = np.dtype(dtype)
    ref = _SENTINELS.get(dt)
    s = None if ref is None else ref()
    if s is None:
        s = np.zeros((), dt)
        _SENTINELS[dt] = weakref.ref(s, _gone(dt, id(s)))
        _IDS.add(id(s))
        _activate()
    shape = tuple(int(n) for n in shape)
    return as_strided(s, shape, (0,) * len(shape), writeable=True)


def is_meta_array(a) -> bool:
    if not _IDS:
        return False
    b = a.base
    while b is not None:
        if id(b) in _IDS:
            return True
        b = getattr(b, "base", None)
    return False


def is_meta(t) -> bool:
    return isinstance(t, EngineTensor) and is_meta_array(raw(t))


def to_meta(t):
    """The tensor made meta in place (its array replaced; shape, dtype, graph kept)."""
    a = raw(t)
    set_raw(t, meta_array(a.shape, a.dtype))
    return t


def wants_meta(dev=None) -> bool:
    """Whether a factory call with ``device=dev`` makes a meta tensor."""
    d = dev if dev is not None else _DefaultDevice.device
    if d is None:
        return False
    if isinstance(d, device):
        return d.type == "meta"
    return str(d).split(":")[0] == "meta"


# ----------------------------------------------------------------------------- ops
def _conv_shape(arrays, attrs):
    """A convolution's output shape (padding as (before, after) pairs per spatial dim, the
    dialect's attrs); None (run it) for a transposed one."""
    if attrs.get("transposed"):
        return None
    x, w = arrays[0], arrays[1]
    n = x.ndim - 2
    stride, dilation = tuple(attrs["stride"])[-n:], tuple(attrs["dilation"])[-n:]
    pads = tuple(attrs["padding"])[-2 * n:]
    spatial = tuple((x.shape[2 + i] + pads[2 * i] + pads[2 * i + 1]
                     - dilation[i] * (w.shape[2 + i] - 1) - 1) // stride[i] + 1
                    for i in range(n))
    return (x.shape[0], w.shape[0]) + spatial


#: op name -> output shape from the input arrays and attrs, for ops too costly to run on a
#: large meta input (the others run on the meta arrays: their result's shape is the answer)
SHAPES: dict = {"conv2d": _conv_shape, "conv3d": _conv_shape}


def _hook(op, inputs, attrs):
    for x in inputs:
        if isinstance(x, EngineTensor) and is_meta_array(raw(x)):
            break
    else:
        prev = _PREV[0]
        return NotImplemented if prev is None else prev(op, inputs, attrs)
    shape_of = SHAPES.get(op.name)
    with registry.apply_hook(None), np.errstate(all="ignore"):
        shape = None
        if shape_of is not None and op.n_outputs == 1:
            shape = shape_of([raw(x) for x in inputs], attrs)
        if shape is not None:
            out_dtype = np.result_type(*[raw(x).dtype for x in inputs[:2]])
            real_forward = op.forward

            def no_data(*arrays, **kw):
                return meta_array(shape, out_dtype)

            op.forward = no_data
            try:
                out = registry.apply(op, inputs, attrs)
            finally:
                op.forward = real_forward
        else:
            out = registry.apply(op, inputs, attrs)
    for o in (out if isinstance(out, tuple) else (out,)):
        if isinstance(o, EngineTensor) and not is_meta_array(raw(o)):
            to_meta(o)
    return out


def _gone(dt, ident):
    """The weakref callback of dtype ``dt``'s element ``ident``: forget it; the last one takes
    the hook off."""

    def gone(ref):
        try:
            _IDS.discard(ident)
            if _SENTINELS.get(dt) is ref:
                del _SENTINELS[dt]
            if not _IDS:
                _deactivate()
        except (AttributeError, TypeError):  # (at interpreter exit, module globals may be None:
            pass                             # no 'Exception ignored' line on a script's stderr)

    return gone


def _activate():
    if _ON[0]:
        return
    _ON[0] = True
    cur = registry.set_apply_hook(_hook)
    if cur is not _hook:  # (put back by a block that began while it was on: already chained)
        _PREV[0] = cur


def _deactivate():
    """The hook off, the one before it back, when the hook on is meta's; under another hook
    (vmap's trace, a saved-tensor hook, static mode) it stays chained and passes ops on."""
    cur = registry.set_apply_hook(None)
    if cur is _hook:
        registry.set_apply_hook(_PREV[0])
        _PREV[0] = None
        _ON[0] = False
    else:
        registry.set_apply_hook(cur)


def only_meta_hook() -> bool:
    """Whether the apply hook on is meta's alone (vmap's trace may then stand in for it)."""
    cur = registry.set_apply_hook(None)
    registry.set_apply_hook(cur)
    return cur is _hook and _PREV[0] is None


def register_shape(name, fn):
    SHAPES[name] = fn


# ----------------------------------------------------------------------------- factories
def factory(fn, shaped=False, like=False, draws=False):
    """``fn`` (a torch factory) that makes a meta tensor for ``device='meta'`` (or the default
    device meta): from its size alone when ``shaped`` (zeros, rand ...), from its input's shape
    when ``like`` and the input is meta, else by ``fn`` itself with the generator put back when
    it ``draws``."""

    @functools.wraps(fn)
    def make(*args, **kwargs):
        dev = kwargs.get("device")
        if like and args and is_meta(args[0]) and dev is None:
            a = raw(args[0])
            dt = kwargs.get("dtype")
            return _finish(meta_array(a.shape, a.dtype if dt is None else _np_dtype(dt)),
                           kwargs.get("requires_grad", False))
        if not _IDS and dev is None and _DefaultDevice.device is None:
            return fn(*args, **kwargs)
        if not wants_meta(dev):
            return fn(*args, **kwargs)
        kwargs.pop("device", None)
        if shaped:
            from ._creation import _dt, _size

            return _finish(meta_array(_size(args if args else (kwargs.pop("size", ()),)),
                                      _dt(kwargs.get("dtype"))),
                           kwargs.get("requires_grad", False))
        if draws:
            from . import _random

            state = _random.get_rng_state()
            try:
                out = fn(*args, **kwargs)
            finally:
                _random.set_rng_state(state)
        else:
            out = fn(*args, **kwargs)
        return to_meta(out)

    return make


def _np_dtype(dt):
    from . import _dtypes

    return _dtypes.to_np(dt)


def _finish(arr, requires_grad):
    from ._creation import _finish as fin

    return fin(arr, requires_grad)


def guard_init(fn):
    """An ``nn.init`` function that leaves a meta tensor as it is (no draw)."""

    @functools.wraps(fn)
    def init(tensor, *args, **kwargs):
        if is_meta(tensor):
            return tensor
        return fn(tensor, *args, **kwargs)

    return init


#: Tensor methods that make a new array without an engine op: meta in, meta out
METHODS = ("to", "type", "float", "double", "half", "bfloat16", "int", "long", "bool", "clone",
           "contiguous", "cpu", "new_zeros", "new_ones", "new_empty", "new_full", "new_tensor")


def install_methods(cls):
    """Wrap ``METHODS`` of the tensor class: a meta tensor's result is meta."""
    for name in METHODS:
        fn = cls.__dict__.get(name)
        if fn is None or getattr(fn, "_meta_aware", False):
            continue

        def make(fn):
            @functools.wraps(fn)
            def method(self, *args, **kwargs):
                out = fn(self, *args, **kwargs)
                if _IDS and isinstance(out, EngineTensor) and is_meta_array(raw(self)) \
                        and not is_meta_array(raw(out)):
                    to_meta(out)
                return out
            method._meta_aware = True
            return method

        setattr(cls, name, make(fn))
