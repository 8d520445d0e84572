"""Reductions and scans: sum, mean, max/min, amax/amin, prod, logsumexp, the p-norms, the
singular values (matrix norms), all/any, count_nonzero, median, cumsum and cumprod.

``axis`` is a tuple of non-negative axes (the dialect normalises it); ``keepdim`` as in Paddle.
``out_shape`` lets the dialect choose how a full reduction is shaped (Paddle 2.2: ``[1]``,
later: ``[]``), so the picture shows one node and not a reduction plus a reshape.

The VJPs follow Paddle's backward kernels, because they decide the float32 rounding:

* ``prod``: ``dx = (dout * out) * (1 / x)`` -- so a zero element gives ``0 * inf = nan``;
* ``max``/``min`` take a ``ties`` attribute: ``"all"`` gives every tied element the whole
  gradient (Paddle 2.x ``max``), ``"split"`` shares it evenly (``amax``, Paddle 3 ``max``);
* ``logsumexp``: ``dx = dout * exp(x - out)``;
* ``p_norm``: ``dx = |x|^(p-1) / (out^(p-1) + eps) * dout * sign(x)``;
* ``frobenius_norm``: ``dx = x / (out + 1e-12) * dout``;
* ``cumprod``: Paddle's loop, ``dx_j = sum_{n>=j} ((dout_n * out_{j-1}) * x_{j+1}) ... * x_n``,
  which is exact when ``x`` holds zeros.

Forwards add in Paddle's order (``paddle_reduce``, below), so float32 sums print Paddle's last
digit. all and any have no VJP; count_nonzero records a node that passes no gradient (Paddle's
casts keep ``stop_gradient=False`` on it).
"""
from __future__ import annotations

import math as _math

import numpy as np

from ..registry import apply, register
from ._util import const, quiet
from .broadcast import broadcast_to
from .shape import reshape

_err = dict(divide="ignore", invalid="ignore", over="ignore")


# ---------------------------------------------------------------- shared helpers
def _keep_shape(in_shape, axis):
    return tuple(1 if i in axis else s for i, s in enumerate(in_shape))


def _shaped(out, keepdim, out_shape):
    """The reduction result as the dialect wants it (``out_shape`` wins over ``keepdim``)."""
    out = np.asarray(out)
    return np.reshape(out, out_shape) if out_shape is not None else out


def _expand_back(n, g):
    """The out_grad of a reduction, reshaped with the reduced axes kept and broadcast back."""
    in_shape = n.in_meta[0][0]
    g = reshape(g, _keep_shape(in_shape, n.attrs["axis"]))
    return broadcast_to(g, in_shape)


def _out_back(n):
    """The forward output (differentiable), reshaped with kept axes and broadcast to x."""
    in_shape = n.in_meta[0][0]
    return broadcast_to(reshape(n.out(), _keep_shape(in_shape, n.attrs["axis"])), in_shape)


def _out_kept(n):
    """The forward output's values with the reduced axes kept (a numpy array)."""
    return np.reshape(n.out_data[0], _keep_shape(n.in_meta[0][0], n.attrs["axis"]))


def _attrs(axis, keepdim, out_shape, **extra):
    attrs = {"axis": tuple(axis), "keepdim": bool(keepdim)}
    if out_shape is not None:
        attrs["out_shape"] = tuple(out_shape)
    attrs.update({k: v for k, v in extra.items() if v is not None})
    return attrs


def _m():
    """``ops.math`` (it imports this module, so it is looked up on first use and kept)."""
    global _MATH
    if _MATH is None:
        from . import math as _MATH
    return _MATH


_MATH = None


def _quiet(vjp):
    """Run a VJP with numpy's float warnings off: 0 * inf = nan is Paddle's answer too."""
    def wrapped(n, *g):
        with quiet(**_err):
            return vjp(n, *g)
    wrapped.__name__ = vjp.__name__
    wrapped.__doc__ = vjp.__doc__
    return wrapped


_REDUCE_EXAMPLES = [([(2, 3)], {"axis": (0, 1)}), ([(2, 3)], {"axis": (1,), "keepdim": True}),
                    ([(2, 3, 4)], {"axis": (0, 2)})]


# ---------------------------------------------------------------- Paddle's summation order
# Float sums round differently depending on the order of the additions, and the last digit shows
# in printed tensors. Measured on Paddle 2.6.2 and 3.3.1 (CPU, AVX build), bit for bit:
# * reducing every axis ("reduce_all"; also axis=0 of a 1-D tensor) runs Eigen's vectorised
#   reducer on the flattened tensor: packets of 8 floats (4 doubles); sum keeps two packet
#   accumulators (even / odd packets) and halves ranges above 1024 packets (a tree); mean and
#   prod keep one accumulator; the leftover tail is added one by one; the packet lanes are
#   combined by halving (lanes 0-3 + 4-7, then 0-1 + 2-3, then 0 + 1);
# * reducing some axes adds the reduced elements one by one, the first reduced axis fastest.
_LEAF = 1024


def _ceil_div(a, b):
    return -(-a // b)


def _lanes(dtype):
    return 8 if dtype.itemsize <= 4 else 4


def _seq(blocks, op):
    """Combine the rows of ``blocks`` (k, ...) one after the other: ((b0 op b1) op b2) ..."""
    blocks = np.ascontiguousarray(blocks)
    if blocks.ndim > 1 and blocks[0].size > 1:  # rows added one after another (see broadcast)
        return op.reduce(blocks, axis=0, dtype=blocks.dtype)
    if op is np.add:
        return np.cumsum(blocks, axis=0, dtype=blocks.dtype)[-1]
    return np.cumprod(blocks, axis=0, dtype=blocks.dtype)[-1]


def _predux(acc, op):
    while acc.shape[0] > 1:
        half = acc.shape[0] // 2
        acc = op(acc[:half], acc[half:])
    return acc[0]


def _packet_reduce(x, op, two_accumulators):
    """Eigen's InnerMostDimReducer on a 1-D array (see above)."""
    n, p = x.shape[0], _lanes(x.dtype)
    one = x.dtype.type(1 if op is np.multiply else 0)
    if two_accumulators and n > p * _LEAF:
        split = min(p * _ceil_div(_ceil_div(n, 2), p), n)      # aligned on a packet
        total = op(one, _packet_reduce(x[:split], op, True))
        return op(total, _packet_reduce(x[split:], op, True)) if split < n else total
    vectorized = n - n % p
    if vectorized:
        # packets as the rows of a (k, p) view; the accumulator starts at ``one`` (so -0 sums
        # to +0 as in Eigen) and takes the packets in order: even ones, then (two
        # accumulators) a last odd-count packet, then the odd accumulator
        rows = x[:vectorized].reshape(-1, p)
        k = rows.shape[0]
        if two_accumulators and k > 1:
            pairs = k - k % 2
            acc = op(one, op.reduce(rows[0:pairs:2], axis=0))
            if k % 2:
                acc = op(acc, rows[k - 1])
            acc = op(acc, op(one, op.reduce(rows[1:pairs:2], axis=0)))
        else:
            acc = op(one, op.reduce(rows, axis=0))
        total = _predux(acc, op)
    else:
        total = one
    tail = one
    for v in x[vectorized:]:
        tail = op(tail, v)
    return x.dtype.type(op(tail, total))


def _seq_sum(a, axis, keepdim):
    """Elements over ``axis`` added one by one (row-major order of the reduced axes)."""
    rest = [i for i in range(a.ndim) if i not in axis]
    count = int(np.prod([a.shape[i] for i in axis])) if axis else 1
    blocks = np.transpose(a, list(axis) + rest).reshape((count,) + tuple(a.shape[i] for i in rest))
    out = _seq(np.ascontiguousarray(blocks), np.add) if count else np.zeros(blocks.shape[1:], a.dtype)
    if keepdim:
        out = out.reshape(tuple(1 if i in axis else s for i, s in enumerate(a.shape)))
    return out


def _is_reduce_all(shape, axis):
    return len(axis) == len(shape)


def paddle_reduce(x, axis, keepdim, op=np.add, dtype=None, mean=False):
    """sum / prod / mean of ``x`` over ``axis`` in Paddle's order (integers: exactly)."""
    dt = np.dtype(dtype) if dtype is not None else x.dtype
    if dt.kind != "f" or x.dtype.kind not in "fiub":
        red = np.sum if op is np.add else np.prod
        out = red(x, axis=axis, keepdims=keepdim, dtype=dt)
        if mean and dt.kind == "c":
            count = int(np.prod([x.shape[i] for i in axis])) if axis else 1
            out = np.asarray(out / np.asarray(count, dt), dt)
        return out
    a = x.astype(dt, copy=False)
    count = _math.prod([a.shape[i] for i in axis]) if axis else 1
    with quiet(**_err):
        if _is_reduce_all(a.shape, axis) and a.size:
            flat = np.ascontiguousarray(a).reshape(-1)
            out = _packet_reduce(flat, op, two_accumulators=(op is np.add and not mean))
            out = np.asarray(out, dt)
            if keepdim:
                out = out.reshape((1,) * a.ndim)
        elif not axis:
            out = np.array(a)
        else:
            rest = [i for i in range(a.ndim) if i not in axis]
            moved = np.transpose(a, list(axis)[::-1] + rest)
            blocks = moved.reshape((count,) + tuple(a.shape[i] for i in rest))
            if count == 0:
                out = np.full(blocks.shape[1:], 1 if op is np.multiply else 0, dt)
            else:
                out = _seq(np.ascontiguousarray(blocks), op)
            if keepdim:
                out = out.reshape(tuple(1 if i in axis else s for i, s in enumerate(a.shape)))
        if mean:
            out = np.divide(out, dt.type(count), dtype=dt)
    return out if type(out) is np.ndarray and out.dtype == dt else np.asarray(out, dt)


# ---------------------------------------------------------------- sum / mean
def _sum_fwd(x, axis, keepdim=False, out_shape=None, dtype=None, f16="nearest"):
    if dtype is None and x.dtype.kind in "iub":
        dtype = x.dtype
    if x.dtype == np.float16 and dtype in (None, np.float16) and axis:
        if f16 == "zero":
            return _shaped(_f16_tree_sum(x, axis, keepdim), keepdim, out_shape)
        if f16 == "float32":   # summed in float32, rounded once (Paddle 3.3.1)
            out = paddle_reduce(x.astype(np.float32), axis, keepdim, np.add, None)
            return _shaped(np.asarray(out).astype(np.float16), keepdim, out_shape)
    return _shaped(paddle_reduce(x, axis, keepdim, np.add, dtype), keepdim, out_shape)


def _f16_tree_sum(x, axis, keepdim):
    """Paddle 2.x's float16 sum on CPU: Eigen's reducer over its float16 type, each partial
    sum converted back toward zero (``math._f16``): in order up to 1024 values, else the two
    halves' sums added (Eigen's InnerMostDimReducer tree)."""
    to16 = _m()._f16
    kept = [a for a in range(x.ndim) if a not in axis]
    rows = np.transpose(x, kept + sorted(axis)).reshape([x.shape[a] for a in kept] + [-1])

    def tree(v):
        n = v.shape[-1]
        if n > 1024:
            half = n // 2
            return to16(tree(v[..., :half]).astype(np.float32)
                        + tree(v[..., half:]).astype(np.float32))
        acc = np.zeros(v.shape[:-1], np.float16)
        for j in range(n):
            acc = to16(acc.astype(np.float32) + v[..., j].astype(np.float32))
        return acc

    out = np.asarray(tree(rows), np.float16)
    if keepdim:
        out = out.reshape([1 if a in axis else n for a, n in enumerate(x.shape)])
    return out


def _mean_fwd(x, axis, keepdim=False, out_shape=None):
    if x.dtype.kind == "b":
        # the boolean kernel accumulates in bool: any True element gives True
        return _shaped(np.any(x, axis=axis, keepdims=keepdim), keepdim, out_shape)
    if x.dtype.kind in "iu":
        # integer kernels divide the integer sum by the count, truncating toward zero
        total = np.sum(x, axis=axis, keepdims=keepdim, dtype=np.int64)
        count = max(int(np.prod([x.shape[a] for a in axis])), 1)
        out = (np.sign(total) * (np.abs(total) // count)).astype(x.dtype)
        return _shaped(out, keepdim, out_shape)
    if x.dtype.kind == "f" and x.ndim == len(axis) and x.size:
        out = _mean_all(x)
        return _shaped(out.reshape((1,) * x.ndim) if keepdim else out, keepdim, out_shape)
    return _shaped(paddle_reduce(x, axis, keepdim, np.add, mean=True), keepdim, out_shape)


def _mean_all(x):
    """``paddle_reduce``'s mean over every axis of a float array (its packet sum, then one
    division) without its general bookkeeping: a loss's mean of 256 values took 22 us in a
    training step, most of it that bookkeeping."""
    with quiet(**_err):
        total = _packet_reduce(x.reshape(-1), np.add, two_accumulators=False)
        return np.asarray(total / x.dtype.type(x.size), x.dtype)


@_quiet
def _mean_vjp(n, g):
    in_shape = n.in_meta[0][0]
    count = 1
    for a in n.attrs["axis"]:
        count *= in_shape[a]
    # every element of the broadcast gradient is out_grad / count: divided once, then spread
    return _expand_back(n, _m().divide(g, const(g, count)))


SUM = register("sum", _sum_fwd, _expand_back, legacy_name="ReduceSumBackward",
               examples=_REDUCE_EXAMPLES, saves_inputs=False)
MEAN = register("mean", _mean_fwd, _mean_vjp, legacy_name="ReduceMeanBackward",
                examples=_REDUCE_EXAMPLES, saves_inputs=False)


def sum(x, axis, keepdim=False, out_shape=None, dtype=None, f16=None):  # noqa: A001
    return apply(SUM, (x,), _attrs(axis, keepdim, out_shape,
                                   dtype=None if dtype is None else np.dtype(dtype), f16=f16))


def mean(x, axis, keepdim=False, out_shape=None):
    return apply(MEAN, (x,), _attrs(axis, keepdim, out_shape))


# ---------------------------------------------------------------- max / min / amax / amin
def _extreme(pick):
    """Forward of a max/min reduction. ``nan="propagate"``: any NaN gives NaN (Paddle 3).
    ``nan="fold"``: Paddle 2's kernel folds ``acc = acc > t ? acc : t`` in order, so a NaN
    only survives if nothing follows it: the result is the max of the elements after the
    last NaN (NaN when the last element is NaN)."""
    propagate = np.max if pick == "max" else np.min

    def fwd(x, axis, keepdim=False, out_shape=None, ties="split", nan="propagate"):
        if nan == "fold" and x.dtype.kind == "f" and axis and x.size and np.isnan(x).any():
            out = _fold_past_nan(x, axis, keepdim, propagate)
        else:
            out = propagate(x, axis=axis, keepdims=keepdim)
        return _shaped(out, keepdim, out_shape)

    fwd.__name__ = f"_{pick}_fwd"
    return fwd


def _fold_past_nan(x, axis, keepdim, reduce_fn):
    rows, _ = _rows_last(x, axis)
    n = rows.shape[-1]
    isnan = np.isnan(rows)
    last = np.where(isnan.any(-1), n - 1 - np.argmax(isnan[..., ::-1], axis=-1), -1)
    after = np.arange(n) > last[..., None]
    fill = -np.inf if reduce_fn is np.max else np.inf
    with quiet(**_err):
        out = reduce_fn(np.where(after, rows, fill), axis=-1)
    out = np.where(last == n - 1, np.nan, out).astype(x.dtype)
    if keepdim:
        out = np.reshape(out, _keep_shape(x.shape, axis))
    return out


@_quiet
def _extreme_vjp(n, g):
    """``dout * (x == out)``, divided by the number of ties when ``ties == "split"``."""
    m = _m()
    x = n.inputs[0].data
    mask = x == _out_kept(n)
    dx = m.multiply(_expand_back(n, g), const(g, mask))
    if n.attrs.get("ties", "split") == "split":
        count = np.broadcast_to(np.sum(mask, axis=n.attrs["axis"], keepdims=True), x.shape)
        dx = m.divide(dx, const(g, count))
    return dx


_EXT_EX = [([(2, 3)], {"axis": (0, 1)}), ([(2, 3)], {"axis": (1,), "keepdim": True}),
           ([(2, 3, 4)], {"axis": (0, 2), "ties": "all"})]
MAX = register("max", _extreme("max"), _extreme_vjp, legacy_name="ReduceMaxBackward",
               domain="distinct", examples=_EXT_EX)
MIN = register("min", _extreme("min"), _extreme_vjp, legacy_name="ReduceMinBackward",
               domain="distinct", examples=_EXT_EX)
AMAX = register("amax", _extreme("max"), _extreme_vjp, legacy_name="ReduceAMaxBackward",
                domain="distinct", examples=_EXT_EX[:2])
AMIN = register("amin", _extreme("min"), _extreme_vjp, legacy_name="ReduceAMinBackward",
                domain="distinct", examples=_EXT_EX[:2])
_EXTREMES = {"max": MAX, "min": MIN, "amax": AMAX, "amin": AMIN}


def extreme(kind, x, axis, keepdim=False, out_shape=None, ties="split", nan="propagate"):
    """``kind`` is one of max, min, amax, amin; ``ties`` and ``nan`` as described above."""
    return apply(_EXTREMES[kind], (x,), _attrs(axis, keepdim, out_shape, ties=ties, nan=nan))


# ---------------------------------------------------------------- prod
def _prod_fwd(x, axis, keepdim=False, out_shape=None):
    return _shaped(paddle_reduce(x, axis, keepdim, np.multiply), keepdim, out_shape)


def _prod_vjp(n, g):
    m = _m()
    x = n.inputs[0]
    with quiet(**_err):  # a zero element: 1/0 = inf, then 0 * inf = nan, as in Paddle
        inverse = m.divide(const(x, 1), x)
        return m.multiply(m.multiply(_expand_back(n, g), _out_back(n)), inverse)


PROD = register("prod", _prod_fwd, _prod_vjp, legacy_name="ReduceProdBackward",
                domain="away0", examples=_REDUCE_EXAMPLES)


def prod(x, axis, keepdim=False, out_shape=None):
    return apply(PROD, (x,), _attrs(axis, keepdim, out_shape))


# ---------------------------------------------------------------- logsumexp
def _round_f64(fn, a):
    """A transcendental computed in float64 and rounded once (Paddle's float32 results)."""
    if a.dtype.kind == "f" and a.dtype.itemsize < 8:
        return fn(a.astype(np.float64)).astype(a.dtype)
    return fn(a)


def _float32_exp_log():
    """exp and log as Paddle's float32 kernels compute them: Eigen's packet exp on whole
    packets, the C library's expf/logf elsewhere (engine.ops._kernels); float64-rounded values
    when that module is not there."""
    try:
        from . import _kernels as K

        return K.eigen(K.packet_exp, K.libm("exp", np.exp)), K.libm("exp", np.exp), \
            K.libm("log", np.log)
    except (ImportError, AttributeError):
        exp = lambda a: _round_f64(np.exp, a)  # noqa: E731
        return exp, exp, lambda a: _round_f64(np.log, a)


def _logsumexp_fwd(x, axis, keepdim=False, out_shape=None):
    """Paddle's LogsumexpFunctor: ``max + log(sum(exp(x - max)))``. Reducing every axis, the
    sum runs Eigen's vectorised reducer, whose packets take Eigen's exp; otherwise each element
    takes the C library's exp and the sum goes one by one (see ``paddle_reduce``)."""
    with quiet(**_err):
        top = np.max(x, axis=axis, keepdims=True)
        shifted = x - top
        if x.dtype == np.float32:
            packet_exp, scalar_exp, log = _float32_exp_log()
            if _is_reduce_all(x.shape, axis):
                e = packet_exp(np.array(shifted, order="C"))
            else:
                e = scalar_exp(shifted)
        else:
            e, log = np.exp(shifted), np.log
        total = np.asarray(paddle_reduce(np.asarray(e, x.dtype), axis, True), x.dtype)
        if x.dtype == np.float32 and total.size >= 8:
            # the functor's outer expression max + log(sum) is assigned in packets of 8
            # outputs: Eigen's packet log there, logf on the last size % 8 (measured: every
            # row of 9 shapes up to (128, 3) equal to real Paddle 3.3.1, was 7 off in 443)
            from . import _kernels as K

            log = K.eigen(K.packet_log, log)
        out = top + np.asarray(log(total), x.dtype)
    if not keepdim:
        out = np.squeeze(out, axis=axis)
    return _shaped(out, keepdim, out_shape)


@_quiet
def _logsumexp_vjp(n, g):
    m = _m()
    return m.multiply(_expand_back(n, g), m.exp(m.subtract(n.inputs[0], _out_back(n))))


LOGSUMEXP = register("logsumexp", _logsumexp_fwd, _logsumexp_vjp,
                     legacy_name="LogsumexpBackward", examples=_REDUCE_EXAMPLES)


def logsumexp(x, axis, keepdim=False, out_shape=None):
    return apply(LOGSUMEXP, (x,), _attrs(axis, keepdim, out_shape))


# ---------------------------------------------------------------- p_norm / frobenius_norm
def _pnorm_fwd(x, porder, axis, keepdim=False, out_shape=None, epsilon=1e-12):
    a = np.abs(x)
    if porder == 0:
        out = np.sum(x != 0, axis=axis, keepdims=keepdim).astype(x.dtype)
    elif porder in (np.inf, -np.inf):  # Eigen's plain maximum/minimum: NaN folds (see max)
        out = _extreme("max" if porder > 0 else "min")(a, axis, keepdim, nan="fold")
    else:
        with quiet(**_err):
            power = _scalar_pow(x.dtype)
            powered = power(a, float(np.float32(porder)))  # porder is a float attribute
            # the kernel views x as (pre, n, post) and adds along n one element at a time
            total = _seq_sum(powered, axis, keepdim)
            # the exponent 1/p reaches the float32 kernel as a float32 (1/3 -> 0.33333334);
            # Eigen assigns ``.pow(1/p)`` to the output in packets of 8: those take Eigen's
            # packet pow, the last size % 8 outputs powf (measured: every row norm of 9 shapes
            # up to (128, 3) and (64, 10) equal to real Paddle 3.3.1, was 27 off in 443)
            # float64 too: the kernel's ``1.0f / porder`` is a float (1/3 -> 0.3333333432674408
            # for a double tensor: norms with p=3 were ~1e-7 off, measured on 3.3.1 and 2.6.2)
            out = _outer_pow(np.asarray(total), float(np.float32(1) / np.float32(porder)), power)
    return _shaped(out, keepdim, out_shape)


def _outer_pow(total, exponent, power):
    """``total ** exponent`` as the p_norm kernel's Eigen assignment computes it (float32:
    packets of the flat output by Eigen's ``generic_pow``, the tail by powf)."""
    if total.dtype == np.float32 and total.size >= 8:
        try:
            from ._kernels import eigen_pow
        except ImportError:
            eigen_pow = None
        if eigen_pow is not None:
            return eigen_pow(total, np.float32(exponent))
    return power(total, exponent)


def _scalar_pow(dtype):
    """``pow(a, p)`` elementwise as the C library's powf computes it (float32; the exponent is
    rounded to float32 first), else in float64."""
    def power(a, p):
        a = np.asarray(a, dtype)
        if dtype == np.float32:
            try:
                from ._kernels import powf
            except ImportError:
                powf = None
            if powf is not None:
                return powf(a, np.full(a.shape, p, np.float32))
            p = float(np.float32(p))
        return _round_f64(lambda v: np.power(v, p), a)
    return power


def _sign_const(t):
    return const(t, np.sign(t.data))


@_quiet
def _pnorm_vjp(n, g):
    m = _m()
    x = n.inputs[0]
    p = n.attrs["porder"]
    if p == 0:  # the kernel writes zeros (+0, whatever dout is)
        return const(g, np.zeros(x.data.shape, g.data.dtype))
    sign = _sign_const(x)
    absx = m.multiply(x, sign)
    if p in (np.inf, -np.inf):
        hit = const(g, np.abs(x.data) == _out_kept(n))
        return m.multiply(m.multiply(hit, sign), _expand_back(n, g))
    num = m.pow_scalar(absx, p - 1.0)
    den = m.scale(m.pow_scalar(_out_back(n), p - 1.0), 1.0, n.attrs.get("epsilon", 1e-12))
    return m.multiply(m.multiply(m.divide(num, den), _expand_back(n, g)), sign)


def _fro_fwd(x, axis, keepdim=False, out_shape=None):
    """Eigen's ``x.square().sum(dims).sqrt()``: the sums in Paddle's order, then the square
    roots over the flat output as Eigen's vectorised assignment takes them (float32: packets
    of the fast rsqrt-based psqrt, the tail exact; real 3.3.1 and 2.6.2, 5 axis pairs of a
    4-D tensor: 128 of 128 equal, np.sqrt 43 off)."""
    from . import _kernels as K

    total = np.asarray(paddle_reduce(x * x, axis, keepdim))
    if total.dtype == np.float32:
        root = K.sqrt(np.ascontiguousarray(total).reshape(-1)).reshape(total.shape)
    else:
        root = np.sqrt(total)
    return _shaped(root, keepdim, out_shape)


@_quiet
def _fro_vjp(n, g):
    m = _m()
    den = m.scale(_out_back(n), 1.0, 1e-12)
    return m.multiply(m.divide(n.inputs[0], den), _expand_back(n, g))


P_NORM = register(
    "p_norm", _pnorm_fwd, _pnorm_vjp, legacy_name="PNormBackward", domain="away0",
    examples=[([(2, 3)], {"porder": 2.0, "axis": (1,)}), ([(2, 3)], {"porder": 3.0, "axis": (0, 1)}),
              ([(2, 3)], {"porder": 1.5, "axis": (0,), "keepdim": True})])
FROBENIUS_NORM = register("frobenius_norm", _fro_fwd, _fro_vjp,
                          legacy_name="FrobeniusNormBackward", domain="away0",
                          examples=_REDUCE_EXAMPLES)


def p_norm(x, porder, axis, keepdim=False, out_shape=None, epsilon=1e-12):
    """Paddle's ``p_norm`` op: ``axis`` is one axis, or all of them (``asvector``)."""
    return apply(P_NORM, (x,), _attrs(axis, keepdim, out_shape, porder=float(porder),
                                      epsilon=float(epsilon)))


def frobenius_norm(x, axis, keepdim=False, out_shape=None):
    return apply(FROBENIUS_NORM, (x,), _attrs(axis, keepdim, out_shape))


# ---------------------------------------------------------------- singular values (matrix norms)
def _singular_values_fwd(x):
    """The singular values of the matrices in the last two axes, largest first (computed in
    float64, rounded once; Paddle's float32 LAPACK can differ in the last digit)."""
    return np.linalg.svd(x.astype(np.float64), compute_uv=False).astype(x.dtype)


def _singular_values_vjp(n, g):
    """``dx = U diag(g) V^T``. U and V are taken as constants, so this is exact to first order
    only (the entry says ``second_order=False``)."""
    from .linalg import matmul

    x = n.inputs[0]
    u, _, vt = np.linalg.svd(x.data.astype(np.float64), full_matrices=False)
    dt = x.data.dtype
    row = reshape(g, g.data.shape[:-1] + (1, g.data.shape[-1]))      # diag(g) as a row scale
    scaled = _m().multiply(const(g, u.astype(dt)), row)
    return matmul(scaled, const(g, vt.astype(dt)))


SINGULAR_VALUES = register("singular_values", _singular_values_fwd, _singular_values_vjp,
                           legacy_name="SvdBackward", second_order=False, domain="distinct",
                           examples=[([(3, 2)], {}), ([(2, 2, 3)], {})])


def singular_values(x):
    return apply(SINGULAR_VALUES, (x,))


# ---------------------------------------------------------------- all / any / count_nonzero
def _all_fwd(x, axis, keepdim=False, out_shape=None):
    return _shaped(np.all(x, axis=axis, keepdims=keepdim), keepdim, out_shape)


def _any_fwd(x, axis, keepdim=False, out_shape=None):
    return _shaped(np.any(x, axis=axis, keepdims=keepdim), keepdim, out_shape)


def _count_nonzero_fwd(x, axis, keepdim=False, out_shape=None):
    out = np.sum(x != 0, axis=axis, keepdims=keepdim, dtype=np.int64)
    return _shaped(out, keepdim, out_shape)


ALL = register("all", _all_fwd, None, check=False, examples=_REDUCE_EXAMPLES[:1])
ANY = register("any", _any_fwd, None, check=False, examples=_REDUCE_EXAMPLES[:1])


def _no_grad_vjp(n, g):
    """An integer result that still records a node (Paddle composes count_nonzero from casts,
    which keep stop_gradient=False); no gradient reaches the input."""
    return None


COUNT_NONZERO = register("count_nonzero", _count_nonzero_fwd, _no_grad_vjp, check=False,
                         legacy_name="ReduceSumBackward", examples=_REDUCE_EXAMPLES[:1])


def all(x, axis, keepdim=False, out_shape=None):  # noqa: A001
    return apply(ALL, (x,), _attrs(axis, keepdim, out_shape))


def any(x, axis, keepdim=False, out_shape=None):  # noqa: A001
    return apply(ANY, (x,), _attrs(axis, keepdim, out_shape))


def count_nonzero(x, axis, keepdim=False, out_shape=None):
    return apply(COUNT_NONZERO, (x,), _attrs(axis, keepdim, out_shape))


# ---------------------------------------------------------------- median (Paddle 3 kernel)
def _rows_last(x, axis):
    """x with the reduced axes moved last and flattened: (rows, n), plus the kept shape."""
    rest = [i for i in range(x.ndim) if i not in axis]
    moved = np.transpose(x, rest + list(axis))
    return moved.reshape(moved.shape[:len(rest)] + (-1,)), rest


def _median_fwd(x, axis, keepdim=False, out_shape=None, mode="avg"):
    rows, _ = _rows_last(x, axis)
    n = rows.shape[-1]
    srt = np.sort(rows, axis=-1)
    if mode == "min" or n % 2 == 1:
        out = srt[..., (n - 1) // 2]
    else:
        lo, hi = srt[..., n // 2 - 1], srt[..., n // 2]
        out = ((lo + hi) / np.asarray(2, x.dtype)).astype(x.dtype)
    if x.dtype.kind in "fc":  # a NaN anywhere makes the median NaN (integers have none)
        nan = np.isnan(rows).any(axis=-1)
        out = np.where(nan, np.asarray(np.nan, x.dtype), out)
    if keepdim:
        out = np.reshape(out, _keep_shape(x.shape, axis))
    return _shaped(out, keepdim, out_shape)


def _median_weights(x, axis, mode):
    """How much of out_grad each element gets: each middle value's share (1 or 1/2) split
    evenly among the elements equal to it (Paddle 3's median_grad)."""
    rows, rest = _rows_last(x, axis)
    n = rows.shape[-1]
    srt = np.sort(rows, axis=-1)
    if mode == "min" or n % 2 == 1:
        picks = [(srt[..., (n - 1) // 2], 1.0)]
    else:
        picks = [(srt[..., n // 2 - 1], 0.5), (srt[..., n // 2], 0.5)]
    w = np.zeros(rows.shape, np.float64)     # each element's share: 0, 1/2 or 1
    den = np.ones(rows.shape, np.float64)    # divided by the count of its tied values
    for value, share in picks:
        hit = rows == value[..., None]
        w += share * hit
        den = np.where(hit, np.maximum(hit.sum(axis=-1, keepdims=True), 1), den)
    if len(picks) == 2:
        _median_tied_halves(rows, srt, w, den)
    moved_shape = tuple(x.shape[i] for i in rest) + tuple(x.shape[a] for a in axis)
    order = np.argsort(rest + list(axis))
    return (np.transpose(w.reshape(moved_shape), order),
            np.transpose(den.reshape(moved_shape), order))


def _median_tied_halves(rows, srt, w, den):
    """Rows of even length whose two middle values differ and are tied with other elements:
    Paddle 3's kernel gives each half to one element, the ones its std::nth_element at n / 2
    leaves (on (value, index) pairs): the n/2-th, and the last of the largest before it
    (measured on 3.3.1: 117 of 117 tie-heavy rows of 2..40 values; the even split among equal
    values applies where the median is one of the values)."""
    from .search import _less_asc, std_nth_element

    n = rows.shape[-1]
    rows, srt, flat_w, flat_d = (a.reshape(-1, n) for a in (rows, srt, w, den))
    lo, hi = srt[:, n // 2 - 1], srt[:, n // 2]
    count_lo = (rows == lo[:, None]).sum(axis=-1)
    count_hi = (rows == hi[:, None]).sum(axis=-1)
    redo = (lo != hi) & ((count_lo > 1) | (count_hi > 1)) & ~np.isnan(srt).any(axis=-1)
    for r in np.nonzero(redo)[0].tolist():
        a = [(float(v), i) for i, v in enumerate(rows[r].tolist())]
        std_nth_element(a, 0, n // 2, n, _less_asc)
        top = max(v for v, _ in a[:n // 2])
        lo_i = [i for v, i in a[:n // 2] if v == top][-1]
        flat_w[r], flat_d[r] = 0.0, 1.0
        flat_w[r, lo_i] += 0.5
        flat_w[r, a[n // 2][1]] += 0.5
    assert not redo.any() or (np.shares_memory(flat_w, w) and np.shares_memory(flat_d, den))


@_quiet
def _median_vjp(n, g):
    x = n.inputs[0]
    w, den = _median_weights(x.data, n.attrs["axis"], n.attrs.get("mode", "avg"))
    # dout * share / count: a value tied k times gets dout / k (real 3.3.1, float64 bits)
    share = _m().multiply(_expand_back(n, g), const(g, w))
    return _plus_zero(_m().divide(share, const(g, den)))


def _plus_zero(t):
    """t + 0.0: the elements a zero weight left as -0.0 (g * 0, g < 0) become +0.0, as Paddle's
    median grads write zeros there."""
    return _m().add(t, const(t, np.zeros((), t.data.dtype)))


MEDIAN = register("median", _median_fwd, _median_vjp, legacy_name="MedianBackward",
                  domain="distinct", examples=_REDUCE_EXAMPLES)


def median(x, axis, keepdim=False, out_shape=None, mode="avg"):
    return apply(MEDIAN, (x,), _attrs(axis, keepdim, out_shape, mode=mode))


# ---------------------------------------------------------------- nanmedian (Paddle's kernel)
def _nan_picks(x, axis, mode):
    """Rows (reduced axes last), the sorted rows (NaN last), and per row the sorted positions
    of the middle values with their shares: (pos_lo, pos_hi, share_hi) where share_hi is 0
    when one value is the median. k = the row's count of non-NaN values."""
    rows, rest = _rows_last(x, axis)
    srt = np.sort(rows, axis=-1)
    k = rows.shape[-1] - np.isnan(rows).sum(axis=-1) if x.dtype.kind == "f" else \
        np.full(rows.shape[:-1], rows.shape[-1])
    one = (mode == "min") | (k % 2 == 1)
    lo = np.maximum((k - 1) // 2, 0)
    hi = np.where(one, lo, k // 2)
    return rows, rest, srt, k, lo, hi, one


def _nanmedian_fwd(x, axis, keepdim=False, out_shape=None, mode="avg", ties="split"):
    _, _, srt, k, lo, hi, one = _nan_picks(x, axis, mode)
    a = np.take_along_axis(srt, lo[..., None], -1)[..., 0]
    b = np.take_along_axis(srt, hi[..., None], -1)[..., 0]
    with quiet(**_err):
        out = np.where(one, a, ((a + b) / np.asarray(2, x.dtype)).astype(x.dtype))
    out = np.where(k == 0, np.asarray(np.nan, x.dtype), out).astype(x.dtype)
    if keepdim:
        out = np.reshape(out, _keep_shape(x.shape, axis))
    return _shaped(out, keepdim, out_shape)


def _nanmedian_weights(x, axis, mode, ties):
    """Each element's share of out_grad. Paddle 3 ("split", measured on 3.3.1): each middle
    value's share (1 or 1/2) split evenly among the elements equal to it, and a lane of NaNs
    shares 1 among its NaNs. Paddle 2.6 ("index"): the middle elements' own positions, a lane
    of NaNs gets nothing."""
    rows, rest, srt, k, lo, hi, one = _nan_picks(x, axis, mode)
    share = np.where(one, 1.0, 0.5)[..., None]
    w = np.zeros(rows.shape, np.float64)
    if ties == "index":
        order = np.argsort(rows, axis=-1, kind="stable")  # NaN last
        for pos, sh in ((lo, share), (hi, np.where(one, 0.0, 0.5)[..., None])):
            at = np.take_along_axis(order, pos[..., None], -1)
            cur = np.take_along_axis(w, at, -1)
            np.put_along_axis(w, at, cur + sh * (k > 0)[..., None], -1)
    else:
        for pos, sh in ((lo, share), (hi, np.where(one, 0.0, 0.5)[..., None])):
            value = np.take_along_axis(srt, pos[..., None], -1)
            hit = (rows == value) | (np.isnan(rows) & np.isnan(value))
            w += sh * hit / np.maximum(hit.sum(axis=-1, keepdims=True), 1)
    moved_shape = tuple(x.shape[i] for i in rest) + tuple(x.shape[a] for a in axis)
    return np.transpose(w.reshape(moved_shape), np.argsort(rest + list(axis)))


@_quiet
def _nanmedian_vjp(n, g):
    x = n.inputs[0]
    w = _nanmedian_weights(x.data, n.attrs["axis"], n.attrs.get("mode", "avg"),
                           n.attrs.get("ties", "split"))
    return _plus_zero(_m().multiply(_expand_back(n, g), const(g, w)))


NANMEDIAN = register("nanmedian", _nanmedian_fwd, _nanmedian_vjp, legacy_name="NanmedianBackward",
                     domain="distinct", examples=_REDUCE_EXAMPLES)


def nanmedian(x, axis, keepdim=False, out_shape=None, mode="avg", ties="split"):
    return apply(NANMEDIAN, (x,), _attrs(axis, keepdim, out_shape, mode=mode, ties=ties))


# ---------------------------------------------------------------- cumsum
def _scan_prep(x, axis, flatten):
    if flatten:
        return x.reshape(-1), 0
    return x, axis


def _cumsum_fwd(x, axis=0, flatten=False, reverse=False, exclusive=False):
    a, ax = _scan_prep(x, axis, flatten)
    if reverse:
        a = np.flip(a, ax)
    out = np.cumsum(a, axis=ax, dtype=a.dtype)
    if exclusive:
        out = np.concatenate([np.zeros_like(np.take(out, [0], axis=ax)),
                              np.take(out, range(out.shape[ax] - 1), axis=ax)], axis=ax)
    return np.flip(out, ax) if reverse else out


def _cumsum_vjp(n, g):
    a = n.attrs
    dx = cumsum(g, a.get("axis", 0) if not a.get("flatten") else 0, False,
                not a.get("reverse", False), a.get("exclusive", False))
    return reshape(dx, n.in_meta[0][0])


CUMSUM = register("cumsum", _cumsum_fwd, _cumsum_vjp, legacy_name="CumsumBackward",
                  examples=[([(2, 3)], {"axis": 1}), ([(2, 3)], {"axis": 0, "flatten": True}),
                            ([(4,)], {"axis": 0, "reverse": True, "exclusive": True})])


def cumsum(x, axis, flatten=False, reverse=False, exclusive=False):
    attrs = {"axis": int(axis), "flatten": bool(flatten)}
    if reverse:
        attrs["reverse"] = True
    if exclusive:
        attrs["exclusive"] = True
    return apply(CUMSUM, (x,), attrs)


# ---------------------------------------------------------------- cumprod
def _cumprod_fwd(x, dim):
    if x.ndim == 0:
        return np.array(x)
    return np.cumprod(x, axis=dim, dtype=x.dtype)


@_quiet
def _cumprod_vjp(n, g):
    """Paddle's cumprod_grad loop, as Tensor ops so it is differentiable again.

    With the scanned axis last and ``W`` its length, ``elem[j, k] = dout_k * out_{j-1}``
    (``dout_k`` alone for j = 0) is multiplied by ``x_{j+1}, ..., x_k`` one factor at a time,
    entries with ``k < j`` are zero, and the sum over ``k`` runs in order (a cumsum's last
    column), exactly as the kernel rounds.
    """
    m = _m()
    from .shape import transpose

    x = n.inputs[0]
    if x.data.ndim == 0:
        return g
    dim = n.attrs["dim"] % x.data.ndim
    nd = x.data.ndim
    perm = tuple(i for i in range(nd) if i != dim) + (dim,)
    inv = tuple(int(i) for i in np.argsort(perm))
    xs, gs, outs = (transpose(t, perm) for t in (x, g, n.out()))
    lead, w = xs.data.shape[:-1], xs.data.shape[-1]
    where = _where()
    first = np.broadcast_to(np.arange(w) == 0, lead + (w,))
    shifted = _take_last(outs, [0] + list(range(w - 1)))          # out_{j-1}
    prev = where(const(x, first, np.bool_), const(x, np.ones(lead + (w,), x.data.dtype)), shifted)
    # elem[..., j, k] = dout_k * prev_j
    elem = m.multiply(reshape(prev, lead + (w, 1)), reshape(gs, lead + (1, w)))
    jj, kk = np.meshgrid(np.arange(w), np.arange(w), indexing="ij")
    ones = const(x, np.ones(lead + (w, w), x.data.dtype))
    for s in range(1, w):
        src = np.minimum(jj + s, w - 1)
        factor = reshape(_take_last(xs, src.reshape(-1)), lead + (w, w))   # x_{j+s}
        use = const(x, np.broadcast_to(jj + s <= kk, lead + (w, w)), np.bool_)
        elem = m.multiply(elem, where(use, factor, ones))
    upper = const(x, np.broadcast_to(kk >= jj, lead + (w, w)), np.bool_)
    elem = where(upper, elem, const(x, np.zeros(lead + (w, w), x.data.dtype)))
    total = _take_last(cumsum(elem, nd), [w - 1])
    return transpose(reshape(total, lead + (w,)), inv)


def _where():
    from .search import where

    return where


def _take_last(t, positions):
    """Columns ``positions`` of the last axis of ``t`` (a differentiable gather)."""
    from . import index

    idx = np.asarray(list(positions), np.int64)
    shape = t.data.shape[:-1] + (len(idx),)
    full = np.broadcast_to(idx, shape).copy()
    return index.take_along_axis(t, const(t, full, np.int64), t.data.ndim - 1)


CUMPROD = register("cumprod", _cumprod_fwd, _cumprod_vjp, legacy_name="CumprodBackward",
                   domain="away0", examples=[([(2, 3)], {"dim": 1}), ([(3, 2)], {"dim": 0})])


def cumprod(x, dim):
    return apply(CUMPROD, (x,), {"dim": int(dim)})
