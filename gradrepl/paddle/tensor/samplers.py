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

__all__ = ["cauchy_", "geometric_", "log_normal", "log_normal_", "hann_window",
           "hamming_window", "blackman_window", "bartlett_window", "kaiser_window", "batch"]
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
