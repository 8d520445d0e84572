"""Warnings real torch raises inside its own Python modules, shown where torch shows them.

A warning raised in torch's library prints torch's file under site-packages, its line and its
source line; ``SITES`` holds them as measured on torch 2.13 (``key -> (file under the torch
package, line, source line)``), ``warn`` shows a message there (``gradrepl._libsite``).

* ``module_call``: ``nn.Module.__call__`` (``_wrapped_call_impl``): a warning raised with
  torch's ``_stacklevel=5`` inside a module's forward (``nn.Softmax``/``LogSoftmax``/``Softmin``
  without ``dim``);
* ``loss_init``: ``_Loss.__init__`` given ``size_average``/``reduce``;
* ``kldiv_forward``: ``KLDivLoss.forward``'s call of ``F.kl_div`` (its 'mean' warning);
* ``legacy_enum``: ``_Reduction.legacy_get_enum`` (the functional losses that ask for the enum);
* the functional losses that ask ``legacy_get_string`` themselves, by function name;
* ``sequential_step``/``chained_step``: SequentialLR's/ChainedScheduler's ``scheduler.step()``
  (a scheduler's first step before the optimizer's);
* ``plateau_float``: ``ReduceLROnPlateau.step``'s ``float(metrics)`` (the scalar-of-a-tensor-
  that-requires-grad warning, once a process as every TORCH_WARN_ONCE).
"""
from __future__ import annotations

import sys
import warnings

from .. import _libsite

_LEGACY_STRING = "        reduction = _Reduction.legacy_get_string(size_average, reduce)"
SITES = {
    "module_call": ("nn/modules/module.py", 1778,
                    "        return self._call_impl(*args, **kwargs)"),
    # Module._call_impl's call of _maybe_warn_non_full_backward_hook (register_backward_hook)
    "non_full_backward_hook": ("nn/modules/module.py", 1869,
                               "                    self._maybe_warn_non_full_backward_hook("
                               "args, result, grad_fn)"),
    "loss_init": ("nn/modules/loss.py", 48,
                  "            self.reduction: str = _Reduction.legacy_get_string(size_average, "
                  "reduce)"),
    "legacy_enum": ("nn/_reduction.py", 60,
                    "    return get_enum(legacy_get_string(size_average, reduce, emit_warning))"),
    "kldiv_forward": ("nn/modules/loss.py", 562, "        return F.kl_div("),
    # the loss modules' forward lines (F.mse_loss & co.'s target-size warning, stacklevel=2)
    "l1_forward": ("nn/modules/loss.py", 133,
                   "        return F.l1_loss(input, target, reduction=self.reduction)"),
    "mse_forward": ("nn/modules/loss.py", 630,
                    "        return F.mse_loss(input, target, reduction=self.reduction)"),
    "smooth_l1_forward": ("nn/modules/loss.py", 1078,
                          "        return F.smooth_l1_loss(input, target, "
                          "reduction=self.reduction, beta=self.beta)"),
    "huber_forward": ("nn/modules/loss.py", 1150,
                      "        return F.huber_loss(input, target, reduction=self.reduction, "
                      "delta=self.delta)"),
    "plateau_float": ("optim/lr_scheduler.py", 1699, "        current = float(metrics)"),
    # Dropout2d/Dropout3d.forward's calls (F.dropout2d/3d's input-dimension warnings, stacklevel=2)
    "dropout2d_forward": ("nn/modules/dropout.py", 176,
                          "        return F.dropout2d(input, self.p, self.training, self.inplace)"),
    "dropout3d_forward": ("nn/modules/dropout.py", 224,
                          "        return F.dropout3d(input, self.p, self.training, self.inplace)"),
    # F._canonical_mask's callers (its mismatched-mask-types warning, stacklevel=2)
    "mha_canonical_mask": ("nn/modules/activation.py", 1336,
                           "        key_padding_mask = F._canonical_mask("),
    "encoder_canonical_mask": ("nn/modules/transformer.py", 429,
                               "        src_key_padding_mask = F._canonical_mask("),
    "encoder_layer_canonical_mask": ("nn/modules/transformer.py", 819,
                                     "        src_key_padding_mask = F._canonical_mask("),
    "mha_forward_canonical_mask": ("nn/functional.py", 6802,
                                   "    key_padding_mask = _canonical_mask("),
    # TransformerEncoder.forward's sparsity fast path (NestedTensorImpl's TORCH_WARN_ONCE)
    "encoder_nested_from_mask": ("nn/modules/transformer.py", 529,
                                 "                output = torch._nested_tensor_from_mask("),
    # nn.Transformer's construction of its encoder (TransformerEncoder's enable_nested_tensor
    # warning, stacklevel=2)
    "transformer_encoder": ("nn/modules/transformer.py", 143,
                            "            self.encoder = TransformerEncoder("),
    # torch.cuda.amp's deprecated subclasses calling torch.amp's __init__ (CUDA-not-available)
    "cuda_autocast_init": ("cuda/amp/autocast_mode.py", 54, "        super().__init__("),
    "cuda_scaler_init": ("cuda/amp/grad_scaler.py", 31, "        super().__init__("),
    # the deprecated pre-linalg wrappers' calls of their ATen ops (a TORCH_WARN_ONCE there)
    "chain_matmul": ("functional.py", 2099,
                     "        return _VF.chain_matmul(matrices)  # type: ignore[attr-defined]"),
    "chain_matmul_out": ("functional.py", 2101, "        return _VF.chain_matmul(matrices, "
                         "out=out)  # type: ignore[attr-defined]"),
    "lu_functional": ("functional.py", 2202,
                      "    return torch._lu_with_info(A, pivot=pivot, check_errors=(not "
                      "get_infos))"),
    "lu_tensor": ("_tensor.py", 930, "        LU, pivots, infos = torch._lu_with_info("),
    "sequential_step": ("optim/lr_scheduler.py", 1194, "            scheduler.step()"),
    "chained_step": ("optim/lr_scheduler.py", 1542, "            scheduler.step()"),
    # functional losses calling legacy_get_string in nn/functional.py
    "nll_loss": ("nn/functional.py", 3230, _LEGACY_STRING),
    "poisson_nll_loss": ("nn/functional.py", 3290, _LEGACY_STRING),
    "cross_entropy": ("nn/functional.py", 3554, _LEGACY_STRING),
    "smooth_l1_loss": ("nn/functional.py", 4060, _LEGACY_STRING),
    "l1_loss": ("nn/functional.py", 4215, _LEGACY_STRING),
    "mse_loss": ("nn/functional.py", 4292, _LEGACY_STRING),
    "multilabel_soft_margin_loss": ("nn/functional.py", 4539, _LEGACY_STRING),
}
#: functional losses that go through ``legacy_get_enum`` (warned from nn/_reduction.py)
LEGACY_ENUM = frozenset({
    "kl_div", "binary_cross_entropy", "binary_cross_entropy_with_logits", "margin_ranking_loss",
    "hinge_embedding_loss", "multilabel_margin_loss", "soft_margin_loss", "cosine_embedding_loss",
    "multi_margin_loss", "triplet_margin_loss"})


def warn(key: str, message: str, category=UserWarning) -> None:
    """Warn ``message`` from torch's own site ``key`` (``SITES``)."""
    rel, line, source = SITES[key]
    _libsite.warn_at("torch", rel, line, source, message, category)


#: gradrepl's helpers between a loss and ``legacy_reduction`` (skipped to find the loss)
_HELPERS = frozenset({"_reduction", "reduction_of", "_red"})


def _loss_name() -> str:
    f = sys._getframe(2)
    while f is not None and f.f_code.co_name in _HELPERS:
        f = f.f_back
    return f.f_code.co_name if f is not None else ""


def warn_from_caller(message: str, sites: dict, category=UserWarning) -> None:
    """A warning torch raises with ``stacklevel=2`` in a Python function gradrepl implements:
    from the caller's line; from torch's own site where the caller is gradrepl's twin of torch's
    calling code (``sites``: gradrepl qualname -> ``SITES`` key); none where another gradrepl
    function calls (torch's twin is C++: ``torch.kl_div`` does not pass through ``F.kl_div``)."""
    from ._base import GRADREPL_DIR

    f = sys._getframe(2)
    code = f.f_code
    if code.co_filename.startswith(GRADREPL_DIR):
        site = sites.get(code.co_qualname)
        if site is not None:
            warn(site, message, category)
        return
    warnings.warn_explicit(message, category, code.co_filename, f.f_lineno,
                           module=f.f_globals.get("__name__", "__main__"),
                           registry=f.f_globals.setdefault("__warningregistry__", {}))


def legacy_reduction(size_average, reduce) -> str:
    """torch's ``_Reduction.legacy_get_string``: the reduction ``size_average``/``reduce`` ask
    for, with its deprecation warning where torch raises it for the calling loss (the
    functional's name, found on the stack; ``__init__``: a loss module)."""
    caller = _loss_name()
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    ret = ("mean" if size_average else "sum") if reduce else "none"
    message = ("size_average and reduce args will be deprecated, please use "
               f"reduction='{ret}' instead.")
    key = "loss_init" if caller == "__init__" else (
        "legacy_enum" if caller in LEGACY_ENUM else caller)
    if key in SITES:
        warn(key, message)
    else:
        warnings.warn(message, UserWarning, stacklevel=4)
    return ret
