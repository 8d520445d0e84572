"""torch.nn losses beyond ``modules``: PoissonNLLLoss, GaussianNLLLoss, the margin losses
(MultiLabelSoftMargin, MultiLabelMargin, MultiMargin, SoftMargin, MarginRanking,
HingeEmbedding, CosineEmbedding, TripletMargin, TripletMarginWithDistance), CTCLoss and
NLLLoss2d, with their functional forms. Where torch composes a loss from other ops (ATen's
composite ``poisson_nll_loss``, ``hinge_embedding_loss`` ...), the same ops in the same order;
where it has a kernel (``multi_margin_loss``, ``soft_margin_loss``, ``ctc_loss``), one node of
torch's name."""
from __future__ import annotations

import math
import warnings

import numpy as np

from .. import _ops
from .._base import Size, raw
from .._tensor import Tensor
from . import _more_common as C
from .modules import NLLLoss, _Loss, _WeightedLoss

_wrap = Tensor._wrap


def _red(size_average, reduce, reduction):
    r = C.reduction_of(size_average, reduce, reduction)
    if r not in ("none", "mean", "sum"):
        raise ValueError(f"{r} is not a valid value for reduction")
    return r


def _scalar_sub(v, t):
    """``v - t`` for a number v (RsubBackward1)."""
    return _ops.rsub(t, v)


# ------------------------------------------------------------------------------ poisson
def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None,  # noqa: A002
                     eps=1e-8, reduce=None, reduction="mean"):
    reduction = _red(size_average, reduce, reduction)
    if log_input:
        loss = _ops.sub(_ops.exp(input), _ops.mul(target, input))
    else:
        loss = _ops.sub(input, _ops.mul(target, _ops.log(_ops.add(input, eps))))
    if full:
        t = target
        stirling = _ops.add(_ops.sub(_ops.mul(t, _ops.log(t)), t),
                            _ops.mul(_ops.log(_ops.mul(t, 2 * math.pi)), 0.5))
        mask = _wrap(raw(t) <= 1, True)
        loss = _ops.add(loss, _ops.masked_fill(stirling, mask, 0))
    return C.reduce(loss, reduction)


# ------------------------------------------------------------------------------ gaussian
def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):  # noqa: A002
    if isinstance(var, (int, float)) and not isinstance(var, bool):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = _ops.mul(_wrap(np.ones_like(raw(input)), True), var)
    elif (raw(var) < 0).any():
        raise ValueError("var has negative entry/entries")
    vs, ins = raw(var).shape, raw(input).shape
    if vs != ins:
        if ins[:-1] == vs:
            var = _ops.unsqueeze(var, -1)
        elif len(ins) == len(vs) and sum(y for x, y in zip(ins, vs) if x != y) == 1:
            pass
        else:
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = _ops.clone(var)
    from ...engine import grad_mode

    with grad_mode.no_grad():
        var.clamp_(min=eps)
    d = _ops.sub(input, target)
    loss = _ops.mul(_ops.add(_ops.log(var), _ops.div(_ops.pow(d, 2), var)), 0.5)
    if full:
        loss = _ops.add(loss, 0.5 * math.log(2 * math.pi))
    return C.reduce(loss, reduction)


# ------------------------------------------------------------------------------ soft margins
def multilabel_soft_margin_loss(input, target, weight=None, size_average=None,  # noqa: A002
                                reduce=None, reduction="mean"):
    if size_average is not None or reduce is not None:
        reduction = C.reduction_of(size_average, reduce, reduction)
    from . import functional as F

    loss = _ops.neg(_ops.add(_ops.mul(target, F.logsigmoid(input)),
                             _ops.mul(_scalar_sub(1, target), F.logsigmoid(_ops.neg(input)))))
    if weight is not None:
        loss = _ops.mul(loss, weight)
    class_dim = raw(input).ndim - 1
    n_cls = raw(input).shape[class_dim]
    loss = _ops.div(_ops.sum(loss, class_dim), n_cls)
    if reduction == "none":
        return loss
    if reduction == "mean":
        return _ops.mean(loss)
    if reduction == "sum":
        return _ops.sum(loss)
    raise ValueError(reduction + " is not valid")


def _soft_margin_fwd(x, y, reduction="mean"):
    xt, yt = _wrap(x, True), _wrap(y, True)
    per = _ops.log1p(_ops.exp(_ops.mul(_ops.neg(xt), yt)))
    return raw(C.reduce(per, reduction))


def _soft_margin_vjp(n, g):
    x, y = n.inputs
    red = n.attrs["reduction"]
    z = _ops.exp(_ops.mul(_ops.neg(y), x))
    norm = 1.0 / max(raw(x).size, 1) if red == "mean" else 1.0
    gi = _ops.mul(_ops.div(_ops.mul(_ops.mul(y, -norm), z), _ops.add(z, 1.0)), g)
    return gi, None


_SOFT_MARGIN = C.op("SoftMarginLossBackward0", _soft_margin_fwd, _soft_margin_vjp,
                    diff_inputs=(0,))


def soft_margin_loss(input, target, size_average=None, reduce=None,  # noqa: A002
                     reduction="mean"):
    reduction = _red(size_average, reduce, reduction)
    from ...engine.grad_mode import is_grad_enabled

    if is_grad_enabled() and isinstance(target, Tensor) and target.requires_grad:
        # (ATen's check_no_requires_grad: torch 2.13 raises this at the call, grad mode on)
        raise RuntimeError("The function 'soft_margin_loss' is not differentiable with respect "
                           "to argument 'target'. This input cannot have requires_grad True.")
    return C.run(_SOFT_MARGIN, (input, C.to_tensor(target, input)), {"reduction": reduction})


# ------------------------------------------------------------------------------ multi margin
def _mm_check(a, t):
    if a.ndim > 2:
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, "
                           f"but got: {list(a.shape)}")
    n = 1 if a.ndim <= 1 else a.shape[0]
    if t.reshape(-1).shape[0] != n:
        raise RuntimeError(f"inconsistent target size, expected {n} but got {list(t.shape)}")


def _mm_parts(x, t, p, margin, weight, g=None):
    """Per sample: the sum over classes d != y of max(0, margin - x[y] + x[d])^p (times
    weight[y]), in the input's dtype and class order, and the coefficient of each x[d]."""
    a = x.reshape(-1, x.shape[-1]) if x.ndim else x.reshape(1, 1)
    tt = t.reshape(-1).astype(np.int64)
    dim = a.shape[1]
    dt = a.dtype
    m = np.asarray(margin, dt)
    rows = np.arange(a.shape[0])
    xy = a[rows, tt][:, None]
    z = (m - xy + a).astype(dt)
    z[rows, tt] = 0
    on = z > 0
    h = z * z if p == 2 else z.copy()
    w = None if weight is None else np.asarray(weight, dt)[tt][:, None]
    if w is not None:
        h = h * w
    h = np.where(on, h, np.zeros((), dt))
    sums = np.zeros(a.shape[0], dt)
    for d in range(dim):
        sums = (sums + h[:, d]).astype(dt)
    per = (sums / np.asarray(dim, dt)).astype(dt)
    if g is None:
        return per, None
    # torch's backward kernel, in the dtype: h = g (p 1) or 2 * g * z, times weight[y]; the
    # target's entry minus each h in class order
    gv = np.asarray(g, dt)
    h = (np.asarray(2, dt) * gv * z).astype(dt) if p == 2 else np.full(z.shape, gv, dt)
    if w is not None:
        h = (h * w).astype(dt)
    coef = np.where(on, h, np.zeros((), dt)).astype(dt)
    tgt = np.zeros(a.shape[0], dt)
    for d in range(dim):
        tgt = (tgt - coef[:, d]).astype(dt)
    coef[rows, tt] = tgt
    return per, coef


def _per_sample_reduce(per, reduction, out_shape):
    if reduction == "none" and len(out_shape):
        return per.reshape(out_shape)
    total = np.float64(0)
    for v in per:
        total += np.float64(v)
    if reduction == "mean":
        total /= max(per.shape[0], 1)
    return np.asarray(total, per.dtype)


def _mm_fwd(x, t, p=1, margin=1.0, weight=None, reduction="mean"):
    per, _ = _mm_parts(x, t, p, margin, weight)
    out_shape = x.shape[:1] if x.ndim == 2 else ()
    return _per_sample_reduce(per, reduction, out_shape)


def _coef_vjp(parts):
    def vjp(n, g):
        x, t = n.inputs[0], n.inputs[1]
        a = raw(x)
        attrs = dict(n.attrs)
        red = attrs.pop("reduction")
        rows = a.shape[0] if a.ndim == 2 else 1
        dim = a.shape[-1] if a.ndim else 1
        g0 = 1.0 / (rows * dim) if red == "mean" else 1.0 / dim
        _, coef = parts(a, raw(t), g=g0, **attrs)
        gg = g
        if raw(g).ndim:
            gg = _ops.reshape(g, (-1, 1))
        gi = _ops.mul(_wrap(coef.astype(a.dtype), True), gg)
        return (_ops.reshape(gi, a.shape),) + (None,) * (len(n.inputs) - 1)
    return vjp


_MULTI_MARGIN = C.op("MultiMarginLossBackward0", _mm_fwd, _coef_vjp(_mm_parts),
                     diff_inputs=(0,))


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None,  # noqa: A002
                      reduce=None, reduction="mean"):
    reduction = _red(size_average, reduce, reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and raw(weight).ndim != 1:
        raise ValueError("weight must be one-dimensional")
    a, t = raw(input), raw(target)
    _mm_check(a, t)
    dim = a.shape[-1] if a.ndim else 1
    if ((t < 0) | (t >= dim)).any():
        raise RuntimeError("target out of range")
    return C.run(_MULTI_MARGIN, (input, _wrap(t, True)),
                 {"p": int(p), "margin": float(margin),
                  "weight": None if weight is None else raw(weight), "reduction": reduction})


# ------------------------------------------------------------------------------ multilabel
def _mlm_parts(x, t, g=None):
    a = x.reshape(-1, x.shape[-1]) if x.ndim else x.reshape(1, 1)
    tt = t.reshape(a.shape).astype(np.int64)
    n, dim = a.shape
    dt = a.dtype
    one = np.ones((), dt)
    per = np.zeros(n, np.float64)
    coef = np.zeros(a.shape, dt)
    gv = np.asarray(0 if g is None else g, dt)
    for i in range(n):
        tg = []
        for v in tt[i]:
            if v < 0:
                break
            tg.append(int(v))
        is_t = np.zeros(dim, bool)
        is_t[tg] = True
        s = np.float64(0)  # z in the dtype, summed in double (torch's accscalar_t)
        for j in tg:
            z = ((one - a[i, j]).astype(dt) + a[i]).astype(dt)
            for d in range(dim):
                if not is_t[d] and z[d] > 0:
                    s += np.float64(z[d])
                    coef[i, j] = (coef[i, j] - gv).astype(dt)
                    coef[i, d] = (coef[i, d] + gv).astype(dt)
        per[i] = s
    return per, coef


def _mlm_fwd(x, t, reduction="mean"):
    per, _ = _mlm_parts(x, t)
    dim = x.shape[-1] if x.ndim else 1
    dt = x.dtype
    if reduction == "none" and x.ndim == 2:
        return (per / dim).astype(dt)
    total = np.zeros((), dt)  # each sample's sum as the dtype, then summed and divided in it
    for v in per.astype(dt):
        total = (total + v).astype(dt)
    total = (total / np.asarray(dim, dt)).astype(dt)
    if reduction == "mean":
        total = (total / np.asarray(max(per.shape[0], 1), dt)).astype(dt)
    return np.asarray(total, dt)


_MLM = C.op("MultilabelMarginLossBackward0", _mlm_fwd, _coef_vjp(_mlm_parts), diff_inputs=(0,))


def multilabel_margin_loss(input, target, size_average=None, reduce=None,  # noqa: A002
                           reduction="mean"):
    reduction = _red(size_average, reduce, reduction)
    a, t = raw(input), raw(target)
    if a.ndim > 2 or t.shape != a.shape:
        raise RuntimeError(f"inconsistent target size: {list(t.shape)} for input of size: "
                           f"{list(a.shape)}")
    return C.run(_MLM, (input, _wrap(t, True)), {"reduction": reduction})


# ------------------------------------------------------------------------------ composites
def _dims_str(t):
    return str(Size(raw(t).shape))


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None,  # noqa: A002
                        reduce=None, reduction="mean"):
    reduction = _red(size_average, reduce, reduction)
    if not (raw(input1).ndim == raw(input2).ndim == raw(target).ndim):
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension "
                           f"but got sizes: input1: {_dims_str(input1)}, input2: "
                           f"{_dims_str(input2)}, target: {_dims_str(target)} ")
    out = _ops.add(_ops.mul(_ops.neg(target), _ops.sub(input1, input2)), margin)
    out = out.clamp_min_(0)
    return C.reduce(out, reduction)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,  # noqa: A002
                         reduction="mean"):
    reduction = _red(size_average, reduce, reduction)
    zeros = _wrap(np.zeros_like(raw(input)), True)
    margin_clamp = _scalar_sub(margin, input).clamp_min_(0)
    t = raw(target)
    out_margin = _ops.where(_wrap(t != 1, True), margin_clamp, zeros)
    out_self = _ops.where(_wrap(t != -1, True), input, zeros)
    return C.reduce(_ops.add(out_margin, out_self), reduction)


_EPSILON = 1e-12


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None,  # noqa: A002
                          reduce=None, reduction="mean"):
    reduction = _red(size_average, reduce, reduction)
    td = raw(target).ndim
    d1, d2 = raw(input1).ndim, raw(input2).ndim
    if td not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if td == 1 and not (d1 == 2 and d2 == 2):
        raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with "
                           f"sizes {list(raw(input1).shape)} and {list(raw(input2).shape)}.")
    if td == 0 and not (d1 == 1 and d2 == 1):
        raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with "
                           f"sizes {list(raw(input1).shape)} and {list(raw(input2).shape)}.")
    prod_sum = _ops.sum(_ops.mul(input1, input2), td)
    mag1 = _ops.add(_ops.sum(_ops.mul(input1, input1), td), _EPSILON)
    mag2 = _ops.add(_ops.sum(_ops.mul(input2, input2), td), _EPSILON)
    denom = _ops.mul(mag1, mag2).sqrt_()
    cos = _ops.div(prod_sum, denom)
    zeros = _wrap(np.zeros_like(raw(cos)), True)
    pos = _scalar_sub(1, cos)
    neg = _ops.sub(cos, margin).clamp_min_(0)
    t = raw(target)
    out = _ops.add(_ops.where(_wrap(t == 1, True), pos, zeros),
                   _ops.where(_wrap(t == -1, True), neg, zeros))
    return C.reduce(out, reduction)


def _pairwise(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    from . import _misc_more

    return _misc_more.pairwise_distance(x1, x2, p, eps, keepdim)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        size_average=None, reduce=None, reduction="mean"):
    reduction = _red(size_average, reduce, reduction)
    a, pp, n = raw(anchor).ndim, raw(positive).ndim, raw(negative).ndim
    if not (a == pp == n):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the "
                           f"same number of dimensions, but got: anchor {a}D, positive {pp}D, "
                           f"and negative {n}D inputs")
    dist_pos = _pairwise(anchor, positive, p, eps)
    dist_neg = _pairwise(anchor, negative, p, eps)
    if swap:
        dist_neg = _ops.minimum(dist_neg, _pairwise(positive, negative, p, eps))
    out = _ops.clamp_min(_ops.sub(_ops.add(dist_pos, margin), dist_neg), 0)
    return C.reduce(out, reduction)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean"):
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    a, pp, n = raw(anchor).ndim, raw(positive).ndim, raw(negative).ndim
    if not (a == pp == n):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the "
                           f"same number of dimensions, but got: anchor {a}D, positive {pp}D, "
                           f"and negative {n}D inputs")
    dist = distance_function if distance_function is not None else _pairwise
    dist_pos = dist(anchor, positive)
    dist_neg = dist(anchor, negative)
    if swap:
        dist_neg = _ops.minimum(dist_neg, dist(positive, negative))
    loss = _ops.clamp_min(_ops.sub(_ops.add(dist_pos, margin), dist_neg), 0)
    return C.reduce(loss, reduction)


# ------------------------------------------------------------------------------ modules
class PoissonNLLLoss(_Loss):
    def __init__(self, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                 reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.log_input = log_input
        self.full = full
        self.eps = eps

    def forward(self, log_input, target):
        return poisson_nll_loss(log_input, target, log_input=self.log_input, full=self.full,
                                eps=self.eps, reduction=self.reduction)


class GaussianNLLLoss(_Loss):
    def __init__(self, *, full=False, eps=1e-6, reduction="mean"):
        super().__init__(None, None, reduction)
        self.full = full
        self.eps = eps

    def forward(self, input, target, var):  # noqa: A002
        return gaussian_nll_loss(input, target, var, full=self.full, eps=self.eps,
                                 reduction=self.reduction)


class MultiLabelSoftMarginLoss(_WeightedLoss):
    def forward(self, input, target):  # noqa: A002
        return multilabel_soft_margin_loss(input, target, weight=self.weight,
                                           reduction=self.reduction)


class MultiLabelMarginLoss(_Loss):
    def forward(self, input, target):  # noqa: A002
        return multilabel_margin_loss(input, target, reduction=self.reduction)


class MultiMarginLoss(_WeightedLoss):
    def __init__(self, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                 reduction="mean"):
        super().__init__(weight, size_average, reduce, reduction)
        if p not in (1, 2):
            raise ValueError("only p == 1 and p == 2 supported")
        if weight is not None and raw(weight).ndim != 1:
            raise ValueError(f"MultiMarginLoss: expected weight to be None or 1D tensor, got "
                             f"{raw(weight).ndim}D instead")
        self.p = p
        self.margin = margin

    def forward(self, input, target):  # noqa: A002
        return multi_margin_loss(input, target, p=self.p, margin=self.margin,
                                 weight=self.weight, reduction=self.reduction)


class SoftMarginLoss(_Loss):
    def forward(self, input, target):  # noqa: A002
        return soft_margin_loss(input, target, reduction=self.reduction)


class MarginRankingLoss(_Loss):
    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        return margin_ranking_loss(input1, input2, target, margin=self.margin,
                                   reduction=self.reduction)


class HingeEmbeddingLoss(_Loss):
    def __init__(self, margin=1.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input, target):  # noqa: A002
        return hinge_embedding_loss(input, target, margin=self.margin, reduction=self.reduction)


class CosineEmbeddingLoss(_Loss):
    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        return cosine_embedding_loss(input1, input2, target, margin=self.margin,
                                     reduction=self.reduction)


class TripletMarginLoss(_Loss):
    def __init__(self, margin=1.0, p=2.0, eps=1e-6, swap=False, size_average=None, reduce=None,
                 reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginLoss: expected margin to be greater than 0, got "
                             f"{margin} instead")
        self.margin = margin
        self.p = p
        self.eps = eps
        self.swap = swap

    def forward(self, anchor, positive, negative):
        return triplet_margin_loss(anchor, positive, negative, margin=self.margin, p=self.p,
                                   eps=self.eps, swap=self.swap, reduction=self.reduction)


class TripletMarginWithDistanceLoss(_Loss):
    def __init__(self, *, distance_function=None, margin=1.0, swap=False, reduction="mean"):
        super().__init__(None, None, reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginWithDistanceLoss: expected margin to be greater "
                             f"than 0, got {margin} instead")
        if distance_function is None:
            from ._misc_more import PairwiseDistance

            distance_function = PairwiseDistance()
        self.distance_function = distance_function
        self.margin = margin
        self.swap = swap

    def forward(self, anchor, positive, negative):
        return triplet_margin_with_distance_loss(
            anchor, positive, negative, distance_function=self.distance_function,
            margin=self.margin, swap=self.swap, reduction=self.reduction)


class NLLLoss2d(NLLLoss):
    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean"):
        warnings.warn("`NLLLoss2d` has been deprecated. Please use `NLLLoss` instead as a "
                      "drop-in replacement and see https://pytorch.org/docs/main/nn.html#torch."
                      "nn.NLLLoss for more details.", FutureWarning, stacklevel=2)
        super().__init__(weight, size_average, ignore_index, reduce, reduction)


# ------------------------------------------------------------------------------ linear + CE
def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None,  # noqa: A002
                         weight=None, reduction="mean", ignore_index=None,
                         label_smoothing=0.0, options=None):
    """torch's reference path: ``cross_entropy(linear(input, W, b).reshape(logits), target)``
    (the chunked path of ``options`` is not emulated: the same loss, one matmul)."""
    from . import functional as F

    a, w = raw(input), raw(linear_weight)
    if a.ndim < 1 or a.ndim > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {a.ndim}")
    if w.ndim < 2:
        raise RuntimeError(f"expected linear_weight with dimensionality at least 2, got {w.ndim}")
    batches, in_features = a.shape[:-1], a.shape[-1]
    if in_features != w.shape[-1]:
        raise RuntimeError(f"expected equal input and linear_weight last dimensions "
                           f"(in_features), got {a.shape[-1]} and {w.shape[-1]}, respectively")
    n_cls, out_features = w.shape[0], tuple(w.shape[1:-1])
    if linear_bias is not None and tuple(raw(linear_bias).shape) != (n_cls, *out_features):
        raise RuntimeError(f"expected linear_bias shape {(n_cls, *out_features)}, got "
                           f"{tuple(raw(linear_bias).shape)}")
    if out_features and not batches:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape {tuple(w.shape)} "
                           f"requires batched input, (N, {in_features}), got unbatched input "
                           f"with shape {tuple(a.shape)}")
    logits_shape = (*batches, n_cls, *out_features)
    if tuple(raw(target).shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    ignore_index = -100 if ignore_index is None else ignore_index
    if out_features:
        k = int(np.prod(out_features)) * n_cls
        linear_weight = _ops.reshape(linear_weight, (k, in_features))
        if linear_bias is not None:
            linear_bias = _ops.reshape(linear_bias, (k,))
    logits = _ops.reshape(F.linear(input, linear_weight, linear_bias), logits_shape)
    return F.cross_entropy(logits, target, weight=weight, reduction=reduction,
                           ignore_index=ignore_index, label_smoothing=label_smoothing)


class LinearCrossEntropyLoss(_WeightedLoss):
    def __init__(self, in_features, num_classes, *, out_features=(), bias=False, device=None,
                 dtype=None, reduction="mean", weight=None, ignore_index=None,
                 label_smoothing=0.0, options=None):
        if weight is not None and tuple(raw(weight).shape) != (num_classes,):
            raise RuntimeError(f"expected weight shape to be {(num_classes,)}, got "
                               f"{tuple(raw(weight).shape)}")
        if label_smoothing < 0 or label_smoothing > 1.0:
            raise RuntimeError(f"expected label_smoothing to be in range [0, 1], got "
                               f"{label_smoothing}")
        super().__init__(weight, None, None, reduction)
        from .modules import Linear

        self.num_classes = num_classes
        self.out_features = out_features
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing
        self.linear = Linear(in_features, int(np.prod(out_features)) * num_classes, bias=bias,
                             dtype=dtype)
        self.options = options

    def forward(self, input, target):  # noqa: A002
        lw = _ops.reshape(self.linear.weight, (self.num_classes, *self.out_features,
                                               self.linear.in_features))
        lb = None if self.linear.bias is None else _ops.reshape(
            self.linear.bias, (self.num_classes, *self.out_features))
        return linear_cross_entropy(input, lw, target, linear_bias=lb, weight=self.weight,
                                    reduction=self.reduction, ignore_index=self.ignore_index,
                                    label_smoothing=self.label_smoothing, options=self.options)

    def extra_repr(self):
        return (f"in_features={self.linear.in_features}, num_classes={self.num_classes}, "
                f"out_features={self.out_features}, bias={self.linear.bias is not None}, "
                f"reduction={self.reduction}, ignore_index={self.ignore_index}, "
                f"label_smoothing={self.label_smoothing}, options={self.options}")


from ._ctc import CTCLoss, ctc_loss  # noqa: E402

__all__ = ["PoissonNLLLoss", "GaussianNLLLoss", "MultiLabelSoftMarginLoss",
           "MultiLabelMarginLoss", "MultiMarginLoss", "SoftMarginLoss", "MarginRankingLoss",
           "HingeEmbeddingLoss", "CosineEmbeddingLoss", "TripletMarginLoss",
           "TripletMarginWithDistanceLoss", "NLLLoss2d", "CTCLoss", "LinearCrossEntropyLoss"]
C.name_classes("torch.nn.modules.loss", [globals()[n] for n in __all__])

FUNCTIONAL = {
    "poisson_nll_loss": poisson_nll_loss, "gaussian_nll_loss": gaussian_nll_loss,
    "multilabel_soft_margin_loss": multilabel_soft_margin_loss,
    "soft_margin_loss": soft_margin_loss, "multi_margin_loss": multi_margin_loss,
    "multilabel_margin_loss": multilabel_margin_loss,
    "margin_ranking_loss": margin_ranking_loss, "hinge_embedding_loss": hinge_embedding_loss,
    "cosine_embedding_loss": cosine_embedding_loss, "triplet_margin_loss": triplet_margin_loss,
    "triplet_margin_with_distance_loss": triplet_margin_with_distance_loss,
    "ctc_loss": ctc_loss, "linear_cross_entropy": linear_cross_entropy,
}
