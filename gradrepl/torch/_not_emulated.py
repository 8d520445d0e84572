"""Clear AttributeErrors (issue 28): an attribute real torch 2.13 has and gradrepl's torch does
not emulate (CUDA, sparse, quantized tensors, ...) raises an AttributeError saying so, at the
point of access (``x.to_sparse`` -> "... (gradrepl's torch does not emulate
Tensor.to_sparse)"); a name torch does not have either raises torch's own message. torch's
names per module are ``_torch_names.NAMES`` (generated from real torch's ``dir()``).

On ``Tensor`` each such name is a class attribute whose descriptor raises (``hasattr`` is False,
as for a missing name): no ``__getattr__``, so no attribute access pays for it (a failed lookup
of an unset slot, ``getattr(t, "_fw", None)``, stays at C speed)."""
from __future__ import annotations

import sys

_MODULES = ("torch.nn", "torch.nn.init", "torch.linalg", "torch.special", "torch.fft",
            "torch.distributions", "torch.optim", "torch.optim.lr_scheduler",
            "torch.utils.data", "torch.autograd", "torch.func")


def _names(target):
    from ._torch_names import NAMES

    return NAMES.get(target, ())


class _NotEmulated:
    """A Tensor attribute torch has and gradrepl does not: access raises AttributeError."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __get__(self, obj, objtype=None):
        who = f"'{(objtype or type(obj)).__name__}' object" if obj is not None else \
            f"type object '{objtype.__name__}'"
        raise AttributeError(f"{who} has no attribute '{self.name}' (gradrepl's torch does "
                             f"not emulate Tensor.{self.name})")


def _module_getattr(target, previous):
    def __getattr__(name):
        if previous is not None:
            try:
                return previous(name)
            except AttributeError:
                pass
        if name[:1] != "_" and name in _names(target):
            raise AttributeError(f"module '{target}' has no attribute '{name}' (gradrepl's "
                                 f"torch does not emulate {target}.{name})")
        raise AttributeError(f"module '{target}' has no attribute '{name}'")
    return __getattr__


# torch.Tensor's single-underscore names (real torch 2.13's dir(torch.Tensor)) that gradrepl's
# Tensor lacks, found by LEFT17's sweep: a lecture that prints one (``t._backward_hooks``,
# ``t._cdata``) is told so, as for the public names (``_base``, ``_is_view``, ``_version`` are
# emulated)
_PRIVATE_TENSOR_NAMES = (
    "_addmm_activation _autocast_to_full_precision _autocast_to_reduced_precision "
    "_backward_hooks _cdata _clear_non_serializable_cached_data _coalesced_ _conj "
    "_conj_physical _dimI _dimV _fix_weakref _grad_fn _has_symbolic_sizes_strides _indices "
    "_is_all_true _is_any_true _is_zerotensor _lazy_clone _make_subclass "
    "_make_wrapper_subclass _neg_view _nested_tensor_size _nested_tensor_storage_offsets "
    "_nested_tensor_strides _nnz _philox_normal_ _philox_uniform_ "
    "_post_accumulate_grad_hooks _python_dispatch _reduce_ex_internal _rev_view_func_unsafe "
    "_sparse_mask_projection _to_dense _to_sparse _to_sparse_bsc _to_sparse_bsr "
    "_to_sparse_csc _to_sparse_csr _typed_storage _use_count _values _view_func "
    "_view_func_unsafe").split()


def install():
    from ._tensor import Tensor

    for name in _names("torch.Tensor"):
        if name[:1] != "_" and not hasattr(Tensor, name):
            setattr(Tensor, name, _NotEmulated(name))
    for name in _PRIVATE_TENSOR_NAMES:
        if not hasattr(Tensor, name):
            setattr(Tensor, name, _NotEmulated(name))
    for target in _MODULES:
        mod = sys.modules.get("gradrepl." + target)
        if mod is None:
            continue
        previous = mod.__dict__.get("__getattr__")
        mod.__getattr__ = _module_getattr(target, previous)
