"""``torch.special``: torch 2.13's special functions on the engine's ``special_torch`` ops
(torch's CPU kernels: Cephes series in the tensor's precision), with torch's backward names
(``SpecialErfcxBackward0``, ``DigammaBackward0`` ...). The Bessel functions and the orthogonal
polynomials take no gradient, as in torch (their results have no ``grad_fn``)."""
from __future__ import annotations

import numpy as np

from ..engine.ops import special_torch as ST
from ..engine.registry import OPS, apply
from . import _dtypes, _ops
from ._base import EngineTensor, raw
from ._ops import top
from ._tensor import Tensor

_wrap = Tensor._wrap

__all__ = ["airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1",
           "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
           "chebyshev_polynomial_w", "digamma", "entr", "erf", "erfc", "erfcx", "erfinv", "exp2",
           "expit", "expm1", "gammainc", "gammaincc", "gammaln", "hermite_polynomial_h",
           "hermite_polynomial_he", "i0", "i0e", "i1", "i1e", "laguerre_polynomial_l",
           "legendre_polynomial_p", "log1p", "log_ndtr", "log_softmax", "logit", "logsumexp",
           "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0",
           "modified_bessel_k1", "multigammaln", "ndtr", "ndtri", "polygamma", "psi", "round",
           "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
           "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
           "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w", "sinc", "softmax",
           "spherical_bessel_j0", "xlog1py", "xlogy", "zeta"]


def _float(x):
    """An integer/bool tensor in the default float dtype (torch's promotion for these ops)."""
    if not isinstance(x, EngineTensor):
        from ._creation import tensor

        x = tensor(x)
    a = raw(x)
    if a.dtype.kind not in "fc":
        return _wrap(a.astype(_dtypes.default_float()), True)
    return x


def _out(t, out):
    return _ops._out(t, out)


def _unary(base, name, saves="in0"):
    def f(input, *, out=None):  # noqa: A002
        return _out(apply(top(base, name, saves), (_float(input),)), out)
    f.__name__ = base.replace("torch_", "")
    return f


erfc = _unary("torch_erfc", "ErfcBackward0")
erfcx = _unary("torch_erfcx", "SpecialErfcxBackward0", "all")
erfinv = _unary("torch_erfinv", "ErfinvBackward0", "out")
ndtri = _unary("torch_ndtri", "SpecialNdtriBackward0", "out")
log_ndtr = _unary("torch_log_ndtr", "SpecialLogNdtrBackward0", "all")
entr = _unary("torch_entr", "SpecialEntrBackward0")
sinc = _unary("torch_sinc", "SincBackward0")
gammaln = _unary("torch_lgamma", "LgammaBackward0")


def _lgamma_f32(x):   # SLEEF's lgammaf on every value, in torch's vector builds
    from . import _capability
    from ._elementwise_more import lgammaf_u10

    return None if _capability.capability() == "DEFAULT" else lgammaf_u10(x)


def _trigamma_f32(x):   # ATen's calc_trigamma with GCC's fused multiply-adds
    from . import _capability
    from ._elementwise_more import trigamma_f32

    return None if _capability.capability() == "DEFAULT" else trigamma_f32(x)


ST.FLOAT32["lgamma"] = _lgamma_f32
ST.FLOAT32["trigamma"] = _trigamma_f32
lgamma = gammaln
digamma = _unary("torch_digamma", "DigammaBackward0")
psi = digamma
i0 = _unary("torch_i0", "I0Backward0")
i0e = _unary("torch_i0e", "SpecialI0EBackward0", "all")
i1 = _unary("torch_i1", "SpecialI1Backward0", "all")
i1e = _unary("torch_i1e", "SpecialI1EBackward0", "all")
erf = _ops.erf
exp2 = _ops.exp2
expm1 = _ops.expm1
log1p = _ops.log1p
expit = _ops.sigmoid
logsumexp = _ops.logsumexp


def round(input, *, decimals=0, out=None):  # noqa: A001,A002
    return _out(_ops.round(input, decimals=decimals), out)


def softmax(input, dim, *, dtype=None):  # noqa: A002
    from .nn.functional import softmax as sm

    return sm(input, dim, dtype=dtype)


def log_softmax(input, dim, *, dtype=None):  # noqa: A002
    from .nn.functional import log_softmax as lsm

    return lsm(input, dim, dtype=dtype)


def ndtr(input, *, out=None):  # noqa: A002
    """ATen's composite: (1 + erf(x / sqrt(2))) * 0.5."""
    x = _float(input)
    return _out(_ops.mul(_ops.add(_ops.erf(_ops.mul(x, 0.7071067811865476)), 1), 0.5), out)


def logit(input, eps=None, *, out=None):  # noqa: A002
    return _out(apply(top("logit", "LogitBackward0", "in0", forward=_logit_fwd), (_float(input),),
                      {"eps": eps} if eps is not None else None), out)


def _logit_fwd(x, eps=None, **kw):
    from ._elementwise_more import logit as torch_logit   # torch's log of x / (1 - x)

    out = torch_logit(x, eps)
    return OPS["logit"].forward(x, **({"eps": eps} if eps is not None else {})) \
        if out is None else out


def polygamma(n, input, *, out=None):  # noqa: A002
    n = int(n)
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    x = _float(input)
    if n == 0:
        return _out(digamma(x), out)
    return _out(apply(top("torch_polygamma", "PolygammaBackward0", "in0"), (x,), {"n": n}), out)


def multigammaln(input, p, *, out=None):  # noqa: A002
    x = _float(input)
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    if raw(x).size and not (raw(x) > 0.5 * (p - 1)).all():
        raise RuntimeError("All elements must be greater than (p-1)/2")
    return _out(apply(top("torch_mvlgamma", "MvlgammaBackward0", "in0"), (x,), {"p": int(p)}),
                out)


mvlgamma = multigammaln


def _pair(a, b):
    """Two operands (tensors or numbers) in their promoted float dtype; which one was a
    number (torch's overload: 0 both tensors, 1 a number first, 2 a number second)."""
    overload = 1 if not isinstance(a, EngineTensor) else (2 if not isinstance(b, EngineTensor)
                                                        else 0)
    dt = _dtypes.result_type(a, b)
    if dt.kind not in "fc":
        dt = np.dtype(_dtypes.default_float())
    return _ops._operand(a, dt), _ops._operand(b, dt), overload


def _binary(base, name, attrs=None):
    def f(input, other, *, out=None):  # noqa: A002
        a, b, k = _pair(input, other)
        op = _both(top(base, f"{name}{k}", "all", inputs=(1,) if k == 1 else
                       ((0,) if k == 2 else None)))
        return _out(apply(op, (a, b), attrs), out)
    return f


xlogy = _binary("torch_xlogy", "XlogyBackward")
xlog1py = _binary("torch_xlog1py", "SpecialXlog1PyBackward")
zeta = _binary("torch_zeta", "SpecialZetaBackward")


def _both(op):
    """torch's node takes both inputs (its backward then says the first one's derivative is
    not implemented); the engine op lists only the second for the gradient check."""
    op.diff_inputs = None
    return op


def gammainc(input, other, *, out=None):  # noqa: A002
    a, b, _k = _pair(input, other)
    return _out(apply(_both(top("torch_igamma", "IgammaBackward0", "all")), (a, b)), out)


def gammaincc(input, other, *, out=None):  # noqa: A002
    a, b, _k = _pair(input, other)
    return _out(apply(_both(top("torch_igamma", "IgammacBackward0", "all")), (a, b),
                      {"upper": True}), out)


# ------------------------------------------------------------------ no gradient in torch
def _plain(kernel, name):
    def f(input, *, out=None):  # noqa: A002
        x = _float(input)
        return _out(_wrap(np.asarray(kernel(raw(x))).reshape(raw(x).shape), True), out)
    f.__name__ = name
    return f


for _name in ("bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0",
              "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1",
              "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "spherical_bessel_j0",
              "airy_ai"):
    globals()[_name] = _plain(getattr(ST, _name + "_k"), _name)


def _poly(kind, name):
    def f(input, n, *, out=None):  # noqa: A002
        x = raw(input) if isinstance(input, EngineTensor) else np.asarray(input)
        nn = raw(n) if isinstance(n, EngineTensor) else np.asarray(n)
        if not isinstance(input, EngineTensor) and not isinstance(n, EngineTensor):
            raise TypeError(f"{name}() received an invalid combination of arguments")
        dt = _dtypes.result_type(input, n)
        if dt.kind not in "fc":
            dt = np.dtype(_dtypes.default_float())
        res = ST.polynomial_k(kind, x.astype(dt), nn.astype(dt))
        return _out(_wrap(np.asarray(res, dt), True), out)
    f.__name__ = name
    return f


for _kind, _name in (("t", "chebyshev_polynomial_t"), ("u", "chebyshev_polynomial_u"),
                     ("v", "chebyshev_polynomial_v"), ("w", "chebyshev_polynomial_w"),
                     ("h", "hermite_polynomial_h"), ("he", "hermite_polynomial_he"),
                     ("l", "laguerre_polynomial_l"), ("p", "legendre_polynomial_p"),
                     ("shifted_t", "shifted_chebyshev_polynomial_t"),
                     ("shifted_u", "shifted_chebyshev_polynomial_u"),
                     ("shifted_v", "shifted_chebyshev_polynomial_v"),
                     ("shifted_w", "shifted_chebyshev_polynomial_w")):
    globals()[_name] = _poly(_kind, _name)
del _kind, _name
