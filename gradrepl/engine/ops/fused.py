"""Fused ops (registered as ``fused_<name>``): computations that some frameworks record as
*one* backward node, although they could be written with the ops of the other modules.

A picture (and ``grad_fn``) shows one node for them, as the framework does: ``addmm`` (a linear
layer: ``bias + x @ w``), ``mse_loss``, ``var``/``std``, the 2-norm, ``select_along`` (the
values of ``max(dim)``/``sort``: a gather by precomputed indices), ``einsum``. Each VJP is
written with Tensor ops, so it differentiates again.
"""
from __future__ import annotations

import numpy as np

from ..registry import apply, register
from ._util import const, quiet
from .broadcast import broadcast_to
from .index import take_along_axis_grad
from .math import add, divide, multiply, subtract, times
from .reduce import _keep_shape
from .reduce import mean as _mean
from .shape import reshape


def _reg(name, fwd, vjp, **kw):
    """``register`` with the backward op's name derived from the op's (``fused_var``:
    ``VarBackward``) unless given."""
    kw.setdefault("legacy_name", "".join(w.capitalize() for w in name[6:].split("_"))
                  + "Backward")
    return register(name, fwd, vjp, **kw)


# ---------------------------------------------------------------- addmm: bias + x @ w
def _addmm_fwd(bias, x, w):
    return np.asarray(bias + x @ w)


def _addmm_vjp(n, g):
    from .broadcast import sum_to
    from .linalg import matmul

    bias, x, w = n.inputs
    gb = sum_to(g, bias.data.shape) if bias.data.shape != g.data.shape else g
    gx = matmul(g, w, transpose_y=True)
    gw = matmul(x, g, transpose_x=True)
    return gb, gx, gw


ADDMM = _reg("fused_addmm", _addmm_fwd, _addmm_vjp,
                 examples=[([(3,), (2, 4), (4, 3)], {}), ([(2, 3), (2, 4), (4, 3)], {})])


def addmm(bias, x, w):
    """``bias + x @ w`` for matrices x, w (bias broadcasts to the product's shape)."""
    return apply(ADDMM, (bias, x, w))


# ---------------------------------------------------------------- mse_loss
def _mse_fwd(x, y, reduction="mean"):
    d = x - y
    sq = d * d
    if reduction == "none":
        return sq
    total = np.sum(sq, dtype=sq.dtype)
    if reduction == "mean":
        total = total / np.asarray(max(sq.size, 1), sq.dtype)
    return np.asarray(total, dtype=sq.dtype)


def _mse_vjp(n, g):
    x, y = n.inputs
    d = subtract(x, y)
    red = n.attrs.get("reduction", "mean")
    if red == "none":
        gd = multiply(times(d, 2.0), g)
    else:
        shape = np.broadcast_shapes(x.data.shape, y.data.shape)
        gb = broadcast_to(reshape(g, (1,) * len(shape)), shape) if shape else g
        gd = multiply(times(d, 2.0), gb)
        if red == "mean":
            size = int(np.prod(shape)) if shape else 1
            gd = divide(gd, const(gd, size))
    return gd, multiply(gd, const(gd, -1.0))


MSE_LOSS = _reg("fused_mse_loss", _mse_fwd, _mse_vjp, broadcast=True,
                    examples=[([(2, 3), (2, 3)], {}), ([(3,), (3,)], {"reduction": "sum"}),
                              ([(2, 3), (2, 3)], {"reduction": "none"})])


def mse_loss(x, y, reduction="mean"):
    return apply(MSE_LOSS, (x, y), {"reduction": reduction})


# ---------------------------------------------------------------- var / std
def _count(shape, axis):
    c = 1
    for a in axis:
        c *= shape[a]
    return c


def _var_fwd(x, axis, keepdim=False, correction=1.0):
    m = np.mean(x, axis=axis, keepdims=True, dtype=x.dtype)
    d = x - m
    ss = np.sum(d * d, axis=axis, keepdims=keepdim, dtype=x.dtype)
    dof = max(_count(x.shape, axis) - correction, 0)
    with quiet(divide="ignore", invalid="ignore"):
        return np.asarray(ss / np.asarray(dof, x.dtype), x.dtype)


def _var_grad(n, g, scale_by):
    """d var / dx = 2 (x - mean) / dof, times g (broadcast back over the reduced axes)."""
    x = n.inputs[0]
    axis = n.attrs["axis"]
    shape = x.data.shape
    keep = _keep_shape(shape, axis)
    m = _mean(x, axis, True)
    d = subtract(x, m)
    dof = max(_count(shape, axis) - n.attrs.get("correction", 1.0), 0)
    gk = broadcast_to(reshape(g if scale_by is None else divide(g, scale_by), keep), shape)
    return divide(multiply(times(d, 2.0), gk), const(gk, dof))


def _var_vjp(n, g):
    return _var_grad(n, g, None)


VAR = _reg("fused_var", _var_fwd, _var_vjp,
           examples=[([(2, 3)], {"axis": (1,)}), ([(2, 3)], {"axis": (0, 1), "correction": 0.0})])


def _std_fwd(x, axis, keepdim=False, correction=1.0):
    return np.sqrt(_var_fwd(x, axis, keepdim, correction))


def _std_vjp(n, g):
    out = reshape(n.out(), _keep_shape(n.in_meta[0][0], n.attrs["axis"]))
    return _var_grad(n, g, reshape(times(out, 2.0), g.data.shape))


STD = _reg("fused_std", _std_fwd, _std_vjp, domain="distinct",
               examples=[([(2, 3)], {"axis": (1,)}), ([(2, 3)], {"axis": (0, 1)})])


def var(x, axis, keepdim=False, correction=1.0):
    return apply(VAR, (x,), {"axis": tuple(axis), "keepdim": keepdim, "correction": correction})


def std(x, axis, keepdim=False, correction=1.0):
    return apply(STD, (x,), {"axis": tuple(axis), "keepdim": keepdim, "correction": correction})


# ---------------------------------------------------------------- the 2-norm
def _norm2_fwd(x, axis, keepdim=False):
    return np.asarray(np.sqrt(np.sum(x * x, axis=axis, keepdims=keepdim, dtype=x.dtype)),
                      x.dtype)


def _norm2_vjp(n, g):
    """dx = x / |x| * g, and 0 where |x| is 0 (the subgradient torch picks)."""
    x = n.inputs[0]
    shape = x.data.shape
    keep = _keep_shape(shape, n.attrs["axis"])
    out = reshape(n.out(), keep)
    safe = np.where(out.data == 0, 1, 0).astype(out.data.dtype)
    den = add(out, const(out, safe))
    gk = broadcast_to(reshape(g, keep), shape)
    return multiply(divide(x, den), gk)


VECTOR_NORM2 = _reg("fused_vector_norm2", _norm2_fwd, _norm2_vjp, domain="away0",
                        examples=[([(2, 3)], {"axis": (1,)}), ([(2, 3)], {"axis": (0, 1)})])


def vector_norm2(x, axis, keepdim=False):
    return apply(VECTOR_NORM2, (x,), {"axis": tuple(axis), "keepdim": keepdim})


# ---------------------------------------------------------------- select_along
def _select_fwd(x, index, axis, keepdim=True):
    out = np.take_along_axis(x, index, axis)
    return out if keepdim else np.squeeze(out, axis)


def _select_vjp(n, g):
    x_shape = n.in_meta[0][0]
    index = n.inputs[1]
    axis = n.attrs["axis"]
    if not n.attrs.get("keepdim", True):
        g = reshape(g, index.data.shape)
    return take_along_axis_grad(g, index, x_shape, axis), None


SELECT_ALONG = _reg("fused_select_along", _select_fwd, _select_vjp, diff_inputs=(0,),
                    saves_inputs=False, reads_inputs=True,
    examples=[([(2, 3), np.array([[2], [0]])], {"axis": 1, "keepdim": False}),
              ([(2, 3), np.array([[1, 0, 1]])], {"axis": 0})])


def select_along(x, index, axis, keepdim=True):
    """x's values at ``index`` (an int64 tensor of x's rank) along ``axis``; without
    ``keepdim`` the (size-1) axis is dropped."""
    return apply(SELECT_ALONG, (x, index), {"axis": int(axis), "keepdim": bool(keepdim)})


# ---------------------------------------------------------------- einsum
_SEQ_LIMIT = 1 << 22  # products held at once by the sequential form (16 MiB of float32)


def _sequential_einsum(equation, xs):
    """Each output element as Paddle's CPU einsum sums it (measured on 2.6.2 and 3.3.1): every
    product rounded to float32, then added one after another in the order of the contracted
    indices (no fused multiply-add, no pairwise sums). None where that form does not apply."""
    ins, out = equation.split("->")
    labels = []
    for c in ins.replace(",", ""):
        if c not in labels:
            labels.append(c)
    contracted = "".join(c for c in labels if c not in out)
    if not contracted or xs[0].dtype != np.float32:
        return None
    prods = np.einsum(f"{ins}->{contracted}{out}", *xs)  # every product, nothing summed
    if prods.size > _SEQ_LIMIT:
        return None
    k = int(np.prod(prods.shape[:len(contracted)]))
    flat = prods.reshape((k,) + prods.shape[len(contracted):])
    return np.add.reduce(flat, axis=0) if k else np.zeros(flat.shape[1:], flat.dtype)


def _paddle_intel_einsum():
    """Whether Paddle's two-operand einsum is MKL's GEMM here (Intel, MKL, this CPU's class)."""
    from .. import cpu, mkl
    from .nn import _mkl_is_this_cpu

    return cpu.cpu_class() != "amd" and _mkl_is_this_cpu() and bool(mkl.load())


def _mkl_einsum(equation, xs):
    """A two-operand einsum as Paddle's CPU kernel computes it on Intel (MKL_VERBOSE under real
    3.3.1 here: one SGEMM(N,N) or, with batch labels, one SGEMM_BATCH(N,N)): each operand laid
    out contiguous as [batch, its own free labels, contracted] and [batch, contracted, its own
    free labels], one product without transpose flags (MKL's ``cblas_?gemm`` / ``?gemm_batch``
    on one thread), the result transposed to the output's order. None where that form does not
    apply (labels one operand sums alone, a label repeated or broadcast, other dtypes)."""
    from .. import mkl

    ins, out = equation.split("->")
    specs = ins.split(",")
    if len(specs) != 2 or xs[0].dtype != xs[1].dtype or xs[0].dtype not in (
            np.float32, np.float64, np.complex64, np.complex128):   # (complex: ?gemm too)
        return None
    a, b = specs
    if xs[0].ndim != len(a) or xs[1].ndim != len(b) or len(set(a)) != len(a) or len(set(b)) != len(b) or len(set(out)) != len(out):
        return None
    size = {}
    for spec, x in zip(specs, xs):
        for c, n in zip(spec, x.shape):
            if size.setdefault(c, n) != n:
                return None
    if any(c not in b and c not in out for c in a) or any(c not in a and c not in out for c in b):
        return None
    batch = [c for c in out if c in a and c in b]
    a_free = [c for c in a if c in out and c not in b]
    b_free = [c for c in b if c in out and c not in a]
    contracted = [c for c in a if c not in out]

    def laid_out(x, spec, order):
        return np.ascontiguousarray(np.transpose(x, [spec.index(c) for c in order]))

    count = int(np.prod([size[c] for c in batch], dtype=np.int64))
    m = int(np.prod([size[c] for c in a_free], dtype=np.int64))
    n = int(np.prod([size[c] for c in b_free], dtype=np.int64))
    k = int(np.prod([size[c] for c in contracted], dtype=np.int64))
    left = laid_out(xs[0], a, batch + a_free + contracted).reshape(count, m, k)
    right = laid_out(xs[1], b, batch + contracted + b_free).reshape(count, k, n)
    if count == 1:
        res = mkl.gemm_one_thread(left[0], right[0])
    else:
        res = mkl.gemm_batch_one_thread(left, right)
    if res is None:
        return None
    labels = batch + a_free + b_free
    res = res.reshape([size[c] for c in labels])
    return np.transpose(res, [labels.index(c) for c in out]).copy()   # (0-d stays 0-d)


def _einsum_fwd(*xs, equation, sequential=False):
    if sequential and len(xs) == 2 and _paddle_intel_einsum():
        out = _mkl_einsum(equation, xs)
        if out is not None:
            return out
    if sequential and all(x.dtype == np.float32 for x in xs):
        out = _sequential_einsum(equation, xs)
        if out is not None:
            return np.asarray(out)
    return np.asarray(np.einsum(equation, *xs))


def _einsum_vjp(n, g):
    """The gradient of operand k is einsum(out, the other operands -> operand k's indices),
    broadcast back over indices that only operand k has (summed away in the forward)."""
    eq = n.attrs["equation"].replace(" ", "")
    ins, out = eq.split("->")
    specs = ins.split(",")
    grads = []
    # Paddle's einsum_grad on Intel (its GEMM calls under MKL_VERBOSE): the first operand's
    # gradient is einsum(second, out), the second's einsum(out, first)
    swap = (len(specs) == 2 and n.attrs.get("sequential", False) and _paddle_intel_einsum())
    from .complex import conj   # complex operands: dA = einsum(dout, conj(B)), as every
    #                             multilinear op's (real Paddle 3.3.1 / 2.6.2 and torch)
    for k, spec in enumerate(specs):
        others = [s for j, s in enumerate(specs) if j != k]
        tensors = [conj(t) if t.data.dtype.kind == "c" else t
                   for j, t in enumerate(n.inputs) if j != k]
        have = set(out).union(*others) if others else set(out)
        kept = "".join(c for c in spec if c in have)
        if swap and k == 0:
            gk = einsum(f"{others[0]},{out}->{kept}", tensors + [g], True)
        else:
            sub = ",".join([out] + others) + "->" + kept
            gk = einsum(sub, [g] + tensors, n.attrs.get("sequential", False))
        if kept != spec:  # indices only this operand has: summed in the forward
            shape = n.in_meta[k][0]
            kshape = tuple(shape[i] if c in have else 1 for i, c in enumerate(spec))
            gk = broadcast_to(reshape(gk, kshape), shape)
        grads.append(gk)
    return tuple(grads)


EINSUM = _reg("fused_einsum", _einsum_fwd, _einsum_vjp,
                  examples=[([(2, 3), (3, 4)], {"equation": "ij,jk->ik"}),
                            ([(2, 3)], {"equation": "ij->i"}),
                            ([(3,), (4,)], {"equation": "i,j->ij"})])


def einsum(equation, xs, sequential=False):
    """numpy's einsum on tensors (explicit ``->`` form, no repeated index within one operand);
    ``sequential``: float32 sums in Paddle's order (``_sequential_einsum``)."""
    attrs = {"equation": equation}
    if sequential:
        attrs["sequential"] = True
    return apply(EINSUM, tuple(xs), attrs)



# ---------------------------------------------------------------- binary cross-entropy
def _reduce_loss(losses, reduction):
    if reduction == "none":
        return losses
    total = np.sum(losses, dtype=losses.dtype)
    if reduction == "mean":
        total = total / np.asarray(max(losses.size, 1), losses.dtype)
    return np.asarray(total, losses.dtype)


def _loss_grad_scale(n, g, shape):
    """The output gradient spread back over the elements (divided by their number for mean)."""
    red = n.attrs.get("reduction", "mean")
    if red == "none":
        return g
    gb = broadcast_to(reshape(g, (1,) * len(shape)), shape) if shape else g
    if red == "mean":
        size = int(np.prod(shape)) if shape else 1
        gb = divide(gb, const(gb, size))
    return gb


def _bce_fwd(x, y, reduction="mean", weight=None):
    """-(y log x + (1 - y) log(1 - x)), each log clamped at -100 (torch's kernel), times an
    optional per-element ``weight`` (an array attribute, broadcast)."""
    one = np.ones((), x.dtype)
    with quiet(divide="ignore", invalid="ignore"):
        lx = np.maximum(np.log(x), np.asarray(-100, x.dtype))
        l1x = np.maximum(np.log1p(-x), np.asarray(-100, x.dtype))
    losses = ((y - one) * l1x - y * lx).astype(x.dtype)
    if weight is not None:
        losses = (losses * np.asarray(weight, x.dtype)).astype(x.dtype)
    return _reduce_loss(losses, reduction)


def _bce_vjp(n, g):
    """dx = g w (x - y) / max((1 - x) x, eps)."""
    x, y = n.inputs
    gb = _loss_grad_scale(n, g, x.data.shape)
    den = np.maximum((1 - x.data) * x.data, np.asarray(1e-12, x.data.dtype))
    w = n.attrs.get("weight")
    if w is not None:
        gb = multiply(gb, const(gb, np.broadcast_to(np.asarray(w, gb.data.dtype),
                                                    x.data.shape)))
    return multiply(gb, divide(subtract(x, y), const(gb, den))), None


BCE = _reg("fused_binary_cross_entropy", _bce_fwd, _bce_vjp, diff_inputs=(0,), broadcast=True,
               second_order=False,
               examples=[([np.array([[0.3, 0.6, 0.85], [0.2, 0.45, 0.7]]),
                           np.array([[1.0, 0.0, 1.0], [0.0, 0.25, 1.0]])], {}),
                         ([np.array([0.3, 0.6]), np.array([1.0, 0.0])], {"reduction": "none"}),
                         ([np.array([0.3, 0.6]), np.array([1.0, 0.0])],
                          {"weight": np.array([2.0, 0.5])})])


def binary_cross_entropy(x, y, reduction="mean", weight=None):
    return apply(BCE, (x, y), {"reduction": reduction, "weight": weight})


def _bce_logits_fwd(x, y, reduction="mean", weight=None, pos_weight=None):
    """(1 - y) x + lw (log1p(exp(-|x|)) + max(-x, 0)), lw = 1 + (pos_weight - 1) y."""
    sp = np.log1p(np.exp(-np.abs(x))) + np.maximum(-x, 0)
    if pos_weight is None:
        losses = (1 - y) * x + sp
    else:
        lw = 1 + (np.asarray(pos_weight, x.dtype) - 1) * y
        losses = (1 - y) * x + lw * sp
    if weight is not None:
        losses = losses * np.asarray(weight, x.dtype)
    return _reduce_loss(np.asarray(losses).astype(x.dtype), reduction)


def _bce_logits_vjp(n, g, sigmoid=None):
    """dx = g w ((1 - y) - lw (1 - sigmoid(x))); sigmoid(x) - y without pos_weight. A dialect
    may pass its own sigmoid (torch's: the SLEEF kernel its forward uses)."""
    if sigmoid is None:
        from .math import sigmoid

    x, y = n.inputs
    a = n.attrs
    gb = _loss_grad_scale(n, g, x.data.shape)
    dt = gb.data.dtype
    s = sigmoid(x)
    if a.get("pos_weight") is None:
        d = subtract(s, y)
    else:
        lw = 1 + (np.asarray(a["pos_weight"], dt) - 1) * y.data
        d = subtract(const(gb, (1 - y.data).astype(dt)),
                     multiply(const(gb, lw.astype(dt)), subtract(const(gb, 1.0), s)))
    if a.get("weight") is not None:
        gb = multiply(gb, const(gb, np.broadcast_to(np.asarray(a["weight"], dt), x.data.shape)))
    return multiply(gb, d), None


BCE_LOGITS = _reg("fused_binary_cross_entropy_with_logits", _bce_logits_fwd, _bce_logits_vjp,
                      diff_inputs=(0,), broadcast=True,
                      examples=[([(2, 3), np.array([[1.0, 0.0, 1.0], [0.0, 0.25, 1.0]])], {}),
                                ([(3,), np.array([1.0, 0.0, 1.0])], {"reduction": "sum"}),
                                ([(3,), np.array([1.0, 0.0, 1.0])],
                                 {"pos_weight": np.array([2.0, 1.0, 0.5]),
                                  "weight": np.array([1.0, 3.0, 1.0])})])


def binary_cross_entropy_with_logits(x, y, reduction="mean", weight=None, pos_weight=None):
    return apply(BCE_LOGITS, (x, y), {"reduction": reduction, "weight": weight,
                                      "pos_weight": pos_weight})


# ---------------------------------------------------------------- smooth L1 / Huber
def _huberish_fwd(x, y, delta=1.0, reduction="mean", smooth_l1=False):
    d = x - y
    a = np.abs(d)
    dl = np.asarray(delta, x.dtype)
    half = np.asarray(0.5, x.dtype)
    if smooth_l1:
        losses = np.where(a < dl, half * d * d / dl, a - half * dl)
    else:
        losses = np.where(a < dl, half * d * d, dl * (a - half * dl))
    return _reduce_loss(losses.astype(x.dtype), reduction)


def _huberish_vjp(n, g):
    x, y = n.inputs
    delta = n.attrs.get("delta", 1.0)
    d = x.data - y.data
    inside = np.abs(d) < delta
    gb = _loss_grad_scale(n, g, np.broadcast_shapes(x.data.shape, y.data.shape))
    slope = np.where(inside, 0.0, np.sign(d) * (1.0 if n.attrs.get("smooth_l1") else delta))
    lin = np.where(inside, (1.0 / delta) if n.attrs.get("smooth_l1") else 1.0, 0.0)
    dd = add(multiply(subtract(x, y), const(gb, lin.astype(gb.data.dtype))),
             const(gb, slope.astype(gb.data.dtype)))
    gx = multiply(gb, dd)
    return gx, multiply(gx, const(gx, -1.0))


HUBERISH = _reg("fused_huberish_loss", _huberish_fwd, _huberish_vjp, broadcast=True,
                    domain="distinct", second_order=False,
                    examples=[([(2, 3), (2, 3)], {}), ([(4,), (4,)], {"smooth_l1": True,
                                                                      "reduction": "sum"})])


def huberish_loss(x, y, delta=1.0, reduction="mean", smooth_l1=False):
    """Huber (``smooth_l1=False``) or smooth L1 (the quadratic part divided by delta)."""
    return apply(HUBERISH, (x, y), {"delta": float(delta), "reduction": reduction,
                                    "smooth_l1": bool(smooth_l1)})


# ---------------------------------------------------------------- small fused elementwise ops
def _add_scaled_vjp(n, g):
    return g, times(g, n.attrs["alpha"])


def _add_scaled_fwd(x, y, alpha=1.0):
    return np.asarray(x + np.asarray(alpha, y.dtype) * y)


ADD_SCALED = _reg("fused_add_scaled", _add_scaled_fwd,
                      _add_scaled_vjp, broadcast=True,
                      examples=[([(2, 3), (3,)], {"alpha": 2.0}), ([(3,), (3,)], {"alpha": -0.5})],
                      saves_inputs=False)


def add_scaled(x, y, alpha):
    """``x + alpha * y`` as one op (a framework's ``add(x, y, alpha=...)``)."""
    return apply(ADD_SCALED, (x, y), {"alpha": float(alpha)})


def _addcmul_fwd(x, t1, t2, value=1.0):
    return np.asarray(x + np.asarray(value, x.dtype) * t1 * t2)


def _addcmul_vjp(n, g):
    _x, t1, t2 = n.inputs
    v = n.attrs.get("value", 1.0)
    return g, times(multiply(g, t2), v), times(multiply(g, t1), v)


ADDCMUL = _reg("fused_addcmul", _addcmul_fwd, _addcmul_vjp, broadcast=True,
                   examples=[([(3,), (3,), (3,)], {"value": 0.5})])


def addcmul(x, t1, t2, value=1.0):
    return apply(ADDCMUL, (x, t1, t2), {"value": float(value)})


def _addcdiv_fwd(x, t1, t2, value=1.0):
    return np.asarray(x + np.asarray(value, x.dtype) * (t1 / t2))


def _addcdiv_vjp(n, g):
    _x, t1, t2 = n.inputs
    v = n.attrs.get("value", 1.0)
    q = divide(times(g, v), t2)
    return g, q, multiply(multiply(q, t1), times(divide(const(t2, 1.0), t2), -1.0))


ADDCDIV = _reg("fused_addcdiv", _addcdiv_fwd, _addcdiv_vjp, broadcast=True, domain="away0",
                   examples=[([(3,), (3,), (3,)], {"value": 0.5})])


def addcdiv(x, t1, t2, value=1.0):
    return apply(ADDCDIV, (x, t1, t2), {"value": float(value)})


def _hypot_vjp(n, g):
    x, y = n.inputs
    out = n.out()
    return multiply(g, divide(x, out)), multiply(g, divide(y, out))


HYPOT = _reg("fused_hypot", lambda x, y: np.asarray(np.hypot(x, y)), _hypot_vjp, broadcast=True,
                 domain="away0", examples=[([(3,), (3,)], {})])


def hypot(x, y):
    return apply(HYPOT, (x, y))


def _trace_vjp(n, g):
    shape = n.in_meta[0][0]
    eye = np.eye(shape[0], shape[1], dtype=g.data.dtype)
    return multiply(broadcast_to(reshape(g, (1, 1)), shape), const(g, eye))


TRACE = _reg("fused_trace", lambda x: np.asarray(np.trace(x)), _trace_vjp,
                 examples=[([(3, 3)], {}), ([(2, 3)], {})], saves_inputs=False)


def trace(x):
    return apply(TRACE, (x,))


def _dist_fwd(x, y, p=2.0):
    d = np.abs(x - y).astype(np.result_type(x, y))
    if p == 2.0:
        return np.asarray(np.sqrt(np.sum(d * d, dtype=d.dtype)), d.dtype)
    if p == np.inf:
        return np.asarray(d.max(), d.dtype)
    if p == 0:
        return np.asarray(np.count_nonzero(d), d.dtype)
    return np.asarray(np.power(np.sum(np.power(d, p), dtype=d.dtype), 1.0 / p), d.dtype)


def _dist_vjp(n, g):
    """d |x - y|_p / dx = sign(d) |d|^(p-1) / out^(p-1) (0 where out is 0); dy is its negative."""
    x, y = n.inputs
    p = n.attrs.get("p", 2.0)
    d = subtract(x, y)
    out = n.out_data[0]
    shape = np.broadcast_shapes(x.data.shape, y.data.shape)
    gb = broadcast_to(reshape(g, (1,) * len(shape)), shape) if shape else g
    if out == 0 or p == 0:
        gx = multiply(gb, const(gb, np.zeros(shape, gb.data.dtype)))
    elif p == 2.0:
        gx = multiply(gb, divide(d, const(gb, out)))
    else:
        dd = d.data
        w = np.sign(dd) * np.abs(dd) ** (p - 1) / out ** (p - 1)
        gx = multiply(gb, const(gb, w.astype(gb.data.dtype)))
    return gx, times(gx, -1.0)


DIST = _reg("fused_dist", _dist_fwd, _dist_vjp, broadcast=True, domain="distinct",
                second_order=False, examples=[([(3,), (3,)], {}), ([(2, 3), (3,)], {"p": 3.0})])


def dist(x, y, p=2.0):
    return apply(DIST, (x, y), {"p": float(p)})


def _nan_to_num_fwd(x, nan=0.0, posinf=None, neginf=None):
    return np.nan_to_num(x, nan=nan, posinf=posinf, neginf=neginf).astype(x.dtype)


def _nan_to_num_vjp(n, g):
    return multiply(g, const(g, np.isfinite(n.inputs[0].data).astype(g.data.dtype)))


NAN_TO_NUM = _reg("fused_nan_to_num", _nan_to_num_fwd, _nan_to_num_vjp, check=False,
                      examples=[([(3,)], {})])


def nan_to_num(x, nan=0.0, posinf=None, neginf=None):
    return apply(NAN_TO_NUM, (x,), {"nan": nan, "posinf": posinf, "neginf": neginf})


# ---------------------------------------------------------------- nll_loss, any input shape
def _nll_layout(x, target, weight, ignore_index):
    """(picked log-probabilities, their weights, a one-hot of -weight) for input x of shape
    (C,), (N, C) or (N, C, d1, ...) and integer targets of the matching shape."""
    if x.ndim == 1:
        xc = x.reshape(1, -1)
        t = np.asarray(target).reshape(1)
    else:
        xc = np.moveaxis(x, 1, -1).reshape(-1, x.shape[1])
        t = np.asarray(target).reshape(-1)
    valid = t != ignore_index
    idx = np.where(valid, t, 0).astype(np.int64)
    picked = xc[np.arange(xc.shape[0]), idx]
    w = np.where(valid, np.asarray(weight)[idx], 0).astype(x.dtype)
    hot = np.zeros(xc.shape, x.dtype)
    hot[np.arange(xc.shape[0]), idx] = -w
    return picked, w, hot


def _unlayout(hot, shape):
    """A (rows, C) array back to the input's layout."""
    if len(shape) == 1:
        return hot.reshape(shape)
    moved = hot.reshape((shape[0],) + tuple(shape[2:]) + (shape[1],))
    return np.moveaxis(moved, -1, 1)


def _nll2_fwd(x, target, weight, ignore_index=-100, reduction="mean"):
    picked, w, _hot = _nll_layout(x, target, weight, ignore_index)
    losses = (-picked * w).astype(x.dtype)
    if reduction == "none":
        shape = () if x.ndim == 1 else (x.shape[0],) + x.shape[2:]
        return losses.reshape(shape)
    total = np.sum(losses, dtype=x.dtype)
    if reduction == "mean":
        total = total / np.sum(w, dtype=x.dtype)
    return np.asarray(total, x.dtype)


def _nll_coef_fwd(target, x_shape, dtype, weight, ignore_index=-100, reduction="mean"):
    """The one-hot of -weight at the targets (divided by the total weight for 'mean'), in the
    input's layout: nll_loss's gradient per unit of the loss's gradient."""
    dummy = np.zeros(x_shape, dtype)
    _p, w, hot = _nll_layout(dummy, target, weight, ignore_index)
    if reduction == "mean":
        # (torch's kernel: weight * -(1 / total weight); -weight / total rounds otherwise)
        inv = -(dtype.type(1) / np.sum(w, dtype=dtype))
        hot = np.where(hot != 0, (-hot) * inv, hot).astype(dtype)
    return _unlayout(hot, x_shape)


# an op of the target (no gradient) rather than a constant the VJP computes, so that a
# recorder (vmap's trace) sees where the coefficients come from
NLL_COEF = _reg("fused_nll_coef", _nll_coef_fwd, None, check=False)


def _nll2_vjp(n, g):
    """Linear in g: g (broadcast over the classes) times the one-hot of -weight (divided by the
    total weight for 'mean')."""
    a = n.attrs
    x_shape, dt = n.in_meta[0]
    red = a.get("reduction", "mean")
    coef = apply(NLL_COEF, (const(g, a["target"], np.asarray(a["target"]).dtype),),
                 {"x_shape": tuple(x_shape), "dtype": np.dtype(dt), "weight": a["weight"],
                  "ignore_index": a.get("ignore_index", -100), "reduction": red})
    if red == "none" and len(x_shape) > 1:
        gk = broadcast_to(reshape(g, (x_shape[0], 1) + tuple(x_shape[2:])), x_shape)
    else:
        gk = broadcast_to(reshape(g, (1,) * len(x_shape)), x_shape)
    return multiply(gk, coef)


NLL2 = _reg("fused_nll_loss", _nll2_fwd, _nll2_vjp,
                examples=[([(3, 4)], {"target": np.array([0, 3, 1]), "weight": np.ones(4)}),
                          ([(4,)], {"target": np.array(2), "weight": np.ones(4),
                                    "reduction": "sum"}),
                          ([(2, 3, 2)], {"target": np.array([[0, 2], [1, 1]]),
                                         "weight": np.array([1.0, 2.0, 0.5]),
                                         "reduction": "none"})],
                saves_inputs=False)


def nll_loss(x, target, weight, ignore_index=-100, reduction="mean"):
    """Negative log-likelihood of integer ``target`` classes (class axis 1, or 0 for 1-D x)."""
    return apply(NLL2, (x,), {"target": np.asarray(target), "weight": np.asarray(weight),
                              "ignore_index": int(ignore_index), "reduction": reduction})


# ---------------------------------------------------------------- clamp with tensor bounds
def _clamp3_fwd(x, lo, hi):
    return np.asarray(np.minimum(np.maximum(x, lo), hi)).astype(x.dtype)


def _clamp3_vjp(n, g):
    x, lo, hi = (t.data for t in n.inputs)
    shape = g.data.shape
    inside = np.broadcast_to((x >= lo) & (x <= hi), shape)
    below = np.broadcast_to(x < lo, shape)
    above = np.broadcast_to(x > hi, shape)
    dt = g.data.dtype
    return (multiply(g, const(g, inside.astype(dt))), multiply(g, const(g, below.astype(dt))),
            multiply(g, const(g, above.astype(dt))))


CLAMP3 = _reg("fused_clamp", _clamp3_fwd, _clamp3_vjp, broadcast=True, domain="distinct",
                  check=False, examples=[([(3,), (3,), (3,)], {})])


def clamp(x, lo, hi):
    return apply(CLAMP3, (x, lo, hi))


# ---------------------------------------------------------------- xlogy
def _xlogy_fwd(x, y):
    with quiet(divide="ignore", invalid="ignore"):
        out = np.where(x == 0, np.zeros((), np.result_type(x, y)), x * np.log(y))
    return np.asarray(np.where(np.isnan(y), y, out)).astype(np.result_type(x, y))


def _xlogy_vjp(n, g):
    """dx = g log(y) (0 where x is 0), dy = g x / y."""
    from .math import log

    x, y = n.inputs
    keep = const(g, (x.data != 0).astype(g.data.dtype))
    return multiply(g, multiply(log(y), keep)), multiply(g, divide(x, y))


XLOGY = _reg("fused_xlogy", _xlogy_fwd, _xlogy_vjp, broadcast=True, domain="positive",
                 examples=[([(3,), (3,)], {})])


def xlogy(x, y):
    return apply(XLOGY, (x, y))


# ---------------------------------------------------------------- logaddexp
def _logaddexp_vjp(n, g):
    """d/da = exp(a - out), d/db = exp(b - out)."""
    from .math import exp

    a, b = n.inputs
    out = n.out()
    return multiply(g, exp(subtract(a, out))), multiply(g, exp(subtract(b, out)))


LOGADDEXP = _reg("fused_logaddexp", lambda a, b: np.asarray(np.logaddexp(a, b)), _logaddexp_vjp,
                 broadcast=True, examples=[([(3,), (3,)], {}), ([(2, 3), (3,)], {})])


def logaddexp(a, b):
    return apply(LOGADDEXP, (a, b))
