"""``paddle.audio.functional.get_window``: Paddle builds its windows in Python from its own ops
(``linspace(-pi, pi)`` cosine sums, ``where``, ``i0``, ``exp``), in the asked dtype (float64 by
default); composed here from the same ops in the same order, so the values round the same. The
cosine-sum, Bartlett and Kaiser windows are shared with ``paddle.hann_window`` & co.
(``tensor/samplers.py``)."""
from __future__ import annotations

import math
import sys

from .. import profiles
from ..tensor.samplers import _bartlett, _general_cosine, _kaiser, _len_guards


def _paddle():
    return sys.modules[__name__.rsplit(".", 2)[0]]


def _periodic(m, sym):
    """(length to build, drop the last sample): a periodic window is the symmetric one of
    length m + 1 without its last sample."""
    return (m, False) if sym else (m + 1, True)


def _cut(w, trunc):
    return w[:-1] if trunc else w


def _nuttall(m, sym=True, dtype="float64"):
    paddle = _paddle()
    a = paddle.to_tensor([0.3635819, 0.4891775, 0.1365995, 0.0106411], dtype=dtype)
    return _general_cosine(m, a, sym, dtype)


def _general_gaussian(m, p, sig, sym=True, dtype="float64"):
    paddle = _paddle()
    if _len_guards(m):
        return paddle.ones((m,), dtype=dtype)
    m, trunc = _periodic(m, sym)
    n = paddle.arange(0, m, dtype=dtype) - (m - 1.0) / 2.0
    return _cut(paddle.exp(-0.5 * paddle.abs(n / sig) ** (2 * p)), trunc)


def _tukey(m, alpha=0.5, sym=True, dtype="float64"):
    paddle = _paddle()
    if _len_guards(m) or alpha <= 0:
        return paddle.ones((m,), dtype=dtype)
    if alpha >= 1.0:
        return _general_cosine(m, [0.5, 1.0 - 0.5], sym, "float64")  # Paddle: hann, float64
    m, trunc = _periodic(m, sym)
    n = paddle.arange(0, m, dtype=dtype)
    width = int(alpha * (m - 1) / 2.0)
    n1, n2, n3 = n[0:width + 1], n[width + 1:m - width - 1], n[m - width - 1:]
    w1 = 0.5 * (1 + paddle.cos(math.pi * (-1 + 2.0 * n1 / alpha / (m - 1))))
    w2 = paddle.ones(n2.shape, dtype=dtype)
    w3 = 0.5 * (1 + paddle.cos(math.pi * (-2.0 / alpha + 1 + 2.0 * n3 / alpha / (m - 1))))
    return _cut(paddle.concat([w1, w2, w3]), trunc)


def _gaussian(m, std, sym=True, dtype="float64"):
    paddle = _paddle()
    if _len_guards(m):
        return paddle.ones((m,), dtype=dtype)
    m, trunc = _periodic(m, sym)
    n = paddle.arange(0, m, dtype=dtype) - (m - 1.0) / 2.0
    sig2 = 2 * std * std
    return _cut(paddle.exp(-(n ** 2) / sig2), trunc)


def _exponential(m, center=None, tau=1.0, sym=True, dtype="float64"):
    paddle = _paddle()
    if sym and center is not None:
        raise ValueError("If sym==True, center must be None.")
    if _len_guards(m):
        return paddle.ones((m,), dtype=dtype)
    m, trunc = _periodic(m, sym)
    if center is None:
        center = (m - 1) / 2
    n = paddle.arange(0, m, dtype=dtype)
    return _cut(paddle.exp(-paddle.abs(n - center) / tau), trunc)


def _triang(m, sym=True, dtype="float64"):
    paddle = _paddle()
    if _len_guards(m):
        return paddle.ones((m,), dtype=dtype)
    m, trunc = _periodic(m, sym)
    n = paddle.arange(1, (m + 1) // 2 + 1, dtype=dtype)
    if m % 2 == 0:
        w = (2 * n - 1.0) / m
        w = paddle.concat([w, w[::-1]])
    else:
        w = 2 * n / (m + 1.0)
        w = paddle.concat([w, w[-2::-1]])
    return _cut(w, trunc)


def _bohman(m, sym=True, dtype="float64"):
    paddle = _paddle()
    if _len_guards(m):
        return paddle.ones((m,), dtype=dtype)
    m, trunc = _periodic(m, sym)
    fac = paddle.abs(paddle.linspace(-1, 1, m, dtype=dtype)[1:-1])
    w = (1 - fac) * paddle.cos(math.pi * fac) + 1.0 / math.pi * paddle.sin(math.pi * fac)
    zero = paddle.to_tensor([0], dtype)
    return _cut(paddle.concat([zero, paddle.to_tensor(w, dtype), zero]), trunc)


def _cosine(m, sym=True, dtype="float64"):
    paddle = _paddle()
    if _len_guards(m):
        return paddle.ones((m,), dtype=dtype)
    m, trunc = _periodic(m, sym)
    return _cut(paddle.sin(math.pi / m * (paddle.arange(0, m, dtype=dtype) + 0.5)), trunc)


def _taylor(m, nbar=4, sll=30, norm=True, sym=True, dtype="float64"):
    paddle = _paddle()
    if _len_guards(m):
        return paddle.ones((m,), dtype=dtype)
    m, trunc = _periodic(m, sym)
    b = 10 ** (sll / 20)
    a = math.log(b + math.sqrt(b ** 2 - 1)) / math.pi
    s2 = nbar ** 2 / (a ** 2 + (nbar - 0.5) ** 2)
    ma = paddle.arange(1, nbar, dtype=dtype)
    fm = paddle.empty((nbar - 1,), dtype=dtype)
    signs = paddle.empty_like(ma)
    signs[::2] = 1
    signs[1::2] = -1
    m2 = ma * ma
    for mi in range(len(ma)):
        number = signs[mi] * paddle.prod(1 - m2[mi] / s2 / (a ** 2 + (ma - 0.5) ** 2))
        if mi == 0:
            denom = 2 * paddle.prod(1 - m2[mi] / m2[mi + 1:])
        elif mi == len(ma) - 1:
            denom = 2 * paddle.prod(1 - m2[mi] / m2[:mi])
        else:
            denom = (2 * paddle.prod(1 - m2[mi] / m2[:mi])
                     * paddle.prod(1 - m2[mi] / m2[mi + 1:]))
        fm[mi] = number / denom

    def shape(n):
        return 1 + 2 * paddle.matmul(
            fm.unsqueeze(0), paddle.cos(2 * math.pi * ma.unsqueeze(1) * (n - m / 2.0 + 0.5) / m))

    w = shape(paddle.arange(0, m, dtype=dtype))
    if norm:
        w *= 1.0 / shape((m - 1) / 2)
    return _cut(w.squeeze(), trunc)


_SINCE3 = ("bartlett", "kaiser", "nuttall")  # real 2.6.2: "Unknown window type."

_WINDOWS = {
    "hann": lambda m, sym, dtype: _general_cosine(m, [0.5, 1.0 - 0.5], sym, dtype),
    "hamming": lambda m, sym, dtype: _general_cosine(m, [0.54, 1.0 - 0.54], sym, dtype),
    "blackman": lambda m, sym, dtype: _general_cosine(m, [0.42, 0.50, 0.08], sym, dtype),
    "bartlett": lambda m, sym, dtype: _bartlett(m, sym, dtype),
    "kaiser": lambda m, beta, sym, dtype: _kaiser(m, beta, sym, dtype),
    "nuttall": lambda m, sym, dtype: _nuttall(m, sym, dtype),
    "general_gaussian": lambda m, p, sig, sym, dtype: _general_gaussian(m, p, sig, sym, dtype),
    "general_cosine": lambda m, a, sym, dtype: _general_cosine(m, a, sym, dtype),
    "general_hamming": lambda m, alpha, sym, dtype: _general_cosine(m, [alpha, 1.0 - alpha],
                                                                    sym, dtype),
    "tukey": lambda m, *a, sym, dtype: _tukey(m, *a, sym=sym, dtype=dtype),
    "gaussian": lambda m, std, sym, dtype: _gaussian(m, std, sym, dtype),
    "exponential": lambda m, *a, sym, dtype: _exponential(m, *a, sym=sym, dtype=dtype),
    "triang": lambda m, sym, dtype: _triang(m, sym, dtype),
    "bohman": lambda m, sym, dtype: _bohman(m, sym, dtype),
    "cosine": lambda m, sym, dtype: _cosine(m, sym, dtype),
    "taylor": lambda m, *a, sym, dtype: _taylor(m, *a, sym=sym, dtype=dtype),
}


def get_window(window, win_length, fftbins=True, dtype="float64"):
    """The window ``window`` (a name, or a tuple of a name and its parameters) of
    ``win_length`` samples; periodic unless ``fftbins`` is False."""
    args = ()
    if isinstance(window, tuple):
        name = window[0]
        args = window[1:]
    elif isinstance(window, str):
        needs = ("gaussian", "exponential", "kaiser") if profiles.current().api3 else (
            "gaussian", "exponential")
        if window in needs:
            raise ValueError(f"The '{window}' window needs one or more parameters -- pass a "
                             "tuple.")
        name = window
    else:
        raise ValueError(f"{type(window)} as window type is not supported.")
    fn = _WINDOWS.get(name)
    if fn is None or (name in _SINCE3 and not profiles.current().api3):
        raise ValueError("Unknown window type.")
    return fn(win_length, *args, sym=not fftbins, dtype=dtype)
