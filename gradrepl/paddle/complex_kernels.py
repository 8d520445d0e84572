"""Paddle's CPU kernels without complex64/complex128: the functions that refuse a complex tensor
with Paddle's NotFound error, per version (measured on real Paddle 2.6.2 and 3.3.1 here, issue
28's complex sweep). One table; ``install`` wraps each name's namespace function, Tensor method
and ``paddle.linalg`` / ``paddle.nn.functional`` function, so the refusal comes before numpy
computes a value Paddle never would (``clip`` of complex values, ``rsqrt`` of them, 2.6's
``log`` ...).

A row: name -> (kernel, the dtypes 2.6.2 lists, the dtypes 3.3.1 lists); None where that
version has the complex kernel. The lists are Paddle's own order (its kernel map's), as printed.
"""
from __future__ import annotations

import functools

from . import profiles

_F = "float64, float32"
_I4F = "int32, int64, float64, float32"
_LOG = "int64, float64, float16, float32, int32, bfloat16"

TABLE = {
    "addmm": ("addmm", _F, _F),
    "allclose": ("allclose", _F, "int32, int64, float64, float32, bool"),
    "atan2": ("atan2", "int32, int64, float64, float16, float32",
              "int32, int64, float64, float16, float32"),
    "bmm": ("bmm", _F, _F),
    "cholesky": ("cholesky", None, _F),
    "clip": ("clip", _I4F, _I4F),
    "cross": ("cross", _I4F, None),
    "cumsum": ("cumsum", "int32, int64, int16, float64, float32", None),
    "det": ("determinant", _F, None),
    "dist": ("dist", _F, _F),
    "equal_all": ("equal_all", None, "int32, int64, float64, float32, bool"),
    "floor": ("floor", _F, "int16, float64, float16, float32, int32, uint8, bfloat16, int64, int8"),
    "inv": ("inverse", _F, None),
    "inverse": ("inverse", _F, None),
    "isnan": ("isnan", _LOG, None),
    "lerp": ("lerp", _F, _F),
    "log": ("log", _LOG, None),
    "log10": ("log10", _LOG, None),
    "log1p": ("log1p", _LOG, None),
    "log2": ("log2", _LOG, None),
    "matrix_power": ("matrix_power", _F, None),
    "max": ("max", _I4F, _I4F),
    "maximum": ("maximum", "int64, float64, float32, int32, bfloat16",
                "int64, float64, float32, int32, bfloat16"),
    "multi_dot": ("multi_dot", _F, _F),
    "mv": ("mv", _F, _F),
    "nonzero": ("nonzero", "int64, int16, float64, float32, bool, int32, bfloat16", None),
    "reciprocal": ("reciprocal", _F, None),
    "rsqrt": ("rsqrt", _F, _F),
    "sign": ("sign", "int16, float64, int32, uint8, float32, int64, int8", None),
    "solve": ("solve", _F, _F),
    "sqrt": ("sqrt", _F, None),
    "sqrt_": ("sqrt", _F, None),
    "square": ("square", _I4F, None),
    "std": ("pow", _I4F, None),
    "svdvals": ("svdvals", None, _F),
    "__lt__": ("less_than", "int16, float64, float16, float32, int32, uint8, bfloat16, bool, "
               "int64, int8", None),
    "__eq__": ("equal", "int16, float64, float16, float32, int32, uint8, bfloat16, bool, int64, "
               "int8", None),
}

# x ** number is the ``pow`` kernel, x ** tensor and number ** x ``elementwise_pow``
_POW = {"pow": _I4F, "elementwise_pow": "int64, float64, float32, int32, bfloat16"}


def _version():
    return 1 if profiles.current().kernel_set == "3" else 0


def _complex_name(args):
    from ..engine.tensor import Tensor

    for a in args:
        for t in (a if isinstance(a, (list, tuple)) else (a,)):   # (multi_dot's list)
            if isinstance(t, Tensor) and t.data.dtype.kind == "c":
                return t.data.dtype.name
    return None


def not_found(kernel, dtype_name, listed):
    from .promotion import kernel_hint

    return RuntimeError(
        f"(NotFound) The kernel with key (CPU, Undefined(AnyLayout), {dtype_name}) of kernel "
        f"`{kernel}` is not registered. Selected wrong DataType `{dtype_name}`. Paddle support "
        f"following DataTypes: {listed}." + kernel_hint())


def _refusing(fn, kernel, lists, where_args=False):
    @functools.wraps(fn)
    def run(*args, **kwargs):
        listed = lists[_version()]
        if listed is not None:
            name = _complex_name(args[1:3] if where_args else args[:2])
            if name is not None:
                raise not_found(kernel, name, listed)
        return fn(*args, **kwargs)
    run._complex_refusal = True
    return run


def _refusing_pow(fn, reflected):
    @functools.wraps(fn)
    def run(self, other, *args, **kwargs):
        if _version() == 0 and self.data.dtype.kind == "c":
            from ..engine.tensor import Tensor

            kernel = "elementwise_pow" if reflected or isinstance(other, Tensor) else "pow"
            raise not_found(kernel, self.data.dtype.name, _POW[kernel])
        return fn(self, other, *args, **kwargs)
    run._complex_refusal = True
    return run


def install(spaces, tensor_class):
    """Wrap the listed names of ``spaces`` (modules) and of ``tensor_class`` (or None)."""
    if tensor_class is None:
        for space in spaces:
            for name, (kernel, *lists) in TABLE.items():
                fn = getattr(space, name, None)
                if callable(fn) and not getattr(fn, "_complex_refusal", False):
                    setattr(space, name, _refusing(fn, kernel, lists))
        return
    for space in list(spaces) + [tensor_class]:
        for name, (kernel, *lists) in TABLE.items():
            fn = getattr(space, name, None)
            if callable(fn) and not getattr(fn, "_complex_refusal", False):
                setattr(space, name, _refusing(fn, kernel, lists))
        fn = getattr(space, "where", None)
        if space is not tensor_class and callable(fn) and not getattr(fn, "_complex_refusal",
                                                                      False):
            setattr(space, "where", _refusing(fn, "where", (_I4F, None), where_args=True))
    for space, name, reflected in ((tensor_class, "__pow__", False),
                                   (tensor_class, "__rpow__", True), (tensor_class, "pow", False),
                                   (spaces[0], "pow", False)):
        fn = getattr(space, name, None)
        if callable(fn) and not getattr(fn, "_complex_refusal", False):
            setattr(space, name, _refusing_pow(fn, reflected))
