"""Neural-network ops: activations, the softmax family, losses, dropout.

Each entry is Paddle's fused kernel: a numpy forward that rounds in float32 the way Paddle's CPU
kernel does, beside its VJP. Where Paddle's backward kernel has its own rounding (softmax,
cross entropy, gelu, ...) the VJP calls a registered *grad op* (``softmax_grad``,
``cross_entropy_with_softmax_grad``, ...) whose forward is that kernel and whose own VJP is
written with Tensor ops, so gradients of gradients still work.

How Paddle's CPU kernels round (measured on Paddle 2.6.2 and 3.3.1):

* Eigen expressions evaluate ``exp`` in packets of 8 floats with Eigen's polynomial (``pexp``,
  no FMA), and the last ``n % 8`` elements with the C library's ``expf`` (``eigen_exp`` below).
* Reductions along an axis that is not contiguous are plain sequential sums (``seq_sum``).
* ``softmax`` along the last axis takes an AVX path: ``vec_sum`` adds 8 lanes then folds them
  (``avx_sum``), and multiplies by the reciprocal of the sum.
"""
from __future__ import annotations

import functools as _functools
import math as _math

import numpy as np

from ..registry import apply, register
from . import _kernels as K
from ._util import const, kept_array, quiet
from .math import _safe, add, divide, exp, multiply, neg, scale, subtract
from .reduce import sum as _rsum

_err = dict(divide="ignore", invalid="ignore", over="ignore", under="ignore")


# ====================================================================== kernel arithmetic
_F32 = np.dtype(np.float32)
_F = np.float32


def _typed(v, like):
    return np.asarray(v, dtype=like.dtype)


_LIBM_EXP = K.libm("exp", np.exp)
_LIBM_LOG = K.libm("log", np.log)
#: The C library's exp, as Paddle's scalar loops call it (float32: glibc ``expf``; float64:
#: ``exp``, e.g. sigmoid_cross_entropy_with_logits' loop, real 3.3.1/2.6.2).
exp_c = _safe(K.float32_kernel(_LIBM_EXP, K.libm64("exp", np.exp)))
#: The C library's log, as Paddle's scalar loops call it (float32: glibc ``logf``; float64 ``log``).
log_c = _safe(K.float32_kernel(_LIBM_LOG, K.libm64("log", np.log)))

#: ``x.exp()`` inside an Eigen expression: packets of 8 with Eigen's polynomial, the tail expf.
eigen_exp = K.exp
#: ``x.log()`` inside an Eigen expression (softplus, log_sigmoid): packets with Eigen's
#: polynomial, the tail logf; float64 likewise on 4-wide packets, the tail the C library's log.
#: (``paddle.log`` itself calls logf / log for every element.)
eigen_log = K.float32_kernel(K.eigen(K.packet_log, _LIBM_LOG),
                             K.eigen64(K.packet_log64, K.libm64("log", np.log)))
#: Eigen's fast tanh, which Paddle uses for every element.
eigen_tanh = K.tanh


def seq_sum(x, axis):
    """Sum along ``axis`` one element after the other (keeps the axis, size 1)."""
    x = np.moveaxis(x, axis, -1)
    s = np.zeros(x.shape[:-1], x.dtype)
    for i in range(x.shape[-1]):
        s = s + x[..., i]
    return np.expand_dims(s, axis)


def avx_sum(x):
    """Paddle's ``vec_sum<float, avx>`` over the last axis (returns the axis kept, size 1).

    Fewer than 8 values: a sequential sum. Otherwise 8 lane accumulators over whole blocks,
    folded as ``hadd``/``permute``/``hadd`` do ((l0+l1) + (l4+l5)) + ((l2+l3) + (l6+l7)), then
    the tail added one by one. Accumulated in place (half the calls' time for a (256, 10)
    softmax); past 32 values along the axis, on a transposed copy, whose rows are contiguous.
    """
    n = x.shape[-1]
    if n < 8 or x.dtype != _F32:
        s = x[..., 0]
        for i in range(1, n):
            s = s + x[..., i]
        return s[..., None]
    end = n - n % 8
    if n > 32 and x.ndim > 1:
        xt = np.ascontiguousarray(np.moveaxis(x, -1, 0))
        acc = xt[0:8] + _ZERO  # (the accumulators start at +0: -0 + 0 is +0)
        for i in range(8, end, 8):
            acc += xt[i:i + 8]
        h = acc[0::2] + acc[1::2]          # hadd: h01 h23 h45 h67
        s = h[0] + h[2]                    # permute + hadd: (h01+h45) + (h23+h67)
        s += h[1] + h[3]
        for i in range(end, n):
            s += xt[i]
        return s[..., None]
    acc = x[..., 0:8] + _ZERO
    for i in range(8, end, 8):
        acc += x[..., i:i + 8]
    h = acc[..., 0::2] + acc[..., 1::2]
    s = h[..., 0] + h[..., 2]
    s += h[..., 1] + h[..., 3]
    for i in range(end, n):
        s += x[..., i]
    return s[..., None]


_ZERO = np.float32(0)


def _last(x, axis):
    return axis == x.ndim - 1 or x.ndim == 0


# ====================================================================== softmax family
def _max_keep(x, axis):
    """``x.max(axis, keepdims=True)``. numpy reduces a short last axis one row at a time (12 us
    for (256, 10)); laid out with that axis first, it is one vectorized pass (2.5 us)."""
    if axis == x.ndim - 1 and x.ndim == 2 and x.shape[1] <= 64 and x.shape[0] >= 16:
        return np.maximum.reduce(np.ascontiguousarray(x.T), axis=0)[:, None]
    return np.maximum.reduce(x, axis=axis, keepdims=True)


def _shifted(x, axis):
    with quiet(**_err):
        sh = x - _max_keep(x, axis)
    return np.maximum(sh, _typed(-64.0, x), out=sh)


_VEC_EXP_MKL = 128     # cpu_vec.h's small_enough: vec_exp<float> calls vsExp from here on


def _trailing_ones(x, axis):
    """Only axes of size 1 after ``axis``: Paddle views x as [n, d] rows of d = prod(shape[axis:])
    classes, its remain d / axis_dim is 1, so it takes the AVX path of the last axis."""
    return axis < x.ndim - 1 and all(d == 1 for d in x.shape[axis + 1:])


def softmax_kernel(x, axis):
    """Paddle's CPU softmax: AVX path along the last axis, Eigen otherwise."""
    if x.ndim == 0:
        return np.ones_like(x)
    if x.size == 0:
        return x.copy()
    axis = axis % x.ndim
    if _trailing_ones(x, axis):
        return softmax_kernel(x.reshape(x.shape[:axis + 1]), axis).reshape(x.shape)
    sh = _shifted(x, axis)
    if axis == x.ndim - 1:
        # vec_exp (phi/kernels/funcs/cpu_vec.h): float32 the C library's expf for rows of fewer
        # than 128 values, MKL's vsExp from 128 on; float64 MKL's vdExp always (real Paddle
        # 3.3.1 and 2.6.2, rows of 16 to 2,048 on AMD Zen 4: every value equal this way, up to
        # 56 of 2,048 float32 and 132 of 3,000 float64 values off with the C library's exp)
        e = _vexp(sh) if x.dtype != _F32 or x.shape[-1] >= _VEC_EXP_MKL else exp_c(sh)
        s = avx_sum(e)
        return np.multiply(e, _typed(1, x) / s, out=e)
    e = eigen_exp(sh)
    return e * (_typed(1, x) / seq_sum(e, axis))


def softmax_grad_kernel(y, dy, axis):
    if y.ndim == 0:
        return np.zeros_like(y)
    axis = axis % y.ndim
    if _trailing_ones(y, axis):
        return softmax_grad_kernel(y.reshape(y.shape[:axis + 1]), dy.reshape(y.shape[:axis + 1]),
                                   axis).reshape(y.shape)
    if axis == y.ndim - 1:
        dot = avx_sum(dy * y)
    else:
        dot = seq_sum(y * dy, axis)
    return (dy - dot) * y


def _softmax_vjp(n, g):
    return softmax_grad(n.out(), g, n.attrs["axis"])


SOFTMAX = register("softmax", softmax_kernel, _softmax_vjp, legacy_name="SoftmaxBackward",
                   examples=[([(2, 5)], {"axis": -1}), ([(3, 2, 4)], {"axis": 1}),
                             ([(2, 9)], {"axis": 1})], saves_inputs=False)


def _softmax_grad_vjp(n, G):
    """dx = y * (dy - sum(y*dy)): d/dy = G*(dy - s) - sum(G*y)*dy, d/d(dy) = softmax_grad(y, G)."""
    y, dy = n.inputs
    axis = n.attrs["axis"] % max(y.data.ndim, 1)
    s = _rsum(multiply(y, dy), (axis,), True)
    gy = _rsum(multiply(G, y), (axis,), True)
    d_y = subtract(multiply(G, subtract(dy, s)), multiply(gy, dy))
    return d_y, softmax_grad(y, G, n.attrs["axis"])


SOFTMAX_GRAD = register("softmax_grad", softmax_grad_kernel, _softmax_grad_vjp,
                        legacy_name="SoftmaxGradBackward",
                        examples=[([(2, 5), (2, 5)], {"axis": -1}),
                                  ([(3, 2, 4), (3, 2, 4)], {"axis": 1})])


def softmax(x, axis=-1):
    return apply(SOFTMAX, (x,), {"axis": int(axis)})


def softmax_grad(y, dy, axis=-1):
    return apply(SOFTMAX_GRAD, (y, dy), {"axis": int(axis)})


def log_softmax_kernel(x, axis):
    """shifted - log(sum(exp(shifted))): Eigen exp over the whole tensor, sequential sum."""
    if x.ndim == 0:
        return np.zeros_like(x)
    if x.size == 0:
        return x.copy()
    axis = axis % x.ndim
    sh = _shifted(x, axis)
    sums = seq_sum(eigen_exp(sh), axis)
    if axis != x.ndim - 1 and x.dtype == _F32:
        return sh - _broadcast_log(sums, x.shape, axis)
    return sh - log_c(sums)


def _broadcast_log(sums, shape, axis):
    """log of the (batch, 1, remain) sums as Paddle's Eigen expression ``sum(...).log()
    .broadcast(one_axis)`` evaluates it over the (batch, axis * remain) output, 8-float packets
    in order: a packet whose values are ``remain``-contiguous in the sums takes Eigen's
    vectorised log of them (``K.packet_log``); one that wraps around, and the output's last
    ``size % 8`` values, the C library's ``logf`` per value (with ``remain`` 1, the last axis,
    always: its ``nByOne`` broadcast). Real 3.3.1 here: log_softmax along another axis than the
    last 0 of 8 cases equal with ``logf`` alone, 8 of 8 so."""
    n = int(np.prod(shape[:axis], dtype=np.int64))
    d = int(shape[axis])
    r = int(np.prod(shape[axis + 1:], dtype=np.int64))
    flat = np.ascontiguousarray(sums).reshape(n, r)
    padded = np.ones(-(-flat.size // 8) * 8, np.float32)
    padded[:flat.size] = flat.reshape(-1)
    packet = np.asarray(K.packet_log(padded), np.float32)[:flat.size].reshape(n, r)
    scalar = log_c(flat)
    total, cols = n * d * r, d * r
    pos = np.arange(total, dtype=np.int64)
    start = pos - pos % 8
    loc = (start % cols) % r
    vector = (loc + 8 <= r) & (start + 8 <= total)
    b, j = pos // cols, (pos % cols) % r
    out = np.where(vector, packet[b, j], scalar[b, j])
    return out.reshape(n, d, r).reshape(shape)



def log_softmax_grad_kernel(y, dy, axis):
    if y.ndim == 0:
        return np.zeros_like(y)
    axis = axis % y.ndim
    return dy - eigen_exp(y) * seq_sum(dy, axis)


LOG_SOFTMAX = register(
    "log_softmax", log_softmax_kernel,
    lambda n, g: log_softmax_grad(n.out(), g, n.attrs["axis"]),
    legacy_name="LogSoftmaxBackward",
    examples=[([(2, 5)], {"axis": -1}), ([(3, 2, 4)], {"axis": 0})], saves_inputs=False)


def _log_softmax_grad_vjp(n, G):
    """dx = dy - exp(y)*sum(dy): d/dy = -G*exp(y)*s, d/d(dy) = G - sum(G*exp(y))."""
    y, dy = n.inputs
    axis = n.attrs["axis"] % max(y.data.ndim, 1)
    e = exp(y)
    s = _rsum(dy, (axis,), True)
    d_y = neg(multiply(multiply(G, e), s))
    d_dy = subtract(G, _rsum(multiply(G, e), (axis,), True))
    return d_y, d_dy


LOG_SOFTMAX_GRAD = register("log_softmax_grad", log_softmax_grad_kernel, _log_softmax_grad_vjp,
                            legacy_name="LogSoftmaxGradBackward",
                            examples=[([(2, 5), (2, 5)], {"axis": -1}),
                                      ([(3, 2, 4), (3, 2, 4)], {"axis": 0})])


def log_softmax(x, axis=-1):
    return apply(LOG_SOFTMAX, (x,), {"axis": int(axis)})


def log_softmax_grad(y, dy, axis=-1):
    return apply(LOG_SOFTMAX_GRAD, (y, dy), {"axis": int(axis)})


# ====================================================================== cross entropy
_APPRO_INF = 1e20
# the reductions themselves (ndarray.min/.max/.any add a Python-level wrapper to each call)
_any, _min, _max = np.logical_or.reduce, np.minimum.reduce, np.maximum.reduce


def _tolerable(v):
    """Paddle's TolerableValue: +-inf become +-1e20."""
    if not _any(np.isinf(v), axis=None):
        return v
    big = _typed(_APPRO_INF, v)
    return np.where(v == np.inf, big, np.where(v == -np.inf, -big, v))


def _check_labels(lbl, classes, ignore_index):
    bad = (lbl != ignore_index) & ((lbl < 0) | (lbl >= classes))
    if bad.any():
        v = int(lbl[bad].reshape(-1)[0])
        if v < 0:
            raise IndexError(
                f"(OutOfRange) label value should >= 0 when label value({v}) not equal to "
                f"ignore_index({ignore_index})")
        raise IndexError(
            f"(OutOfRange) label value should less than the shape of axis dimension when label "
            f"value({v}) not equal to ignore_index({ignore_index}), But received label value as "
            f"{v} and shape of axis dimension is {classes}")


def _hard_parts(p, label, axis, ignore_index, lazy=False):
    """Per position: the label index (ignored -> 0) and the mask of positions not ignored.
    ``lazy``: the mask is None when every label is a class index (see ``_masked``)."""
    lbl = label.astype(np.int64, copy=False)
    if lazy and lbl.size:
        lo, hi = _min(lbl, axis=None), _max(lbl, axis=None)
        if 0 <= lo and hi < p.shape[axis] and not lo <= ignore_index <= hi:
            return lbl, None
    _check_labels(lbl, p.shape[axis], ignore_index)
    valid = lbl != ignore_index
    return np.where(valid, lbl, 0), valid


def _masked(valid, v, like):
    """``v`` where the label is kept, 0 where it is ignored (``valid`` None: kept everywhere)."""
    return v if valid is None else np.where(valid, v, _typed(0, like))


def _take(a, idx, axis):
    """``np.take_along_axis``; a (batch, classes) array indexed by a (batch, 1) one directly."""
    if a.ndim == 2 and axis == 1 and idx.shape == (a.shape[0], 1):
        return a[_rows(a.shape[0]), idx[:, 0]][:, None]
    return np.take_along_axis(a, idx, axis)


def _put(a, idx, values, axis):
    """``np.put_along_axis``, with the same direct case as ``_take``."""
    if a.ndim == 2 and axis == 1 and idx.shape == (a.shape[0], 1):
        a[_rows(a.shape[0]), idx[:, 0]] = values[:, 0]
    else:
        np.put_along_axis(a, idx, values, axis)


_ARANGES: dict = {}


def _rows(n):
    """``np.arange(n)``, kept (read-only) for the next batch of the same size."""
    return kept_array(_ARANGES, n, lambda: np.arange(n))


def cross_entropy_kernel(p, label, soft_label, ignore_index, axis):
    """-log(p[label]) (hard) or -sum(label * log(p)) (soft), the class axis kept as 1."""
    with quiet(**_err):
        if soft_label:
            return -seq_sum(label * _tolerable(log_c(p)), axis)
        idx, valid = _hard_parts(p, label, axis, ignore_index, lazy=True)
        picked = _take(p, idx, axis)
        return _masked(valid, -_tolerable(log_c(picked)), p)


def _avx_fold(n):
    """``avx_sum``'s order of additions over ``n`` values ``e0 ... e{n-1}``, as one expression
    (the accumulators' +0 start left out: it is for -0, and exp never gives -0)."""
    e = [f"e{k}" for k in range(n)]
    if n < 8:
        total = e[0]
        for k in range(1, n):
            total = f"({total} + {e[k]})"
        return total
    end = n - n % 8
    acc = e[:8]
    for i in range(8, end, 8):
        acc = [f"({acc[j]} + {e[i + j]})" for j in range(8)]
    h = [f"({acc[2 * j]} + {acc[2 * j + 1]})" for j in range(4)]
    total = f"(({h[0]} + {h[2]}) + ({h[1]} + {h[3]}))"
    for i in range(end, n):
        total = f"({total} + {e[i]})"
    return total


_LEAN_MAX_CLASSES = 32  # one numexpr operand a class in the sum (numpy allows 64 operands)


@_functools.cache
def _lean_programs(classes):
    """The three compiled loops of ``_ce_rows``, or None (no numexpr, or not the C library's)."""
    exp_clamped = K.libm_expression("exp(where(x < lo, lo, x))", ("x", "lo"), ("exp",))
    fold = K.libm_expression(_avx_fold(classes), [f"e{k}" for k in range(classes)], ())
    nll = K.libm_expression("where(p == zero, big, -log(p))", ("p", "zero", "big"), ("log",))
    return None if None in (exp_clamped, fold, nll) else (exp_clamped, fold, nll)


_F32_CONSTS = (_F(-64.0), _F(0.0), _F(_APPRO_INF), _F(1.0))


def _ce_rows(logits, label, ignore_index):
    """Softmax and hard-label cross entropy of a (batch, classes) float32 array along its rows,
    the same bits as ``softmax_kernel`` + ``cross_entropy_kernel`` in about a dozen array calls
    instead of ~25 (a training step's loss: (256, 10) took 107 us in-step, ~60 us this way).

    Laid out classes-first, each class is one contiguous row: the maximum, the shift and
    ``expf`` of the clamped shift run on that copy, ``avx_sum``'s additions are one numexpr
    expression over the class rows, and ``-logf`` of the picked probability with
    TolerableValue's 1e20 for ``-log(0)`` is another. None when it does not apply (then the
    general path runs): other shapes or dtypes, more than 32 classes, labels out of range or
    equal to ``ignore_index``, no numexpr.
    """
    rows, classes = logits.shape
    lbl = label.reshape(rows).astype(np.int64, copy=False)
    lo, hi = _min(lbl), _max(lbl)
    if not (0 <= lo and hi < classes and not lo <= ignore_index <= hi):
        return None
    programs = _lean_programs(classes)
    if programs is None:
        return None
    exp_clamped, fold, nll = programs
    floor, zero, big, one = _F32_CONSTS
    xt = np.ascontiguousarray(logits.T)
    with quiet(**_err):  # (inf - inf)
        np.subtract(xt, _max(xt, axis=0), out=xt)
    e = exp_clamped(xt, floor)
    r = one / fold(*e)
    sm = np.empty((rows, classes), _F32)
    np.multiply(e.T, r[:, None], out=sm)
    return sm, nll(sm[_rows(rows), lbl], zero, big)[:, None]


def _ce_softmax_fwd(logits, label, soft_label=False, use_softmax=True, ignore_index=-100,
                    axis=-1):
    axis = axis % logits.ndim
    if (use_softmax and not soft_label and logits.ndim == 2 and axis == 1
            and logits.dtype == _F32 and 2 <= logits.shape[1] <= _LEAN_MAX_CLASSES
            and logits.shape[0] >= 16 and label.dtype.kind in "iu"):
        lean = _ce_rows(logits, label, ignore_index)
        if lean is not None:
            return lean
    sm = softmax_kernel(logits, axis) if use_softmax else logits.copy()
    return sm, cross_entropy_kernel(sm, label, soft_label, ignore_index, axis)


def _ce_softmax_vjp(n, g_softmax, g_loss):
    a = n.attrs
    sm = n.out(0)
    dx = cross_entropy_grad(n.inputs[1], sm, g_loss, a.get("soft_label", False),
                            a.get("use_softmax", True), a.get("ignore_index", -100),
                            a.get("axis", -1))
    if g_softmax.data.any():  # only a double backward sends gradient into the softmax output
        extra = softmax_grad(sm, g_softmax, a.get("axis", -1)) if a.get("use_softmax", True) \
            else g_softmax
        dx = add(dx, extra)
    return dx, None


CROSS_ENTROPY_WITH_SOFTMAX = register(
    "cross_entropy_with_softmax", _ce_softmax_fwd, _ce_softmax_vjp, n_outputs=2,
    diff_inputs=(0,), diff_outputs=(1,), legacy_name="SoftmaxWithCrossEntropyBackward",
    examples=[([(3, 4), np.array([[0], [3], [1]])], {}),
              ([(2, 3), np.array([[0.2, 0.3, 0.5], [0.0, 1.0, 0.0]])], {"soft_label": True}),
              ([(2, 3, 2), np.array([[[0, 1]], [[2, 0]]])], {"axis": 1})])


def _ce_grad_fwd(label, p, dloss, soft_label=False, use_softmax=True, ignore_index=-100,
                 axis=-1):
    """Paddle's cross_entropy_with_softmax_grad kernel."""
    axis = axis % p.ndim
    with quiet(**_err):
        if use_softmax:
            if soft_label:
                return dloss * (p - label)
            idx, valid = _hard_parts(p, label, axis, ignore_index, lazy=True)
            dx = p * dloss
            at = _take(dx, idx, axis) - dloss
            _put(dx, idx, at, axis)
            return _masked(valid, dx, p)
        if soft_label:
            return dloss * (-label / p)
        idx, valid = _hard_parts(p, label, axis, ignore_index)
        dx = np.zeros_like(p)
        at = (_typed(-1, p) / np.take_along_axis(p, idx, axis)) * dloss
        np.put_along_axis(dx, idx, at, axis)
        return np.where(valid, dx, _typed(0, p))


def _onehot_like(p, label, axis, ignore_index):
    idx, valid = _hard_parts(p, label, axis, ignore_index)
    oh = np.zeros(p.shape, p.dtype)
    np.put_along_axis(oh, idx, np.ones(idx.shape, p.dtype), axis)
    return oh * valid, valid.astype(p.dtype)


def _ce_grad_vjp(n, G):
    label, p, dl = n.inputs
    a = n.attrs
    axis = a.get("axis", -1) % p.data.ndim
    soft, use_sm = a.get("soft_label", False), a.get("use_softmax", True)
    if soft:
        y = label
        valid = const(p, np.ones(dl.data.shape))
    else:
        oh, vm = _onehot_like(p.data, label.data, axis, a.get("ignore_index", -100))
        y, valid = const(p, oh), const(p, vm)
    if use_sm:  # dx = dl * (p - y) on valid positions
        d_p = multiply(G, multiply(dl, valid))
        d_dl = multiply(_rsum(multiply(G, subtract(p, y)), (axis,), True), valid)
    else:  # dx = -dl * y / p
        d_p = multiply(G, divide(multiply(dl, y), multiply(p, p)))
        d_dl = neg(_rsum(multiply(G, divide(y, p)), (axis,), True))
    return None, d_p, d_dl


CROSS_ENTROPY_GRAD = register(
    "cross_entropy_with_softmax_grad", _ce_grad_fwd, _ce_grad_vjp, diff_inputs=(1, 2),
    broadcast=True, legacy_name="SoftmaxWithCrossEntropyGradBackward", domain="positive",
    examples=[([np.array([[0], [3], [1]]), (3, 4), (3, 1)], {}),
              ([np.array([[0.2, 0.3, 0.5], [0.0, 1.0, 0.0]]), (2, 3), (2, 1)],
               {"soft_label": True}),
              ([np.array([[1], [0]]), (2, 3), (2, 1)], {"use_softmax": False})])


def cross_entropy_with_softmax(logits, label, soft_label=False, use_softmax=True,
                               ignore_index=-100, axis=-1):
    """(softmax, loss): loss keeps the class axis with size 1; only the loss carries gradient."""
    return apply(CROSS_ENTROPY_WITH_SOFTMAX, (logits, label),
                 {"soft_label": bool(soft_label), "use_softmax": bool(use_softmax),
                  "ignore_index": int(ignore_index), "axis": int(axis)})


def cross_entropy_grad(label, p, dloss, soft_label=False, use_softmax=True, ignore_index=-100,
                       axis=-1):
    return apply(CROSS_ENTROPY_GRAD, (label, p, dloss),
                 {"soft_label": bool(soft_label), "use_softmax": bool(use_softmax),
                  "ignore_index": int(ignore_index), "axis": int(axis)})


# ====================================================================== activations
def _mask(g, m):
    """A constant 0/1 (or other) factor with ``g``'s dtype."""
    return const(g, m, g.data.dtype)


def _unary(name, fwd, vjp, legacy, domain="real", examples=None, **kw):
    if examples is None:
        examples = [([(2, 3)], {}), ([(5,)], {})]
    return register(name, fwd, vjp, legacy_name=legacy, domain=domain, examples=examples, **kw)


def _relu6_fwd(x, threshold=6.0):
    return np.minimum(np.maximum(x, _typed(0, x)), _typed(threshold, x))


def _relu6_vjp(n, g):
    out = n.out_data[0]
    return multiply(g, _mask(g, (out > 0) & (out < n.attrs.get("threshold", 6.0))))


RELU6 = _unary("relu6", _relu6_fwd, _relu6_vjp, "Relu6Backward", domain="away0",
               examples=[([(2, 3)], {}),  # fixed values: a drawn one may land on the kink
                         ([np.array([-1.2, 0.3, 0.7, 1.6])], {"threshold": 0.5})],
               saves_inputs=False)


def _leaky_relu_fwd(x, negative_slope=0.01):
    a = _typed(negative_slope, x)
    return np.maximum(x, a * x) if negative_slope < 1 else np.minimum(x, a * x)


def _leaky_relu_vjp(n, g):
    x = n.inputs[0].data
    a = n.attrs.get("negative_slope", 0.01)
    factor = (x < 0).astype(x.dtype) * _typed(a, x) + (x >= 0).astype(x.dtype)
    return multiply(g, _mask(g, factor))


LEAKY_RELU = _unary("leaky_relu", _leaky_relu_fwd, _leaky_relu_vjp, "LeakyReluBackward",
                    domain="away0",
                    # Paddle's leaky_relu_double_grad gives only grad_out's gradient: x takes none
                    # (real 3.3.1 and 2.6.2: an instance norm's bias under it keeps grad None)
                    double_grad_zeros=False,
                    examples=[([(2, 3)], {"negative_slope": 0.1}), ([(4,)], {})])


def _hardtanh_fwd(x, t_min=-1.0, t_max=1.0):
    return np.minimum(np.maximum(x, _typed(t_min, x)), _typed(t_max, x))


def _hardtanh_vjp(n, g):
    x = n.inputs[0].data
    return multiply(g, _mask(g, (x > n.attrs.get("t_min", -1.0)) & (x < n.attrs.get("t_max", 1.0))))


HARDTANH = _unary("hardtanh", _hardtanh_fwd, _hardtanh_vjp, "HardtanhBackward", domain="away0",
                  examples=[([(2, 3)], {}),  # fixed values: a drawn one may land on a kink
                            ([np.array([-1.3, -0.35, 0.35, 0.9])], {"t_min": -0.5, "t_max": 0.5})])


def _hardtanh_grad_fwd(x, dout, t_min=-1.0, t_max=1.0):
    """dout where t_min < x < t_max, +0 elsewhere (a blend, as torch's ``hardtanh_backward``:
    a negative dout gives 0., not -0.)."""
    inside = (x > _typed(t_min, x)) & (x < _typed(t_max, x))
    return np.where(inside, dout, np.zeros((), dout.dtype)).astype(dout.dtype, copy=False)


def _hardtanh_grad_vjp(n, G):
    x = n.inputs[0]
    # torch: grad_output's gradient is hardtanh_backward(grad, self); self's is zeros
    return const(G, np.zeros(x.data.shape, G.data.dtype)), hardtanh_grad(x, G, **n.attrs)


HARDTANH_GRAD = register("hardtanh_grad", _hardtanh_grad_fwd, _hardtanh_grad_vjp,
                         legacy_name="HardtanhGradBackward", domain="away0",
                         examples=[([np.array([-1.3, -0.35, 0.35, 0.9]), (4,)],
                                    {"t_min": -0.5, "t_max": 0.5})])


def hardtanh_grad(x, dout, t_min=-1.0, t_max=1.0):
    return apply(HARDTANH_GRAD, (x, dout), {"t_min": float(t_min), "t_max": float(t_max)})


def _hardsigmoid_fwd(x, slope=0.1666667, offset=0.5):
    return np.minimum(np.maximum(x * _typed(slope, x) + _typed(offset, x), _typed(0, x)),
                      _typed(1, x))


def _hardsigmoid_vjp(n, g):
    out = n.out_data[0]
    slope = n.attrs.get("slope", 0.1666667)
    factor = ((out > 0) & (out < 1)).astype(out.dtype) * _typed(slope, out)
    return multiply(g, _mask(g, factor))


HARDSIGMOID = _unary("hardsigmoid", _hardsigmoid_fwd, _hardsigmoid_vjp, "HardsigmoidBackward",
                     domain="away0")


def _hardswish_fwd(x, threshold=6.0, scale=6.0, offset=3.0):
    t = np.minimum(np.maximum(x + _typed(offset, x), _typed(0, x)), _typed(threshold, x))
    return t * x / _typed(scale, x)


def _hardswish_grad_fwd(x, dout, threshold=6.0, scale=6.0, offset=3.0):
    xo = x + _typed(offset, x)
    inside = (xo < threshold).astype(x.dtype)
    pos = (xo > 0).astype(x.dtype)
    return dout * (pos * (_typed(2, x) * x + _typed(offset, x)) / _typed(scale, x) * inside
                   + (_typed(1, x) - inside))


def _hardswish_grad_vjp(n, G):
    x, dout = n.inputs
    a = n.attrs
    xd = x.data
    xo = xd + _typed(a.get("offset", 3.0), xd)
    mid = ((xo > 0) & (xo < a.get("threshold", 6.0))).astype(xd.dtype)
    d_x = multiply(G, multiply(dout, _mask(G, mid * _typed(2.0 / a.get("scale", 6.0), xd))))
    return d_x, hardswish_grad(x, G, **a)


HARDSWISH = _unary("hardswish", _hardswish_fwd,
                   lambda n, g: hardswish_grad(n.inputs[0], g, **n.attrs),
                   "HardswishBackward", domain="away0")
HARDSWISH_GRAD = register("hardswish_grad", _hardswish_grad_fwd, _hardswish_grad_vjp,
                          legacy_name="HardswishGradBackward", domain="away0",
                          examples=[([(2, 3), (2, 3)], {})])


def _elu_fwd(x, alpha=1.0):
    with quiet(**_err):
        return np.where(x < 0, _typed(alpha, x) * (eigen_exp(x) - _typed(1, x)), x)


def _elu_grad_fwd(out, x, dout, alpha=1.0):
    with quiet(**_err):
        if alpha >= 0:
            return np.where(out > 0, dout, dout * (out + _typed(alpha, out)))
        return np.where(x > 0, dout, dout * _typed(alpha, x) * eigen_exp(x))


def _elu_grad_vjp(n, G):
    out, x, dout = n.inputs
    alpha = n.attrs.get("alpha", 1.0)
    neg_side = const(G, (x.data <= 0) if alpha < 0 else (out.data <= 0), G.data.dtype)
    # on the negative side dx = dout * alpha * exp(x): its derivative in x is dx itself
    d_x = multiply(G, multiply(neg_side, multiply(dout, scale(exp(x), alpha))))
    return None, d_x, elu_grad(out, x, G, alpha)


ELU = _unary("elu", _elu_fwd,
             lambda n, g: elu_grad(n.out(), n.inputs[0], g, n.attrs.get("alpha", 1.0)),
             "EluBackward", domain="away0",
             examples=[([(2, 3)], {}), ([(4,)], {"alpha": 0.5})])
ELU_GRAD = register("elu_grad", _elu_grad_fwd, _elu_grad_vjp, diff_inputs=(1, 2),
                    legacy_name="EluGradBackward", domain="away0",
                    examples=[([(3,), (3,), (3,)], {})], check=False)


def elu_grad(out, x, dout, alpha=1.0):
    return apply(ELU_GRAD, (out, x, dout), {"alpha": float(alpha)})


_SELU_SCALE = 1.0507009873554804934193349852946
_SELU_ALPHA = 1.6732632423543772848170429916717


def _selu_fwd(x, scale=_SELU_SCALE, alpha=_SELU_ALPHA):
    s, a = _typed(scale, x), _typed(alpha, x)
    with quiet(**_err):
        return np.where(x > 0, s * x, s * (a * exp_c(x) - a))


def _selu_vjp(n, g):
    out = n.out()
    s = n.attrs.get("scale", _SELU_SCALE)
    a = n.attrs.get("alpha", _SELU_ALPHA)
    pos = _mask(g, out.data > 0)
    # dx = dout * (scale if out > 0 else out + scale*alpha); Paddle's kernel takes scale*alpha
    # as the product of its two float attributes in float (float64 too: real 3.3.1/2.6.2)
    la = float(np.float32(s) * np.float32(a))
    factor = add(multiply(scale(out, 1.0, la), _mask(g, out.data <= 0)), scale(pos, s))
    return multiply(g, factor)


SELU = _unary("selu", _selu_fwd, _selu_vjp, "SeluBackward", domain="away0")


def _silu_fwd(x):
    with quiet(**_err):
        return x * (_typed(1, x) / (_typed(1, x) + eigen_exp(-x)))


def _swish_fwd(x):
    with quiet(**_err):
        return x / (_typed(1, x) + eigen_exp(-x))


def _silu_grad_fwd(x, dout):
    with quiet(**_err):
        e = eigen_exp(-x)
        t1 = _typed(1, x) + e
        t2 = x * e
        return dout * ((_typed(1, x) / t1) * (_typed(1, x) + t2 / t1))


def _silu_grad_vjp(n, G):
    x, dout = n.inputs
    from .math import sigmoid

    s = sigmoid(x)
    one_minus = scale(s, -1.0, 1.0)
    # silu'(x) = s * (1 + x*(1-s));  silu''(x) = s*(1-s)*(2 + x*(1-2s))
    second = multiply(multiply(s, one_minus), scale(multiply(x, scale(s, -2.0, 1.0)), 1.0, 2.0))
    return multiply(G, multiply(dout, second)), silu_grad(x, G)


SILU = _unary("silu", _silu_fwd, lambda n, g: silu_grad(n.inputs[0], g), "SiluBackward")
SILU_GRAD = register("silu_grad", _silu_grad_fwd, _silu_grad_vjp, legacy_name="SiluGradBackward",
                     examples=[([(2, 3), (2, 3)], {})])


def silu_grad(x, dout):
    return apply(SILU_GRAD, (x, dout))


def _swish_grad_fwd(x, dout):
    one = _typed(1, x)
    with quiet(**_err):
        t1 = one / (one + eigen_exp(-x))
        out = x * t1
        t2 = t1 * (one - out)
        return dout * (out + t2)


SWISH = _unary("swish", _swish_fwd, lambda n, g: swish_grad(n.inputs[0], g), "SwishBackward")
SWISH_GRAD = register("swish_grad", _swish_grad_fwd, _silu_grad_vjp,
                      legacy_name="SwishGradBackward", examples=[([(2, 3), (2, 3)], {})])


def swish(x):
    return apply(SWISH, (x,))


def swish_grad(x, dout):
    return apply(SWISH_GRAD, (x, dout))


def eigen_neg(x):
    """Unary minus inside an Eigen expression: packets compute ``0 - x`` (so -(+0) is +0), the
    scalar tail ``-x``."""
    flat = np.ascontiguousarray(x).reshape(-1)
    v = flat.size - flat.size % 8 if x.dtype == _F32 else 0
    out = -flat
    out[:v] = _typed(0, x) - flat[:v]
    return out.reshape(x.shape)


def _log_sigmoid_fwd(x):
    with quiet(**_err):
        t = np.maximum(-x, _typed(0, x))
        return eigen_neg(t) - eigen_log(eigen_exp(-t) + eigen_exp(-x - t))


def _log_sigmoid_grad_fwd(x, dout):
    with quiet(**_err):
        t = np.maximum(-x, _typed(0, x))
        e = eigen_exp(-x - t)
        return dout * (e / (eigen_exp(-t) + e))


def _log_sigmoid_grad_vjp(n, G):
    from .math import sigmoid

    x, dout = n.inputs
    s = sigmoid(x)
    # dx = dout * (1 - sigmoid(x)); d/dx = -dout * sigmoid'(x)
    d_x = neg(multiply(multiply(G, dout), multiply(s, scale(s, -1.0, 1.0))))
    return d_x, log_sigmoid_grad(x, G)


LOG_SIGMOID = _unary("logsigmoid", _log_sigmoid_fwd,
                     lambda n, g: log_sigmoid_grad(n.inputs[0], g), "LogsigmoidBackward")
LOG_SIGMOID_GRAD = register("logsigmoid_grad", _log_sigmoid_grad_fwd, _log_sigmoid_grad_vjp,
                            legacy_name="LogsigmoidGradBackward",
                            examples=[([(2, 3), (2, 3)], {})])


def log_sigmoid_grad(x, dout):
    return apply(LOG_SIGMOID_GRAD, (x, dout))


def log_sigmoid(x):
    return apply(LOG_SIGMOID, (x,))


def _softplus_fwd(x, beta=1.0, threshold=20.0):
    with quiet(**_err):
        xb = x * _typed(beta, x)
        return np.where(xb > threshold, x, eigen_log(_typed(1, x) + eigen_exp(xb)) / _typed(beta, x))


def _softplus_grad_fwd(x, dout, beta=1.0, threshold=20.0):
    with quiet(**_err):
        xb = x * _typed(beta, x)
        return np.where(xb > threshold, dout, dout / (_typed(1, x) + eigen_exp(-xb)))


def _softplus_grad_vjp(n, G):
    x, dout = n.inputs
    from .math import sigmoid

    beta = n.attrs.get("beta", 1.0)
    thr = n.attrs.get("threshold", 20.0)
    below = const(G, x.data * beta <= thr, G.data.dtype)
    s = sigmoid(scale(x, beta))
    second = scale(multiply(s, scale(s, -1.0, 1.0)), beta)
    return multiply(G, multiply(dout, multiply(second, below))), softplus_grad(x, G, beta, thr)


SOFTPLUS = _unary("softplus", _softplus_fwd,
                  lambda n, g: softplus_grad(n.inputs[0], g, **n.attrs), "SoftplusBackward",
                  examples=[([(2, 3)], {}), ([(4,)], {"beta": 2.0, "threshold": 1.0})])
SOFTPLUS_GRAD = register("softplus_grad", _softplus_grad_fwd, _softplus_grad_vjp,
                         legacy_name="SoftplusGradBackward",
                         examples=[([(2, 3), (2, 3)], {})])


def softplus_grad(x, dout, beta=1.0, threshold=20.0):
    return apply(SOFTPLUS_GRAD, (x, dout), {"beta": float(beta), "threshold": float(threshold)})


_EXP64_C = K.libm64("exp", np.exp)
_LOG64_C = K.libm64("log", np.log)


def _mish_exp(x):
    """float32: Eigen's packet exp; float64: the C library's exp on every value (Paddle's float64
    mish and its gradient: 4,000 random values equal to real 3.3.1 this way, 197 off with the
    packet exp and log)."""
    return _EXP64_C(x) if x.dtype == np.float64 else eigen_exp(x)


def _mish_sp(x, threshold):
    if x.dtype == np.float64:
        return np.where(x > threshold, x, _LOG64_C(_typed(1, x) + _EXP64_C(x)))
    return np.where(x > threshold, x, eigen_log(_typed(1, x) + eigen_exp(x)))


def _mish_fwd(x, threshold=20.0):
    with quiet(**_err):
        return x * eigen_tanh(_mish_sp(x, threshold))


def _mish_grad_fwd(x, dout, threshold=20.0):
    one = _typed(1, x)
    with quiet(**_err):
        sp = _mish_sp(x, threshold)
        gsp = one - _mish_exp(-sp)
        tsp = eigen_tanh(sp)
        return dout * (tsp + x * (one - tsp * tsp) * gsp)


def _mish_grad_vjp(n, G):
    """mish'(x) = t + x s (1 - t^2) with t = tanh(softplus x), s = sigmoid(x); its derivative
    is written with Tensor ops (softplus, tanh, sigmoid)."""
    from .math import sigmoid, tanh

    x, dout = n.inputs
    s = sigmoid(x)
    t = tanh(softplus(x, 1.0, n.attrs.get("threshold", 20.0)))
    u = scale(multiply(t, t), -1.0, 1.0)  # 1 - t^2
    ds = multiply(s, scale(s, -1.0, 1.0))  # s'
    # d/dx [t + x s u] = s u + (s u + x ds u + x s du) with dt = s u, du = -2 t s u
    su = multiply(s, u)
    du = scale(multiply(t, su), -2.0)
    second = add(add(su, su), add(multiply(x, multiply(ds, u)), multiply(x, multiply(s, du))))
    return multiply(G, multiply(dout, second)), mish_grad(x, G, n.attrs.get("threshold", 20.0))


MISH = _unary("mish", _mish_fwd, lambda n, g: mish_grad(n.inputs[0], g, **n.attrs),
              "MishBackward")
MISH_GRAD = register("mish_grad", _mish_grad_fwd, _mish_grad_vjp, legacy_name="MishGradBackward",
                     examples=[([(2, 3), (2, 3)], {})])


def mish(x, threshold=20.0):
    return apply(MISH, (x,), {"threshold": float(threshold)})


def mish_grad(x, dout, threshold=20.0):
    return apply(MISH_GRAD, (x, dout), {"threshold": float(threshold)})


def _softsign_fwd(x):
    return x / (_typed(1, x) + np.abs(x))


def _softsign_vjp(n, g):
    x = n.inputs[0]
    d = add(const(x, 1.0), multiply(x, const(x, np.sign(x.data))))  # 1 + |x|
    return multiply(g, divide(const(x, 1.0), multiply(d, d)))


SOFTSIGN = _unary("softsign", _softsign_fwd, _softsign_vjp, "SoftsignBackward", domain="away0")


def _erf(x):
    """erf as Paddle's gelu kernels compute it: the 2.6.2 / 3.3.1 CPU wheels are built with
    MKL-ML and call MKL's ``vmsErf``/``vmdErf`` in low-accuracy mode (``VML_LA``), which the
    ``exact`` extra's MKL gives bit for bit (gelu and its gradient on 14,000 float32 and float64
    values: 0 differ from real Paddle 3.3.1). Without MKL: Eigen's erf, the kernel source's
    other branch, which agrees with it on about 4 values in 5.

    MKL's result depends on the CPU: on the Intel AVX-512 machine of the first records Paddle
    printed gelu(-1.) = -0.15865529 (Eigen's value), on AMD EPYC -0.15865526 (MKL's here). So
    MKL answers for the CPU it runs on; where ``GRADREPL_CPU_CLASS`` makes this process stand
    for another class (the suite's Intel records on an AMD machine), Eigen's erf is taken."""
    if x.dtype in (np.float32, np.float64) and _mkl_is_this_cpu():
        from .. import mkl

        f = mkl.vml("Erf", mkl.VML_LA)
        if f is not None:
            return f(x)
    return K.erf(x)


def _mkl_is_this_cpu():
    """Whether MKL's CPU-dependent results stand for the CPU class asked for (not a class
    chosen to stand for another machine)."""
    from .. import cpu

    return cpu.cpu_class() == cpu.detected()


def _vexp(x):
    """exp as Paddle's gelu gradient takes it: MKL's ``vsExp``/``vdExp`` (its default,
    high-accuracy mode) where the ``exact`` extra has MKL, else the C library's."""
    if x.dtype in (np.float32, np.float64) and _mkl_is_this_cpu():
        from .. import mkl

        f = mkl.vml("Exp", mkl.VML_HA)
        if f is not None:
            return f(x)
    return exp_c(x)


_SQRT1_2 = 0.70710678118654752440
_2_SQRTPI = 1.12837916709551257390
_GELU_C = 0.044715


def _gelu_fwd(x, approximate=False):
    """approximate: x/2 (1 + tanh(k (x + c x^3))) with Eigen's tanh; exact: x (1 + erf(x/sqrt 2)) / 2
    (see ``_erf`` for how close its erf is to the one Paddle's wheels use)."""
    h = _typed(0.5, x)
    one = _typed(1, x)
    with quiet(**_err):
        if approximate:
            inner = _typed(_2_SQRTPI * _SQRT1_2, x) * (x + _typed(_GELU_C, x) * (x * x * x))
            return x * h * (one + eigen_tanh(inner))
        return (x * (one + _erf(x * _typed(_SQRT1_2, x)))) * h


def _gelu_grad_fwd(x, dout, approximate=False):
    h = _typed(0.5, x)
    one = _typed(1, x)
    with quiet(**_err):
        if approximate:
            ka = _typed(_2_SQRTPI * _SQRT1_2, x)
            kb = ka * _typed(_GELU_C, x) * _typed(3, x)
            y = eigen_tanh(ka * ((_typed(_GELU_C, x) * (x * x * x)) + x))
            return h * dout * (one + y + (x - x * (y * y)) * (ka + kb * (x * x)))
        first = (_erf(x * _typed(_SQRT1_2, x)) + one) * h
        second = _vexp((x * x) * _typed(-0.5, x)) * x * _typed(0.5 * _2_SQRTPI * _SQRT1_2, x)
        return dout * (first + second)


def _gelu_second(x, approximate):
    """gelu''(x) as Tensor ops: pdf(x) (2 - x^2) exactly; for the tanh form
    (1-t^2) u' + x/2 ((1-t^2) u'' - 2 t (1-t^2) u'^2) with u = k (x + c x^3), t = tanh u."""
    from .math import tanh

    x2 = multiply(x, x)
    if not approximate:
        pdf = scale(exp(scale(x2, -0.5)), 1.0 / _math.sqrt(2.0 * _math.pi))
        return multiply(pdf, scale(x2, -1.0, 2.0))
    k = _2_SQRTPI * _SQRT1_2
    u = scale(add(x, scale(multiply(x2, x), _GELU_C)), k)
    t = tanh(u)
    sech2 = scale(multiply(t, t), -1.0, 1.0)
    du = scale(scale(x2, 3.0 * _GELU_C, 1.0), k)
    ddu = scale(x, 6.0 * k * _GELU_C)
    inner = subtract(multiply(sech2, ddu), scale(multiply(multiply(t, sech2), multiply(du, du)), 2.0))
    return add(multiply(sech2, du), multiply(scale(x, 0.5), inner))


def _gelu_grad_vjp(n, G):
    x, dout = n.inputs
    approximate = n.attrs.get("approximate", False)
    second = _gelu_second(x, approximate)
    return multiply(G, multiply(dout, second)), gelu_grad(x, G, approximate)


GELU = _unary("gelu", _gelu_fwd,
              lambda n, g: gelu_grad(n.inputs[0], g, n.attrs.get("approximate", False)),
              "GeluBackward", examples=[([(2, 3)], {}), ([(4,)], {"approximate": True})])
GELU_GRAD = register("gelu_grad", _gelu_grad_fwd, _gelu_grad_vjp, legacy_name="GeluGradBackward",
                     examples=[([(2, 3), (2, 3)], {})])


def gelu_grad(x, dout, approximate=False):
    return apply(GELU_GRAD, (x, dout), {"approximate": bool(approximate)})


def _attrs(**kw):
    return {k: v for k, v in kw.items() if v is not None}


def relu6(x, threshold=6.0):
    return apply(RELU6, (x,), {"threshold": float(threshold)})


def leaky_relu(x, negative_slope=0.01):
    return apply(LEAKY_RELU, (x,), {"negative_slope": float(negative_slope)})


def hardtanh(x, t_min=-1.0, t_max=1.0):
    return apply(HARDTANH, (x,), {"t_min": float(t_min), "t_max": float(t_max)})


def hardsigmoid(x, slope=0.1666667, offset=0.5):
    return apply(HARDSIGMOID, (x,), {"slope": float(slope), "offset": float(offset)})


def hardswish(x):
    return apply(HARDSWISH, (x,))


def hardswish_grad(x, dout, **attrs):
    return apply(HARDSWISH_GRAD, (x, dout), attrs)


def elu(x, alpha=1.0):
    return apply(ELU, (x,), {"alpha": float(alpha)})


def selu(x, scale=_SELU_SCALE, alpha=_SELU_ALPHA):
    return apply(SELU, (x,), {"scale": float(scale), "alpha": float(alpha)})


def silu(x):
    return apply(SILU, (x,))


def softplus(x, beta=1.0, threshold=20.0):
    return apply(SOFTPLUS, (x,), {"beta": float(beta), "threshold": float(threshold)})


def softsign(x):
    return apply(SOFTSIGN, (x,))


def gelu(x, approximate=False):
    return apply(GELU, (x,), {"approximate": bool(approximate)})


# ====================================================================== losses
def _huber_fwd(x, y, delta=1.0):
    r = y - x
    a = np.abs(r)
    d = _typed(delta, x)
    return np.where(a <= d, _typed(0.5, x) * r * r, d * (a - _typed(0.5, x) * d))


def _huber_vjp(n, g):
    x, y = n.inputs
    delta = n.attrs.get("delta", 1.0)
    r = y.data - x.data
    inner = np.abs(r) <= _typed(delta, r)
    outer = np.where(inner, 0, np.where(r > 0, -delta, delta))
    # dx = dout * (x - y) inside [-delta, delta], dout * -delta*sign(y - x) outside
    dxf = add(multiply(subtract(x, y), _mask(g, inner)), _mask(g, outer))
    dx = multiply(g, dxf)
    return dx, neg(dx)


HUBER_LOSS = register("huber_loss", _huber_fwd, _huber_vjp, broadcast=True,
                      legacy_name="HuberLossBackward", domain="distinct",
                      examples=[([(2, 3), (2, 3)], {}), ([(4,), (4,)], {"delta": 0.5})])


def huber_loss(x, y, delta=1.0):
    return apply(HUBER_LOSS, (x, y), {"delta": float(delta)})


_BCE_EPS = 1e-12


def _bce_fwd(x, label):
    if (x < 0).any():
        raise ValueError("(InvalidArgument) Illegal input, input must be greater than  or equal "
                         "to 0")
    if (x > 1).any():
        raise ValueError("(InvalidArgument) Illegal input, input must be less than or equal to 1")
    one = _typed(1, x)
    low = _typed(-100, x)
    with quiet(**_err):
        return (label - one) * np.maximum(log_c(one - x), low) - label * np.maximum(log_c(x), low)


def _bce_grad_fwd(x, label, dout):
    with quiet(**_err):
        term = np.maximum((_typed(1, x) - x) * x, _typed(_BCE_EPS, x))
        return dout * ((x - label) / term)


def _bce_vjp(n, g):
    x, label = n.inputs
    return bce_grad(x, label, g), None


def _bce_grad_vjp(n, G):
    x, label, dout = n.inputs
    # dx = dout * (x - y) / (x (1 - x)); d/dx = dout * (x^2 - 2xy + y) / (x (1 - x))^2
    den = multiply(x, scale(x, -1.0, 1.0))
    num = add(subtract(multiply(x, x), scale(multiply(x, label), 2.0)), label)
    d_x = multiply(G, multiply(dout, divide(num, multiply(den, den))))
    d_dout = multiply(G, divide(subtract(x, label), den))
    return d_x, None, d_dout


_BCE_X = np.array([[0.3, 0.6, 0.85], [0.2, 0.45, 0.7]])
_BCE_Y = np.array([[1.0, 0.0, 1.0], [0.0, 0.25, 1.0]])
BCE_LOSS = register("bce_loss", _bce_fwd, _bce_vjp, diff_inputs=(0,), broadcast=True,
                    legacy_name="BceLossBackward", examples=[([_BCE_X, _BCE_Y], {})])
BCE_GRAD = register("bce_loss_grad", _bce_grad_fwd, _bce_grad_vjp, diff_inputs=(0, 2),
                    broadcast=True, legacy_name="BceLossGradBackward",
                    examples=[([_BCE_X, _BCE_Y, (2, 3)], {})])


def bce_loss(x, label):
    return apply(BCE_LOSS, (x, label))


def bce_grad(x, label, dout):
    return apply(BCE_GRAD, (x, label, dout))


def _sce_fwd(x, label, pos_weight=None, ignore_index=-100, kernel="stable"):
    """sigmoid_cross_entropy_with_logits. ``kernel`` names which of Paddle's kernels:
    "stable" (3.x: pos_weight weights log(exp(-m) + exp(-x-m)) + m) or "legacy" (2.x:
    pos_weight weights only the log(1 + exp(-|x|)) term)."""
    one = _typed(1, x)
    zero = _typed(0, x)
    with quiet(**_err):
        t1 = np.where(x > 0, x, zero)
        t3 = log_c(one + exp_c(-np.abs(x)))
        if pos_weight is None:
            out = t1 - x * label + t3
        elif kernel == "stable":
            m = np.where(x < 0, -x, zero)
            out = (one - label) * x + pos_weight * (log_c(exp_c(-m) + exp_c(-x - m)) + m)
        else:
            out = t1 - x * label + t3 * pos_weight
    return np.where(label.astype(np.int64) == ignore_index, zero, out)


def _sce_grad_fwd(x, label, dout, pos_weight=None, ignore_index=-100, kernel="stable"):
    """The gradient kernel: "stable" (3.x: via exp(-|x|); 3x too large at x == 0, as Paddle)
    or "legacy" (2.x: sigmoid(x) * pos_weight - label)."""
    one = _typed(1, x)
    zero = _typed(0, x)
    with quiet(**_err):
        if kernel == "legacy":
            sig = one / (one + exp_c(-x))
            diff = sig - label if pos_weight is None else sig * pos_weight - label
        elif pos_weight is None:
            e = exp_c(-np.abs(x))
            up = -e * np.where(x >= 0, one, -one)
            diff = np.where(x > 0, one, zero) - label + up / (one + e)
        else:
            m = np.where(x < 0, -x, zero)
            t1 = np.where(x < 0, -one, zero)
            d1 = exp_c(-m)
            d2 = exp_c(-x - m)
            t2 = d1 * -t1 + d2 * (-one - t1)
            diff = pos_weight * (t2 / (d1 + d2) + t1) + (one - label)
        dx = dout * diff
    return np.where(label.astype(np.int64) == ignore_index, zero, dx)


def _sce_inputs(n):
    ins = n.inputs
    return ins[0], ins[1], (ins[2] if len(ins) > 2 else None)


def _sce_vjp(n, g):
    x, label, pw = _sce_inputs(n)
    dx = sce_grad(x, label, g, pw, **n.attrs)
    return (dx, None) if pw is None else (dx, None, None)


def _sce_grad_vjp(n, G):
    from .math import sigmoid

    x, label, dout = n.inputs[:3]
    pw = n.inputs[3] if len(n.inputs) > 3 else None
    s = sigmoid(x)
    ds = multiply(s, scale(s, -1.0, 1.0))  # sigmoid'
    if pw is not None:
        ds = multiply(ds, pw)
    keep = const(G, label.data.astype(np.int64) != n.attrs.get("ignore_index", -100),
                 G.data.dtype)
    d_x = multiply(multiply(G, dout), multiply(ds, keep))
    if pw is None:
        diff = subtract(s, label)
    elif n.attrs.get("kernel", "stable") == "legacy":
        diff = subtract(multiply(s, pw), label)
    else:  # (1 - label) + pw * (sigmoid(x) - 1)
        diff = add(scale(label, -1.0, 1.0), multiply(pw, scale(s, 1.0, -1.0)))
    d_dout = multiply(multiply(G, diff), keep)
    res = [d_x, None, d_dout]
    if pw is not None:
        res.append(None)
    return tuple(res)


SIGMOID_CE = register(
    "sigmoid_cross_entropy_with_logits",
    lambda x, label, *pw, **a: _sce_fwd(x, label, pw[0] if pw else None, **a),
    _sce_vjp, diff_inputs=(0,), broadcast=True, legacy_name="SigmoidCrossEntropyWithLogitsBackward",
    examples=[([(2, 3), np.array([[1.0, 0.0, 0.5], [0.0, 1.0, 1.0]])], {}),
              ([(3,), np.array([1.0, 0.0, 1.0])], {"kernel": "legacy"}),
              ([(3,), np.array([1.0, 0.0, 1.0]), np.array([2.0, 1.0, 0.5])], {"kernel": "stable"})],
    domain="away0")
SIGMOID_CE_GRAD = register(
    "sigmoid_cross_entropy_with_logits_grad",
    lambda x, label, dout, *pw, **a: _sce_grad_fwd(x, label, dout, pw[0] if pw else None, **a),
    _sce_grad_vjp, diff_inputs=(0, 2), broadcast=True,
    legacy_name="SigmoidCrossEntropyWithLogitsGradBackward", domain="away0",
    examples=[([(2, 3), np.array([[1.0, 0.0, 0.5], [0.0, 1.0, 1.0]]), (2, 3)],
               {"kernel": "legacy"}),
              ([(3,), np.array([1.0, 0.0, 1.0]), (3,), np.array([2.0, 1.0, 0.5])],
               {"kernel": "stable"})])


def sigmoid_cross_entropy_with_logits(x, label, pos_weight=None, ignore_index=-100,
                                      kernel="stable"):
    ins = (x, label) if pos_weight is None else (x, label, pos_weight)
    return apply(SIGMOID_CE, ins, {"ignore_index": int(ignore_index), "kernel": kernel})


def sce_grad(x, label, dout, pos_weight=None, ignore_index=-100, kernel="stable"):
    ins = (x, label, dout) if pos_weight is None else (x, label, dout, pos_weight)
    return apply(SIGMOID_CE_GRAD, ins, {"ignore_index": int(ignore_index), "kernel": kernel})


def _nll_parts(x, label, weight, ignore_index):
    """Per sample: the picked input -x[i, label_i], its weight (0 where ignored)."""
    lbl = label.astype(np.int64)
    valid = lbl != ignore_index
    classes = x.shape[1]
    bad = valid & ((lbl < 0) | (lbl >= classes))
    if bad.any():
        raise ValueError("(InvalidArgument) label should not be out of bounds.")
    idx = np.where(valid, lbl, 0)
    picked = np.take_along_axis(x, np.expand_dims(idx, 1), 1).squeeze(1)
    w = np.where(valid, weight[idx], _typed(0, x))
    return idx, picked, w, valid


def _nll_fwd(x, label, weight, ignore_index=-100, reduction="mean", out_shape=()):
    """Paddle's nll_loss kernel: per-sample -w*x[label]; mean divides by the total weight."""
    _idx, picked, w, valid = _nll_parts(x, label, weight, ignore_index)
    losses = np.where(valid, -picked * w, _typed(0, x))
    if reduction == "none":
        return losses
    total = np.zeros((), x.dtype)
    tw = np.zeros((), x.dtype)
    for v, wv in zip(losses.reshape(-1), w.reshape(-1)):
        total = total + v
        tw = tw + wv
    if reduction == "mean" and tw != 0:
        total = total / tw
    return total.reshape(out_shape)


def _nll_total_weight(w):
    tw = np.zeros((), w.dtype)
    for wv in w.reshape(-1):
        tw = tw + wv
    return tw


def _nll_vjp(n, g):
    x, label, weight = n.inputs
    return nll_loss_grad(x, label, weight, g, **{k: v for k, v in n.attrs.items()
                                                 if k != "out_shape"}), None, None


def _nll_grad_fwd(x, label, weight, dout, ignore_index=-100, reduction="mean"):
    """Paddle's nll_loss_grad kernel: zeros, then -dout*w at each label (divided by the total
    weight for 'mean')."""
    idx, _p, w, valid = _nll_parts(x, label, weight, ignore_index)
    if reduction == "none":
        vals = -dout * w
    else:
        d = dout.reshape(-1)[0]
        vals = -d * w
        if reduction == "mean":
            vals = vals / _nll_total_weight(w)
    dx = np.zeros(x.shape, x.dtype)
    np.put_along_axis(dx, np.expand_dims(idx, 1), np.expand_dims(vals, 1), 1)
    return np.where(np.expand_dims(valid, 1), dx, _typed(0, x))


def _nll_grad_vjp(n, G):
    """The gradient is linear in dout: d(dout) gathers G at the labels times -w (/ total)."""
    x, label, weight, dout = n.inputs
    a = n.attrs
    idx, _p, w, valid = _nll_parts(x.data, label.data, weight.data, a.get("ignore_index", -100))
    coef = np.where(valid, -w, _typed(0, w))
    if a.get("reduction", "mean") == "mean":
        coef = coef / _nll_total_weight(w)
    picked = np.zeros(x.data.shape, x.data.dtype)
    np.put_along_axis(picked, np.expand_dims(idx, 1), np.expand_dims(coef, 1), 1)
    per = _rsum(multiply(G, const(G, picked)), (1,), False)
    if a.get("reduction", "mean") != "none":
        from .shape import reshape

        per = reshape(_rsum(per, tuple(range(per.data.ndim)), False), dout.data.shape)
    return None, None, None, per


NLL_LOSS_GRAD = register("nll_loss_grad", _nll_grad_fwd, _nll_grad_vjp, diff_inputs=(3,),
                         legacy_name="NllLossGradBackward",
                         examples=[([(3, 4), np.array([0, 3, 1]), np.ones(4), ()], {}),
                                   ([(3, 4), np.array([0, 3, 1]), np.ones(4), (3,)],
                                    {"reduction": "none"})])


def nll_loss_grad(x, label, weight, dout, ignore_index=-100, reduction="mean"):
    return apply(NLL_LOSS_GRAD, (x, label, weight, dout),
                 {"ignore_index": int(ignore_index), "reduction": reduction})


NLL_LOSS = register("nll_loss", _nll_fwd, _nll_vjp, diff_inputs=(0,), broadcast=True,
                    legacy_name="NllLossBackward",
                    examples=[([(3, 4), np.array([0, 3, 1]), np.ones(4)], {}),
                              ([(3, 4), np.array([0, 3, 1]), np.array([1.0, 2.0, 0.5, 1.0])],
                               {"reduction": "sum"}),
                              ([(3, 4), np.array([0, 3, 1]), np.ones(4)], {"reduction": "none"})])


def nll_loss(x, label, weight, ignore_index=-100, reduction="mean", out_shape=()):
    return apply(NLL_LOSS, (x, label, weight),
                 {"ignore_index": int(ignore_index), "reduction": reduction,
                  "out_shape": tuple(out_shape)})


def _kldiv_fwd(x, label, log_target=False):
    with quiet(**_err):
        if log_target:  # the kernel's binaryExpr functor: std::exp per element (glibc)
            return exp_c(label) * (label - x)
        return np.where(label > 0, label * (log_c(label) - x), _typed(0, x))


def _kldiv_vjp(n, g):
    x, label = n.inputs
    lab = label.data
    if n.attrs.get("log_target", False):
        factor = -exp_c(lab)
    else:
        factor = np.where(lab > 0, -lab, _typed(0, lab))
    return multiply(g, const(g, factor)), None


KLDIV_LOSS = register("kldiv_loss", _kldiv_fwd, _kldiv_vjp, diff_inputs=(0,), broadcast=True,
                      legacy_name="KldivLossBackward",
                      examples=[([(2, 3), np.array([[0.2, 0.3, 0.5], [0.0, 0.6, 0.4]])], {})])


def kldiv_loss(x, label, log_target=False):
    return apply(KLDIV_LOSS, (x, label), {"log_target": bool(log_target)})


# ====================================================================== dropout
def _keep_prob(p, like):
    """``static_cast<T>(1.0f - p)``: Paddle's dropout kernels take p as a float and subtract
    in float32 (a float64 tensor's kept values are divided by float32's 0.7, measured on
    3.3.1 and 2.6.2)."""
    return np.asarray(np.float32(1.0) - np.float32(p)).astype(like.dtype)


def _dropout_fwd(x, mask, p=0.5, upscale=True, is_test=False):
    """Paddle's dropout kernel; ``mask`` (uint8) marks the kept values."""
    keep = _keep_prob(p, x)
    if is_test:
        return x.copy() if upscale else x * keep
    if upscale:
        if p >= 1.0:
            return np.zeros_like(x)
        return np.where(mask != 0, x / keep, _typed(0, x))
    return x * mask.astype(x.dtype)


def _dropout_vjp(n, g):
    a = n.attrs
    p, upscale = a.get("p", 0.5), a.get("upscale", True)
    keep = _keep_prob(p, g.data)
    if a.get("is_test", False):
        return (g if upscale else multiply(g, const(g, keep))), None
    mask = const(g, n.inputs[1].data, g.data.dtype)
    if upscale:
        if p >= 1.0:
            return multiply(g, const(g, np.zeros(g.data.shape))), None
        return divide(multiply(g, mask), const(g, keep)), None
    return multiply(g, mask), None


DROPOUT = register("dropout", _dropout_fwd, _dropout_vjp, diff_inputs=(0,), reads_inputs=True,
                   legacy_name="DropoutBackward",
                   examples=[([(2, 3), np.array([[1, 0, 1], [1, 1, 0]], np.uint8)], {"p": 0.5}),
                             ([(2, 3), np.array([[1, 0, 1], [1, 1, 0]], np.uint8)],
                              {"p": 0.25, "upscale": False})], saves_inputs=False)


def dropout(x, mask, p=0.5, upscale=True, is_test=False):
    """``mask`` is a uint8 tensor of kept positions; ``upscale`` divides kept values by 1-p."""
    return apply(DROPOUT, (x, mask), {"p": float(p), "upscale": bool(upscale),
                                      "is_test": bool(is_test)})


# ====================================================================== embedding
def _embedding_fwd(ids, weight, padding_idx=-1):
    """Rows of ``weight`` picked by integer ``ids``; the padding row reads as zeros."""
    idx = ids.astype(np.int64)
    rows = weight.shape[0]
    bad = (idx < 0) | (idx >= rows)
    if bad.any():
        v = int(idx[bad].reshape(-1)[0])
        raise IndexError(
            f"(InvalidArgument) Variable value (input) of OP(fluid.layers.embedding) expected >= 0 "
            f"and < {rows}, but got {v}. Please check input value.")
    out = weight[idx]
    if padding_idx >= 0:
        out = np.where((idx == padding_idx)[..., None], _typed(0, weight), out)
    return out


def _embedding_grad_fwd(ids, g, rows=1, padding_idx=-1):
    """Gradient rows summed per id (sequentially, as the kernel loops), none for padding."""
    idx = ids.astype(np.int64).reshape(-1)
    gg = g.reshape(idx.size, -1)
    out = np.zeros((rows, gg.shape[1]), g.dtype)
    for k, i in enumerate(idx):
        if i != padding_idx:
            out[i] = out[i] + gg[k]
    return out


EMBEDDING = register(
    "embedding", _embedding_fwd,
    lambda n, g: (None, embedding_grad(n.inputs[0], g, n.in_meta[1][0][0],
                                       n.attrs.get("padding_idx", -1))),
    diff_inputs=(1,), legacy_name="LookupTableV2Backward",
    examples=[([np.array([[0, 2], [1, 2]]), (3, 4)], {}),
              ([np.array([0, 1, 1]), (3, 2)], {"padding_idx": 1})])
EMBEDDING_GRAD = register(
    "embedding_grad", _embedding_grad_fwd,
    lambda n, G: (None, embedding(n.inputs[0], G, n.attrs.get("padding_idx", -1))),
    diff_inputs=(1,), legacy_name="LookupTableV2GradBackward",
    examples=[([np.array([[0, 2], [1, 2]]), (2, 2, 4)], {"rows": 3})])


def embedding(ids, weight, padding_idx=-1):
    return apply(EMBEDDING, (ids, weight), {"padding_idx": int(padding_idx)})


def embedding_grad(ids, g, rows, padding_idx=-1):
    return apply(EMBEDDING_GRAD, (ids, g), {"rows": int(rows), "padding_idx": int(padding_idx)})


# ====================================================================== pad (reflect, replicate, circular)
_PAD_MODES = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}


def _pad_source_index(shape, pad_width, mode):
    """For each output position, the flat index of the input value it copies."""
    idx = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    return np.pad(idx, pad_width, mode=_PAD_MODES[mode])


def _pad3d_fwd(x, pad_width=(), mode="reflect", value=0.0):
    if mode == "constant":  # (F.pad's spatial constant padding: Paddle's pad3d op too)
        return np.pad(x, pad_width, mode="constant", constant_values=np.asarray(value, x.dtype))
    for (b, a), s in zip(pad_width, x.shape):
        if mode == "reflect" and (b >= s or a >= s) and (b or a):
            raise ValueError(
                f"(InvalidArgument) The padding size ({max(b, a)}) should be less than the "
                f"input size ({s}) in reflect mode")
    return x.reshape(-1)[_pad_source_index(x.shape, pad_width, mode)]


def _pad3d_grad_fwd(g, in_shape=(), pad_width=(), mode="reflect"):
    """Each output gradient added back to the input value it copied."""
    if mode == "constant":
        return np.array(g[tuple(slice(b, b + n) for (b, _a), n in zip(pad_width, in_shape))])
    src = _pad_source_index(tuple(in_shape), pad_width, mode)
    dx = np.zeros(int(np.prod(in_shape)), g.dtype)
    np.add.at(dx, src.reshape(-1), g.reshape(-1))
    return dx.reshape(in_shape)


PAD3D = register(
    "pad3d", _pad3d_fwd,
    lambda n, g: pad3d_grad(g, n.in_meta[0][0], n.attrs["pad_width"], n.attrs["mode"]),
    legacy_name="Pad3dBackward",
    examples=[([(1, 1, 3, 4)], {"pad_width": ((0, 0), (0, 0), (1, 2), (2, 1)), "mode": "reflect"}),
              ([(1, 2, 3)], {"pad_width": ((0, 0), (0, 0), (2, 1)), "mode": "replicate"}),
              ([(1, 1, 2, 3)], {"pad_width": ((0, 0), (0, 0), (1, 1), (1, 0)),
                                "mode": "circular"}),
              ([(1, 2, 3, 1, 1)], {"pad_width": ((0, 0), (0, 0), (2, 1), (0, 0), (0, 0)),
                                   "mode": "constant", "value": 0.5})])
PAD3D_GRAD = register(
    "pad3d_grad", _pad3d_grad_fwd,
    lambda n, G: pad3d(G, n.attrs["pad_width"], n.attrs["mode"]),
    legacy_name="Pad3dGradBackward",
    examples=[([(1, 1, 6, 7)], {"in_shape": (1, 1, 3, 4),
                                "pad_width": ((0, 0), (0, 0), (1, 2), (2, 1)),
                                "mode": "reflect"})])


def pad3d(x, pad_width, mode, value=0.0):
    pw = tuple((int(b), int(a)) for b, a in pad_width)
    attrs = {"pad_width": pw, "mode": mode}
    if mode == "constant":
        attrs["value"] = value
    return apply(PAD3D, (x,), attrs)


def pad3d_grad(g, in_shape, pad_width, mode):
    return apply(PAD3D_GRAD, (g,), {"in_shape": tuple(in_shape), "pad_width": tuple(pad_width),
                                    "mode": mode})
