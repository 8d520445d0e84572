"""``paddle.sparse.nn.functional``: activations of the stored values; zeros stay zeros."""

from .. import SparseTensor

__all__ = ["relu", "relu6", "leaky_relu"]


def _apply(name, x, *args):
    import gradrepl.paddle.nn.functional as F

    if not isinstance(x, SparseTensor):
        raise TypeError(f"paddle.sparse.nn.functional.{name}: x must be a sparse tensor")
    return SparseTensor(x._layout, x._parts, getattr(F, name)(x._values, *args), x._shape,
                        x.stop_gradient)


def relu(x, name=None):
    return _apply("relu", x)


def relu6(x, name=None):
    return _apply("relu6", x)


def leaky_relu(x, negative_slope=0.01, name=None):
    return _apply("leaky_relu", x, negative_slope)
