"""The names lectures reach that the other API modules lacked (issue 28, found by
``tools/paddle_api_gaps.py``): Paddle 3's torch-style spellings (``x.float()``, ``x.mT``,
``x.requires_grad_()``, ``paddle.as_tensor``, ``paddle.double``), Tensor methods that are
functions elsewhere (``x.solve(y)``, ``x.stack()``), in-place twins (``x.sigmoid_()``) and
``paddle.multinomial``.

Each is the existing function or a small composition of existing ones, so it differentiates as
they do. Names Paddle 2.6 lacks are gated by the 2.6 name lists (``api26``) as the rest of the API.
"""
from __future__ import annotations

import builtins as _b
import math as _math

import numpy as np

from .. import dtypes, profiles

__all__ = ["as_tensor", "manual_seed", "rand_like", "randn_like", "ger", "view_as_complex",
           "view_as_real", "get_default_device", "set_default_device", "multinomial", "softmax", "bernoulli_",
           "pdist",
           "conv1d", "conv2d", "conv3d", "layer_norm", "group_norm", "adaptive_avg_pool1d",
           "pi", "e", "inf", "nan", "newaxis",
           "float", "double", "half", "int", "long", "short", "cfloat", "cdouble",
           "FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "ByteTensor",
           "CharTensor", "ShortTensor", "IntTensor", "LongTensor", "BoolTensor",
           "bitwise_invert_", "bitwise_left_shift_", "bitwise_right_shift_", "log_normal",
           "log_normal_"]

# Tensor.X -> the dtype it converts to (``x.float()`` is ``x.astype('float32')``)
_CONVERSIONS = {"float32": "float32", "float": "float32", "double": "float64",
                "float64": "float64", "half": "float16", "float16": "float16",
                "bfloat16": "bfloat16", "int": "int32", "int32": "int32", "long": "int64",
                "int64": "int64", "short": "int16", "int16": "int16", "char": "int8",
                "int8": "int8", "byte": "uint8", "uint8": "uint8", "bool": "bool",
                "cfloat": "complex64", "complex64": "complex64", "cdouble": "complex128",
                "complex128": "complex128"}

# top-level dtype aliases of Paddle 3 (``paddle.double`` is ``paddle.float64``)
_DTYPE_ALIASES = {"float": "float32", "double": "float64", "half": "float16", "int": "int32",
                  "long": "int64", "short": "int16", "cfloat": "complex64",
                  "cdouble": "complex128"}

# Tensor methods that are the paddle function of the same name (x is the first argument)
_FUNCTION_METHODS = ("broadcast_shape", "broadcast_tensors", "cdist", "cholesky_solve",
                     "combinations", "cond", "corrcoef", "cov", "diag", "diag_embed", "diagflat",
                     "eig", "eigvals", "householder_product", "is_tensor", "lstsq", "lu",
                     "lu_unpack", "matrix_power", "multi_dot", "pca_lowrank", "pinv", "polar",
                     "qr", "rank", "slice", "slogdet", "solve", "stack", "concat",
                     "strided_slice", "vander", "block_diag", "broadcast_shapes", "histogramdd",
                     "cholesky_inverse", "ormqr", "svd_lowrank")

# in-place twins made from the function of the name without "_"
_TWINS = ("ceil", "floor", "round", "rsqrt", "reciprocal", "sigmoid", "erfinv", "lerp",
          "bitwise_invert", "bitwise_left_shift", "bitwise_right_shift")

__methods__ = (list(_CONVERSIONS) + list(_FUNCTION_METHODS) + [t + "_" for t in _TWINS] +
               ["exponential_", "bernoulli_", "mT", "requires_grad_", "type_as", "mul_", "clamp_", "greater", "less",
                "softmax", "is_same_shape", "view_as_complex", "view_as_real", "multinomial",
                "grad_", "random_", "log_normal_", "copy_", "stft", "istft"])

pi = _math.pi
e = _math.e
inf = _math.inf
nan = _math.nan
newaxis = None


def _paddle():
    import sys

    return sys.modules[__name__.rsplit(".", 2)[0]]


def _F():
    from ..nn import functional

    return functional


# --------------------------------------------------------------------- dtype aliases, methods
def _conversion(name, target):
    def convert(self):
        return self.astype(target)

    convert.__name__ = convert.__qualname__ = name
    convert.__doc__ = f"``x.{name}()``: x cast to {target} (``x.astype('{target}')``)."
    return convert


_OVERRIDES = {_n: _conversion(_n, _t) for _n, _t in _CONVERSIONS.items()}
for _n, _t in _DTYPE_ALIASES.items():  # the module attribute is the dtype (paddle.float)
    globals()[_n] = dtypes.DTYPES[_t]


def _function_method(name):
    def method(*args, **kwargs):
        paddle = _paddle()
        fn = getattr(paddle, name, None) or getattr(paddle.linalg, name)
        return fn(*args, **kwargs)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"``x.{name}(...)``: ``paddle.{name}(x, ...)`` (or ``paddle.linalg.{name}``)."
    return method


for _n in _FUNCTION_METHODS:
    globals()[_n] = _function_method(_n)


def _twin(name):
    def twin(x, *args, **kwargs):
        from .indexing import inplace

        fn = getattr(_paddle(), name)
        return inplace(x, lambda v: fn(v, *args, **kwargs))

    twin.__name__ = twin.__qualname__ = name + "_"
    twin.__doc__ = (f"``x.{name}_(...)``: ``paddle.{name}(x, ...)`` stored back into x, which "
                    f"is returned.")
    return twin


for _n in _TWINS:
    globals()[_n + "_"] = _twin(_n)
del _n, _t


def _mT(self):
    """The last two axes swapped (a batch of matrices transposed)."""
    if self.ndim < 2:
        raise ValueError(f"Tensor.ndim({self.ndim}) is required to be greater than or equal to "
                         f"2.")
    perm = list(range(self.ndim))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return _paddle().transpose(self, perm)


mT = property(_mT)


def _set_grad(self, value):
    self._grad = value  # (the tensor itself: unlike ``x.grad = t``, no copy; real 3.3.1/2.6.2)


#: ``x.grad_``: reads as ``x.grad``; assigning makes the given tensor the gradient
grad_ = property(lambda self: self.grad, _set_grad)


def requires_grad_(self, requires_grad=True):
    """``x.requires_grad_(True)``: x.stop_gradient = not requires_grad; returns x."""
    self.stop_gradient = not requires_grad
    return self


def type_as(self, other):
    """x cast to other's dtype."""
    return self.astype(other.dtype)


def mul_(self, y, name=None):
    """``x.mul_(y)``: ``x.multiply_(y)``."""
    return self.multiply_(y)


def clamp_(self, min=None, max=None, name=None):  # noqa: A002
    """``x.clamp_(min, max)``: ``x.clip_(min, max)``."""
    return self.clip_(min, max)


def greater(x, y, name=None):
    """x > y elementwise (``greater_than``)."""
    return _paddle().greater_than(x, y)


def less(x, y, name=None):
    """x < y elementwise (``less_than``)."""
    return _paddle().less_than(x, y)


def is_same_shape(self, y):
    """True when x and y have the same shape."""
    return list(self.shape) == list(y.shape)


def view_as_complex(input):  # noqa: A002
    """The complex tensor whose real and imaginary parts are input's last axis (size 2)."""
    return _paddle().as_complex(input)


def view_as_real(input):  # noqa: A002
    """The real tensor [..., 2] of a complex input's real and imaginary parts."""
    return _paddle().as_real(input)


def as_tensor(data, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """Paddle 3's ``paddle.as_tensor`` (the ``paddle.tensor`` function)."""
    from .creation import tensor

    return tensor(data, dtype=dtype, device=device, requires_grad=requires_grad,
                  pin_memory=pin_memory)


def manual_seed(seed):
    """``paddle.seed`` under torch's name: seeds the generator and returns it."""
    return _paddle().seed(seed)


def _like(fn, x, dtype, requires_grad):
    out = fn(list(x.shape), dtype if dtype is not None else x.dtype)
    if requires_grad:
        out.stop_gradient = False
    return out


def rand_like(input, name=None, *, dtype=None, device=None, requires_grad=False):  # noqa: A002
    """``paddle.rand`` of input's shape (and dtype unless given)."""
    return _like(_paddle().rand, input, dtype, requires_grad)


def randn_like(x, dtype=None, name=None, *, device=None, requires_grad=False):
    """``paddle.randn`` of x's shape (and dtype unless given)."""
    return _like(_paddle().randn, x, dtype, requires_grad)


def ger(x, y, name=None, *, out=None):
    """The outer product of two vectors (``paddle.outer``)."""
    return _paddle().outer(x, y)


def get_default_device():
    """The device tensors are made on: 'cpu' (gradrepl runs on the CPU)."""
    return "cpu"


def set_default_device(device):
    """``paddle.set_device``."""
    _paddle().set_device(device if isinstance(device, str) else "cpu")


def softmax(input, dim=None, dtype=None, *, out=None):  # noqa: A002
    """Paddle 3's torch-style ``paddle.softmax(input, dim)``: without dim, axis 0 of a 0-, 1- or
    3-D input, axis 1 otherwise (torch's implicit choice)."""
    if dim is None:
        dim = 0 if input.ndim in (0, 1, 3) else 1
    return _F().softmax(input, axis=dim, dtype=dtype)


def _tensor_softmax(self, axis=-1, dtype=None, name=None):
    return _F().softmax(self, axis=axis, dtype=dtype)


_tensor_softmax.__name__ = _tensor_softmax.__qualname__ = "softmax"


def _functional(name):
    def fn(*args, **kwargs):
        return getattr(_F(), name)(*args, **kwargs)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``paddle.nn.functional.{name}`` under the top-level name (Paddle 3)."
    return fn


for _n in ("conv1d", "conv2d", "conv3d", "layer_norm", "group_norm", "adaptive_avg_pool1d",
           "pdist"):
    globals()[_n] = _functional(_n)
del _n


def bernoulli_(x, p=0.5, name=None):
    """x filled in place with Bernoulli draws: uniform [0, 1) values, then 1 where the value is
    below p and 0 where above (p: a number or a tensor broadcast to x), as Paddle composes it."""
    x.uniform_(0.0, 1.0)
    ones = x < p
    zeros = x > p
    x.masked_fill_(ones, 1.0)
    x.masked_fill_(zeros, 0.0)
    return x


def _log64(a):
    from ...engine.ops import _kernels as K

    return K.libm64("log", np.log)(np.asarray(a, np.float64))


def exponential_(x, lam=1.0, name=None):
    """x filled in place with exponential draws of rate ``lam``, as Paddle's CPU kernel: one
    ``uniform_real_distribution<T>(0, 1)`` value u per element, then (-1 / lam) * log(1 - u)
    (float32: glibc's logf)."""
    from .. import random_engine as _random
    from ...engine.ops import _glibc
    from . import creation

    t = x.data.dtype
    u = _random.uniform(creation._RNG[0].engine, x.data.size, t, 0.0, 1.0).astype(t)
    one = t.type(1)
    with np.errstate(all="ignore"):
        # the C library's log for doubles too (numpy's np.log differed in ~1 value of 500)
        logs = _glibc.logf(one - u) if t == np.float32 else _log64(one - u)
        values = (t.type(-1) / t.type(lam)) * logs.astype(t)
    return creation._fill_random(x, values.astype(t))


def _dtype_tensor_factory(dtype):
    """Paddle 3's ``paddle.FloatTensor`` and kin: a class whose call makes a tensor of its
    dtype: no argument an empty [0] tensor, a list or tuple its values, ints a shape (values
    not set: ``paddle.empty``), anything else Paddle's constructor error."""

    class _DtypeTensorFactory:
        def __new__(cls, *args, **kwargs):
            paddle = _paddle()
            if not args:
                return paddle.empty(shape=[0], dtype=dtype)
            if len(args) == 1 and isinstance(args[0], (list, tuple)):
                return paddle.to_tensor(args[0], dtype=dtype)
            if all(isinstance(a, _b.int) for a in args):
                return paddle.empty(shape=list(args), dtype=dtype)
            raise ValueError(
                "(InvalidArgument) We support construct Tensor from numpy value or tensor(Tensor "
                "or phi::DenseTensor) with python args and kwargs by this initializer, but the "
                "first argument should be PyArray or Tensor or phi::DenseTensor. Please check "
                "your input first and make sure you call the existed constructor. (at /paddle/"
                "paddle/fluid/pybind/eager.cc:1069)\n")

    _DtypeTensorFactory.__module__ = "paddle.tensor.creation"
    _DtypeTensorFactory.__qualname__ = "dtype_tensor_factory.<locals>._DtypeTensorFactory"
    return _DtypeTensorFactory


for _n, _t in (("FloatTensor", "float32"), ("DoubleTensor", "float64"),
               ("HalfTensor", "float16"), ("BFloat16Tensor", "bfloat16"),
               ("ByteTensor", "uint8"), ("CharTensor", "int8"), ("ShortTensor", "int16"),
               ("IntTensor", "int32"), ("LongTensor", "int64"), ("BoolTensor", "bool")):
    globals()[_n] = _dtype_tensor_factory(_t)
del _n, _t


# ----------------------------------------------------------------------------- multinomial
# where each check sits in Paddle's source, by whose error texts (profile.error_wording)
_MULTINOMIAL_LINES = {
    "3": {"neg": 42, "sum": 55, "zeros": 61, "rank_hi": 3185, "rank_lo": 3179},
    "2.6": {"neg": 47, "sum": 60, "zeros": 66, "rank_hi": 2431, "rank_lo": 2425},
}


def _kernel_error(text, hint, check):
    line = _MULTINOMIAL_LINES[profiles.current().error_wording][check]
    where = ("infermeta/unary.cc" if check.startswith("rank") else
             "kernels/funcs/multinomial_functor.h")
    return ValueError(f"(InvalidArgument) {text}\n  [Hint: {hint}] (at /paddle/paddle/phi/"
                      f"{where}:{line})\n")


def _pct(v):
    return f"{v:f}"


def multinomial(x, num_samples=1, replacement=False, name=None, *, out=None):
    """``num_samples`` category indices per row of x (1-D or 2-D, non-negative weights), as
    Paddle's CPU kernel draws them: one ``uniform_real_distribution<T>(0, 1)`` value per sample,
    in order, looked up by binary search in the row's normalised running sums (the last set to
    1); without replacement a drawn category's weight becomes 0 and the sums are made again."""
    from . import creation

    if x.ndim > 2:
        raise _kernel_error(f"The number of dimensions of the input probability distribution "
                            f"should be <= 2, but got {x.ndim}.",
                            f"Expected x_rank <= 2, but received x_rank:{x.ndim} > 2:2.",
                            "rank_hi")
    if x.ndim < 1:
        raise _kernel_error("The number of dimensions of the input probability distribution "
                            "should be > 0, but got 0.",
                            "Expected x_rank > 0, but received x_rank:0 <= 0:0.", "rank_lo")
    probs = np.array(x.data, copy=True)
    t = probs.dtype.type if probs.dtype in (np.float32, np.float64) else np.float32
    probs = probs.astype(t).reshape(-1, probs.shape[-1])
    rows, cats = probs.shape
    out_arr = np.empty((rows, num_samples), np.int64)
    engine = creation._RNG[0].engine
    from .. import random_engine as _random

    for i in range(rows):
        row = probs[i]
        total = t(0)
        running = np.empty(cats, t)
        zeros = 0
        for j in range(cats):
            v = row[j]
            if not v >= 0:
                raise _kernel_error(
                    f"The input of multinomial distribution should be >= 0, but got "
                    f"{_pct(_b.float(v))}.",
                    f"Expected prob_value >= 0.0, but received prob_value:{_b.float(v):g} < 0.0:0.",
                    "neg")
            total = t(total + v)
            zeros += v == 0
            running[j] = total
        if not total > 0:
            raise _kernel_error(
                f"The sum of one multinomial distribution probability should be > 0, but got "
                f"{_pct(_b.float(total))}.",
                f"Expected probs_sum > 0.0, but received probs_sum:{_b.float(total):g} <= 0.0:0.",
                "sum")
        if not (replacement or cats - zeros >= num_samples):
            raise _kernel_error(
                "When replacement is False, number of samples should be less than non-zero "
                "categories.",
                "Expected (replacement || (num_categories - num_zeros >= num_samples)) == true, "
                "but received (replacement || (num_categories - num_zeros >= num_samples)):0 "
                "!= true:1.", "zeros")
        for s in range(num_samples):
            cum = (running / total).astype(t)
            cum[-1] = 1
            u = _random.uniform(engine, 1, t, 0.0, 1.0)[0]
            k = _b.int(np.searchsorted(cum, u, side="left"))  # first cum >= u
            out_arr[i, s] = k
            if not replacement:
                row[k] = 0
                total = t(0)
                for j in range(cats):
                    total = t(total + row[j])
                    running[j] = total
    from ..core import Tensor

    res = out_arr.reshape(num_samples) if x.ndim == 1 else out_arr
    return Tensor(res)


def _multinomial_method(x, num_samples=1, replacement=False, name=None):
    return multinomial(x, num_samples, replacement)


_multinomial_method.__name__ = _multinomial_method.__qualname__ = "multinomial"


# the Tensor methods whose function is not the module attribute of the name (``bind_methods``)
__method_overrides__ = dict(_OVERRIDES, softmax=_tensor_softmax, multinomial=_multinomial_method)


# where real Paddle 3.3.1 defines each function (what help() and reprs name)
_HOMES = {"as_tensor": "paddle.tensor.creation", "manual_seed": "paddle.framework.random",
          "rand_like": "paddle.tensor.random", "randn_like": "paddle.tensor.random",
          "multinomial": "paddle.tensor.random", "ger": "paddle.tensor.math",
          "view_as_complex": "paddle.tensor.manipulation",
          "view_as_real": "paddle.tensor.manipulation", "get_default_device": "paddle.device",
          "set_default_device": "paddle.device", "softmax": "paddle.tensor.compat_softmax",
          "conv1d": "paddle.nn.functional.conv", "conv2d": "paddle.nn.functional.conv",
          "conv3d": "paddle.nn.functional.conv", "layer_norm": "paddle.nn.functional.norm",
          "group_norm": "paddle.nn.functional.norm",
          "adaptive_avg_pool1d": "paddle.nn.functional.pooling",
          "pdist": "paddle.nn.functional.distance", "bernoulli_": "paddle.tensor.random"}
for _n, _home in _HOMES.items():
    globals()[_n].__module__ = _home
del _n, _home


# ---------------------------------------------------------------- random_, log_normal(_)
_MANTISSA = {"float32": 24, "float64": 53, "float16": 11, "bfloat16": 8}


def random_(x, from_=0, to=None, *, generator=None):
    """x filled in place with integers in [from, to) (Paddle 3): the default upper end is
    2**mantissa for floats, the dtype's max for ints; the CPU kernel takes each 64-bit draw of
    the global generator (its low 32 bits when the range is below 2**28) modulo the range,
    plus from."""
    from . import creation

    name = "bfloat16" if "bfloat16" in str(x.dtype) else np.dtype(x.data.dtype).name
    if to is None:
        if from_ == 0:
            to = (2 ** _MANTISSA[name] if name in _MANTISSA
                  else _b.int(np.iinfo(x.data.dtype).max))
        else:
            to, from_ = from_, 0
    if from_ >= to:
        raise ValueError(f"random_ expects 'from' to be less than 'to', but got from={from_} >= "
                         f"to={to}")
    span = (_b.int(to) - _b.int(from_)) % (1 << 64)
    words = creation._RNG[0].engine.draw(x.data.size)
    if span >= 1 << 28:
        vals = [_b.int(w) % span + _b.int(from_) for w in words.tolist()]
    else:
        vals = ((words & np.uint64(0xFFFFFFFF)) % np.uint64(span)).astype(np.int64) + _b.int(from_)
    values = np.asarray(vals, dtype=np.int64).astype(x.data.dtype).reshape(x.data.shape)
    return creation._fill_random(x, values)


def log_normal_(x, mean=1.0, std=2.0, name=None):
    """Paddle 3: ``x.normal_(mean, std).exp_()``."""
    return x.normal_(mean=mean, std=std).exp_()


def log_normal(mean=1.0, std=2.0, shape=None, name=None):
    """Paddle 3: ``paddle.exp(paddle.normal(mean, std, shape))``."""
    paddle = _paddle()
    return paddle.exp(paddle.normal(mean=mean, std=std, shape=shape, name=name))


# ---------------------------------------------------------------- copy_
# phi::DataType numbers as Paddle's copy error prints them
_PHI_DTYPE = {"bool": 1, "uint8": 2, "int8": 3, "uint16": 4, "int16": 5, "uint32": 6, "int32": 7,
              "uint64": 8, "int64": 9, "float32": 10, "float64": 11, "complex64": 12,
              "complex128": 13, "float16": 15, "bfloat16": 16}


def _dtype_key(t):
    return "bfloat16" if "bfloat16" in str(t.dtype) else np.dtype(t.data.dtype).name


def copy_(self, other, blocking=True):
    """``x.copy_(src, blocking)``: src's values (and shape) copied into x, x's stop_gradient kept,
    no graph recorded; a dtype mismatch is Paddle's PreconditionNotMet error. Paddle 3 returns
    a new Tensor object for x's storage, 2.6.2 None."""
    mine, theirs = _dtype_key(self), _dtype_key(other)
    if mine != theirs:
        line = 113 if profiles.current().api3 else 103
        raise RuntimeError(
            f"(PreconditionNotMet) Tensor {self.name} has different data type with Tensor "
            f"{other.name}, Tensor Copy cannot be performed!\n  [Hint: Expected dtype() == "
            f"src.dtype(), but received dtype():{_PHI_DTYPE.get(mine, 0)} != src.dtype():"
            f"{_PHI_DTYPE.get(theirs, 0)}.] (at /paddle/paddle/phi/api/lib/tensor_method.cc:"
            f"{line})\n")
    self.data = np.array(other.data, copy=True)
    if not profiles.current().api3:
        return None
    return type(self)._result_type._wrap(self.data, self.stop_gradient)


def stft(x, *args, **kwargs):
    """``x.stft(...)``: ``paddle.signal.stft(x, ...)``."""
    from .. import signal

    return signal.stft(x, *args, **kwargs)


def istft(x, *args, **kwargs):
    """``x.istft(...)``: ``paddle.signal.istft(x, ...)``."""
    from .. import signal

    return signal.istft(x, *args, **kwargs)
