"""``paddle.audio.functional``: mel scales, filter banks, decibels and the DCT matrix.

Paddle writes these in Python over its own ops; each is composed here from the same ops in the
same order (a tensor's ``(freq - f_min) / f_sp``, the log region blended in by a 0/1 mask, the
filter bank's rows set one at a time), so the values round as Paddle's do in each version (3.x
and 2.6 differ in the last bits of e.g. ``hz_to_mel`` through their scalar-op rules, which the
dialect's operators already follow).
"""
from __future__ import annotations

import math
import sys

from .window import get_window  # noqa: F401

__all__ = ["compute_fbank_matrix", "create_dct", "fft_frequencies", "hz_to_mel",
           "mel_frequencies", "mel_to_hz", "power_to_db", "get_window"]

# Slaney's mel scale: linear below 1000 Hz (200/3 Hz a mel), logarithmic above
_F_MIN = 0.0
_F_SP = 200.0 / 3
_MIN_LOG_HZ = 1000.0
_MIN_LOG_MEL = (_MIN_LOG_HZ - _F_MIN) / _F_SP
_LOGSTEP = math.log(6.4) / 27.0


def _paddle():
    return sys.modules[__name__.rsplit(".", 2)[0]]


def _is_tensor(x):
    return isinstance(x, _paddle().Tensor)


def hz_to_mel(freq, htk=False):
    """Hertz to mels (Slaney's scale, or HTK's ``2595 log10(1 + f/700)``); a float or a
    Tensor."""
    paddle = _paddle()
    if htk:
        if _is_tensor(freq):
            return 2595.0 * paddle.log10(1.0 + freq / 700.0)
        return 2595.0 * math.log10(1.0 + freq / 700.0)
    mels = (freq - _F_MIN) / _F_SP
    if _is_tensor(freq):
        log_part = _MIN_LOG_MEL + paddle.log(freq / _MIN_LOG_HZ + 1e-10) / _LOGSTEP
        mask = (freq > _MIN_LOG_HZ).astype(freq.dtype)
        return log_part * mask + mels * (1 - mask)
    if freq >= _MIN_LOG_HZ:
        mels = _MIN_LOG_MEL + math.log(freq / _MIN_LOG_HZ + 1e-10) / _LOGSTEP
    return mels


def mel_to_hz(mel, htk=False):
    """Mels to hertz (the inverse of ``hz_to_mel``); a float or a Tensor."""
    paddle = _paddle()
    if htk:
        return 700.0 * (10.0 ** (mel / 2595.0) - 1.0)
    freqs = _F_MIN + _F_SP * mel
    if _is_tensor(mel):
        log_part = _MIN_LOG_HZ * paddle.exp(_LOGSTEP * (mel - _MIN_LOG_MEL))
        mask = (mel > _MIN_LOG_MEL).astype(mel.dtype)
        return log_part * mask + freqs * (1 - mask)
    if mel >= _MIN_LOG_MEL:
        freqs = _MIN_LOG_HZ * math.exp(_LOGSTEP * (mel - _MIN_LOG_MEL))
    return freqs


def mel_frequencies(n_mels=64, f_min=0.0, f_max=11025.0, htk=False, dtype="float32"):
    """``n_mels`` frequencies (Hz) evenly spaced on the mel scale from ``f_min`` to ``f_max``."""
    mels = _paddle().linspace(hz_to_mel(f_min, htk=htk), hz_to_mel(f_max, htk=htk), n_mels,
                              dtype=dtype)
    return mel_to_hz(mels, htk=htk)


def fft_frequencies(sr, n_fft, dtype="float32"):
    """The frequencies (Hz) of the ``1 + n_fft // 2`` bins of a one-sided FFT."""
    return _paddle().linspace(0, float(sr) / 2, int(1 + n_fft // 2), dtype=dtype)


def compute_fbank_matrix(sr, n_fft, n_mels=64, f_min=0.0, f_max=None, htk=False,
                         norm="slaney", dtype="float32"):
    """Triangular mel filters, ``[n_mels, n_fft // 2 + 1]``; Slaney's area normalisation, or
    a p-norm of each row when ``norm`` is a number."""
    paddle = _paddle()
    if f_max is None:
        f_max = float(sr) / 2
    weights = paddle.zeros((n_mels, int(1 + n_fft // 2)), dtype=dtype)
    fftfreqs = fft_frequencies(sr=sr, n_fft=n_fft, dtype=dtype)
    mel_f = mel_frequencies(n_mels + 2, f_min=f_min, f_max=f_max, htk=htk, dtype=dtype)
    fdiff = mel_f[1:] - mel_f[:-1]
    ramps = mel_f.unsqueeze(1) - fftfreqs.unsqueeze(0)
    for i in range(n_mels):
        rising = -ramps[i] / fdiff[i]
        falling = ramps[i + 2] / fdiff[i + 1]
        weights[i] = paddle.maximum(paddle.zeros_like(rising), paddle.minimum(rising, falling))
    if norm == "slaney":
        weights *= (2.0 / (mel_f[2:n_mels + 2] - mel_f[:n_mels])).unsqueeze(1)
    elif isinstance(norm, (int, float)):
        weights = paddle.nn.functional.normalize(weights, p=norm, axis=-1)
    return weights


def power_to_db(spect, ref_value=1.0, amin=1e-10, top_db=80.0):
    """``10 log10(max(spect, amin) / ref_value)``, floored ``top_db`` below its maximum."""
    paddle = _paddle()
    if amin <= 0:
        raise Exception("amin must be strictly positive")
    if ref_value <= 0:
        raise Exception("ref_value must be strictly positive")
    ones = paddle.ones_like(spect)
    log_spec = 10.0 * paddle.log10(paddle.maximum(ones * amin, spect))
    log_spec -= 10.0 * math.log10(max(ref_value, amin))
    if top_db is not None:
        if top_db < 0:
            raise Exception("top_db must be non-negative")
        log_spec = paddle.maximum(log_spec, ones * (log_spec.max() - top_db))
    return log_spec


def create_dct(n_mfcc, n_mels, norm="ortho", dtype="float32"):
    """The DCT-II matrix ``[n_mels, n_mfcc]`` (orthonormal with ``norm='ortho'``)."""
    paddle = _paddle()
    n = paddle.arange(n_mels, dtype=dtype)
    k = paddle.arange(n_mfcc, dtype=dtype).unsqueeze(1)
    dct = paddle.cos(math.pi / float(n_mels) * (n + 0.5) * k)  # [n_mfcc, n_mels]
    if norm is None:
        dct *= 2.0
    else:
        assert norm == "ortho"
        dct[0] *= 1.0 / math.sqrt(2.0)
        dct *= math.sqrt(2.0 / float(n_mels))
    return dct.T

from ..names_gate import gate as _gate  # noqa: E402  (the names of the emulated version)

_gate(__name__)
