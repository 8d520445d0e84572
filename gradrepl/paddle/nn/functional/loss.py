"""Loss functions of ``paddle.nn.functional``, composed the way Paddle composes them."""
from __future__ import annotations

import numpy as np

from ....engine.ops import math as M
from ....engine.ops import nn as N
from ....engine.ops import shape as S
from ... import profiles
from ...core import Tensor
from ...tensor import reduce as R
from ...utils import deprecated_api
from ._util import abs_, check_reduction, reduce_loss, require_float, square, subtract

__all__ = ["cross_entropy", "softmax_with_cross_entropy", "nll_loss", "mse_loss", "l1_loss",
           "smooth_l1_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits",
           "kl_div", "square_error_cost", "margin_ranking_loss", "label_smooth"]


def _const(arr):
    return Tensor(np.asarray(arr), True)


def _labels_with_axis(label, axis):
    """A label tensor of rank input-1 gets the class axis back (size 1), as paddle.unsqueeze."""
    data = label.data
    at = axis if axis >= 0 else data.ndim + 1 + axis
    if not 0 <= at <= data.ndim:
        data = np.expand_dims(data, at)  # (numpy's error for an axis out of range)
    else:
        data = data.reshape(data.shape[:at] + (1,) + data.shape[at:])
    return Tensor(data, label.stop_gradient)


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
    return R.mean_all(out)


def _nonzero(t):
    """``t + (t == 0)``: a denominator that is 1 where the count or weight sum is 0."""
    return M.add(t, _const((t.data == 0).astype(t.data.dtype)))


@deprecated_api("paddle.nn.functional.loss", since="2.0.0",
                update_to="paddle.nn.functional.cross_entropy", level=1,
                reason='Please notice that behavior of '
                       '"paddle.nn.functional.softmax_with_cross_entropy" and '
                       '"paddle.nn.functional.cross_entropy" is different.')
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
    require_float(label, "label_smooth")  # an integer label has no kernel (cross_entropy's
    classes = label.data.shape[-1]        # label_smoothing with [N, 1] int labels: 3.3.1/2.6.2)
    # the kernel's constants are float arithmetic on its float attribute, then cast to T
    keep = float(np.float32(1) - np.float32(epsilon))
    if prior_dist is not None:
        return M.add(M.scale(label, keep), M.scale(prior_dist, float(np.float32(epsilon))))
    return M.scale(label, keep, float(np.float32(epsilon) / np.float32(classes)))


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
    if label_dims == input_dims and label.data.shape[1] == 1:
        # a [N, 1] label (as a data loader stacks class indices) means the same as [N]
        from ....engine.ops import shape as S

        label = S.reshape(label, label.data.shape[:1] + label.data.shape[2:])
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
    return reduce_loss(abs_(subtract(input, label)), reduction, mean_all=True)


def smooth_l1_loss(input, label, reduction="mean", delta=1.0, is_huber=True,  # noqa: A002
                   name=None):
    """Paddle's huber_loss kernel (0.5 r^2 inside delta, delta (|r| - delta/2) outside)."""
    out = N.huber_loss(input, label, float(np.float32(delta)))  # (a float32 attribute)
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
    if margin != 0.0:  # an add of a [1] tensor, as Paddle (scale's +bias would turn -0 gradients into +0)
        out = M.add(out, _const(np.array([margin], out.data.dtype)))
    out = M.relu(out)
    return reduce_loss(out, reduction, mean_all=True)


# ---------------------------------------------------------------------- binary losses
def binary_cross_entropy(input, label, weight=None, reduction="mean", name=None):  # noqa: A002
    if reduction not in ("sum", "mean", "none"):
        raise ValueError(
            "The value of 'reduction' in binary_cross_entropy should be 'sum', "
            f"'mean' or 'none', but received {reduction}, which is not allowed.")
    out = N.bce_loss(input, label)
    if weight is not None:
        out = M.multiply(out, weight)
    return reduce_loss(out, reduction, mean_all=True)


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
    return reduce_loss(out, reduction, mean_all=True)


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




# ---------------------------------------------------------------- more losses (Paddle's
# compositions over its API, written over gradrepl's)
def _paddle():
    from .... import paddle as _p

    return _p


def _check_red(reduction, what):
    if reduction not in ("sum", "mean", "none"):
        raise ValueError(f"'reduction' in '{what}' should be 'sum', 'mean' or 'none', but "
                         f"received {reduction}.")


def _reduce(loss, reduction):
    paddle = _paddle()
    if reduction == "mean":
        return paddle.mean(loss)
    if reduction == "sum":
        return paddle.sum(loss)
    return loss


def dice_loss(input, label, epsilon=0.00001, name=None):  # noqa: A002
    paddle = _paddle()
    label = paddle.squeeze(label, [-1])
    label = paddle.nn.functional.one_hot(label, input.shape[-1])
    dims = list(range(1, len(input.shape)))
    inse = paddle.sum(input * label, axis=dims)
    den = paddle.sum(input, axis=dims) + paddle.sum(label, axis=dims)
    score = 1 - inse * 2 / (den + epsilon)
    return paddle.mean(score)


def log_loss(input, label, epsilon=0.0001, name=None):  # noqa: A002
    """-label log(input + eps) - (1 - label) log(1 - input + eps): Paddle's log_loss kernel
    (Eigen's log; the gradient its grad kernel's formula), one op."""
    from ....engine.ops import nn_more

    _log_loss_check(list(input.shape), list(label.shape))
    dts = {input.data.dtype.name, label.data.dtype.name}
    key = "float64" if "float64" in dts else input.data.dtype.name
    if key != "float32":   # only a float32 kernel (real 3.3.1 and 2.6.2; a float64 label too)
        from ... import promotion

        raise RuntimeError(
            f"(NotFound) The kernel with key (CPU, Undefined(AnyLayout), {key}) of kernel "
            f"`log_loss` is not registered. Selected wrong DataType `{key}`. Paddle support "
            f"following DataTypes: float32." + promotion.kernel_hint())
    return nn_more.log_loss(input, label, epsilon)


def _log_loss_check(pd, ld):
    """LogLossInferMeta's checks in its order, with each version's words (real 3.3.1: binary.cc
    2816/2827/2835; 2.6.2: 1995/2003/2011 and its missing spaces)."""
    from ...tensor.linalg import _hint

    key = profiles.current().key
    v3 = key == "3"
    lines = (2816, 2827, 2835) if v3 else (1995, 2003, 2011)

    def err(text, expected, k):
        hint = _hint(expected, f"infermeta/binary.cc:{lines[k]}") if key in ("3", "2.6") else ""
        return ValueError(f"(InvalidArgument) {text}{hint}")

    def dims(d):
        return ", ".join(str(v) for v in d)

    if pd != ld:
        sp = " " if v3 else ""
        raise err("The dimensions of Input(Predicted) must be equal to the" + (" " if v3 else "")
                  + f"dimensions of Input(Labels), but received dimensions of Input(Predicted)"
                  f"{sp}is [{dims(pd)}], received dimensions of Input(Labels) is [{dims(ld)}].",
                  f"pred_dims == label_dims, but received pred_dims:{dims(pd)} != "
                  f"label_dims:{dims(ld)}", 0)
    if len(pd) != 2:
        raise err("The dimensions of Input(Predicted) must be 2,But received dimensions of "
                  f"Input(Predicted)is [{len(pd)}]",
                  f"pred_dims.size() == 2, but received pred_dims.size():{len(pd)} != 2:2", 1)
    if pd[1] != 1:
        raise err("Each row of Input(Predicted) contains a real value, so the 2nd dimension of "
                  f"Input(X) must be 1,But got [{pd[1]}]",
                  f"pred_dims[1] == 1, but received pred_dims[1]:{pd[1]} != 1:1", 2)


def sigmoid_focal_loss(logit, label, normalizer=None, alpha=0.25, gamma=2.0, reduction="sum",
                       name=None):
    paddle = _paddle()
    _check_red(reduction, "sigmoid_focal_loss")
    if len(logit.shape) == 1 and profiles.current().api3:
        # 3.3.1 makes `one` as full(paddle.shape(logit), ...): a 1-D logit's shape tensor
        # reaches full's infermeta as [-1] (measured; 2.6.2 takes logit.shape and runs)
        raise ValueError(
            "(InvalidArgument) Each value of attribute 'shape' is expected to be no less than 0."
            " But received: shape[0] = -1; shape = [-1].\n  [Hint: Expected data[i] >= 0, but "
            "received data[i]:-1 < 0:0.] (at /paddle/paddle/phi/infermeta/nullary.cc:165)\n")
    one = paddle.full(logit.shape, 1.0, logit.dtype)
    loss = binary_cross_entropy_with_logits(logit, label, reduction="none")
    pred = paddle.nn.functional.sigmoid(logit)
    p_t = paddle.add(paddle.multiply(pred, label),
                     paddle.multiply(paddle.subtract(one, pred), paddle.subtract(one, label)))
    a = paddle.to_tensor(alpha, dtype=loss.dtype)
    alpha_t = paddle.add(paddle.multiply(a, label),
                         paddle.multiply(paddle.subtract(one, a), paddle.subtract(one, label)))
    loss = paddle.multiply(alpha_t, loss)
    # _C_ops.pow(x, <gamma as a tensor>): the tensor becomes pow's Scalar factor (the pow op,
    # not elementwise_pow: their gradients round differently, 3 of 64 values; real 3.3.1/2.6.2)
    factor = float(np.asarray(gamma, dtype=loss.data.dtype))
    gamma_t = M.pow_scalar(paddle.subtract(one, p_t), factor)
    loss = paddle.multiply(gamma_t, loss)
    if normalizer is not None:
        loss = paddle.divide(loss, normalizer)
    return _reduce(loss, reduction)


def multi_label_soft_margin_loss(input, label, weight=None, reduction="mean", name=None):  # noqa: A002
    paddle = _paddle()
    F = paddle.nn.functional
    _check_red(reduction, "multi_label_soft_margin_loss")
    if input.shape != label.shape:
        raise ValueError("The input and label should have same dimension,but received "
                         f"{input.shape}!={label.shape}")
    loss = -(label * F.log_sigmoid(input) + (1 - label) * F.log_sigmoid(-input))
    if weight is not None:
        loss = loss * weight
    loss = loss.mean(axis=-1)
    return _reduce(loss, reduction)


def hinge_embedding_loss(input, label, margin=1.0, reduction="mean", name=None):  # noqa: A002
    paddle = _paddle()
    _check_red(reduction, "hinge_embedding_loss")
    zero_ = paddle.zeros([1], dtype=input.dtype)
    loss = paddle.where(label == 1.0, input, zero_) + paddle.where(
        label == -1.0, paddle.nn.functional.relu(margin - input), zero_)
    return _reduce(loss, reduction)


def cosine_embedding_loss(input1, input2, label, margin=0, reduction="mean", name=None):
    paddle = _paddle()
    if len(label.shape) != 1:
        raise ValueError("1D target tensor expected, multi-target not supported")
    if input1.shape != input2.shape:
        raise ValueError("the shape of input tensor 1 should be equal to input tensor 2, but "
                         f"found inputs with different sizes")
    prod = (input1 * input2).sum(axis=-1)
    m1 = paddle.square(input1).sum(axis=-1) + 10e-12
    m2 = paddle.square(input2).sum(axis=-1) + 10e-12
    cos = prod / paddle.sqrt(m1 * m2)
    zeros = paddle.zeros_like(cos)
    pos = 1 - cos
    neg = paddle.clip(cos - margin, min=0)
    out = paddle.where(label == 1, pos, zeros) + paddle.where(label == -1, neg, zeros)
    return _reduce(out, reduction)


def triplet_margin_with_distance_loss(input, positive, negative, distance_function=None,  # noqa: A002
                                      margin=1.0, swap=False, reduction="mean", name=None):
    paddle = _paddle()
    _check_red(reduction, "triplet_margin_with_distance_loss")
    if margin < 0:
        raise ValueError("The margin between positive samples and negative samples should be "
                         f"greater than 0, but received {margin}.")
    dist = distance_function if distance_function is not None else paddle.nn.PairwiseDistance(2)
    pd_ = dist(input, positive)
    nd_ = dist(input, negative)
    if swap:
        nd_ = paddle.minimum(nd_, dist(positive, negative))
    loss = paddle.clip(pd_ - nd_ + margin, min=0.0)
    return _reduce(loss, reduction)


def triplet_margin_loss(input, positive, negative, margin=1.0, p=2, epsilon=1e-6, swap=False,  # noqa: A002
                        reduction="mean", name=None):
    paddle = _paddle()
    _check_red(reduction, "triplet_margin_loss")
    dist = paddle.nn.PairwiseDistance(p, epsilon=epsilon)
    pd_ = dist(input, positive)
    nd_ = dist(input, negative)
    if swap:
        nd_ = paddle.minimum(nd_, dist(positive, negative))
    loss = paddle.clip(pd_ - nd_ + margin, min=0.0)
    return _reduce(loss, reduction)


def npair_loss(anchor, positive, labels, l2_reg=0.002):
    """Paddle's composite (3.3.1 and 2.6.2 alike): labels compared pairwise and normalised by
    row, an L2 term of both embeddings, and soft-label softmax cross entropy of
    anchor @ positive^T weighted by the labels."""
    paddle = _paddle()
    if anchor.size == 0:
        raise ValueError("The dims of anchor should be greater than 0.")
    if positive.size == 0:
        raise ValueError("The dims of positive should be greater than 0.")
    beta = 0.25
    batch_size = labels.shape[0]
    labels = paddle.reshape(labels, shape=[batch_size, 1])
    labels = paddle.tile(labels, repeat_times=[1, batch_size])
    labels = paddle.equal(labels, paddle.transpose(labels, perm=[1, 0])).astype("float32")
    labels = labels / paddle.sum(labels, axis=1, keepdim=True)
    l2loss = paddle.mean(paddle.sum(paddle.square(anchor), 1)) + paddle.mean(
        paddle.sum(paddle.square(positive), 1))
    l2loss = l2loss * beta * l2_reg
    similarity = paddle.matmul(anchor, positive, transpose_x=False, transpose_y=True)
    softmax_ce = softmax_with_cross_entropy.__wrapped__(similarity, labels, soft_label=True)
    cross_entropy = paddle.sum(labels * softmax_ce, 0)
    return l2loss + paddle.mean(cross_entropy)


def multi_margin_loss(input, label, p=1, margin=1.0, weight=None, reduction="mean", name=None):  # noqa: A002
    paddle = _paddle()
    _check_red(reduction, "multi_margin_loss")
    label = label.reshape((-1, 1))
    picked = paddle.index_sample(input, label)
    n = input.shape[1]
    if weight is not None:
        w = paddle.gather(weight, label, axis=0).reshape((-1, 1))
        loss = paddle.mean(w * paddle.pow(paddle.clip(margin - picked + input, min=0.0), p),
                           axis=1) - (w * (margin ** p / n)).squeeze()
    else:
        loss = paddle.mean(paddle.pow(paddle.clip(margin - picked + input, min=0.0), p),
                           axis=1) - margin ** p / n
    return _reduce(loss, reduction)


def multi_label_margin_loss(input, label, reduction="mean", name=None):  # noqa: A002
    """sum over targets j and non-targets i of max(0, 1 - (x[j] - x[i])) / C (torch's)."""
    paddle = _paddle()
    _check_red(reduction, "multi_label_margin_loss")
    x = input if input.ndim == 2 else input.reshape((1, -1))
    y = label.data if label.ndim == 2 else label.data.reshape(1, -1)
    n, c = x.shape
    rows = []
    for b in range(n):
        targets = []
        for v in y[b].tolist():
            if v < 0:
                break
            targets.append(int(v))
        is_t = np.zeros(c, bool)
        is_t[targets] = True
        xb = x[b]
        total = paddle.zeros([], x.dtype)
        for j in targets:
            m = paddle.clip(1 - (xb[j] - xb), min=0.0)
            total = total + paddle.sum(m * paddle.to_tensor((~is_t).astype(x.data.dtype)))
        rows.append(total / c)
    loss = paddle.stack(rows)
    if input.ndim == 1:
        loss = loss.reshape([])
    return _reduce(loss, reduction)


def soft_margin_loss(input, label, reduction="mean", name=None):  # noqa: A002
    paddle = _paddle()
    _check_red(reduction, "soft_margin_loss")
    label = paddle.cast(label, input.dtype)
    out = paddle.log(1 + paddle.exp(-label * input))
    return _reduce(out, reduction)


def poisson_nll_loss(input, label, log_input=True, full=False, epsilon=1e-8,  # noqa: A002
                     reduction="mean", name=None):
    paddle = _paddle()
    _check_red(reduction, "poisson_nll_loss")
    if log_input:
        loss = paddle.exp(input) - label * input
    else:
        loss = input - label * paddle.log(input + epsilon)
    if full:
        stirling = label * paddle.log(label) - label + 0.5 * paddle.log(2 * np.pi * label)
        loss = loss + paddle.where(label > 1, stirling, paddle.zeros_like(stirling))
    return _reduce(loss, reduction)


def gaussian_nll_loss(input, label, variance, full=False, epsilon=1e-6, reduction="mean",  # noqa: A002
                      name=None):
    paddle = _paddle()
    _check_red(reduction, "gaussian_nll_loss")
    variance = variance.clone()
    with paddle.no_grad():  # Paddle clamps without autograd: no gradient reaches variance
        variance = paddle.clip(variance, min=epsilon)
    loss = 0.5 * (paddle.log(variance) + paddle.square(input - label) / variance)
    if full:
        loss = loss + 0.5 * np.log(2 * np.pi)
    return _reduce(loss, reduction)


__all__ += ["dice_loss", "npair_loss", "log_loss", "sigmoid_focal_loss",
            "multi_label_soft_margin_loss",
            "hinge_embedding_loss", "cosine_embedding_loss", "triplet_margin_with_distance_loss",
            "triplet_margin_loss", "multi_margin_loss", "multi_label_margin_loss",
            "soft_margin_loss", "poisson_nll_loss", "gaussian_nll_loss"]


def edit_distance(input, label, normalized=True, ignored_tokens=None, input_length=None,  # noqa: A002
                  label_length=None):
    """Levenshtein distances of each hypothesis to its reference: (sequence count [1] int64,
    distances [N, 1] float32, divided by the reference length when ``normalized``), in the
    order Paddle's kernel returns them."""
    if ignored_tokens is not None and len(ignored_tokens) > 0:
        raise ValueError(f"Expected ignored_tokens is None (got {ignored_tokens})")
    hyps, refs = np.asarray(input.data), np.asarray(label.data)
    n = hyps.shape[0]
    hl = np.asarray(input_length.data).reshape(-1) if input_length is not None else \
        np.full(n, hyps.shape[1])
    rl = np.asarray(label_length.data).reshape(-1) if label_length is not None else \
        np.full(n, refs.shape[1])
    out = np.zeros((n, 1), np.float32)
    for b in range(n):
        h, r = hyps[b][:hl[b]].tolist(), refs[b][:rl[b]].tolist()
        prev = list(range(len(r) + 1))
        for i, hv in enumerate(h, 1):
            cur = [i] + [0] * len(r)
            for j, rv in enumerate(r, 1):
                cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (hv != rv))
            prev = cur
        d = float(prev[-1])
        out[b, 0] = d / len(r) if normalized and len(r) else d
    return Tensor(np.asarray([n], np.int64)), Tensor(out)


__all__ += ["edit_distance"]


def rnnt_loss(input, label, input_lengths, label_lengths, blank=0, fastemit_lambda=0.001,  # noqa: A002
              reduction="mean", name=None):
    """The RNN-T loss of Paddle's CPU kernel (warprnnt): ``input`` [B, Tmax, Umax+1, V] is
    taken as log probabilities as given (no log_softmax on CPU), one loss per sequence;
    'mean' divides the sum by the batch size."""
    from ....engine.ops import nn_more

    if reduction not in ("mean", "sum", "none"):
        raise AssertionError
    loss = nn_more.warprnnt(input, label, input_lengths, label_lengths, blank, fastemit_lambda)
    if reduction == "mean":
        return _paddle().sum(loss) / input.shape[0]
    if reduction == "sum":
        return _paddle().sum(loss)
    return loss


__all__ += ["rnnt_loss"]


def ctc_loss(log_probs, labels, input_lengths, label_lengths, blank=0, reduction="mean",
             norm_by_times=False, zero_infinity=False):
    """The CTC loss of Paddle's warpctc kernel: ``log_probs`` [Tmax, B, C] are activations
    (warp-ctc applies the softmax itself), ``labels`` [B, Lmax] int32, lengths int64; 'mean'
    divides each loss by its label length, then averages. ``zero_infinity`` is 3.x only."""
    from ....engine.ops import nn_more

    if zero_infinity and not profiles.current().api3:
        raise TypeError("ctc_loss() got an unexpected keyword argument 'zero_infinity'")
    p = _paddle()
    loss = nn_more.warpctc(log_probs, labels, input_lengths, label_lengths, blank, norm_by_times)
    loss = p.squeeze(loss, [-1])
    if zero_infinity:
        loss = p.where(p.isinf(loss), p.zeros_like(loss), loss)
    if reduction not in ("mean", "sum", "none"):
        raise AssertionError
    if reduction == "mean":
        return p.mean(loss / label_lengths.astype(loss.dtype))
    if reduction == "sum":
        return p.sum(loss)
    return loss


__all__ += ["ctc_loss"]
