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


def expm1_32(x):
    if x.dtype == np.float32:
        return K.libm("expm1", np.expm1)(x)
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
