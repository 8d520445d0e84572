"""Indexing and in-place updates: ``x[i]``, ``x[i] = v``, ``add_``, ``zero_``, ``set_value`` ...

Reading (``__getitem__``) follows numpy's rules, which Paddle shares: ints, slices with steps,
None, Ellipsis, boolean masks, integer lists/tensors (advanced indexing). Out-of-range ints raise
Paddle's ``IndexError`` ("out of bounds"); in Paddle 2.2 (no 0-D tensors) a read that would give
a 0-D tensor gives shape [1].

Writing follows Paddle's in-place rules, measured on Paddle 2.6 and 3.3:

* the result keeps the tensor's identity (``x.add_(y) is x``) and its memory, so views of it
  (slices, reshapes, ``detach()``) see the change;
* with gradients on, the tensor moves to the end of a new backward op whose input is a snapshot
  of its old value (``b.add_(a)`` makes b the output of an ``add`` node);
* a leaf that requires grad may not be changed in place: in-place *methods* first write the data
  and then raise ``ValueError`` ("Leaf Var ... can't use inplace strategy"), ``x[i] = v`` raises
  before writing; under ``no_grad`` both are allowed (optimizer updates).
"""
from __future__ import annotations

import numbers
from weakref import ref as _weakref

import numpy as np

from ...engine import grad_mode
from ...engine.ops import index as I
from ...engine.ops import math as M
from ...engine.ops import shape as S
from ...engine.ops._util import const
from ...engine.tensor import Tensor as _T
from .. import profiles
from .. import saved as _saved
from ..core import Tensor

__all__ = []
__methods__ = ["__getitem__", "__setitem__", "add_", "subtract_", "multiply_", "divide_",
               "scale_", "clip_", "zero_", "fill_", "exp_", "sqrt_", "tanh_", "set_value"]


# ================================================================ index normalisation
def _index_error(value, axis, n):
    return IndexError(
        f"(OutOfRange) The starting index {value} of slice is out of bounds in tensor {axis}-th "
        f"axis, it should be in the range of [{-n}, {n}).")


def _bad_item(item, k):
    name = type(item).__name__
    return ValueError(
        "(InvalidArgument) Currently, Tensor.__indices__() only allows indexing by Boolean, "
        "Integers, Slices, Ellipsis, None, Tuples of these types and List / Tensor of Bool and "
        f"Integers, but received {name} in {k}th slice item")


def _as_int(v):
    if isinstance(v, _T):
        return int(v.data.reshape(-1)[0])
    return None if v is None else int(v)


def _item(item, k):
    """One index item -> int | slice | None | Ellipsis | bool array | int array."""
    if item is None or item is Ellipsis:
        return item
    if isinstance(item, (bool, np.bool_)):
        return np.asarray(item)
    if isinstance(item, numbers.Integral):
        return int(item)
    if isinstance(item, slice):
        return slice(_as_int(item.start), _as_int(item.stop), _as_int(item.step))
    if isinstance(item, _T):
        arr = item.data
    elif isinstance(item, (list, tuple, np.ndarray, range)):
        arr = np.asarray(item)  # Paddle's parse_index turns a range into a list
        if arr.size == 0 and arr.dtype.kind == "f":
            arr = arr.astype(np.int64)
    else:
        raise _bad_item(item, k)
    if arr.dtype == np.bool_:
        return arr
    if arr.dtype.kind not in "iu":
        raise _bad_item(item, k)
    if arr.ndim == 0:
        return int(arr)
    return arr.astype(np.int64, copy=False)


def _check_inverted(sl, n):
    """Paddle 2.x refuses a slice whose end comes before its start (3.x gives an empty tensor)."""
    if not profiles.current().inverted_slice_error:
        return
    start, stop, step = sl.indices(n)
    if step == 1 and stop < start:
        raise ValueError(f"(InvalidArgument) When step > 0, end should be greater than start, "
                         f"but received end = {stop}, start = {start}.\n  [Hint: Expected end >= "
                         f"start, but received end:{stop} < start:{start}.] (at "
                         f"/paddle/paddle/phi/kernels/funcs/slice_utils.h:78)\n")
    if step != 1 and (stop - start) * step < 0:
        raise ValueError("(InvalidArgument) The start index and end index are invalid for their "
                         "corresponding stride.\n  [Hint: Expected neg_dim_condition == false, but "
                         "received neg_dim_condition:1 != false:0.] (at "
                         "/paddle/paddle/phi/kernels/funcs/strided_slice.h:100)\n")


def _consumed(it):
    if it is None or it is Ellipsis:
        return 0
    if isinstance(it, np.ndarray) and it.dtype == np.bool_:
        return it.ndim  # a python bool (0-D) adds an axis, like None
    return 1


def normalize_index(index, shape):
    """Paddle's index -> (numpy index tuple, mask) with ints made non-negative and checked.

    Boolean masks become their ``nonzero()`` int arrays; ``mask`` is the boolean array when the
    whole index is one mask of x's shape (Paddle reads that with masked_select), else None.
    """
    items = index if isinstance(index, tuple) else (index,)
    items = [_item(it, k) for k, it in enumerate(items)]
    ndim = len(shape)
    used = sum(_consumed(it) for it in items)
    n_ell = sum(1 for it in items if it is Ellipsis)
    if n_ell > 1:
        raise IndexError("(OutOfRange) An index can only have a single ellipsis ('...')")
    out = []
    axis = 0
    mask = None
    for it in items:
        if it is Ellipsis:
            axis += max(ndim - used, 0)
            out.append(it)
            continue
        if it is None:
            out.append(None)
            continue
        if isinstance(it, np.ndarray) and it.dtype == np.bool_:
            span = it.ndim
            want = tuple(shape[axis:axis + span])
            if it.ndim and it.shape != want:
                raise IndexError(
                    f"(OutOfRange) The shape of boolean index {list(it.shape)} did not match the "
                    f"shape of the indexed tensor {list(shape)} at axis {axis}; it is out of bounds")
            if len(items) == 1 and it.shape == tuple(shape) and ndim:
                mask = it
            out.extend(np.nonzero(it) if it.ndim else (it,))
            axis += span
            continue
        n = shape[axis] if axis < ndim else 0
        if isinstance(it, int):
            if axis >= ndim:
                raise IndexError(
                    f"(OutOfRange) The starting index {it} of slice is out of bounds in tensor "
                    f"{axis}-th axis, it should be in the range of [0, 0).")
            if not -n <= it < n:
                raise _index_error(it, axis, n)
            out.append(it % n)
        elif isinstance(it, slice):
            if axis >= ndim:
                raise IndexError(f"(OutOfRange) Too many indices for a tensor of rank {ndim}: "
                                 f"the index of axis {axis} is out of bounds")
            if it.step == 0:
                raise ValueError("(InvalidArgument) The step of a slice must not be 0")
            _check_inverted(it, n)
            out.append(it)
        else:  # integer array
            if axis >= ndim:
                raise IndexError(f"(OutOfRange) Too many indices for a tensor of rank {ndim}: "
                                 f"the index of axis {axis} is out of bounds")
            if it.size and (it.max() >= n or it.min() < -n):
                bad = int(it[(it >= n) | (it < -n)].reshape(-1)[0])
                raise ValueError(f"(InvalidArgument) Input(index[-1)] has wrong value, it is "
                                 f"[{bad}] (the size of axis {axis} is {n})")
            out.append(np.where(it < 0, it + n, it))
        axis += 1
    return tuple(out), mask


def _keep_1d(index):
    """Paddle 2.2 has no 0-D results: read the last int as a length-1 slice instead."""
    if profiles.current().zero_d:
        return index
    if not all(isinstance(i, int) or i is Ellipsis for i in index):
        return index
    ints = [k for k, i in enumerate(index) if isinstance(i, int)]
    if not ints:
        return index
    k = ints[-1]
    return index[:k] + (slice(index[k], index[k] + 1),) + index[k + 1:]


def _reads_everything(index, ndim):
    return sum(isinstance(i, int) for i in index) == ndim and Ellipsis not in index


# ================================================================ x[index]
def __getitem__(self, index):
    """``x[index]``: one slice / strided_slice / index / masked_select op, with its gradient."""
    idx, mask = normalize_index(index, self.data.shape)
    if mask is not None:
        return I.masked_select(self, Tensor(mask))
    _row_mask_warning(index, self.data.ndim)
    if _reads_everything(idx, self.data.ndim):
        idx = _keep_1d(idx)
    out = I.getitem(self, idx)
    if _saved.basic_index(index):  # a view of self in Paddle: one inplace version
        _saved.share(out, self)
    return out


_ROW_MASK_WARNED = [False]


def _row_mask_warning(index, ndim):
    """Paddle 3.3.1's glog warning, once a process, when one boolean mask of fewer dimensions
    than x indexes it (x[rows_mask]; measured: x of 2-4 dims, masks of 1-2 dims, numpy or Tensor
    masks; not a tuple index, not 2.6.2)."""
    if _ROW_MASK_WARNED[0] or not profiles.current().api3:
        return
    arr = index.data if isinstance(index, Tensor) else index
    if not (isinstance(arr, np.ndarray) and arr.dtype == np.bool_ and 0 < arr.ndim < ndim):
        return
    from .. import glog

    _ROW_MASK_WARNED[0] = True
    glog.log("W", "tensor.cc:111",
             "The function of resetting the shape of the uninitialized Tensor of the `reshape` "
             "method is deprecated since version 2.3, and will be removed in version 2.4, please "
             "use `paddle::empty/full` method to create a new Tensor instead. reason: `reshape` "
             "means changing the tensor shape without touching underlying data, this requires "
             "the total size of the tensor to remain constant.")


# ================================================================ in-place machinery
# the line of eager/utils.cc that raises it, per Paddle version (2.2's legacy dygraph: no hint)
_LEAF_HINT_LINE = {"2.6.2": 233, "3.3.1": 277}


def _leaf_error(x, kind="Var"):
    text = (f"(InvalidArgument) Leaf {kind} ({x.name}) that doesn't stop gradient "
            "can't use inplace strategy.")
    line = _LEAF_HINT_LINE.get(profiles.current().version)
    if line is not None and kind == "Var":
        text += ("\n  [Hint: Expected !autograd_meta->StopGradient() && IsLeafTensor(target) == "
                 "false, but received !autograd_meta->StopGradient() && IsLeafTensor(target):1 "
                 f"!= false:0.] (at /paddle/paddle/fluid/eager/utils.cc:{line})\n")
    return ValueError(text)


def _is_grad_leaf(x):
    return grad_mode.STATE.enabled and x.grad_node is None and not x.stop_gradient


def _snapshot(x):
    """The value ``x`` had before an in-place op, as a separate tensor at x's place in the graph."""
    return type(x)._result_type._wrap(np.array(x.data), x.stop_gradient, x.grad_node, x.out_slot)


def _write(x, data, bump=True):
    """Store ``data`` in x's own memory (so views see it), or rebind when that is impossible.
    Every in-place op bumps x's ``inplace_version``; ``set_value`` does not (as in Paddle)."""
    if bump:
        x.bump_version()
    data = np.asarray(data)
    if data.dtype != x.data.dtype:
        data = data.astype(x.data.dtype)
    if data.shape == x.data.shape and x.data.flags.writeable:
        if data is not x.data:
            np.copyto(x.data, data)
    else:
        x.data = np.array(data)


def _detach_saved_output(x):
    """The op that produced x keeps x's old values (its VJP may read them) before x changes."""
    node = x.grad_node
    if node is None or node.out_data is None:
        return
    outs = list(node.out_data)
    k = x.out_slot
    if k < len(outs) and outs[k] is x.data:
        outs[k] = np.array(x.data)
        node.out_data = tuple(outs)


def take_place(x, r, snapshot=None):
    """Make ``x`` hold ``r``: r's values in x's memory, and r's place in the graph if r has one.

    ``snapshot`` (the tensor that stands for x's old value in the new node) takes over x's entry
    in the old node's outputs, so hooks and retained gradients of x follow the new value.
    """
    _detach_saved_output(x)
    _write(x, r.data)
    if r.grad_node is None:
        return x
    _move_graph_place(x, r, snapshot)
    return x


def _move_graph_place(x, r, snapshot):
    """x becomes the output of r's node; the snapshot stands for x in x's old node."""
    node = r.grad_node
    old_node, old_slot = x.grad_node, x.out_slot
    if snapshot is not None and old_node is not None and old_node.out_refs is not None:
        refs = list(old_node.out_refs)
        refs[old_slot] = _weakref(snapshot)
        old_node.out_refs = tuple(refs)
    if node.out_refs is not None:
        refs = list(node.out_refs)
        refs[r.out_slot] = _weakref(x)
        node.out_refs = tuple(refs)
    x.grad_node = node
    x.out_slot = r.out_slot
    x.stop_gradient = False


def _shape_error(out_shape, x):
    return ValueError(f"The shape of broadcast output {list(out_shape)} is different from that of "
                      f"inplace tensor {x.shape} in the Inplace operation.")


def inplace(x, compute, retype=False):
    """Run ``compute(value_of_x) -> Tensor`` and store the result in ``x`` (Paddle's ``op_``).
    ``retype``: a float result of another float dtype becomes x's dtype (3.x's binary ``op_``
    with type promotion) in new memory, as Paddle reallocates x: views keep the old values."""
    if _is_grad_leaf(x):
        with grad_mode.no_grad():
            r = compute(x)
        if r.data.shape != x.data.shape:
            raise _shape_error(r.data.shape, x)
        _write(x, r.data)
        raise _leaf_error(x)
    recording = grad_mode.STATE.enabled
    src = _snapshot(x) if recording else x  # the new node must not see x's new values
    r = compute(src)
    if r.data.shape != x.data.shape:
        raise _shape_error(r.data.shape, x)
    if retype and r.data.dtype != x.data.dtype and _floats(r.data.dtype, x.data.dtype):
        _detach_saved_output(x)
        x.data = np.array(x.data, dtype=r.data.dtype)
    if r.data.dtype != x.data.dtype and r.grad_node is not None and x.data.dtype.kind in "fc":
        r = M.cast(r, x.data.dtype)
    if r.grad_node is None:
        _detach_saved_output(x)
        _write(x, r.data)
        return x
    return take_place(x, r, src)


def inplace_view(x, compute):
    """``reshape_``, ``squeeze_``, ``unsqueeze_``: x takes the new shape over the same memory."""
    leaf_error = _is_grad_leaf(x)
    recording = grad_mode.STATE.enabled and not leaf_error
    src = type(x)._result_type._wrap(x.data, x.stop_gradient, x.grad_node, x.out_slot) \
        if recording else x
    with grad_mode.set_grad_enabled(recording):
        r = compute(src)
    x.data = np.reshape(x.data, r.data.shape)
    if leaf_error:
        raise _leaf_error(x)
    if r.grad_node is not None:
        node = r.grad_node
        node.out_data = (np.array(r.data),) + tuple(node.out_data[1:])
        _move_graph_place(x, r, src)
    return x


def _inplace_method(name, fn, doc):
    def method(self, *args, **kwargs):
        return inplace(self, lambda v: fn(v, *args, **kwargs))

    method.__name__ = name
    method.__doc__ = doc
    return method


def _math():
    from . import math as pm

    return pm


def _floats(*dtypes):
    return all(np.dtype(d).kind == "f" or np.dtype(d) == np.uint16 for d in dtypes)


def _inplace_float(x, y):
    """The wider float dtype x takes in ``x.op_(y)`` (3.x), or None where x keeps its own."""
    from .. import promotion

    xd, yd = x.data.dtype, getattr(getattr(y, "data", None), "dtype", None)
    if yd is None or xd == yd or not _floats(xd, yd):
        return None
    wide = promotion._wider_float(xd, yd)
    return None if wide == xd else wide


def _binary_inplace(name, fn, doc):
    """``x.add_(y)`` and its kin: y must be a Tensor (a Python number fails on ``y.shape`` in
    Paddle's Python wrapper: AttributeError, real 3.3.1 and 2.6.2); under 3.x a float y of
    another width gives x the promoted dtype (real 3.3.1: float32.add_(float64) is float64,
    float16.multiply_(float32) float32; 2.6.2 reads the other dtype's memory as x's, garbage
    that is not emulated: its dtype error stays)."""
    op = name

    def method(self, y, name=None):
        if isinstance(y, (numbers.Number, np.generic)) and not isinstance(y, _T):
            raise AttributeError(f"'{type(y).__name__}' object has no attribute 'shape'")
        if not profiles.current().api3:
            return inplace(self, lambda v: fn(v, y))
        wide = _inplace_float(self, y)
        if isinstance(y, _T) and y.data.dtype != self.data.dtype and _floats(y.data.dtype,
                                                                              self.data.dtype):
            from .. import glog

            glog.promoted(op)
        # (the in-place op promotes a 0-D y too: float32.add_(0-D float64) is float64 in 3.3.1,
        # where float32 + 0-D float64 stays float32)
        return inplace(self, lambda v: fn(v if wide is None else M.cast(v, wide), y),
                       retype=True)

    method.__name__ = name
    method.__doc__ = doc
    return method


add_ = _binary_inplace("add_", lambda v, y: _math().add(v, y), "x.add_(y): x = x + y in place.")
subtract_ = _binary_inplace("subtract_", lambda v, y: _math().subtract(v, y),
                            "x.subtract_(y): x = x - y in place.")
multiply_ = _binary_inplace("multiply_", lambda v, y: _math().multiply(v, y),
                            "x.multiply_(y): x = x * y in place.")
divide_ = _binary_inplace("divide_", lambda v, y: _math().divide(v, y),
                          "x.divide_(y): x = x / y in place.")
exp_ = _inplace_method("exp_", lambda v, name=None: _math().exp(v), "x.exp_(): in place.")
sqrt_ = _inplace_method("sqrt_", lambda v, name=None: _math().sqrt(v), "x.sqrt_(): in place.")
tanh_ = _inplace_method("tanh_", lambda v, name=None: _math().tanh(v), "x.tanh_(): in place.")


def _scale(v, scale=1.0, bias=0.0, bias_after_scale=True, act=None, name=None):
    return _math().scale(v, scale, bias, bias_after_scale)


scale_ = _inplace_method("scale_", _scale, "x.scale_(scale, bias): x = x * scale + bias in place.")


def _clip(v, min=None, max=None, name=None):  # noqa: A002 - Paddle's argument names
    pm = _math()
    if hasattr(pm, "clip"):
        return pm.clip(v, min, max)
    out = v
    if min is not None:
        out = M.maximum(out, const(out, float(min) if not isinstance(min, _T) else min.data))
    if max is not None:
        out = M.minimum(out, const(out, float(max) if not isinstance(max, _T) else max.data))
    return out


clip_ = _inplace_method("clip_", _clip, "x.clip_(min, max): in place.")


def _filled(v, value):
    return I.set_value(v, (Ellipsis,), np.asarray(value, v.data.dtype))


def fill_(self, value):
    """Every element set to ``value``; the gradient through it is zero."""
    if isinstance(value, _T):
        value = value.item()
    return inplace(self, lambda v: _filled(v, value))


def zero_(self):
    return inplace(self, lambda v: _filled(v, 0))


# ================================================================ x[index] = value
def _value_array(value, dtype):
    """A non-tensor value of ``x[i] = value``: numpy arrays and python/numpy scalars only."""
    if not isinstance(value, (np.ndarray, numbers.Number, np.generic)):
        raise ValueError(
            "(InvalidArgument) Value type error. The assign value allows Tensor, numpy.ndarray, "
            f"integer, float, complex or bool, but received {hex(id(value))}.")
    return np.asarray(value, dtype=dtype)


def _assign_shape_error(value_shape, target_shape):
    return ValueError(
        f"(InvalidArgument) The shape of tensor assigned value must match the shape of target "
        f"shape: {list(value_shape)}, but now shape is {list(target_shape)}.")


def _assignable_shape(vshape, target):
    """The value's shape without surplus leading 1s; it must then broadcast to the target."""
    vs = list(vshape)
    while len(vs) > len(target) and vs[0] == 1:
        vs.pop(0)
    try:
        if np.broadcast_shapes(tuple(vs), tuple(target)) != tuple(target):
            raise ValueError
    except ValueError:
        raise _assign_shape_error(vshape, target) from None
    return tuple(vs)


def __setitem__(self, index, value):
    """``x[index] = value`` in place; gradients flow to x's other elements and to the value."""
    if _is_grad_leaf(self):
        raise _leaf_error(self, "Tensor")
    idx, _mask = normalize_index(index, self.data.shape)
    target = self.data[idx].shape
    dt = self.data.dtype
    if isinstance(value, _T):
        v = value
        if v.data.dtype != dt:
            v = M.cast(v, dt) if dt.kind in "fc" and v.data.dtype.kind in "fc" else \
                Tensor(v.data.astype(dt))
        vshape = v.data.shape
    else:
        v = _value_array(value, dt)
        vshape = v.shape
    vshape = _assignable_shape(vshape, target)
    if isinstance(v, _T) and v.data.shape != vshape:
        v = S.reshape(v, vshape)
    elif not isinstance(v, _T):
        v = v.reshape(vshape)
    recording = grad_mode.STATE.enabled and (
        not self.stop_gradient or (isinstance(v, _T) and not v.stop_gradient))
    if not recording:
        _detach_saved_output(self)
        if not self.data.flags.writeable:
            self.data = np.array(self.data)
        self.data[idx] = v.data if isinstance(v, _T) else v
        self.bump_version()
        return
    src = _snapshot(self)
    if isinstance(v, _T):
        r = I.set_value_with_tensor(src, v, idx)
    else:
        r = I.set_value(src, idx, v)
    take_place(self, r, src)


# ================================================================ set_value
def set_value(self, value):
    """Replace the values (same shape and dtype) without touching the graph."""
    arr = value.data if isinstance(value, _T) else np.asarray(value)
    if list(arr.shape) != list(self.data.shape):
        raise AssertionError(
            f"Variable Shape not match, Variable [ {self.name} ] need tensor with shape "
            f"{self.shape} but load set tensor with shape {tuple(arr.shape)}")
    if arr.dtype != self.data.dtype:
        from .. import dtypes

        raise AssertionError(
            f"Variable dtype not match, Variable [ {self.name} ] need tensor with dtype "
            f"{dtypes.from_np(self.data.dtype)}  but load tensor with dtype "
            f"{dtypes.from_np(arr.dtype)}")
    # (no bump and no copy kept for the graph: a node that saved self reads the new values
    # in its backward, as Paddle's TensorWrapper shares the memory; measured on 3.3.1 and 2.6.2)
    _write(self, arr, bump=False)
