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


_TENSOR = []


def _tensor_class():
    if not _TENSOR:
        from ._tensor import Tensor

        _TENSOR.append(Tensor)
    return _TENSOR[0]


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
        s = self.torch if self.other is None or isinstance(inputs[0], _tensor_class()) \
            else self.other
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


def add_alpha(x, y, alpha):
    """``x.add(y, alpha=alpha)`` on bfloat16 bits (the optimizers' helper): ``_add_alpha``."""
    return _add_alpha(np.asarray(x), np.asarray(y), alpha)


def lerp_scalar(x, end, weight):
    """``x.lerp_(end, weight)`` for a number weight on bfloat16: the weight in float (opmath),
    ``fmadd(w, end - x, x)`` for |w| < 0.5 else ``fmadd(w - 1, end - x, end)``, rounded once."""
    from ._norm_kernels import fma

    xf, ef = to_float32(x), values(np.asarray(end)).astype(F32)
    w = np.float32(weight)
    with np.errstate(all="ignore"):
        d = (ef - xf).astype(F32)
        if abs(w) < 0.5:
            out = fma(np.full_like(d, w), d, xf)
        else:
            out = fma(np.full_like(d, np.float32(w - np.float32(1))), d, ef)
    return from_float(np.asarray(out, F32))


def _rsqrt(x, **_kw):
    """``rsqrt``: the vector loop ``1 / sqrt(x)`` in float, rounded once; the scalar loop's
    ``std::sqrt(BFloat16)`` rounds the root first."""
    f = to_float32(x)
    with np.errstate(all="ignore"):
        vec = from_float(np.float32(1) / np.sqrt(f))
        tail = from_float(np.float32(1) / to_float32(from_float(np.sqrt(f))))
    return np.where(_vector_mask(f.shape), vec, tail)


def _pow_scalar(x, factor=1.0, **_kw):
    """``pow(x, number)`` on bfloat16 (PowKernel.cpp): 0.5, -0.5, -1 are sqrt, rsqrt and
    reciprocal; 2, 3, -2 are ``x * x``, ``x * x * x``, ``1 / (x * x)`` in c10::BFloat16
    arithmetic (each operation rounded); any other exponent is rounded to bfloat16 and
    ``powf`` in float rounded once."""
    f = float(factor)
    xf = to_float32(x)
    one = np.float32(1)
    with np.errstate(all="ignore"):
        if f == 0:
            return from_float(np.ones_like(xf))
        if f == 1:
            return np.array(x)
        if f == 0.5:
            return from_float(np.sqrt(xf))
        if f == -0.5:
            return _rsqrt(x)
        if f == -1:
            return from_float(one / xf)
        sq = to_float32(from_float(xf * xf))
        if f == 2:
            return from_float(sq)
        if f == 3:
            return from_float(sq * xf)
        if f == -2:
            return from_float(one / sq)
        e = to_float32(from_float(np.float32(f)))
        return from_float(np.power(xf.astype(np.float64), np.float64(e)).astype(F32))


def _cumsum(x, axis=0, **_kw):
    """``cumsum``: a float accumulator (``acc_type<BFloat16, false>``), each output rounded."""
    return from_float(np.cumsum(to_float32(x), axis=axis, dtype=F32))


def _log_softmax(x, axis=-1, **_kw):
    """``log_softmax``: max and the sum of exp(x - max) in float (SLEEF's u10 exp, emulated: the
    same on every CPU); the sum and its log are each
    rounded to bfloat16, then ``x - max - log(sum)`` in float rounded once (matched 100% on
    random rows against torch 2.13 here; the plain float32 kernel then one rounding: 85%)."""
    f = to_float32(x)
    if f.ndim == 0:
        return from_float(np.zeros((), F32))
    from ._lecture_kernels import expf_u10
    from ..engine.ops import _kernels as K

    with np.errstate(all="ignore"):
        m = f.max(axis=axis, keepdims=True)
        s = expf_u10((f - m).astype(F32)).sum(axis=axis, keepdims=True, dtype=F32)
        lse = to_float32(from_float(K.libm("log", np.log)(to_float32(from_float(s)))))
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
    """``layer_norm``'s backward kernel on bfloat16 (layer_norm_kernel.cpp): with a bfloat16 (or
    no) weight the saved mean and rstd are bfloat16 too; dX in float from them, rounded once;
    dgamma/dbeta summed per thread into bfloat16 buffers (each row's update rounded), the
    threads' buffers then added in float (rounded again for a bfloat16 weight)."""
    from ._base import raw
    from . import _norm_kernels as K
    from ..engine.registry import needs_grad

    x = to_float32(raw(n.inputs[0]))
    b = n.attrs.get("begin_norm_axis", 1)
    lead = int(np.prod(x.shape[:b], dtype=np.int64))
    rows = np.ascontiguousarray(x).reshape(lead, -1)
    w_t = n.inputs[1]
    has_w = n.attrs.get("has_weight", True)
    half = not has_w or raw(w_t).dtype != F32   # T2: bfloat16 unless the weight is float32
    mean, var = K.row_moments(rows)
    with np.errstate(all="ignore"):
        rstd = (np.float32(1) / np.sqrt(var + np.float32(n.attrs.get("epsilon", 1e-5))))
    rstd = rstd.astype(F32)
    if half:
        mean, rstd = to_float32(from_float(mean)), to_float32(from_float(rstd))
    wv = values(raw(w_t)).astype(F32) if has_w else None
    gr = np.ascontiguousarray(to_float32(raw(g))).reshape(lead, -1)
    dx = dw = db = None
    if needs_grad(n, 0):
        dx = K.layer_norm_backward(rows, gr, wv, mean, rstd, (True, False, False))[0]
        dx = _wrap_like(g, from_float(dx.reshape(x.shape)))
    want_w, want_b = needs_grad(n, 1), needs_grad(n, 2)
    if want_w or want_b:
        blocks = K._chunks(lead)
        bw = np.zeros((K.THREADS, rows.shape[1]), F32)
        bb = np.zeros((K.THREADS, rows.shape[1]), F32)
        with np.errstate(all="ignore"):
            for t, (s0, e0) in enumerate(blocks):
                for i in range(s0, e0):
                    a = rstd[i]
                    inner = K.fma(np.full_like(rows[i], a), rows[i], np.full_like(rows[i], -a * mean[i]))
                    bw[t] = to_float32(from_float(K.fma(gr[i], inner, bw[t])))
                    bb[t] = to_float32(from_float(bb[t] + gr[i]))
        sw, sb = np.zeros(rows.shape[1], F32), np.zeros(rows.shape[1], F32)
        for t in range(K.THREADS):
            sw, sb = sw + bw[t], sb + bb[t]
        shp = raw(w_t).shape
        back = (lambda v: from_float(v) if half else v)
        dw = _wrap_like(g, back(sw).reshape(shp)) if want_w else None
        db = _wrap_like(g, back(sb).reshape(shp)) if want_b else None
    return dx, dw, db


_K_BLOCK = 512
#: products with more multiply-adds than this (134M: a 1024x768 @ 768x170 one) take float32
#: BLAS and one rounding instead of the pair-by-pair sums (~2.7 ns a multiply-add here, 1.6 s
#: for 1024x768x768, where BLAS's order differed from oneDNN's in 1 value of 7,500: 99.987%)
_EXACT_MACS = 1 << 27


def amx() -> bool:
    """Whether oneDNN runs its bfloat16 products on AMX tiles here (``brg_matmul:
    avx10_1_512_amx`` in ONEDNN_VERBOSE under real torch 2.13 on a Sapphire Rapids Xeon): the
    CPU has amx_bf16, amx_tile and avx512_bf16 (``engine/cpu``'s flags, ``GRADREPL_CPUINFO``'s
    file where set), and neither ``GRADREPL_ONEDNN_ISA`` nor oneDNN's own ``ONEDNN_MAX_CPU_ISA``
    (which real torch honours) names an ISA without AMX."""
    import os

    from ..engine import cpu

    for var in ("GRADREPL_ONEDNN_ISA", "ONEDNN_MAX_CPU_ISA", "DNNL_MAX_CPU_ISA"):
        forced = os.environ.get(var, "").strip().lower()
        if forced and forced != "all":
            return "amx" in forced
    return cpu.x86() and {"amx_bf16", "amx_tile", "avx512_bf16"} <= cpu._cpuinfo()[1]


def _amx_sums(xf, yf, shape):
    """AMX's ``tdpbf16ps`` as real torch's products show it (probed on crafted cancellations,
    then 0 of 45,056 random heavy-tailed values differing, K 64 to 2048): per instruction 32 k
    (16 pairs), the even k's products summed in order in float32, the odd k's likewise, the
    two added, and that added into the running float32 total (each addition rounded); no
    further blocking of K."""
    k = xf.shape[-1]
    total = np.zeros(shape, F32)
    prod = np.empty(shape, F32)
    for c0 in range(0, k, 32):
        c1 = min(k, c0 + 32)
        even, odd = np.zeros(shape, F32), np.zeros(shape, F32)
        for j in range(c0, c1, 2):
            np.multiply(xf[..., :, j, None], yf[..., None, j, :], out=prod)
            even += prod
            if j + 1 < c1:
                np.multiply(xf[..., :, j + 1, None], yf[..., None, j + 1, :], out=prod)
                odd += prod
        total += even + odd
    return total


def gemm(x, y, init=None):
    """``x @ y`` of bfloat16 matrices (batched: leading dims broadcast) as oneDNN sums them on
    this CPU. ``brg_matmul:avx512_core_bf16``: float32 accumulators, each pair of k
    (``vdpbf16ps``) adding the odd product, then the even one (each addition rounded); a block
    of 512 k summed on its own and added into the running total; then ``init`` (the bias
    post-op) added and the result rounded once. Measured against torch 2.13 on crafted
    cancellation cases: 100% (K up to 1000, plain float sums 82-86%). On a CPU with AMX
    (``amx()``) the tiles' sums (``_amx_sums``), then ``init``. -> float32 values."""
    xf, yf = values(np.asarray(x)).astype(F32), values(np.asarray(y)).astype(F32)
    k = xf.shape[-1]
    shape = np.broadcast_shapes(xf.shape[:-2], yf.shape[:-2]) + (xf.shape[-2], yf.shape[-1])
    total = np.zeros(shape, F32)
    big = int(np.prod(shape)) * k > _EXACT_MACS
    tiles = not big and amx()
    with np.errstate(all="ignore"):
        if big:   # (past this size: float32 BLAS, rounded; see _EXACT_MACS)
            total = np.matmul(xf, yf).astype(F32)
        elif tiles:
            total = _amx_sums(xf, yf, shape)
        for s0 in range(0, 0 if big or tiles else k, _K_BLOCK):
            e0 = min(k, s0 + _K_BLOCK)
            acc = np.zeros(shape, F32)
            prod = np.empty(shape, F32)
            for j in range(s0, e0, 2):
                if j + 1 < e0:
                    np.multiply(xf[..., :, j + 1, None], yf[..., None, j + 1, :], out=prod)
                    acc += prod
                np.multiply(xf[..., :, j, None], yf[..., None, j, :], out=prod)
                acc += prod
            total = acc if s0 == 0 else (total + acc).astype(F32)
        if init is not None:
            total = (total + values(np.asarray(init)).astype(F32)).astype(F32)
    return total


_MKLDNN_MIN = 16 * 16 * 16   # ATen's mkldnn_gemm_min_size: bf16 products above it go to oneDNN


def _lane_tree(v):
    """vec_reduce_all's sum of a register's lanes: halves added until one lane is left."""
    while v.shape[-1] > 1:
        h = v.shape[-1] // 2
        v = (v[..., :h] + v[..., h:]).astype(F32)
    return v[..., 0]


def _fp32_dot(prods, k, lanes=8, regs=8):
    """``dot_with_fp32_arith`` (ReducedPrecisionFloatGemvFastPathKernel.cpp, AVX2 build: 8-lane
    float registers) over the k axis of exact products: blocks of ``regs * lanes`` into
    ``regs`` registers, the registers added pairwise as a tree, whole registers of the rest
    added in, the lanes summed as a tree, the last k in order."""
    it = regs * lanes
    main = k // it * it
    shape = prods[:, 0].shape + (lanes,)
    reg = [np.zeros(shape, F32) for _ in range(regs)]
    for j in range(0, main, it):
        for r in range(regs):
            blk = prods[:, j + r * lanes:j + (r + 1) * lanes]
            reg[r] = (reg[r] + np.moveaxis(blk, 1, -1)).astype(F32)
    while len(reg) > 1:
        h = len(reg) // 2
        reg = [(reg[i] + reg[i + h]).astype(F32) for i in range(h)]
    red = reg[0]
    vec_end = k // lanes * lanes
    for j in range(main, vec_end, lanes):
        red = (red + np.moveaxis(prods[:, j:j + lanes], 1, -1)).astype(F32)
    acc = _lane_tree(red)
    for j in range(vec_end, k):
        acc = (acc + prods[:, j]).astype(F32)
    return acc


def _small_gemm(x, y, init=None):
    """A bf16 product ATen keeps from oneDNN (``m * k * n <= 4096``): cpublas's reference gemm,
    chosen by the operands' layout (column-major call, as addmm_impl_cpu_): both plain:
    ``gemm_notrans_``'s ``sum`` (four partial sums by k mod 4, the tail into the first, then
    added in order); ``x`` transposed: ``gemm_transb_`` (k in order); ``y`` transposed:
    ``gemm_transa_``'s float dot (32 k at a time into 8 lanes, lanes added as a tree, the rest in
    order; k < 32 in order); both: ``sum`` again. Probed on integer cancellations against torch
    2.13 here. -> float32 values."""
    xf, yf = values(x).astype(F32), values(y).astype(F32)
    tx = not x.flags.c_contiguous
    ty = not y.flags.c_contiguous
    k = xf.shape[-1]
    prods = xf[:, :, None] * yf[None, :, :]          # exact (bf16 x bf16)
    with np.errstate(all="ignore"):
        if tx == ty:
            parts = [np.zeros(prods[:, 0].shape, F32) for _ in range(4)]
            i = 0
            while i + 4 <= k:
                for q in range(4):
                    parts[q] = (parts[q] + prods[:, i + q]).astype(F32)
                i += 4
            while i < k:
                parts[0] = (parts[0] + prods[:, i]).astype(F32)
                i += 1
            acc = parts[0]
            for q in range(1, 4):
                acc = (acc + parts[q]).astype(F32)
        elif ty and k >= 16:
            acc = _fp32_dot(prods, k)
        else:
            acc = np.zeros(prods[:, 0].shape, F32)
            for i in range(k):
                acc = (acc + prods[:, i]).astype(F32)
        if init is not None:
            acc = (acc + values(np.asarray(init)).astype(F32)).astype(F32)
    return acc


def _matmul(x, y, transpose_x=False, transpose_y=False, out_shape=None, **_kw):
    """The dialect's ``matmul`` op on bfloat16 bits (matrices; a vector: float then rounded)."""
    if transpose_x:
        x = np.swapaxes(x, -1, -2)
    if transpose_y:
        y = np.swapaxes(y, -1, -2)
    if x.ndim < 2 or y.ndim < 2:
        with np.errstate(all="ignore"):
            out = from_float(np.matmul(values(x).astype(F32), values(y).astype(F32)))
    elif x.ndim == 2 and y.ndim == 2 and x.shape[0] * x.shape[1] * y.shape[1] <= _MKLDNN_MIN:
        out = from_float(_small_gemm(x, y))
    else:
        out = from_float(gemm(x, y))
    return np.reshape(out, out_shape) if out_shape is not None else out


def _addmm(bias, x, w, **_kw):
    """``addmm``/``linear``: the bias put in the output first, the product added (oneDNN's sum
    post-op), rounded once."""
    init = np.broadcast_to(values(bias), (x.shape[0], w.shape[1]))
    if x.shape[0] * x.shape[1] * w.shape[1] <= _MKLDNN_MIN:
        return from_float(_small_gemm(x, w, init))
    return from_float(gemm(x, w, init))


def _clamp_vjp(n, g):
    """``clamp_backward``: the gradient where min <= x <= max (compared as values), else 0."""
    from ._base import raw

    x = to_float32(raw(n.inputs[0]))
    lo = -np.inf if n.attrs.get("min") is None else float(n.attrs["min"])
    hi = np.inf if n.attrs.get("max") is None else float(n.attrs["max"])
    inside = (x >= lo) & (x <= hi)
    return (_wrap_like(g, np.where(inside, raw(g), np.uint16(0)).astype(BITS)),)


def _log_sigmoid_vjp(n, g):
    """``log_sigmoid_backward`` on bfloat16 (Activation.cpp): the forward's buffer
    ``exp(-|x|)`` (SLEEF's u10) kept in bfloat16, then ``(max_deriv - sign * b / (1 + b)) * grad``
    in float, rounded once."""
    from ._base import raw
    from ._lecture_kernels import expf_u10

    x = to_float32(raw(n.inputs[0]))
    b = to_float32(from_float(expf_u10(-np.abs(x))))
    neg = x < 0
    one = np.float32(1)
    with np.errstate(all="ignore"):
        d = (np.where(neg, one, np.float32(0)) - np.where(neg, one, -one) * (b / (one + b)))
        out = (d.astype(F32) * to_float32(raw(g))).astype(F32)
    return (_wrap_like(g, from_float(out)),)


#: op name (or the dialect's node name) -> its forward on the bits
SPECIAL = {"fused_add_scaled": _add_alpha, "rsqrt": _rsqrt, "cumsum": _cumsum,
           "log_softmax": _log_softmax, "NllLossBackward0": _nll, "matmul": _matmul,
           "fused_addmm": _addmm, "PowBackward0": _pow_scalar}
#: the dialect's node name -> its VJP on bfloat16 (ATen's backward kernel)
VJP = {"NllLossBackward0": _nll_vjp, "SigmoidBackward0": _sigmoid_vjp,
       "NativeLayerNormBackward0": _layer_norm_vjp, "ClampBackward1": _clamp_vjp,
       "LogSigmoidBackward0": _log_sigmoid_vjp}


# --------------------------------------------------------------------------- torch.autocast
#: the lower-precision dtype of an entered CPU ``torch.autocast`` (None outside one)
AUTOCAST = [None]
#: ``torch.get_autocast_dtype("cpu")``: the CPU autocast's dtype, set by each autocast entered
AUTOCAST_DTYPE = [BITS]


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
def _q_split(q_len):
    return 256 if q_len >= 768 else 64 if q_len >= 192 else 32


def _r(a):
    """float32 values rounded to bfloat16 (still float32)."""
    return to_float32(from_float(a))


_FEXP = tuple(np.float32(c) for c in (0.00010703434948458272, 0.30354260500649682,
                                      -0.22433836478672356, -0.079204240219773236))


def fexp_u20(x):
    """ATen's ``Vectorized<float>::fexp_u20`` (the flash kernel's exp when its output becomes
    bfloat16): 2**(x*log2(e)) with the fraction's power by a cubic (Horner, fused), the result
    built in the exponent bits by a truncating conversion; below ln(FLT_MIN) 0, above ln(FLT_MAX)
    inf (Malossi et al.)."""
    from ._norm_kernels import fma

    x = np.asarray(x, F32)
    c0, c1, c2, c3 = _FEXP
    log2e = np.array(0x3FB8AA3B, np.uint32).view(F32)
    lo = np.array(0xC2AEAC50, np.uint32).view(F32)
    hi = np.array(0x42B17218, np.uint32).view(F32)
    with np.errstate(all="ignore"):
        src = (x * log2e).astype(F32)
        frac = (src - np.floor(src)).astype(F32)
        res = fma(frac, np.full_like(frac, c3), np.full_like(frac, c2))
        res = fma(frac, res, np.full_like(frac, c1))
        res = fma(frac, res, np.full_like(frac, c0))
        src = (src - res).astype(F32)
        tmp = np.asarray(fma(np.full_like(src, np.float32(2.0 ** 23)), src,
                             np.full_like(src, np.float32(2.0 ** 23 * 127))), F32)
        ok = np.isfinite(tmp) & (np.abs(tmp) < 2.0 ** 31)
        bits = np.where(ok, np.trunc(np.where(ok, tmp, 0)), -2.0 ** 31).astype(np.int64)
        bits = bits.astype(np.int32)
    bits = np.where(x < lo, np.int32(0), bits)
    bits = np.where(x > hi, np.int32(0x7F800000), bits)
    return bits.astype(np.int32).view(F32)


def _flash_exp(z):
    """exp of the rows (last axis) as ``_exp_reduce_sum_fusion_kernel<float, BFloat16>``:
    ``fexp_u20`` on whole vectors of 16, ``std::exp`` on the rest of each row."""
    n = z.shape[-1]
    vec = n // 16 * 16
    out = np.empty_like(z)
    out[..., :vec] = fexp_u20(z[..., :vec])
    if vec < n:
        from ..engine.ops import _kernels as K

        with np.errstate(all="ignore"):
            out[..., vec:] = K.libm("exp", np.exp)(np.ascontiguousarray(z[..., vec:]))
    return out


def _flash_forward(q, k, v, mask, causal, scale):
    """(out bits (B, H, L, E), lse float32 (B, H, L)): torch's CPU flash kernel on bfloat16
    (FlashAttentionKernel.cpp): ``q @ k^T`` in float, ``* scale`` (+ mask), the row max,
    ``exp(qk - max)`` summed in float, the exponentials rounded to bfloat16 for ``P @ v``
    (float accumulation), ``out = dst * (1 / sum)`` rounded once, ``lse = max + log(sum)``."""
    qf, kf, vf = to_float32(q), to_float32(k), to_float32(v)
    L, S = qf.shape[-2], kf.shape[-2]
    sc = np.float32(scale)
    with np.errstate(all="ignore"):
        qk = gemm(qf, np.swapaxes(kf, -1, -2))
        if causal:
            qk = np.where(np.tril(np.ones((L, S), bool)), qk, np.float32(-np.inf))
        if mask is not None:
            from ._norm_kernels import fma

            qk = np.asarray(fma(qk, np.full_like(qk, sc), np.broadcast_to(mask, qk.shape)), F32)
        else:
            qk = (qk * sc).astype(F32)
        mx = qk.max(axis=-1, keepdims=True)
        dead = mx == -np.inf
        mx = np.where(dead, np.float32(0), mx).astype(F32)
        e = _flash_exp((qk - mx).astype(F32))
        total = e.sum(axis=-1, keepdims=True, dtype=F32)
        dst = gemm(_r(e), vf)
        total1 = np.where(total == 0, np.float32(1), total).astype(F32)
        out = from_float(dst * (np.float32(1) / total1))
        from ..engine.ops import _kernels as K

        lse = (mx + K.libm("log", np.log)(total1)).astype(F32)[..., 0]
    return out, lse


def _flash_backward(go, q, k, v, out, lse, mask, causal, scale):
    """``cpu_flash_attention_backward`` on bfloat16: ``dsum = rowsum(grad_out * out)``; per block
    of queries ``attn = exp(scale * q k^T (+ mask) - lse)`` in float (causal columns 0), rounded
    to bfloat16 for ``grad_v += attn^T grad_out``; ``grad_attn = attn * (grad_out v^T - dsum)``
    rounded for ``grad_q += scale * grad_attn k`` and ``grad_k += scale * grad_attn^T q``: each
    product accumulated in float and added into the bfloat16 gradient (rounded) per block."""
    from ._lecture_kernels import expf_u10

    qf, kf, vf, gof, of = (to_float32(a) for a in (q, k, v, go, out))
    L, S = qf.shape[-2], kf.shape[-2]
    sc = np.float32(scale)
    gq = np.zeros(qf.shape, F32)
    gk = np.zeros(kf.shape, F32)
    gv = np.zeros(vf.shape, F32)
    qs = min(_q_split(L), L)
    with np.errstate(all="ignore"):
        dsum = (gof * of).sum(axis=-1, dtype=F32)
        for m in range(0, L, qs):
            sl = slice(m, min(m + qs, L))
            rows = np.arange(sl.start, sl.stop)
            attn = (gemm(qf[..., sl, :], np.swapaxes(kf, -1, -2)) * sc).astype(F32)
            if mask is not None:
                attn = (attn + np.broadcast_to(mask, attn.shape[:-2] + (L, S))[..., sl, :]
                        ).astype(F32)
            attn = expf_u10((attn - lse[..., sl, None]).astype(F32))  # (SLEEF's u10)
            if causal:
                attn = np.where(np.arange(S)[None, :] > rows[:, None], np.float32(0), attn)
            gv = _r(gv + gemm(np.swapaxes(_r(attn), -1, -2), gof[..., sl, :]))
            ga = gemm(gof[..., sl, :], np.swapaxes(vf, -1, -2))
            ga = _r((attn * (ga - dsum[..., sl, None])).astype(F32))
            gq[..., sl, :] = _r(gq[..., sl, :] + sc * gemm(ga, kf))
            gk = _r(gk + sc * gemm(np.swapaxes(ga, -1, -2), qf[..., sl, :]))
    return from_float(gq), from_float(gk), from_float(gv)


def _flash_fwd(*arrays, causal=False, scale=1.0, box=None):
    q, k, v = arrays[:3]
    mask = values(arrays[3]).astype(F32) if len(arrays) > 3 else None
    out, lse = _flash_forward(q, k, v, mask, causal, scale)
    box["lse"], box["out"], box["mask"] = lse, out, mask
    return out


def _flash_vjp(n, g):
    from ._base import raw
    from . import _no_derivative

    a = n.attrs
    box = a["box"]
    q, k, v = (raw(t) for t in n.inputs[:3])
    grads = _flash_backward(raw(g), q, k, v, box["out"], box["lse"], box["mask"],
                            a["causal"], a["scale"])
    res = [type(g)._wrap(x, True) for x in grads]
    res = list(_no_derivative.attach("_scaled_dot_product_flash_attention_for_cpu_backward",
                                     (g,) + tuple(n.inputs[:3]), res))
    return tuple(res) + ((None,) if len(n.inputs) > 3 else ())


def _flash_op():
    from ..engine.registry import OPS, register
    from ._ops import top

    if "torch_flash_attention_bf16" not in OPS:
        register("torch_flash_attention_bf16", _flash_fwd, _flash_vjp, check=False,
                 second_order=False, saves_inputs=False, reads_inputs=True,
                 legacy_name="ScaledDotProductFlashAttentionForCpuBackward")
    op = top("torch_flash_attention_bf16", "ScaledDotProductFlashAttentionForCpuBackward0",
             "none")
    STORAGE._own.add(id(op))   # (its forward takes the bits)
    return op


def sdpa(q, k, v, mask, causal, scale):
    """``scaled_dot_product_attention`` on bfloat16 (4-D, no dropout): one node, torch's CPU
    flash kernel's roundings forward and backward (``_flash_forward`` / ``_flash_backward``);
    a boolean mask becomes 0 / -inf."""
    from ._base import raw
    from ._tensor import Tensor
    from ..engine.registry import apply

    before, AUTOCAST[0] = AUTOCAST[0], None  # (inside the op autocast is off, as in ATen)
    try:
        ins = [q, k, v]
        if mask is not None:
            m = raw(mask)
            if m.dtype == np.bool_:
                m = np.where(m, np.float32(0), np.float32(-np.inf))
            ins.append(Tensor._wrap(np.asarray(m), True))
        return apply(_flash_op(), tuple(ins), {"causal": bool(causal), "scale": float(scale),
                                               "box": {}})
    finally:
        AUTOCAST[0] = before


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
