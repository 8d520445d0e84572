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

import math as _math

import numpy as np

from ..registry import apply, register
from ._util import const
from .math import add, divide, exp, multiply, neg, scale, subtract
from .reduce import sum as _rsum

_F32 = np.dtype(np.float32)
_err = dict(divide="ignore", invalid="ignore", over="ignore", under="ignore")


# ====================================================================== kernel arithmetic
def _typed(v, like):
    return np.asarray(v, dtype=like.dtype)


# glibc's expf/logf (the C library Paddle's scalar kernel code calls), evaluated as glibc does:
# a 2^(i/32) table and a cubic for expf, a 16-entry (1/c, log c) table and a cubic for logf,
# all in double precision and rounded once. Both are within 0.52 ulp but not correctly rounded.
_EXP_N = 32


def _exp2_table():
    from decimal import Decimal, getcontext

    getcontext().prec = 60
    bits = []
    for i in range(_EXP_N):
        v = float(Decimal(2) ** (Decimal(i) / Decimal(_EXP_N)))
        b = int(np.array(v, np.float64).view(np.uint64))
        bits.append((b - ((i << 52) // _EXP_N)) & 0xFFFFFFFFFFFFFFFF)
    return np.array(bits, np.uint64)


_EXP2_TAB = _exp2_table()
_INVLN2N = float.fromhex("0x1.71547652b82fep+0") * _EXP_N
_EXP_C = (float.fromhex("0x1.c6af84b912394p-5") / _EXP_N ** 3,
          float.fromhex("0x1.ebfce50fac4f3p-3") / _EXP_N ** 2,
          float.fromhex("0x1.62e42ff0c52d6p-1") / _EXP_N)
_SHIFT = float.fromhex("0x1.8p+52")


def libm_expf(x):
    """glibc's ``expf`` on a float32 array."""
    xd = x.astype(np.float64)
    z = _INVLN2N * xd
    kd = z + _SHIFT
    ki = kd.view(np.uint64)
    r = z - (kd - _SHIFT)
    t = _EXP2_TAB[(ki % np.uint64(_EXP_N)).astype(np.int64)] + (ki << np.uint64(52 - 5))
    c0, c1, c2 = _EXP_C
    y = (c0 * r + c1) * (r * r) + (c2 * r + 1)
    with np.errstate(**_err):
        out = (y * t.view(np.float64)).astype(np.float32)
    out = np.where(x > np.float32(float.fromhex("0x1.62e42ep6")), np.float32(np.inf), out)
    out = np.where(x < np.float32(float.fromhex("-0x1.9fe368p6")), np.float32(0), out)
    return np.where(np.isnan(x), x, out)


_LOGF_TAB = np.array([float.fromhex(h) for h in (
    "0x1.661ec79f8f3bep+0", "-0x1.57bf7808caadep-2", "0x1.571ed4aaf883dp+0", "-0x1.2bef0a7c06ddbp-2",
    "0x1.49539f0f010bp+0", "-0x1.01eae7f513a67p-2", "0x1.3c995b0b80385p+0", "-0x1.b31d8a68224e9p-3",
    "0x1.30d190c8864a5p+0", "-0x1.6574f0ac07758p-3", "0x1.25e227b0b8eap+0", "-0x1.1aa2bc79c81p-3",
    "0x1.1bb4a4a1a343fp+0", "-0x1.a4e76ce8c0e5ep-4", "0x1.12358f08ae5bap+0", "-0x1.1973c5a611cccp-4",
    "0x1.0953f419900a7p+0", "-0x1.252f438e10c1ep-5", "0x1p+0", "0x0p+0",
    "0x1.e608cfd9a47acp-1", "0x1.aa5aa5df25984p-5", "0x1.ca4b31f026aap-1", "0x1.c5e53aa362eb4p-4",
    "0x1.b2036576afce6p-1", "0x1.526e57720db08p-3", "0x1.9c2d163a1aa2dp-1", "0x1.bc2860d22477p-3",
    "0x1.886e6037841edp-1", "0x1.1058bc8a07ee1p-2", "0x1.767dcf5534862p-1", "0x1.4043057b6ee09p-2",
)]).reshape(16, 2)
_LOGF_A = tuple(float.fromhex(h) for h in (
    "-0x1.00ea348b88334p-2", "0x1.5575b0be00b6ap-2", "-0x1.ffffef20a4123p-2"))
_LN2 = float.fromhex("0x1.62e42fefa39efp-1")


def libm_logf(x):
    """glibc's ``logf`` on a float32 array."""
    with np.errstate(**_err):
        ix = x.view(np.uint32).astype(np.int64)
        sub = (ix > 0) & (ix < 0x00800000)
        if sub.any():
            scaled = (x * np.float32(2.0 ** 23)).view(np.uint32).astype(np.int64) - (23 << 23)
            ix = np.where(sub, scaled, ix)
        tmp = ix - 0x3F330000
        i = (tmp >> 19) % 16
        k = (tmp.astype(np.int32) >> 23).astype(np.float64)
        iz = ix - (tmp & 0xFF800000)
        z = iz.astype(np.uint32).view(np.float32).astype(np.float64)
        r = z * _LOGF_TAB[i, 0] - 1
        a0, a1, a2 = _LOGF_A
        r2 = r * r
        y = (a0 * r2 + (a1 * r + a2)) * r2 + ((_LOGF_TAB[i, 1] + k * _LN2) + r)
        out = y.astype(np.float32)
        out = np.where(x == 1, np.float32(0), out)
        out = np.where(x == 0, np.float32(-np.inf), out)
        out = np.where(x < 0, np.float32(np.nan), out)
        out = np.where(np.isinf(x) | np.isnan(x), np.where(x < 0, np.float32(np.nan), x), out)
    return out


def exp_c(x):
    """The C library's exp as Paddle's scalar code calls it (float32: glibc ``expf``)."""
    with np.errstate(**_err):
        if x.dtype == _F32:
            return libm_expf(x)
        if x.dtype.itemsize < 8:
            return np.exp(x.astype(np.float64)).astype(x.dtype)
        return np.exp(x)


def log_c(x):
    """The C library's log as Paddle's scalar code calls it (float32: glibc ``logf``)."""
    with np.errstate(**_err):
        if x.dtype == _F32:
            return libm_logf(x)
        if x.dtype.itemsize < 8:
            return np.log(x.astype(np.float64)).astype(x.dtype)
        return np.log(x)


def _madd(a, b, c):
    """Eigen's ``pmadd`` without FMA: a product rounded, then a sum rounded."""
    return (a * b).astype(np.float32) + c


_F = np.float32
_PEXP = tuple(_F(v) for v in (1.9875691500E-4, 1.3981999507E-3, 8.3334519073E-3,
                              4.1665795894E-2, 1.6666665459E-1, 5.0000001201E-1))


def _pexp_f32(x0):
    """Eigen's packet exp for float (Cephes polynomial), as Paddle's AVX build evaluates it."""
    with np.errstate(**_err):
        x = np.minimum(np.maximum(x0, _F(-88.723)), _F(88.723)).astype(_F)
        m = np.floor(_madd(x, _F(1.44269504088896341), _F(0.5)))
        r = _madd(m, _F(-0.693359375), x)
        r = _madd(m, _F(2.12194440e-4), r)
        r2 = r * r
        r3 = r2 * r
        p0, p1, p2, p3, p4, p5 = _PEXP
        y = _madd(np.full_like(r, p0), r, p1)
        y1 = _madd(np.full_like(r, p3), r, p4)
        y2 = r + _F(1)
        y = _madd(y, r, p2)
        y1 = _madd(y1, r, p5)
        y = _madd(y, r3, y1)
        y = _madd(y, r2, y2)
        out = np.ldexp(y, m.astype(np.int32)).astype(_F)
        out = np.maximum(out, x0)
        return np.where(np.isnan(x0), x0, out)


def eigen_exp(x):
    """``x.exp()`` of an Eigen expression over a contiguous float32 array.

    Full packets of 8 use Eigen's polynomial; the trailing ``n % 8`` elements use ``expf``.
    Other dtypes: the correctly rounded exp.
    """
    if x.dtype != _F32:
        return exp_c(x)
    flat = np.ascontiguousarray(x).reshape(-1)
    v = flat.size - flat.size % 8
    out = np.empty_like(flat)
    out[:v] = _pexp_f32(flat[:v])
    out[v:] = exp_c(flat[v:])
    return out.reshape(x.shape)


_PLOG_P = tuple(_F(v) for v in (7.0376836292E-2, -1.1514610310E-1, 1.1676998740E-1,
                                  -1.2420140846E-1, 1.4249322787E-1, -1.6668057665E-1,
                                  2.0000714765E-1, -2.4999993993E-1, 3.3333331174E-1))


def _plog_f32(x0):
    """Eigen's packet log for float (Cephes polynomial on the mantissa), without FMA."""
    with np.errstate(**_err):
        x = np.maximum(x0, np.array(0x00800000, np.uint32).view(_F))
        m, e = np.frexp(x)
        x = m.astype(_F)
        e = e.astype(_F)
        small = x < _F(0.707106781186547524)
        tmp = np.where(small, x, _F(0))
        x = x - _F(1)
        e = e - np.where(small, _F(1), _F(0))
        x = x + tmp
        x2 = x * x
        x3 = x2 * x
        p0, p1, p2, p3, p4, p5, p6, p7, p8 = _PLOG_P
        y = _madd(np.full_like(x, p0), x, p1)
        y1 = _madd(np.full_like(x, p3), x, p4)
        y2 = _madd(np.full_like(x, p6), x, p7)
        y = _madd(y, x, p2)
        y1 = _madd(y1, x, p5)
        y2 = _madd(y2, x, p8)
        y = _madd(y, x3, y1)
        y = _madd(y, x3, y2)
        y = y * x3
        y = _madd(np.full_like(x, _F(-0.5)), x2, y)
        x = x + y
        x = _madd(e, _F(0.693147180559945309), x)
        x = np.where(x0 == 0, _F(-np.inf), x)
        x = np.where(x0 == np.inf, _F(np.inf), x)
        return np.where((x0 < 0) | np.isnan(x0), _F(np.nan), x).astype(_F)


def eigen_log(x):
    """``x.log()`` of an Eigen expression over a contiguous float32 array: packets of 8 use
    Eigen's polynomial, the trailing ``n % 8`` elements glibc's ``logf``."""
    if x.dtype != _F32:
        return log_c(x)
    flat = np.ascontiguousarray(x).reshape(-1)
    v = flat.size - flat.size % 8
    out = np.empty_like(flat)
    out[:v] = _plog_f32(flat[:v])
    out[v:] = libm_logf(flat[v:])
    return out.reshape(x.shape)


_PTANH_A = tuple(_F(v) for v in (4.89352455891786e-03, 6.37261928875436e-04,
                                  1.48572235717979e-05, 5.12229709037114e-08,
                                  -8.60467152213735e-11, 2.00018790482477e-13,
                                  -2.76076847742355e-16))
_PTANH_B = tuple(_F(v) for v in (4.89352518554385e-03, 2.26843463243900e-03,
                                  1.18534705686654e-04, 1.19825839466702e-06))


def eigen_tanh(x0):
    """Eigen's fast float tanh (a rational function, clamped at +-7.905), which Paddle uses
    for every element, packet or not."""
    if x0.dtype != _F32:
        return np.tanh(x0)
    with np.errstate(**_err):
        c = _F(7.90531110763549805)
        x = np.minimum(np.maximum(x0, -c), c)
        x2 = x * x
        a1, a3, a5, a7, a9, a11, a13 = _PTANH_A
        p = _madd(x2, a13, a11)
        for a in (a9, a7, a5, a3, a1):
            p = _madd(x2, p, a)
        p = x * p
        b0, b2, b4, b6 = _PTANH_B
        q = _madd(x2, b6, b4)
        for b in (b2, b0):
            q = _madd(x2, q, b)
        out = np.where(np.abs(x0) < _F(0.0004), x, p / q).astype(_F)
        return np.where(np.isnan(x0), x0, out)


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
    folded as ``hadd``/``permute``/``hadd`` do, then the tail added one by one.
    """
    n = x.shape[-1]
    if n < 8 or x.dtype != _F32:
        s = x[..., 0]
        for i in range(1, n):
            s = s + x[..., i]
        return s[..., None]
    end = n - n % 8
    acc = np.zeros(x.shape[:-1] + (8,), x.dtype)
    for i in range(0, end, 8):
        acc = acc + x[..., i:i + 8]
    h01 = acc[..., 0] + acc[..., 1]
    h23 = acc[..., 2] + acc[..., 3]
    h45 = acc[..., 4] + acc[..., 5]
    h67 = acc[..., 6] + acc[..., 7]
    s = (h01 + h45) + (h23 + h67)
    for i in range(end, n):
        s = s + x[..., i]
    return s[..., None]


def _last(x, axis):
    return axis == x.ndim - 1 or x.ndim == 0


# ====================================================================== softmax family
def _shifted(x, axis):
    with np.errstate(**_err):
        sh = x - np.max(x, axis=axis, keepdims=True)
    return np.maximum(sh, _typed(-64.0, x))


def softmax_kernel(x, axis):
    """Paddle's CPU softmax: AVX path along the last axis, Eigen otherwise."""
    if x.ndim == 0:
        return np.ones_like(x)
    if x.size == 0:
        return x.copy()
    axis = axis % x.ndim
    sh = _shifted(x, axis)
    if axis == x.ndim - 1:
        e = exp_c(sh)
        s = avx_sum(e)
        return e * (_typed(1, x) / s)
    e = eigen_exp(sh)
    return e * (_typed(1, x) / seq_sum(e, axis))


def softmax_grad_kernel(y, dy, axis):
    if y.ndim == 0:
        return np.zeros_like(y)
    axis = axis % y.ndim
    if axis == y.ndim - 1:
        dot = avx_sum(dy * y)
    else:
        dot = seq_sum(y * dy, axis)
    return (dy - dot) * y


def _softmax_vjp(n, g):
    return softmax_grad(n.out(), g, n.attrs["axis"])


SOFTMAX = register("softmax", softmax_kernel, _softmax_vjp, legacy_name="SoftmaxBackward",
                   examples=[([(2, 5)], {"axis": -1}), ([(3, 2, 4)], {"axis": 1}),
                             ([(2, 9)], {"axis": 1})])


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
    return sh - log_c(seq_sum(eigen_exp(sh), axis))


def log_softmax_grad_kernel(y, dy, axis):
    if y.ndim == 0:
        return np.zeros_like(y)
    axis = axis % y.ndim
    return dy - eigen_exp(y) * seq_sum(dy, axis)


LOG_SOFTMAX = register(
    "log_softmax", log_softmax_kernel,
    lambda n, g: log_softmax_grad(n.out(), g, n.attrs["axis"]),
    legacy_name="LogSoftmaxBackward",
    examples=[([(2, 5)], {"axis": -1}), ([(3, 2, 4)], {"axis": 0})])


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


def _tolerable(v):
    """Paddle's TolerableValue: +-inf become +-1e20."""
    big = _typed(_APPRO_INF, v)
    return np.where(v == np.inf, big, np.where(v == -np.inf, -big, v))


class LabelOutOfRange(IndexError):
    """A hard label outside [0, classes) that is not ignore_index."""


def _check_labels(lbl, classes, ignore_index):
    bad = (lbl != ignore_index) & ((lbl < 0) | (lbl >= classes))
    if bad.any():
        v = int(lbl[bad].reshape(-1)[0])
        if v < 0:
            raise LabelOutOfRange(
                f"(OutOfRange) label value should >= 0 when label value({v}) not equal to "
                f"ignore_index({ignore_index})")
        raise LabelOutOfRange(
            f"(OutOfRange) label value should less than the shape of axis dimension when label "
            f"value({v}) not equal to ignore_index({ignore_index}), But received label value as "
            f"{v} and shape of axis dimension is {classes}")


def _hard_parts(p, label, axis, ignore_index):
    """Per position: the label index (ignored -> 0) and the mask of positions not ignored."""
    lbl = label.astype(np.int64)
    _check_labels(lbl, p.shape[axis], ignore_index)
    valid = lbl != ignore_index
    return np.where(valid, lbl, 0), valid


def cross_entropy_kernel(p, label, soft_label, ignore_index, axis):
    """-log(p[label]) (hard) or -sum(label * log(p)) (soft), the class axis kept as 1."""
    with np.errstate(**_err):
        if soft_label:
            return -seq_sum(label * _tolerable(log_c(p)), axis)
        idx, valid = _hard_parts(p, label, axis, ignore_index)
        picked = np.take_along_axis(p, idx, axis)
        return np.where(valid, -_tolerable(log_c(picked)), _typed(0, p))


def _ce_softmax_fwd(logits, label, soft_label=False, use_softmax=True, ignore_index=-100,
                    axis=-1):
    axis = axis % logits.ndim
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
    with np.errstate(**_err):
        if use_softmax:
            if soft_label:
                return dloss * (p - label)
            idx, valid = _hard_parts(p, label, axis, ignore_index)
            dx = p * dloss
            at = np.take_along_axis(dx, idx, axis) - dloss
            np.put_along_axis(dx, idx, at, axis)
            return np.where(valid, dx, _typed(0, p))
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
               examples=[([(2, 3)], {}), ([(4,)], {"threshold": 0.5})])


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
                    examples=[([(2, 3)], {"negative_slope": 0.1}), ([(4,)], {})])


def _hardtanh_fwd(x, t_min=-1.0, t_max=1.0):
    return np.minimum(np.maximum(x, _typed(t_min, x)), _typed(t_max, x))


def _hardtanh_vjp(n, g):
    x = n.inputs[0].data
    return multiply(g, _mask(g, (x > n.attrs.get("t_min", -1.0)) & (x < n.attrs.get("t_max", 1.0))))


HARDTANH = _unary("hardtanh", _hardtanh_fwd, _hardtanh_vjp, "HardtanhBackward", domain="away0",
                  examples=[([(2, 3)], {}), ([(4,)], {"t_min": -0.5, "t_max": 0.5})])


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
    with np.errstate(**_err):
        return np.where(x < 0, _typed(alpha, x) * (eigen_exp(x) - _typed(1, x)), x)


def _elu_grad_fwd(out, x, dout, alpha=1.0):
    with np.errstate(**_err):
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
    with np.errstate(**_err):
        return np.where(x > 0, s * x, s * (a * exp_c(x) - a))


def _selu_vjp(n, g):
    out = n.out()
    s = n.attrs.get("scale", _SELU_SCALE)
    a = n.attrs.get("alpha", _SELU_ALPHA)
    pos = _mask(g, out.data > 0)
    # dx = dout * (scale if out > 0 else out + scale*alpha)
    factor = add(multiply(scale(out, 1.0, s * a), _mask(g, out.data <= 0)), scale(pos, s))
    return multiply(g, factor)


SELU = _unary("selu", _selu_fwd, _selu_vjp, "SeluBackward", domain="away0")


def _silu_fwd(x):
    with np.errstate(**_err):
        return x * (_typed(1, x) / (_typed(1, x) + eigen_exp(-x)))


def _swish_fwd(x):
    with np.errstate(**_err):
        return x / (_typed(1, x) + eigen_exp(-x))


def _silu_grad_fwd(x, dout):
    with np.errstate(**_err):
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
    with np.errstate(**_err):
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


def _log_sigmoid_fwd(x):
    with np.errstate(**_err):
        t = np.maximum(-x, _typed(0, x))
        return -t - eigen_log(eigen_exp(-t) + eigen_exp(-x - t))


def _log_sigmoid_grad_fwd(x, dout):
    with np.errstate(**_err):
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
    with np.errstate(**_err):
        xb = x * _typed(beta, x)
        return np.where(xb > threshold, x, eigen_log(_typed(1, x) + eigen_exp(xb)) / _typed(beta, x))


def _softplus_grad_fwd(x, dout, beta=1.0, threshold=20.0):
    with np.errstate(**_err):
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


def _softsign_fwd(x):
    return x / (_typed(1, x) + np.abs(x))


def _softsign_vjp(n, g):
    x = n.inputs[0]
    d = add(const(x, 1.0), multiply(x, const(x, np.sign(x.data))))  # 1 + |x|
    return multiply(g, divide(const(x, 1.0), multiply(d, d)))


SOFTSIGN = _unary("softsign", _softsign_fwd, _softsign_vjp, "SoftsignBackward", domain="away0")


def _erf(x):
    """erf correctly rounded to x's dtype (Paddle's MKL VML erf is within an ulp of it)."""
    v = np.frompyfunc(_math.erf, 1, 1)(x.astype(np.float64))
    return np.asarray(v, np.float64).astype(x.dtype)


_SQRT1_2 = 0.70710678118654752440
_2_SQRTPI = 1.12837916709551257390
_GELU_C = 0.044715


def _gelu_fwd(x, approximate=False):
    h = _typed(0.5, x)
    one = _typed(1, x)
    with np.errstate(**_err):
        if approximate:
            inner = _typed(_2_SQRTPI * _SQRT1_2, x) * (x + _typed(_GELU_C, x) * x * x * x)
            t = np.tanh(inner.astype(np.float64)).astype(x.dtype)
            return x * h * (one + t)
        return ((_erf(x * _typed(_SQRT1_2, x)) + one) * x) * h


def _gelu_grad_fwd(x, dout, approximate=False):
    h = _typed(0.5, x)
    one = _typed(1, x)
    with np.errstate(**_err):
        if approximate:
            k = _typed(_2_SQRTPI * _SQRT1_2, x)
            c = _typed(_GELU_C, x)
            x2 = x * x
            inner = k * x * (one + c * x2)
            t = np.tanh(inner.astype(np.float64)).astype(x.dtype)
            temp = (one - t * t) * k * (one + _typed(3, x) * c * x2)
            return dout * (h * (one + t) + h * x * temp)
        first = h * (one + _erf(x * _typed(_SQRT1_2, x)))
        second = _typed(0.5 * _2_SQRTPI * _SQRT1_2, x) * x * exp_c(-h * x * x)
        return dout * (first + second)


def _gelu_grad_vjp(n, G):
    x, dout = n.inputs
    # gelu''(x) = pdf(x) * (2 - x^2) with pdf(x) = exp(-x^2/2) / sqrt(2 pi)
    pdf = scale(exp(scale(multiply(x, x), -0.5)), 1.0 / _math.sqrt(2.0 * _math.pi))
    second = multiply(pdf, scale(multiply(x, x), -1.0, 2.0))
    return multiply(G, multiply(dout, second)), gelu_grad(x, G, n.attrs.get("approximate", False))


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


class BceInputError(ValueError):
    """binary_cross_entropy input outside [0, 1]."""


def _bce_fwd(x, label):
    if (x < 0).any() or (x > 1).any() or np.isnan(x).any():
        raise BceInputError(
            "(InvalidArgument) Illegal input, input must be greater than  or equal to 0 and less "
            "than or equal to 1")
    one = _typed(1, x)
    low = _typed(-100, x)
    with np.errstate(**_err):
        return (label - one) * np.maximum(log_c(one - x), low) - label * np.maximum(log_c(x), low)


def _bce_grad_fwd(x, label, dout):
    with np.errstate(**_err):
        term = np.maximum((_typed(1, x) - x) * x, _typed(_BCE_EPS, x))
        return dout * (x - label) / term


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


BCE_LOSS = register("bce_loss", _bce_fwd, _bce_vjp, diff_inputs=(0,), broadcast=True,
                    legacy_name="BceLossBackward", domain="unit",
                    examples=[([(2, 3), np.array([[1.0, 0.0, 1.0], [0.0, 0.0, 1.0]])], {})])
BCE_GRAD = register("bce_loss_grad", _bce_grad_fwd, _bce_grad_vjp, diff_inputs=(0, 2),
                    broadcast=True, legacy_name="BceLossGradBackward", domain="unit",
                    examples=[([(2, 3), np.array([[1.0, 0.0, 1.0], [0.0, 0.0, 1.0]]), (2, 3)],
                               {})])


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
    with np.errstate(**_err):
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
    with np.errstate(**_err):
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
    diff = subtract(s, label) if pw is None else subtract(multiply(s, pw), label)
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
              ([(3,), np.array([1.0, 0.0, 1.0]), np.array([2.0, 1.0, 0.5])], {"kernel": "legacy"})],
    domain="away0")
SIGMOID_CE_GRAD = register(
    "sigmoid_cross_entropy_with_logits_grad",
    lambda x, label, dout, *pw, **a: _sce_grad_fwd(x, label, dout, pw[0] if pw else None, **a),
    _sce_grad_vjp, diff_inputs=(0, 2), broadcast=True,
    legacy_name="SigmoidCrossEntropyWithLogitsGradBackward", domain="away0",
    examples=[([(2, 3), np.array([[1.0, 0.0, 0.5], [0.0, 1.0, 1.0]]), (2, 3)],
               {"kernel": "legacy"})])


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
        v = int(lbl[bad].reshape(-1)[0])
        raise LabelOutOfRange(
            f"(OutOfRange) Label value is out of range. Expected label value in range of "
            f"[0, {classes}), but received value is {v}.")
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


def _nll_vjp(n, g):
    x, label, weight = n.inputs
    a = n.attrs
    idx, _p, w, valid = _nll_parts(x.data, label.data, weight.data, a.get("ignore_index", -100))
    red = a.get("reduction", "mean")
    if red == "mean":
        tw = np.zeros((), x.data.dtype)
        for wv in w.reshape(-1):
            tw = tw + wv
        w = w / tw if tw != 0 else w
    coef = np.zeros(x.data.shape, x.data.dtype)
    np.put_along_axis(coef, np.expand_dims(idx, 1), np.expand_dims(-w * valid, 1), 1)
    if red == "none":
        from .shape import reshape

        gi = reshape(g, (g.data.shape[0], 1) + g.data.shape[1:])
    else:
        from .shape import reshape

        gi = reshape(g, (1,) * x.data.ndim)
    return multiply(gi, const(g, coef)), None, None


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
    with np.errstate(**_err):
        if log_target:
            return eigen_exp(label) * (label - x)
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
def _dropout_fwd(x, mask, p=0.5, upscale=True, is_test=False):
    """Paddle's dropout kernel; ``mask`` (uint8) marks the kept values."""
    keep = _typed(1.0, x) - _typed(p, x)
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
    keep = _typed(1.0, g.data) - _typed(p, g.data)
    if a.get("is_test", False):
        return (g if upscale else multiply(g, const(g, keep))), None
    mask = const(g, n.inputs[1].data, g.data.dtype)
    if upscale:
        if p >= 1.0:
            return multiply(g, const(g, np.zeros(g.data.shape))), None
        return divide(multiply(g, mask), const(g, keep)), None
    return multiply(g, mask), None


DROPOUT = register("dropout", _dropout_fwd, _dropout_vjp, diff_inputs=(0,),
                   legacy_name="DropoutBackward",
                   examples=[([(2, 3), np.array([[1, 0, 1], [1, 1, 0]], np.uint8)], {"p": 0.5}),
                             ([(2, 3), np.array([[1, 0, 1], [1, 1, 0]], np.uint8)],
                              {"p": 0.25, "upscale": False})])


def dropout(x, mask, p=0.5, upscale=True, is_test=False):
    """``mask`` is a uint8 tensor of kept positions; ``upscale`` divides kept values by 1-p."""
    return apply(DROPOUT, (x, mask), {"p": float(p), "upscale": bool(upscale),
                                      "is_test": bool(is_test)})
