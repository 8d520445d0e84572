"""``torch.autograd.forward_ad``: dual tensors, whose tangents ride along the forward pass.

``make_dual(primal, tangent)`` inside ``dual_level()`` gives a tensor carrying a tangent; every
op run on it computes the output's tangent (the Jacobian-vector product) at once, beside the
value, and ``unpack_dual(t)`` returns ``(primal, tangent)``. Leaving the level drops every
tangent made in it.

How a tangent is computed: while a level is open, the dialect's modules call the engine's ops
through ``_apply_dual`` (installed on entering, removed on leaving; nothing is checked outside a
level). For an op with dual inputs:

- ops linear in their inputs (add, reshape, sum, cat, slicing ...) take the tangents through
  the op itself: ``op(t1, t2)``;
- products (multiply, matmul) the product rule: ``op(t1, y) + op(x, t2)``;
- any other op by the engine's own VJP, twice: with fresh leaves ``x'`` and a cotangent ``u``
  (zeros, recorded), ``g = J^T u`` is recorded (create_graph), and the gradient of
  ``sum(g * t)`` with respect to ``u`` is ``J t``, the JVP. Every op with a VJP has a JVP so.

A custom ``autograd.Function`` with a ``jvp`` staticmethod runs it (``function.py``).
"""
from __future__ import annotations

import collections

import numpy as np

from ...engine import grad_mode
from ...engine import registry as _registry
from ...engine.ops.reduce import sum as _rsum
from .. import _dispatch, _dtypes, _ops
from .._base import EngineTensor, raw
from .._tensor import Tensor
from . import _engine

__all__ = ["UnpackedDualTensor", "enter_dual_level", "exit_dual_level", "make_dual",
           "unpack_dual", "dual_level"]

UnpackedDualTensor = collections.namedtuple("UnpackedDualTensor", ["primal", "tangent"])
UnpackedDualTensor.__module__ = "torch.autograd.forward_ad"

_LEVELS: list = []  # the open levels' tokens (one at most: torch nests none)
_engine_apply = _registry.apply


class _Token:
    __slots__ = ("level",)

    def __init__(self, level):
        self.level = level


def _install(on):

    _dispatch.set_layer("forward_ad", _dual_layer if on else None)


class untracked:
    """A block where ops compute no tangents (a custom Function's ``jvp`` runs so in torch:
    its result is the output's tangent, not a dual tensor with a tangent of its own)."""

    def __enter__(self):
        self.on = bool(_LEVELS)
        if self.on:
            _install(False)

    def __exit__(self, *exc):
        if self.on and _LEVELS:
            _install(True)


def enter_dual_level():
    """Open a level for dual tensors; returns its index (0)."""
    if _LEVELS:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _LEVELS.append(_Token(len(_LEVELS)))
    _install(True)
    return _LEVELS[-1].level


def exit_dual_level(*, level=None):
    """Close the level: the tangents made in it are gone."""
    if not _LEVELS or (level is not None and level != _LEVELS[-1].level):
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that "
                           "was created. This is not supported.")
    _LEVELS.pop()
    if not _LEVELS:
        _install(False)


class dual_level:
    """``with dual_level():`` a scope for forward AD (also a decorator)."""

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc):
        exit_dual_level()
        return False

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with dual_level():
                return fn(*args, **kwargs)
        return wrapped

    def clone(self):
        return dual_level()


def reset():
    """Close any open level (the tests' fresh state)."""
    del _LEVELS[:]
    _install(False)


def tangent_of(t):
    """t's tangent at the open level, or None."""
    fw = getattr(t, "_fw", None)
    if fw is None or not _LEVELS or fw[0] is not _LEVELS[-1]:
        return None
    return fw[1]


def set_tangent(t, tangent):
    t._fw = (_LEVELS[-1], tangent)
    return t


def _float_check(t, what):
    kind = raw(t).dtype.kind
    if kind not in "fc":

        raise ValueError(f"Expected {what} to be floating point or complex, but got: "
                         f"{_dtypes.from_np(raw(t).dtype)}")


def make_dual(tensor, tangent, *, level=None):
    """A view of ``tensor`` carrying ``tangent`` (used as is when laid out as the primal, else
    copied into the primal's layout)."""

    if not _LEVELS:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, "
                           "make sure to enter_dual_level() first.")
    _float_check(tensor, "primal")
    _float_check(tangent, "tangent")
    a, ta = raw(tensor), raw(tangent)
    if a.shape != ta.shape:
        raise RuntimeError(f"Trying to set a forward gradient that has a different size than "
                           f"that of the original Tensor, this is not supported. Tensor is of "
                           f"size {list(a.shape)} while the given forward gradient is of size "
                           f"{list(ta.shape)}.")
    if ta.strides != a.strides or ta.dtype != a.dtype:
        tangent = Tensor._wrap(np.array(ta, dtype=a.dtype, order="C"), True)
    if not tensor.stop_gradient and grad_mode.STATE.enabled:
        dual = _ops.view(tensor, a.shape)
    else:
        dual = Tensor._wrap(a, True)
    dual._alias = tensor
    return set_tangent(dual, tangent)


def unpack_dual(tensor, *, level=None):
    """``(primal, tangent)`` of a tensor; the tangent is None for a tensor without one."""

    tangent = tangent_of(tensor)
    if tangent is None:
        return UnpackedDualTensor(tensor, None)
    if not tensor.stop_gradient and grad_mode.STATE.enabled:
        primal = _ops.view(tensor, raw(tensor).shape)
    else:
        primal = Tensor._wrap(raw(tensor), True)
    primal._alias = tensor
    return UnpackedDualTensor(primal, tangent)


# ------------------------------------------------------------------------------ propagation
_LINEAR = frozenset((
    "add", "subtract", "neg", "reshape", "transpose", "concat", "stack", "sum", "mean",
    "assign", "cast", "squeeze", "unsqueeze", "expand", "flip", "roll", "tile", "slice",
    "strided_slice", "index_elementwise_get", "fused_add_scaled", "split", "unbind", "tril",
    "triu", "pad", "fused_trace", "cumsum"))
_PRODUCTS = frozenset(("multiply", "matmul"))


def _dual_layer(inner):
    def apply(op, inputs, attrs=None):
        return _apply_dual(op, inputs, attrs, inner)
    return apply


def _apply_dual(op, inputs, attrs=None, inner=_engine_apply):
    """The engine's apply, with the outputs' tangents when an input carries one."""
    tangents = None
    if _LEVELS:
        top = _LEVELS[-1]
        for i, x in enumerate(inputs):
            fw = getattr(x, "_fw", None)
            if fw is not None and fw[0] is top:
                if tangents is None:
                    tangents = [None] * len(inputs)
                tangents[i] = fw[1]
    out = inner(op, inputs, attrs)
    if tangents is None:
        return out
    outs = out if isinstance(out, tuple) else (out,)
    if not any(raw(o).dtype.kind in "fc" for o in outs):
        return out
    jvps = jvp_of(op, inputs, tangents, attrs, outs)
    for o, j in zip(outs, jvps):
        if j is not None and raw(o).dtype.kind in "fc":
            set_tangent(o, j)
    return out


def _zeros_for(x):

    return Tensor._wrap(np.zeros_like(raw(x)), True)


def _plain(t):
    """A tangent as a tensor without history or tangent of its own."""

    return Tensor._wrap(raw(t), True)


def _connected(inputs, tangents):
    """Whether the tangent must be recorded (an input or a tangent requires grad)."""
    if not grad_mode.STATE.enabled:
        return False
    return any(not x.stop_gradient for x in inputs) or \
        any(t is not None and not t.stop_gradient for t in tangents)


def jvp_of(op, inputs, tangents, attrs, outs):
    """The outputs' tangents of ``op(inputs)`` for the inputs' ``tangents`` (None: zero).
    When an input or a tangent requires grad (and grad mode is on), the tangent is recorded
    too, as torch records it (reverse mode over forward mode)."""
    diff = op.diff_inputs
    tangents = [t if (t is not None and (diff is None or i in diff)) else None
                for i, t in enumerate(tangents)]
    if not any(t is not None for t in tangents):
        return [None] * len(outs)
    rec = _connected(inputs, tangents)
    keep = (lambda v: v) if rec else _plain
    name = op.name
    with grad_mode.set_grad_enabled(rec):
        if name in _LINEAR and (diff is None or len(inputs) == 1):
            ts = [keep(t) if t is not None else _zeros_for(x) for x, t in zip(inputs, tangents)]
            r = _engine_apply(op, tuple(ts), attrs)
            return list(r) if isinstance(r, tuple) else [r]
        if name in _PRODUCTS and len(inputs) == 2:
            x, y = (keep(v) for v in inputs)
            parts = []
            # recorded, torch's formula takes a missing tangent as a zero tensor and still
            # records both products and their sum: the tangent of ``d * p`` or ``x @ d``
            # requires grad (AddBackward0) when a primal does, whichever has the tangent
            t0, t1 = tangents
            if rec:
                t0 = _zeros_for(x) if t0 is None else t0
                t1 = _zeros_for(y) if t1 is None else t1
            if t0 is not None:
                parts.append(_engine_apply(op, (keep(t0), y), attrs))
            if t1 is not None:
                parts.append(_engine_apply(op, (x, keep(t1)), attrs))
            r = parts[0] if len(parts) == 1 else _engine_apply(_registry.OPS["add"],
                                                               tuple(parts))
            return [r]
    if len(outs) == 1 and tangents[0] is not None and all(t is None for t in tangents[1:]):
        if name in _FORMULAS:
            return [_formula_jvp(_FORMULAS[name], inputs[0], outs[0], tangents[0], rec)]
        if name in _DIAGONAL:
            return _diagonal_jvp(op, inputs, tangents[0], attrs, rec)
    res = _generic_jvp(op, inputs, tangents, attrs, outs, rec)
    if rec and name in _SUMS_OF_PRODUCTS and res[0] is not None and res[0].stop_gradient:
        # torch's formula (self_t + mat1_t @ mat2_p + mat1_p @ mat2_t) records the products of
        # the primals with zero tangents too: connect those primals by an exact zero term
        with grad_mode.enable_grad():
            for k in _SUMS_OF_PRODUCTS[name]:
                if inputs[k].stop_gradient:
                    continue
                ins = tuple(x if i == k else _zeros_for(x) for i, x in enumerate(inputs))
                zero = _engine_apply(op, ins, attrs)
                res[0] = _engine_apply(_registry.OPS["add"], (res[0], zero))
    return res


#: ops whose torch tangent is a sum of products: the inputs that multiply another's tangent
_SUMS_OF_PRODUCTS = {"fused_addmm": (1, 2)}


#: elementwise activations of one input: their Jacobian is diagonal, so J t = J^T t, the
#: op's own VJP with the tangent as the cotangent; torch's formulas are the same backward
#: kernels (``elu_backward(self_t, ...)``, ``gelu_backward(self_t, self)``, ``softplus_backward``,
#: ``log_sigmoid_backward``, ``hardtanh_backward``, ``hardswish_backward``,
#: ``softshrink_backward``, ``threshold_backward`` ..., derivatives.yaml), so the tangent is
#: their node (EluBackwardBackward0 ...) with their values
_DIAGONAL = frozenset((
    "elu", "selu", "celubackward0", "gelu", "softplus", "logsigmoid", "hardtanh", "relu6",
    "hardswish", "softshrinkbackward0", "hardshrinkbackward0", "thresholdbackward0",
    "rreluwithnoisebackward0", "leaky_relu"))


def _sigmoid_t(x, y, t):
    """``sigmoid_backward(self_t, result)``: t * (1 - y) * y (SigmoidBackwardBackward0)."""
    return _engine_apply(_ops.top("sigmoid_grad", "SigmoidBackwardBackward0", "all",
                                  forward=_sigmoid_backward_fwd), (y, t))


def _sigmoid_backward_fwd(out, dout):
    one = np.ones((), out.dtype)
    with np.errstate(all="ignore"):
        return ((dout * (one - out)) * out).astype(out.dtype, copy=False)


def _silu_t(x, y, t):
    """``infinitely_differentiable_silu_backward(self_t, self)`` (silu's auto_element_wise
    formula under grad mode): t * s * (1 + x * (1 - s)), s = sigmoid(x)."""
    s = x.sigmoid()
    return t * s * (1.0 + x * (1.0 - s))


def _mish_t(x, y, t):
    """``infinitely_differentiable_mish_backward(self_t, self)``."""
    import gradrepl.torch as T

    s = x.sigmoid()
    ts = T.nn.functional.softplus(x).tanh()
    return t * (ts + x * s * (1.0 - ts * ts))


#: activations whose torch tangent is a formula of dialect ops (derivatives.yaml)
_FORMULAS = {"sigmoid": _sigmoid_t, "silu": _silu_t, "mish": _mish_t}


def _formula_jvp(formula, x, y, t, rec):
    """``formula(x, y, t)`` run with the tangent layer off (its ops compute no tangents),
    recorded when ``rec`` (the primal and result as they are, with their history)."""
    with untracked():
        with grad_mode.set_grad_enabled(rec):
            xs = x if rec else _plain(x)
            r = formula(xs, y if rec else _plain(y), t if rec else _plain(t))
    return r if rec else _plain(r)


def _diagonal_jvp(op, inputs, t, attrs, rec):
    """The tangent of an elementwise activation: one VJP of ``op`` with cotangent ``t``,
    recorded (create_graph) when ``rec``."""
    x = inputs[0]
    with grad_mode.enable_grad():
        if rec and not x.stop_gradient:
            xs = _engine_apply(_registry.OPS["assign"], (x,))
        else:
            xs = Tensor._wrap(raw(x), False)
        y = _engine_apply(op, (xs,) + tuple(inputs[1:]), attrs)
        if y.stop_gradient:
            return [None]
        g, = _engine.grad([y], [xs], [t if rec else _plain(t)], create_graph=rec,
                          allow_unused=True)
    if g is None:
        return [_zeros_for(y)]
    return [g if rec else Tensor._wrap(raw(g), True)]


def _generic_jvp(op, inputs, tangents, attrs, outs, rec):
    """J t by the engine's VJP applied twice (see the module docstring)."""

    with grad_mode.enable_grad():
        if rec:  # the inputs as they are (an identity node for those with a tangent)
            xs = tuple(_engine_apply(_registry.OPS["assign"], (x,)) if t is not None
                       and not x.stop_gradient else
                       (Tensor._wrap(raw(x), False) if t is not None else x)
                       for x, t in zip(inputs, tangents))
        else:
            xs = tuple(Tensor._wrap(raw(x), t is None) for x, t in zip(inputs, tangents))
        y = _engine_apply(op, xs, attrs)
        ys = y if isinstance(y, tuple) else (y,)
        live = [k for k, o in enumerate(ys) if not o.stop_gradient]
        if not live:
            return [None] * len(outs)
        us = [Tensor._wrap(np.zeros_like(raw(ys[k])), False) for k in live]
        leaves = [x for x, t in zip(xs, tangents) if t is not None]
        ts = [t if rec else _plain(t) for t in tangents if t is not None]
        gs = _engine.grad([ys[k] for k in live], leaves, us, create_graph=True,
                          allow_unused=True)
        total = None
        for g, t in zip(gs, ts):
            if g is None:
                continue
            prod = _engine_apply(_registry.OPS["multiply"], (g, t))
            term = _rsum(prod, tuple(range(raw(prod).ndim)))
            total = term if total is None else _engine_apply(_registry.OPS["add"], (total, term))
        if total is None or total.stop_gradient:
            return [None] * len(outs)
        js = _engine.grad([total], us, allow_unused=True, create_graph=rec)
    res: list = [None] * len(outs)
    for k, j in zip(live, js):
        if j is None:
            res[k] = _zeros_for(outs[k])
        else:
            res[k] = j if rec else Tensor._wrap(raw(j), True)
    return res


def is_dual(t):
    return isinstance(t, EngineTensor) and tangent_of(t) is not None
