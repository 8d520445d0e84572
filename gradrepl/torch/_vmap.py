"""``vmap`` as a batched computation: the function is traced on one sample, then its ops run
once on the whole batch.

torch's ``vmap`` pushes the batch dimension into every op, so a 1-D ``F.linear`` under vmap is
one matrix-matrix product over the batch, bit for bit the product the same function gives
when it is written batched (the jacobians tutorial checks ``vmap(jacrev(f))`` against
``jacrev`` of the batch-summed ``f`` with ``allclose``; with one ``f`` call per sample,
1-D products round differently and the ``1 - tanh**2`` factors near 0 drift far past
allclose's tolerance).

Here (``func._batched_call``):

1. ``f`` runs on sample 0 (samples 0 and 1 the first time a function is seen) with every engine
   op recorded (the registry's ``apply_hook``): the op, its attributes (an attribute holding a
   traced array, nll_loss's target, followed as an input), where each input came from (a
   vmapped argument, an earlier op's output, or a constant) and its outputs. Transforms inside
   ``f`` keep their graphs (create_graph), so gradients are recorded ops too; where backward
   gives a recorded gradient the exact kernel's values (``backward.exact_values``), the entry
   replays with that kernel (``_Trace.exact``);
2. the trace stands for every sample only if nothing in it may depend on the sample outside
   the ops (``trace``'s ``fresh``: an op outside ``ONE_TRACE_OPS``, a tensor made or a value
   read to Python during the trace); else every sample is traced, the programs compared, and
   where they differ the samples' own results are stacked (the loop);
3. the recorded ops run once on the batched arrays (batch dim first) by torch's batching rules
   (``RULES``): elementwise ops on the whole batch, matrix products folded into one product or
   a bmm over the batch, softmax-like ops along the shifted axis, nll_loss as its batch rule,
   reshapes with the batch dim put in front, any other op once per sample;
4. the batched results must agree with the traced samples' own (loosely: the rounding is the
   batched one), else every sample's own results are used.

The cost is one traced run of ``f`` plus the batched replay (the vmap_grads lecture step:
~0.9 ms and ~0.6 ms, see benchmarks/README.md).
"""
from __future__ import annotations

import contextlib

import numpy as np

from ..engine import registry
from ..engine.tensor import Tensor as _EngineTensor
from . import _meta, _tensor, _vmap_checks

_raw = _EngineTensor.data.__get__   # (the array slot: the dialect's .data looks at its caller)

_MISSING = object()


class _Fallback(Exception):
    """The batched run is not possible: the caller loops over the samples."""


# ------------------------------------------------------------------------------ tracing
#: the bytes of arrays all the samples' traces may keep; past it the caller loops (a vmapped
#: jacobian of a convolutional net keeps every activation and gradient of every sample)
BUDGET = 128 << 20


class _Budget:
    def __init__(self):
        self.left = BUDGET

    def take(self, arrays):
        for a in arrays:
            self.left -= a.nbytes
        if self.left < 0:
            raise _Fallback


#: the trace running (``safe`` marks the constants the transforms make themselves)
_ACTIVE: list = []


def basis(arr):
    """``safe``, and a row of jacrev's basis: torch batches the basis (``vmap`` over the
    cotangents), so a product of a sample's value and a value made from it is a bmm there."""
    if _ACTIVE:
        _ACTIVE[-1].keep_safe(arr)
        _ACTIVE[-1].basis.add(id(arr))
    return arr


def safe(arr):
    """Mark an array a transform made (a backward seed, a zero gradient) as a constant that
    does not depend on the sample, for the trace running."""
    if _ACTIVE:
        _ACTIVE[-1].keep_safe(arr)
    return arr


class _Trace:
    def __init__(self, inputs, budget=None, first_uid=None, known=()):
        self.budget = budget
        self.first_uid = first_uid  # tensors made from then on are the trace's own
        self.safe = set(known)      # ids of the arrays of the caller's tensors, and safe()'s
        self.basis = set()          # ids of jacrev's basis rows (``basis``)
        # a constant made during the trace, outside the ops (a comparison's or a cast's result,
        # a value read from the sample): it may differ from sample to sample
        self.fresh = False
        self.entries = []          # (op, attrs, refs, out arrays, attribute refs)
        self.src = {}              # id(array) -> ref
        self.keep = []             # arrays kept alive (their ids stay unique)
        self.impure = False        # values made outside the ops (``exact``)
        for k, arr in enumerate(inputs):
            self.src[id(arr)] = ("in", k)
            self.keep.append(arr)

    def ref(self, arr):
        r = self.src.get(id(arr))
        if r is None:
            self.keep.append(arr)
            return ("const", arr)
        return r

    def keep_safe(self, arr):
        """``arr``, a constant made from shapes alone, is the same for every sample."""
        self.safe.add(id(arr))
        self.keep.append(arr)

    def hook(self, op, inputs, attrs):
        set_hook = registry.set_apply_hook
        before = set_hook(None)
        try:
            out = registry.apply(op, inputs, attrs)
        finally:
            set_hook(before)
        if _vmap_checks._SCOPES:
            _vmap_checks.propagate(inputs, out)
        src, keep = self.src, self.keep
        first = self.first_uid
        check = first is not None and not self.fresh
        refs = []
        for t in inputs:
            a = _raw(t)
            r = src.get(id(a))
            if r is None:
                keep.append(a)
                r = ("const", a)
                # (a constant the trace made outside the ops: ``fresh``)
                if check and t._uid >= first and id(a) not in self.safe and not _literal(a):
                    self.fresh = True
                    check = False
            refs.append(r)
        refs = tuple(refs)
        arrays = tuple([_raw(t) for t in out]) if isinstance(out, tuple) else (_raw(out),)
        if self.budget is not None:
            self.budget.take(arrays)
        j = len(self.entries)
        # an attribute holding a traced array (nll_loss's target): followed as an input is
        arefs = {}
        if attrs:
            for k, v in attrs.items():
                if type(v) is np.ndarray:
                    r = src.get(id(v))
                    if r is not None:
                        arefs[k] = r
            attrs = dict(attrs)
        else:
            attrs = {}
        self.entries.append((op, attrs, refs, arrays, arefs))
        for k, arr in enumerate(arrays):
            if id(arr) not in src:
                src[id(arr)] = ("op", j, k)
            keep.append(arr)
        return out

    def exact(self, node, old, new):
        """backward gave a recorded gradient (``old``, an op's output) the exact kernel's
        values (``new``): that entry replays with the exact forward; where there is none, the
        values came from outside the ops (the samples loop)."""
        ref = self.src.get(id(old))
        sub = _exact_op(self.entries[ref[1]][0]) if ref is not None and ref[0] == "op" else None
        if sub is None:
            # nll_loss's gradient under vmap is its batch rule's (``_nll_coef``), not the
            # one-sample kernel's: the recorded ops stand
            if ref is not None and (node.op.name in BATCH_RULE_VJPS
                                    or np.array_equal(old, new)):
                self.src[id(new)] = ref
                self.keep.append(new)
            else:
                self.impure = True
            return
        j, k = ref[1], ref[2]
        _op, attrs, refs, arrays, arefs = self.entries[j]
        self.entries[j] = (sub, attrs, refs, arrays[:k] + (new,) + arrays[k + 1:], arefs)
        self.src[id(new)] = ref
        self.keep.append(new)


#: ops whose gradient under vmap torch computes by its batch rule (the traced ops' rules here)
BATCH_RULE_VJPS = frozenset({"fused_nll_loss"})


class _ExactOp:
    """A grad op whose values are the exact kernel's (``_Trace.exact``)."""

    def __init__(self, name, forward):
        self.name, self.forward = name, forward


_EXACT_OPS: dict = {}


def _exact_op(op):
    if op.name not in _EXACT_OPS:
        from .nn import _softmax_ops

        fwd = _softmax_ops.EXACT_GRAD_FORWARDS.get(op.name)
        _EXACT_OPS[op.name] = None if fwd is None else _ExactOp(op.name, fwd)
    return _EXACT_OPS[op.name]


def trace(call, inputs, budget=None, first_uid=None, known=()):
    """(entries, output refs, fresh) of ``call()`` run with its ops recorded; ``fresh``: the
    program may not be every sample's (values made or read outside the ops during the trace:
    tensors numbered from ``first_uid`` on whose arrays are not ``known`` ids, the caller's;
    a value read to Python; an op outside ``ONE_TRACE_OPS``). ``_Fallback`` when the recorded
    arrays pass the ``budget``, or gradient values were made outside the ops."""
    if registry.apply_hook_active() and not _meta.only_meta_hook():
        raise _Fallback  # static mode, or an enclosing trace: no nesting (meta's hook: aside)
    tr = _Trace(inputs, budget, first_uid, known)
    listener, registry.EXACT_LISTENER = registry.EXACT_LISTENER, tr.exact
    shapes, registry.SHAPE_CONST = registry.SHAPE_CONST, tr.keep_safe
    made = []   # the arrays of the tensors made during the trace

    def on_made(t):   # (each one checked: its reads are watched, as a sample's)
        made.append(_raw(t))
        _vmap_checks._checked(t)
    watch, _tensor._MADE[0] = _tensor._MADE[0], on_made
    _ACTIVE.append(tr)
    reads, _vmap_checks.READ_WATCH[0] = _vmap_checks.READ_WATCH[0], _read_watch(tr)
    try:
        # (the readers watch while a vmap runs: a trace outside one runs in an empty scope)
        with registry.apply_hook(tr.hook), _vmap_checks.scope(0) if not _vmap_checks._SCOPES \
                else contextlib.nullcontext():
            out_arrays = call()
    finally:
        registry.EXACT_LISTENER = listener
        registry.SHAPE_CONST = shapes
        _tensor._MADE[0] = watch
        _ACTIVE.pop()
        _vmap_checks.READ_WATCH[0] = reads
    if tr.impure:
        raise _Fallback
    # a tensor made outside the ops (argmax's index, a comparison's mask) whose array no op
    # took as an input may have given an op its attributes (``v[v.argmax()]``): the values
    # may differ from sample to sample
    src, safe = tr.src, tr.safe
    fresh = tr.fresh
    if not fresh:
        for e in tr.entries:
            if e[0].name not in ONE_TRACE_OPS:
                fresh = True
                break
        else:
            for a in made:
                if id(a) not in src and id(a) not in safe and not _literal(a):
                    fresh = True
                    break
    return tr.entries, tuple(tr.ref(a) for a in out_arrays), fresh, frozenset(tr.basis)


def _read_watch(tr):
    """The reads' watch of a trace (``_vmap_checks.READ_WATCH``): a value read into Python from
    a tensor the trace made (or a sample) marks ``tr`` fresh: a value of one sample may become
    the program's (an exponent, an index): the trace is then not one for all."""
    first = tr.first_uid

    def watch(t):
        if first is None or t._uid >= first or id(_raw(t)) in tr.src:
            tr.fresh = True
    return watch


def _literal(a):
    """A Python number's cached constant (read-only, 0-d)."""
    return type(a) is np.ndarray and a.ndim == 0 and not a.flags.writeable


def _same_value(a, b):
    if a is b:
        return True
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b, equal_nan=True)
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(_same_value(x, y) for x, y in zip(a, b))
    try:
        return bool(a == b) and type(a) is type(b)
    except Exception:  # noqa: BLE001  (an attribute that does not compare: not the same)
        return a is b


def _same_ref(a, b):
    if a[0] != b[0]:
        return False
    if a[0] == "const":
        return _same_value(a[1], b[1])
    return a == b


def same_program(t0, t1):
    (e0, o0), (e1, o1) = t0[:2], t1[:2]
    if len(e0) != len(e1) or len(o0) != len(o1):
        return False
    for (op0, at0, r0, a0, ar0), (op1, at1, r1, a1, ar1) in zip(e0, e1):
        if op0 is not op1 or at0.keys() != at1.keys() or len(r0) != len(r1) or ar0 != ar1:
            return False
        if not all(k in ar0 or _same_value(at0[k], at1[k]) for k in at0):
            return False
        if not all(_same_ref(x, y) for x, y in zip(r0, r1)):
            return False
        if [a.shape for a in a0] != [a.shape for a in a1]:
            return False
    return all(_same_ref(x, y) for x, y in zip(o0, o1))


# ------------------------------------------------------------------------------ batching rules
# A batched value is (array with the batch dim first, True); an unbatched one (array, False).
# A rule gets (op, attrs, values, n) and returns the op's outputs as batched arrays.

# An attribute that is a batched array (nll_loss's target under vmap) is a ``BatchedAttr``.

class BatchedAttr:
    """An attribute holding a batched array (batch dim first)."""
    __slots__ = ("array",)

    def __init__(self, array):
        self.array = array


def _sample_attrs(attrs, b):
    return {k: (v.array[b] if isinstance(v, BatchedAttr) else v) for k, v in attrs.items()}


def _per_sample(op, attrs, values, n):
    """Any op: its forward once per sample, the results stacked."""
    outs = []
    for b in range(n):
        arrays = [a[b] if batched else a for a, batched in values]
        r = op.forward(*arrays, **_sample_attrs(attrs, b))
        outs.append(r if isinstance(r, tuple) else (r,))
    return tuple(np.stack([np.asarray(o[k]) for o in outs]) for k in range(len(outs[0])))


def _elementwise(op, attrs, values, n):
    """Elementwise ops (numpy broadcasting): the batched inputs' sample dims aligned to the
    widest sample rank, the unbatched ones broadcast as they are, one call."""
    rank = max((a.ndim - 1 if batched else a.ndim) for a, batched in values)
    arrays = []
    for a, batched in values:
        if batched and a.ndim - 1 < rank:
            a = a.reshape((a.shape[0],) + (1,) * (rank - a.ndim + 1) + a.shape[1:])
        arrays.append(a)
    out = op.forward(*arrays, **attrs)
    outs = out if isinstance(out, tuple) else (out,)
    return tuple(np.broadcast_to(np.asarray(o), (n,) + np.asarray(o).shape[1:])
                 if np.asarray(o).ndim == rank + 1 else _fallback() for o in outs)


def _fallback():
    raise _Fallback


def _matmul(op, attrs, values, n):
    """A product with a batched operand: folded into one product over the batch, as torch's
    batching rule does (a batched vector times a matrix is one matrix-matrix product; two
    batched matrices one ``bmm``)."""
    (x, bx), (y, by) = values[0], values[1]
    if len(values) != 2 or set(attrs) - {"transpose_x", "transpose_y", "out_shape"}:
        return _per_sample(op, attrs, values, n)
    if attrs.get("transpose_x") and x.ndim - bx >= 2:
        x = np.swapaxes(x, -1, -2)
    if attrs.get("transpose_y") and y.ndim - by >= 2:
        y = np.swapaxes(y, -1, -2)
    xs, ys = x.shape[1:] if bx else x.shape, y.shape[1:] if by else y.shape
    if (bx or by) and (bx or bx is None) and (by or by is None) and len(xs) == 2 \
            and len(ys) == 2:
        # (two batched matrices, or one and a value made from jacrev's basis, batched there)
        from ._ops import _mm_op

        if not bx:
            x = np.ascontiguousarray(np.broadcast_to(x, (n,) + xs))
        if not by:
            y = np.ascontiguousarray(np.broadcast_to(y, (n,) + ys))
        out = np.asarray(_mm_op("BmmBackward0").forward(x, y))
    elif bx and not by and len(ys) == 2 and len(xs) >= 1:
        out = op.forward(np.ascontiguousarray(x).reshape(-1, xs[-1]), y)
        out = np.asarray(out).reshape((n,) + xs[:-1] + ys[1:])
    elif bx and not by and len(ys) == 1 and len(xs) >= 1:
        out = op.forward(np.ascontiguousarray(x).reshape(-1, xs[-1]), y)
        out = np.asarray(out).reshape((n,) + xs[:-1])
    else:
        return _per_sample(op, attrs, values, n)
    shape = attrs.get("out_shape")
    if shape is not None:
        out = out.reshape((n,) + tuple(shape))
    return (out,)


def _addmm(op, attrs, values, n):
    """``bias + x @ w`` with x batched: one product over the batch. With the weight batched
    too (model ensembling: ``vmap`` over stacked parameters) torch's rule is ``bmm`` then the
    bias added (two roundings, not addmm's): ``bmm(x, w) + bias``."""
    (bias, bb), (x, bx), (w, bw) = values
    if bw and not attrs and x.ndim - bx == 2 and w.ndim == 3 and np.ndim(bias) - bb <= 1:
        xb = x if bx else np.broadcast_to(x, (n,) + x.shape)
        # (F.linear's w is weight.t(): the product reads it transposed, as torch's bmm does)
        wt = np.swapaxes(np.ascontiguousarray(np.swapaxes(w, 1, 2)), 1, 2)
        from ._ops import _mm_op

        prod = np.asarray(_mm_op("BmmBackward0").forward(np.ascontiguousarray(xb), wt))
        b = np.asarray(bias)[:, None, :] if bb else bias
        return (np.asarray(registry.OPS["add"].forward(prod, b)),)
    if bb or bw or not bx or attrs or x.ndim != 3 or np.ndim(bias) > 1:
        return _per_sample(op, attrs, values, n)
    m, k = x.shape[1:]
    out = op.forward(bias, np.ascontiguousarray(x).reshape(n * m, k), w)
    return (np.asarray(out).reshape(n, m, -1),)


def _reshape(op, attrs, values, n):
    (x, bx), = values
    if set(attrs) != {"shape"}:
        return _per_sample(op, attrs, values, n)
    shape = tuple(attrs["shape"])
    return (np.asarray(op.forward(x, shape=(n,) + shape)),)


def _new_shape(op, attrs, values, n):
    """reshape / unsqueeze / squeeze / flatten: the sample shape behind the batch dim."""
    (x, bx), = values
    return (np.reshape(x, (n,) + tuple(attrs["shape"])),)


def _transpose(op, attrs, values, n):
    (x, bx), = values
    return (op.forward(x, perm=(0,) + tuple(int(p) % (x.ndim - 1) + 1 for p in attrs["perm"])),)


def _sample_aligned(x, rank):
    """A batched array with sample dims of rank ``rank`` (ones put in front of its own)."""
    return x.reshape((x.shape[0],) + (1,) * (rank - x.ndim + 1) + x.shape[1:])


def _broadcast_to(op, attrs, values, n):
    (x, bx), = values
    shape = tuple(attrs["shape"])
    return (np.broadcast_to(_sample_aligned(x, len(shape)), (n,) + shape),)


def _sum_to(op, attrs, values, n):
    """Summed to the sample shape: the batched kernel keeps dim 0 (torch sums the logical dims
    of the batched tensor)."""
    (x, bx), = values
    shape = tuple(attrs["shape"])
    keep = (n,) + (1,) * (x.ndim - 1 - len(shape)) + shape
    out = op.forward(x, **dict(attrs, shape=keep))
    return (np.reshape(out, (n,) + shape),)


def _reduce(op, attrs, values, n):
    """sum / mean over given sample axes: the axes moved past the batch dim, one call (torch
    reduces the logical dims of the batched tensor)."""
    (x, bx), = values
    rank, axis = x.ndim - 1, attrs.get("axis")
    axes = (axis,) if isinstance(axis, (int, np.integer)) else axis
    if rank == 0 or not axes or not isinstance(axes, (tuple, list)):
        return _per_sample(op, attrs, values, n)
    kw = dict(attrs, axis=tuple(int(a) % rank + 1 for a in axes))
    if attrs.get("out_shape") is not None:
        kw["out_shape"] = (n,) + tuple(attrs["out_shape"])
    return (op.forward(x, **kw),)


def _along_axis(op, attrs, values, n):
    """softmax-like ops along one axis (every input of the same sample shape): the axis moved
    past the batch dim, one call."""
    shapes = {a.shape[1:] if b else a.shape for a, b in values}
    if len(shapes) != 1 or not isinstance(attrs.get("axis"), (int, np.integer)):
        return _per_sample(op, attrs, values, n)
    shape, = shapes
    arrays = [a if b else np.broadcast_to(a, (n,) + a.shape) for a, b in values]
    out = op.forward(*arrays, **dict(attrs, axis=int(attrs["axis"]) % max(len(shape), 1) + 1))
    return out if isinstance(out, tuple) else (out,)


def _rows_sum(a):
    """torch's sum over the last dim of a (B, N) array (the batched tensor's ``sum(-1)``)."""
    from ._kernels import torch_sum

    a = np.ascontiguousarray(a)
    out = torch_sum(a, (a.ndim - 1,))
    return np.sum(a, axis=-1) if out is None else np.asarray(out, a.dtype)


def _nll_total(t, attrs, dt):
    """Each sample's total weight (B,) of targets t (B, N) as torch's nll_loss batch rule
    takes it: the count of counted targets, or the sum of their weights (torch's sum)."""
    valid = t != attrs.get("ignore_index", -100)
    weight = np.asarray(attrs["weight"])
    if not (weight != 1).any():
        return np.count_nonzero(valid, axis=1).astype(dt)
    return _rows_sum(np.where(valid, weight[np.where(valid, t, 0)], 0).astype(dt))


def _nll_rows(x_shape, t, n):
    """(N, C, targets as (B, N)) of a batched nll_loss whose samples are (N, C) inputs with
    (N,) targets, ignore_index negative (torch flattens the batch into N there), else None."""
    if len(x_shape) != 2 or t.shape[1:] != tuple(x_shape[:1]):
        return None
    return x_shape[0], x_shape[1], t.reshape(n, x_shape[0])


def _nll_loss(op, attrs, values, n):
    """nll_loss of batched inputs and targets as torch's batch rule computes it: the
    unreduced losses of the batch flattened into rows, then each sample's torch sum, divided
    for 'mean' by the total weight (``_nll_total``)."""
    (x, bx), = values
    t = attrs["target"].array if isinstance(attrs["target"], BatchedAttr) else \
        np.broadcast_to(attrs["target"], (n,) + np.shape(attrs["target"]))
    rows = _nll_rows(x.shape[1:] if bx else x.shape, t, n) if bx else None
    if rows is None or attrs.get("ignore_index", -100) >= 0:
        return _per_sample(op, attrs, values, n)
    N, C, tt = rows
    dt = x.dtype
    none = np.asarray(op.forward(x.reshape(n * N, C), **dict(
        attrs, target=np.ascontiguousarray(tt).reshape(-1), reduction="none"))).reshape(n, N)
    red = attrs.get("reduction", "mean")
    if red == "none":
        return (none,)
    total = _rows_sum(none)
    if red == "mean":
        total = (total / _nll_total(tt, attrs, dt)).astype(dt)
    return (total,)


def _nll_coef(op, attrs, values, n):
    """nll_loss's gradient coefficients of batched targets: the samples' rows as one input's
    rows; 'mean' as torch's batch rule: weight * -(1 / the sample's total weight)."""
    (t, bt), = values
    x_shape = tuple(attrs["x_shape"])
    rows = _nll_rows(x_shape, t, n)
    if rows is None or attrs.get("ignore_index", -100) >= 0:
        return _per_sample(op, attrs, values, n)
    N, C, tt = rows
    dt = np.dtype(attrs["dtype"])
    hot = op.forward(np.ascontiguousarray(tt).reshape(-1), **dict(
        attrs, x_shape=(n * N, C), reduction="none"))       # -weight at the targets
    hot = np.asarray(hot).reshape(n, N, C)
    if attrs.get("reduction", "mean") == "mean":
        inv = -(dt.type(1) / _nll_total(tt, attrs, dt))
        hot = np.where(hot != 0, (-hot) * inv[:, None, None], hot).astype(dt)
    return (hot,)


RULES = {"matmul": _matmul, "fused_addmm": _addmm, "reshape": _reshape,
         "unsqueeze": _new_shape, "squeeze": _new_shape, "flatten": _new_shape,
         "transpose": _transpose, "broadcast_to": _broadcast_to, "sum_to": _sum_to,
         "sum": _reduce, "mean": _reduce,
         "softmax": _along_axis, "log_softmax": _along_axis, "softmax_grad": _along_axis,
         "log_softmax_grad": _along_axis, "fused_nll_coef": _nll_coef}
#: rules for ops with a batched attribute (the others run once per sample)
ATTR_RULES = {"fused_nll_loss": _nll_loss}

# ops that are elementwise on their inputs (numpy broadcasting, no axis attributes)
ELEMENTWISE = frozenset("""
add subtract multiply divide scale tanh tanh_grad exp log sin cos sigmoid sigmoid_grad relu
abs neg sqrt rsqrt square pow elementwise_pow maximum minimum where assign cast reciprocal
""".split())


#: the ops whose attributes come from the code and the shapes alone (or follow a traced array,
#: as nll_loss's target): a program of these traced on one sample is every sample's. Another
#: op may take attributes the dialect computed from the values (median's index, an argsort's
#: order): every sample is traced and the programs compared.
ONE_TRACE_OPS = frozenset(RULES) | ELEMENTWISE | frozenset("""
sum mean fused_nll_loss expand stack concat relu_grad threshold_backward abs_grad clip cumsum
fused_vector_norm2 masked_fill fused_mse_loss mse_loss_grad fused_binary_cross_entropy_with_logits
embedding embedding_grad
""".split())


def _rule(op, attrs):
    rule = RULES.get(op.name)
    if rule is not None:
        return rule
    if op.name in ELEMENTWISE and not any(k in attrs for k in ("axis", "dim", "shape")):
        return _elementwise
    return _per_sample


def _needed(entries, out_refs):
    """The entries the outputs depend on (a loss computed beside its gradient is not)."""
    need, stack = set(), [r[1] for r in out_refs if r[0] == "op"]
    while stack:
        j = stack.pop()
        if j in need:
            continue
        need.add(j)
        _op, _attrs, refs, _arrays, arefs = entries[j]
        for r in refs:
            if r[0] == "op":
                stack.append(r[1])
        if arefs:
            stack.extend(r[1] for r in arefs.values() if r[0] == "op")
    return need


def replay(entries, out_refs, batched_inputs, n, basis=frozenset()):
    """The traced program on the batched inputs: the outputs as (array, batched) pairs;
    batched None: an unbatched value made from jacrev's basis (``basis``: their ids), which
    torch batches over the basis."""
    # (keyed by the refs themselves: ("in", k) and ("op", j, k); a constant is its own value)
    vals = {("in", k): (a, True) for k, a in enumerate(batched_inputs)}
    need = _needed(entries, out_refs)

    def value(ref):
        if ref[0] == "const":
            return ref[1], (None if id(ref[1]) in basis else False)
        return vals[ref]

    with np.errstate(all="ignore"):
        for j, (op, attrs, refs, arrays, arefs) in enumerate(entries):
            if j not in need:
                continue
            values = []
            some = False    # a batched input
            for r in refs:
                v = (r[1], None if id(r[1]) in basis else False) if r[0] == "const" \
                    else vals[r]
                values.append(v)
                if v[1]:
                    some = True
            battr = False   # a batched attribute
            if arefs:
                attrs = dict(attrs)
                for k, r in arefs.items():
                    a, b = value(r)
                    attrs[k] = BatchedAttr(a) if b else a
                    if b:
                        battr = True
            if not battr and not some:
                mark = None if any(b is None for _, b in values) else False
                for k, a in enumerate(arrays):  # no batched input: the traced result
                    vals[("op", j, k)] = (a, mark)
                continue
            rule = ATTR_RULES.get(op.name, _per_sample) if battr else _rule(op, attrs)
            outs = rule(op, attrs, values, n)
            if len(outs) != len(arrays):
                raise _Fallback
            for k, (o, a) in enumerate(zip(outs, arrays)):
                o = np.asarray(o)
                if o.shape != (n,) + a.shape:
                    raise _Fallback
                vals[("op", j, k)] = (o.astype(a.dtype, copy=False), True)
    return [value(r) for r in out_refs]


def close(a, b):
    """Whether a batched result row and the traced one agree (past the rounding)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind not in "fc":
        return np.array_equal(a, b)
    scale = float(np.max(np.abs(b), initial=0.0)) if b.size else 0.0
    with np.errstate(all="ignore"):
        near = np.abs(a - b) <= 1e-3 * scale + 1e-6
        if near.all():   # (most often: the rest is for infinities and NaNs)
            return True
        return bool(np.all(near | (a == b) | (np.isnan(a) & np.isnan(b))))
