"""Kernels that lecture-style scripts reached (tests/test_lectures.py), as torch 2.13 computes
them on AVX-512.

``sigmoid`` (float32): ATen's ``sigmoid_kernel`` is ``1 / (1 + exp(-x))``; on whole groups of
two AVX-512 vectors (``_sleef_more.blocks``) ``Vectorized<float>::exp`` is SLEEF's
``xexpf`` (u10, FMA), on the rest ``std::exp`` (the C library's ``expf``).
"""
from __future__ import annotations

import numpy as np

from ..engine.ops import _kernels as K
from ._sleef_more import _ldexp2, blocks

F32 = np.float32
_c = K._c

_R_LN2F = 1.442695040888963407359924681001892137426645954152985934135449406931
_L2UF = 0.693145751953125
_L2LF = 1.428606765330187045e-06
_EXPF = (0.000198527617612853646278381, 0.00139304355252534151077271,
         0.00833336077630519866943359, 0.0416664853692054748535156,
         0.166666671633720397949219, 0.5)


def expf_u10(d):
    """SLEEF ``xexpf`` (u10, ``vmla`` fused) on a float32 array."""
    d = np.asarray(d, F32)
    with np.errstate(all="ignore"):
        qf = np.rint(d * _c(_R_LN2F))
        q = np.where(np.isfinite(qf), np.clip(qf, -(1 << 30), 1 << 30), 0).astype(np.int32)
        qv = q.astype(F32)
        s = K._fma(qv, _c(-_L2UF), d)
        s = K._fma(qv, _c(-_L2LF), s)
        u = _c(_EXPF[0])
        for c in _EXPF[1:]:
            u = K._fma(u, s, _c(c))
        u = _c(1.0) + K._fma(s * s, u, s)
        u = _ldexp2(u, q)
        u = np.where(d < -104, F32(0), u)
        u = np.where(d > 100, F32(np.inf), u)
        u = np.where(np.isnan(d), F32(np.nan), u)
    return np.asarray(u, F32)


def _sigmoid_vec(x):
    one = F32(1)
    with np.errstate(all="ignore"):
        return (one / (expf_u10(F32(0) - x) + one)).astype(F32)


def _sigmoid_scalar(x):
    one = F32(1)
    with np.errstate(all="ignore"):
        return (one / (one + K.libm("exp", np.exp)(-x))).astype(F32)


sigmoid32 = blocks(_sigmoid_vec, _sigmoid_scalar)
