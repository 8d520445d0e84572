"""Paddle's discrete Fourier transform ops (``fft_c2c``, ``fft_r2c``, ``fft_c2r``) as its CPU
kernels compute them: pocketfft in the input's precision (float32 stays single precision), the
normalisation factor a number of that precision (``1 / n``, ``1 / sqrt(n)``) applied in the first
pass, as pocketfft's multi-axis calls do:

- c2c over several axes: one pass an axis in the order given, the factor in the first;
- r2c: the real transform along the last axis (factor there; the imaginary parts negated for a
  backward transform), then c2c over the other axes; ``onesided=False`` fills the other half
  with the conjugates of the mirrored bins;
- c2r: c2c over the leading axes, then the real inverse along the last axis (factor there; a
  forward c2r, ``hfft``, conjugates its input first).

numpy 2's ``numpy.fft`` is the same pocketfft: its ufuncs, given a factor of the input's precision,
give Paddle's bits (measured: 3.3.1 and 2.6.2 equal on 17 lengths, 3 norms); ``numpy.fft``'s own
functions pass the integer 1 for "no scaling", which picks the double-precision loop, and differ
in the last bits. Without numpy 2 the transforms run in double precision (last bits may differ).

The VJPs are Paddle's grad kernels: c2c's is c2c the other way with the same factor; r2c's pads
the one-sided gradient with zeros, runs c2c the other way and keeps the real part; c2r's is r2c
the other way with the bins that stand for two (1 .. n - n_onesided) doubled. The gradient ops
are linear, and each one's VJP is the op it is the gradient of, so ``create_graph`` works.
"""
from __future__ import annotations

import numpy as np

from ..registry import apply, register

try:  # numpy >= 2: pocketfft's ufuncs (single and double precision loops)
    from numpy.fft import _pocketfft_umath as _pfu
except ImportError:  # pragma: no cover - numpy 1.x
    _pfu = None

_REAL = {np.dtype(np.complex64): np.float32, np.dtype(np.complex128): np.float64,
         np.dtype(np.float32): np.float32, np.dtype(np.float64): np.float64}


def factor(norm, forward, n, real_dtype):
    """The normalisation factor in the data's precision (Paddle's compute_factor)."""
    mode = {"backward": "none" if forward else "by_n", "forward": "by_n" if forward else "none",
            "ortho": "by_sqrt_n"}[norm]
    one = real_dtype(1)
    if mode == "none":
        return one
    if mode == "by_n":
        return real_dtype(one / real_dtype(n))
    return real_dtype(one / np.sqrt(real_dtype(n)))


def _c2c_axis(a, axis, fct, forward):
    if _pfu is None:
        f = np.fft.fft if forward else np.fft.ifft
        return (f(a, axis=axis, norm="backward" if forward else "forward") * fct).astype(a.dtype)
    out = np.empty_like(a)
    return (_pfu.fft if forward else _pfu.ifft)(a, fct, axes=[(axis,), (), (axis,)], out=out)


def _r2c_axis(a, axis, fct):
    n = a.shape[axis]
    shape = a.shape[:axis] + (n // 2 + 1,) + a.shape[axis + 1:]
    cdt = np.complex64 if a.dtype == np.float32 else np.complex128
    if _pfu is None:
        return (np.fft.rfft(a, axis=axis) * fct).astype(cdt)
    out = np.empty(shape, cdt)
    ufunc = _pfu.rfft_n_even if n % 2 == 0 else _pfu.rfft_n_odd
    return ufunc(a, fct, axes=[(axis,), (), (axis,)], out=out)


def _c2r_axis(a, axis, fct, n):
    shape = a.shape[:axis] + (n,) + a.shape[axis + 1:]
    rdt = _REAL[a.dtype]
    if _pfu is None:
        return (np.fft.irfft(a, n, axis=axis, norm="forward") * fct).astype(rdt)
    out = np.empty(shape, rdt)
    if n == 0:  # Paddle 3.3.1: irfft of one bin is empty
        return out
    return _pfu.irfft(a, fct, axes=[(axis,), (), (axis,)], out=out)


def c2c(x, axes, normalization, forward):
    x = np.asarray(x)
    fct = factor(normalization, forward, int(np.prod([x.shape[a] for a in axes])), _REAL[x.dtype])
    out = x
    for i, axis in enumerate(axes):
        out = _c2c_axis(out, axis, fct if i == 0 else _REAL[x.dtype](1), forward)
    return out


def r2c(x, axes, normalization, forward, onesided):
    x = np.asarray(x)
    rdt = _REAL[x.dtype]
    fct = factor(normalization, forward, int(np.prod([x.shape[a] for a in axes])), rdt)
    out = _r2c_axis(x, axes[-1], fct)
    if not forward:
        out = _backward_r2c(out, axes[-1], x.shape[axes[-1]])
    for axis in axes[:-1]:
        out = _c2c_axis(out, axis, rdt(1), forward)
    if onesided:
        return out
    return _fill_conj(out, x.shape, axes)


def _backward_r2c(out, axis, n):
    """pocketfft's r2c the other way: the imaginary parts negated, those of bin 0 (and of bin
    n / 2 for an even n) written as +0 (they are not negated)."""
    out = np.conj(out)
    idx = [slice(None)] * out.ndim
    idx[axis] = [0, n // 2] if n % 2 == 0 and n > 1 else [0]
    out.imag[tuple(idx)] = 0
    return out


def _fill_conj(half, full_shape, axes):
    """The full spectrum of a real signal from its one-sided half: bin k of the last axis beyond
    the half is the conjugate of bin n - k, the other transformed axes mirrored (i -> -i mod n)."""
    last = axes[-1]
    n = full_shape[last]
    h = half.shape[last]
    full = np.empty(tuple(full_shape), half.dtype)
    idx = [slice(None)] * half.ndim
    idx[last] = slice(0, h)
    full[tuple(idx)] = half
    if n > h:
        src = half
        for axis in axes[:-1]:  # mirror i -> (n - i) % n
            src = np.roll(np.flip(src, axis), 1, axis)
        take = [slice(None)] * half.ndim
        take[last] = slice(n - h, 0, -1)  # bins n-h .. 1 for k = h .. n-1
        idx[last] = slice(h, n)
        full[tuple(idx)] = np.conj(src[tuple(take)])
    return full


def c2r(x, axes, normalization, forward, last_dim_size):
    x = np.asarray(x)
    last = axes[-1]
    n = last_dim_size if last_dim_size else 2 * (x.shape[last] - 1)
    rdt = _REAL[x.dtype]
    sizes = [x.shape[a] for a in axes[:-1]] + [n]
    fct = factor(normalization, forward, int(np.prod(sizes)), rdt)
    out = x
    for axis in axes[:-1]:
        out = _c2c_axis(out, axis, rdt(1), forward)
    if forward:
        out = np.conj(out)
    return _c2r_axis(np.ascontiguousarray(out), last, fct, n)


# -------------------------------------------------------------------- the gradient kernels
def r2c_grad(g, axes, normalization, forward, onesided, n_last):
    """FFTR2CGradKernel: the one-sided gradient padded with zeros to ``n_last`` bins, c2c the
    other way with the forward's factor, its real part."""
    g = np.asarray(g)
    last = axes[-1]
    if onesided and g.shape[last] < n_last:
        pad = [(0, 0)] * g.ndim
        pad[last] = (0, n_last - g.shape[last])
        g = np.pad(g, pad)
    rdt = _REAL[g.dtype]
    fct = factor(normalization, forward, int(np.prod([g.shape[a] for a in axes])), rdt)
    out = g
    for i, axis in enumerate(axes):
        out = _c2c_axis(out, axis, fct if i == 0 else rdt(1), not forward)
    return np.ascontiguousarray(out.real)


def c2r_grad(g, axes, normalization, forward, n_half, n_full=0):
    """FFTC2RGradKernel: r2c the other way with the forward's factor (one-sided), the bins
    1 .. n - n_half doubled (each stands for itself and its mirror)."""
    g = np.asarray(g)
    last = axes[-1]
    rdt = _REAL[g.dtype]
    fct = factor(normalization, forward, int(np.prod([g.shape[a] for a in axes])), rdt)
    out = _r2c_axis(g, last, fct)
    if forward:  # r2c the other way: backward
        out = _backward_r2c(out, last, g.shape[last])
    for axis in axes[:-1]:
        out = _c2c_axis(out, axis, rdt(1), not forward)
    double = g.shape[last] - n_half
    if double > 0:
        idx = [slice(None)] * out.ndim
        idx[last] = slice(1, double + 1)
        out[tuple(idx)] *= rdt(2)
    return out


def _c2c_vjp(n, g):
    a = n.attrs
    return apply(FFT_C2C, (g,), {"axes": a["axes"], "normalization": a["normalization"],
                                 "forward": not a["forward"],
                                 "_scale_of": a.get("_scale_of", a["forward"])})


def _c2c_fwd(x, axes, normalization, forward, _scale_of=None):
    """``_scale_of``: the direction whose factor applies (a gradient keeps the forward's)."""
    if _scale_of is None or _scale_of == forward:
        return c2c(x, axes, normalization, forward)
    x = np.asarray(x)
    rdt = _REAL[x.dtype]
    fct = factor(normalization, _scale_of, int(np.prod([x.shape[a] for a in axes])), rdt)
    out = x
    for i, axis in enumerate(axes):
        out = _c2c_axis(out, axis, fct if i == 0 else rdt(1), forward)
    return out


def _r2c_vjp(n, g):
    a = n.attrs
    return apply(FFT_R2C_GRAD, (g,), {"axes": a["axes"], "normalization": a["normalization"],
                                      "forward": a["forward"], "onesided": a["onesided"],
                                      "n_last": a["_n_last"]})


def _r2c_fwd(x, axes, normalization, forward, onesided, _n_last=None):
    return r2c(x, axes, normalization, forward, onesided)


def _r2c_grad_vjp(n, gg):
    a = n.attrs
    return apply(FFT_R2C, (gg,), {"axes": a["axes"], "normalization": a["normalization"],
                                  "forward": a["forward"], "onesided": a["onesided"],
                                  "_n_last": a["n_last"]})


def _c2r_vjp(n, g):
    a = n.attrs
    return apply(FFT_C2R_GRAD, (g,), {"axes": a["axes"], "normalization": a["normalization"],
                                      "forward": a["forward"], "n_half": a["_n_half"],
                                      "n_full": g.data.shape[a["axes"][-1]]})


def _c2r_fwd(x, axes, normalization, forward, last_dim_size, _n_half=None):
    return c2r(x, axes, normalization, forward, last_dim_size)


def _c2r_grad_vjp(n, gg):
    a = n.attrs
    return apply(FFT_C2R, (gg,), {"axes": a["axes"], "normalization": a["normalization"],
                                  "forward": a["forward"], "last_dim_size": a["n_full"],
                                  "_n_half": a["n_half"]})


def _real_in(shape):
    return np.random.default_rng(0).uniform(-1, 1, shape)


def _complex_in(shape):
    """Complex example inputs document an op; the gradient check perturbs real inputs only
    (tests/test_paddle_fft.py checks these VJPs by finite differences and real Paddle)."""
    rng = np.random.default_rng(0)
    return rng.uniform(-1, 1, shape) + 1j * rng.uniform(-1, 1, shape)


FFT_C2C = register("fft_c2c", _c2c_fwd, _c2c_vjp, saves_inputs=False, saves_output=False,
                   legacy_name="FftC2cBackward", check=False,
                   examples=[([_complex_in((2, 4))], {"axes": (1,), "normalization": "backward",
                                                      "forward": True})])
FFT_R2C = register("fft_r2c", _r2c_fwd, _r2c_vjp, saves_inputs=False, saves_output=False,
                   legacy_name="FftR2cBackward", check=False,
                   examples=[([(2, 5)], {"axes": (1,), "normalization": "ortho", "forward": True,
                                         "onesided": True})])
FFT_C2R = register("fft_c2r", _c2r_fwd, _c2r_vjp, saves_inputs=False, saves_output=False,
                   legacy_name="FftC2rBackward", check=False,
                   examples=[([_complex_in((2, 4))], {"axes": (1,), "normalization": "backward",
                                                      "forward": False, "last_dim_size": 6,
                                                      "_n_half": 4})])
FFT_R2C_GRAD = register("fft_r2c_grad", r2c_grad, _r2c_grad_vjp, saves_inputs=False,
                        saves_output=False, legacy_name="FftR2cGradBackward", check=False,
                        examples=[([_complex_in((2, 3))], {"axes": (1,), "normalization": "ortho",
                                                           "forward": True, "onesided": True,
                                                           "n_last": 5})])
FFT_C2R_GRAD = register("fft_c2r_grad", c2r_grad, _c2r_grad_vjp, saves_inputs=False,
                        saves_output=False, legacy_name="FftC2rGradBackward", check=False,
                        examples=[([(2, 6)], {"axes": (1,), "normalization": "backward",
                                              "forward": False, "n_half": 4, "n_full": 6})])


def fft_c2c(x, axes, normalization, forward):
    return apply(FFT_C2C, (x,), {"axes": tuple(axes), "normalization": normalization,
                                 "forward": bool(forward)})


def fft_r2c(x, axes, normalization, forward, onesided):
    return apply(FFT_R2C, (x,), {"axes": tuple(axes), "normalization": normalization,
                                 "forward": bool(forward), "onesided": bool(onesided),
                                 "_n_last": x.data.shape[axes[-1]]})


def fft_c2r(x, axes, normalization, forward, last_dim_size):
    return apply(FFT_C2R, (x,), {"axes": tuple(axes), "normalization": normalization,
                                 "forward": bool(forward), "last_dim_size": int(last_dim_size),
                                 "_n_half": x.data.shape[axes[-1]]})
