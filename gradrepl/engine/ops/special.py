"""Special functions and the remaining elementwise math: inverse hyperbolics, lgamma, digamma,
polygamma, erfinv, the modified Bessel functions i0/i0e/i1/i1e, the regularized incomplete
gamma functions, logit, sinc, frac, atan2, copysign, heaviside.

No scipy: the functions are written here, from their classical series (Cephes' Chebyshev
expansions for the Bessel functions, Euler-Maclaurin for the Hurwitz zeta, series and continued
fraction for the incomplete gamma), in float64, then rounded to the tensor's dtype; where
Paddle calls the C library (lgammaf, asinhf ...) so does gradrepl. Each VJP is written with
these ops, so gradients of gradients work (digamma's derivative is polygamma(1), and so on).
"""
from __future__ import annotations

import ctypes
import math as _math

import numpy as np

from ..registry import apply, register
from . import _kernels as K
from ._util import const, quiet
from .math import (add, cos, divide, exp, multiply, neg, reciprocal, scale, sign, sin, sqrt,
                   square, subtract, times, unary)

_F32 = np.dtype(np.float32)


def _float(fn):
    """An elementwise float64 function computed for float32/float64 inputs (integers in
    float32), rounded to the input's dtype."""
    def fwd(x, **attrs):
        dt = x.dtype if x.dtype.kind == "f" else _F32
        with quiet(all="ignore"):
            out = fn(x.astype(np.float64), **attrs)
        return np.asarray(out).astype(dt)
    fwd.__name__ = getattr(fn, "__name__", "fwd")
    return fwd


def _libm_or(name, f64):
    """The C library's ``<name>f`` for float32 (what Paddle's std:: calls reach), float64 by
    ``f64`` (libm's double function when there is one)."""
    f32 = K.libm(name, f64)
    d64 = K.libm64(name, f64)

    def fwd(x):
        if x.dtype.kind == "c":   # (complex values: numpy's complex functions, in their dtype)
            with quiet(all="ignore"):
                return np.asarray(f64(x)).astype(x.dtype)
        if x.dtype.kind != "f":
            x = x.astype(_F32)
        if x.dtype == _F32:
            return f32(x)
        if x.dtype == np.float16:
            return f32(x.astype(_F32)).astype(np.float16)
        return d64(x)
    return fwd


# ============================================================== inverse hyperbolic functions
ASINH = unary("asinh", _libm_or("asinh", np.arcsinh),
              lambda n, g: divide(g, sqrt(scale(square(n.inputs[0]), 1.0, 1.0))),
              "AsinhBackward")
ACOSH = unary("acosh", _libm_or("acosh", np.arccosh),
              lambda n, g: divide(g, sqrt(scale(square(n.inputs[0]), 1.0, -1.0))),
              "AcoshBackward", examples=[([np.array([[1.5, 2.0, 3.25], [1.2, 4.0, 2.5]])], {})])
ATANH = unary("atanh", _libm_or("atanh", np.arctanh),
              lambda n, g: divide(g, scale(square(n.inputs[0]), -1.0, 1.0)),
              "AtanhBackward", domain="unit")


# ============================================================== modified Bessel functions
_I0_A = (-4.41534164647933937950E-18, 3.33079451882223809783E-17, -2.43127984654795469359E-16,
         1.71539128555513303061E-15, -1.16853328779934516808E-14, 7.67618549860493561688E-14,
         -4.85644678311192946090E-13, 2.95505266312963983461E-12, -1.72682629144155570723E-11,
         9.67580903537323691224E-11, -5.18979560163526290666E-10, 2.65982372468238665035E-9,
         -1.30002500998624804212E-8, 6.04699502254191894932E-8, -2.67079385394061173391E-7,
         1.11738753912010371815E-6, -4.41673835845875056359E-6, 1.64484480707288970893E-5,
         -5.75419501008210370398E-5, 1.88502885095841655729E-4, -5.76375574538582365885E-4,
         1.63947561694133579842E-3, -4.32430999505057594430E-3, 1.05464603945949983183E-2,
         -2.37374148058994688156E-2, 4.93052842396707084878E-2, -9.49010970480476444210E-2,
         1.71620901522208775349E-1, -3.04682672343198398683E-1, 6.76795274409476084995E-1)
_I0_B = (-7.23318048787475395456E-18, -4.83050448594418207126E-18, 4.46562142029675999901E-17,
         3.46122286769746109310E-17, -2.82762398051658348494E-16, -3.42548561967721913462E-16,
         1.77256013305652638360E-15, 3.81168066935262242075E-15, -9.55484669882830764870E-15,
         -4.15056934728722208663E-14, 1.54008621752140982691E-14, 3.85277838274214270114E-13,
         7.18012445138366623367E-13, -1.79417853150680611778E-12, -1.32158118404477131188E-11,
         -3.14991652796324136454E-11, 1.18891471078464383424E-11, 4.94060238822496958910E-10,
         3.39623202570838634515E-9, 2.26666899049817806459E-8, 2.04891858946906374183E-7,
         2.89137052083475648297E-6, 6.88975834691682398426E-5, 3.36911647825569408990E-3,
         8.04490411014108831608E-1)
_I1_A = (2.77791411276104639959E-18, -2.11142121435816608115E-17, 1.55363195773620046921E-16,
         -1.10559694773538630805E-15, 7.60068429473540693410E-15, -5.04218550472791168711E-14,
         3.22379336594557470981E-13, -1.98397439776494371520E-12, 1.17361862988909016308E-11,
         -6.66348972350202774223E-11, 3.62559028155211703701E-10, -1.88724975172282928790E-9,
         9.38153738649577178388E-9, -4.44505912879632808065E-8, 2.00329475355213526229E-7,
         -8.56872026469545474066E-7, 3.47025130813767847674E-6, -1.32731636560394358279E-5,
         4.78156510755005422638E-5, -1.61760815825896745588E-4, 5.12285956168575772895E-4,
         -1.51357245063125314899E-3, 4.15642294431288815669E-3, -1.05640848946261981558E-2,
         2.47264490306265168283E-2, -5.29459812080949914269E-2, 1.02643658689847095384E-1,
         -1.76416518357834055153E-1, 2.52587186443633654823E-1)
_I1_B = (7.51729631084210481353E-18, 4.41434832307170791151E-18, -4.65030536848935832153E-17,
         -3.20952592199342395980E-17, 2.96262899764595013876E-16, 3.30820231092092828324E-16,
         -1.88035477551078244854E-15, -3.81440307243700780478E-15, 1.04202769841288027642E-14,
         4.27244001671195135429E-14, -2.10154184277266431302E-14, -4.08355111109219731823E-13,
         -7.19855177624590851209E-13, 2.03562854414708950722E-12, 1.41258074366137813316E-11,
         3.25260358301548823856E-11, -1.89749581235054123450E-11, -5.58974346219658380687E-10,
         -3.83538038596423702205E-9, -2.63146884688951950684E-8, -2.51223623787020892529E-7,
         -3.88256480887769039346E-6, -1.10588938762623716291E-4, -9.76109749136146840777E-3,
         7.78576235018280120474E-1)


# ============================================================== Paddle's kernels, in the tensor's precision
# The special functions compute in the tensor's own dtype (float arithmetic for float32), with
# the C library's functions, as Paddle's CPU kernels do; the helpers below run those algorithms
# element by element with numpy scalars of that dtype (float32 products and sums round as C's).
_LIBM = K._LIBM


def _cfun(name, ctype):
    fn = getattr(_LIBM, name, None) if _LIBM is not None else None
    if fn is None:
        return None
    fn.restype = ctype
    fn.argtypes = [ctype] * (2 if name.startswith(("pow", "atan2")) else 1)
    return fn


class _Libm:
    """The C library's float or double functions, returning numpy scalars of that type."""

    def __init__(self, T):
        self.T = T
        f32 = T == np.float32
        ctype = ctypes.c_float if f32 else ctypes.c_double
        suffix = "f" if f32 else ""
        self._fns = {n: _cfun(n + suffix, ctype) for n in ("exp", "log", "sqrt", "tan", "pow",
                                                              "lgamma", "log1p")}
        self._np = {"exp": np.exp, "log": np.log, "sqrt": np.sqrt, "tan": np.tan,
                    "pow": np.power, "lgamma": np.vectorize(_math.lgamma),
                    "log1p": np.log1p}

    def __getattr__(self, name):
        fn = self._fns.get(name)
        T = self.T
        if fn is None:
            npf = self._np[name]
            return lambda *a: T(npf(*[np.float64(v) for v in a]))
        return lambda *a: T(fn(*[float(v) for v in a]))


_LM = {np.dtype(np.float32): _Libm(np.float32), np.dtype(np.float64): _Libm(np.float64)}


def _elementwise(scalar_fn):
    """An elementwise kernel from a function of one numpy scalar and the libm of its type;
    integer inputs compute in float32."""
    def fwd(x, **attrs):
        if x.dtype.kind != "f" or x.dtype == np.float16:
            x = x.astype(_F32)
        lm = _LM[x.dtype]
        T = lm.T
        with quiet(all="ignore"):
            out = np.array([scalar_fn(T(v), lm, **attrs) for v in x.reshape(-1).tolist()],
                           dtype=x.dtype)
        return out.reshape(x.shape)
    fwd.__name__ = getattr(scalar_fn, "__name__", "fwd")
    return fwd


def _chbevl(x, coef, T):
    b0, b1, b2 = T(coef[0]), T(0), T(0)
    for c in coef[1:]:
        b2 = b1
        b1 = b0
        b0 = x * b1 - b2 + T(c)
    return T(0.5) * (b0 - b2)


# float32 keeps only the last Chebyshev terms of i1 (Paddle's float coefficient tables)
_I1_A32, _I1_B32 = _I1_A[-17:], _I1_B[-7:]


def _i0_s(v, lm, scaled=False):
    T = lm.T
    x = abs(v)
    if x <= T(8):
        y = x / T(2) - T(2)
        c = _chbevl(y, _I0_A, T)
        return c if scaled else lm.exp(x) * c
    y = T(32) / x - T(2)
    c = _chbevl(y, _I0_B, T)
    return c / lm.sqrt(x) if scaled else lm.exp(x) * c / lm.sqrt(x)


def _i1_s(v, lm, scaled=False):
    T = lm.T
    f32 = T == np.float32
    x = abs(v)
    if x <= T(8):
        y = x / T(2) - T(2)
        c = _chbevl(y, _I1_A32 if f32 else _I1_A, T)
        out = c * x if scaled else lm.exp(x) * x * c
    else:
        y = T(32) / x - T(2)
        c = _chbevl(y, _I1_B32 if f32 else _I1_B, T)
        out = c / lm.sqrt(x) if scaled else lm.exp(x) * c / lm.sqrt(x)
    return -out if v < 0 else out


def _digamma_s(x, lm, zero="inf"):
    """Eigen's digamma (Cephes psi) in the scalar's precision; at 0 Paddle 3 gives -inf (+inf
    at -0.), Eigen itself (Paddle 2) nan."""
    T = lm.T
    if x == 0:
        if zero != "inf":
            return T(np.nan)
        return T(-np.inf) if not np.signbit(x) else T(np.inf)
    negative = False
    nz = T(0)
    if x <= 0:
        negative = True
        q = x
        p = T(np.floor(q))
        if p == q:
            return T(np.nan)
        nz = q - p
        if nz != T(0.5):
            if nz > T(0.5):
                p = p + T(1)
                nz = q - p
            nz = T(np.pi) / lm.tan(T(np.pi) * nz)
        else:
            nz = T(0)
        x = T(1) - x
    s = x
    w = T(0)
    while s < T(10):
        w = w + T(1) / s
        s = s + T(1)
    if T == np.float32:
        A = (-4.16666666666666666667E-3, 3.96825396825396825397E-3, -8.33333333333333333333E-3,
             8.33333333333333333333E-2)
        limit = T(1.0e8)
    else:
        A = (8.33333333333333333333E-2, -2.10927960927960927961E-2, 7.57575757575757575758E-3,
             -4.16666666666666666667E-3, 3.96825396825396825397E-3, -8.33333333333333333333E-3,
             8.33333333333333333333E-2)
        limit = T(1.0e17)
    if s < limit:
        z = T(1) / (s * s)
        y = T(A[0])
        for c in A[1:]:
            y = y * z + T(c)
        y = z * y
    else:
        y = T(0)
    y = lm.log(s) - (T(0.5) / s) - y - w
    return y - nz if negative else y


_ZETA_A = (12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9,
           7.47242496e10, -2.950130727918164224e12, 1.1646782814350067249e14,
           -4.5979787224074726105e15, 1.8152105401943546773e17, -7.1661652561756670113e18)


def _zeta_s(x, q, lm):
    """Paddle's zeta(x, q) (Cephes, Euler-Maclaurin) in the scalar's precision."""
    T = lm.T
    machep = T(1.11022302462515654042E-16)
    if x == T(1):
        return T(np.inf)
    if x < T(1):
        return T(np.nan)
    if q <= 0:
        if q == np.floor(q):
            return T(np.inf)
        if x != np.floor(x):
            return T(np.nan)
    s = lm.pow(q, -x)
    a = q
    i = 0
    b = T(0)
    while i < 9 or a <= T(9):
        i += 1
        a = a + T(1)
        b = lm.pow(a, -x)
        s = s + b
        if -machep * s < b < machep * s:
            return s
    w = a
    s = s + b * w / (x - T(1))
    s = s - T(0.5) * b
    a = T(1)
    k = T(0)
    for c in _ZETA_A:
        a = a * (x + k)
        b = b / w
        t = a * b / T(c)
        s = s + t
        t = abs(t / s)
        if t < machep:
            return s
        k = k + T(1)
        a = a * (x + k)
        b = b / w
        k = k + T(1)
    return s


def _polygamma_s(x, lm, n=0):
    T = lm.T
    if n == 0:
        return _digamma_s(x, lm)
    sign_ = T(1) if n % 2 else T(-1)
    return sign_ * lm.exp(lm.lgamma(T(n) + T(1))) * _zeta_s(T(n + 1), x, lm)


def _polevl(x, coef, T):
    y = T(coef[0])
    for c in coef[1:]:
        y = y * x + T(c)
    return y


_NDTRI_P0 = (-5.99633501014107895267e1, 9.80010754185999661536e1, -5.66762857469070293439e1,
             1.39312609387279679503e1, -1.23916583867381258016e0)
_NDTRI_Q0 = (1.0, 1.95448858338141759834e0, 4.67627912898881538453e0, 8.63602421390890590575e1,
             -2.25462687854119370527e2, 2.00260212380060660359e2, -8.20372256168333339912e1,
             1.59056225126211695515e1, -1.18331621121330003142e0)
_NDTRI_P1 = (4.05544892305962419923e0, 3.15251094599893866154e1, 5.71628192246421288162e1,
             4.40805073893200834700e1, 1.46849561928858024014e1, 2.18663306850790267539e0,
             -1.40256079171354495875e-1, -3.50424626827848203418e-2, -8.57456785154685413611e-4)
_NDTRI_Q1 = (1.0, 1.57799883256466749731e1, 4.53907635128879210584e1, 4.13172038254672030440e1,
             1.50425385692907503408e1, 2.50464946208309415979e0, -1.42182922854787788574e-1,
             -3.80806407691578277194e-2, -9.33259480895457427372e-4)
_NDTRI_P2 = (3.23774891776946035970e0, 6.91522889068984211695e0, 3.93881025292474443415e0,
             1.33303460815807542389e0, 2.01485389549179081538e-1, 1.23716634817820021358e-2,
             3.01581553508235416007e-4, 2.65806974686737550832e-6, 6.23974539184983293730e-9)
_NDTRI_Q2 = (1.0, 6.02427039364742014255e0, 3.67983563856160859403e0, 1.37702099489081330271e0,
             2.16236993594496635890e-1, 1.34204006088543189037e-2, 3.28014464682127739104e-4,
             2.89247864745380683936e-6, 6.79019408009981274425e-9)


def _ndtri_s(a, lm):
    """Eigen's ndtri (Cephes) in the scalar's precision."""
    T = lm.T
    if a == T(0):
        return T(-np.inf)
    if a == T(1):
        return T(np.inf)
    exp_neg_two = T(0.13533528323661269189)
    flip = a <= T(1) - exp_neg_two
    b = a if flip else T(1) - a
    if b > exp_neg_two:
        c = b - T(0.5)
        c2 = c * c
        r = c * (c2 * (_polevl(c2, _NDTRI_P0, T) / _polevl(c2, _NDTRI_Q0, T))) + c
        return r * T(2.50662827463100050242e0)
    x = lm.sqrt(T(-2) * lm.log(b))
    x0 = x - lm.log(x) / x
    z = T(1) / x
    if x < T(8):
        x1 = z * (_polevl(z, _NDTRI_P1, T) / _polevl(z, _NDTRI_Q1, T))
    else:
        x1 = z * (_polevl(z, _NDTRI_P2, T) / _polevl(z, _NDTRI_Q2, T))
    r = x0 - x1
    return -r if flip else r


def _erfinv_s(x, lm):
    """Paddle's erfinv: ndtri(x * 0.5 + 0.5) * sqrt(1/2), in the tensor's precision."""
    T = lm.T
    if abs(x) > T(1):
        return T(np.nan)
    return _ndtri_s(x * T(0.5) + T(0.5), lm) * T(0.70710678118654752440)


def _igam_s(a, x, lm):
    """Paddle's igam (Cephes) in the scalar's precision."""
    T = lm.T
    if x <= 0 or a <= 0:
        return T(0)
    if x > T(1) and x > a:
        return T(1) - _igamc_s(a, x, lm)
    ax = a * lm.log(x) - x - lm.lgamma(a)
    if ax < -7.09782712893383996732E2:
        return T(0)
    ax = lm.exp(ax)
    r, c, ans = a, T(1), T(1)
    while True:
        r = r + T(1)
        c = c * (x / r)
        ans = ans + c
        if not float(c / ans) > 1.11022302462515654042E-16:
            break
    return ans * ax / a


def _igamc_s(a, x, lm):
    T = lm.T
    big, biginv = T(4.503599627370496e15), T(2.22044604925031308085e-16)
    if x <= 0 or a <= 0:
        return T(1)
    if x < T(1) or x < a:
        return T(1) - _igam_s(a, x, lm)
    ax = a * lm.log(x) - x - lm.lgamma(a)
    if ax < -7.09782712893383996732E2:
        return T(0)
    ax = lm.exp(ax)
    y = T(1) - a
    z = x + y + T(1)
    c = T(0)
    pkm2, qkm2, pkm1 = T(1), x, x + T(1)
    qkm1 = z * x
    ans = pkm1 / qkm1
    while True:
        c = c + T(1)
        y = y + T(1)
        z = z + T(2)
        yc = y * c
        pk = pkm1 * z - pkm2 * yc
        qk = qkm1 * z - qkm2 * yc
        if qk != 0:
            r = pk / qk
            t = abs((ans - r) / r)
            ans = r
        else:
            t = T(1)
        pkm2, pkm1, qkm2, qkm1 = pkm1, pk, qkm1, qk
        if abs(pk) > big:
            pkm2 = pkm2 * biginv
            pkm1 = pkm1 * biginv
            qkm2 = qkm2 * biginv
            qkm1 = qkm1 * biginv
        if not float(t) > 1.11022302462515654042E-16:
            break
    return ans * ax


def _i0_vjp(n, g):
    return multiply(g, i1(n.inputs[0]))


def _i1_vjp(n, g):
    """i1' = i0 - i1 / x (1/2 at 0)."""
    x = n.inputs[0]
    safe = np.where(x.data == 0, 1, x.data).astype(x.data.dtype)
    ratio = divide(n.out(), const(x, safe) if x.stop_gradient else add(
        x, const(x, (x.data == 0).astype(x.data.dtype))))
    d = subtract(i0(x), ratio)
    if (x.data == 0).any():
        from .search import where

        d = where(const(x, x.data == 0, np.bool_), const(x, np.full(x.data.shape, 0.5,
                                                                       x.data.dtype)), d)
    return multiply(g, d)


def _i0e_vjp(n, g):
    """i0e' = i1e - sign(x) * i0e."""
    x = n.inputs[0]
    return multiply(g, subtract(i1e(x), multiply(sign(x), n.out())))


def _i1e_vjp(n, g):
    """i1e' = i0e - i1e * (sign(x) + 1/x) (1/2 at 0)."""
    x = n.inputs[0]
    zero = x.data == 0
    xs = add(x, const(x, zero.astype(x.data.dtype)))
    d = subtract(i0e(x), multiply(n.out(), add(sign(x), reciprocal(xs))))
    if zero.any():
        from .search import where

        d = where(const(x, zero, np.bool_), const(x, np.full(x.data.shape, 0.5, x.data.dtype)), d)
    return multiply(g, d)


I0 = unary("i0", _elementwise(_i0_s), _i0_vjp, "I0Backward")
I0E = unary("i0e", _elementwise(lambda v, lm: _i0_s(v, lm, True)), _i0e_vjp, "I0eBackward",
            domain="away0")
I1 = unary("i1", _elementwise(_i1_s), _i1_vjp, "I1Backward", domain="away0")
I1E = unary("i1e", _elementwise(lambda v, lm: _i1_s(v, lm, True)), _i1e_vjp, "I1eBackward",
            domain="away0")


def i0(x):
    return apply(I0, (x,))


def i0e(x):
    return apply(I0E, (x,))


def i1(x):
    return apply(I1, (x,))


def i1e(x):
    return apply(I1E, (x,))


# ============================================================== gamma family
_lgamma_scalar = np.vectorize(_math.lgamma, otypes=[np.float64])


def _lgamma64(x):
    with quiet(all="ignore"):
        out = _lgamma_scalar(x)
    return np.where(np.isinf(x) & (x < 0), np.inf, out)


LGAMMA = unary("lgamma", _libm_or("lgamma", _lgamma64),
               lambda n, g: multiply(g, digamma(n.inputs[0])), "LgammaBackward",
               domain="positive")
DIGAMMA = unary("digamma", _elementwise(_digamma_s),
                lambda n, g: multiply(g, polygamma(n.inputs[0], 1)), "DigammaBackward",
                domain="positive")
POLYGAMMA = unary("polygamma", _elementwise(_polygamma_s),
                  lambda n, g: multiply(g, polygamma(n.inputs[0], n.attrs["n"] + 1)),
                  "PolygammaBackward", domain="positive",
                  examples=[([(2, 3)], {"n": 1}), ([(3,)], {"n": 2})])


def lgamma(x):
    return apply(LGAMMA, (x,))


def digamma(x, zero="inf"):
    return apply(DIGAMMA, (x,), {"zero": zero} if zero != "inf" else None)


def polygamma(x, n):
    if int(n) == 0:
        return digamma(x)
    return apply(POLYGAMMA, (x,), {"n": int(n)})


# ============================================================== erfinv
ERFINV = unary("erfinv", _elementwise(_erfinv_s),
               # Paddle's erfinv_grad: (1 / M_2_SQRTPI) * dout * exp(out^2); that constant
               # is 0.886226925452758, one ulp above the double sqrt(pi) / 2 (measured 3.3.1)
               lambda n, g: multiply(times(g, 1.0 / 1.1283791670955126),
                                     exp(square(n.out()))),
               "ErfinvBackward", domain="unit")


def erfinv(x):
    return apply(ERFINV, (x,))


# ============================================================== regularized incomplete gamma
def _igam_fwd(x, y, upper=False):
    """gammainc(x, y) = P(x, y) (paddle's argument order: x is a, y is the bound), by Paddle's
    Cephes port in the tensors' precision."""
    dt = np.result_type(x, y)
    dt = dt if dt.kind == "f" and dt != np.float16 else _F32
    lm = _LM[np.dtype(dt)]
    T = lm.T
    a, b = np.broadcast_arrays(np.asarray(x, dt), np.asarray(y, dt))
    fn = _igamc_s if upper else _igam_s
    with quiet(all="ignore"):
        out = np.array([fn(T(p), T(q), lm) for p, q in zip(a.reshape(-1).tolist(),
                                                          b.reshape(-1).tolist())], dt)
    return out.reshape(a.shape)


def _igam_vjp(n, g):
    """Only the bound y takes a gradient: d/dy P(x, y) = y^(x-1) e^(-y) / Gamma(x)
    (and minus that for Q)."""
    x, y = n.inputs
    from .math import log

    logd = subtract(subtract(multiply(scale(x, 1.0, -1.0), log(y)), y), lgamma(x))
    d = exp(logd)
    if n.attrs.get("upper"):
        d = neg(d)
    return None, multiply(g, d)


GAMMAINC = register("gammainc", _igam_fwd, _igam_vjp, broadcast=True, diff_inputs=(1,),
                    legacy_name="GammaincBackward", domain="positive",
                    examples=[([(2, 3), (2, 3)], {}), ([(2, 3), (2, 3)], {"upper": True})])


def gammainc(x, y, upper=False):
    return apply(GAMMAINC, (x, y), {"upper": True} if upper else None)


# ============================================================== logit, sinc, frac
def _logit_bounds(eps, dtype, eps32=True):
    """static_cast<T>(eps) and static_cast<T>(1.0 - eps): ``eps`` a float attribute (2.x:
    a float64 x compares with float32's 1e-3) or a double (3.x), measured on 2.6.2 / 3.3.1."""
    e = np.float64(np.float32(eps)) if eps32 else np.float64(eps)
    return np.asarray(e, dtype), np.asarray(1.0 - e, dtype)


_EIGEN_LOG = K.eigen(K.packet_log, K.libm("log", np.log))
_EIGEN_LOG64 = K.eigen64(K.packet_log64, K.libm64("log", np.log))


def _logit_fwd(x, eps=None, eps32=True):
    """Paddle's LogitFunctor: ``(t / (1 - t)).log()`` of t = x clipped to [eps, 1 - eps], an
    Eigen expression: its packet log (8 floats / 4 doubles at a time, the C library's log on
    the tail; measured on 3.3.1 and 2.6.2: glibc's logf differed in 303 of 4,099 floats)."""
    if eps is not None:
        lo, hi = _logit_bounds(eps, x.dtype, eps32)
        x = np.maximum(np.minimum(x, hi), lo)
    with quiet(all="ignore"):
        q = x / (np.ones((), x.dtype) - x)
        if x.dtype == _F32:
            return _EIGEN_LOG(q)
        if x.dtype == np.float64:
            return _EIGEN_LOG64(q)
        return np.log(q)


def _logit_vjp(n, g):
    """LogitGradFunctor: dx = dout * (1 / ((1 - x) * x)), 0 outside [eps, 1 - eps] when eps
    is given."""
    x = n.inputs[0]
    eps = n.attrs.get("eps")
    d = multiply(g, reciprocal(multiply(scale(x, -1.0, 1.0), x)))
    if eps is not None:   # the kernel selects 0 outside (+0.0 whatever dout's sign)
        from .search import where
        lo, hi = _logit_bounds(eps, x.data.dtype, n.attrs.get("eps32", True))
        inside = (x.data >= lo) & (x.data <= hi)
        d = where(const(d, inside, np.bool_), d, const(d, np.zeros(d.data.shape, d.data.dtype)))
    return d


LOGIT = unary("logit", _logit_fwd, _logit_vjp, "LogitBackward",
              examples=[([np.array([[0.2, 0.35, 0.5], [0.65, 0.8, 0.9]])], {}),
                        ([np.array([0.3, 0.6, 0.7])], {"eps": 0.1})])


def logit(x, eps=None, eps32=True):
    if eps is None:
        return apply(LOGIT, (x,))
    return apply(LOGIT, (x,), {"eps": eps} if eps32 else {"eps": eps, "eps32": False})


# ============================================================== two-argument functions
def _atan2_fwd(y, x):
    from .complex import atan2_kernel

    return atan2_kernel(y, x)


def _atan2_vjp(n, g):
    """d/dy = x / (x^2 + y^2), d/dx = -y / (x^2 + y^2)."""
    y, x = n.inputs
    den = add(square(x), square(y))
    return divide(multiply(g, x), den), divide(multiply(neg(g), y), den)


ATAN2 = register("atan2", _atan2_fwd, _atan2_vjp, broadcast=True, legacy_name="Atan2Backward",
                 domain="away0", examples=[([(2, 3), (2, 3)], {})])


def atan2(y, x):
    return apply(ATAN2, (y, x))


def _copysign_fwd(x, y):
    return np.copysign(x, y).astype(x.dtype)


def _copysign_vjp(n, g):
    """dx = dout * sign(x) * sign(copysign(1, y)) (0 where x == 0); y takes none."""
    x, y = n.inputs
    s = np.where(x.data == 0, 0, np.sign(x.data) * np.copysign(1, y.data))
    return multiply(g, const(g, s)), None


COPYSIGN = register("copysign", _copysign_fwd, _copysign_vjp, broadcast=True, diff_inputs=(0,),
                    legacy_name="CopysignBackward", domain="away0",
                    examples=[([(2, 3), (2, 3)], {})])


def copysign(x, y):
    return apply(COPYSIGN, (x, y))


def _heaviside_fwd(x, y):
    return np.where(x == 0, y, (x > 0)).astype(np.result_type(x, y))


def _heaviside_vjp(n, g):
    """x takes 0; y takes dout where x == 0."""
    x, y = n.inputs
    return multiply(g, const(g, 0.0)), multiply(g, const(g, x.data == 0))


HEAVISIDE = register("heaviside", _heaviside_fwd, _heaviside_vjp, broadcast=True,
                     legacy_name="HeavisideBackward", check=False,
                     examples=[([(2, 3), (2, 3)], {})])


def heaviside(x, y):
    return apply(HEAVISIDE, (x, y))


# sinc(x) = sin(pi x) / (pi x), 1 at 0
def _sinc64(x):
    with quiet(all="ignore"):
        px = np.pi * x
        return np.where(x == 0, 1.0, np.sin(px) / px)


def _sinc_vjp(n, g):
    """(cos(pi x) - sinc(x)) / x, 0 at 0."""
    x = n.inputs[0]
    zero = x.data == 0
    xs = add(x, const(x, zero.astype(x.data.dtype)))
    d = divide(subtract(cos(scale(x, _math.pi)), n.out()), xs)
    if zero.any():
        d = multiply(d, const(d, ~zero))
    return multiply(g, d)


SINC = unary("sinc", _float(_sinc64), _sinc_vjp, "SincBackward", domain="away0")


def sinc(x):
    return apply(SINC, (x,))


# keep the names importable for the API layer
__all__ = ["asinh", "acosh", "atanh", "lgamma", "digamma", "polygamma", "erfinv", "i0", "i0e",
           "i1", "i1e", "gammainc", "logit", "atan2", "copysign", "heaviside", "sinc", "sin"]


def asinh(x):
    return apply(ASINH, (x,))


def acosh(x):
    return apply(ACOSH, (x,))


def atanh(x):
    return apply(ATANH, (x,))
