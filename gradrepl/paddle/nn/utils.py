"""``paddle.nn.utils``: gradient clipping over a model's parameters and the flat-vector view of
them, as Paddle 2.6 / 3.3 compute them (the clipping norm is Paddle's two-stage norm: each
gradient's norm, then the norm of those; the coefficient ``max_norm / (total + 1e-6)`` capped at
1 multiplies each gradient in place). The weight-norm and spectral-norm hooks are not emulated.
"""
from __future__ import annotations

import functools

__all__ = ["weight_norm", "remove_weight_norm", "spectral_norm", "parameters_to_vector",
           "vector_to_parameters", "clip_grad_norm_", "clip_grad_value_"]


def _paddle():
    import gradrepl.paddle as paddle

    return paddle


def _dynamic_only(paddle):
    if not paddle.in_dynamic_mode():
        raise RuntimeError("this API can only run in dynamic mode.")


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """Scale every gradient so that their joint ``norm_type``-norm is at most ``max_norm``;
    returns the joint norm before clipping (a 0-D tensor)."""
    paddle = _paddle()
    _dynamic_only(paddle)
    if isinstance(parameters, paddle.Tensor):
        parameters = [parameters]
    supported = [float("inf"), 0, 1, 2]
    if norm_type not in supported:
        raise ValueError(f"norm_type only support {supported}")
    parameters = list(parameters)
    grads = [p.grad for p in parameters if p.grad is not None]
    max_norm, norm_type = float(max_norm), float(norm_type)
    if not grads:
        return paddle.to_tensor(0.0)
    if norm_type == float("inf"):
        norms = [g.detach().abs().max() for g in grads]
        total = norms[0] if len(norms) == 1 else paddle.max(paddle.stack(norms))
    else:
        total = paddle.linalg.norm(
            paddle.stack([paddle.linalg.norm(g.detach(), norm_type) for g in grads]), norm_type)
    if error_if_nonfinite and bool(paddle.logical_or(total.isnan(), total.isinf())):
        raise RuntimeError(
            f"The total norm of {norm_type} order of the gradients from `parameters` is "
            "non-finite, so it cannot be clipped. In any case, disable this error and scale "
            "the gradient by non-finite norm, set `error_if_nonfinite=False`")
    coef = (max_norm / (total + 1e-6)).clip_(max=1.0)
    with paddle.no_grad():
        for p in parameters:
            if p.grad is not None:
                p.grad.multiply_(coef)
    return total


def clip_grad_value_(parameters, clip_value):
    """Clip every gradient into [-clip_value, clip_value], in place; returns None."""
    paddle = _paddle()
    _dynamic_only(paddle)
    if isinstance(parameters, paddle.Tensor):
        parameters = [parameters]
    clip_value = float(clip_value)
    with paddle.no_grad():
        for p in parameters:
            if p.grad is not None:
                p.grad.clip_(min=-clip_value, max=clip_value)


def parameters_to_vector(parameters, name=None):
    """The parameters flattened and concatenated into one 1-D tensor (a copy, stop_gradient
    False, as Paddle leaves it)."""
    paddle = _paddle()
    parameters = list(parameters)
    with paddle.no_grad():
        out = paddle.concat([paddle.reshape(p, [-1]) for p in parameters], 0)
    out.stop_gradient = False
    return out


def vector_to_parameters(vec, parameters, name=None):
    """Copy consecutive slices of the 1-D ``vec`` into the parameters, in place."""
    paddle = _paddle()
    assert len(vec.shape) == 1
    parameters = list(parameters)
    sizes = [functools.reduce(lambda a, b: a * b, p.shape, 1) for p in parameters]
    with paddle.no_grad():
        start = 0
        for p, n in zip(parameters, sizes):
            p.set_value(paddle.reshape(vec[start:start + n], p.shape))
            start += n


def weight_norm(layer, name="weight", dim=0):
    """Weight normalization ``w = g * v / ||v||`` by a forward pre-hook, as Paddle
    (``nn/weight_norm.py``)."""
    from .weight_norm import weight_norm as _wn

    return _wn(layer, name, dim)


def remove_weight_norm(layer, name="weight"):
    from .weight_norm import remove_weight_norm as _rwn

    return _rwn(layer, name)
def spectral_norm(layer, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Spectral normalization by a forward pre-hook, as Paddle (``nn/gaps.py``)."""
    from .gaps import spectral_norm as _sn

    return _sn(layer, name, n_power_iterations, eps, dim)

from ..names_gate import gate as _gate  # noqa: E402  (the names of the emulated version)

_gate(__name__)
