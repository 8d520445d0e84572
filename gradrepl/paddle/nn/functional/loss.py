"""Loss functions of ``paddle.nn.functional``, composed the way Paddle composes them."""
from __future__ import annotations

import numpy as np

from ....engine.ops import math as M
from ....engine.ops import nn as N
from ....engine.ops import shape as S
from ... import profiles
from ...core import Tensor
from ._util import abs_, check_reduction, reduce_loss, square, subtract

__all__ = ["cross_entropy", "softmax_with_cross_entropy", "nll_loss", "mse_loss", "l1_loss",
           "smooth_l1_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits",
           "kl_div", "square_error_cost", "margin_ranking_loss", "label_smooth"]


def _const(arr):
    return Tensor(np.asarray(arr), True)


def _labels_with_axis(label, axis):
    """A label tensor of rank input-1 gets the class axis back (size 1), as paddle.unsqueeze."""
    arr = np.expand_dims(label.data, axis if axis >= 0 else label.data.ndim + 1 + axis)
    return Tensor(arr, label.stop_gradient)


# ---------------------------------------------------------------------- cross entropy
def cross_entropy(input, label, weight=None, ignore_index=-100, reduction="mean",  # noqa: A002
                  soft_label=False, axis=-1, use_softmax=True, label_smoothing=0.0, name=None):
    """Softmax (unless ``use_softmax=False``) then the negative log-likelihood.

    ``reduction='mean'`` with ``weight`` divides by the sum of the picked weights; with
    ignored labels it divides by the number of labels kept (see ``_ce_mean``).
    """
    if reduction not in ("sum", "mean", "none"):
        raise ValueError(
            "The value of 'reduction' in softmax_cross_entropyshould be 'sum', 'mean' or "
            f"'none', but received {reduction}, which is not allowed.")
    if ignore_index > 0 and soft_label:
        raise ValueError(
            "When soft_label == True, the value of 'ignore_index' in softmax_cross_entropy"
            f"should be '-100', but received {ignore_index}, which is not allowed.")
    input_dims = input.data.ndim
    if input_dims == 0:
        raise ValueError("The dimension of input should be larger than zero!")
    label_dims = label.data.ndim
    if input_dims - 1 == label_dims:
        label = _labels_with_axis(label, axis)
    elif input_dims != label_dims:
        raise ValueError(
            f"Expected input_dims - 1 = label_dims or input_dims == label_dims"
            f"             (got input_dims{input_dims}, label_dims{label_dims})")
    if label_smoothing > 0.0:
        soft_label = True
        if input_dims - 1 == label_dims:
            from .input import one_hot

            label = one_hot(Tensor(np.squeeze(label.data, axis)), input.data.shape[-1])
        label = label_smooth(label, epsilon=label_smoothing)
        label = Tensor(label.data.astype(input.data.dtype))
        label_dims = label.data.ndim
    _check_ce_inputs(input, label, axis)
    _, out = N.cross_entropy_with_softmax(input, label, soft_label, use_softmax, ignore_index,
                                          axis)
    wg = None
    if weight is not None:
        wg = _picked_weights(input, label, weight, soft_label, ignore_index, axis, out)
        out = M.multiply(M.cast(out, wg.data.dtype), wg)
    if reduction == "sum":
        return reduce_loss(out, "sum")
    if reduction == "mean":
        return _ce_mean(input, out, label, wg, ignore_index)
    if input_dims - 1 == label_dims:
        out = S.reshape(out, np.squeeze(out.data, axis).shape)
    return out


def _check_ce_inputs(input, label, axis):  # noqa: A002
    """Paddle's cross_entropy_with_softmax checks: float logits, label shape = logits shape
    except along ``axis``."""
    from ._util import require_float

    require_float(input, "cross_entropy_with_softmax")
    xs, ls = input.data.shape, label.data.shape
    ax = axis % len(xs)
    if len(xs) != len(ls) or any(a != b for i, (a, b) in enumerate(zip(xs, ls)) if i != ax):
        raise ValueError("(InvalidArgument) Input(Logits) and Input(Label) should in same shape "
                         "in dimensions except axis.")


def _picked_weights(input, label, weight, soft_label, ignore_index, axis, out):
    """The weight of each sample's class (0 where ignored), shaped like the loss."""
    w = weight.data
    if soft_label:
        from ...tensor.linalg import matmul

        lab = label if label.data.dtype == w.dtype else _const(label.data.astype(w.dtype))
        picked = matmul(lab, _const(w), transpose_y=True)
        return _const(picked.data.reshape(out.data.shape))
    if input.data.shape[axis] != w.shape[-1]:
        raise ValueError(
            f"input's class_dimension({input.data.shape[axis]}) must equal to "
            f"weight's class_dimension({w.shape[-1]}) when weight is provided")
    lbl = label.data.astype(np.int64)
    keep = lbl != ignore_index
    picked = w[np.where(keep, lbl, 0)] * keep.astype(w.dtype)
    return _const(picked.reshape(label.data.shape))


def _ce_mean(input, out, label, wg, ignore_index):
    """Paddle's 'mean': mean_all, or sum / (count or weight sum) when labels are ignored or
    weighted. When the ignore branch applies is the profile's ``ce_mean_ignore`` rule."""
    from ...tensor import reduce as R

    if 0 in input.data.shape:
        return R.mean(M.add(out, _const(np.asarray(np.nan, out.data.dtype))))
    rule = profiles.current().ce_mean_ignore
    lbl = label.data
    if rule == "nonneg_index":
        use_ignore = ignore_index >= 0
    else:
        use_ignore = bool(np.count_nonzero(lbl == ignore_index) > 0)
    if use_ignore:
        out_sum = R.sum(out)
        keep = (lbl != ignore_index).astype(out_sum.data.dtype)
        if wg is None:
            count = R.sum(_const(keep))
        else:
            count = R.sum(M.multiply(_const(keep.astype(wg.data.dtype)), wg))
        return M.divide(out_sum, _nonzero(count))
    if wg is not None:
        total = R.sum(wg)
        return M.divide(R.sum(out), _nonzero(total))
    return R.mean(out)


def _nonzero(t):
    """``t + (t == 0)``: a denominator that is 1 where the count or weight sum is 0."""
    return M.add(t, _const((t.data == 0).astype(t.data.dtype)))


def softmax_with_cross_entropy(logits, label, soft_label=False, ignore_index=-100,
                               numeric_stable_mode=True, return_softmax=False, axis=-1):
    """The loss per sample with the class axis kept (size 1); optionally the softmax too."""
    input_dims = logits.data.ndim
    if input_dims - 1 == label.data.ndim:
        label = _labels_with_axis(label, axis)
    softmax, loss = N.cross_entropy_with_softmax(logits, label, soft_label, True, ignore_index,
                                                 axis)
    if return_softmax:
        return loss, softmax
    return loss


def label_smooth(label, prior_dist=None, epsilon=0.1, name=None):
    """(1 - epsilon) * label + epsilon / classes (or epsilon * prior_dist)."""
    if epsilon > 1.0 or epsilon < 0.0:
        raise ValueError("The value of epsilon must be between 0 and 1.")
    classes = label.data.shape[-1]
    if prior_dist is not None:
        return M.add(M.scale(label, 1.0 - epsilon), M.scale(prior_dist, epsilon))
    return M.scale(label, 1.0 - epsilon, epsilon / classes)


# ---------------------------------------------------------------------- nll
def nll_loss(input, label, weight=None, ignore_index=-100, reduction="mean",  # noqa: A002
             name=None):
    check_reduction(reduction, "nll_loss")
    input_dims = input.data.ndim
    label_dims = label.data.ndim
    if input_dims - 1 != label_dims and input_dims != label_dims:
        raise ValueError(
            f"Expected input_dims - 1 = label_dims or input_dims == label_dims"
            f"             (got input_dims{input_dims}, label_dims{label_dims})")
    if input_dims < 2:
        raise ValueError(f"Expected 2 or more dimensions (got {input_dims})")
    c = input.data.shape[1]
    if c < 1:
        raise ValueError(f"Expected 1 or more classes (got num classes{c})")
    w = _const(np.ones(c, input.data.dtype)) if weight is None else weight
    out_shape = () if profiles.current().zero_d else (1,)
    return N.nll_loss(input, label, w, ignore_index, reduction, out_shape)


# ---------------------------------------------------------------------- regression losses
def mse_loss(input, label, reduction="mean", name=None):  # noqa: A002
    if reduction not in ("sum", "mean", "none"):
        raise ValueError(
            "'reduction' in 'mse_loss' should be 'sum', 'mean' or 'none', "
            f"but received {reduction}.")
    return reduce_loss(square(subtract(input, label)), reduction)


def square_error_cost(input, label):  # noqa: A002
    return square(subtract(input, label))


def l1_loss(input, label, reduction="mean", name=None):  # noqa: A002
    if reduction not in ("sum", "mean", "none"):
        raise ValueError(
            "The value of 'reduction' in L1Loss should be 'sum', 'mean' or 'none', but "
            f"received {reduction}, which is not allowed.")
    return reduce_loss(abs_(subtract(input, label)), reduction)


def smooth_l1_loss(input, label, reduction="mean", delta=1.0, is_huber=True,  # noqa: A002
                   name=None):
    """Paddle's huber_loss kernel (0.5 r^2 inside delta, delta (|r| - delta/2) outside)."""
    out = N.huber_loss(input, label, delta)
    if not is_huber:
        out = out / delta
    if reduction not in ("sum", "mean", "none"):
        raise ValueError(
            "The value of 'reduction' in smooth_l1_loss should be 'sum', 'mean' or"
            f" 'none', but received {reduction}, which is not allowed.")
    return reduce_loss(out, reduction)


def margin_ranking_loss(input, other, label, margin=0.0, reduction="mean", name=None):  # noqa: A002
    check_reduction(reduction, "MarginRankingLoss")
    out = M.subtract(other, input)
    out = M.multiply(out, label)
    if margin != 0.0:
        out = M.scale(out, 1.0, float(margin))
    out = M.relu(out)
    return reduce_loss(out, reduction)


# ---------------------------------------------------------------------- binary losses
def binary_cross_entropy(input, label, weight=None, reduction="mean", name=None):  # noqa: A002
    if reduction not in ("sum", "mean", "none"):
        raise ValueError(
            "The value of 'reduction' in binary_cross_entropy should be 'sum', "
            f"'mean' or 'none', but received {reduction}, which is not allowed.")
    out = N.bce_loss(input, label)
    if weight is not None:
        out = M.multiply(out, weight)
    return reduce_loss(out, reduction)


def binary_cross_entropy_with_logits(logit, label, weight=None, reduction="mean",
                                     pos_weight=None, name=None):
    """sigmoid_cross_entropy_with_logits; which kernel (2.x or 3.x rounding and pos_weight
    formula) is the profile's ``bce_logits_kernel``."""
    if reduction not in ("sum", "mean", "none"):
        raise ValueError(
            "The value of 'reduction' in binary_cross_entropy_with_logits "
            f"should be 'sum', 'mean' or 'none', but received {reduction}, which is not "
            "allowed.")
    if pos_weight is not None:
        one = _const(np.ones(1, logit.data.dtype))
        pos_weight = M.add(M.multiply(label, M.subtract(pos_weight, one)), one)
    if logit.data.ndim != label.data.ndim:
        raise ValueError(
            "(InvalidArgument) Input(X) and Input(Label) shall have the same rank.But received: "
            f"the rank of Input(X) is [{logit.data.ndim}], the rank of Input(Label) is "
            f"[{label.data.ndim}].")
    if logit.data.shape != label.data.shape:
        raise ValueError(
            "(InvalidArgument) Input(X) and Input(Label) shall have the same shape. But received: "
            f"the shape of Input(X) is [{list(logit.data.shape)}], the shape of Input(Label) is "
            f"[{list(label.data.shape)}].")
    kernel = profiles.current().bce_logits_kernel
    out = N.sigmoid_cross_entropy_with_logits(logit, label, pos_weight, -100, kernel)
    if weight is not None:
        out = M.multiply(out, weight)
    return reduce_loss(out, reduction)


def kl_div(input, label, reduction="mean", log_target=False, name=None):  # noqa: A002
    if input.data.dtype == np.float32 and label.data.dtype == np.float64:
        input = M.cast(input, np.float64)
    elif input.data.dtype == np.float64 and label.data.dtype == np.float32:
        label = M.cast(label, np.float64)
    out = N.kldiv_loss(input, label, log_target)
    if reduction == "mean":
        return reduce_loss(out, "mean")
    if reduction == "sum":
        return reduce_loss(out, "sum")
    if reduction == "batchmean":
        if input.data.ndim > 0:
            return reduce_loss(out, "sum") / input.data.shape[0]
        return out
    return out


