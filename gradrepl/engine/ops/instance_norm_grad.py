"""Paddle's ``instance_norm_grad`` as one op, so a create_graph backward through an instance norm
differentiates it as Paddle does: by its ``instance_norm_double_grad`` kernel.

``instance_norm_grad(x, scale, dy)`` gives (dx, dscale, dbias) with the values the first-order
backward always had (``paddle_breadth._instance_norm_vjp``'s formula: Eigen-ordered row means,
dscale/dbias the rows' two-accumulator sums added over the samples). Its VJP is the CPU double
grad kernel, for the incoming ``ddx`` (gradient of dx), ``ddscale`` and ``ddbias`` (None where
none came; the kernel tests each):

* per (sample, channel) column of ``sample_size`` (ss) values, xs = (x - mean) * inv, iv = inv,
  S(v) = the column's sum of v;
* dx = scale * (0 + xs*iv*iv/ss * (S(ddx)*S(dy)/ss - S(dy*ddx) + 3*S(dy*xs)*S(ddx*xs)/ss)
  + S(ddx*xs)/ss*iv*iv * (S(dy)/ss - dy) + S(dy*xs)/ss*iv*iv * (S(ddx)/ss - ddx)),
  then + ((dy*iv - S(dy)/ss*iv) - xs*iv*S(dy*xs)/ss) * ddscale;
* dscale[c] = the sum over samples, in order from 0, of S(iv * ((dy - S(dy)/ss) -
  xs*S(dy*xs)/ss) * ddx);
* ddy = 0 + scale*iv * ((ddx - S(ddx)/ss) - xs*S(ddx*xs)/ss), + xs*ddscale + ddbias only when
  both came;

each operation left to right in the dtype, per element (the kernel's Eigen Array expressions
are not vectorised across columns). S is Eigen's vectorised redux of one column
(``_column_sums``). The VJP is marked ``exact_first_order``: with grad mode on it records the
same formulas with Tensor ops (a third order differentiates those), and the engine gives the
recorded gradients the kernel's values. No bias input: Paddle's double-grad node has none, so a
bias takes no gradient from a second backward (None, as real Paddle), where the Tensor-op
first-order formula linked it a zero.

Measured against real Paddle 3.3.1 and 2.6.2 here (tests/test_paddle_instance_norm_double_grad.py):
a WGAN-GP critic (conv, InstanceNorm2D, LeakyReLU) whose gradient penalty's parameter gradients
differed in the last bits before.
"""
from __future__ import annotations

import numpy as np

from .. import grad_mode
from ..registry import apply, exact_first_order, needs_grad, register
from ._util import const, quiet


def _column_sums(a, direct):
    """The sum of each row of ``a`` (rows, n) as Eigen's ``colwise().sum()`` reduces a column
    (``conv._eigen_redux_sums``, batch_norm's): a Map's column (``direct``) starts at its offset
    in the buffer, an expression's at 0. Returned as a column (rows, 1)."""
    from .conv import _eigen_redux_sums

    rows, n = a.shape
    offsets = np.arange(rows) * n if direct else np.zeros(rows, np.int64)
    return _eigen_redux_sums(a, offsets).reshape(-1, 1)


def _rows(x):
    n, c = x.shape[:2]
    return np.ascontiguousarray(x).reshape(n * c, -1)


def _stats(x2, epsilon):
    """mean, x - mean and inv = 1 / sqrt(mean((x - mean)^2) + eps) per row, as the first-order
    formula computes them (its Tensor ops' kernels)."""
    from .math import SQRT
    from .paddle_breadth import _row_mean_fwd

    t = x2.dtype.type
    mean = _row_mean_fwd(x2)
    d = x2 - mean
    inv = t(1) / SQRT.forward(_row_mean_fwd(d * d) + t(np.float32(epsilon)))
    return d, inv


def _grad_fwd(x, scale, dy, epsilon=1e-5):
    from .paddle_breadth import _row_mean_fwd, eigen_row_sums_two
    from .reduce import _sum_fwd

    n, c = x.shape[:2]
    with quiet(all="ignore"):
        x2, g2 = _rows(x), _rows(dy)
        d, inv = _stats(x2, epsilon)
        tmp = d * inv
        s = np.broadcast_to(scale.reshape(1, c), (n, c)).reshape(-1, 1)
        inner = (g2 - _row_mean_fwd(g2)) - tmp * _row_mean_fwd(g2 * tmp)
        dx = ((s * inv) * inner).reshape(x.shape)
        dscale = _sum_fwd(eigen_row_sums_two(tmp * g2).reshape(n, c), (0,))
        dbias = _sum_fwd(eigen_row_sums_two(g2).reshape(n, c), (0,))
    return dx, dscale.astype(x.dtype, copy=False), dbias.astype(x.dtype, copy=False)


def _double_grad_kernel(x, scale, dy, ddx, ddscale, ddbias, epsilon, want):
    """Paddle's CPU InstanceNormDoubleGradKernel on arrays (see the module's docstring): the
    gradients for (x, scale, dy) that ``want`` asks for."""
    n, c = x.shape[:2]
    t = x.dtype.type
    ss = t(x.size // (n * c))
    three = t(3)
    with quiet(all="ignore"):
        x2, dy2 = _rows(x), _rows(dy)
        d, iv = _stats(x2, epsilon)
        xs = d * iv
        s_tile = np.broadcast_to(scale.reshape(1, c), (n, c)).reshape(-1, 1)
        S_dy = _column_sums(dy2, True)
        S_dyxs = _column_sums(dy2 * xs, False)
        dd2 = None if ddx is None else _rows(ddx)
        if dd2 is not None:
            S_dd = _column_sums(dd2, True)
            S_ddxs = _column_sums(dd2 * xs, False)
        dsc = None if ddscale is None else \
            np.broadcast_to(ddscale.reshape(1, c), (n, c)).reshape(-1, 1)
        g_x = g_s = g_dy = None
        if want[0]:
            g_x = np.zeros_like(x2)
            if dd2 is not None:
                S_dydd = _column_sums(dy2 * dd2, False)
                g_x = g_x + (xs * iv * iv / ss) * (((S_dd * S_dy) / ss - S_dydd)
                                                   + ((three * S_dyxs) * S_ddxs) / ss)
                g_x = g_x + (S_ddxs / ss * iv * iv) * (S_dy / ss - dy2)
                g_x = g_x + (S_dyxs / ss * iv * iv) * (S_dd / ss - dd2)
                g_x = s_tile * g_x
            if dsc is not None:
                g_x = g_x + (((dy2 * iv) - ((S_dy / ss) * iv)) - ((xs * iv) * S_dyxs) / ss) * dsc
            g_x = g_x.reshape(x.shape)
        if want[1]:
            g_s = np.zeros(c, x.dtype)
            if dd2 is not None:
                first = t(0) + iv * ((dy2 - S_dy / ss) - (xs * S_dyxs) / ss)
                sums = _column_sums(first * dd2, True).reshape(n, c)
                for k in range(n):
                    g_s = g_s + sums[k]
        if want[2]:
            g_dy = np.zeros_like(x2)
            if dd2 is not None:
                g_dy = g_dy + (s_tile * iv) * ((dd2 - S_dd / ss) - (xs * S_ddxs) / ss)
            if dsc is not None and ddbias is not None:
                dbc = np.broadcast_to(ddbias.reshape(1, c), (n, c)).reshape(-1, 1)
                g_dy = g_dy + xs * dsc
                g_dy = g_dy + dbc
            g_dy = g_dy.reshape(x.shape)
    return g_x, g_s, g_dy


def _double_grad_tensors(n, ddx, ddscale, ddbias):
    """The same formulas with Tensor ops (recorded under create_graph; the engine replaces
    their values by the kernel's)."""
    from .math import add, divide, multiply, sqrt, subtract
    from .reduce import mean as rmean, sum as rsum
    from .shape import reshape
    from .broadcast import broadcast_to

    x, scale, dy = n.inputs
    shape = list(x.data.shape)
    N, C = shape[:2]
    eps = float(np.float32(n.attrs.get("epsilon", 1e-5)))
    x2, dy2 = reshape(x, [N * C, -1]), reshape(dy, [N * C, -1])
    d = subtract(x2, rmean(x2, (1,), keepdim=True))
    iv = divide(const(x, 1), sqrt(add(rmean(multiply(d, d), (1,), keepdim=True), const(x, eps))))
    xs = multiply(d, iv)
    iv2 = multiply(iv, iv)

    def rows_of(v):
        return reshape(broadcast_to(reshape(v, [1, C]), [N, C]), [N * C, 1])

    def m(v):
        return rmean(v, (1,), keepdim=True)

    s_tile = rows_of(scale)
    m_dy, m_dyxs = m(dy2), m(multiply(dy2, xs))
    dd2 = None if ddx is None else reshape(ddx, [N * C, -1])
    g_x = g_s = g_dy = None
    if dd2 is not None:
        m_dd, m_ddxs = m(dd2), m(multiply(dd2, xs))
    if needs_grad(n, 0):
        parts = []
        if dd2 is not None:
            # d/dx of <ddx, dx(x)>, dx = scale * iv * (dy - m(dy) - xs * m(dy * xs))
            k = subtract(add(multiply(m_dd, m_dy), multiply(const(x, 3.0), multiply(m_dyxs, m_ddxs))),
                         m(multiply(dy2, dd2)))
            a = multiply(multiply(xs, iv2), k)
            b = multiply(multiply(m_ddxs, iv2), subtract(m_dy, dy2))
            cc = multiply(multiply(m_dyxs, iv2), subtract(m_dd, dd2))
            parts.append(multiply(s_tile, add(add(a, b), cc)))
        if ddscale is not None:
            parts.append(multiply(subtract(multiply(subtract(dy2, m_dy), iv),
                                           multiply(multiply(xs, iv), m_dyxs)), rows_of(ddscale)))
        if parts:
            g_x = parts[0] if len(parts) == 1 else add(parts[0], parts[1])
            g_x = reshape(g_x, shape)
    if needs_grad(n, 1) and dd2 is not None:
        first = multiply(multiply(iv, subtract(subtract(dy2, m_dy), multiply(xs, m_dyxs))), dd2)
        g_s = rsum(reshape(rsum(first, (1,)), [N, C]), (0,))
    if needs_grad(n, 2):
        parts = []
        if dd2 is not None:
            parts.append(multiply(multiply(s_tile, iv),
                                  subtract(subtract(dd2, m_dd), multiply(xs, m_ddxs))))
        if ddscale is not None and ddbias is not None:
            parts.append(add(multiply(xs, rows_of(ddscale)), rows_of(ddbias)))
        if parts:
            g_dy = reshape(parts[0] if len(parts) == 1 else add(parts[0], parts[1]), shape)
    return g_x, g_s, g_dy


@exact_first_order
def _grad_vjp(n, ddx, ddscale, ddbias):
    if grad_mode.STATE.enabled:
        return _double_grad_tensors(n, ddx, ddscale, ddbias)
    x, scale, dy = n.inputs
    want = tuple(needs_grad(n, i) for i in range(3))
    arrs = _double_grad_kernel(
        x.data, scale.data, dy.data, None if ddx is None else ddx.data,
        None if ddscale is None else ddscale.data, None if ddbias is None else ddbias.data,
        n.attrs.get("epsilon", 1e-5), want)
    cls = x._result_type
    return tuple(None if a is None else cls._wrap(a, True) for a in arrs)


INSTANCE_NORM_GRAD = register(
    "instance_norm_grad", _grad_fwd, _grad_vjp, n_outputs=3,
    legacy_name="InstanceNormGradBackward", domain="distinct",
    examples=[([(2, 3, 5), (3,), (2, 3, 5)], {}),
              ([(1, 2, 3, 3), (2,), (1, 2, 3, 3)], {"epsilon": 1e-3})])
INSTANCE_NORM_GRAD.undefined_grads = True   # a gradient that did not come stays None (kernel)


def instance_norm_grad(x, scale, dy, epsilon=1e-5):
    """(dx, dscale, dbias) of Paddle's instance_norm_grad kernel, differentiable again by its
    double-grad kernel."""
    return apply(INSTANCE_NORM_GRAD, (x, scale, dy), {"epsilon": float(epsilon)})


__all__ = ["instance_norm_grad"]
