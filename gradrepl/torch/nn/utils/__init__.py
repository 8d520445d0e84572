"""``torch.nn.utils``: gradient clipping, parameter vectors, weight and spectral normalisation
(hook-based; ``parametrizations`` for the parametrized forms), ``parametrize``, ``rnn``
(packed sequences), conv/linear-batchnorm fusion, ``skip_init``, ``stateless``."""
from __future__ import annotations

import math

import numpy as np

from ....engine import grad_mode
from ... import _inplace
from ..._base import EngineTensor, raw
from ..._tensor import Tensor


def _params(parameters):
    if isinstance(parameters, EngineTensor):
        return [parameters]
    return [p for p in parameters]


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False,
                    foreach=None):
    """torch 2.13's: the total norm as ``get_total_norm`` computes it (each gradient's
    ``linalg.vector_norm``, then the norm of their stack), every gradient multiplied by
    ``clamp(max_norm * (1 / (total + 1e-6)), max=1)`` (``__rtruediv__`` is reciprocal times)."""
    params = _params(parameters)
    grads = [p._grad for p in params if p._grad is not None]
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(params, max_norm, total, foreach)
    return total


def clip_grad_value_(parameters, clip_value, foreach=None):
    with grad_mode.no_grad():
        for p in _params(parameters):
            if p._grad is not None:
                g = p._grad
                _inplace.write(g, np.clip(raw(g), -clip_value, clip_value))


def parameters_to_vector(parameters):
    from ... import _ops

    return _ops.cat([_ops.reshape(p, (-1,)) for p in parameters])


def vector_to_parameters(vec, parameters):
    offset = 0
    a = raw(vec)
    with grad_mode.no_grad():
        for p in parameters:
            n = raw(p).size
            _inplace.write(p, a[offset:offset + n].reshape(raw(p).shape))
            offset += n


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The deprecated name of ``clip_grad_norm_``."""
    import warnings

    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`torch.nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The norm of the norms of ``tensors`` (as if concatenated)."""
    from ... import _ops

    from ... import linalg

    ts = [t for t in _params(tensors) if t is not None]
    if not ts:
        return Tensor._wrap(np.zeros((), np.float32))
    norm_type = float(norm_type)
    with grad_mode.no_grad():  # (torch's _foreach_norm / vector_norm of each, then of the stack)
        norms = [linalg.vector_norm(t, norm_type) for t in ts]
        total = linalg.vector_norm(_ops.stack(norms), norm_type)
    v = float(raw(total))
    if error_if_nonfinite and (math.isnan(v) or math.isinf(v)):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from "
                           "`parameters` is non-finite, so it cannot be clipped. To disable "
                           "this error and scale the gradients by the non-finite norm anyway, "
                           "set `error_if_nonfinite=False`")
    return total


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scales the gradients by ``max_norm / (total_norm + 1e-6)`` clamped to at most 1."""
    grads = [p._grad for p in _params(parameters) if p._grad is not None]
    if not grads:
        return
    with grad_mode.no_grad():  # clip_coef = max_norm / (total_norm + 1e-6), clamped to 1
        coef = ((total_norm + 1e-6).reciprocal() * max_norm).clamp(max=1.0)
        c = raw(coef)
        for g in grads:  # (torch's _foreach_mul_: each gradient times the float coefficient)
            if raw(g).dtype == np.uint16 or c.dtype == np.uint16:  # bfloat16: in float, rounded
                from ..._bfloat16 import astype, values

                prod = values(raw(g)).astype(np.float32) * values(c).astype(np.float32)
                _inplace.write(g, astype(prod, raw(g).dtype))
                continue
            _inplace.write(g, (raw(g) * c.astype(raw(g).dtype)).astype(raw(g).dtype))


def fuse_conv_bn_weights(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, transpose=False):
    """The weight and bias of a convolution followed by a batch norm in eval mode, as one."""
    from ... import _ops
    from ..parameter import Parameter

    dt = raw(conv_w).dtype
    if conv_b is None:
        conv_b = Tensor._wrap(np.zeros(raw(bn_rm).shape, dt))
    if bn_w is None:
        bn_w = Tensor._wrap(np.ones(raw(bn_rm).shape, dt))
    if bn_b is None:
        bn_b = Tensor._wrap(np.zeros(raw(bn_rm).shape, dt))
    bn_var_rsqrt = _ops.rsqrt(_ops.add(bn_rv, bn_eps))
    nd = raw(conv_w).ndim
    shape = [1] * nd
    shape[1 if transpose else 0] = -1
    fused_w = _ops.mul(conv_w, _ops.reshape(_ops.mul(bn_w, bn_var_rsqrt), shape))
    fused_b = _ops.add(_ops.mul(_ops.mul(_ops.sub(conv_b, bn_rm), bn_var_rsqrt), bn_w), bn_b)
    return (Parameter(fused_w.detach(), conv_w.requires_grad),
            Parameter(fused_b.detach(), conv_b.requires_grad))


def fuse_conv_bn_eval(conv, bn, transpose=False):
    """A copy of ``conv`` with the eval-mode batch norm ``bn`` folded into its weight and bias."""
    import copy

    if conv.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused = copy.deepcopy(conv)
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("Fusion requires running statistics")
    fused.weight, fused.bias = fuse_conv_bn_weights(fused.weight, fused.bias, bn.running_mean,
                                                    bn.running_var, bn.eps, bn.weight, bn.bias,
                                                    transpose)
    return fused


def fuse_linear_bn_weights(linear_w, linear_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b):
    """The weight and bias of a linear layer followed by a batch norm in eval mode, as one."""
    from ... import _ops
    from ..parameter import Parameter

    if linear_b is None:
        linear_b = Tensor._wrap(np.zeros(raw(bn_rm).shape, raw(linear_w).dtype))
    bn_scale = _ops.mul(bn_w, _ops.rsqrt(_ops.add(bn_rv, bn_eps)))
    fused_w = _ops.mul(linear_w, _ops.unsqueeze(bn_scale, -1))
    fused_b = _ops.add(_ops.mul(_ops.sub(linear_b, bn_rm), bn_scale), bn_b)
    return (Parameter(fused_w.detach(), linear_w.requires_grad),
            Parameter(fused_b.detach(), linear_b.requires_grad))


def fuse_linear_bn_eval(linear, bn):
    """A copy of ``linear`` with the eval-mode batch norm ``bn`` folded in."""
    import copy

    if linear.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    if linear.out_features != bn.num_features and bn.num_features != 1:
        raise AssertionError("To fuse, linear.out_features must equal bn.num_features or "
                             "bn.num_features must equal 1")
    fused = copy.deepcopy(linear)
    fused.weight, fused.bias = fuse_linear_bn_weights(fused.weight, fused.bias,
                                                      bn.running_mean, bn.running_var, bn.eps,
                                                      bn.weight, bn.bias)
    return fused


def skip_init(module_cls, *args, **kwargs):
    """An instance of ``module_cls`` whose parameters are left uninitialised (torch's are
    whatever memory held; here zeros) and that draws nothing from the generator."""
    import inspect

    from ... import _random
    from ..modules import Module

    if not (isinstance(module_cls, type) and issubclass(module_cls, Module)):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    kwargs.pop("device", None)
    state = _random.get_rng_state()
    try:
        module = module_cls(*args, **kwargs)
    finally:
        _random.set_rng_state(state)
    with grad_mode.no_grad():
        for t in list(module.parameters()) + list(module.buffers()):
            _inplace.write(t, np.zeros((), raw(t).dtype))
    return module


def convert_conv2d_weight_memory_format(module, memory_format):
    """Returns ``module`` (memory formats are not modelled: every tensor is contiguous)."""
    return module


convert_conv3d_weight_memory_format = convert_conv2d_weight_memory_format

from . import parametrizations, parametrize, rnn, stateless  # noqa: E402,F401
from . import clip_grad, convert_parameters, fusion, memory_format  # noqa: E402,F401
from .spectral_norm import remove_spectral_norm, spectral_norm  # noqa: E402,F401
from .weight_norm import remove_weight_norm, weight_norm  # noqa: E402,F401
