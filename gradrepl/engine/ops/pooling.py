"""What 2-D and 3-D pooling share: one axis's windows, the first-maximum rule, the values of
the three ops (``pool``, ``pool_grad``, ``pool_double_grad``) over any window geometry, and
their registration as a family.

A geometry (``conv._Pool`` for NCHW, ``pool3d._PoolND`` for NCDHW) knows its windows: it yields
the kernel offsets in row-major order (``offsets()``: ``(k, offs)``), pads the input
(``prepare``), views the values at one offset of every window (``slab``), adds into a padded
gradient (``scatter_add``) and crops it. On that, every op is a loop over the kernel offsets,
never over pixels:

* average: the window's values added one after the other, divided by the window's size (inside
  the input when ``exclusive`` or adaptive, padding included otherwise), as Paddle's pool
  functors; its gradient spreads ``dy / size`` back window after window;
* max: the first strict maximum of the window (a NaN never wins), and its gradient goes there;
* the double gradient is the adjoint of the gradient in ``dy``: the average pool of ``ddx``
  over the same windows, or ``ddx`` picked at each window's maximum of ``x``.
"""
from __future__ import annotations

import numpy as np

from ..registry import apply, register

#: ``ceil_mode`` value for torch's rule: rounding up, but the last window must start inside
#: the input or its left padding (ATen's pooling_output_shape); True is Paddle's plain ceiling
CEIL_IN_INPUT = "in_input"


def pool_out_size(n, k, s, p0, p1, ceil_mode):
    span = n + p0 + p1 - k
    out = (-(-span // s) if ceil_mode else span // s) + 1
    if ceil_mode == CEIL_IN_INPUT and (out - 1) * s >= n + p0:
        out -= 1
    return out


def _axis_windows(n, k, s, p0, p1, ceil_mode, adaptive, n_out):
    """One axis of a pooling: (out, start, end, full) per output position: the clipped window
    [start, end) and the size that counts padding (Paddle: min(start + k, n + pad) - start)."""
    if adaptive:
        i = np.arange(n_out)
        start = (i * n) // n_out
        end = -((-(i + 1) * n) // n_out)
        return n_out, start, end, end - start
    out = pool_out_size(n, k, s, p0, p1, ceil_mode)
    i = np.arange(out)
    hs = i * s - p0
    he = np.minimum(hs + k, n + p1)
    return out, np.maximum(hs, 0), np.minimum(he, n), he - hs


def first_max_index(slabs):
    """For (k, values) pairs in increasing k, the k of the first strict maximum at each position:
    Paddle's ``if (x > max)`` loop, where a NaN never wins and a NaN met first keeps index 0.

    The running maximum is updated with ``fmax`` (the same values: equal ones are equal, a NaN
    loses), a first NaN being replaced by +inf, which nothing exceeds; the index with ``maximum``
    (each new k exceeds the earlier ones). Masked copies (``copyto(where=)``, ``idx[m] = k``)
    with an unpredictable mask took 2-4x as long: 35 -> 14 ms for vgg11's first pool.
    """
    best = idx = m = step = None
    for k, s in slabs:
        if best is None:
            best = np.array(s)
            if best.dtype.kind == "f":
                nan = np.isnan(best)
                if nan.any():
                    best[nan] = np.inf
            idx = np.zeros(best.shape, np.int32)
            # (one scratch array for every offset: at batch 32 a fresh 100 MB one each time
            # was page-faulted in anew)
            m = np.empty(best.shape, bool)
            step = np.empty(best.shape, np.int32)
        else:
            np.greater(s, best, out=m)
            np.maximum(idx, np.multiply(m, k, out=step), out=idx)
            np.fmax(best, s, out=best)
    return idx


def select_or_zero(cond, values, out, mask=None):
    """``out[...] = values`` where ``cond``, +0 elsewhere, bit for bit (NaN payloads and -0
    kept): an AND with an all-ones or all-zeros mask, faster than a masked copy. ``mask``: an
    unsigned array of ``values``' item size to build the mask in (reused across calls)."""
    u = np.dtype(f"u{values.dtype.itemsize}")
    if mask is None:
        mask = np.empty(cond.shape, u)
    np.copyto(mask, cond)
    np.negative(mask, out=mask)  # 1 -> all ones
    np.bitwise_and(values.view(u), mask, out=out.view(u))
    return out


def picker(idx, dy):
    """``pick(k)``: ``dy`` where ``idx == k``, +0 elsewhere (max pooling's gradient for one
    kernel offset), written into one array that every call reuses, as are its scratch arrays."""
    picked, hit = np.empty(dy.shape, dy.dtype), np.empty(dy.shape, bool)
    mask = np.empty(dy.shape, f"u{dy.itemsize}")
    return lambda k: select_or_zero(np.equal(idx, k, out=hit), dy, picked, mask)


class Windows:
    """The parts of a geometry that only need its offsets, slabs and sizes."""

    def divisor(self, exclusive, adaptive):
        return self.exclusive_size if (exclusive or adaptive) else self.full_size

    def maxima(self, x):
        """The maximum of each window (NaN never wins, as Paddle's ``x > max`` test)."""
        xp = self.prepare(x, -np.inf)
        out = None
        for _k, offs in self.offsets():
            s = self.slab(xp, offs, -np.inf)
            if out is None:
                out = np.array(s)
            else:
                np.fmax(out, s, out=out)
        return out

    def argmax(self, x):
        """Index (in offset order) of the first maximum of each window."""
        xp = self.prepare(x, -np.inf)
        return first_max_index((k, self.slab(xp, offs, -np.inf)) for k, offs in self.offsets())

    def bounds(self):
        """Each spatial axis's window (starts, ends): for gathered (non-regular) geometries."""
        return list(zip(self.starts, self.ends))

    def spread_by_window(self, dx, vals):
        """Add ``vals`` (N, C, *out) over each window, window after window in C order, as
        Paddle's pool_grad loops: where adaptive windows share a start (an output larger than
        the input along an axis) the offset order would add an input's terms in another order
        (real 3.3.1: 16 of 576 values of a [3, 1, 6, 4, 8] -> [7, 2, 6] gradient)."""
        bounds = self.bounds()
        lead = (slice(None), slice(None))
        for o in np.ndindex(*vals.shape[2:]):
            region = tuple(slice(int(st[i]), int(en[i])) for i, (st, en) in zip(o, bounds))
            dx[lead + region] += vals[lead + o][(...,) + (None,) * len(o)]
        return dx

    def starts_repeat(self):
        return not self.regular and any(
            bool(np.any(np.diff(np.asarray(st)) == 0)) for st, _en in self.bounds())

    def window_sums(self, v):
        """Each window's values of ``v`` added in offset order (padding adds nothing)."""
        vp = self.prepare(v, 0)
        acc = None
        for _k, offs in self.offsets():
            s = self.slab(vp, offs, 0)
            acc = np.array(s) if acc is None else acc + s
        return acc


def _geometry(geometry, x, attrs):
    return geometry(x.shape[2:], attrs)


def _avg_divisor(p, exclusive, attrs, dtype):
    """Each window's divisor: the attr ``divisor_override`` (torch's) when given, else the
    window's size (counting padding or not)."""
    d = attrs.get("divisor_override")
    if d is not None:
        return np.asarray(d, dtype)
    return p.divisor(exclusive, attrs.get("adaptive", False)).astype(dtype)


def _spread(v, p, exclusive, attrs):
    """``v`` over each window's divisor: divided (attr ``grad_divides``: torch's ATen kernels,
    ``grad / divide_factor``) or times its reciprocal (Paddle's pool_grad functor)."""
    if attrs.get("grad_divides", False):
        return v / _avg_divisor(p, exclusive, attrs, v.dtype)
    div = p.divisor(exclusive, attrs.get("adaptive", False))
    if v.dtype == np.float64:  # the functor's scale is a float: 1.0f / pool_size, also for
        # float64 (avg and adaptive pools 1-D to 3-D; real 3.3.1 and 2.6.2)
        return v * (np.float32(1) / np.asarray(div).astype(np.float32)).astype(v.dtype)
    return v * (1.0 / div).astype(v.dtype)


def values_by(geometry):
    """The pool's forward values over ``geometry``'s windows."""
    def values(x, exclusive=True, pooling_type="max", **attrs):
        p = _geometry(geometry, x, attrs)
        if pooling_type == "max":
            return p.maxima(x)
        return p.window_sums(x) / _avg_divisor(p, exclusive, attrs, x.dtype)
    return values


def grad_by(geometry):
    """Paddle's pool_grad: max sends each dy to the first maximum of its window; avg spreads
    dy * (1 / window size) over the window."""
    def grad(x, dy, exclusive=True, pooling_type="max", **attrs):
        p = _geometry(geometry, x, attrs)
        dxp = p.zeros_like_input(x.shape, dy.dtype)
        if pooling_type == "max":
            pick = picker(p.argmax(x), dy)
            contribution = pick
        else:
            spread = _spread(dy, p, exclusive, attrs)
            if p.starts_repeat():
                return p.spread_by_window(dxp, spread)
            contribution = lambda _k: spread  # noqa: E731
        # an input's contributions in the order of its windows (offsets reversed), added into
        # zeros as Paddle's grad functor adds them window after window (a -0 gives +0)
        for k, offs in reversed(list(p.offsets())):
            p.scatter_add(dxp, offs, contribution(k))
        return p.crop(dxp)
    return grad


def double_grad_by(geometry):
    """The adjoint of pool_grad in dy: max picks ddx at each window's maximum of x; avg is the
    average pool of ddx (with the gradient's 1 / window size)."""
    def double_grad(x, ddx, exclusive=True, pooling_type="max", **attrs):
        p = _geometry(geometry, x, attrs)
        if pooling_type == "max":
            idx = p.argmax(x)
            vp = p.prepare(ddx, 0)
            out = None
            for k, offs in p.offsets():
                s = p.slab(vp, offs, 0)
                out = np.where(idx == k, s, np.zeros((), ddx.dtype) if out is None else out)
            return out
        return _spread(p.window_sums(ddx), p, exclusive, attrs)
    return double_grad


def register_pool_ops(name, geometry, fwd, grad_fwd, double_grad_fwd, inputs, examples,
                      **first_kw):
    """Register ``name``, ``name_grad`` and ``name_double_grad`` (legacy ``Pool2dBackward``
    ...), closed under differentiation: d pool = pool_grad; d pool_grad = (None,
    pool_double_grad); d pool_double_grad = (None, pool_grad)."""
    ops = {}

    def vjp(n, g):
        return apply(ops["grad"], (n.inputs[0], g), n.attrs)

    def grad_vjp(n, g):
        return None, apply(ops["double"], (n.inputs[0], g), n.attrs)

    def double_grad_vjp(n, g):
        return None, apply(ops["grad"], (n.inputs[0], g), n.attrs)

    def out_shape(shape, a):
        return tuple(shape[:2]) + tuple(geometry(shape[2:], a).out)

    legacy = name.capitalize()
    ops["pool"] = register(name, fwd, vjp, legacy_name=f"{legacy}Backward", domain="distinct",
                           examples=[([s], a) for s, a in zip(inputs, examples)], **first_kw)
    ops["grad"] = register(
        f"{name}_grad", grad_fwd, grad_vjp, diff_inputs=(1,),
        legacy_name=f"{legacy}GradBackward", domain="distinct",
        examples=[([s, out_shape(s, a)], a) for s, a in zip(inputs, examples)])
    ops["double"] = register(
        f"{name}_double_grad", double_grad_fwd, double_grad_vjp, diff_inputs=(1,),
        legacy_name=f"{legacy}DoubleGradBackward", domain="distinct",
        examples=[([s, s], a) for s, a in zip(inputs, examples)])
    return ops["pool"], ops["grad"], ops["double"]


def appliers(pool_op, grad_op, double_grad_op):
    """``pool(x, attrs)``, ``pool_grad(x, dy, attrs)``, ``pool_double_grad(x, ddx, attrs)``."""
    def pool(x, attrs):
        return apply(pool_op, (x,), attrs)

    def pool_grad(x, dy, attrs):
        return apply(grad_op, (x, dy), attrs)

    def pool_double_grad(x, ddx, attrs):
        return apply(double_grad_op, (x, ddx), attrs)

    return pool, pool_grad, pool_double_grad
