"""softmax / log_softmax / nll_loss as torch ops whose float32 (and last-dim float64) forwards
and backwards run torch's kernels (``.._softmax_kernels``); other dtypes and create_graph keep
the engine's kernels and VJPs (differentiable again)."""
from __future__ import annotations

import copy
from math import prod

import numpy as np

from ...engine.grad_mode import is_grad_enabled
from ...engine.registry import exact_first_order
from ...engine.ops import fused as FU
from ...engine.ops import nn as NN
from .. import _softmax_kernels as K
from .._base import raw
from .._ops import top

_cnz = np.count_nonzero


def _kernel(x, axis, last, inner):
    """torch's kernel for x along axis (``K.supported``, at least 1-D), else None."""
    if x.ndim == 0:
        return None
    is_last = axis % x.ndim == x.ndim - 1
    if not K.supported(x, inner=not is_last):
        return None
    return last if is_last else inner


def _with(base, forward, vjp):
    op = copy.copy(base)
    op.forward = forward
    op.vjp = vjp
    return op


def _sm_fwd(x, axis):
    k = _kernel(x, axis, K.softmax, K.softmax_inner)
    return NN.softmax_kernel(x, axis) if k is None else k(x, axis % x.ndim)


def _lsm_fwd(x, axis):
    k = _kernel(x, axis, K.log_softmax, K.log_softmax_inner)
    return NN.log_softmax_kernel(x, axis) if k is None else k(x, axis % x.ndim)


def _softmax_grad_vjp(n, gg):
    """SoftmaxBackwardDataBackward0 (inputs output y, grad_output g): ATen's
    ``softmax_double_backward`` for y, ``g * gg - (y * g).sum(dim, True) * gg -
    g * (y * gg).sum(dim, True)``, and ``_softmax_backward_data(gg, y)`` for g (checked equal
    to the bit with real torch 2.13 here)."""
    from .. import _ops as O

    y, g = n.inputs
    axis = n.attrs["axis"]
    d_y = g * gg - O.sum(y * g, axis, True) * gg - g * O.sum(y * gg, axis, True)
    return d_y, _recorded_grad(_SM_GRAD, y, gg, axis)


def _log_softmax_grad_vjp(n, gg):
    """LogSoftmaxBackwardDataBackward0: ``-g.sum(dim, True) * y.exp() * gg`` for y and
    ``gg - (gg * y.exp()).sum(dim, True)`` for g (real torch 2.13's bits, checked here)."""
    from .. import _ops as O

    y, g = n.inputs
    axis = n.attrs["axis"]
    d_y = -O.sum(g, axis, True) * O.exp(y) * gg
    return d_y, gg - O.sum(gg * O.exp(y), axis, True)


_SM_GRAD = top("softmax_grad", "SoftmaxBackwardDataBackward0", "all")
_SM_GRAD.vjp = _softmax_grad_vjp
_LSM_GRAD = top("log_softmax_grad", "LogSoftmaxBackwardDataBackward0", "all")
_LSM_GRAD.vjp = _log_softmax_grad_vjp


def _recorded_grad(op, y, g, axis):
    from ...engine.registry import apply

    return apply(op, (y, g), {"axis": axis})


def _exact_vjp(last, inner, engine_vjp, grad_op=None):
    @exact_first_order
    def vjp(n, g):
        y = n.out()
        axis = n.attrs["axis"]
        ya, ga = raw(y), raw(g)   # (the arrays: the torch Tensor's .data looks at its caller)
        k = _kernel(ya, axis, last, inner)
        if is_grad_enabled() and grad_op is not None and ga.dtype == ya.dtype:
            # (create_graph: torch's *BackwardData node, differentiated by torch's formulas)
            return (_recorded_grad(grad_op, y, g, axis),)
        if is_grad_enabled() or k is None or ga.dtype != ya.dtype:
            return engine_vjp(n, g)
        gi = k(ya, np.ascontiguousarray(ga), axis % ya.ndim)
        return (type(g)._wrap(np.asarray(gi, ya.dtype), True),)
    return vjp


def _exact_grad_forward(last, inner, name):
    """``name``'s forward (y, dy, axis) with the exact kernel the VJP above gives its values by
    (``backward.exact_values``): vmap replays a traced backward with it."""
    from ...engine.registry import OPS

    def forward(y, dy, axis):
        k = _kernel(y, axis, last, inner)
        if k is None or dy.dtype != y.dtype:
            return OPS[name].forward(y, dy, axis)
        return np.asarray(k(y, np.ascontiguousarray(dy), axis % y.ndim), y.dtype)
    return forward


#: the engine's grad ops whose recorded values the exact VJPs replace: their exact forwards
EXACT_GRAD_FORWARDS = {
    "softmax_grad": _exact_grad_forward(K.softmax_backward, K.softmax_backward_inner,
                                        "softmax_grad"),
    "log_softmax_grad": _exact_grad_forward(K.log_softmax_backward,
                                            K.log_softmax_backward_inner, "log_softmax_grad"),
}

_SM_BASE = top("softmax", "SoftmaxBackward0", "out")
_LSM_BASE = top("log_softmax", "LogSoftmaxBackward0", "out")
SOFTMAX = _with(_SM_BASE, _sm_fwd, _exact_vjp(K.softmax_backward, K.softmax_backward_inner,
                                               _SM_BASE.vjp, _SM_GRAD))
LOG_SOFTMAX = _with(_LSM_BASE, _lsm_fwd, _exact_vjp(K.log_softmax_backward,
                                                    K.log_softmax_backward_inner, _LSM_BASE.vjp,
                                                    _LSM_GRAD))


# ------------------------------------------------------------------------------ nll_loss
def _nll_parts(x_shape, target, weight, ignore_index, dt):
    """(rows' picked index, valid mask, per-row weight) in torch's iteration order."""
    t = np.asarray(target).reshape(-1)
    valid = t != ignore_index
    if _cnz(valid) == len(t):   # (every position counts: the index and weights as they are)
        return (t if t.dtype == np.int64 else t.astype(np.int64)), valid, \
            np.asarray(weight, dt)[t]
    idx = np.where(valid, t, 0).astype(np.int64)
    w = np.where(valid, np.asarray(weight, dt)[idx], 0).astype(dt)
    return idx, valid, w


def _total_weight(w, valid, weighted):
    return K.cascade_sum(w, valid) if weighted else w.dtype.type(int(valid.sum()))


def _class_rows(x):
    """x as (rows, classes) in torch's order (as ``FU._nll_layout``; a 2-D input as it is)."""
    if x.ndim == 1:
        return x.reshape(1, -1)
    return x if x.ndim == 2 else np.moveaxis(x, 1, -1).reshape(-1, x.shape[1])


def _nll_fwd(x, target, weight, ignore_index=-100, reduction="mean"):
    if not K.supported(x):
        return FU._nll2_fwd(x, target, weight, ignore_index, reduction)
    if K._NATIVE is not None and reduction != "none" and x.ndim <= 2:
        r = _native_nll(x, target, weight, ignore_index, reduction == "mean")
        if r is not None:
            return r
    idx, valid, w = _nll_parts(x.shape, target, weight, ignore_index, x.dtype)
    xc = _class_rows(x)
    picked = xc[np.arange(xc.shape[0]), idx]
    weighted = bool((np.asarray(weight) != 1).any())
    if reduction == "none":  # ignored positions give +0 (not -x * 0)
        shape = () if x.ndim == 1 else (x.shape[0],) + x.shape[2:]
        return np.where(valid, -picked * w, x.dtype.type(0)).astype(x.dtype).reshape(shape)
    total = K.cascade_sum(-(picked * w) if weighted else -picked, valid)
    if reduction == "mean":
        total = x.dtype.type(total / _total_weight(w, valid, weighted))
    return np.asarray(total, x.dtype)


def _native_nll(x, target, weight, ignore_index, mean):
    """``_nll_fwd``'s mean or sum of a 1-D or 2-D input by the native kernel (the same sums in
    the same order); None: left to the numpy code below (a nan, another layout or dtype)."""
    t = np.asarray(target)
    w = np.asarray(weight)
    if t.dtype != np.int64 or w.dtype != x.dtype or not x.flags.c_contiguous \
            or t.size != (1 if x.ndim == 1 else x.shape[0]) or w.shape != x.shape[-1:]:
        return None
    r = K._NATIVE.nll_reduce(x, np.ascontiguousarray(t).reshape(-1), np.ascontiguousarray(w),
                             int(ignore_index), mean)
    return None if r is None else np.array(r, x.dtype)


def _native_nll_grad(x_shape, target, weight, ignore_index, gv, mean):
    """``_nll_vjp``'s gradient of a 2-D input's mean or sum by the native kernel (the same
    values); None: left to the numpy code (a nan, a target out of range, no weight)."""
    t = np.asarray(target)
    if t.dtype != np.int64 or t.size != x_shape[0] or weight.shape != x_shape[1:]:
        return None
    hot = np.zeros(x_shape, weight.dtype)
    if K._NATIVE.nll_grad(hot, np.ascontiguousarray(t).reshape(-1),
                          np.ascontiguousarray(weight), int(ignore_index), float(gv), mean):
        return None
    return hot


@exact_first_order
def _nll_vjp(n, g):
    a = n.attrs
    x_shape, dt = n.in_meta[0]
    red = a.get("reduction", "mean")
    gv = raw(g)
    if is_grad_enabled() or dt not in (np.float32, np.float64) or gv.dtype != dt:
        return FU._nll2_vjp(n, g)
    weight = np.asarray(a["weight"], dt)
    if K._NATIVE is not None and red != "none" and len(x_shape) == 2 and gv.ndim == 0:
        hot = _native_nll_grad(x_shape, a["target"], weight, a.get("ignore_index", -100), gv,
                               red == "mean")
        if hot is not None:
            return (type(g)._wrap(hot, True),)
    idx, valid, w = _nll_parts(x_shape, a["target"], weight, a.get("ignore_index", -100), dt)
    weighted = bool((weight != 1).any())
    if red == "none":  # -weight * g per position
        grad = -gv.reshape(-1)[valid]
    else:
        grad = -(gv / _total_weight(w, valid, weighted)) if red == "mean" else -gv
    classes = x_shape[0] if len(x_shape) == 1 else x_shape[1]
    rows = prod(x_shape) // classes
    hot = np.zeros((rows, classes), dt)
    if red != "none" and not weighted and len(valid) == rows and _cnz(valid) == rows:
        hot[np.arange(rows), idx] = grad   # (every row takes the same value)
    else:
        r = np.arange(rows)[valid]
        hot[r, idx[valid]] = (w[valid] * grad) if weighted else grad
    out = hot if len(x_shape) == 2 else FU._unlayout(hot, x_shape).astype(dt)
    return (type(g)._wrap(out, True),)


_NLL_BASE = top("fused_nll_loss", "NllLossBackward0", "other")
NLL = _with(_NLL_BASE, _nll_fwd, _nll_vjp)
