"""Loss layers: hold the options, call ``paddle.nn.functional`` in ``forward``."""
from __future__ import annotations

from ... import profiles
from .. import functional as F
from .layers import Layer

__all__ = ["CrossEntropyLoss", "MSELoss", "L1Loss", "NLLLoss", "BCELoss", "BCEWithLogitsLoss",
           "SmoothL1Loss", "KLDivLoss", "MarginRankingLoss"]


def _check(reduction, what):
    if reduction not in ("sum", "mean", "none"):
        raise ValueError(
            f"The value of 'reduction' in {what} should be 'sum', 'mean' or 'none', but "
            f"received {reduction}, which is not allowed.")


class CrossEntropyLoss(Layer):
    def __init__(self, weight=None, ignore_index=-100, reduction="mean", soft_label=False,
                 axis=-1, use_softmax=True, label_smoothing=0.0, name=None):
        super().__init__()
        self.weight = weight
        self.ignore_index = ignore_index
        self.reduction = reduction
        self.soft_label = soft_label
        self.axis = axis
        self.use_softmax = use_softmax
        self.label_smoothing = label_smoothing
        self.name = name

    def forward(self, input, label):  # noqa: A002
        return F.cross_entropy(input, label, weight=self.weight,
                               ignore_index=self.ignore_index, reduction=self.reduction,
                               soft_label=self.soft_label, axis=self.axis,
                               use_softmax=self.use_softmax,
                               label_smoothing=self.label_smoothing, name=self.name)


class MSELoss(Layer):
    def __init__(self, reduction="mean"):
        super().__init__()
        if reduction not in ("sum", "mean", "none"):
            raise ValueError(
                "'reduction' in 'MSELoss' should be 'sum', 'mean' or 'none', "
                f"but received {reduction}.")
        self.reduction = reduction

    def forward(self, input, label):  # noqa: A002
        return F.mse_loss(input, label, self.reduction)


class L1Loss(Layer):
    def __init__(self, reduction="mean", name=None):
        super().__init__()
        _check(reduction, "L1Loss")
        self.reduction = reduction
        self.name = name

    def forward(self, input, label):  # noqa: A002
        return F.l1_loss(input, label, self.reduction, name=self.name)


class NLLLoss(Layer):
    def __init__(self, weight=None, ignore_index=-100, reduction="mean", name=None):
        super().__init__()
        _check(reduction, "nll_loss")
        self._weight = weight
        self._ignore_index = ignore_index
        self._reduction = reduction
        self._name = name

    def forward(self, input, label):  # noqa: A002
        return F.nll_loss(input, label, weight=self._weight, ignore_index=self._ignore_index,
                          reduction=self._reduction, name=self._name)


class BCELoss(Layer):
    def __init__(self, weight=None, reduction="mean", name=None):
        super().__init__()
        _check(reduction, "bce_loss")
        self.weight = weight
        self.reduction = reduction
        self.name = name

    def forward(self, input, label):  # noqa: A002
        return F.binary_cross_entropy(input, label, self.weight, self.reduction, self.name)


class BCEWithLogitsLoss(Layer):
    def __init__(self, weight=None, reduction="mean", pos_weight=None, name=None):
        super().__init__()
        _check(reduction, "BCEWithLogitsLoss")
        self.weight = weight
        self.reduction = reduction
        self.pos_weight = pos_weight
        self.name = name

    def forward(self, logit, label):
        return F.binary_cross_entropy_with_logits(logit, label, self.weight, self.reduction,
                                                  self.pos_weight, self.name)


class SmoothL1Loss(Layer):
    def __init__(self, reduction="mean", delta=1.0, is_huber=True, name=None):
        super().__init__()
        self.reduction = reduction
        self.delta = delta
        self.is_huber = is_huber
        self.name = name

    def forward(self, input, label):  # noqa: A002
        return F.smooth_l1_loss(input, label, reduction=self.reduction, delta=self.delta,
                                is_huber=self.is_huber, name=self.name)


class KLDivLoss(Layer):
    def __init__(self, reduction="mean", log_target=False):
        super().__init__()
        self.reduction = reduction
        self.log_target = log_target

    def forward(self, input, label):  # noqa: A002
        return F.kl_div(input, label, self.reduction, self.log_target)


class MarginRankingLoss(Layer):
    def __init__(self, margin=0.0, reduction="mean", name=None):
        super().__init__()
        _check(reduction, "MarginRankingLoss")
        self.margin = margin
        self.reduction = reduction
        self.name = name

    def forward(self, input, other, label):  # noqa: A002
        return F.margin_ranking_loss(input, other, label, self.margin, self.reduction)


# ---------------------------------------------------------------- more loss layers
def _loss_layer(name, fn, params):
    """A loss layer: ``params`` are (name, default) of its options, in Paddle's order (after
    them ``name``); ``forward`` passes its inputs and the options to ``F.<fn>``."""

    def __init__(self, *args, **kwargs):
        Layer.__init__(self)
        names = [p for p, _ in params] + ["name"]
        values = dict(params)
        values["name"] = None
        if len(args) > len(names):
            raise TypeError(f"{name}.__init__() takes from 1 to {len(names) + 1} positional "
                            f"arguments but {len(args) + 1} were given")
        values.update(zip(names, args))
        for k, v in kwargs.items():
            if k not in values:
                raise TypeError(f"{name}.__init__() got an unexpected keyword argument '{k}'")
            values[k] = v
        if "reduction" in values:
            _check(values["reduction"], name)
        self._opts = values

    def forward(self, *inputs):
        opts = {k: v for k, v in self._opts.items() if k != "name"}
        return getattr(F, fn)(*inputs, **opts)

    return type(name, (Layer,), {"__init__": __init__, "forward": forward,
                                 "__module__": __name__})


HingeEmbeddingLoss = _loss_layer("HingeEmbeddingLoss", "hinge_embedding_loss",
                                 [("margin", 1.0), ("reduction", "mean")])
CosineEmbeddingLoss = _loss_layer("CosineEmbeddingLoss", "cosine_embedding_loss",
                                  [("margin", 0), ("reduction", "mean")])
TripletMarginLoss = _loss_layer("TripletMarginLoss", "triplet_margin_loss",
                                [("margin", 1.0), ("p", 2.0), ("epsilon", 1e-6), ("swap", False),
                                 ("reduction", "mean")])
TripletMarginWithDistanceLoss = _loss_layer(
    "TripletMarginWithDistanceLoss", "triplet_margin_with_distance_loss",
    [("distance_function", None), ("margin", 1.0), ("swap", False), ("reduction", "mean")])
MultiLabelSoftMarginLoss = _loss_layer("MultiLabelSoftMarginLoss",
                                       "multi_label_soft_margin_loss",
                                       [("weight", None), ("reduction", "mean")])
MultiLabelMarginLoss = _loss_layer("MultiLabelMarginLoss", "multi_label_margin_loss",
                                   [("reduction", "mean")])
SoftMarginLoss = _loss_layer("SoftMarginLoss", "soft_margin_loss", [("reduction", "mean")])
PoissonNLLLoss = _loss_layer("PoissonNLLLoss", "poisson_nll_loss",
                             [("log_input", True), ("full", False), ("epsilon", 1e-8),
                              ("reduction", "mean")])
GaussianNLLLoss = _loss_layer("GaussianNLLLoss", "gaussian_nll_loss",
                              [("full", False), ("epsilon", 1e-6), ("reduction", "mean")])


class MultiMarginLoss(Layer):
    def __init__(self, p=1, margin=1.0, weight=None, reduction="mean", name=None):
        super().__init__()
        _check(reduction, "MultiMarginLoss")
        self.p, self.margin, self.weight, self.reduction = p, margin, weight, reduction

    def forward(self, input, label):  # noqa: A002
        return F.multi_margin_loss(input, label, p=self.p, margin=self.margin,
                                   weight=self.weight, reduction=self.reduction)


__all__ += ["HingeEmbeddingLoss", "CosineEmbeddingLoss", "TripletMarginLoss",
            "TripletMarginWithDistanceLoss", "MultiLabelSoftMarginLoss", "MultiLabelMarginLoss",
            "SoftMarginLoss", "PoissonNLLLoss", "GaussianNLLLoss", "MultiMarginLoss"]


class RNNTLoss(Layer):
    def __init__(self, blank=0, fastemit_lambda=0.001, reduction="mean", name=None):
        super().__init__()
        self.blank, self.reduction = blank, reduction
        self.fastemit_lambda = fastemit_lambda
        self.name = name

    def forward(self, input, label, input_lengths, label_lengths):  # noqa: A002
        return F.rnnt_loss(input, label, input_lengths, label_lengths, blank=self.blank,
                           fastemit_lambda=self.fastemit_lambda, reduction=self.reduction,
                           name=self.name)


__all__ += ["RNNTLoss"]


_UNSET = object()


class CTCLoss(Layer):
    """``zero_infinity`` exists from Paddle 3 on (2.6's CTCLoss takes blank and reduction)."""

    def __init__(self, blank=0, reduction="mean", zero_infinity=_UNSET):
        super().__init__()
        if zero_infinity is not _UNSET and not profiles.current().api3:
            raise TypeError("CTCLoss.__init__() got an unexpected keyword argument "
                            "'zero_infinity'")
        self.blank, self.reduction = blank, reduction
        if profiles.current().api3:
            self.zero_infinity = False if zero_infinity is _UNSET else zero_infinity

    def forward(self, log_probs, labels, input_lengths, label_lengths, norm_by_times=False):
        kw = {"zero_infinity": self.zero_infinity} if hasattr(self, "zero_infinity") else {}
        return F.ctc_loss(log_probs, labels, input_lengths, label_lengths, self.blank,
                          self.reduction, norm_by_times=norm_by_times, **kw)


__all__ += ["CTCLoss"]
