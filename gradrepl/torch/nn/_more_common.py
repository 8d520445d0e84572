"""Helpers shared by the ``_act_more``, ``_loss_more``, ``_norm_more`` and ``_misc_more``
families: single ops with torch's node names, float32 kernels, reductions, class naming."""
from __future__ import annotations

import numpy as np

from ...engine.ops import _kernels as K
from ...engine.registry import OpDef, apply
from .. import _dtypes, _ops
from .._base import raw
from .._tensor import Tensor

_wrap = Tensor._wrap


def op(torch_name, forward, vjp, saves="all", n_outputs=1, diff_inputs=None,
       diff_outputs=None, broadcast=False):
    """A single op of the dialect only (not in the engine's registry): a numpy forward and a
    VJP written with dialect ops; its node prints ``torch_name``."""
    d = OpDef(torch_name.lower(), forward, vjp, n_outputs=n_outputs, broadcast=broadcast,
              diff_inputs=diff_inputs, diff_outputs=diff_outputs, saves_inputs=False,
              reads_inputs=True)
    d.torch_name = torch_name
    d.torch_saves = saves
    d.torch_inputs = None
    d.grad_sum_order = "torch"
    return d


def run(o, inputs, attrs=None):
    return apply(o, tuple(inputs), attrs)


def exp32(x):
    """exp as torch's float32 CPU kernels give it (the C library's expf)."""
    if x.dtype == np.float32:
        return K.libm("exp", np.exp)(x)
    with np.errstate(all="ignore"):
        return np.exp(x)


_EXPK2 = (0.1980960224e-3, 0.1394256484e-2, 0.8333456703e-2, 0.4166637361e-1)


def _expk2f(dx, dy):
    """SLEEF's ``expk2f``: exp of a float32 double-float, as a double-float (FMAs exact)."""
    F32, c = np.float32, K._c
    q = np.rint(((dx + dy) * c(1.442695040888963407359924681001892137426645954152985934))
                .astype(F32)).astype(F32)
    sx, sy = K._df_add2_dff(dx, dy, (q * c(-0.693145751953125)).astype(F32))
    sx, sy = K._df_add2_dff(sx, sy, (q * c(-1.428606765330187045e-06)).astype(F32))
    u = c(_EXPK2[0])
    for k in _EXPK2[1:]:
        u = K._fma(u, sx, c(k))
    tx, ty = K._df_add2_dff(*K._df_mul_df(sx, sy, u), c(0.166666659414234244790680580464))
    tx, ty = K._df_add2_dff(*K._df_mul_dd(sx, sy, tx, ty), c(0.5))
    tx, ty = K._df_add2_dd(sx, sy, *K._df_mul_dd(*K._df_squ(sx, sy), tx, ty))
    tx, ty = K._df_add_fd(c(1), tx, ty)
    qi = q.astype(np.int64)
    low = dx < c(-104)
    tx = np.where(low, F32(0), np.ldexp(tx.astype(np.float64), qi).astype(F32))
    ty = np.where(low, F32(0), np.ldexp(ty.astype(np.float64), qi).astype(F32))
    return tx, ty


def sleef_expm1f(a):
    """SLEEF ``xexpm1f`` (u10), torch 2.13's ``Vectorized<float>::expm1`` (AVX-512): 0 of
    19,968 random values differ from torch's celu and expm1 (the C library's: 1,940)."""
    F32 = np.float32
    a = np.asarray(a, F32)
    with np.errstate(all="ignore"):
        dx, dy = K._df_add2_dff(*_expk2f(a, np.zeros_like(a)), K._c(-1.0))
        x = (dx + dy).astype(F32)
        x = np.where(a > K._c(88.72283172607421875), F32(np.inf), x)
        x = np.where(a < K._c(-16.635532333438687426013570), F32(-1), x)
        x = np.where((a == 0) & np.signbit(a), F32(-0.0), x)
    return x


_EXPF = (0.000198527617612853646278381, 0.00139304355252534151077271,
         0.00833336077630519866943359, 0.0416664853692054748535156,
         0.166666671633720397949219, 0.5)


def sleef_expf(d):
    """SLEEF ``xexpf`` (u10), ``Vectorized<float>::exp`` (AVX-512): torch's elu/celu backward
    (0 of 19,968 random values differ; ``torch.exp`` itself is MKL's)."""
    F32, c = np.float32, K._c
    d = np.asarray(d, F32)
    with np.errstate(all="ignore"):
        q = np.rint((d * c(1.442695040888963407359924681001892137426645954152985934))
                    .astype(F32)).astype(F32)
        s = K._fma(q, c(-0.693145751953125), d)
        s = K._fma(q, c(-1.428606765330187045e-06), s)
        u = c(_EXPF[0])
        for k in _EXPF[1:]:
            u = K._fma(u, s, c(k))
        u = (c(1.0) + K._fma((s * s).astype(F32), u, s)).astype(F32)
        u = np.ldexp(u.astype(np.float64), q.astype(np.int64)).astype(F32)
        u = np.where(d < c(-104), F32(0), u)
        u = np.where(d > c(1e38), F32(np.inf), u)
        u = np.where(np.isnan(d), F32(np.nan), u)
    return u


def vec_exp32(x):
    """exp in a torch float32 ``cpu_kernel_vec`` lambda: SLEEF on whole blocks of two vectors,
    the C library on the rest."""
    if x.dtype == np.float32:
        from .._sleef_more import blocks

        return blocks(sleef_expf, K.libm("exp", np.exp))(x)
    with np.errstate(all="ignore"):
        return np.exp(x)


def expm1_32(x):
    """expm1 as torch's float32 vectorised kernel: SLEEF on whole blocks of two AVX-512
    vectors, the C library on the rest."""
    if x.dtype == np.float32:
        from .._sleef_more import blocks

        return blocks(sleef_expm1f, K.libm("expm1", np.expm1))(x)
    with np.errstate(all="ignore"):
        return np.expm1(x)


def log1p_32(x):
    if x.dtype == np.float32:
        return K.libm("log1p", np.log1p)(x)
    with np.errstate(all="ignore"):
        return np.log1p(x)


def float_of(x):
    """A tensor as floating point (integers become the default float)."""
    if raw(x).dtype.kind not in "fc":
        return _wrap(raw(x).astype(_dtypes.default_float()), True)
    return x


def reduction_of(size_average, reduce, reduction):
    from . import functional as F

    return F._reduction(size_average, reduce, reduction)


def reduce(loss, reduction):
    """torch's ``apply_loss_reduction``: mean, sum, or the tensor itself."""
    if reduction == "mean":
        return _ops.mean(loss)
    if reduction == "sum":
        return _ops.sum(loss)
    return loss


def name_classes(module_path, classes):
    for c in classes:
        c.__module__ = module_path
        c.__qualname__ = c.__name__


def to_tensor(v, like):
    from .._base import EngineTensor

    if isinstance(v, EngineTensor):
        return v
    return _wrap(np.asarray(v, dtype=raw(like).dtype), True)


def keep_where(g, mask):
    """``where(mask, g, 0)``: torch's masked gradients (+0 where dropped, not -0)."""
    return _ops.where(_wrap(np.asarray(mask), True), g, _ops.const(0.0, raw(g).dtype))


def _pow_fwd(x, exponent=1.0):
    """``x ** exponent`` on an array as the dialect's ``pow`` computes it (torch's kernel)."""
    return raw(_ops.pow(_wrap(x, True), exponent))


def pow_scalar(t, exponent):
    """``t ** exponent`` for a number (PowBackward0), torch's float32 kernel."""
    return _ops.pow(t, exponent)
