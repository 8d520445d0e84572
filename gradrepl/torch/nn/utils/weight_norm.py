"""``torch.nn.utils.weight_norm``: the hook-based weight normalisation (``w = g * v / ||v||``
recomputed before each forward), and ``remove_weight_norm``."""
from __future__ import annotations

from ... import _ops
from ..parameter import Parameter, UninitializedParameter

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm"]


def norm_except_dim(v, pow=2, dim=0):  # noqa: A002
    """The ``pow``-norm of ``v`` over all dims but ``dim`` (kept with size 1 elsewhere); the
    whole norm for ``dim == -1``."""
    shape = tuple(v.shape)
    if dim == -1:
        return _ops.norm(v, pow)
    if dim == 0:
        out = (shape[0],) + (1,) * (len(shape) - 1)
        return _ops.view(_ops.norm(_ops.reshape(_ops.contiguous(v), (shape[0], -1)), pow, 1),
                         out)
    if dim == len(shape) - 1:
        out = (1,) * (len(shape) - 1) + (shape[-1],)
        return _ops.view(_ops.norm(_ops.reshape(_ops.contiguous(v), (-1, shape[-1])), pow, 0),
                         out)
    return _ops.transpose(norm_except_dim(_ops.transpose(v, 0, dim), pow, 0), 0, dim)


def _weight_norm(v, g, dim=0):
    """``torch._weight_norm``: over the first dim of float32 torch's fused kernel (one node,
    WeightNormInterfaceBackward0, its rounding); else ``v * (g / norm_except_dim(v))``."""
    from .. import _weight_norm_kernel as WN

    if WN.supported(v, g, dim):
        return WN.weight_norm(v, g)
    return _ops.mul(v, _ops.div(g, norm_except_dim(v, 2, dim)))


class WeightNorm:
    name: str
    dim: int

    def __init__(self, name, dim):
        if dim is None:
            dim = -1
        self.name = name
        self.dim = dim

    def compute_weight(self, module):
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return _weight_norm(v, g, self.dim)

    @staticmethod
    def apply(module, name, dim):
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two weight_norm hooks on the same "
                                   f"parameter {name}")
        if dim is None:
            dim = -1
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        if isinstance(weight, UninitializedParameter):
            raise ValueError("The module passed to `WeightNorm` can't have uninitialized "
                             "parameters. Make sure to run the dummy forward before applying "
                             "weight normalization")
        del module._parameters[name]
        module.register_parameter(name + "_g", Parameter(norm_except_dim(weight, 2, dim).detach()))
        module.register_parameter(name + "_v", Parameter(weight.detach()))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module):
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name="weight", dim=0):
    """Weight normalisation of ``module.<name>`` as ``<name>_g`` (magnitude) and ``<name>_v``
    (direction)."""
    # torch 2.13: WeightNorm.apply is @deprecated, so the FutureWarning names its caller,
    # torch's own weight_norm.py:144 (shown once a process by that module's registry)
    from .... import _libsite

    _libsite.warn_at("torch", "nn/utils/weight_norm.py", 144,
                     "    WeightNorm.apply(module, name, dim)",
                     "`torch.nn.utils.weight_norm` is deprecated in favor of "
                     "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning)
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name="weight"):
    """Removes the weight normalisation reparameterization from a module."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")


WeightNorm.__module__ = "torch.nn.utils.weight_norm"
