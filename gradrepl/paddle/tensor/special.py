"""Special functions and the remaining elementwise math of ``paddle``: inverse hyperbolics,
lgamma/digamma/polygamma, erfinv, Bessel i0/i0e/i1/i1e, gammainc/gammaincc, logit, sinc, frac,
atan2, copysign, hypot, ldexp, nextafter, gcd, lcm, logaddexp, heaviside, signbit, isposinf...

Integer inputs compute in float32 where Paddle 3 autocasts them (its ``int_math_autocast``
profile field); the engine ops are ``engine/ops/special.py``.
"""
from __future__ import annotations

import math as _math

import numpy as np

from ...engine.ops import math as M
from ...engine.ops import special as SP
from ...engine.tensor import Tensor as _T
from .. import dtypes, profiles, promotion
from ..core import Tensor, as_tensor
from .math import _kernel_error, _unary

__all__ = ["asinh", "acosh", "atanh", "lgamma", "gammaln", "digamma", "polygamma", "erfinv",
           "i0", "i0e", "i1", "i1e", "gammainc", "gammaincc", "logit", "sinc", "frac",
           "rad2deg", "deg2rad", "atan2", "copysign", "hypot", "ldexp", "nextafter", "gcd", "lcm",
           "logaddexp", "heaviside", "signbit", "isposinf", "isneginf", "isin", "positive",
           "negative", "nan_to_num", "multigammaln"]
__methods__ = list(__all__)

asinh = _unary("asinh", SP.asinh, "autocast")
acosh = _unary("acosh", SP.acosh, "autocast")
atanh = _unary("atanh", SP.atanh, "autocast")
lgamma = _unary("lgamma", SP.lgamma, "autocast")
gammaln = _unary("gammaln", SP.lgamma, "autocast")
digamma = _unary("digamma", lambda x: SP.digamma(x, profiles.current().digamma_zero),
                 "autocast")
erfinv = _unary("erfinv", SP.erfinv, "autocast")
i0 = _unary("i0", SP.i0, "autocast")
i0e = _unary("i0e", SP.i0e, "autocast")
i1 = _unary("i1", SP.i1, "autocast")
i1e = _unary("i1e", SP.i1e, "autocast")
def _sinc_composed(x):
    """Paddle 3's python sinc, op for op: where(x != 0, x, 1e-20) * to_tensor(pi, x.dtype),
    sin(t) / t, then 1 where that is NaN (float32 arithmetic throughout, and its gradient
    through those ops: measured bit for bit on 3.3.1; the float64 sin(pi x) / (pi x) rounded
    once was up to 1e-4 off in float32)."""
    import gradrepl.paddle as paddle

    tmp = paddle.where(x != 0, x, paddle.full_like(x, 1.0e-20))
    tmp = paddle.multiply(tmp, paddle.to_tensor(_math.pi, dtype=x.dtype))
    tmp = paddle.divide(tmp.sin(), tmp)
    return paddle.where(~paddle.isnan(tmp), tmp, paddle.full_like(x, 1.0))


def _sinc(x):
    if x.data.dtype.kind != "f" or x.data.dtype == np.float16:
        return SP.sinc(x)
    return _sinc_composed(x)


sinc = _unary("sinc", _sinc, "autocast")


def _float_in(x, fname, allowed=("float16", "float32", "float64")):
    x = as_tensor(x)
    if x.data.dtype.name not in allowed:
        raise TypeError(f"The data type of 'x' in {fname} must be one of {list(allowed)}, but "
                        f"received {x.data.dtype.name}.")
    return x


def polygamma(x, n, name=None):
    """The n-th derivative of digamma (n >= 0)."""
    if not isinstance(n, int) or n < 0:
        raise ValueError(f"The input of n must be a non-negative int, but received {n}.")
    x = as_tensor(x)
    if x.data.dtype.kind in "iub":
        x = M.cast(x, np.float32)
    return SP.polygamma(x, n)


def _paddle():
    """The ``paddle`` namespace, for the functions Paddle writes in Python over its API."""
    from ... import paddle as _p

    return _p


def multigammaln(x, p, name=None):
    """log of the multivariate gamma function of dimension p (Paddle's composition)."""
    paddle = _paddle()
    if p < 1:
        raise AssertionError(f"The p must be greater than or equal to 1, But received p is {p}.\n")
    c = 0.25 * p * (p - 1) * _math.log(_math.pi)
    b = 0.5 * paddle.arange(start=(1 - p), end=1, step=1, dtype=x.dtype)
    return paddle.sum(paddle.lgamma(x.unsqueeze(-1) + b), axis=-1) + c


def _gammainc(x, y, upper):
    x, y = as_tensor(x), as_tensor(y)
    for t, what in ((x, "x"), (y, "y")):
        if (t.data < 0).any():
            raise ValueError(f"The input argument {what} must be greater than or equal to 0.")
    return SP.gammainc(x, y, upper)


def gammainc(x, y, name=None):
    """The regularized lower incomplete gamma function P(x, y)."""
    return _gammainc(x, y, False)


def gammaincc(x, y, name=None):
    """The regularized upper incomplete gamma function Q(x, y) = 1 - P(x, y)."""
    return _gammainc(x, y, True)


def logit(x, eps=None, name=None):
    """log(x / (1 - x)), x first clipped to [eps, 1 - eps] when eps is given."""
    x = _float_in(x, "logit")
    return SP.logit(x, None if eps is None else float(eps), profiles.current().logit_eps32)


def frac(x, name=None):
    """The fractional part ``x - trunc(x)`` (integers: 0)."""
    x = as_tensor(x)
    if x.data.dtype.name not in ("int32", "int64", "float16", "float32", "float64"):
        raise TypeError(f"The data type of input must be one of ['int32', 'int64', 'float32', "
                        f"'float64'], but got {dtypes.from_np(x.data.dtype)}")
    if x.data.dtype.kind in "iu":
        return Tensor._wrap(np.zeros_like(x.data), True)
    return M.subtract(x, M.trunc(x))


def rad2deg(x, name=None):
    """x * 180 / pi (integers compute in float32)."""
    x = as_tensor(x)
    if x.data.dtype.kind in "iub":
        x = M.cast(x, np.float32)
    return M.scale(x, 180.0 / np.pi)


def deg2rad(x, name=None):
    x = as_tensor(x)
    if x.data.dtype.kind in "iub":
        x = M.cast(x, np.float32)
    return M.scale(x, np.pi / 180.0)


def _pair(x, y):
    from .math import _cast

    x, y = as_tensor(x), as_tensor(y)
    if x.data.dtype != y.data.dtype:
        dt = promotion.binary(x.data.dtype, y.data.dtype, x.data.ndim == 0, y.data.ndim == 0,
                              "add")
        x, y = _cast(x, dt), _cast(y, dt)
    return x, y


def atan2(x, y, name=None):
    """The angle of the point (y, x)... as Paddle: atan2(x, y) = arctan(x / y) with quadrant;
    integer inputs compute in float64."""
    x, y = as_tensor(x), as_tensor(y)
    if x.data.dtype.kind in "iub":
        x = M.cast(x, np.float64)
    if y.data.dtype.kind in "iub":
        y = M.cast(y, np.float64)
    x, y = _pair(x, y)
    return SP.atan2(x, y)


def copysign(x, y, name=None):
    """|x| with the sign of y (integers compute in float32)."""
    x, y = as_tensor(x), as_tensor(y) if isinstance(y, _T) else y
    if not isinstance(y, _T):
        y = Tensor._wrap(np.full(x.data.shape, y, x.data.dtype), True)
    if x.data.dtype.kind in "iub" and y.data.dtype.kind in "iub":
        x, y = M.cast(x, np.float32), M.cast(y, np.float32)
    x, y = _pair(x, y)
    return SP.copysign(x, y)


def hypot(x, y, name=None):
    """sqrt(x ** 2 + y ** 2), as Paddle composes it."""
    x, y = as_tensor(x), as_tensor(y)
    if x.data.dtype.kind in "iub":
        x = M.cast(x, np.float32)
    if y.data.dtype.kind in "iub":
        y = M.cast(y, np.float32)
    return M.sqrt(M.add(M.pow_scalar(x, 2.0), M.pow_scalar(y, 2.0)))


def ldexp(x, y, name=None):
    """x * 2 ** y, as Paddle composes it (y must be an integer tensor)."""
    from .math import multiply, pow as _pow

    x, y = as_tensor(x), as_tensor(y)
    if y.data.dtype.kind not in "iu":
        raise TypeError(f"The data type of 'y' in ldexp must be int32 or int64, but received "
                        f"{y.data.dtype.name}.")
    if x.data.dtype.kind in "iub":
        x = M.cast(x, np.float32)
    two = Tensor._wrap(np.full((1,), 2, np.float32 if x.data.dtype != np.float64 else
                               np.float64), True)
    return multiply(x, _pow(two, M.cast(y, two.data.dtype)))


def nextafter(x, y, name=None):
    """The next representable value after x toward y (no gradient)."""
    x, y = as_tensor(x), as_tensor(y)
    return Tensor._wrap(np.nextafter(x.data, y.data).astype(x.data.dtype), True)


def _int_pair(x, y, fname):
    x, y = as_tensor(x), as_tensor(y)
    for t in (x, y):
        if t.data.dtype.name not in ("int32", "int64", "int8", "int16", "uint8"):
            raise TypeError(f"The data type of input must be one of ['int32', 'int64', 'int8', "
                            f"'int16', 'uint8'], but got {dtypes.from_np(t.data.dtype)}")
    shape = np.broadcast_shapes(x.data.shape, y.data.shape)
    return np.broadcast_to(x.data, shape), np.broadcast_to(y.data, shape)


def gcd(x, y, name=None):
    a, b = _int_pair(x, y, "gcd")
    return Tensor._wrap(np.gcd(a, b).astype(np.result_type(a, b)), True)


def lcm(x, y, name=None):
    a, b = _int_pair(x, y, "lcm")
    out = np.where((a == 0) | (b == 0), 0, np.abs(a * b) // np.maximum(np.gcd(a, b), 1))
    return Tensor._wrap(out.astype(np.result_type(a, b)), True)


def logaddexp(x, y, name=None):
    """log(exp(x) + exp(y)), as Paddle composes it: max + log1p(exp(-|x - y|))."""
    x, y = as_tensor(x), as_tensor(y)
    if x.data.dtype.kind in "iub":
        x = M.cast(x, np.float32)
    if y.data.dtype.kind in "iub":
        y = M.cast(y, np.float32)
    x, y = _pair(x, y)
    m = M.maximum(x, y)
    return M.add(m, M.log1p(M.exp(M.neg(M.abs(M.subtract(x, y))))))


def heaviside(x, y, name=None):
    """0 where x < 0, y where x == 0, 1 where x > 0."""
    x, y = as_tensor(x), as_tensor(y)
    if x.data.dtype != y.data.dtype:
        raise TypeError(f"The data type of x and y must be the same, but got "
                        f"{dtypes.from_np(x.data.dtype)} and {dtypes.from_np(y.data.dtype)}")
    return SP.heaviside(x, y)


def signbit(x, name=None):
    """True where the sign bit is set (-0. included)."""
    x = as_tensor(x)
    allowed = ["float16", "float32", "float64", "bfloat16", "uint8", "int8", "int16", "int32",
               "int64"]
    if x.data.dtype.name not in allowed:
        raise TypeError(f"The data type of input must be one of {allowed}, but got "
                        f"{dtypes.from_np(x.data.dtype)}")
    return Tensor._wrap(np.signbit(x.data), True)


def _inf_test(x, positive):
    x = as_tensor(x)
    if x.data.dtype.kind != "f":
        return Tensor._wrap(np.zeros(x.data.shape, bool), True)
    return Tensor._wrap(np.isposinf(x.data) if positive else np.isneginf(x.data), True)


def isposinf(x, name=None):
    return _inf_test(x, True)


def isneginf(x, name=None):
    return _inf_test(x, False)


def isin(x, test_x, assume_unique=False, invert=False, name=None):
    """True where an element of x occurs in test_x. With ``assume_unique`` Paddle's stable
    argsort method, whose answer is only right when both hold unique values (as Paddle's)."""
    if not isinstance(x, _T):
        raise TypeError(f"x must be tensor type, but got {type(x)}")
    if not isinstance(test_x, _T):
        raise TypeError(f"x must be tensor type, but got {type(test_x)}")
    a, t = x.data.reshape(-1), test_x.data.reshape(-1)
    if assume_unique and t.size >= (max(a.size, 1) ** 0.145) * 10.0:
        both = np.concatenate([a, t.astype(a.dtype)])
        order = np.argsort(both, kind="stable")
        srt = both[order]
        dup = np.zeros(both.shape, bool)
        dup[:-1] = srt[1:] == srt[:-1]
        if invert:
            dup = ~dup
        mask = np.empty(both.shape, bool)
        mask[order] = dup
        return Tensor._wrap(mask[:a.size].reshape(x.data.shape), True)
    return Tensor._wrap(np.isin(x.data, test_x.data, invert=invert), True)


def positive(x, name=None):
    x = as_tensor(x)
    if x.data.dtype.kind == "b":
        raise TypeError("The `+` operator, on a bool tensor is not supported.")
    return x


def negative(x, name=None):
    from .math import neg

    return neg(x)


def nan_to_num(x, nan=0.0, posinf=None, neginf=None, name=None):
    """NaN -> nan, +inf -> posinf (the dtype's max), -inf -> neginf (its lowest); the gradient
    passes where x was finite."""
    x = as_tensor(x)
    if x.data.dtype.kind != "f":
        return x
    info = np.finfo(x.data.dtype)
    pos = info.max if posinf is None else posinf
    neg = info.min if neginf is None else neginf
    from ...engine.ops import search as S

    a = x.data
    bad = ~np.isfinite(a)
    if not bad.any():
        return M.scale(x, 1.0, 0.0) if not x.stop_gradient else Tensor._wrap(np.array(a), True)
    fill = np.where(np.isnan(a), nan, np.where(a > 0, pos, neg)).astype(a.dtype)
    # Paddle composes wheres: 2.x's where gradient dout * mask leaves dout * 0 (-0.0 for a
    # negative dout) where x was not finite, 3.x's select +0.0 (measured 2.6.2 / 3.3.1)
    return S.where(Tensor._wrap(bad, True), Tensor._wrap(fill, True), x,
                   grad=profiles.current().where_grad)


del _kernel_error
