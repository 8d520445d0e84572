"""More activations as single ops (celu, hardshrink, softshrink, thresholded_relu, prelu), each
with the kernel's formula and its gradient; the piecewise ones pass the gradient through a mask
of where the input lies (a constant, so their second derivative is zero, as it is)."""
from __future__ import annotations

import math as _math

import numpy as np

from ..registry import apply, register
from . import _kernels as K
from ._util import const, quiet
from .math import div_scale, divide, exp, multiply, scale, tanh, unary


def _typed(v, like):
    return np.asarray(v, like.dtype)


# ============================================================== celu
def _celu_fwd(x, alpha=1.0):
    a = _typed(alpha, x)
    with quiet(all="ignore"):
        # Eigen's exp for float32 and float64 (pexp_double on 4-wide packets: float64 celu's
        # last bits, 6 of 144 values off with numpy's exp; real 3.3.1 and 2.6.2)
        if x.dtype in (np.float32, np.float64):
            neg = a * (K.exp(x / a) - np.ones((), x.dtype))
        else:
            neg = a * (np.exp(x / a) - 1)
    return np.where(x > 0, x, neg).astype(x.dtype)


def _celu_vjp(n, g):
    """dx = dout where x > 0, dout * exp(x / alpha) elsewhere."""
    from .math import add

    x = n.inputs[0]
    alpha = n.attrs.get("alpha", 1.0)
    pos = const(g, (x.data > 0).astype(g.data.dtype))
    # x / alpha as the kernel divides (CELUGradFunctor; x * (1 / alpha) differs in the last bit
    # for an alpha such as 1.5: 63 of 2,048 gradients, real Paddle 3.3.1 and 2.6.2)
    neg = multiply(exp(div_scale(x, alpha)), const(g, (x.data <= 0).astype(g.data.dtype)))
    return multiply(g, add(pos, neg))


CELU = unary("celu", _celu_fwd, _celu_vjp, "CeluBackward", domain="away0",
             examples=[([(2, 3)], {"alpha": 1.0}), ([(3,)], {"alpha": 0.5})])


def celu(x, alpha=1.0):
    return apply(CELU, (x,), {"alpha": float(alpha)})


# ============================================================== tanh_shrink
def _tanh_shrink_fwd(x):
    """``x - tanh(x)`` (TanhShrinkFunctor), tanh as Paddle's tanh kernel."""
    return (x - K.tanh(x)).astype(x.dtype) if x.dtype.kind == "f" else x - np.tanh(x)


def _tanh_shrink_vjp(n, g):
    """Paddle's tanh_shrink_grad: ``dout * (t * t)`` with t = tanh(x) (measured: every one of
    2,048 random gradients equal in real Paddle 3.3.1 and 2.6.2 on AMD Zen 4; the composed
    gradient dout - dout * (1 - t * t) differs in 441 of them, (dout * t) * t in 702)."""
    t = tanh(n.inputs[0])
    return multiply(g, multiply(t, t))


TANH_SHRINK = unary("tanh_shrink", _tanh_shrink_fwd, _tanh_shrink_vjp, "TanhShrinkBackward")


def tanh_shrink(x):
    return apply(TANH_SHRINK, (x,), {})


# ============================================================== log_loss
def _log_loss_fwd(pred, label, epsilon=1e-4):
    """LogLossKernel's Eigen expression: -(label * log(pred + eps)) - ((1 - label) *
    log(1 - pred + eps)), Eigen's packet log (the last n % 8 values the C library's logf)."""
    from .nn import eigen_log

    eps = _typed(epsilon, pred)
    one = _typed(1, pred)
    with quiet(all="ignore"):
        return (-(label * eigen_log(pred + eps)) - ((one - label) * eigen_log(one - pred + eps))
                ).astype(pred.dtype)


def _log_loss_grad_fwd(pred, label, dout, epsilon=1e-4):
    """LogLossGradKernel: dout * (-(label / (pred + eps)) + ((1 - label) / (1 - pred + eps)))."""
    eps = _typed(epsilon, pred)
    one = _typed(1, pred)
    with quiet(all="ignore"):
        return (dout * (-(label / (pred + eps)) + ((one - label) / (one - pred + eps)))
                ).astype(pred.dtype)


def _log_loss_vjp(n, g):
    pred, label = n.inputs
    return apply(LOG_LOSS_GRAD, (pred, label, g), n.attrs), None


def _log_loss_grad_vjp(n, gg):
    """Second order of the kernel's formula: d/dpred = gg * dout * (label / (pred + eps)^2 +
    (1 - label) / (1 - pred + eps)^2); d/ddout = the kernel's formula with gg."""
    from .math import add, divide

    pred, label, dout = n.inputs
    eps = n.attrs.get("epsilon", 1e-4)
    a = scale(pred, 1.0, eps)
    b = scale(pred, -1.0, 1.0 + eps)
    one_l = scale(label, -1.0, 1.0)
    d2 = add(divide(label, multiply(a, a)), divide(one_l, multiply(b, b)))
    return (multiply(multiply(gg, dout), d2), None,
            apply(LOG_LOSS_GRAD, (pred, label, gg), n.attrs))


_LL_PRED = np.array([[0.2], [0.5], [0.7]])        # (probabilities: the gradient check's inputs)
_LL_LABEL = np.array([[0.0], [1.0], [0.3]])
LOG_LOSS_GRAD = register("log_loss_grad", _log_loss_grad_fwd, _log_loss_grad_vjp,
                         legacy_name="LogLossGradBackward", diff_inputs=(0, 2),
                         examples=[([_LL_PRED, _LL_LABEL, (3, 1)], {"epsilon": 1e-4})])
LOG_LOSS = register("log_loss", _log_loss_fwd, _log_loss_vjp, legacy_name="LogLossBackward",
                    diff_inputs=(0,), examples=[([_LL_PRED, _LL_LABEL], {"epsilon": 1e-4})])


def log_loss(pred, label, epsilon=1e-4):
    return apply(LOG_LOSS, (pred, label), {"epsilon": float(epsilon)})


# ============================================================== shrinks and thresholds
def _mask_vjp(pred):
    def vjp(n, g):
        return multiply(g, const(g, pred(n.inputs[0].data, n.attrs).astype(g.data.dtype)))
    return vjp


def _hardshrink_fwd(x, threshold=0.5):
    """Paddle's functor ``x * ((x < -t) + (x > t))``: -0. for a small negative x (real Paddle
    3.3.1 and 2.6.2)."""
    t = _typed(threshold, x)
    return (x * ((x > t) | (x < -t)).astype(x.dtype)).astype(x.dtype)


def zeroing_hardshrink(x, threshold=0.5):
    """torch's ``hardshrink``: ``(x >= -l && x <= l) ? 0 : x`` (+0. inside the band)."""
    t = _typed(threshold, x)
    return np.where((x > t) | (x < -t), x, np.zeros((), x.dtype)).astype(x.dtype)


def _softshrink_fwd(x, threshold=0.5):
    t = _typed(threshold, x)
    return np.where(x > t, x - t, np.where(x < -t, x + t, np.zeros((), x.dtype))).astype(x.dtype)


def _thresholded_fwd(x, threshold=1.0, value=0.0):
    """Paddle's kernel: ``(x > t) * x + (x <= t) * value`` (3.x: +0. below t for value 0);
    ``value=None`` is 2.6.2's ``(x > t) * x`` (-0. for a negative x)."""
    keep = (x > _typed(threshold, x)).astype(x.dtype)
    out = keep * x
    if value is not None:
        out = out + (1 - keep) * _typed(value, x)
    return out.astype(x.dtype)


HARDSHRINK = unary("hardshrink", _hardshrink_fwd,
                   _mask_vjp(lambda x, a: (x > a.get("threshold", 0.5)) |
                             (x < -a.get("threshold", 0.5))),
                   "HardshrinkBackward", domain="away0", check=True,
                   examples=[([(2, 3)], {"threshold": 0.1})], saves_inputs=True)
SOFTSHRINK = unary("softshrink", _softshrink_fwd,
                   _mask_vjp(lambda x, a: (x > a.get("threshold", 0.5)) |
                             (x < -a.get("threshold", 0.5))),
                   "SoftshrinkBackward", domain="away0",
                   examples=[([(2, 3)], {"threshold": 0.1})])
THRESHOLDED_RELU = unary("thresholded_relu", _thresholded_fwd,
                         _mask_vjp(lambda x, a: x > a.get("threshold", 1.0)),
                         "ThresholdedReluBackward", domain="away0",
                         examples=[([(2, 3)], {"threshold": 0.1, "value": 0.0})])


def hardshrink(x, threshold=0.5):
    return apply(HARDSHRINK, (x,), {"threshold": float(threshold)})


def softshrink(x, threshold=0.5):
    return apply(SOFTSHRINK, (x,), {"threshold": float(threshold)})


def thresholded_relu(x, threshold=1.0, value=0.0):
    return apply(THRESHOLDED_RELU, (x,), {"threshold": float(threshold),
                                          "value": None if value is None else float(value)})


# ============================================================== prelu
def _prelu_shape(x_shape, w_size, mode, data_format):
    if mode == "all" or w_size == 1:
        return (1,) * len(x_shape) if x_shape else ()
    if mode == "channel":
        shape = [1] * len(x_shape)
        shape[1 if data_format == "NCHW" else len(x_shape) - 1] = w_size
        return tuple(shape)
    return tuple(x_shape)


def _prelu_fwd(x, w, mode="all", data_format="NCHW"):
    wb = w.reshape(_prelu_shape(x.shape, w.size, mode, data_format))
    return np.where(x > 0, x, wb * x).astype(x.dtype)


def _prelu_vjp(n, g):
    """dx = dout where x > 0, dout * w elsewhere; dw = dout * x where x <= 0, summed to w."""
    from .broadcast import sum_to
    from .shape import reshape

    x, w = n.inputs
    mode, fmt = n.attrs.get("mode", "all"), n.attrs.get("data_format", "NCHW")
    bshape = _prelu_shape(x.data.shape, w.data.size, mode, fmt)
    wb = reshape(w, bshape)
    pos = const(g, (x.data > 0).astype(g.data.dtype))
    negm = const(g, (x.data <= 0).astype(g.data.dtype))
    from .math import add

    dx = multiply(g, add(pos, multiply(negm, wb)))
    dwb = sum_to(multiply(multiply(g, x), negm), bshape)
    dw = reshape(dwb, w.data.shape)
    return dx, dw


PRELU = register("prelu", _prelu_fwd, _prelu_vjp, legacy_name="PreluBackward", domain="away0",
                 examples=[([(2, 3, 2), (1,)], {"mode": "all"}),
                           ([(2, 3, 2), (3,)], {"mode": "channel", "data_format": "NCHW"})])


def prelu(x, weight, mode="all", data_format="NCHW"):
    return apply(PRELU, (x, weight), {"mode": mode, "data_format": data_format})



# ============================================================== warprnnt (RNN-T loss)
def _rnnt_lattice(lp, labels, blank, fastemit_lambda):
    """One sequence's RNN-T loss and its gradient, on ``lp`` [T, U+1, V] read as log
    probabilities (Paddle's CPU kernel takes the activations as they are: no log_softmax).
    warp-transducer's CPU kernel step by step in the input's type (its C library exp and
    log1p): forward variables alpha give the loss, backward ones beta the gradient of each
    used transition (minus its posterior; label transitions scaled by 1 + fastemit_lambda:
    FastEmit changes the gradient, not the loss)."""
    from .special import _LM

    lm = _LM[lp.dtype]
    T_ = lm.T
    exp, log1p = lm.exp, lm.log1p
    ninf = T_(-np.inf)

    def lse(a, b):
        if a == ninf:
            return b
        if b == ninf:
            return a
        return T_(log1p(exp(T_(b - a)))) + a if a > b else T_(log1p(exp(T_(a - b)))) + b

    T, U = lp.shape[0], lp.shape[1]
    blk = [[T_(lp[t, u, blank]) for u in range(U)] for t in range(T)]
    emt = [[T_(lp[t, u, labels[u]]) if u < U - 1 else ninf for u in range(U)] for t in range(T)]
    alpha = [[T_(0)] * U for _ in range(T)]
    for t in range(T):
        for u in range(U):
            if u == 0 and t > 0:
                alpha[t][0] = alpha[t - 1][0] + blk[t - 1][0]
            if t == 0 and u > 0:
                alpha[0][u] = alpha[0][u - 1] + emt[0][u - 1]
            if t > 0 and u > 0:
                alpha[t][u] = lse(alpha[t][u - 1] + emt[t][u - 1], alpha[t - 1][u] + blk[t - 1][u])
    ll_forward = alpha[T - 1][U - 1] + blk[T - 1][U - 1]
    beta = [[T_(0)] * U for _ in range(T)]
    beta[T - 1][U - 1] = blk[T - 1][U - 1]
    for t in range(T - 1, -1, -1):
        for u in range(U - 1, -1, -1):
            if u == U - 1 and t < T - 1:
                beta[t][U - 1] = beta[t + 1][U - 1] + blk[t][U - 1]
            if t == T - 1 and u < U - 1:
                beta[T - 1][u] = beta[T - 1][u + 1] + emt[T - 1][u]
            if t < T - 1 and u < U - 1:
                beta[t][u] = lse(beta[t][u + 1] + emt[t][u], beta[t + 1][u] + blk[t][u])
    ll = beta[0][0]
    grad = np.zeros_like(lp)
    fe = 1.0 + float(T_(fastemit_lambda))
    for t in range(T):
        for u in range(U):
            if t < T - 1:
                g = alpha[t][u] + beta[t + 1][u]
                grad[t, u, blank] = -exp(T_(blk[t][u] + g) - ll)
            if u < U - 1:
                g = alpha[t][u] + beta[t][u + 1]
                grad[t, u, labels[u]] = -(fe * float(exp(T_(emt[t][u] + g) - ll)))
    grad[T - 1, U - 1, blank] = -exp(T_(blk[T - 1][U - 1] + alpha[T - 1][U - 1]) - ll)
    return -ll_forward, grad


def _warprnnt_all(acts, label, input_lengths, label_lengths, blank, fastemit_lambda):
    B = acts.shape[0]
    losses = np.zeros(B, acts.dtype)
    grads = np.zeros_like(acts)
    for b in range(B):
        T, L = int(input_lengths[b]), int(label_lengths[b])
        loss, g = _rnnt_lattice(acts[b, :T, :L + 1], [int(v) for v in label[b, :L]], blank,
                                fastemit_lambda)
        losses[b] = loss
        grads[b, :T, :L + 1] = g
    return losses, grads


def _warprnnt_fwd(acts, label, input_lengths, label_lengths, blank=0, fastemit_lambda=0.0):
    return _warprnnt_all(acts, label, input_lengths, label_lengths, blank, fastemit_lambda)[0]


def _warprnnt_vjp(n, g):
    """The kernel's own gradient (computed with the loss, as Paddle's warprnntgrad output),
    scaled by the incoming one: a constant, so no second order (Paddle has none either)."""
    arrays = [t.data for t in n.inputs]
    _, grads = _warprnnt_all(*arrays, n.attrs.get("blank", 0), n.attrs.get("fastemit_lambda", 0.0))
    from .shape import reshape

    return multiply(reshape(g, (-1, 1, 1, 1)), const(g, grads)), None, None, None


WARPRNNT = register(
    "warprnnt", _warprnnt_fwd, _warprnnt_vjp, diff_inputs=(0,), legacy_name="WarprnntBackward",
    second_order=False,
    examples=[([(2, 3, 3, 4), np.array([[1, 2], [3, 0]], np.int32), np.array([3, 2], np.int32),
                np.array([2, 1], np.int32)], {"blank": 0, "fastemit_lambda": 0.0})])


def warprnnt(acts, label, input_lengths, label_lengths, blank=0, fastemit_lambda=0.001):
    return apply(WARPRNNT, (acts, label, input_lengths, label_lengths),
                 {"blank": int(blank), "fastemit_lambda": float(fastemit_lambda)})


# ============================================================== warpctc (CTC loss)
def _ctc_sequence(acts, labels, blank):
    """One sequence's CTC loss and its gradient as warp-ctc's CPU kernel computes them
    (Paddle's warpctc op): ``acts`` [T, C] unnormalized, softmax over C (in the input's type,
    its C library exp/log/log1p), forward alphas and backward betas in log space, the gradient
    with respect to the activations (softmax included). A label sequence too long for T
    (L + repeats > T) gives loss 0 and gradient 0, as the kernel does."""
    from .special import _LM

    lm = _LM[acts.dtype]
    F = lm.T
    exp, log, log1p = lm.exp, lm.log, lm.log1p
    ninf = F(-np.inf)
    T, C = acts.shape
    L = len(labels)
    S = 2 * L + 1

    def log_plus(p1, p2):
        if p1 == ninf:
            return p2
        if p2 == ninf:
            return p1
        return F(_math.log1p(_math.exp(-abs(float(F(p1 - p2))))) + float(max(p1, p2)))

    probs = np.zeros((T, C), acts.dtype)
    for t in range(T):
        row = [F(v) for v in acts[t]]
        m = F(-np.inf)
        for v in row:
            m = max(m, v)
        den = F(0)
        ex = []
        for v in row:
            e = exp(F(v - m))
            ex.append(e)
            den = F(den + e)
        probs[t] = [F(e / den) for e in ex]
    grad = np.zeros_like(acts)

    s_inc, e_inc = [1], []
    repeats = 0
    for i in range(1, L):
        if labels[i - 1] == labels[i]:
            s_inc += [1, 1]
            e_inc += [1, 1]
            repeats += 1
        else:
            s_inc.append(2)
            e_inc.append(2)
    e_inc.append(1)
    lab = [blank] * S
    for i in range(L):
        lab[2 * i + 1] = labels[i]
    if L + repeats > T:
        return F(0), grad
    P = [[F(v) for v in probs[t]] for t in range(T)]

    # alphas
    alphas = [[ninf] * S for _ in range(T)]
    start = 0 if (S // 2) + repeats - T < 0 else 1
    end = 2 if S > 1 else 1
    for i in range(start, end):
        alphas[0][i] = log(P[0][lab[i]])
    for t in range(1, T):
        remain = (S // 2) + repeats - (T - t)
        if remain >= 0:
            start += s_inc[remain]
        if t <= (S // 2) + repeats:
            end += e_inc[t - 1]
        startloop = start
        if start == 0:
            alphas[t][0] = alphas[t - 1][0] + log(P[t][blank])
            startloop += 1
        for i in range(startloop, end):
            prev = log_plus(alphas[t - 1][i], alphas[t - 1][i - 1])
            if lab[i] != blank and i != 1 and lab[i] != lab[i - 2]:
                prev = log_plus(prev, alphas[t - 1][i - 2])
            alphas[t][i] = prev + log(P[t][lab[i]])
    ll_forward = ninf
    for i in range(start, end):
        ll_forward = log_plus(ll_forward, alphas[T - 1][i])

    # betas and the gradient
    betas = [ninf] * S
    start = S - 2 if S > 1 else 0
    end = S if T > (S // 2) + repeats else S - 1

    def column_grad(t, output):
        for c in range(C):
            p = P[t][c]
            o = output[c]
            if o == 0.0 or o == ninf or p == 0.0:
                grad[t, c] = p
            else:
                grad[t, c] = p - exp(F(F(o - log(p)) - ll_forward))

    output = [ninf] * C
    for i in range(start, end):
        betas[i] = log(P[T - 1][lab[i]])
        alphas[T - 1][i] = alphas[T - 1][i] + betas[i]
        output[lab[i]] = log_plus(alphas[T - 1][i], output[lab[i]])
    column_grad(T - 1, output)
    for t in range(T - 2, -1, -1):
        remain = (S // 2) + repeats - (T - t)
        if remain >= -1:
            start -= s_inc[remain + 1]
        if t < (S // 2) + repeats:
            end -= e_inc[t]
        endloop = end - 1 if end == S else end
        output = [ninf] * C
        for i in range(start, endloop):
            nxt = log_plus(betas[i], betas[i + 1])
            if lab[i] != blank and i != S - 2 and lab[i] != lab[i + 2]:
                nxt = log_plus(nxt, betas[i + 2])
            betas[i] = nxt + log(P[t][lab[i]])
            alphas[t][i] = alphas[t][i] + betas[i]
            output[lab[i]] = log_plus(alphas[t][i], output[lab[i]])
        if end == S:
            betas[S - 1] = betas[S - 1] + log(P[t][blank])
            alphas[t][S - 1] = alphas[t][S - 1] + betas[S - 1]
            output[lab[S - 1]] = log_plus(alphas[t][S - 1], output[lab[S - 1]])
        column_grad(t, output)
    return -ll_forward, grad


def _warpctc_all(logits, label, logits_length, label_length, blank):
    B = logits.shape[1]
    losses = np.zeros((B, 1), logits.dtype)
    grads = np.zeros_like(logits)
    for b in range(B):
        T, L = int(logits_length[b]), int(label_length[b])
        loss, g = _ctc_sequence(logits[:T, b], [int(v) for v in label[b, :L]], blank)
        losses[b, 0] = loss
        grads[:T, b] = g
    return losses, grads


def _warpctc_fwd(logits, label, logits_length, label_length, blank=0, norm_by_times=False):
    return _warpctc_all(logits, label, logits_length, label_length, blank)[0]


def _warpctc_vjp(n, g):
    """The kernel's gradient (computed with the loss) times the incoming one per sequence,
    divided by each sequence's length when ``norm_by_times``; a constant (no second order)."""
    from .shape import reshape

    arrays = [t.data for t in n.inputs]
    _, grads = _warpctc_all(*arrays, n.attrs.get("blank", 0))
    out = multiply(const(g, grads), reshape(g, (1, -1, 1)))
    if n.attrs.get("norm_by_times"):
        lengths = np.asarray(arrays[2]).astype(grads.dtype)
        inv = (np.ones((), grads.dtype) / lengths).reshape(1, -1, 1)
        out = multiply(out, const(g, inv))
    return out, None, None, None


WARPCTC = register(
    "warpctc", _warpctc_fwd, _warpctc_vjp, diff_inputs=(0,), legacy_name="WarpctcBackward",
    second_order=False,
    examples=[([(5, 2, 4), np.array([[1, 2, 2], [3, 1, 0]], np.int32),
                np.array([5, 4], np.int64), np.array([3, 2], np.int64)],
               {"blank": 0, "norm_by_times": False})])


def warpctc(logits, label, logits_length, label_length, blank=0, norm_by_times=False):
    return apply(WARPCTC, (logits, label, logits_length, label_length),
                 {"blank": int(blank), "norm_by_times": bool(norm_by_times)})


# ============================================================== grid_sample, affine_grid
def _round_half_away(x):
    """C's round(): halves away from zero (numpy rounds them to even)."""
    r = np.trunc(x)
    return r + np.where(np.abs(x - r) >= 0.5, np.sign(x), 0).astype(x.dtype)


def _gs_locate(g, size, align_corners, padding_mode, with_scale=False):
    """One coordinate of Paddle's CPU grid_sample: unnormalize to pixels, then clip (border)
    or reflect (reflection); with ``with_scale`` also the factor the grid gradient is
    multiplied by (d pixel / d grid, masked where clipped, signed where reflected)."""
    T = g.dtype.type
    max_val = size - 1
    one, half = T(1), T(0.5)
    factor = T((max_val + 1) * 0.5) if not align_corners else T(max_val * 0.5)
    if not align_corners:
        g = (g + one) * factor - half
    else:
        g = (g + one) * factor
    scale = np.full(g.shape, factor, g.dtype)
    with quiet(all="ignore"):
        if padding_mode == "border":
            res = np.minimum(np.maximum(g, T(0)), T(max_val))
            scale = scale * (res == g).astype(g.dtype)
            g = res
        elif padding_mode == "reflection":
            if align_corners:
                dr = T(max_val * 2)
                is_neg = g < T(0)
                a = np.abs(g)
                extra = a - np.floor(a / dr) * dr
                flip = extra > (dr - extra)
                sign = (is_neg == flip).astype(g.dtype) - (is_neg != flip).astype(g.dtype)
                scale = scale * sign
                g = np.minimum(extra, dr - extra)
                if max_val == 0:
                    g = np.zeros_like(g)
            else:
                dr = T((max_val + 1) * 2)
                a = np.abs(g + half)
                is_neg = (g + half) < T(0)
                extra = a - np.floor(a / dr) * dr
                flip = extra > (dr - extra)
                reflected = np.minimum(extra, dr - extra) - half
                clipped = np.minimum(np.maximum(reflected, T(0)), T(max_val))
                sign = (is_neg == flip).astype(g.dtype) - (is_neg != flip).astype(g.dtype)
                scale = scale * sign * (clipped == reflected).astype(g.dtype)
                g = clipped
    return (g, scale) if with_scale else g


def _gs_gather(x, coords):
    """Input values at pixel ``coords`` (x, y[, z]: each [N, *out]), 0 where out of bounds;
    [N, C, *out]. Also the in-bound mask and the rounded integer indices."""
    spatial = x.shape[2:]
    inb = np.ones(coords[0].shape, bool)
    idx = []
    for c, size in zip(coords, reversed(spatial)):
        inb &= (c >= 0) & (c <= size - 1)
        idx.append(np.clip(_round_half_away(np.nan_to_num(c)), 0, size - 1).astype(np.intp))
    n = coords[0].shape[0]
    bidx = np.arange(n).reshape((n,) + (1,) * (coords[0].ndim - 1))
    rev = idx[::-1]                       # z, y, x order for indexing
    xt = np.moveaxis(x, 1, -1)           # [N, *spatial, C]: x[b, :, z, y, x] per position
    vals = xt[(np.broadcast_to(bidx, coords[0].shape),) + tuple(rev)]   # [N, *out, C]
    vals = np.where(inb[..., None], vals, np.zeros((), x.dtype))
    return np.moveaxis(vals, -1, 1), inb, rev


def _gs_corners(x, locs):
    """The 2 (per axis) neighbours: floor and floor + 1, the distances to them, and the values
    at every corner, keyed by a tuple of 0 (low) / 1 (high) per axis in x, y[, z] order."""
    T = x.dtype.type
    lows = [np.floor(c) for c in locs]
    highs = [lo + T(1) for lo in lows]
    d_lo = [c - lo for c, lo in zip(locs, lows)]      # d_w, d_n, d_t
    d_hi = [hi - c for c, hi in zip(locs, highs)]     # d_e, d_s, d_b
    import itertools

    values = {}
    for key in itertools.product((0, 1), repeat=len(locs)):
        coords = [highs[a] if k else lows[a] for a, k in enumerate(key)]
        values[key] = _gs_gather(x, coords)
    return lows, highs, d_lo, d_hi, values


def _bc(d):
    return d[:, None]


def _gs_fwd(x, grid, mode="bilinear", padding_mode="zeros", align_corners=True,
            round_even=False):
    """``round_even``: nearest picks by nearbyint, ties to even, for 4-D inputs (True: torch's
    CPU kernel) or all ranks ("all": Paddle 3.3.1's); else C's round(), ties away from zero
    (Paddle 2.6.2's)."""
    nd = x.ndim - 2
    spatial = x.shape[2:]
    locs = [_gs_locate(np.ascontiguousarray(grid[..., a]), spatial[nd - 1 - a], align_corners,
                       padding_mode) for a in range(nd)]
    if mode == "nearest":
        if nd == 2 or round_even == "all":
            locs = [np.rint(c) if round_even else _round_half_away(c) for c in locs]
        return _gs_gather(x, locs)[0]
    _, _, d_lo, d_hi, v = _gs_corners(x, locs)
    if nd == 2:
        dw, dn = d_lo
        de, ds = d_hi
        return (v[0, 0][0] * _bc(de) * _bc(ds) + v[1, 0][0] * _bc(dw) * _bc(ds) +
                v[0, 1][0] * _bc(de) * _bc(dn) + v[1, 1][0] * _bc(dw) * _bc(dn))
    dw, dn, dt = d_lo
    de, ds, db = d_hi
    out = None
    for zk, dz in ((0, db), (1, dt)):
        for key, w in (((0, 0), (de, ds)), ((1, 0), (dw, ds)), ((0, 1), (de, dn)),
                       ((1, 1), (dw, dn))):
            term = v[key + (zk,)][0] * _bc(w[0]) * _bc(w[1]) * _bc(dz)
            out = term if out is None else out + term
    return out


def _gs_grads(x, grid, g, mode, padding_mode, align_corners, round_even=False):
    """Paddle's grid_sample_grad on CPU: the input gradient scattered corner by corner, the
    grid gradient (bilinear only; nearest gives zeros) accumulated channel by channel."""
    nd = x.ndim - 2
    spatial = x.shape[2:]
    pairs = [_gs_locate(np.ascontiguousarray(grid[..., a]), spatial[nd - 1 - a], align_corners,
                        padding_mode, with_scale=True) for a in range(nd)]
    locs = [p[0] for p in pairs]
    scales = [p[1] for p in pairs]
    gx = np.zeros_like(x)
    ggrid = np.zeros_like(grid)
    c = x.shape[1]

    def scatter(coords, weights):
        _, inb, rev = _gs_gather(x, coords)
        gw = g
        for w in weights:
            gw = gw * _bc(w)
        # sequential order of the kernel: batch, output positions, then channels
        sel = np.nonzero(inb)
        b = sel[0]
        pos = tuple(r[sel] for r in rev)
        vals = np.moveaxis(gw, 1, -1)[sel]            # [K, C]
        K = b.shape[0]
        if K:
            bb = np.repeat(b, c)
            cc = np.tile(np.arange(c), K)
            pp = tuple(np.repeat(p_, c) for p_ in pos)
            np.add.at(gx, (bb, cc) + pp, vals.reshape(-1))

    if mode == "nearest":
        if nd == 2 or round_even == "all":
            locs = [np.rint(v) if round_even else _round_half_away(v) for v in locs]
        scatter(locs, [])
        return gx, ggrid
    lows, highs, d_lo, d_hi, v = _gs_corners(x, locs)
    if nd == 2:
        dw, dn = d_lo
        de, ds = d_hi
        for key, w in (((0, 0), (de, ds)), ((0, 1), (de, dn)), ((1, 0), (dw, ds)),
                       ((1, 1), (dw, dn))):
            coords = [highs[a] if k else lows[a] for a, k in enumerate(key)]
            scatter(coords, w)
        vwn, ven, vws, ves = v[0, 0][0], v[1, 0][0], v[0, 1][0], v[1, 1][0]
        gxx = np.zeros(locs[0].shape, x.dtype)
        gyy = np.zeros(locs[0].shape, x.dtype)
        for j in range(c):
            gj = g[:, j]
            gxx = gxx + ((ven[:, j] - vwn[:, j]) * ds + (ves[:, j] - vws[:, j]) * dn) * gj
            gyy = gyy + ((vws[:, j] - vwn[:, j]) * de + (ves[:, j] - ven[:, j]) * dw) * gj
        ggrid[..., 0] = gxx * scales[0]
        ggrid[..., 1] = gyy * scales[1]
        return gx, ggrid
    dw, dn, dt = d_lo
    de, ds, db = d_hi
    for zk, dz in ((0, db), (1, dt)):
        for key, w in (((0, 0), (de, ds)), ((0, 1), (de, dn)), ((1, 0), (dw, ds)),
                       ((1, 1), (dw, dn))):
            coords = [highs[a] if k else lows[a] for a, k in enumerate(key + (zk,))]
            scatter(coords, (w[0], w[1], dz))
    V = {k: val[0] for k, val in v.items()}        # key (x, y, z): 0 low / 1 high
    twn, ten, tws, tes = V[0, 0, 0], V[1, 0, 0], V[0, 1, 0], V[1, 1, 0]
    bwn, ben, bws, bes = V[0, 0, 1], V[1, 0, 1], V[0, 1, 1], V[1, 1, 1]
    acc = [np.zeros(locs[0].shape, x.dtype) for _ in range(3)]
    for j in range(c):
        gj = g[:, j]
        acc[0] = acc[0] + ((ten[:, j] - twn[:, j]) * ds * db + (tes[:, j] - tws[:, j]) * dn * db +
                           (ben[:, j] - bwn[:, j]) * ds * dt + (bes[:, j] - bws[:, j]) * dn * dt) * gj
        acc[1] = acc[1] + ((tws[:, j] - twn[:, j]) * de * db + (tes[:, j] - ten[:, j]) * dw * db +
                           (bws[:, j] - bwn[:, j]) * de * dt + (bes[:, j] - ben[:, j]) * dw * dt) * gj
        acc[2] = acc[2] + ((bws[:, j] - tws[:, j]) * de * dn + (bes[:, j] - tes[:, j]) * dw * dn +
                           (bwn[:, j] - twn[:, j]) * de * ds + (ben[:, j] - ten[:, j]) * dw * ds) * gj
    for a in range(3):
        ggrid[..., a] = acc[a] * scales[a]
    return gx, ggrid


def _gs_vjp(n, g):
    x, grid = (t.data for t in n.inputs)
    a = n.attrs
    gx, ggrid = _gs_grads(x, grid, np.asarray(g.data), a.get("mode", "bilinear"),
                          a.get("padding_mode", "zeros"), a.get("align_corners", True),
                          a.get("round_even", False))
    return const(g, gx), const(g, ggrid)


GRID_SAMPLE = register(
    "grid_sample", _gs_fwd, _gs_vjp, legacy_name="GridSampleBackward", second_order=False,
    examples=[([(1, 2, 3, 4), np.array([[[[0.21, -0.33], [0.52, 0.71], [-0.64, 0.08]],
                                          [[-0.12, 0.44], [0.93, -0.27], [0.36, -0.86]]]])],
               {"mode": "bilinear", "padding_mode": "zeros", "align_corners": True}),
              ([(1, 1, 3, 3), np.array([[[[0.21, -0.33], [1.32, 0.71]],
                                          [[-1.42, 0.44], [0.63, -0.27]]]])],
               {"mode": "bilinear", "padding_mode": "reflection", "align_corners": False})],
    diff_inputs=(0,))


def grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=True,
                round_even=False):
    """``round_even``: as ``_gs_fwd``'s (False, True or "all")."""
    attrs = {"mode": mode, "padding_mode": padding_mode, "align_corners": bool(align_corners)}
    if round_even:
        attrs["round_even"] = round_even
    return apply(GRID_SAMPLE, (x, grid), attrs)


def _ag_linspace(count, align_corners, T):
    start, end = T(-1), T(1)
    if count == 1:
        sl = (end - start) / T(0) if align_corners else (end - start) / T(1)
    else:
        sl = (end - start) / T(count - 1)
    if not align_corners:
        sl = (end - start) / T(count)
        start = start * (T(count - 1) / T(count))
    return np.array([start + T(i) * sl for i in range(count)], T)


def _ag_base(shape, align_corners, T):
    """The kernel's base grid [*spatial, nd + 1]: x (width) first, then y[, z], then ones."""
    spatial = list(shape[2:])
    axes = [_ag_linspace(s, align_corners, T) for s in spatial]   # d, h, w order
    mesh = np.meshgrid(*axes, indexing="ij")
    cols = list(reversed(mesh)) + [np.ones(spatial, T)]
    return np.stack(cols, axis=-1)


def _ag_gemm(base, mats, trans_a):
    """Paddle's CPU affine_grid: one Blas MatMul per sample, by MKL's gemm on one thread:
    forward grid [HW, k] @ theta[b]^T, gradient dout[b]^T [k-1, HW] @ grid (``trans_a``; real
    3.3.1 float32 and float64, every value of 5 shapes). None without MKL."""
    from .. import mkl

    outs = []
    for b in range(mats.shape[0]):
        m = np.ascontiguousarray(mats[b])
        r = mkl.gemm_one_thread(m, base, trans_a=True) if trans_a else \
            mkl.gemm_one_thread(base, m, trans_b=True)
        if r is None:
            return None
        outs.append(r)
    return np.stack(outs)


def _ag_fwd(theta, out_shape=(), align_corners=True):
    T = theta.dtype.type
    base = _ag_base(out_shape, align_corners, T)
    k = base.shape[-1]
    flat = base.reshape(-1, k)
    per_sample = _ag_gemm(flat, theta, trans_a=False)
    if per_sample is not None and flat.shape[0] < 16:
        # fewer than 16 grid points a sample: Paddle's MKL gives a fused multiply-add chain
        # over the k columns (real 3.3.1 here: 62 of 62 float32 grids of 1..15 points; MKL
        # 2024's gemm differs there), from 16 points on MKL's gemm (every grid measured)
        from .special_torch import fma

        acc = flat[None, :, 0, None] * theta[:, None, :, 0]
        for q in range(1, k):
            acc = fma(flat[None, :, q, None], theta[:, None, :, q], acc)
        per_sample = acc.astype(theta.dtype)
    if per_sample is not None:
        return per_sample.reshape((theta.shape[0],) + tuple(out_shape[2:]) + (k - 1,))
    out = np.zeros((theta.shape[0], flat.shape[0], k - 1), theta.dtype)
    with quiet(all="ignore"):
        for b in range(theta.shape[0]):
            for r in range(k - 1):
                acc = flat[:, 0] * theta[b, r, 0]
                for q in range(1, k):
                    acc = acc + flat[:, q] * theta[b, r, q]
                out[b, :, r] = acc
    return out.reshape((theta.shape[0],) + tuple(out_shape[2:]) + (k - 1,))


def _ag_vjp(n, g):
    """theta_grad[b] = g[b]^T @ base: a matmul with the constant base grid (linear, so the
    graph is that matmul), its value summed position by position in order, as Paddle's
    gemm gives it (the difference to numpy's blocked sum is added as a constant)."""
    from .linalg import matmul
    from .math import add
    from .shape import reshape, transpose

    theta = n.inputs[0]
    T = theta.data.dtype.type
    base = _ag_base(n.attrs["out_shape"], n.attrs.get("align_corners", True), T)
    k = base.shape[-1]
    B = theta.data.shape[0]
    gf = reshape(g, (B, -1, k - 1))
    base2 = base.reshape(-1, k)
    prod = matmul(transpose(gf, (0, 2, 1)), const(g, base2.reshape(1, -1, k)))
    garr = np.asarray(gf.data)
    acc = _ag_gemm(np.ascontiguousarray(base2), garr, trans_a=True)
    if acc is None:
        acc = np.zeros((B, k - 1, k), garr.dtype)
        with quiet(all="ignore"):
            for p in range(base2.shape[0]):
                acc = acc + garr[:, p, :, None] * base2[p][None, None, :]
    fix = acc - np.asarray(prod.data)
    return add(prod, const(g, fix)) if np.any(fix) else prod


AFFINE_GRID = register(
    "affine_grid", _ag_fwd, _ag_vjp, legacy_name="AffineGridBackward", saves_inputs=False,
    reads_inputs=True,
    examples=[([(2, 2, 3)], {"out_shape": (2, 1, 3, 4), "align_corners": True}),
              ([(1, 2, 3)], {"out_shape": (1, 1, 2, 2), "align_corners": False}),
              ([(1, 3, 4)], {"out_shape": (1, 1, 2, 2, 3), "align_corners": False})])


def affine_grid(theta, out_shape, align_corners=True):
    return apply(AFFINE_GRID, (theta,), {"out_shape": tuple(int(v) for v in out_shape),
                                         "align_corners": bool(align_corners)})

del divide
