"""``torch.nn.utils.spectral_norm``: the hook-based spectral normalisation (the weight divided
by its largest singular value, estimated by power iteration), and ``remove_spectral_norm``."""
from __future__ import annotations

import numpy as np

from ....engine import grad_mode
from ... import _ops
from ..._base import raw
from ..._tensor import Tensor
from .. import functional as F
from .. import init
from ..parameter import Parameter

__all__ = ["SpectralNorm", "spectral_norm", "remove_spectral_norm"]


class SpectralNorm:
    _version = 1

    def __init__(self, name="weight", n_power_iterations=1, dim=0, eps=1e-12):
        self.name = name
        self.dim = dim
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight):
        mat = weight
        if self.dim != 0:
            mat = _ops.permute(mat, self.dim, *[d for d in range(raw(mat).ndim) if d != self.dim])
        return _ops.reshape(mat, (raw(mat).shape[0], -1))

    def compute_weight(self, module, do_power_iteration):
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with grad_mode.no_grad():
                for _ in range(self.n_power_iterations):
                    v.copy_(F.normalize(_ops.mv(_ops.t(mat), u), dim=0, eps=self.eps))
                    u.copy_(F.normalize(_ops.mv(mat, v), dim=0, eps=self.eps))
                u = _ops.clone(u)
                v = _ops.clone(v)
        sigma = _ops.dot(u, _ops.mv(mat, v))
        return _ops.div(weight, sigma)

    def remove(self, module):
        with grad_mode.no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        delattr(module, self.name)
        delattr(module, self.name + "_u")
        delattr(module, self.name + "_v")
        delattr(module, self.name + "_orig")
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name,
                self.compute_weight(module, do_power_iteration=module.training))

    @staticmethod
    def apply(module, name, n_power_iterations, dim, eps):
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two spectral_norm hooks on the same "
                                   f"parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        with grad_mode.no_grad():
            mat = fn.reshape_weight_to_matrix(weight)
            h, w = raw(mat).shape
            dt = raw(weight).dtype
            u = F.normalize(init.normal_(Tensor._wrap(np.zeros(h, dt)), 0, 1), dim=0,
                            eps=fn.eps)
            v = F.normalize(init.normal_(Tensor._wrap(np.zeros(w, dt)), 0, 1), dim=0,
                            eps=fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        setattr(module, fn.name, weight.detach())
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        return fn


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Spectral normalisation of ``module.<name>`` (``<name>_orig``, ``<name>_u``,
    ``<name>_v``)."""
    if dim is None:
        dim = 1 if type(module).__name__.startswith("ConvTranspose") else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module, name="weight"):
    """Removes the spectral normalisation reparameterization from a module."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"spectral_norm of '{name}' not found in {module}")


SpectralNorm.__module__ = "torch.nn.utils.spectral_norm"
