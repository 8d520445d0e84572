"""``CTCLoss`` / ``ctc_loss``: torch's CPU forward (the alpha recursion in the input's dtype,
``log(exp(a - m) + exp(b - m) + exp(c - m)) + m`` with the C library's exp and log, a batch
element at a time, vectorised over the extended target) and its alpha-beta gradient."""
from __future__ import annotations

import numpy as np

from .. import _ops
from .._base import raw
from .._tensor import Tensor
from . import _more_common as C
from .modules import _Loss

_wrap = Tensor._wrap


def _log(x):
    from ...engine.ops import _kernels as K

    if x.dtype == np.float32:
        return K.libm("log", np.log)(x)
    with np.errstate(all="ignore"):
        return np.log(x)


def _lse(terms, dt):
    m = terms[0]
    for t in terms[1:]:
        m = np.maximum(m, t)
    m = np.where(m == -np.inf, np.zeros((), dt), m).astype(dt)
    s = np.zeros_like(m)
    for t in terms:
        with np.errstate(all="ignore"):
            s = (s + C.exp32((t - m).astype(dt))).astype(dt)
    return (_log(s) + m).astype(dt)


def _extended(tg, blank):
    ext = np.full(2 * len(tg) + 1, blank, np.int64)
    ext[1::2] = tg
    return ext


def _alpha(lp, ext, T, dt):
    """log_alpha (T x S') for one batch element; lp is (T_max, C)."""
    S = ext.shape[0]
    ninf = np.asarray(-np.inf, dt)
    la = np.full((max(T, 1), S), ninf, dt)
    if T == 0:
        return la
    la[0, 0] = lp[0, ext[0]]
    if S > 1:
        la[0, 1] = lp[0, ext[1]]
    skip = np.zeros(S, bool)
    skip[2:] = ext[2:] != ext[:-2]
    for t in range(1, T):
        prev = la[t - 1]
        a1 = prev
        a2 = np.concatenate([[ninf], prev[:-1]]).astype(dt)
        a3 = np.where(skip, np.concatenate([[ninf, ninf], prev[:-2]]), ninf).astype(dt)
        la[t] = (_lse([a1, a2, a3], dt) + lp[t, ext]).astype(dt)
    return la


def _beta(lp, ext, T, dt):
    S = ext.shape[0]
    ninf = np.asarray(-np.inf, dt)
    lb = np.full((max(T, 1), S), ninf, dt)
    if T == 0:
        return lb
    lb[T - 1, S - 1] = lp[T - 1, ext[S - 1]]
    if S > 1:
        lb[T - 1, S - 2] = lp[T - 1, ext[S - 2]]
    skip = np.zeros(S, bool)
    skip[:-2] = ext[:-2] != ext[2:]
    for t in range(T - 2, -1, -1):
        nxt = lb[t + 1]
        b1 = nxt
        b2 = np.concatenate([nxt[1:], [ninf]]).astype(dt)
        b3 = np.where(skip, np.concatenate([nxt[2:], [ninf, ninf]]), ninf).astype(dt)
        lb[t] = (_lse([b1, b2, b3], dt) + lp[t, ext]).astype(dt)
    return lb


def _targets_of(targets, tl, b, offsets):
    if targets.ndim == 2:
        return targets[b, :tl[b]]
    return targets[offsets[b]:offsets[b] + tl[b]]


def _prep(lp, targets, il, tl):
    batched = lp.ndim == 3
    lp3 = lp if batched else lp[:, None, :]
    tg = targets if (batched or targets.ndim != 1) else targets[None, :]
    if not batched and targets.ndim == 1:
        tg = targets[None, :] if targets.ndim == 1 else targets
    il = np.atleast_1d(il).astype(np.int64)
    tl = np.atleast_1d(tl).astype(np.int64)
    offsets = np.concatenate([[0], np.cumsum(tl)[:-1]]) if tg.ndim == 1 else None
    return lp3, tg, il, tl, offsets, batched


def _ctc_fwd(lp, targets, il, tl, blank=0, zero_infinity=False):
    lp3, tg, il, tl, offsets, batched = _prep(lp, targets, il, tl)
    dt = lp.dtype
    out = np.zeros(lp3.shape[1], dt)
    for b in range(lp3.shape[1]):
        ext = _extended(_targets_of(tg, tl, b, offsets), blank)
        T = int(il[b])
        la = _alpha(lp3[:, b, :], ext, T, dt)
        if tl[b] == 0:
            out[b] = -la[T - 1, 0]
        else:
            S = ext.shape[0]
            out[b] = -_lse([la[T - 1, S - 1:S], la[T - 1, S - 2:S - 1]], dt)[0]
    if zero_infinity:
        out = np.where(out == np.inf, np.zeros((), dt), out).astype(dt)
    return out if batched else out.reshape(())


def _ctc_vjp(n, g):
    lp_t = n.inputs[0]
    lp = raw(lp_t)
    a = n.attrs
    targets, il, tl = raw(n.inputs[1]), raw(n.inputs[2]), raw(n.inputs[3])
    lp3, tg, il, tl, offsets, batched = _prep(lp, targets, il, tl)
    nll = np.atleast_1d(raw(n.out()) if hasattr(n, "out") else _ctc_fwd(lp, *[raw(t) for t in
                                                                             n.inputs[1:4]]))
    lp64 = lp3.astype(np.float64)
    grad = np.zeros(lp3.shape, np.float64)
    for b in range(lp3.shape[1]):
        ext = _extended(_targets_of(tg, tl, b, offsets), a.get("blank", 0))
        T = int(il[b])
        la = _alpha(lp64[:, b, :], ext, T, np.float64)
        lb = _beta(lp64[:, b, :], ext, T, np.float64)
        nl = float(nll[b])
        if a.get("zero_infinity") and nl == np.inf:
            continue
        ab = la[:T] + lb[:T]
        lcab = np.full((T, lp3.shape[2]), -np.inf)
        for s, c in enumerate(ext):
            lcab[:, c] = np.logaddexp(lcab[:, c], ab[:, s])
        with np.errstate(all="ignore"):
            grad[:T, b, :] = np.exp(lp64[:T, b, :]) - np.exp(lcab + nl - lp64[:T, b, :])
    grad = grad.astype(lp.dtype)
    gg = g if batched else _ops.reshape(g, (1,))
    gi = _ops.mul(_wrap(grad, True), _ops.reshape(gg, (1, -1, 1)))
    if not batched:
        gi = _ops.reshape(gi, lp.shape)
    return gi, None, None, None


_CTC = C.op("CtcLossBackward0", _ctc_fwd, _ctc_vjp, diff_inputs=(0,))


def _as_long(v):
    if isinstance(v, Tensor):
        return _wrap(raw(v).astype(np.int64), True)
    return _wrap(np.asarray(v, np.int64), True)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0,
             reduction="mean", zero_infinity=False):
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    il, tl = _as_long(input_lengths), _as_long(target_lengths)
    tg = _as_long(targets)
    batched = raw(log_probs).ndim == 3
    if not batched:  # torch: unsqueezed to a batch of one, the result squeezed back
        log_probs = _ops.unsqueeze(log_probs, 1)
        tg = _wrap(raw(tg).reshape(1, -1), True)
        il = _wrap(raw(il).reshape(1), True)
        tl = _wrap(raw(tl).reshape(1), True)
    res = C.run(_CTC, (log_probs, tg, il, tl),
                {"blank": int(blank), "zero_infinity": bool(zero_infinity)})
    if not batched:
        res = _ops.squeeze(res, 0)
    if reduction == "mean":
        tlt = _wrap(np.maximum(raw(tl), 1).astype(raw(res).dtype), True)
        return _ops.mean(_ops.div(res, tlt))
    if reduction == "sum":
        return _ops.sum(res)
    return res


class CTCLoss(_Loss):
    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__(reduction=reduction)
        self.blank = blank
        self.zero_infinity = zero_infinity

    def forward(self, log_probs, targets, input_lengths, target_lengths):
        return ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank,
                        self.reduction, self.zero_infinity)
