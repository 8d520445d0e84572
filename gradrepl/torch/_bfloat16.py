"""torch's ``bfloat16`` on the CPU: stored as numpy ``uint16`` bits, computed in float32.

numpy has no bfloat16; a bfloat16 value is the upper half of a float32, so the dialect keeps its
16 bits in a ``uint16`` array (``torch.bfloat16.np``; the Paddle dialect stores its bfloat16 the
same way). Converting to bfloat16 is c10's ``round_to_nearest_even`` (a NaN becomes 0x7FC0; a
Python number goes through float32 first, as ``c10::BFloat16(float)``); back to float32 is exact.

ATen computes a bfloat16 op by converting its inputs to float32, computing in float32 and rounding
the result once (the vectorized kernels convert 16 at a time; the reductions accumulate in
float32). The engine hands every op whose first input holds these bits to ``STORAGE.apply``
(``engine.registry.STORAGE``): ops that only move elements run on the bits, any other through
float32 with its float outputs rounded back; gradients arriving at one variable are summed in
float32 and rounded once (``STORAGE.add``). The dialect's own conversions (``to``, constants,
creation) call ``astype`` / ``from_float`` here.
"""
from __future__ import annotations

import copy

import numpy as np

BITS = np.dtype(np.uint16)
F32 = np.dtype(np.float32)
NAN = 0x7FC0  # c10::BFloat16's NaN (round_to_nearest_even)


def to_float32(bits) -> np.ndarray:
    """bfloat16 bits -> the float32 values they stand for (exact)."""
    b = np.asarray(bits, BITS)
    return (b.astype(np.uint32) << 16).view(np.float32).reshape(b.shape)


def from_float(values) -> np.ndarray:
    """Values of any real dtype -> bfloat16 bits, rounded to nearest even through float32."""
    f = np.asarray(values)
    if f.dtype == BITS:
        return np.array(f)
    if f.dtype.kind == "c":
        f = np.real(f)
    with np.errstate(over="ignore", invalid="ignore"):
        f = np.array(f, dtype=F32)  # a C-ordered copy (0-D stays 0-D)
    u = f.view(np.uint32).reshape(f.shape)
    bits = np.asarray(((u + (np.uint32(0x7FFF) + ((u >> 16) & np.uint32(1)))) >> 16)
                      .astype(BITS)).reshape(f.shape)
    nan = np.isnan(f)
    if nan.any():
        bits[nan] = NAN
    return bits


def is_bf16(a) -> bool:
    return getattr(a, "dtype", a) == BITS


def values(a) -> np.ndarray:
    """An array's values as numbers: bfloat16 bits as float32, anything else unchanged."""
    return to_float32(a) if a.dtype == BITS else a


def astype(a, npdtype, order="K") -> np.ndarray:
    """``a.astype(npdtype)`` where either side may be bfloat16 bits (a bool or integer target
    converts from the float32 values, as c10's casts from float do)."""
    npdtype = np.dtype(npdtype)
    if a.dtype == BITS:
        if npdtype == BITS:
            return np.array(a, order=order)
        f = to_float32(a)
        if npdtype == F32:
            return f
        with np.errstate(invalid="ignore", over="ignore"):
            if npdtype == np.uint8:
                return f.astype(np.int64).astype(np.uint8)
            return f.astype(npdtype, order=order)
    if npdtype == BITS:
        return from_float(a)
    return a.astype(npdtype, order=order)


def filled(fn, shape, npdtype, *args) -> np.ndarray:
    """``fn(shape, *args, npdtype)`` (``np.ones``, ``np.full``, ``np.eye``); bfloat16: made in
    float32 and rounded (each value once)."""
    if np.dtype(npdtype) == BITS:
        with np.errstate(over="ignore", invalid="ignore"):
            return from_float(fn(shape, *args, F32) if fn is not np.eye
                              else fn(shape, *args, dtype=F32))
    return fn(shape, *args, npdtype) if fn is not np.eye else fn(shape, *args, dtype=npdtype)


def item(a):
    """One element's Python float (``.item()``, ``float(t)``)."""
    return float(to_float32(np.asarray(a).reshape(-1)[:1])[0])


def tolist(a):
    return to_float32(a).astype(np.float64).tolist()


# --------------------------------------------------------------------------- the engine hook
#: ops that only move elements (or pick by a mask/index): run on the bits as they are
MOVES = frozenset({
    "reshape", "squeeze", "unsqueeze", "flatten", "transpose", "expand", "broadcast_to",
    "slice", "strided_slice", "gather", "index_select", "stack", "split", "unbind", "assign",
    "index_elementwise_get", "diagonal", "concat", "masked_select", "tile", "flip", "roll",
    "take_along_axis", "gather_nd", "embedding", "tril", "triu", "pad", "where", "set_value",
    "set_value_with_tensor", "masked_fill", "diag", "diag_embed", "unpool", "nonzero"})
#: ops whose forward reads no float values of a bfloat16 input (shape, count): as they are
_NO_VALUES = frozenset({"nonzero"})


class Storage:
    """What the engine asks about arrays of torch's bfloat16 bits."""

    def __init__(self):
        self._ops = {}      # engine op -> its bfloat16 twin (forward through float32)
        self._own = set()   # the twins themselves (ids)

    def apply(self, op, inputs, attrs):
        if id(op) in self._own or op.name in MOVES and op.name not in SPECIAL:
            return NotImplemented
        from ..engine.registry import apply

        return apply(self._twin(op), inputs, attrs)

    def add(self, a, b):
        """Two bfloat16 gradients summed (in float32, rounded once)."""
        return from_float(to_float32(a) + values(b))

    def cast_op(self, op):
        """The dialect's cast op (``ToCopyBackward0``) to or from bfloat16: converts, and its
        gradient goes back to the source dtype."""
        twin = self._ops.get(("cast", op))
        if twin is None:
            twin = copy.copy(op)
            object.__setattr__(twin, "forward", _cast_forward)
            object.__setattr__(twin, "vjp", _cast_vjp)
            self._ops[("cast", op)] = twin
            self._own.add(id(twin))
        return twin

    def _twin(self, op):
        twin = self._ops.get(op)
        if twin is None:
            twin = copy.copy(op)  # (the class and the dialect's attributes kept)
            object.__setattr__(twin, "forward", _through_float32(op))
            if op.name == "cast":
                object.__setattr__(twin, "vjp", _cast_vjp)
            vjp = VJP.get(getattr(op, "torch_name", None))
            if vjp is not None:
                object.__setattr__(twin, "vjp", vjp)
            self._ops[op] = twin
            self._own.add(id(twin))
        return twin


def _through_float32(op):
    fwd = op.forward
    if op.name == "cast":
        return _cast_forward
    special = SPECIAL.get(getattr(op, "torch_name", None)) or SPECIAL.get(op.name)
    if special is not None:
        return special

    def run(*arrays, **attrs):
        args = [to_float32(a) if a.dtype == BITS else a for a in arrays]
        out = fwd(*args, **attrs)
        if isinstance(out, tuple):
            return tuple(_back(o) for o in out)
        return _back(out)

    return run


def _back(out):
    out = np.asarray(out)
    return from_float(out) if out.dtype == F32 else out


def _cast_forward(x, dtype):
    return astype(x, dtype)


def _cast_vjp(n, g):
    from ..engine.ops.math import cast

    src = n.in_meta[0][1]
    return cast(g, src) if src.kind in "fc" or src == BITS else None


class Shared:
    """The engine's slot for ``uint16`` arrays when both dialects keep bfloat16 in them: an op
    goes to the hook of its first input's dialect; a gradient sum to the dialect that ran the
    last op (the backward running)."""

    def __init__(self, torch_storage, other=None):
        self.torch = torch_storage
        self.other = other
        self._last = torch_storage

    def joined(self, other):
        self.other = other
        return self

    def apply(self, op, inputs, attrs):
        from ._tensor import Tensor

        s = self.torch if isinstance(inputs[0], Tensor) or self.other is None else self.other
        self._last = s
        return s.apply(op, inputs, attrs)

    def add(self, a, b):
        return self._last.add(a, b)

    def from_values(self, like, values):
        """Numbers -> the bits of ``like``'s dialect (the engine's constants)."""
        from ._tensor import Tensor

        if isinstance(like, Tensor) or self.other is None:
            return from_float(values)
        from ..paddle.bf16 import from_float as paddle_from_float

        return paddle_from_float(values)


STORAGE = Storage()


def _register():
    from ..engine.registry import STORAGE as engine_storage

    prior = engine_storage.get(BITS)
    if isinstance(prior, Shared):
        return
    engine_storage[BITS] = Shared(STORAGE, prior)


_register()


# --------------------------------------------------------------------------- ATen's own kernels
def _vector_mask(shape, block=32):
    """Which values ATen's ``cpu_kernel_vec`` runs in its vector loop: blocks of two
    ``Vectorized<BFloat16>`` (32 values), the rest in the scalar loop (c10::BFloat16
    arithmetic, each operation rounded)."""
    from ._kernels import vector_mask

    n = int(np.prod(shape)) if shape else 1
    return vector_mask(n, block).reshape(shape)


def _add_alpha(x, y, alpha=1.0):
    """``add(x, y, alpha=a)``: a is rounded to bfloat16; the vector loop converts to float and
    fuses (``vec::fmadd(y, a, x)``), the scalar loop rounds ``a * y`` first (ufunc/add.h);
    a broadcast operand's rows each have their own loop."""
    from ._norm_kernels import fma

    a = to_float32(from_float(np.float32(alpha)))
    shape = np.broadcast_shapes(x.shape, y.shape)
    xf = np.broadcast_to(to_float32(x), shape)
    yf = np.broadcast_to(values(y).astype(F32), shape)
    with np.errstate(all="ignore"):
        vec = from_float(np.asarray(fma(yf, a, xf), F32))
        tail = from_float(xf + to_float32(from_float(a * yf)))
    if x.shape == y.shape:
        mask = _vector_mask(shape)
    else:
        row = shape[-1] if shape else 1
        mask = np.broadcast_to(np.arange(row) < row // 32 * 32, shape)
    return np.where(mask, vec, tail)


def _rsqrt(x, **_kw):
    """``rsqrt``: the vector loop ``1 / sqrt(x)`` in float, rounded once; the scalar loop's
    ``std::sqrt(BFloat16)`` rounds the root first."""
    f = to_float32(x)
    with np.errstate(all="ignore"):
        vec = from_float(np.float32(1) / np.sqrt(f))
        tail = from_float(np.float32(1) / to_float32(from_float(np.sqrt(f))))
    return np.where(_vector_mask(f.shape), vec, tail)


def _cumsum(x, axis=0, **_kw):
    """``cumsum``: a float accumulator (``acc_type<BFloat16, false>``), each output rounded."""
    return from_float(np.cumsum(to_float32(x), axis=axis, dtype=F32))


def _log_softmax(x, axis=-1, **_kw):
    """``log_softmax``: max and the sum of exp(x - max) in float; the sum and its log are each
    rounded to bfloat16, then ``x - max - log(sum)`` in float rounded once (matched 100% on
    random rows against torch 2.13 here; the plain float32 kernel then one rounding: 85%)."""
    f = to_float32(x)
    if f.ndim == 0:
        return from_float(np.zeros((), F32))
    with np.errstate(all="ignore"):
        m = f.max(axis=axis, keepdims=True)
        s = np.exp(f - m).sum(axis=axis, keepdims=True, dtype=F32)
        lse = to_float32(from_float(np.log(to_float32(from_float(s)))))
        return from_float((f - m) - lse)


def _bf(v):
    """One Python float rounded to bfloat16 (as a float)."""
    return float(to_float32(from_float(np.float32(v))))


def _nll_cascade(picked):
    """``nll_loss_out_frame``'s cascaded sum in c10::BFloat16 arithmetic (every ``+=`` rounded):
    8 levels of 16, the first value carried to the top, the levels added in order at the end."""
    levels, power = 8, 4
    part = [0.0] * levels
    for b, v in enumerate(picked):
        part[0] = _bf(part[0] - v)
        for j in range(levels - 1):
            if b & (15 << (j * power)):
                break
            part[j + 1] = _bf(part[j + 1] + part[j])
            part[j] = 0.0
    acc = 0.0
    for p in part:
        acc = _bf(acc + p)
    return acc


def _nll_rows(x, target, ignore_index):
    f = to_float32(x)
    f = f.reshape(1, -1) if f.ndim == 1 else f
    t = np.asarray(target).reshape(-1).astype(np.int64)
    return f, t, t != ignore_index


def _nll(x, target=None, weight=None, ignore_index=-100, reduction="mean"):
    """``nll_loss`` (1-D/2-D input): the picked values times the weight, summed as
    ``_nll_cascade``, divided by the total weight, all in bfloat16 (matched 300 of 300 random
    batches against torch 2.13 here; a float sum rounded once: 112)."""
    f, t, valid = _nll_rows(x, target, ignore_index)
    w = np.asarray(weight, F32)
    wt = to_float32(from_float(np.where(valid, w[np.where(valid, t, 0)], 0)))
    picked = to_float32(from_float(f[np.arange(len(t)), np.where(valid, t, 0)] * wt))
    if reduction == "none":
        out = from_float(np.where(valid, -picked, np.float32(0)))
        return out.reshape(()) if x.ndim == 1 else out
    total = _nll_cascade(picked[valid].tolist())
    if reduction == "mean":
        weighted = bool((w != 1).any())
        tw = _nll_cascade((-wt[valid]).tolist()) if weighted else _bf(int(valid.sum()))
        total = _bf(np.float32(total) / np.float32(tw))
    return from_float(np.float32(total))


def _nll_vjp(n, g):
    """``nll_loss_backward``: ``-(grad / total_weight)`` in bfloat16 at each row's target
    (times the class weight)."""
    from ._base import raw

    a = n.attrs
    x_shape = n.in_meta[0][0]
    f, t, valid = _nll_rows(np.zeros(x_shape, BITS), a["target"], a.get("ignore_index", -100))
    w = np.asarray(a["weight"], F32)
    wt = to_float32(from_float(np.where(valid, w[np.where(valid, t, 0)], 0)))
    gv = to_float32(raw(g)).reshape(-1)
    red = a.get("reduction", "mean")
    hot = np.zeros(f.shape, F32)
    rows = np.arange(len(t))[valid]
    if red == "none":
        vals = -gv[valid]
    else:
        gg = gv[0]
        if red == "mean":
            weighted = bool((w != 1).any())
            tw = _nll_cascade((-wt[valid]).tolist()) if weighted else _bf(int(valid.sum()))
            gg = _bf(np.float32(gg) / np.float32(tw))
        vals = np.full(rows.size, -gg, F32)
    hot[rows, t[valid]] = to_float32(from_float(vals * wt[valid])) if (w != 1).any() else vals
    return (type(g)._wrap(from_float(hot).reshape(x_shape), True),)


def _wrap_like(g, arr):
    return type(g)._wrap(arr, True)


def _sigmoid_vjp(n, g):
    """``sigmoid_backward``: ``grad * (1 - y) * y`` in float, rounded once (BinaryOpsKernel)."""
    from ._base import raw

    y, gf = to_float32(raw(n.out())), to_float32(raw(g))
    return (_wrap_like(g, from_float(gf * (np.float32(1) - y) * y)),)


def _layer_norm_vjp(n, g):
    """``layer_norm``'s backward kernel on bfloat16: the float kernel on the values (row moments
    recomputed in float), each gradient rounded once."""
    from ._base import raw
    from . import _norm_kernels as K
    from ..engine.registry import needs_grad

    x = to_float32(raw(n.inputs[0]))
    b = n.attrs.get("begin_norm_axis", 1)
    lead = int(np.prod(x.shape[:b], dtype=np.int64))
    rows = np.ascontiguousarray(x).reshape(lead, -1)
    mean, var = K.row_moments(rows)
    rstd = (np.float32(1) / np.sqrt(var + np.float32(n.attrs.get("epsilon", 1e-5))))
    w_t = n.inputs[1]
    wv = values(raw(w_t)).astype(F32) if n.attrs.get("has_weight", True) else None
    want = (needs_grad(n, 0), needs_grad(n, 1), needs_grad(n, 2))
    gr = np.ascontiguousarray(to_float32(raw(g))).reshape(lead, -1)
    dx, dw, db = K.layer_norm_backward(rows, gr, wv, mean, rstd.astype(F32), want)
    shp = raw(w_t).shape
    back = (lambda a, like: from_float(a) if raw(like).dtype == BITS else a.astype(raw(like).dtype))
    return (None if dx is None else _wrap_like(g, from_float(dx.reshape(x.shape))),
            None if dw is None else _wrap_like(g, back(dw.reshape(shp), w_t)),
            None if db is None else _wrap_like(g, back(db.reshape(shp), n.inputs[2])))


#: op name (or the dialect's node name) -> its forward on the bits
SPECIAL = {"fused_add_scaled": _add_alpha, "rsqrt": _rsqrt, "cumsum": _cumsum,
           "log_softmax": _log_softmax, "NllLossBackward0": _nll}
#: the dialect's node name -> its VJP on bfloat16 (ATen's backward kernel)
VJP = {"NllLossBackward0": _nll_vjp, "SigmoidBackward0": _sigmoid_vjp,
       "NativeLayerNormBackward0": _layer_norm_vjp}


# --------------------------------------------------------------------------- torch.autocast
#: the lower-precision dtype of an entered CPU ``torch.autocast`` (None outside one)
AUTOCAST = [None]


def _eligible(a) -> bool:
    """autocast casts floating tensors other than float64 (``is_eligible``)."""
    return a.kind == "f" and a != np.float64 or a == BITS


def autocast_to(dt, *ts):
    """The tensors among ``ts`` that autocast casts, in ``dt`` (a ``ToCopyBackward0`` node for
    one that takes a gradient); anything else as it is."""
    from ._base import EngineTensor, raw
    from ._ops import to_dtype

    return tuple(to_dtype(t, dt) if isinstance(t, EngineTensor) and raw(t).dtype != dt and
                 _eligible(raw(t).dtype) else t for t in ts)


def lower(*ts):
    """autocast's ``lower_precision_fp`` policy (linear, matmul, mm, bmm, addmm, baddbmm,
    addbmm, conv*, prelu, scaled_dot_product_attention on the CPU)."""
    return autocast_to(AUTOCAST[0], *ts)


def fp32(*ts):
    """autocast's ``fp32`` policy (mse_loss, nll_loss, cross_entropy, binary_cross_entropy ...)."""
    return autocast_to(F32, *ts)


# --------------------------------------------------------------------------- attention
def sdpa(q, k, v, mask, causal, scale):
    """``scaled_dot_product_attention`` on bfloat16 as torch's CPU flash kernel computes it: the
    scores ``q k^T * scale`` (+ mask) and the softmax in float, the exponentials rounded to
    bfloat16 for ``P v`` (float accumulation), the output times 1/sum rounded once. Written with
    the dialect's ops, so it differentiates (not the kernel's own backward)."""
    before, AUTOCAST[0] = AUTOCAST[0], None  # (inside the op autocast is off, as in ATen)
    try:
        return _sdpa(q, k, v, mask, causal, scale)
    finally:
        AUTOCAST[0] = before


def _sdpa(q, k, v, mask, causal, scale):
    from . import _ops
    from ._base import raw

    qf, kf, vf = (_ops.to_dtype(t, F32) for t in (q, k, v))
    s = _ops.mul(_ops.matmul(qf, _ops.transpose(kf, -2, -1)), float(scale))
    L, S = raw(qf).shape[-2], raw(kf).shape[-2]
    if causal:
        from ._tensor import Tensor

        s = _ops.masked_fill(s, Tensor._wrap(~np.tril(np.ones((L, S), bool)), True),
                             float("-inf"))
    elif mask is not None:
        if raw(mask).dtype == np.bool_:
            from ._tensor import Tensor

            s = _ops.masked_fill(s, Tensor._wrap(~raw(mask), True), float("-inf"))
        else:
            s = _ops.add(s, _ops.to_dtype(mask, F32))
    m = raw(_ops.amax(s, -1, keepdim=True))
    m = np.where(np.isneginf(m), np.float32(0), m).astype(F32)
    from ._tensor import Tensor

    e = _ops.exp(_ops.sub(s, Tensor._wrap(m, True)))
    total = _ops.sum(e, -1, keepdim=True)
    p = _ops.to_dtype(_ops.to_dtype(e, BITS), F32)
    out = _ops.mul(_ops.matmul(p, vf), _ops.reciprocal(total))
    return _ops.to_dtype(out, BITS)


# --------------------------------------------------------------------------- embedding
def embedding_op(op):
    """The dialect's embedding op for a bfloat16 weight: its gradient is ATen's
    ``embedding_dense_backward_cpu`` (``cpublas::axpy`` into each row in the ids' order, every
    addition rounded to bfloat16), not differentiable again."""
    twin = STORAGE._ops.get(("embedding", op))
    if twin is None:
        twin = copy.copy(op)
        object.__setattr__(twin, "vjp", _embedding_vjp)
        STORAGE._ops[("embedding", op)] = twin
    return twin


def _embedding_vjp(n, g):
    from ._base import raw

    ids = raw(n.inputs[0]).astype(np.int64).reshape(-1)
    rows = n.in_meta[1][0][0]
    pad = n.attrs.get("padding_idx", -1)
    gf = to_float32(raw(g)).reshape(ids.size, -1)
    acc = np.zeros((rows, gf.shape[1]), F32)
    for k, i in enumerate(ids.tolist()):
        if i != pad:
            acc[i] = to_float32(from_float(acc[i] + gf[k]))
    return None, type(g)._wrap(from_float(acc), True)
