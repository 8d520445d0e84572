"""The backward of torch's binary cross-entropy losses as ``FunctionsManual.cpp`` /
``Loss.cpp`` write them, for the input AND the target (torch differentiates both: a target
that requires grad, e.g. ``sigmoid(z)`` of a GAN's or a distillation's other branch, gets
``binary_cross_entropy_target_backward``; the engine's VJPs gave it no gradient).

Operation order is torch's (each step a float32 rounding): the element term times ``grad``,
times ``weight``, and only then divided by the element count for ``'mean'``.

* ``binary_cross_entropy_with_logits``: input: (sigmoid(x) - y) * grad (with pos_weight p:
  ((p y + 1) - y) sigmoid(x) - p y); target: -x * grad (with p: (log_sigmoid(-x) -
  log_sigmoid(x) p) * grad).
* ``binary_cross_entropy``: input: grad (x - y) / max((1 - x) x, 1e-12) (``_bce_vjp`` in
  nn/functional.py); target: -logit(x) * grad.
"""
from __future__ import annotations

import numpy as np

from ..engine.ops._util import const
from ..engine.ops.broadcast import broadcast_to
from ..engine.ops.math import add, divide, multiply, subtract
from ..engine.ops.shape import reshape
from ..engine.registry import apply


def _spread(g, shape, red):
    if red != "none" and shape:
        return broadcast_to(reshape(g, (1,) * len(shape)), shape)
    return g


def _finish(d, n, dtype):
    """times the weight, then / numel for 'mean' (torch's order)."""
    w = n.attrs.get("weight")
    if w is not None:
        d = multiply(d, const(d, np.asarray(w, dtype)))
    if n.attrs.get("reduction", "mean") == "mean":
        shape = n.inputs[0].data.shape
        d = divide(d, const(d, int(np.prod(shape)) if shape else 1))
    return d


def _neg(t):
    return multiply(t, const(t, -1.0))   # (-1 in t's dtype: const converts, bf16 too)


def bce_logits_vjp(n, g, sigmoid, log_sigmoid):
    x, y = n.inputs
    dt = x.data.dtype
    gb = _spread(g, x.data.shape, n.attrs.get("reduction", "mean"))
    pw = n.attrs.get("pos_weight")
    s = sigmoid(x)
    if pw is None:
        d = subtract(s, y)
    else:
        t = multiply(const(gb, np.asarray(pw, dt)), y)
        d = subtract(multiply(subtract(add(t, const(gb, np.ones((), dt))), y), s), t)
    dx = _finish(multiply(d, gb), n, dt)
    if pw is None:
        dy = multiply(_neg(x), gb)
    else:
        dy = multiply(subtract(log_sigmoid(_neg(x)),
                               multiply(log_sigmoid(x), const(gb, np.asarray(pw, dt)))), gb)
    return dx, _finish(dy, n, dt)


def bce_target_grad(n, g, logit):
    x = n.inputs[0]
    gb = _spread(g, x.data.shape, n.attrs.get("reduction", "mean"))
    return _finish(multiply(_neg(logit(x)), gb), n, x.data.dtype)


def dialect_fns():
    """torch's sigmoid, log_sigmoid and logit kernels as dialect ops (differentiable; the
    logsigmoid op is nn.functional's, wired to torch's kernels)."""
    from . import _ops
    from ._ops import top

    def sigmoid(t):
        return apply(_ops.sigmoid._op, (t,))

    def log_sigmoid(t):
        return apply(top("logsigmoid", "LogSigmoidBackward0", "in0"), (t,))

    def logit(t):   # (special.logit's op: torch's log of x / (1 - x))
        from .special import _logit_fwd

        return apply(top("logit", "LogitBackward0", "in0", forward=_logit_fwd), (t,))
    return sigmoid, log_sigmoid, logit
