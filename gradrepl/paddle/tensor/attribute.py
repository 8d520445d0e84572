"""Attributes and complex numbers: ``real``/``imag``/``conj``/``angle``, ``complex``/``polar``,
``as_complex``/``as_real``, ``is_complex``/``is_floating_point``/``is_integer``, ``isreal``,
``sgn``. The engine side (and the gradient convention for complex values) is
``engine/ops/complex.py``.
"""
from __future__ import annotations

import numpy as np

from ...engine.ops import complex as C
from ...engine.ops import math as M
from ...engine.tensor import Tensor as _T
from .. import dtypes, profiles, promotion
from ..core import Tensor, as_tensor
from ._args import extra_kwargs

__all__ = ["real", "imag", "conj", "angle", "complex", "polar", "as_complex", "as_real",
           "is_complex", "is_floating_point", "is_integer", "isreal", "sgn"]
__methods__ = ["real", "imag", "conj", "angle", "as_complex", "as_real", "is_complex",
               "is_floating_point", "is_integer", "isreal", "sgn"]


def _not_registered(kernel, dtype, have):
    name = np.dtype(dtype).name
    return RuntimeError(
        f"(NotFound) The kernel with key (CPU, Undefined(AnyLayout), {name}) of kernel `{kernel}` "
        f"is not registered. Selected wrong DataType `{name}`. Paddle support following "
        f"DataTypes: {have}." + promotion.kernel_hint())


def _type_error(what, allowed, x):
    return TypeError(f"The data type of input must be one of {allowed}, but got "
                     f"{dtypes.from_np(x.data.dtype)}")


def real(x, name=None):
    """The real part of a complex tensor (float32 for complex64)."""
    x = as_tensor(x)
    if x.data.dtype.kind != "c":
        raise _not_registered("real", x.data.dtype, "complex128, complex64")
    return C.real(x)


def imag(x, name=None):
    x = as_tensor(x)
    if x.data.dtype.kind != "c":
        raise _not_registered("imag", x.data.dtype, "complex128, complex64")
    return C.imag(x)


def conj(x, name=None):
    """The complex conjugate; a real tensor is returned as it is (a new tensor)."""
    x = as_tensor(x)
    if x.data.dtype.kind != "c":
        return C.conj(x) if not x.stop_gradient else Tensor._wrap(np.array(x.data), True)
    return C.conj(x)


def angle(x, name=None):
    """The argument of each element: atan2(imag, real) for complex, 0 or pi for real."""
    x = as_tensor(x)
    if x.data.dtype.kind in "iub":
        raise _not_registered("angle", x.data.dtype, "float64, complex128, float32")
    return C.angle(x)


@extra_kwargs("out")
def complex(real, imag, name=None):  # noqa: A001 - Paddle's name
    """``real + 1j * imag`` (the two broadcast; float32 gives complex64)."""
    from ..complex_kernels import not_found

    if real.data.dtype.kind != "f":   # (real 2.6.2 and 3.3.1: the kernel's NotFound)
        raise not_found("complex", real.data.dtype.name, "float64, float32")
    if real.data.dtype != imag.data.dtype:   # (the kernel reads imag as real's dtype)
        codes = {"float32": 10, "float64": 11}
        rn, im = real.data.dtype.name, imag.data.dtype.name
        line = 153 if profiles.current().api3 else 171
        raise ValueError(
            f"(InvalidArgument) The type of data we are trying to retrieve ({rn}) does not match "
            f"the type of data ({im}) currently contained in the container.\n  [Hint: Expected "
            f"dtype() == phi::CppTypeToDataType<T>::Type(), but received dtype():"
            f"{codes.get(im, 0)} != phi::CppTypeToDataType<T>::Type():{codes.get(rn, 0)}.] (at "
            f"/paddle/paddle/phi/core/dense_tensor.cc:{line})\n")
    return C.complex_(real, imag)


@extra_kwargs("out")
def polar(abs, angle, name=None):  # noqa: A002 - Paddle's names
    """``abs * (cos(angle) + 1j * sin(angle))``, as Paddle composes it."""
    from .math import cos, multiply, sin

    return complex(multiply(abs, cos(angle)), multiply(abs, sin(angle)))


def as_complex(x, name=None):
    """A real tensor whose last axis has size 2 read as complex numbers (one axis less)."""
    if x.data.dtype.kind != "f" or x.data.dtype == np.float16:
        raise TypeError(f"The data type of 'x' in as_complex must be one of ['float32', "
                        f"'float64'], but received {x.data.dtype.name}.")
    if x.data.ndim and x.data.shape[-1] != 2:   # (phi/infermeta/unary.cc's AsComplexInferMeta)
        k = x.data.shape[-1]
        line = 425 if profiles.current().api3 else 356
        raise ValueError(
            "(InvalidArgument) The size of the last dimension of input(X)does not equals 2."
            f"Expected the size of last dimension of input(X) to be 2.But received {k}\n  [Hint: "
            f"Expected last_dim_size == 2, but received last_dim_size:{k} != 2:2.] (at "
            f"/paddle/paddle/phi/infermeta/unary.cc:{line})\n")
    if not x.data.ndim:
        raise ValueError(
            "(InvalidArgument) Expected the rank of input(X) to be greater than 0 and the last "
            f"dimension to be 2, but received {list(x.data.shape)}.")
    return C.as_complex(x)


def as_real(x, name=None):
    """A complex tensor as a real one with a last axis of size 2 (real, imaginary)."""
    if x.data.dtype.kind != "c":   # (real 2.6.2 and 3.3.1: the kernel's NotFound)
        from ..complex_kernels import not_found

        raise not_found("as_real", x.data.dtype.name, "complex128, complex64")
    return C.as_real(x)


def is_complex(x):
    if not isinstance(x, _T):
        raise TypeError(f"Expected Tensor, but received type of x: {type(x)}")
    return x.data.dtype.kind == "c"


def is_floating_point(x):
    if not isinstance(x, _T):
        raise TypeError(f"Expected Tensor, but received type of x: {type(x)}")
    return x.data.dtype.kind == "f" or x.data.dtype == np.uint16  # bfloat16's bits


def is_integer(x):
    if not isinstance(x, _T):
        raise TypeError(f"Expected Tensor, but received type of x: {type(x)}")
    return x.data.dtype.kind in "iu"


def isreal(x, name=None):
    """True where the imaginary part is 0 (always True for a real tensor)."""
    if not isinstance(x, _T):
        raise TypeError(f"Input x should be a paddle.Tensor, but got {type(x)}")
    if x.data.dtype.kind != "c":
        return Tensor._wrap(np.ones(x.data.shape, np.bool_), True)
    return Tensor._wrap(np.asarray(np.imag(x.data) == 0), True)


def sgn(x, name=None):
    """``x / |x|`` for complex elements (0 at 0), the sign for real ones."""
    x = as_tensor(x)
    allowed = ["float16", "float32", "float64", "complex64", "complex128"]
    if x.data.dtype.name not in allowed:
        raise _type_error("sgn", allowed, x)
    if x.data.dtype.kind != "c":
        return M.sign(x)
    # Paddle's composition: as_real(x) / |x| per component, NaN (0 / 0) -> 0, as_complex
    from ...engine.ops import search as S
    from ...engine.ops import shape as SH
    from .math import abs as _abs

    parts = C.as_real(x)
    mag = SH.unsqueeze(_abs(x), [x.data.ndim])
    out = M.divide(parts, mag)
    nan = np.isnan(out.data)
    if nan.any():
        out = S.where(Tensor._wrap(nan, True), Tensor._wrap(np.zeros_like(out.data), True), out)
    return C.as_complex(out)
