"""``paddle.nn.utils.weight_norm`` / ``remove_weight_norm``: ``w = g * v / ||v||`` by a forward
pre-hook, as Paddle builds it from its own ops: ``g`` starts as the norm of ``w`` over every axis
but ``dim`` (Paddle's l2 ``norm`` op, ``sqrt(sum(x^2) + 1e-12)``), ``v`` as ``w``; both are new
parameters (made with the default initializers, so the random stream advances as in Paddle, then
overwritten), named ``<name>_v`` and ``<name>_g`` after the layer's other parameters; ``dim=None``
normalizes over all elements."""
from __future__ import annotations

import sys


def _paddle():
    return sys.modules[__name__.rsplit(".", 2)[0]]


def _l2_norm(x, axis):
    """Paddle's ``norm`` op's norm output along ``axis``: ``sqrt(sum(x^2) + 1e-12)``."""
    paddle = _paddle()
    if len(x.shape) == 1:
        axis = 0
    return paddle.sqrt(paddle.sum(paddle.square(x), axis=axis) + 1e-12)


def _norm_except_dim(p, dim):
    paddle = _paddle()
    shape, ndims = p.shape, len(p.shape)
    if dim == -1:
        return paddle.sqrt(paddle.sum(paddle.square(p)) + 1e-12)
    if dim == 0:
        return _l2_norm(paddle.reshape(p, (shape[0], -1)), 1)
    if dim == ndims - 1:
        return _l2_norm(paddle.reshape(p, (-1, shape[-1])), 0)
    perm = list(range(ndims))
    perm[0], perm[dim] = dim, 0
    return _norm_except_dim(paddle.transpose(p, perm), 0)


def _weight(v, g, dim):
    paddle = _paddle()
    F = paddle.nn.functional
    shape, ndims = v.shape, len(v.shape)
    if dim == -1:
        unit = v / (paddle.sqrt(paddle.sum(paddle.square(v))) + 1e-12)
    elif dim == 0:
        unit = paddle.reshape(F.normalize(paddle.reshape(v, (shape[0], -1)), axis=1), shape)
    elif dim == ndims - 1:
        unit = paddle.reshape(F.normalize(paddle.reshape(v, (-1, shape[-1])), axis=0), shape)
    else:
        perm = list(range(ndims))
        perm[0], perm[dim] = dim, 0
        moved = paddle.transpose(v, perm)
        unit = paddle.reshape(F.normalize(paddle.reshape(moved, (moved.shape[0], -1)), axis=1),
                              moved.shape)
        unit = paddle.transpose(unit, perm)
    if dim == -1:
        return unit * g
    # g along axis ``dim`` of the weight (Paddle's _multiply_with_axis)
    gshape = [1] * ndims
    gshape[dim] = -1
    return unit * paddle.reshape(g, gshape)


class WeightNorm:
    """The forward pre-hook: recomputes ``layer.<name>`` from ``<name>_g`` and ``<name>_v``."""

    def __init__(self, name, dim):
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, layer):
        return _weight(getattr(layer, self.name + "_v"), getattr(layer, self.name + "_g"),
                       self.dim)

    @staticmethod
    def apply(layer, name, dim):
        paddle = _paddle()
        for hook in layer._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError("Cannot register two weight_norm hooks on the same "
                                   f"parameter {name}")
        if dim is None:
            dim = -1
        rank = len(layer._parameters[name].shape)
        assert -rank <= dim < rank, ("dim must set between [-R, R), R means the dimension of "
                                     "weight.")
        if dim != -1:
            dim = (dim + rank) % rank
        fn = WeightNorm(name, dim)
        w = getattr(layer, name)
        del layer._parameters[name]
        g_value = _norm_except_dim(w, dim)
        v = layer.create_parameter(w.shape, dtype=w.dtype)
        layer.add_parameter(name + "_v", v)
        g = layer.create_parameter(g_value.shape, dtype=g_value.dtype)
        layer.add_parameter(name + "_g", g)
        with paddle.no_grad():
            paddle.assign(w, v)
            paddle.assign(g_value, g)
        setattr(layer, name, fn.compute_weight(layer))
        layer.register_forward_pre_hook(fn)
        return fn

    def remove(self, layer):
        paddle = _paddle()
        w_value = self.compute_weight(layer)
        delattr(layer, self.name)
        del layer._parameters[self.name + "_g"]
        del layer._parameters[self.name + "_v"]
        w = layer.create_parameter(w_value.shape, dtype=w_value.dtype)
        layer.add_parameter(self.name, w)
        with paddle.no_grad():
            paddle.assign(w_value, w)

    def __call__(self, layer, inputs):
        setattr(layer, self.name, self.compute_weight(layer))


def weight_norm(layer, name="weight", dim=0):
    """Weight normalization of ``layer.<name>`` (see the module docstring); returns the layer."""
    WeightNorm.apply(layer, name, dim)
    return layer


def remove_weight_norm(layer, name="weight"):
    """Undo ``weight_norm``: ``<name>`` becomes one parameter again, holding ``g * v / ||v||``."""
    for k, hook in layer._forward_pre_hooks.items():
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(layer)
            del layer._forward_pre_hooks[k]
            return layer
    raise ValueError(f"weight_norm of '{name}' not found in {layer}")
