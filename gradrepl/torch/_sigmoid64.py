"""torch 2.13's float64 sigmoid-family kernels on x86-64 (``aten/src/ATen/native/cpu``), in
numpy: ``sigmoid`` (UnaryOpsKernel.cpp: the vector lambda ``(0 - a).exp() + 1`` then
``reciprocal()``, the scalar one ``1 / (1 + std::exp(-a))``) and ``silu`` / its backward
(Activation.cpp: ``x / (1 + (-x).exp())``; ``dy * s * (1 + x * (1 - s))``, the last
multiply-add fused as in the float32 build). ``Vectorized<double>::exp`` is SLEEF's
``Sleef_expd8_u10`` (``_sleef64.vexp``); the scalar lambda's ``std::exp`` is glibc's.

Both kernels are registered with an AVX-512 build, so under the AVX512 capability the vector
loop takes groups of two 8-double vectors (16 values: measured on real torch 2.13, n = 15 is all
scalar, n = 40 takes 32 vector values), under AVX2 groups of 8; the rest of each row and each
thread's range goes to the scalar lambda (``_tensor_iter``). Under DEFAULT (no vector build)
``Vectorized<double>::exp`` is ``std::exp`` per value, so every value is the scalar one."""
from __future__ import annotations

import numpy as np

from ..engine.ops import _kernels as K
from . import _capability, _tensor_iter
from ._sleef64 import fma64, vexp

F64 = np.float64
_glibc_exp = K.libm64("exp", np.exp)


def _step():
    return 2 * _capability.lanes(np.dtype(F64), avx512_kernel=True)


def _run(vec, scalar, *arrays):
    arrays = [np.asarray(a, F64) for a in arrays]
    if _capability.capability() == "DEFAULT":
        vec = None
    with np.errstate(all="ignore"):
        return np.asarray(_tensor_iter.run(vec, scalar, *arrays, step=_step()), F64)


def _sig_vec(x):
    return 1.0 / (vexp(0.0 - x) + 1.0)


def _sig_one(x):
    return 1.0 / (1.0 + _glibc_exp(-x))


def sigmoid(x):
    """torch.sigmoid of a float64 array."""
    return _run(_sig_vec, _sig_one, x)


def _silu_vec(x):
    return x / (1.0 + vexp(-x))


def _silu_one(x):
    return x / (1.0 + _glibc_exp(-x))


def silu(x):
    return _run(_silu_vec, _silu_one, x)


def _silu_bwd(exp):
    def k(dy, x):
        s = 1.0 / (1.0 + exp(-x))
        return dy * s * fma64(x, 1.0 - s, np.ones_like(s))
    return k


def silu_backward(dy, x):
    return _run(_silu_bwd(vexp), _silu_bwd(_glibc_exp), dy, x)


def ok(*arrays):
    """Whether these kernels are torch's for the operands (all float64)."""
    return all(np.asarray(a).dtype == F64 for a in arrays)
