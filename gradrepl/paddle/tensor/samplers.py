"""Samplers and windows Paddle writes in Python over its other ops (issue 28), composed here the
same way so they draw the same numbers after ``paddle.seed`` and round the same:

- ``cauchy_`` (both versions): Paddle's code fills with ``normal_()`` (not a uniform: measured,
  3.3.1 and 2.6.2), then ``subtract_(0.5).scale_(pi).tan_().scale_(scale).add_(loc)``;
- ``geometric_`` (both): ``uniform_(tiny, 1)``, ``log_()``, ``divide_(log1p(-probs))``;
- ``log_normal`` / ``log_normal_`` (3.x): ``exp`` of ``paddle.normal`` / of ``normal_``;
- the windows (3.x: ``hann_window`` ... ``kaiser_window``): ``paddle.audio``'s window functions
  (``linspace(-pi, pi)`` cosine sums, Bartlett's ``where``, Kaiser's ``i0``) in the asked dtype;
- ``paddle.batch`` (both): the reader decorator.
"""
from __future__ import annotations

import math
import sys

import numpy as np

from ...engine.registry import apply, register

__all__ = ["cauchy_", "geometric_", "log_normal", "log_normal_", "hann_window",
           "hamming_window", "blackman_window", "bartlett_window", "kaiser_window", "batch",
           "poisson", "standard_gamma", "binomial", "Generator", "to_dlpack", "from_dlpack"]
__methods__ = ["cauchy_", "geometric_", "log_normal_"]


def _paddle():
    return sys.modules[__name__.rsplit(".", 2)[0]]


def cauchy_(x, loc=0, scale=1, name=None):
    """Fill x in place with Cauchy(loc, scale) values as Paddle does it (its normal_ draw)."""
    paddle = _paddle()
    x.normal_()
    loc = paddle.to_tensor(loc).astype(x.dtype)
    half = paddle.to_tensor(0.5).astype(x.dtype)
    x.subtract_(half).scale_(np.pi).tan_().scale_(scale).add_(loc)
    return x


def geometric_(x, probs, name=None):
    """Fill x in place with geometric values: log(u) / log1p(-probs), u uniform in [tiny, 1)."""
    paddle = _paddle()
    tiny = np.finfo(np.dtype(x.data.dtype)).tiny
    probs = paddle.to_tensor(probs).astype(x.dtype)
    x.uniform_(min=float(tiny), max=float(1))
    x.log_().divide_(paddle.log1p(-probs))
    return x


def log_normal(mean=1.0, std=2.0, shape=None, name=None):
    """exp of normal(mean, std) values of ``shape``."""
    paddle = _paddle()
    return paddle.exp(paddle.normal(mean=mean, std=std, shape=shape, name=name))


def log_normal_(x, mean=1.0, std=2.0, name=None):
    """Fill x in place with exp of normal(mean, std) values."""
    return x.normal_(mean=mean, std=std).exp_()


# ------------------------------------------------------------------------------ windows
def _len_guards(m):
    if int(m) != m or m < 0:
        raise ValueError("Window length M must be a non-negative integer")
    return m <= 1


def _general_cosine(m, a, sym, dtype):
    paddle = _paddle()
    if _len_guards(m):
        return paddle.ones((m,), dtype=dtype)
    m, trunc = (m, False) if sym else (m + 1, True)
    fac = paddle.linspace(-math.pi, math.pi, m, dtype=dtype)
    w = paddle.zeros((m,), dtype=dtype)
    for k in range(len(a)):
        w += a[k] * paddle.cos(k * fac)
    return w[:-1] if trunc else w


def _bartlett(m, sym, dtype):
    paddle = _paddle()
    if _len_guards(m):
        return paddle.ones((m,), dtype=dtype)
    m, trunc = (m, False) if sym else (m + 1, True)
    n = paddle.arange(0, m, dtype=dtype)
    m = paddle.to_tensor(m, dtype=dtype)
    w = paddle.where(paddle.less_equal(n, (m - 1) / 2.0), 2.0 * n / (m - 1),
                     2.0 - 2.0 * n / (m - 1))
    return w[:-1] if trunc else w


def _kaiser(m, beta, sym, dtype):
    paddle = _paddle()
    if _len_guards(m):
        return paddle.ones((m,), dtype=dtype)
    m, trunc = (m, False) if sym else (m + 1, True)
    beta = paddle.to_tensor(beta, dtype=dtype)
    n = paddle.arange(0, m, dtype=dtype)
    m = paddle.to_tensor(m, dtype=dtype)
    alpha = (m - 1) / 2.0
    w = paddle.i0(beta * paddle.sqrt(1 - ((n - alpha) / alpha) ** 2.0)) / paddle.i0(beta)
    return w[:-1] if trunc else w


def _post(w, requires_grad):
    if requires_grad is True:
        w.stop_gradient = False
    return w


def hann_window(window_length, periodic=True, *, dtype="float32", layout=None, device=None,
                pin_memory=False, requires_grad=False):
    """The Hann window (periodic: the first ``window_length`` of ``window_length + 1``)."""
    return _post(_general_cosine(window_length, [0.5, 0.5], not periodic, dtype), requires_grad)


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype="float32",
                   layout=None, device=None, pin_memory=False, requires_grad=False):
    """The Hamming window ``alpha - beta cos(...)`` (from the 0.54 / 0.46 one, as Paddle)."""
    w0 = _general_cosine(window_length, [0.54, 1.0 - 0.54], not periodic, dtype)
    b = beta / 0.46
    a = alpha - b * 0.54
    return _post(a + b * w0, requires_grad)


def blackman_window(window_length, periodic=True, *, dtype="float32", layout=None, device=None,
                    pin_memory=False, requires_grad=False):
    """The Blackman window (0.42, 0.5, 0.08)."""
    return _post(_general_cosine(window_length, [0.42, 0.5, 0.08], not periodic, dtype),
                 requires_grad)


def bartlett_window(window_length, periodic=True, *, dtype="float32", layout=None, device=None,
                    pin_memory=False, requires_grad=False):
    """The triangular (Bartlett) window."""
    return _post(_bartlett(window_length, not periodic, dtype), requires_grad)


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype="float32", layout=None,
                  device=None, pin_memory=False, requires_grad=False):
    """The Kaiser window ``i0(beta sqrt(1 - ((n - a) / a)**2)) / i0(beta)``."""
    return _post(_kaiser(window_length, beta, not periodic, dtype), requires_grad)


# ------------------------------------------------------------------------------ paddle.batch
def batch(reader, batch_size, drop_last=False):
    """A reader of lists of ``batch_size`` instances of ``reader`` (the last one shorter unless
    ``drop_last``)."""

    def batch_reader():
        b = []
        for instance in reader():
            b.append(instance)
            if len(b) == batch_size:
                yield b
                b = []
        if drop_last is False and len(b) != 0:
            yield b

    batch_size = int(batch_size)
    if batch_size <= 0:
        raise ValueError("batch_size should be a positive integer value, but got "
                         f"batch_size={batch_size}")
    return batch_reader


# ------------------------------------------------------------------------------ poisson
# Paddle's CPU poisson kernel: one ``std::poisson_distribution<int>(x[i])`` a value, drawn from
# the global mt19937_64 engine in order (libstdc++'s algorithm: Knuth's product of uniforms for
# a mean below 12, Devroye's rejection method above, with a fresh normal_distribution each).
_NAF = (1 - np.finfo(np.float64).eps) / 2
_INT_MAX = 2 ** 31 - 1
_SPI_2 = 1.2533141373155002512078826424055226   # sqrt(pi / 2)
_1_78 = 0.0128205128205128205128205128205128    # 1 / 78
_E_1_78 = 1.0129030479320018583185514777512983  # e ** (1 / 78)
_PI_4 = 0.7853981633974483096156608458198757    # pi / 4


class _Draws:
    """generate_canonical<double, 53> of the engine's words, one at a time, in order."""

    __slots__ = ("engine",)

    def __init__(self, engine):
        self.engine = engine

    def __call__(self):
        w = int(self.engine.draw(1)[0])
        u = float(w) * 2.0 ** -64
        return u if u < 1.0 else 0.9999999999999999


class _PolarNormal:
    """std::normal_distribution<double> (Marsaglia's polar method): a pair a time, the second
    value kept for the next call (one object per poisson_distribution, as its member)."""

    __slots__ = ("saved",)

    def __init__(self):
        self.saved = None

    def __call__(self, u):
        if self.saved is not None:
            v, self.saved = self.saved, None
            return v
        while True:
            x = 2.0 * u() - 1.0
            y = 2.0 * u() - 1.0
            r2 = x * x + y * y
            if r2 <= 1.0 and r2 != 0.0:
                break
        mult = math.sqrt(-2 * math.log(r2) / r2)
        self.saved = x * mult
        return y * mult


def _poisson_one(mean, u):
    if mean < 12:
        thr = math.exp(-mean)
        x, prod = 0, 1.0
        while True:
            prod *= u()
            x += 1
            if not prod > thr:
                return x - 1
    m = math.floor(mean)
    lm_thr = math.log(mean)
    lfm = math.lgamma(m + 1)
    sm = math.sqrt(m)
    dx = math.sqrt(2 * m * math.log(32 * m / _PI_4))
    d = float(round(max(6.0, min(m, dx))))
    cx = 2 * m + d
    scx = math.sqrt(cx / 2)
    _1cx = 1 / cx
    c2b = math.sqrt(_PI_4 * cx) * math.exp(_1cx)
    cb = 2 * cx * math.exp(-d * _1cx * (1 + d / 2)) / d
    c1 = sm * _SPI_2
    c2 = c2b + c1
    c3 = c2 + 1
    c4 = c3 + 1
    c5 = c4 + _E_1_78
    c = cb + c5
    two_cx = 2 * (2 * m + d)
    thr = _INT_MAX + _NAF
    normal = _PolarNormal()
    while True:
        uu = c * u()
        e = -math.log(1.0 - u())
        w = 0.0
        if uu <= c1:
            n = normal(u)
            y = -abs(n) * sm - 1
            x = math.floor(y)
            w = -n * n / 2
            if x < -m:
                continue
        elif uu <= c2:
            n = normal(u)
            y = 1 + abs(n) * scx
            x = math.ceil(y)
            w = y * (2 - y) * _1cx
            if x > d:
                continue
        elif uu <= c3:
            x = -1
        elif uu <= c4:
            x = 0
        elif uu <= c5:
            x = 1
            w = _1_78
        else:
            v = -math.log(1.0 - u())
            y = d + v * two_cx / d
            x = math.ceil(y)
            w = -d * _1cx * (1 + y / 2)
        reject = (w - e - x * lm_thr > lfm - math.lgamma(x + m + 1)) or x + m >= thr
        if not reject:
            return int(x + m + _NAF)


def _poisson_fwd(x):
    from . import creation

    u = _Draws(creation._RNG[0].engine)
    means = np.asarray(x, np.float64).ravel()
    return np.array([_poisson_one(float(v), u) for v in means], x.dtype).reshape(x.shape)


def _zeros_vjp(n, g):
    """PoissonGradNode: a zero gradient (as Paddle's poisson_grad)."""
    from ...engine.ops._util import const

    return const(g, np.zeros(g.data.shape, g.data.dtype))


_POISSON = register("poisson", _poisson_fwd, _zeros_vjp, saves_inputs=False, saves_output=False,
                    check=False, legacy_name="PoissonBackward",
                    examples=[([np.array([[1.0, 3.0], [20.0, 0.5]])], {})])


def poisson(x, name=None):
    """Poisson(x[i]) counts in x's dtype (Paddle's CPU kernel: libstdc++'s poisson_distribution
    on the global engine, one value after another); its gradient is zero."""
    from ..core import as_tensor
    from .attribute import _not_registered

    x = as_tensor(x)
    if x.data.dtype not in (np.float32, np.float64):
        raise _not_registered("poisson", x.data.dtype, "float64, float32")
    return apply(_POISSON, (x,))


# ------------------------------------------------------------------------------ standard_gamma
# Paddle's GammaSampler<CPUContext, T> (phi dirichlet_kernel_impl.h): per value, in order,
# sample_gamma<T, T> (Marsaglia and Tsang, numpy's; alpha < 1 boosted by pow(1 - u, 1 / alpha))
# with a fresh std::uniform_real_distribution<T>(0, 1) and std::normal_distribution<T>(0, 1)
# per draw, all arithmetic in T (float32: the C library's powf / logf / sqrtf; the float
# literals 1.0f / 3.0f and 0.0331f keep their float values in a double computation), the
# result at least numeric_limits<T>::min().
_LIBM = None


def _libm():
    global _LIBM
    if _LIBM is None:
        import ctypes
        import ctypes.util

        lib = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
        for name, n in (("logf", 1), ("powf", 2), ("sqrtf", 1)):
            fn = getattr(lib, name)
            fn.restype = ctypes.c_float
            fn.argtypes = [ctypes.c_float] * n
        _LIBM = lib
    return _LIBM


class _GammaMath:
    """The scalar arithmetic of ``sample_gamma`` in T."""

    def __init__(self, t):
        self.t = t
        if t == np.float32:
            lib = _libm()
            self.log = lambda v: np.float32(lib.logf(float(v)))
            self.pow = lambda a, b: np.float32(lib.powf(float(a), float(b)))
            self.sqrt = lambda v: np.float32(lib.sqrtf(float(v)))
        else:
            self.log = lambda v: np.float64(math.log(v))
            self.pow = lambda a, b: np.float64(math.pow(a, b))
            self.sqrt = lambda v: np.float64(math.sqrt(v))


def _gamma_one(alpha, t, m, uniform, normal):
    f = np.float32  # the kernel's float literals
    one = t(1)
    scale = t(1)
    alpha = t(alpha)
    if alpha < t(1):
        if alpha == t(0):
            return t(0)
        s = uniform()
        scale = t(scale * m.pow(t(one - s), t(t(f(1)) / alpha)))
        alpha = t(alpha + t(1))
    d = t(alpha - t(f(1) / f(3)))
    c = t(t(1) / m.sqrt(t(t(9) * d)))
    c0331, half = t(f(0.0331)), t(0.5)
    while True:
        while True:
            x = normal()
            y = t(one + t(c * x))
            if not y <= 0:
                break
        v = t(t(y * y) * y)
        u = t(one - uniform())
        xx = t(x * x)
        res = t(t(scale * d) * v)
        if u < t(one - t(t(c0331 * xx) * xx)):
            return res
        if m.log(u) < t(t(half * xx) + t(d * t(t(one - v) + m.log(v)))):
            return res


def _standard_gamma_fwd(x):
    from .. import random_engine
    from . import creation

    engine = creation._RNG[0].engine
    t = np.dtype(x.dtype).type
    m = _GammaMath(t)

    def uniform():
        return t(random_engine.uniform(engine, 1, t, 0.0, 1.0)[0])

    def normal():
        return t(random_engine.normal(engine, 1, t, 0.0, 1.0)[0])

    tiny = np.finfo(t).tiny
    flat = np.asarray(x).ravel()
    out = np.array([max(tiny, _gamma_one(a, t, m, uniform, normal)) for a in flat.tolist()], t)
    return out.reshape(x.shape)


def standard_gamma(x, name=None):
    """Gamma(x[i], 1) values in x's dtype (Paddle's CPU GammaSampler, on the global engine);
    no gradient (the result stops it, as Paddle's)."""
    from ..core import Tensor, as_tensor
    from .attribute import _not_registered

    x = as_tensor(x)
    if x.data.dtype not in (np.float32, np.float64):
        raise _not_registered("standard_gamma", x.data.dtype, "float64, float32")
    return Tensor._wrap(_standard_gamma_fwd(x.data), True)


# ------------------------------------------------------------------------------ binomial
# Paddle's CPU binomial kernel (phi funcs/binomial_functor.h), one value after another on the
# global engine: n <= 0 or p <= 0 give 0, p >= 1 gives n; with q = min(p, 1 - p), the BTRS
# rejection method (Hormann) when n * q >= 10, else the geometric inversion; k or n - k. T is
# prob's dtype: expressions with the kernel's double literals run in double and are stored in T;
# T-only ones (and std::log / log1p / sqrt of T) run in T.
_TAIL = (0.0810614667953272, 0.0413406959554092, 0.0276779256849983, 0.02079067210376509,
         0.0166446911898211, 0.0138761288230707, 0.0118967099458917, 0.0104112652619720,
         0.00925546218271273, 0.00833056343336287)


class _TMath:
    """log, log1p, sqrt of a T value (float32: the C library's logf / log1pf / sqrtf)."""

    def __init__(self, t):
        if t == np.float32:
            import ctypes

            lib = _libm()
            for name in ("log1pf",):
                fn = getattr(lib, name)
                fn.restype = ctypes.c_float
                fn.argtypes = [ctypes.c_float]
            self.log = lambda v: np.float32(lib.logf(float(v)))
            self.log1p = lambda v: np.float32(lib.log1pf(float(v)))
            self.sqrt = lambda v: np.float32(lib.sqrtf(float(v)))
        else:
            self.log = lambda v: np.float64(math.log(v))
            self.log1p = lambda v: np.float64(math.log1p(v))
            self.sqrt = lambda v: np.float64(math.sqrt(v))


def _stirling_tail(k, t):
    if k <= 9:
        return t(_TAIL[int(k)])
    kp1sq = t((k + 1) * (k + 1))
    kp1sq = float(kp1sq)
    return t((1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1))


def _btrs(n, p, t, tm, uniform):
    stddev = tm.sqrt(t(t(n * p) * t(t(1) - p)))
    sd = float(stddev)
    b = t(1.15 + 2.53 * sd)
    a = t(-0.0873 + 0.0248 * float(b) + 0.01 * float(p))
    c = t(float(t(n * p)) + 0.5)
    v_r = t(0.92 - 4.2 / float(b))
    r = t(p / t(t(1) - p))
    alpha = t((2.83 + 5.1 / float(b)) * sd)
    m = t(math.floor(t(t(n + t(1)) * p)))
    while True:
        u = t(float(uniform()) - 0.5)
        v = uniform()
        us = t(0.5 - abs(float(u)))
        k = int(math.floor(t(t(t(t(t(t(2) * a) / us) + b) * u) + c)))
        if k < 0 or t(k) > n:
            continue
        if float(us) >= 0.07 and v <= v_r:
            return k
        v = tm.log(t(t(v * alpha) / t(t(a / t(us * us)) + b)))
        log1 = tm.log(t(t(m + t(1)) / t(r * t(t(n - m) + t(1)))))
        log2 = tm.log(t(t(t(n - m) + t(1)) / t(t(n - t(k)) + t(1))))
        log3 = tm.log(t(t(r * t(t(n - t(k)) + t(1))) / t(k + 1)))
        upper = t((float(m) + 0.5) * float(log1)
                  + float(t(t(n + t(1)) * log2))
                  + (k + 0.5) * float(log3)
                  + float(_stirling_tail(int(m), t)) + float(_stirling_tail(int(n - m), t))
                  - float(_stirling_tail(k, t)) - float(_stirling_tail(int(n - t(k)), t)))
        if v <= upper:
            return k


def _inversion(n, p, t, tm, uniform):
    geom_sum = t(0)
    count = 0
    logprob = tm.log1p(t(-p))
    while True:
        geom = t(math.ceil(t(tm.log(uniform()) / logprob)))
        geom_sum = t(geom_sum + geom)
        if geom_sum > n:
            return count
        count += 1


def _binomial_one(n, p, t, tm, uniform):
    if n <= 0 or p <= 0:
        return 0
    if p >= 1:
        return int(n)
    if p <= 0.5:
        return (_btrs if t(n * p) >= 10.0 else _inversion)(n, p, t, tm, uniform)
    q = t(1.0 - float(p))
    return int(n) - (_btrs if t(n * q) >= 10.0 else _inversion)(n, q, t, tm, uniform)


def binomial(count, prob, name=None):
    """Binomial(count, prob) counts (int64), broadcast, as Paddle's CPU kernel draws them."""
    from .. import random_engine
    from ..core import Tensor
    from .attribute import _not_registered
    from . import creation

    paddle = _paddle()
    count, prob = paddle.broadcast_tensors([paddle.cast(count, dtype=prob.dtype), prob])
    t = np.dtype(prob.data.dtype)
    if t not in (np.float32, np.float64):
        raise _not_registered("binomial", t, "float32, float64")
    t = t.type
    engine = creation._RNG[0].engine
    tm = _TMath(t)

    def uniform():
        return t(random_engine.uniform(engine, 1, t, 0.0, 1.0)[0])

    ns, ps = np.asarray(count.data).ravel(), np.asarray(prob.data).ravel()
    out = np.array([_binomial_one(t(n), t(p), t, tm, uniform) for n, p in zip(ns, ps)],
                   np.int64)
    return Tensor._wrap(out.reshape(count.data.shape), True)


# ------------------------------------------------------------------------------ Generator, dlpack
class _GeneratorMeta(type):
    def __repr__(cls):
        return "<class 'paddle.framework.random.Generator'>"

    def __instancecheck__(cls, obj):  # real 3.3.1: isinstance(paddle.Generator(), it) is False
        return False


class Generator(metaclass=_GeneratorMeta):
    """``paddle.Generator(device=None)`` (3.x): the device's default generator, the one
    ``paddle.seed`` seeds (a ``paddle.base.libpaddle.Generator``)."""

    def __new__(cls, device=None):
        from . import creation

        return creation._RNG[0]


def to_dlpack(x):
    """``paddle.to_dlpack`` (3.x; ``paddle.utils.dlpack.to_dlpack``)."""
    from ..utils import dlpack

    return dlpack.to_dlpack(x)


def from_dlpack(dlpack):
    """``paddle.from_dlpack`` (3.x; ``paddle.utils.dlpack.from_dlpack``)."""
    from ..utils import dlpack as _dlpack

    return _dlpack.from_dlpack(dlpack)
