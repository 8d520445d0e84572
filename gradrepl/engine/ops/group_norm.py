"""Group normalisation as Paddle's CPU kernels compute it, bit for bit.

Two registry ops:

* ``group_norm(x, scale, bias)``: the forward kernel. Per sample and group, the channels are
  taken one after the other; in each, eight running lanes sum the values and their squares over
  the leading multiple of 8 positions, the lanes are added onto the group's running totals in
  order, then the remaining positions one by one. mean = sum / count, var = max(sumsq / count -
  mean^2, 0), y = (x - mean) * inv (* scale) (+ bias), each step rounded in the dtype.
* ``group_norm_grad(x, scale, bias, dy)``: the backward kernel. It reads the forward output
  (x_hat = (y - bias) / scale, undivided where a scale is 0; y is recomputed from x here, the
  same bits as the forward's, so the op is a function of its inputs alone) and the group's
  variance, sums
  dp_scale = sum((y - bias) * dy) and dp_bias = sum(dy * scale) over the group in order, and
  gives dx = (dy * scale - n_inv * dp_scale * x_hat - n_inv * dp_bias) * inv; dscale and dbias
  are running sums over (sample, position) per channel.

Attributes: ``has_scale`` / ``has_bias`` (a missing scale or bias is a null pointer in Paddle:
without a scale dp_bias stays 0, so dx lacks the mean(dy) term, as real Paddle gives) and
``eps_double`` (Paddle 3 takes epsilon as a double: inv = 1 / sqrt(double(var) + eps) rounded
once; Paddle 2.6 adds a float epsilon in the dtype and divides in double). The constant scale
and bias passed for a missing one are never read.

The grad op's own VJP is written with Tensor ops (derived below), so gradients of gradients
work in the engine even though Paddle itself refuses them for group_norm_grad.
"""
from __future__ import annotations

import numpy as np

from ..registry import apply, needs_grad as _needs, register
from .reduce import _seq

_LANES = 8


def _rows(x, groups):
    """x (N, C, ...) as (N * groups, C // groups, positions)."""
    n, c = x.shape[:2]
    return np.ascontiguousarray(x).reshape(n * groups, c // groups, -1)


def _in_order(terms):
    """Per column of ``terms`` (K, R): 0 + t0 + t1 + ... in order (the kernel's scalar sums)."""
    return _seq(np.concatenate([np.zeros((1,) + terms.shape[1:], terms.dtype), terms]), np.add)


def _moments(xl):
    """The kernel's mean and variance of each row of ``xl`` (R, channels, positions)."""
    r, number, imsize = xl.shape
    dt = xl.dtype
    total = np.zeros(r, dt)
    total_sq = np.zeros(r, dt)
    body = imsize - imsize % _LANES
    zero = np.zeros((1, r, _LANES), dt)
    for cid in range(number):
        ch = xl[:, cid]
        if body:
            blocks = ch[:, :body].reshape(r, -1, _LANES).transpose(1, 0, 2)  # k, R, 8
            lanes = _seq(np.concatenate([zero, blocks]), np.add)
            lanes_sq = _seq(np.concatenate([zero, blocks * blocks]), np.add)
            for k in range(_LANES):
                total = total + lanes[:, k]
            for k in range(_LANES):
                total_sq = total_sq + lanes_sq[:, k]
        for i in range(body, imsize):
            e = ch[:, i]
            total = total + e
            total_sq = total_sq + e * e
    count = dt.type(number * imsize)
    mean = total / count
    var = np.maximum(total_sq / count - mean * mean, dt.type(0))
    return mean, var


def _inv_std(var, epsilon, eps_double, forward):
    """1 / sqrt(var + eps) as each kernel rounds it."""
    dt = var.dtype
    if eps_double:
        return (1.0 / np.sqrt(var.astype(np.float64) + float(epsilon))).astype(dt)
    s = np.sqrt(var + dt.type(np.float32(epsilon)))
    if forward:
        return dt.type(1) / s
    return (1.0 / s.astype(np.float64)).astype(dt)


def _channel(v, ndim):
    return v.reshape((1, -1) + (1,) * (ndim - 2))


def _group_norm_fwd(x, scale, bias, epsilon=1e-5, groups=1, has_scale=True, has_bias=True,
                    eps_double=False):
    if x.size == 0:
        return x.copy()
    return _forward(x, scale, bias, epsilon, groups, has_scale, has_bias, eps_double)[0]


def _forward(x, scale, bias, epsilon, groups, has_scale, has_bias, eps_double):
    """(y, the groups' variances)."""
    xl = _rows(x, groups)
    mean, var = _moments(xl)
    inv = _inv_std(var, epsilon, eps_double, True)
    y = ((xl - mean[:, None, None]) * inv[:, None, None]).reshape(x.shape)
    if has_scale:
        y = y * _channel(scale.astype(x.dtype, copy=False), x.ndim)
    if has_bias:
        y = y + _channel(bias.astype(x.dtype, copy=False), x.ndim)
    return y, var


def _group_norm_vjp(n, g):
    x, scale_t, bias_t = n.inputs
    return group_norm_grad(x, scale_t, bias_t, g, n.attrs)


def _group_norm_grad_fwd(x, scale, bias, dy, epsilon=1e-5, groups=1, has_scale=True,
                         has_bias=True, eps_double=False):
    dt = x.dtype
    shape = x.shape
    nb, c = shape[:2]
    number = c // groups
    if x.size == 0:
        return np.zeros_like(x), np.zeros(c, dt), np.zeros(c, dt)
    y, var = _forward(x, scale, bias, epsilon, groups, has_scale, has_bias, eps_double)
    yl = np.ascontiguousarray(y).reshape(nb, c, -1)
    dl = np.ascontiguousarray(dy, dtype=dt).reshape(nb, c, -1)
    imsize = yl.shape[2]
    s = scale.astype(dt, copy=False).reshape(1, c, 1)
    val = yl - bias.astype(dt, copy=False).reshape(1, c, 1) if has_bias else yl
    by_row = (nb * groups, -1)
    dp_scale = _in_order((val * dl).reshape(by_row).T)
    if has_scale:
        dp_bias = _in_order((dl * s).reshape(by_row).T)
        nonzero = s != 0
        xhat = np.where(nonzero, val / np.where(nonzero, s, dt.type(1)), val)
        v_scale = s
    else:
        dp_bias = np.zeros(nb * groups, dt)
        xhat = val
        v_scale = np.ones((1, c, 1), dt)
    per_channel = (-1, c)                              # (sample, position) rows, in order
    dscale = _in_order((xhat * dl).transpose(0, 2, 1).reshape(per_channel)) if has_scale \
        else np.zeros(c, dt)
    dbias = _in_order(dl.transpose(0, 2, 1).reshape(per_channel)) if has_bias \
        else np.zeros(c, dt)
    inv = _inv_std(var, epsilon, eps_double, False)
    n_inv = dt.type(1.0 / (number * imsize))
    grp = (nb, groups, number, imsize)
    col = (nb, groups, 1, 1)
    first = (dl * v_scale).reshape(grp)
    second = (n_inv * dp_scale).reshape(col) * xhat.reshape(grp)
    dx = ((first - second) - n_inv * dp_bias.reshape(col)) * inv.reshape(col)
    return dx.reshape(shape), dscale, dbias


def _group_norm_grad_vjp(n, A, B, C):
    """VJP of (x, s, g) -> (dx, ds, db), the group's x_hat and inv as functions of x.

    Per group (n elements, u = g * s, P(w) = w - [mean(w)] - x_hat * mean(w * x_hat), the
    bracket only with a scale): dx = inv * P(u), ds = sum g * x_hat, db = sum g. P is
    symmetric, so d<A, dx>/du = inv * P(A). For x: with Sa = <A, x_hat>, Su = mean(u * x_hat),
    L = inv * (<A, u> - [sum(A) mean(u)] - Sa Su) + <B g, x_hat>; its partial derivative in
    x_hat is Gx = B g - inv (A Su + Sa u / n) and in inv is T = L_A / inv; then
    dL/dx = inv * P_full(Gx) - T * inv^2 * x_hat / n (P_full: the normalisation's own
    projection, mean term always)."""
    from .math import add, multiply, rsqrt, scale as affine, subtract
    from .reduce import mean as rmean, sum as rsum
    from .shape import reshape

    x, scale_t, bias_t, g = n.inputs
    a = n.attrs
    groups = a.get("groups", 1)
    has_scale = a.get("has_scale", True)
    shape = x.data.shape
    nb, c = shape[:2]
    ndim = len(shape)
    rshape = (nb, groups, int(np.prod(shape[1:])) // groups)
    cshape = (1, c) + (1,) * (ndim - 2)
    count = rshape[2]
    pos_axes = (0,) + tuple(range(2, ndim))

    xr = reshape(x, rshape)
    mu = rmean(xr, (2,), keepdim=True)
    xc = subtract(xr, mu)
    inv = rsqrt(affine(rmean(multiply(xc, xc), (2,), keepdim=True), 1.0, float(a.get("epsilon", 1e-5))))
    xhat = multiply(xc, inv)
    s_full = reshape(scale_t, cshape) if has_scale else None
    u = reshape(multiply(g, s_full), rshape) if has_scale else reshape(g, rshape)

    def proj(w, with_mean):
        out = subtract(w, multiply(xhat, rmean(multiply(w, xhat), (2,), keepdim=True)))
        return subtract(out, rmean(w, (2,), keepdim=True)) if with_mean else out

    d_x = d_s = d_g = None
    Ar = reshape(A, rshape)
    pa = multiply(inv, proj(Ar, has_scale))                    # inv * P(A)
    if _needs(n, 3) or _needs(n, 1):
        pa_full = reshape(pa, shape)
        if _needs(n, 3):
            d_g = multiply(pa_full, s_full) if has_scale else pa_full
            xhat_full = reshape(xhat, shape)
            if has_scale:
                d_g = add(d_g, multiply(reshape(B, cshape), xhat_full))
            if a.get("has_bias", True):
                d_g = add(d_g, reshape(C, cshape))
        if _needs(n, 1) and has_scale:
            d_s = reshape(rsum(multiply(pa_full, g), pos_axes), (c,))
    if _needs(n, 0):
        sa = rsum(multiply(Ar, xhat), (2,), keepdim=True)
        su = rmean(multiply(u, xhat), (2,), keepdim=True)
        t = subtract(rsum(multiply(Ar, u), (2,), keepdim=True), multiply(sa, su))
        if has_scale:
            t = subtract(t, multiply(rsum(Ar, (2,), keepdim=True), rmean(u, (2,), keepdim=True)))
        gx = affine(multiply(inv, add(multiply(Ar, su), affine(multiply(sa, u), 1.0 / count))),
                    -1.0)
        if has_scale:
            gx = add(gx, reshape(multiply(reshape(B, cshape), g), rshape))
        d_x = subtract(multiply(inv, proj(gx, True)),
                       affine(multiply(multiply(t, multiply(inv, inv)), xhat), 1.0 / count))
        d_x = reshape(d_x, shape)
    return d_x, d_s, None, d_g


_EXAMPLES = [([(2, 4, 3), (4,), (4,)], {"groups": 2}),
             ([(1, 4, 2, 2), (4,), (4,)], {"groups": 4, "epsilon": 0.01}),
             ([(2, 2, 9), (2,), (2,)], {"groups": 1, "eps_double": True})]
# Without a scale Paddle's dx is not the derivative of y (the mean(dy) term is missing), so that
# case is checked only as the grad op's own function (its VJP is exact for it).
_NO_SCALE = ([(2, 4, 3), (4,), (4,)], {"groups": 2, "has_scale": False, "has_bias": False})

GROUP_NORM = register(
    "group_norm", _group_norm_fwd, _group_norm_vjp, legacy_name="GroupNormBackward",
    saves_output=False, domain="distinct", examples=_EXAMPLES)

GROUP_NORM_GRAD = register(
    "group_norm_grad", _group_norm_grad_fwd, _group_norm_grad_vjp, n_outputs=3,
    diff_inputs=(0, 1, 3), legacy_name="GroupNormGradBackward",
    domain="distinct", examples=[([x, s, b, x], at) for (x, s, b), at in _EXAMPLES + [_NO_SCALE]])


def group_norm(x, scale, bias, epsilon=1e-5, groups=1, has_scale=True, has_bias=True,
               eps_double=False):
    """Normalise (N, C, ...) over groups of ``groups`` channels; ``scale``/``bias`` (C,) are
    used when ``has_scale``/``has_bias``."""
    return apply(GROUP_NORM, (x, scale, bias),
                 {"epsilon": float(epsilon), "groups": int(groups), "has_scale": bool(has_scale),
                  "has_bias": bool(has_bias), "eps_double": bool(eps_double)})


def group_norm_grad(x, scale, bias, dy, attrs):
    """(dx, dscale, dbias) of Paddle's group_norm_grad kernel; dscale/dbias only where the
    forward had a scale/bias (None otherwise)."""
    dx, ds, db = apply(GROUP_NORM_GRAD, (x, scale, bias, dy), attrs)
    return (dx, ds if attrs.get("has_scale", True) else None,
            db if attrs.get("has_bias", True) else None)


__all__ = ["group_norm", "group_norm_grad"]
