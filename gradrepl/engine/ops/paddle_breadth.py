"""Ops for the Paddle names added for issue 28's breadth (``paddle/nn/breadth.py``).

* ``eigen_row_mean`` / ``eigen_row_sum``: the mean / sum of each row of a 2-D array in the order
  Paddle's Eigen reductions add (the CPU wheel's Eigen packets hold 32 bytes: 8 float32 or 4
  float64 lanes). Each lane adds its column of every full packet in turn; the columns left over
  are added one by one into a scalar; the lanes are folded pairwise (half onto half until two
  remain, which are added: for 8 lanes ((l0+l4)+(l2+l6)) + ((l1+l5)+(l3+l7))) and added to the
  scalar; the mean divides by the row length. Measured against real Paddle 3.3.1's
  instance_norm on rows of 1..10,000 values: every bit equal (a 4-accumulator or 16-lane order
  is not).
* ``instance_norm(x, scale, bias)``: Paddle's CPU instance_norm kernel. Per (sample, channel)
  row: mean, var = mean((x - mean)^2) + eps, inv = 1 / sqrt(var) (two roundings), y = (x - mean)
  * inv * scale + bias. Its VJP is Paddle's grad kernel, one op (``instance_norm_grad``):
  tmp = (x - mean) * inv, dx = scale * inv * ((dy - mean(dy)) - tmp * mean(dy * tmp)), dscale =
  the rows' sums of tmp * dy added over the samples, dbias the same of dy; its own VJP is
  Paddle's double-grad kernel.
"""
from __future__ import annotations

import numpy as np

from ..registry import apply, needs_grad, register
from ._util import const, quiet

_PACKET_BYTES = 32


def _fold(acc):
    """Eigen's predux of packets (one per row): halves added until two lanes remain."""
    while acc.shape[1] > 2:
        h = acc.shape[1] // 2
        acc = acc[:, :h] + acc[:, h:]
    return acc[:, 0] + acc[:, 1]


def eigen_row_sums(x):
    """The sum of each row of 2-D x in Eigen's packet order (see the module's docstring)."""
    x = np.ascontiguousarray(x)
    rows, n = x.shape
    lanes = max(2, _PACKET_BYTES // x.dtype.itemsize)
    full = (n // lanes) * lanes
    scalar = np.zeros(rows, x.dtype)
    with quiet(all="ignore"):
        for j in range(full, n):
            scalar = scalar + x[:, j]
        if not full:
            return scalar
        acc = np.zeros((rows, lanes), x.dtype)
        for j in range(0, full, lanes):
            acc = acc + x[:, j:j + lanes]
        return scalar + _fold(acc)


def eigen_row_sums_two(x):
    """The sum of each row of 2-D x as Eigen's Tensor SumReducer adds it (reduce._packet_reduce:
    two packet accumulators, even and odd packets, the tail one by one and added last), where
    the mean's reducer keeps one (``eigen_row_sums``): Paddle's instance_norm_grad sums dy and
    dy * x_hat per row so (measured: scale/bias gradients of [3, 12, 5, 5] equal to real 3.3.1
    only so)."""
    from .reduce import _LEAF, _packet_reduce, _predux

    x = np.ascontiguousarray(x)
    rows, n = x.shape
    p = max(2, _PACKET_BYTES // x.dtype.itemsize)
    if n > p * _LEAF:
        return np.array([_packet_reduce(r, np.add, True) for r in x], x.dtype)
    full = (n // p) * p
    zero = x.dtype.type(0)
    with quiet(all="ignore"):
        tail = np.zeros(rows, x.dtype)
        for j in range(full, n):
            tail = tail + x[:, j]
        k = full // p
        if not k:
            return tail
        packets = x[:, :full].reshape(rows, k, p).transpose(1, 0, 2)     # k, rows, p
        if k > 1:
            pairs = k - k % 2
            acc = zero + np.add.reduce(packets[0:pairs:2], axis=0)
            if k % 2:
                acc = acc + packets[k - 1]
            acc = acc + (zero + np.add.reduce(packets[1:pairs:2], axis=0))
        else:
            acc = zero + packets[0]
        return tail + _predux(acc.T, np.add)


def _row_sum_fwd(x, two=False):
    return (eigen_row_sums_two(x) if two else eigen_row_sums(x)).reshape(-1, 1)


def _row_mean_fwd(x):
    with quiet(all="ignore"):
        return (eigen_row_sums(x) / x.dtype.type(x.shape[1])).reshape(-1, 1)


def _row_sum_vjp(n, g):
    from .broadcast import broadcast_to

    return broadcast_to(g, list(n.in_meta[0][0]))


def _row_mean_vjp(n, g):
    from .broadcast import broadcast_to
    from .math import divide

    shape = list(n.in_meta[0][0])
    return divide(broadcast_to(g, shape), const(g, shape[1]))


EIGEN_ROW_SUM = register("eigen_row_sum", _row_sum_fwd, _row_sum_vjp, saves_inputs=False,
                         legacy_name="EigenRowSumBackward",
                         examples=[([(3, 21)], {}), ([(2, 5)], {})])
EIGEN_ROW_MEAN = register("eigen_row_mean", _row_mean_fwd, _row_mean_vjp, saves_inputs=False,
                          legacy_name="EigenRowMeanBackward",
                          examples=[([(3, 21)], {}), ([(2, 5)], {})])


def eigen_row_sum(x, two=False):
    """Row sums in Eigen's order: the mean reducer's one accumulator, or (``two``) the sum
    reducer's two."""
    return apply(EIGEN_ROW_SUM, (x,), {"two": True} if two else None)


def eigen_row_mean(x):
    return apply(EIGEN_ROW_MEAN, (x,))


# ======================================================================= instance_norm
def _rows(x):
    n, c = x.shape[:2]
    return np.ascontiguousarray(x).reshape(n * c, -1)


def _stats(x2, eps):
    t = x2.dtype.type
    mean = _row_mean_fwd(x2)
    d = x2 - mean
    var = _row_mean_fwd(d * d) + t(np.float32(eps))  # static_cast<T>(float epsilon)
    # the sqrt an Eigen expression over the N*C variances: the packet sqrt on each run of 8, as
    # batch_norm's (conv._eigen_sqrt); np.sqrt differed in rows of the first 8 (F.instance_norm
    # of [1, 12, 4, 4] against real 3.3.1: rows 0, 2, 6, 7; one row or two were equal)
    from . import _kernels as K

    return d, t(1) / K.sqrt(np.ascontiguousarray(var).reshape(-1)).reshape(var.shape)


def _instance_norm_fwd(x, scale, bias, epsilon=1e-5):
    n, c = x.shape[:2]
    with quiet(all="ignore"):
        d, inv = _stats(_rows(x), epsilon)
        s = np.broadcast_to(scale.reshape(1, c), (n, c)).reshape(-1, 1)
        b = np.broadcast_to(bias.reshape(1, c), (n, c)).reshape(-1, 1)
        return (d * inv * s + b).reshape(x.shape)


def _instance_norm_vjp(n, g):
    """Paddle's instance_norm_grad kernel as one op (``instance_norm_grad``: its values, and a
    second backward by Paddle's double-grad kernel)."""
    from .instance_norm_grad import instance_norm_grad

    x, scale, _bias = n.inputs
    grads = instance_norm_grad(x, scale, g, n.attrs.get("epsilon", 1e-5))
    # the kernel computes d_scale and d_bias only when both are asked for (``if (d_scale &&
    # d_bias)``): a frozen bias leaves the scale without a gradient (real 3.3.1 and 2.6.2)
    both = needs_grad(n, 1) and needs_grad(n, 2)
    return grads[0] if needs_grad(n, 0) else None, *(grads[1:] if both else (None, None))


INSTANCE_NORM = register(
    "instance_norm", _instance_norm_fwd, _instance_norm_vjp, legacy_name="InstanceNormBackward",
    double_grad_zeros=False,  # (the grad op's node links x, scale and dy; the bias takes none)
    examples=[([(2, 3, 5), (3,), (3,)], {}), ([(1, 2, 3, 3), (2,), (2,)], {"epsilon": 1e-3})])


def instance_norm(x, scale, bias, epsilon=1e-5):
    """x normalised per (sample, channel) as Paddle's CPU kernel; scale and bias: [C] Tensors
    (constants of ones and zeros where the layer has none)."""
    return apply(INSTANCE_NORM, (x, scale, bias), {"epsilon": float(epsilon)})


# ------------------------------------------------------------------------------ kron
def _kron_shapes(xs, ys):
    nd = max(len(xs), len(ys))
    return (1,) * (nd - len(xs)) + tuple(xs), (1,) * (nd - len(ys)) + tuple(ys)


def _kron_fwd(x, y):
    """Paddle's kron kernel: out[i*ys + k] = x[i] * y[k] per dimension, one product each
    (complex: the C++ product, see ``math._multiply_fwd``)."""
    from .math import _multiply_fwd

    xs, ys = _kron_shapes(x.shape, y.shape)
    a = x.reshape(tuple(v for s in xs for v in (s, 1)))
    b = y.reshape(tuple(v for s in ys for v in (1, s)))
    return _multiply_fwd(a, b).reshape(tuple(p * q for p, q in zip(xs, ys)))


def _kron_vjp(n, g):
    """Paddle's kron_grad: one loop over dout in its order, ``dx[i] += dout * conj(y[k])`` and
    ``dy[k] += dout * conj(x[i])`` from zero, so each gradient adds its terms in the other
    operand's flat order (real 3.3.1 and 2.6.2: float32, complex64, complex128, 1-D to 3-D all
    equal; numpy's reduction of the broadcast product summed otherwise). Written with Tensor
    ops (the terms, then a running sum along the first axis) so it differentiates again."""
    from .complex import conj
    from .math import add, multiply
    from .reduce import cumsum
    from .shape import reshape, transpose
    from .index import slice_

    x, y = n.inputs
    xs, ys = _kron_shapes(n.in_meta[0][0], n.in_meta[1][0])
    nd = len(xs)
    p = reshape(g, tuple(v for pair in zip(xs, ys) for v in pair))
    iax, kax = list(range(0, 2 * nd, 2)), list(range(1, 2 * nd, 2))

    def total(front, other, shape, out_shape):
        terms = reshape(transpose(p, front), (-1,) + shape)
        o = conj(other) if other.data.dtype.kind == "c" else other
        terms = multiply(terms, reshape(o, (-1,) + (1,) * nd))
        last = slice_(cumsum(terms, 0), (-1,))
        last = add(last, const(last, np.zeros((), last.data.dtype)))  # (from zero: -0 is +0)
        return reshape(last, out_shape)

    dx = total(kax + iax, y, xs, n.in_meta[0][0]) if needs_grad(n, 0) else None
    dy = total(iax + kax, x, ys, n.in_meta[1][0]) if needs_grad(n, 1) else None
    return dx, dy


KRON = register("kron", _kron_fwd, _kron_vjp, legacy_name="KronBackward",
                examples=[([(2, 3), (3, 2)], {}), ([(4,), (2, 3)], {}),
                          ([(2, 1, 2), (3, 2)], {})])


def kron(x, y):
    return apply(KRON, (x, y))
