"""``paddle.fft``: the discrete Fourier transforms as Paddle 3.3.1 / 2.6.2 compute them on the CPU
(the ops ``fft_c2c`` / ``fft_r2c`` / ``fft_c2r`` of ``engine/ops/fft.py``: pocketfft in the input's
precision, Paddle's bits), with Paddle's argument handling: integers cast to the default dtype,
real inputs to a complex transform cast to complex, ``n``/``s`` cropping (``paddle.slice``) or
zero-padding (``F.pad``) the input first, ``fftn``'s axes sorted, and Paddle's ValueErrors (2.6.2
spells some of them "shoule" / "Invaid"). 3.x adds ``out=`` and the keyword aliases ``input=``,
``dim=``; ``fftfreq`` of 2.6.2 ignores its ``dtype`` (the default dtype), as real 2.6.2 does.
"""
from __future__ import annotations

import functools
import sys
from collections.abc import Sequence

import numpy as np

from ..engine.ops import fft as _ops
from . import profiles as _profiles

__all__ = ["fft", "fft2", "fftn", "ifft", "ifft2", "ifftn", "rfft", "rfft2", "rfftn", "irfft",
           "irfft2", "irfftn", "hfft", "hfft2", "hfftn", "ihfft", "ihfft2", "ihfftn", "fftfreq",
           "rfftfreq", "fftshift", "ifftshift"]

# Paddle's messages by version (2.6.2's typos)
_WORDS = {
    "3": {"should_int": "should", "invalid_s": "Invalid"},
    "2.6": {"should_int": "shoule", "invalid_s": "Invaid"},
}


def _words():
    return _WORDS["3" if _profiles.current().api3 else "2.6"]


def _paddle():
    return sys.modules[__name__.rsplit(".", 1)[0]]


def _api(alias2):
    """Paddle 3's ``param_two_alias(["x", "input"], [axis, "dim"])`` and ``out=``: 2.x has
    neither (a TypeError, as for any unknown keyword)."""

    def deco(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kw):
            if kw:
                if not _profiles.current().param_aliases:
                    for extra in ("input", "dim", "out"):
                        if extra in kw:
                            raise TypeError(f"{fn.__name__}() got an unexpected keyword "
                                            f"argument '{extra}'")
                if "x" not in kw and "input" in kw:
                    kw["x"] = kw.pop("input")
                if alias2 not in kw and "dim" in kw:
                    kw[alias2] = kw.pop("dim")
            return fn(*args, **kw)

        return wrapper

    return deco


# ------------------------------------------------------------------------------ checks
def _check_normalization(norm):
    if norm not in ["forward", "backward", "ortho"]:
        raise ValueError(f"Unexpected norm: {norm}. Norm should be forward, backward or ortho")


def _check_fft_n(n):
    if not isinstance(n, int):
        raise ValueError(f"Invalid FFT argument n({n}), it {_words()['should_int']} be an "
                         "integer.")
    if n <= 0:
        raise ValueError(f"Invalid FFT argument n({n}), it should be positive.")


def _check_fft_shape(x, s):
    ndim = x.ndim
    if not isinstance(s, Sequence):
        raise ValueError(f"{_words()['invalid_s']} FFT argument s({{}}), it should be a sequence "
                         "of integers.")
    if len(s) > ndim:
        raise ValueError("Length of FFT argument s should not be larger than the rank of input. "
                         f"Received s: {s}, rank of x: {ndim}")
    for size in s:
        if not isinstance(size, int) or size <= 0:
            raise ValueError(f"FFT sizes {s} contains invalid value ({size})")


def _check_fft_axis(x, axis):
    ndim = x.ndim
    if not isinstance(axis, int):
        raise ValueError(f"Invalid FFT axis ({axis}), it {_words()['should_int']} be an "
                         "integer.")
    if axis < -ndim or axis >= ndim:
        raise ValueError(f"Invalid FFT axis ({axis}), it should be in range [-{ndim}, {ndim})")


def _check_fft_axes(x, axes):
    ndim = x.ndim
    if not isinstance(axes, Sequence):
        raise ValueError(f"Invalid FFT axes ({axes}), it should be a sequence of integers.")
    if len(axes) > ndim:
        raise ValueError("Length of fft axes should not be larger than the rank of input. "
                         f"Received, len of axes: {len(axes)}, rank of x: {ndim}")
    for axis in axes:
        if not isinstance(axis, int) or axis < -ndim or axis >= ndim:
            raise ValueError(f"FFT axes {axes} contains invalid value ({axis}), it should be in "
                             f"range [-{ndim}, {ndim})")


def _check_at_least_ndim(x, rank):
    if x.ndim < rank:
        raise ValueError(f"The rank of the input ({x.ndim}) should >= {rank}")


def _check_2d(s, axes):
    if s is not None and (not isinstance(s, Sequence) or len(s) != 2):
        raise ValueError(f"Invalid FFT argument s ({s}), it should be a sequence of 2 integers.")
    if axes is not None and (not isinstance(axes, Sequence) or len(axes) != 2):
        raise ValueError(f"Invalid FFT argument axes ({axes}), it should be a sequence of 2 "
                         "integers.")


def _resize_fft_input(x, s, axes):
    """Crop (``paddle.slice``) or zero-pad (``F.pad``) the transformed axes to ``s``."""
    paddle = _paddle()
    if len(s) != len(axes):
        raise ValueError("length of `s` should equals length of `axes`.")
    shape = x.shape
    to_pad, pads, to_slice, ends = [], [], [], []
    for i, axis in enumerate(axes):
        if shape[axis] < s[i]:
            to_pad.append(axis)
            pads.append(s[i] - shape[axis])
        elif shape[axis] > s[i]:
            to_slice.append(axis)
            ends.append(s[i])
    if to_slice:
        x = paddle.slice(x, to_slice, starts=[0] * len(to_slice), ends=ends)
    if to_pad:
        widths = [0] * (2 * x.ndim)
        for axis, pad in zip(to_pad, pads):
            widths[2 * axis + 1] = pad
        x = paddle.nn.functional.pad(x, widths)
    return x


def _normalize_axes(x, axes):
    return [a if a >= 0 else a + x.ndim for a in axes]


def _complex_of(dtype):
    return "complex128" if str(dtype).endswith("float64") else "complex64"


def _as_complex_input(x):
    paddle = _paddle()
    if paddle.is_integer(x):
        return paddle.cast(x, _complex_of(paddle.get_default_dtype()))
    if paddle.is_floating_point(x):
        return paddle.cast(x, _complex_of(x.dtype))
    return x


def _as_real_input(x):
    paddle = _paddle()
    if paddle.is_integer(x):
        return paddle.cast(x, paddle.get_default_dtype())
    return x


def _done(ret, out):
    if out is not None:
        _paddle().assign(ret, out)
    return ret


# ------------------------------------------------------------------------------ the kernels' callers
def fft_c2c(x, n, axis, norm, forward, name, out=None):
    x = _as_complex_input(x)
    _check_normalization(norm)
    axis = axis if axis is not None else -1
    _check_fft_axis(x, axis)
    axes = _normalize_axes(x, [axis])
    if n is not None:
        _check_fft_n(n)
        x = _resize_fft_input(x, [n], axes)
    return _done(_ops.fft_c2c(x, axes, norm, forward), out)


def fft_r2c(x, n, axis, norm, forward, onesided, name, out=None):
    x = _as_real_input(x)
    _check_normalization(norm)
    axis = axis if axis is not None else -1
    _check_fft_axis(x, axis)
    axes = _normalize_axes(x, [axis])
    if n is not None:
        _check_fft_n(n)
        x = _resize_fft_input(x, [n], axes)
    return _done(_ops.fft_r2c(x, axes, norm, forward, onesided), out)


def _c2r_size_check(x, axes, last_dim_size):
    """2.6.2's infermeta refuses an empty output (irfft of one bin); 3.3.1 returns it."""
    n = last_dim_size if last_dim_size else 2 * (x.shape[axes[-1]] - 1)
    if n <= 0 and not _profiles.current().api3:  # phi/infermeta/unary.cc
        raise ValueError(f"(InvalidArgument) Invalid fft n-point ({n}).\n  [Hint: Expected "
                         f"fft_n_point > 0, but received fft_n_point:{n} <= 0:0.] "
                         "(at /paddle/paddle/phi/infermeta/unary.cc:1307)\n")


def fft_c2r(x, n, axis, norm, forward, name, out=None):
    x = _as_complex_input(x)
    _check_normalization(norm)
    axis = axis if axis is not None else -1
    _check_fft_axis(x, axis)
    axes = _normalize_axes(x, [axis])
    if n is not None:
        _check_fft_n(n)
        x = _resize_fft_input(x, [n // 2 + 1], axes)
    _c2r_size_check(x, axes, n or 0)
    return _done(_ops.fft_c2r(x, axes, norm, forward, n or 0), out)


def _nd_axes(x, s, axes, sort_all):
    """fftn's axes: all (or the last len(s)) by default; given ones normalised and sorted
    (c2c: all of them; r2c / c2r: all but the last), ``s`` reordered with them."""
    if axes is None:
        rank = x.ndim
        axes = list(range(rank)) if s is None else list(range(rank - len(s), rank))
        return s, axes
    _check_fft_axes(x, axes)
    axes = _normalize_axes(x, axes)
    order = np.argsort(axes if sort_all else axes[:-1]).tolist()
    new_axes = [axes[i] for i in order] + ([] if sort_all else [axes[-1]])
    if s is not None:
        if len(s) != len(new_axes):
            raise ValueError("Length of s (" + str(len(s)) + ") and length of axes (" +
                             str(len(new_axes)) + ") does not match.")
        s = [s[i] for i in order] + ([] if sort_all else [s[-1]])
    return s, new_axes


def fftn_c2c(x, s, axes, norm, forward, name, out=None):
    x = _as_complex_input(x)
    _check_normalization(norm)
    if s is not None:
        _check_fft_shape(x, s)
    s, axes = _nd_axes(x, s, axes, True)
    if s is not None:
        x = _resize_fft_input(x, s, axes)
    return _done(_ops.fft_c2c(x, axes, norm, forward), out)


def fftn_r2c(x, s, axes, norm, forward, onesided, name, out=None):
    x = _as_real_input(x)
    _check_normalization(norm)
    if s is not None:
        _check_fft_shape(x, s)
    s, axes = _nd_axes(x, s, axes, False)
    if s is not None:
        x = _resize_fft_input(x, s, axes)
    return _done(_ops.fft_r2c(x, axes, norm, forward, onesided), out)


def fftn_c2r(x, s, axes, norm, forward, name, out=None):
    x = _as_complex_input(x)
    _check_normalization(norm)
    if s is not None:
        _check_fft_shape(x, s)
    s, axes = _nd_axes(x, s, axes, False)
    if s is not None:
        shape = list(s)
        shape[-1] = shape[-1] // 2 + 1
        x = _resize_fft_input(x, shape, axes)
    last = s[-1] if s is not None else 0
    _c2r_size_check(x, axes, last)
    return _done(_ops.fft_c2r(x, axes, norm, forward, last), out)


def _is_real(x):
    paddle = _paddle()
    return paddle.is_integer(x) or paddle.is_floating_point(x)


# ------------------------------------------------------------------------------ 1-D
@_api("axis")
def fft(x, n=None, axis=-1, norm="backward", name=None, *, out=None):
    """One-dimensional discrete Fourier transform (complex output)."""
    if _is_real(x):
        return fft_r2c(x, n, axis, norm, forward=True, onesided=False, name=name, out=out)
    return fft_c2c(x, n, axis, norm, forward=True, name=name, out=out)


@_api("axis")
def ifft(x, n=None, axis=-1, norm="backward", name=None, *, out=None):
    """One-dimensional inverse discrete Fourier transform."""
    if _is_real(x):
        return fft_r2c(x, n, axis, norm, forward=False, onesided=False, name=name, out=out)
    return fft_c2c(x, n, axis, norm, forward=False, name=name, out=out)


@_api("axis")
def rfft(x, n=None, axis=-1, norm="backward", name=None, *, out=None):
    """The Fourier transform of a real signal: the n // 2 + 1 non-negative frequencies."""
    return fft_r2c(x, n, axis, norm, forward=True, onesided=True, name=name, out=out)


@_api("axis")
def irfft(x, n=None, axis=-1, norm="backward", name=None, *, out=None):
    """The inverse of ``rfft``: a real signal of length n (default 2 * (m - 1))."""
    return fft_c2r(x, n, axis, norm, forward=False, name=name, out=out)


@_api("axis")
def hfft(x, n=None, axis=-1, norm="backward", name=None, *, out=None):
    """The Fourier transform of a Hermitian-symmetric signal given by its first half (real)."""
    return fft_c2r(x, n, axis, norm, forward=True, name=name, out=out)


@_api("axis")
def ihfft(x, n=None, axis=-1, norm="backward", name=None, *, out=None):
    """The inverse of ``hfft``: the first half of a Hermitian-symmetric spectrum."""
    return fft_r2c(x, n, axis, norm, forward=False, onesided=True, name=name, out=out)


# ------------------------------------------------------------------------------ N-D
@_api("axes")
def fftn(x, s=None, axes=None, norm="backward", name=None, *, out=None):
    """N-dimensional discrete Fourier transform."""
    if _is_real(x):
        return fftn_r2c(x, s, axes, norm, forward=True, onesided=False, name=name, out=out)
    return fftn_c2c(x, s, axes, norm, forward=True, name=name, out=out)


@_api("axes")
def ifftn(x, s=None, axes=None, norm="backward", name=None, *, out=None):
    """N-dimensional inverse discrete Fourier transform."""
    if _is_real(x):
        return fftn_r2c(x, s, axes, norm, forward=False, onesided=False, name=name, out=out)
    return fftn_c2c(x, s, axes, norm, forward=False, name=name, out=out)


@_api("axes")
def rfftn(x, s=None, axes=None, norm="backward", name=None, *, out=None):
    """N-dimensional Fourier transform of a real signal (one-sided in the last axis)."""
    return fftn_r2c(x, s, axes, norm, forward=True, onesided=True, name=name, out=out)


@_api("axes")
def irfftn(x, s=None, axes=None, norm="backward", name=None, *, out=None):
    """The inverse of ``rfftn``."""
    return fftn_c2r(x, s, axes, norm, forward=False, name=name, out=out)


@_api("axes")
def hfftn(x, s=None, axes=None, norm="backward", name=None, *, out=None):
    """N-dimensional ``hfft``."""
    return fftn_c2r(x, s, axes, norm, forward=True, name=name, out=out)


@_api("axes")
def ihfftn(x, s=None, axes=None, norm="backward", name=None, *, out=None):
    """N-dimensional ``ihfft``."""
    return fftn_r2c(x, s, axes, norm, forward=False, onesided=True, name=name, out=out)


def _two_d(nd):
    @_api("axes")
    def two(x, s=None, axes=(-2, -1), norm="backward", name=None, *, out=None):
        _check_at_least_ndim(x, 2)
        _check_2d(s, axes)
        return nd(x, s, axes, norm, name) if out is None else nd(x, s, axes, norm, name, out=out)

    two.__name__ = two.__qualname__ = nd.__name__[:-1] + "2"
    two.__doc__ = f"Two-dimensional ``{nd.__name__}`` over ``axes`` (the last two by default)."
    return two


fft2 = _two_d(fftn)
ifft2 = _two_d(ifftn)
rfft2 = _two_d(rfftn)
irfft2 = _two_d(irfftn)
hfft2 = _two_d(hfftn)
ihfft2 = _two_d(ihfftn)


# ------------------------------------------------------------------------------ helpers
def _freq(n, d, dtype, pos_max, neg_max, name, out, device, requires_grad):
    paddle = _paddle()
    if d * n == 0:
        raise ValueError("d or n should not be 0.")
    if dtype is None or not _profiles.current().api3:  # 2.6.2 ignores dtype
        dtype = paddle.get_default_dtype()
    val = 1.0 / (n * d)
    kw = {}
    if requires_grad:
        kw["requires_grad"] = requires_grad
    indices = paddle.arange(-neg_max, pos_max, dtype=dtype, name=name, **kw)
    if neg_max:
        indices = paddle.roll(indices, -neg_max, name=name)
    return _done(indices * val, out)


def fftfreq(n, d=1.0, dtype=None, name=None, *, out=None, device=None, requires_grad=False):
    """The sample frequencies of an n-point transform with sample spacing d."""
    if not _profiles.current().api3 and (out is not None or device is not None or requires_grad):
        raise TypeError("fftfreq() got an unexpected keyword argument "
                        f"'{'out' if out is not None else 'device' if device else 'requires_grad'}'")
    return _freq(n, d, dtype, (n + 1) // 2, n // 2, name, out, device, requires_grad)


def rfftfreq(n, d=1.0, dtype=None, name=None, *, out=None, device=None, requires_grad=False):
    """The sample frequencies of ``rfft``: 0 .. n // 2 (times 1 / (n * d))."""
    if not _profiles.current().api3 and (out is not None or device is not None or requires_grad):
        raise TypeError("rfftfreq() got an unexpected keyword argument "
                        f"'{'out' if out is not None else 'device' if device else 'requires_grad'}'")
    if d * n == 0:
        raise ValueError("d or n should not be 0.")
    return _freq(n, d, dtype, 1 + n // 2, 0, name, out, device, requires_grad)


def _shift(x, axes, name, extra):
    paddle = _paddle()
    shape = paddle.shape(x)
    if axes is None:
        axes = list(range(len(x.shape)))
        shifts = (shape + extra) // 2
    elif isinstance(axes, int):
        shifts = (shape[axes] + extra) // 2
    else:
        shifts = paddle.concat([(shape[ax:ax + 1] + extra) // 2 for ax in axes])
    return paddle.roll(x, shifts, axes, name=name)


@_api("axes")
def fftshift(x, axes=None, name=None):
    """Shift the zero-frequency term to the centre (``roll`` by n // 2 on each axis)."""
    return _shift(x, axes, name, 0)


@_api("axes")
def ifftshift(x, axes=None, name=None):
    """The inverse of ``fftshift`` (``roll`` by (n + 1) // 2)."""
    return _shift(x, axes, name, 1)


def _bind_names():
    paddle = _paddle()
    g = globals()
    g["paddle"] = paddle
    g["np"] = np
    g["is_floating_point"] = paddle.is_floating_point
    g["is_integer"] = paddle.is_integer
    g["in_dynamic_mode"] = paddle.in_dynamic_mode
    g["in_dynamic_or_pir_mode"] = paddle.in_dynamic_mode


_bind_names()

from .names_gate import gate as _gate  # noqa: E402  (the names of the emulated version)

_gate(__name__)
