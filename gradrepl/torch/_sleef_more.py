"""SLEEF's vectorised functions that torch 2.13's AVX-512 kernels call through ``Vectorized``
(``atanh``, ``exp2``), in numpy, and the block split of torch's ``cpu_kernel_vec``: whole
groups of two vectors (32 floats, 16 doubles) take the vector function, the rest the scalar
one (``std::``, the C library)."""
from __future__ import annotations

import numpy as np

F32, F64 = np.float32, np.float64

atanhf = atanhd = exp2f = exp2d = None


def blocks(vec, scalar):
    """``f(x)``: ``vec`` on the leading multiple of two AVX-512 vectors, ``scalar`` on the rest
    (``scalar`` everywhere when ``vec`` is None)."""
    if vec is None:
        return scalar

    def run(x):
        step = 32 if x.dtype == F32 else 16
        flat = np.ascontiguousarray(x).reshape(-1)
        n = flat.size // step * step
        if n == 0:
            return scalar(x)
        out = np.empty_like(flat)
        with np.errstate(all="ignore"):
            out[:n] = vec(flat[:n])
            if n < flat.size:
                out[n:] = scalar(flat[n:])
        return out.reshape(x.shape)
    return run
