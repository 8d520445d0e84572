"""torch's refusals of complex tensors: the functions with no complex kernel on the CPU, each
with the exception type and message real torch 2.13 raises (measured here, issue 28's complex
sweep). One table; ``install`` wraps the namespace function, the Tensor method and the
``nn.functional`` function of each name, so the check runs before any numpy computes a
meaningless value (``clamp`` of complex values ordered them as numpy does; ``floor`` raised
numpy's TypeError).

A message names the dtype as ATen does (``'ComplexFloat'``, ``'ComplexDouble'``): ``{dt}``.
"""
from __future__ import annotations

import functools

from . import _out
from ._base import EngineTensor, raw

_NI, _RT = NotImplementedError, RuntimeError


def _kernel(name):
    """ATen's dispatch macro message: the kernel has no case for the dtype."""
    return _NI, f'"{name}" not implemented for ' + "'{dt}'"


_CLAMP = (_NI, "clamp is not supported for complex types")
_SORT = (_RT, " Sort does not support complex dtypes on CPU")

# name -> (exception type, message); names of functions, Tensor methods and nn.functional alike
TABLE = {
    "clamp": _CLAMP, "clamp_min": _CLAMP, "clamp_max": _CLAMP, "clip": _CLAMP, "relu": _CLAMP,
    "hardtanh": _CLAMP, "clamp_": _CLAMP, "clip_": _CLAMP, "relu_": _CLAMP,
    "maximum": (_RT, "maximum not implemented for complex tensors."),
    "minimum": (_RT, "minimum not implemented for complex tensors."),
    "fmax": (_RT, "fmax not implemented for complex tensors."),
    "fmin": (_RT, "fmin not implemented for complex tensors."),
    "lt": _kernel("lt_cpu"), "less": _kernel("lt_cpu"), "__lt__": _kernel("lt_cpu"),
    "le": _kernel("le_cpu"), "less_equal": _kernel("le_cpu"), "__le__": _kernel("le_cpu"),
    "gt": _kernel("gt_cpu"), "greater": _kernel("gt_cpu"), "__gt__": _kernel("gt_cpu"),
    "ge": _kernel("ge_cpu"), "greater_equal": _kernel("ge_cpu"), "__ge__": _kernel("ge_cpu"),
    "floor": (_NI, "floor is not supported for complex inputs"),
    "ceil": (_NI, "ceil is not supported for complex inputs"),
    "trunc": (_NI, "trunc is not supported for complex inputs"),
    "round": _kernel("round_vml_cpu"), "frac": _kernel("frac_cpu"),
    "atan2": _kernel("atan2_cpu"), "arctan2": _kernel("atan2_cpu"),
    "amax": _kernel("max_values_cpu"), "amin": _kernel("min_values_cpu"),
    "argmax": (_RT, "argmax(): does not support complex input"),
    "argmin": (_RT, "argmin(): does not support complex input"),
    "sort": _SORT, "argsort": _SORT, "msort": _SORT,
    "topk": (_RT, " topk does not support complex dtypes on CPU"),
    "unique": _kernel("unique"),
    "nansum": (_RT, "nansum on CPU does not support complex inputs"),
    "cdist": (_RT, "cdist only supports floating-point dtypes, X1 got: {dt}"),
    "abs_": (_RT, "In-place abs is not supported for complex tensors."),
    "sign": (_NI, "Unlike NumPy, torch.sign is not intended to support complex numbers. Please "
                  "use torch.sgn instead."),
    "remainder": _kernel("remainder_cpu"), "__mod__": _kernel("remainder_cpu"),
    "floor_divide": _kernel("div_floor_cpu"), "__floordiv__": _kernel("div_floor_cpu"),
    "fmod": _kernel("fmod_cpu"),
    "heaviside": (_RT, "heaviside is not yet implemented for complex tensors."),
    "erf": _kernel("erf_vml_cpu"), "lgamma": _kernel("lgamma_vml_cpu"),
    "digamma": _kernel("digamma"), "logit": _kernel("logit_cpu"),
    "cummax": _kernel("cummax_cpu"), "median": _kernel("median_cpu"),
    "kthvalue": _kernel("kthvalue_cpu"), "gelu": _kernel("GeluKernelImpl"),
    "softplus": _kernel("softplus_cpu"),
    "bitwise_and": _kernel("bitwise_and_cpu"), "__and__": _kernel("bitwise_and_cpu"),
    "signbit": (_NI, "signbit is not implemented for complex tensors."),
    "copysign": _kernel("copysign_cpu"), "xlogy": _kernel("xlogy_cpu"),
    "hypot": _kernel("hypot_cpu"), "histc": _kernel("aminmax_cpu"),
    "bucketize": _kernel("searchsorted_out_cpu"),
}

# max()/min() over all values name the kernel; with a dim they refuse as max()/min()
_REDUCE_ALL = {"max": ("max_all", "max"), "min": ("min_all", "min")}

_DT_NAMES = {"complex64": "ComplexFloat", "complex128": "ComplexDouble"}


def _complex_dtype(args):
    """ATen's name of the first complex tensor among the first two arguments, or None."""
    for a in args[:2]:
        if isinstance(a, EngineTensor):
            dt = raw(a).dtype
            if dt.kind == "c":
                return _DT_NAMES.get(dt.name, dt.name)
    return None


def _refusing(fn, exc, msg):
    @functools.wraps(fn)
    def run(*args, **kwargs):
        dt = _complex_dtype(args)
        if dt is not None:
            raise exc(msg.format(dt=dt))
        return fn(*args, **kwargs)
    _out.PASS_THROUGH.add(run.__code__)
    return run


def _refusing_reduce(fn, kernel, name):
    @functools.wraps(fn)
    def run(*args, **kwargs):
        dt = _complex_dtype(args[:1])
        if dt is not None:
            if len(args) > 1 or "dim" in kwargs:
                if not isinstance(args[1] if len(args) > 1 else None, EngineTensor):
                    raise RuntimeError(f"{name}(): does not support complex input")
            else:
                raise NotImplementedError(f'"{kernel}" not implemented for \'{dt}\'')
        return fn(*args, **kwargs)
    _out.PASS_THROUGH.add(run.__code__)
    return run


def install(*spaces):
    """Wrap each listed name found in ``spaces`` (modules, the Tensor class)."""
    for space in spaces:
        for name, (exc, msg) in TABLE.items():
            fn = getattr(space, name, None)
            if callable(fn) and not getattr(fn, "_complex_refusal", False):
                wrapped = _refusing(fn, exc, msg)
                wrapped._complex_refusal = True
                setattr(space, name, wrapped)
        for name, (kernel, word) in _REDUCE_ALL.items():
            fn = getattr(space, name, None)
            if callable(fn) and not getattr(fn, "_complex_refusal", False):
                wrapped = _refusing_reduce(fn, kernel, word)
                wrapped._complex_refusal = True
                setattr(space, name, wrapped)
