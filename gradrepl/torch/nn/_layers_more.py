"""Activations, losses, normalisations, dropouts and distances beyond ``modules``.

``__all__`` lists the layers (``torch.nn.NAME``); ``FUNCTIONAL`` the functions of
``torch.nn.functional``. The families live in ``_act_more``, ``_loss_more``, ``_norm_more``
and ``_misc_more`` (dropouts, distances, ``EmbeddingBag``)."""
from __future__ import annotations

import importlib as _importlib

__all__: list = []
FUNCTIONAL: dict = {}

for _family in ("_act_more", "_loss_more", "_norm_more", "_misc_more", "_adaptive"):
    try:
        _m = _importlib.import_module(f"{__package__}.{_family}")
    except ModuleNotFoundError as _exc:  # a family not written yet
        if _exc.name != f"{__package__}.{_family}":
            raise
        continue
    for _name in _m.__all__:
        globals()[_name] = getattr(_m, _name)
    __all__ += list(_m.__all__)
    FUNCTIONAL.update(_m.FUNCTIONAL)


# ------------------------------------------------------------------------------ torch.NAME
# The ATen-level forms torch also exposes as ``torch.NAME`` (and a few as Tensor methods), with
# torch's argument orders (reductions as the enum: 0 none, 1 mean, 2 sum). Bound on the torch
# package from here (only names it does not define itself), as the families are imported.
_RED = {0: "none", 1: "mean", 2: "sum"}


def _exports():
    from . import _act_more as A
    from . import _loss_more as L
    from . import _misc_more as M
    from . import _norm_more as N
    from . import _spatial as S
    from ._ctc import ctc_loss

    def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):  # noqa: A002
        return A.rrelu(input, lower, upper, training)

    def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):  # noqa: A002
        return A.rrelu_(input, lower, upper, training)

    def threshold(input, threshold, value, *, out=None):  # noqa: A002
        return A.threshold(input, threshold, value)

    def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats,  # noqa: A002
                      momentum, eps, cudnn_enabled):
        return S.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats,
                               momentum, eps)

    def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5,  # noqa: A002
                   cudnn_enabled=True):
        return S.group_norm(input, num_groups, weight, bias, eps)

    def _drop(feature, alpha, inplace):
        def f(input, p, train):  # noqa: A002
            return M._dropout_impl(input, p, train, feature, alpha, inplace)
        return f

    def _red(fn):
        def f(*args, reduction=1, **kw):
            return fn(*args, reduction=_RED.get(reduction, reduction), **kw)
        return f

    def poisson_nll_loss(input, target, log_input, full, eps, reduction):  # noqa: A002
        return L.poisson_nll_loss(input, target, log_input, full, eps=eps,
                                  reduction=_RED.get(reduction, reduction))

    def ctc(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=1,
            zero_infinity=False):
        return ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
                        _RED.get(reduction, reduction), zero_infinity)

    def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=1):
        return L.margin_ranking_loss(input1, input2, target, margin,
                                     reduction=_RED.get(reduction, reduction))

    def hinge_embedding_loss(input, target, margin=1.0, reduction=1):  # noqa: A002
        return L.hinge_embedding_loss(input, target, margin,
                                      reduction=_RED.get(reduction, reduction))

    def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=1):
        return L.cosine_embedding_loss(input1, input2, target, margin,
                                       reduction=_RED.get(reduction, reduction))

    def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                            reduction=1):
        return L.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                     reduction=_RED.get(reduction, reduction))

    def cosine_similarity(x1, x2, dim=1, eps=1e-8):
        from . import functional as F

        return F.cosine_similarity(x1, x2, dim, eps)

    exports = {
        "celu": A.celu, "celu_": A.celu_, "rrelu": rrelu, "rrelu_": rrelu_,
        "threshold": threshold, "threshold_": A.threshold_, "prelu": A.prelu,
        "hardshrink": A.hardshrink, "selu_": A.selu_, "pdist": M.pdist,
        "pairwise_distance": M.pairwise_distance, "cosine_similarity": cosine_similarity,
        "rms_norm": N.rms_norm, "instance_norm": instance_norm, "group_norm": group_norm,
        "alpha_dropout": _drop(False, True, False), "alpha_dropout_": _drop(False, True, True),
        "feature_alpha_dropout": _drop(True, True, False),
        "feature_alpha_dropout_": _drop(True, True, True),
        "feature_dropout": _drop(True, False, False),
        "feature_dropout_": _drop(True, False, True),
        "ctc_loss": ctc, "poisson_nll_loss": poisson_nll_loss,
        "hinge_embedding_loss": hinge_embedding_loss,
        "margin_ranking_loss": margin_ranking_loss,
        "cosine_embedding_loss": cosine_embedding_loss,
        "triplet_margin_loss": triplet_margin_loss,
    }
    methods = {"prelu": A.prelu, "hardshrink": A.hardshrink}
    return exports, methods


def _bind():
    import sys

    torch = sys.modules.get(__package__.rsplit(".", 1)[0])
    if torch is None:
        return
    from .._tensor import Tensor

    exports, methods = _exports()
    for name, fn in exports.items():
        if name not in torch.__dict__:
            setattr(torch, name, fn)
    for name, fn in methods.items():
        if not hasattr(Tensor, name):
            setattr(Tensor, name, fn)


_bind()
