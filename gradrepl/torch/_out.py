"""``out=`` for the ``torch`` namespace's functions, one mechanism for all of them.

``torch.add(a, b, out=y)`` computes the result as without ``out``, then writes it into ``y``
as torch does:

- recording: refused (RuntimeError) when grad mode is on and an input or ``out`` requires grad;
- dtype: the result is cast to ``out``'s dtype when torch's ``can_cast`` allows it (the
  matrix products want ``out``'s dtype to be the result's exactly);
- shape: ``out`` is resized to the result's shape; resizing one that has elements warns
  (torch's deprecation UserWarning, pointing at the caller's line);
- ``out`` is returned (the same object), its version bumped; a view's base sees the values.
"""
from __future__ import annotations

import functools
import sys
import warnings

import numpy as np

from ..engine import grad_mode
from . import _dtypes
from ._base import EngineTensor, raw, set_raw
from ._inplace import bump

_STATE = grad_mode.STATE

_RESIZE_WARNING = (
    "An output with one or more elements was resized since it had shape {old}, which does not "
    "match the required output shape {new}. This behavior is deprecated, and in a future "
    "PyTorch release outputs will not be resized unless they have zero elements. You can "
    "explicitly reuse an out tensor t by resizing it, inplace, to zero elements with "
    "t.resize_(0). (Triggered internally at "
    "/__w/pytorch/pytorch/aten/src/ATen/native/Resize.cpp:30.)")

# how each function checks out's dtype: "cast" (torch's can_cast), "exact" (the BLAS products),
# or a message of its own ({src}, {dst}: the legacy names, Float, Long)
_CAST = "cast"
_EXACT = "exact"
_DTYPE_RULES = {
    "matmul": _EXACT, "mm": _EXACT, "bmm": _EXACT, "mv": _EXACT, "addmm": _EXACT,
    "dot": _EXACT,
    "mean": "mean.dtype_out(): input types can't be cast to the desired output type {dst}",
}

#: the functions of the torch namespace that take ``out=`` (the name is torch's, for messages)
OUT_FUNCTIONS = (
    "add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide", "pow",
    "remainder", "fmod", "floor_divide", "atan2", "hypot", "maximum", "minimum", "lerp",
    "addcmul", "addcdiv", "matmul", "mm", "bmm", "mv", "dot", "addmm", "outer", "ger",
    "cat", "concat", "concatenate", "stack", "hstack", "vstack",
    "sum", "mean", "prod", "cumsum", "cumprod", "std", "var", "logsumexp", "norm", "nansum",
    "argmax", "argmin", "amax", "amin",
    "abs", "absolute", "neg", "negative", "exp", "exp2", "expm1", "log", "log2", "log10",
    "log1p", "sqrt", "rsqrt", "square", "reciprocal", "sin", "cos", "tan", "asin", "acos",
    "atan", "sinh", "cosh", "tanh", "sigmoid", "erf", "floor", "ceil", "round", "trunc",
    "frac", "sign", "sgn", "clamp", "clip", "clamp_min", "clamp_max", "nan_to_num",
    "eq", "ne", "lt", "le", "gt", "ge", "greater", "greater_equal", "less", "less_equal",
    "not_equal", "logical_and", "logical_or", "logical_xor", "logical_not", "bitwise_and",
    "bitwise_or", "bitwise_xor", "bitwise_not", "where", "gather", "index_select", "take",
    "masked_select", "tril", "triu", "diag", "cross", "kron", "inverse", "flip", "roll",
)


def _requires_grad(v):
    if isinstance(v, EngineTensor):
        return not v.stop_gradient
    if isinstance(v, (list, tuple)):
        return any(_requires_grad(x) for x in v)
    return False


def _check_dtype(name, src, dst):
    if src == dst:
        return
    rule = _DTYPE_RULES.get(name, _CAST)
    if rule == _EXACT:
        raise RuntimeError(f"Expected out tensor to have dtype {_c_name(src)}, but got "
                           f"{_c_name(dst)} instead")
    if _dtypes.category(src) > _dtypes.category(dst):
        s, d = _dtypes.from_np(src).legacy, _dtypes.from_np(dst).legacy
        if rule == _CAST:
            raise RuntimeError(f"result type {s} can't be cast to the desired output type {d}")
        raise RuntimeError(rule.format(src=s, dst=d))


def _c_name(npdtype):
    from ._tensor import _c_type_name

    return _c_type_name(npdtype)


#: code objects of gradrepl's pass-through wrappers around torch functions (the sparse-aware
#: dispatch, the complex refusals): a warning's site skips their frames, as the user's call
#: of the function is the site torch names
PASS_THROUGH: set = set()


def user_stacklevel(stacklevel):
    """``stacklevel`` (as ``warnings.warn`` of the caller counts it) past the pass-through
    wrappers' frames."""
    frame = sys._getframe(stacklevel)  # the frame the caller's warn(stacklevel=...) names
    while frame is not None and frame.f_code in PASS_THROUGH:
        frame = frame.f_back
        stacklevel += 1
    return stacklevel


def write_result(name, out, result, stacklevel=3):
    """``result``'s values into ``out`` (resized, cast, version bumped); returns ``out``."""
    if not isinstance(out, EngineTensor):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    from . import _vmap_checks

    if _vmap_checks._SCOPES and (_vmap_checks.batched(result) or _vmap_checks.batched(out)):
        # (functorch has no batching rule for out= variants: torch 2.13's error, recorded)
        raise _vmap_checks._refusal(f"Batching rule not implemented for aten::{name}.out; the "
                                    "fallback path doesn't work on out= or view ops.")
    r = raw(result)
    a = raw(out)
    from ._storage import check_overlap

    check_overlap(a)  # an expanded out: torch's "more than one element ..." error
    _check_dtype(name, r.dtype, a.dtype)
    if a.shape != r.shape:
        if a.size != 0:
            warnings.warn(_RESIZE_WARNING.format(old=list(a.shape), new=list(r.shape)),
                          UserWarning, stacklevel=user_stacklevel(stacklevel))
        set_raw(out, np.array(r, dtype=a.dtype))
    elif a.flags.writeable:
        np.copyto(a, r, casting="unsafe")
    else:
        set_raw(out, np.array(r, dtype=a.dtype))
    bump(out)
    return out


def with_out(fn, name):
    """``fn`` taking ``out=``: computed without it, then written into ``out``."""

    @functools.wraps(fn)
    def f(*args, out=None, **kwargs):
        if out is None:
            return fn(*args, **kwargs)
        if _STATE.enabled and (_requires_grad(out) or _requires_grad(args)
                               or _requires_grad(tuple(kwargs.values()))):
            raise RuntimeError(f"{name}(): functions with out=... arguments don't support "
                               "automatic differentiation, but one of the arguments requires "
                               "grad.")
        with grad_mode.no_grad():
            result = fn(*args, **kwargs)
        if isinstance(result, tuple) and isinstance(out, (tuple, list)):
            for o, r in zip(out, result):
                write_result(name, o, r)
            return result
        return write_result(name, out, result)

    f.__wrapped_out__ = True
    return f


#: the factories taking ``out=``: the values are made in ``out``'s dtype (``torch.rand(2,
#: out=double_tensor)`` draws doubles), then written as above
CREATION_OUT_FUNCTIONS = ("zeros", "ones", "empty", "full", "arange", "linspace", "logspace",
                          "eye", "rand", "randn", "randint", "randperm", "normal")


def with_out_creation(fn, name):
    """A factory ``fn`` taking ``out=``: made with ``out``'s dtype (unless one is given)."""
    plain = with_out(fn, name)

    @functools.wraps(fn)
    def f(*args, out=None, **kwargs):
        if out is not None and isinstance(out, EngineTensor) and kwargs.get("dtype") is None \
                and not (name == "normal" and any(isinstance(a, EngineTensor) for a in args)):
            kwargs["dtype"] = _dtypes.from_np(raw(out).dtype)
        return plain(*args, out=out, **kwargs)

    f.__wrapped_out__ = True
    return f


def install(namespace):
    """Give the namespace's functions of ``OUT_FUNCTIONS`` the ``out=`` mechanism."""
    for name in OUT_FUNCTIONS + CREATION_OUT_FUNCTIONS:
        fn = namespace.get(name)
        if fn is not None and callable(fn) and not getattr(fn, "__wrapped_out__", False):
            namespace[name] = (with_out_creation if name in CREATION_OUT_FUNCTIONS
                               else with_out)(fn, name)
