"""The Tensor methods and operators that are functions of ``_ops`` (bound once, at import)."""
from __future__ import annotations

import numpy as np

from ..engine import registry as _registry
from ..engine.ops._util import FP as _FP
from . import _creation, _dispatch, _dtypes, _indexing, _inplace, _ops
from ._base import EngineTensor, raw
from ._tensor import Tensor, _dim

_wrap = Tensor._wrap


_NUMBER_UFUNCS = {_ops.add: _ops.UFUNC_OF[_ops.ADD], _ops.sub: _ops.UFUNC_OF[_ops.SUB],
                  _ops.mul: _ops.UFUNC_OF[_ops.MUL]}


def _rop(fn):
    """An operator method calling ``fn(self, other)`` (a Python number with nothing recorded
    through ``_inplace.plain_number``); also the reflected ones: ``2 - x`` is ``rsub(x, 2)``."""
    uf = _NUMBER_UFUNCS.get(fn)   # (0.1 * x: x * 0.1 without the op plumbing, see _op)

    def method(self, other):
        if uf is not None:
            r = _inplace.plain_number(self, other, uf)
            if r is not None:
                return r
        if not _operand_ok(other):
            return NotImplemented
        return fn(self, other)
    return method


def _number(x, o):
    """The left operand of a reflected operator as a tensor of the promoted dtype."""
    return o if isinstance(o, EngineTensor) else _ops.const(o, _dtypes.result_type(x, o))


#: the operators whose tensor-with-tensor case is one registry op on the two tensors when they
#: have one float dtype (what ``_ops.add``/``sub``/``mul``/``div`` do then: ``_binary_prep``'s
#: dtype is theirs, ``_operand`` keeps both, only the broadcast check remains)
_TENSOR_OPS = {fn: op for fn, op in ((_ops.add, _ops.ADD), (_ops.sub, _ops.SUB),
                                       (_ops.mul, _ops.MUL), (_ops.div, _ops.DIV))
               if op.n_outputs == 1 and op.vjp is not None and op.diff_inputs is None}
_SLOT_CLASS = _registry._SLOT_CLASS
_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
_apply_pair = _registry.apply_pair


def _op(fn):
    uf = _NUMBER_UFUNCS.get(fn)   # (x * 2.0 with nothing recorded: _inplace.plain_number)
    op = _TENSOR_OPS.get(fn)
    if op is not None:
        return _tensor_op(fn, op, uf)
    return _rop(fn)   # (the same method: a number through plain_number, else fn)


def _tensor_op(fn, op, uf):
    """``x + y``, ``x - y``, ``x * y``, ``x / y``: two tensors of one float dtype (float32 or
    float64) straight to ``apply(op, (x, y))`` (the broadcast checked first when the shapes
    differ), a Python number through ``_inplace.plain_number``, anything else ``fn``."""
    check = _ops._check_broadcast

    def method(self, other):
        if isinstance(other, Tensor) and _SLOT_CLASS.get(type(other)) and \
                _SLOT_CLASS.get(type(self)):   # (classes whose .data is the engine's slot)
            a = raw(self)
            ad = a.dtype
            b = raw(other)
            if (ad is _F32 or ad is _F64) and b.dtype is ad and \
                    _registry._HOOK is None and not _dispatch._LAYERS:
                if a.shape != b.shape:
                    check(self, other)
                if uf is not None and _FP.on and a.flags.c_contiguous:   # (_ops.UFUNC_OF)
                    return _apply_pair(op, self, other, a, b, uf(a, b))
                return _apply_pair(op, self, other, a, b)
            return fn(self, other)
        if uf is not None:
            r = _inplace.plain_number(self, other, uf)
            if r is not None:
                return r
        if not _operand_ok(other):
            return NotImplemented
        return fn(self, other)
    return method


def _operand_ok(v):
    return isinstance(v, (EngineTensor, int, float, bool, complex, np.number, np.bool_,
                          np.ndarray))


def _i(fn, dtype_check=True):
    """An augmented assignment (``x += 1``): in place, as torch's ``__iadd__``."""
    def method(self, other):
        r = _inplace.plain_binary(self, other, fn)   # (None unless add/sub/mul, nothing recorded)
        if r is not None:
            return r
        if not _operand_ok(other):
            return NotImplemented
        return _inplace.inplace(self, lambda s: fn(s, other),
                                _dtypes.result_type(self, other) if dtype_check else None,
                                plain=not isinstance(other, EngineTensor) or other.stop_gradient)
    return method


def _truediv_i(self, other):
    rt = _dtypes.result_type(self, other)
    if rt.kind in "iub":
        rt = _dtypes.default_float()
    return _inplace.inplace(self, lambda s: _ops.div(s, other), rt)


_inplace._UFUNCS.update({_ops.add: np.add, _ops.sub: np.subtract, _ops.mul: np.multiply})

OPERATORS = {
    "__add__": _op(_ops.add), "__radd__": _rop(_ops.add),
    "__sub__": _op(_ops.sub), "__rsub__": _rop(_ops.rsub),
    "__mul__": _op(_ops.mul), "__rmul__": _rop(_ops.mul),
    "__truediv__": _op(_ops.div), "__rtruediv__": _rop(_ops.rdiv),
    "__floordiv__": _op(_ops.floor_divide),
    "__rfloordiv__": _rop(lambda x, o: _ops.floor_divide(_number(x, o), x)),
    "__mod__": _op(_ops.remainder),
    "__rmod__": _rop(lambda x, o: _ops.remainder(_ops.const(o, _dtypes.result_type(x, o)), x)),
    "__pow__": _op(_ops.pow), "__rpow__": _rop(lambda x, o: _ops.pow(o, x)),
    "__matmul__": _op(_ops.matmul), "__rmatmul__": _rop(lambda x, o: _ops.matmul(o, x)),
    "__eq__": _op(_ops.eq), "__ne__": _op(_ops.ne), "__lt__": _op(_ops.lt),
    "__le__": _op(_ops.le), "__gt__": _op(_ops.gt), "__ge__": _op(_ops.ge),
    "__and__": _op(_ops.bitwise_and), "__rand__": _rop(_ops.bitwise_and),
    "__or__": _op(_ops.bitwise_or), "__ror__": _rop(_ops.bitwise_or),
    "__xor__": _op(_ops.bitwise_xor), "__rxor__": _rop(_ops.bitwise_xor),
    "__iadd__": _i(_ops.add), "__isub__": _i(_ops.sub), "__imul__": _i(_ops.mul),
    "__itruediv__": _truediv_i, "__ipow__": _i(_ops.pow),
    "__ifloordiv__": _i(_ops.floor_divide), "__imod__": _i(_ops.remainder),
}


def _neg(self):
    return _ops.neg(self)


def _pos(self):
    return self


def _abs(self):
    return _ops.abs(self)


def _invert(self):
    a = raw(self)
    if a.dtype.kind == "b":
        return _wrap(~a, True)
    return _ops.bitwise_not(self)


def _getitem(self, index):
    return _indexing.getitem(self, index)


def _setitem(self, index, value):
    _indexing.setitem(self, index, value)


def _size_args(args):
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        return tuple(args[0])
    return args


# ------------------------------------------------------------------------------ methods
def _to(self, *args, **kwargs):
    """``x.to(torch.float64)``, ``x.to('cpu')``, ``x.to(other)``, ``x.to(device, dtype)``."""
    dtype = kwargs.get("dtype")
    copy = kwargs.get("copy", False)
    for a in args:
        if isinstance(a, _dtypes.dtype):
            dtype = a
        elif isinstance(a, EngineTensor):
            dtype = _dtypes.from_np(raw(a).dtype)
        elif isinstance(a, str) or a.__class__.__name__ == "device":
            from ._base import check_device

            check_device(a)
    if "device" in kwargs:
        from ._base import check_device

        check_device(kwargs["device"])
    fmt = kwargs.get("memory_format")
    if fmt is not None and "preserve" not in str(fmt):  # x.to(memory_format=channels_last)
        self = _ops.contiguous(self, memory_format=fmt)
    if dtype is None:
        return _ops.clone(self) if copy else self
    return _ops.to_dtype(self, _dtypes.to_np(dtype), copy=copy)


def _conv(npd):
    def method(self, memory_format=None):
        return _ops.to_dtype(self, np.dtype(npd))
    return method


def _cpu(self, *args, **kwargs):
    return self


def _cuda(self, *args, **kwargs):
    raise AssertionError("Torch not compiled with CUDA enabled")


def _new_factory(fn):
    def method(self, *size, dtype=None, device=None, requires_grad=False):
        dt = dtype if dtype is not None else _dtypes.from_np(raw(self).dtype)
        return fn(*_size_args(size), dtype=dt, requires_grad=requires_grad)
    return method


def _new_tensor(self, data, dtype=None, device=None, requires_grad=False):
    dt = dtype if dtype is not None else _dtypes.from_np(raw(self).dtype)
    return _creation.tensor(data, dtype=dt, requires_grad=requires_grad)


def _new_full(self, size, fill_value, dtype=None, device=None, requires_grad=False):
    dt = dtype if dtype is not None else _dtypes.from_np(raw(self).dtype)
    return _creation.full(tuple(size), fill_value, dtype=dt, requires_grad=requires_grad)


def _view(self, *shape):
    return _ops.view(self, *shape)


def _reshape(self, *shape):
    return _ops.reshape(self, *shape)


def _permute(self, *dims):
    return _ops.permute(self, *dims)


def _expand(self, *sizes):
    return _ops.expand(self, *sizes)


def _repeat(self, *sizes):
    return _ops.repeat(self, *sizes)


def _flip(self, *dims):
    if len(dims) == 1:
        dims = dims[0]
    return _ops.flip(self, dims)


def _sum(self, dim=None, keepdim=False, *, dtype=None):
    return _ops.sum(self, dim, keepdim, dtype=dtype)


_SHAPE_CPP = " (Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:"


def _T(self):  # noqa: N802 - torch's name (ATen numpy_T: its two TORCH_WARN_ONCEs)
    n = raw(self).ndim
    if n != 2:
        # (imported here, off the common path: importing _ops_shape while this module loads
        # would run its numpy-keyword aliasing before the methods it aliases exist)
        from . import _ops_shape

        _ops_shape._warn_once(
            "Tensor.T is deprecated on 0-D tensors. This function is the identity in these "
            "cases." + _SHAPE_CPP + "4321.)" if n == 0 else
            "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
            "deprecated and it will throw an error in a future release. Consider `x.mT` to "
            "transpose batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to "
            "reverse the dimensions of a tensor." + _SHAPE_CPP + "4314.)")
    return _ops.permute(self, tuple(range(n))[::-1])


def _conj(t):
    return t.conj() if raw(t).dtype.kind == "c" else t


def _matrix(self, name, line, conj, two_d):
    """ATen's mT / mH / H: a 0-D tensor is itself (conjugated for H/mH), with a warning once;
    fewer than two dims (H: other than two) is a RuntimeError; else transpose(-2, -1)."""
    n = raw(self).ndim
    if n == 0:
        from . import _ops_shape  # (see _T)

        _ops_shape._warn_once(
            f"Tensor.{name} is deprecated on 0-D tensors. "
            + ("Consider using x.conj()." if conj else
               "This function is the identity in these cases.") + _SHAPE_CPP + f"{line}.)")
        return _conj(self) if conj else self
    if two_d and n != 2:
        raise RuntimeError(f"tensor.{name} is only supported on matrices (2-D tensors). Got "
                           f"{n}-D tensor." + (" For batches of matrices, consider using "
                                               "tensor.mH" if n > 2 else ""))
    if n < 2:
        raise RuntimeError(f"tensor.{name} is only supported on matrices or batches of "
                           f"matrices. Got {n}-D tensor.")
    t = _ops.transpose(self, -2, -1)
    return _conj(t) if conj else t


def _mT(self):  # noqa: N802
    return _matrix(self, "mT", 4373, False, False)


def _H(self):  # noqa: N802 - the conjugate transpose (complex tensors conjugated)
    return _matrix(self, "H", 4335, True, True)


def _mH(self):  # noqa: N802
    return _matrix(self, "mH", 4382, True, False)


def _apply_(self, fn):
    a = raw(self)
    out = np.vectorize(fn, otypes=[a.dtype])(a) if a.size else a
    _inplace.write(self, out)
    return self


def _map_(self, other, fn):
    a, b = raw(self), raw(other)
    _inplace.write(self, np.vectorize(fn, otypes=[a.dtype])(a, b))
    return self


def _unfold(self, dimension, size, step):
    a = raw(self)
    d = _dim(dimension, a.ndim)
    n = (a.shape[d] - size) // step + 1
    if n <= 0 or a.ndim == 0:
        pieces = [_ops.narrow(self, d, i * step, size) for i in range(n)]
        stacked = _ops.stack(pieces, d)
        return _ops.movedim(stacked, d + 1, -1)
    from . import _storage  # a view of self's memory (UnfoldBackward0), as torch's

    flat_idx = _storage.unfold_fwd(np.arange(a.size).reshape(a.shape), None, (d, size, step))
    idx = tuple(np.unravel_index(np.array(flat_idx), a.shape))
    r = _ops.apply(_ops.top("index_elementwise_get", "UnfoldBackward0", "none",
                            forward=_storage.unfold_fwd), (self,),
                   {"index": idx, "view": (d, int(size), int(step))})
    r._alias = self
    return r


def _masked_fill_(self, mask, value):
    from . import _storage

    if _storage.warn_expanded(raw(self), "masked_fill_"):  # torch writes through, warning
        m = np.broadcast_to(raw(mask).astype(bool), raw(self).shape)
        v = raw(value) if isinstance(value, EngineTensor) else value
        _inplace.write_at(self, np.nonzero(m), v)
        return self
    return _inplace.inplace(self, lambda s: _ops.masked_fill(s, mask, value))


def _clamp_(self, min=None, max=None):  # noqa: A002
    return _inplace.inplace(self, lambda s: _ops.clamp(s, min, max))


def _index_fill_(self, dim, index, value):
    a = raw(self)
    d = _dim(dim, a.ndim)
    idx = (slice(None),) * d + (raw(index).astype(np.int64),)
    _indexing.setitem(self, idx, value)
    return self


def _scatter_(self, dim, index, src, reduce=None):
    a = raw(self)
    d = _dim(dim, a.ndim)
    vals = raw(src) if isinstance(src, EngineTensor) else np.full(raw(index).shape, src, a.dtype)
    out = np.array(a)
    idx = raw(index).astype(np.int64)
    if reduce == "add":
        np.add.at(out, _along(idx, d), vals[tuple(slice(0, s) for s in idx.shape)])
    else:
        np.put_along_axis(out, idx, vals[tuple(slice(0, s) for s in idx.shape)], d)
    _inplace.check_leaf(self)
    _inplace.write(self, out)
    return self


def _along(idx, d):
    grids = list(np.indices(idx.shape))
    grids[d] = idx
    return tuple(grids)


def _scatter(self, dim, index, src, reduce=None):
    c = _ops.clone(self) if not self.stop_gradient else _wrap(np.array(raw(self)), True)
    return _scatter_(c, dim, index, src, reduce)


def _fill_diagonal_(self, fill_value, wrap=False):
    a = np.array(raw(self))
    np.fill_diagonal(a, fill_value, wrap=wrap)
    _inplace.check_leaf(self)
    from ._storage import overlapping

    if overlapping(raw(self)):  # a fill (torch allows it on an expanded tensor): the diagonal only
        m = np.zeros(a.shape, bool)
        np.fill_diagonal(m, True, wrap=wrap)
        _inplace.write_at(self, np.nonzero(m), a[m])
        return self
    _inplace.write(self, a)
    return self


def _softmax(self, dim, dtype=None):
    from .nn import functional as F

    return F.softmax(self, dim, dtype=dtype)


def _log_softmax(self, dim, dtype=None):
    from .nn import functional as F

    return F.log_softmax(self, dim, dtype=dtype)


def _bool_conv(self):
    return _ops.to_dtype(self, np.dtype(np.bool_))


METHODS = {
    # arithmetic
    "add": _ops.add, "sub": _ops.sub, "subtract": _ops.sub, "mul": _ops.mul,
    "multiply": _ops.mul, "div": _ops.div, "divide": _ops.div, "true_divide": _ops.div,
    "floor_divide": _ops.floor_divide, "remainder": _ops.remainder, "fmod": _ops.fmod,
    "pow": _ops.pow, "neg": _ops.neg, "negative": _ops.neg, "abs": _ops.abs,
    "absolute": _ops.abs, "exp": _ops.exp, "exp2": _ops.exp2, "expm1": _ops.expm1,
    "log": _ops.log, "log2": _ops.log2, "log10": _ops.log10, "log1p": _ops.log1p,
    "sqrt": _ops.sqrt, "rsqrt": _ops.rsqrt, "square": _ops.square, "reciprocal": _ops.reciprocal,
    "sin": _ops.sin, "cos": _ops.cos, "tan": _ops.tan, "asin": _ops.asin, "acos": _ops.acos,
    "atan": _ops.atan, "arcsin": _ops.asin, "arccos": _ops.acos, "arctan": _ops.atan,
    "sinh": _ops.sinh, "cosh": _ops.cosh, "tanh": _ops.tanh, "sigmoid": _ops.sigmoid,
    "relu": _ops.relu, "erf": _ops.erf, "floor": _ops.floor, "ceil": _ops.ceil,
    "trunc": _ops.trunc, "fix": _ops.trunc, "frac": _ops.frac, "round": _ops.round,
    "sign": _ops.sign, "sgn": _ops.sign, "clamp": _ops.clamp, "clip": _ops.clamp,
    "clamp_min": _ops.clamp_min, "clamp_max": _ops.clamp_max, "maximum": _ops.maximum,
    "minimum": _ops.minimum, "lerp": _ops.lerp, "addcmul": _ops.addcmul,
    "addcdiv": _ops.addcdiv, "atan2": _ops.atan2, "hypot": _ops.hypot,
    "nan_to_num": _ops.nan_to_num,
    # comparisons and logic
    "eq": _ops.eq, "ne": _ops.ne, "lt": _ops.lt, "le": _ops.le, "gt": _ops.gt, "ge": _ops.ge,
    "greater": _ops.gt, "less": _ops.lt, "greater_equal": _ops.ge, "less_equal": _ops.le,
    "not_equal": _ops.ne, "equal": _ops.equal, "allclose": _ops.allclose,
    "isclose": _ops.isclose, "logical_and": _ops.logical_and, "logical_or": _ops.logical_or,
    "logical_xor": _ops.logical_xor, "logical_not": _ops.logical_not, "isnan": _ops.isnan,
    "isinf": _ops.isinf, "isfinite": _ops.isfinite, "bitwise_and": _ops.bitwise_and,
    "bitwise_or": _ops.bitwise_or, "bitwise_xor": _ops.bitwise_xor,
    "bitwise_not": _ops.bitwise_not,
    # reductions
    "sum": _sum, "nansum": _ops.nansum, "mean": _ops.mean, "max": _ops.max, "min": _ops.min,
    "amax": _ops.amax, "amin": _ops.amin, "argmax": _ops.argmax, "argmin": _ops.argmin,
    "prod": _ops.prod, "logsumexp": _ops.logsumexp, "var": _ops.var, "std": _ops.std,
    "norm": _ops.norm, "dist": _ops.dist, "cumsum": _ops.cumsum, "cumprod": _ops.cumprod,
    "all": _ops.all, "any": _ops.any, "count_nonzero": _ops.count_nonzero,
    "median": _ops.median, "sort": _ops.sort, "argsort": _ops.argsort, "topk": _ops.topk,
    "unique": _ops.unique, "aminmax": _ops.aminmax,
    "repeat_interleave": _ops.repeat_interleave, "masked_select": _ops.masked_select,
    "take_along_dim": _ops.take_along_dim, "tensor_split": _ops.tensor_split,
    "select": _indexing.select,
    "diff": _ops.diff, "logaddexp": _ops.logaddexp, "argwhere": _ops.argwhere,
    # shapes
    "view": _view, "view_as": _ops.view_as, "reshape": _reshape, "reshape_as": _ops.reshape_as,
    "flatten": _ops.flatten, "unflatten": _ops.unflatten, "squeeze": _ops.squeeze,
    "unsqueeze": _ops.unsqueeze, "t": _ops.t, "transpose": _ops.transpose,
    "swapaxes": _ops.transpose, "swapdims": _ops.transpose, "permute": _permute,
    "movedim": _ops.movedim, "moveaxis": _ops.movedim, "expand": _expand,
    "expand_as": _ops.expand_as, "broadcast_to": _ops.broadcast_to, "repeat": _repeat,
    "tile": _ops.tile, "split": _ops.split, "chunk": _ops.chunk, "unbind": _ops.unbind,
    "flip": _flip, "roll": _ops.roll, "narrow": _ops.narrow, "tril": _ops.tril,
    "triu": _ops.triu, "clone": _ops.clone, "contiguous": _ops.contiguous,
    "diagonal": _ops.diagonal, "diag": _ops.diag, "trace": _ops.trace,
    "masked_fill": _ops.masked_fill, "nonzero": _ops.nonzero, "gather": _ops.gather,
    "index_select": _ops.index_select, "take": _ops.take, "where": lambda self, c, o:
    _ops.where(c, self, o), "unfold": _unfold, "scatter": _scatter,
    # linear algebra
    "matmul": _ops.matmul, "mm": _ops.mm, "mv": _ops.mv, "dot": _ops.dot, "inner": _ops.dot,
    "bmm": _ops.bmm, "outer": _ops.outer, "ger": _ops.outer, "addmm": _ops.addmm,
    "cross": _ops.cross, "inverse": _ops.inverse, "det": _ops.det,
    # conversions
    "to": _to, "cpu": _cpu, "cuda": _cuda, "float": _conv(np.float32),
    "double": _conv(np.float64), "half": _conv(np.float16), "bfloat16": _conv(np.uint16),
    "int": _conv(np.int32), "long": _conv(np.int64), "short": _conv(np.int16),
    "char": _conv(np.int8), "byte": _conv(np.uint8), "bool": _bool_conv,
    "new_zeros": _new_factory(_creation.zeros), "new_ones": _new_factory(_creation.ones),
    "new_empty": _new_factory(_creation.empty), "new_tensor": _new_tensor,
    "new_full": _new_full, "apply_": _apply_, "map_": _map_,
    "softmax": _softmax, "log_softmax": _log_softmax,
    # in place
    "add_": _inplace._binary_inplace(_ops.add), "sub_": _inplace._binary_inplace(_ops.sub),
    "subtract_": _inplace._binary_inplace(_ops.sub),
    "mul_": _inplace._binary_inplace(_ops.mul), "multiply_": _inplace._binary_inplace(_ops.mul),
    "div_": lambda self, other, **kw: _truediv_i(self, other),
    "divide_": lambda self, other, **kw: _truediv_i(self, other),
    "pow_": _inplace._binary_inplace(_ops.pow), "lerp_": lambda self, end, weight:
    _inplace.inplace(self, lambda s: _ops.lerp(s, end, weight)),
    "addcmul_": lambda self, t1, t2, value=1: _inplace.inplace(
        self, lambda s: _ops.addcmul(s, t1, t2, value=value)),
    "addcdiv_": lambda self, t1, t2, value=1: _inplace.inplace(
        self, lambda s: _ops.addcdiv(s, t1, t2, value=value)),
    "neg_": _inplace._unary_inplace(_ops.neg), "abs_": _inplace._unary_inplace(_ops.abs),
    "exp_": _inplace._unary_inplace(_ops.exp), "log_": _inplace._unary_inplace(_ops.log),
    "sqrt_": _inplace._unary_inplace(_ops.sqrt), "sin_": _inplace._unary_inplace(_ops.sin),
    "cos_": _inplace._unary_inplace(_ops.cos), "tanh_": _inplace._unary_inplace(_ops.tanh),
    "sigmoid_": _inplace._unary_inplace(_ops.sigmoid),
    "relu_": _inplace._unary_inplace(_ops.relu), "floor_": _inplace._unary_inplace(_ops.floor),
    "ceil_": _inplace._unary_inplace(_ops.ceil), "round_": _inplace._unary_inplace(_ops.round),
    "trunc_": _inplace._unary_inplace(_ops.trunc),
    "reciprocal_": _inplace._unary_inplace(_ops.reciprocal),
    "square_": _inplace._unary_inplace(_ops.square),
    "clamp_": _clamp_, "clip_": _clamp_, "clamp_min_": lambda s, m: _clamp_(s, min=m),
    "clamp_max_": lambda s, m: _clamp_(s, max=m), "masked_fill_": _masked_fill_,
    "zero_": _inplace.zero_, "fill_": _inplace.fill_, "copy_": _inplace.copy_,
    "uniform_": _inplace.uniform_, "normal_": _inplace.normal_, "random_": _inplace.random_,
    "bernoulli_": _inplace.bernoulli_, "exponential_": _inplace.exponential_,
    "index_fill_": _index_fill_, "scatter_": _scatter_, "fill_diagonal_": _fill_diagonal_,
    "t_": _inplace._shape_inplace(_ops.t),
    "transpose_": _inplace._shape_inplace(_ops.transpose),
    "unsqueeze_": _inplace._shape_inplace(_ops.unsqueeze),
    "squeeze_": _inplace._shape_inplace(_ops.squeeze),
}


def bind():
    for name, fn in OPERATORS.items():
        setattr(Tensor, name, fn)
    Tensor.__neg__ = _neg
    Tensor.__pos__ = _pos
    Tensor.__abs__ = _abs
    Tensor.__invert__ = _invert
    Tensor.__getitem__ = _getitem
    Tensor.__setitem__ = _setitem
    Tensor.__hash__ = lambda self: id(self)
    from ._deprecated_overloads import number_first

    for name, fn in METHODS.items():
        if name in Tensor.__dict__:
            continue
        if name in ("add", "add_", "sub", "sub_"):   # also (Number alpha, Tensor other)
            fn = number_first(name, fn)
        setattr(Tensor, name, fn)
    Tensor.T = property(_T)
    Tensor.mT = property(_mT)
    Tensor.H = property(_H)
    Tensor.mH = property(_mH)
