"""``functorch``, served for ``import functorch`` (the forward-mode AD tutorial's last part):
the ``torch.func`` transforms under their old names, each call warning as torch 2.13 does
(deprecated since 2.0), and ``make_functional`` / ``make_functional_with_buffers``: a module
as a function of its parameters (copies) and buffers."""
from __future__ import annotations

import copy
import functools
import warnings

from . import func as _func
from .nn.modules import Module
from .nn.parameter import Parameter

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "vmap",
           "make_functional", "make_functional_with_buffers", "FunctionalModule",
           "FunctionalModuleWithBuffers", "combine_state_for_ensemble"]

_MESSAGE = ("We've integrated functorch into PyTorch. As the final step of the integration, "
            "`functorch.{old}` is deprecated as of PyTorch 2.0 and will be deleted in a future "
            "version of PyTorch >= 2.3. Please use `{new}` instead; see the PyTorch 2.0 release "
            "notes and/or the `torch.func` migration guide for more details "
            "https://pytorch.org/docs/main/func.migrating.html")


def _deprecated(old, new, fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        warnings.warn(_MESSAGE.format(old=old, new=new), FutureWarning, stacklevel=2)
        return fn(*args, **kwargs)
    return wrapper


grad = _deprecated("grad", "torch.func.grad", _func.grad)
grad_and_value = _deprecated("grad_and_value", "torch.func.grad_and_value", _func.grad_and_value)
vjp = _deprecated("vjp", "torch.func.vjp", _func.vjp)
jvp = _deprecated("jvp", "torch.func.jvp", _func.jvp)
jacrev = _deprecated("jacrev", "torch.func.jacrev", _func.jacrev)
jacfwd = _deprecated("jacfwd", "torch.func.jacfwd", _func.jacfwd)
hessian = _deprecated("hessian", "torch.func.hessian", _func.hessian)
vmap = _deprecated("vmap", "torch.vmap", _func.vmap)


def _copied_params(model):
    return tuple(Parameter(p.detach().clone(), p.requires_grad)
                 for _, p in model.named_parameters())


class FunctionalModule(Module):
    """``func(params, *args)``: the module run with ``params`` in place of its parameters."""

    def __init__(self, stateless_model, param_names):
        super().__init__()
        self.stateless_model = stateless_model
        self.param_names = param_names

    def forward(self, params, *args, **kwargs):
        return _func.functional_call(self.stateless_model, dict(zip(self.param_names, params)),
                                     args, kwargs)


class FunctionalModuleWithBuffers(Module):
    """``func(params, buffers, *args)``."""

    def __init__(self, stateless_model, param_names, buffer_names):
        super().__init__()
        self.stateless_model = stateless_model
        self.param_names = param_names
        self.buffer_names = buffer_names

    def forward(self, params, buffers, *args, **kwargs):
        state = dict(zip(self.param_names, params))
        state.update(zip(self.buffer_names, buffers))
        return _func.functional_call(self.stateless_model, state, args, kwargs)


def _make_functional(model):
    params = _copied_params(model)
    names = tuple(n for n, _ in model.named_parameters())
    return FunctionalModule(copy.deepcopy(model), names), params


def _make_functional_with_buffers(model):
    params = _copied_params(model)
    names = tuple(n for n, _ in model.named_parameters())
    bnames = tuple(n for n, _ in model.named_buffers())
    buffers = tuple(b.detach().clone() for _, b in model.named_buffers())
    return FunctionalModuleWithBuffers(copy.deepcopy(model), names, bnames), params, buffers


make_functional = _deprecated("make_functional", "torch.func.functional_call",
                              _make_functional)
make_functional_with_buffers = _deprecated("make_functional_with_buffers",
                                           "torch.func.functional_call",
                                           _make_functional_with_buffers)


def combine_state_for_ensemble(models):
    """(func, stacked params, stacked buffers) of identical models."""
    fmodel, _, _ = _make_functional_with_buffers(models[0])
    params, buffers = _func.stack_module_state(models)
    return fmodel, tuple(params.values()), tuple(buffers.values())
