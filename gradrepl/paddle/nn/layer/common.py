"""Linear, Identity, Flatten, Dropout layers."""
from __future__ import annotations

from ... import profiles
from .. import functional as F
from .layers import Layer

__all__ = ["Linear", "Identity", "Flatten", "Dropout", "Dropout2D", "Dropout3D",
           "AlphaDropout", "Embedding"]


class Linear(Layer):
    """``y = x @ weight + bias`` with ``weight`` of shape [in_features, out_features]
    (Xavier-uniform by default) and ``bias`` of shape [out_features] (zeros)."""

    def __init__(self, in_features, out_features, weight_attr=None, bias_attr=None, name=None):
        super().__init__()
        self._dtype = _default_dtype_name()
        self._weight_attr = weight_attr
        self._bias_attr = bias_attr
        self._in_features = in_features
        self._out_features = out_features
        self.weight = self.create_parameter([in_features, out_features], attr=weight_attr,
                                            dtype=self._dtype, is_bias=False)
        self.bias = self.create_parameter([out_features], attr=bias_attr, dtype=self._dtype,
                                          is_bias=True)
        self.name = name

    def forward(self, input):  # noqa: A002
        return F.linear(input, self.weight, self.bias, name=self.name)

    def extra_repr(self):
        name_str = f", name={self.name}" if self.name else ""
        return (f"in_features={self.weight.shape[0]}, out_features={self.weight.shape[1]}, "
                f"dtype={self._dtype}{name_str}")


def _default_dtype_name():
    from ...tensor.creation import get_default_dtype

    return get_default_dtype()


class Identity(Layer):
    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):  # noqa: A002
        return input


class Flatten(Layer):
    def __init__(self, start_axis=1, stop_axis=-1):
        super().__init__()
        self.start_axis = start_axis
        self.stop_axis = stop_axis

    def forward(self, input):  # noqa: A002
        from ... import tensor as _t

        flatten = _t.exported().get("flatten")
        if flatten is not None:
            return flatten(input, self.start_axis, self.stop_axis)
        from ....engine.ops.shape import reshape

        shape = list(input.data.shape)
        nd = len(shape)
        a, b = self.start_axis % max(nd, 1), self.stop_axis % max(nd, 1)
        size = 1
        for s in shape[a:b + 1]:
            size *= s
        return reshape(input, shape[:a] + [size] + shape[b + 1:])


def _inplace_suffix():
    return ", inplace=False" if profiles.current().layer_repr_inplace else ""


class Dropout(Layer):
    def __init__(self, p=0.5, axis=None, mode="upscale_in_train", name=None):
        super().__init__()
        self.p = p
        self.axis = axis
        self.mode = mode
        self.name = name

    def forward(self, input):  # noqa: A002
        return F.dropout(input, p=self.p, axis=self.axis, training=self.training,
                         mode=self.mode, name=self.name)

    def extra_repr(self):
        name_str = f", name={self.name}" if self.name else ""
        return (f"p={self.p}, axis={self.axis}, mode={self.mode}{_inplace_suffix()}"
                f"{name_str}")


class Dropout2D(Layer):
    def __init__(self, p=0.5, data_format="NCHW", name=None):
        super().__init__()
        self.p, self.data_format, self.name = p, data_format, name

    def forward(self, input):  # noqa: A002
        return F.dropout2d(input, p=self.p, training=self.training,
                           data_format=self.data_format)

    def extra_repr(self):
        name_str = f", name={self.name}" if self.name else ""
        return f"p={self.p}, data_format={self.data_format}{name_str}"


class Dropout3D(Dropout2D):
    def __init__(self, p=0.5, data_format="NCDHW", name=None):
        super().__init__(p, data_format, name)

    def forward(self, input):  # noqa: A002
        return F.dropout3d(input, p=self.p, training=self.training,
                           data_format=self.data_format)


class AlphaDropout(Layer):
    def __init__(self, p=0.5, name=None):
        super().__init__()
        self.p, self.name = p, name

    def forward(self, input):  # noqa: A002
        return F.alpha_dropout(input, p=self.p, training=self.training)

    def extra_repr(self):
        name_str = f", name={self.name}" if self.name else ""
        return f"p={self.p}{name_str}"


class Embedding(Layer):
    """A lookup table [num_embeddings, embedding_dim]; rows are gathered by integer ids."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, sparse=False,
                 weight_attr=None, name=None, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False):
        super().__init__()
        from ..initializer import XavierNormal

        self._num_embeddings = num_embeddings
        self._embedding_dim = embedding_dim
        if padding_idx is not None and padding_idx < 0:
            padding_idx += num_embeddings
        self._padding_idx = padding_idx
        self._sparse = sparse
        self._scale_grad_by_freq = scale_grad_by_freq
        self._dtype = _default_dtype_name()
        self.weight = self.create_parameter([num_embeddings, embedding_dim], attr=weight_attr,
                                            dtype=self._dtype,
                                            default_initializer=XavierNormal())
        if padding_idx is not None:
            self.weight.data[padding_idx] = 0
        self._name = name

    def forward(self, x):
        return F.embedding(x, self.weight, padding_idx=self._padding_idx)

    def extra_repr(self):
        s = f"{self._num_embeddings}, {self._embedding_dim}"
        if self._padding_idx is not None:
            s += f", padding_idx={self._padding_idx}"
        s += f", sparse={self._sparse}"
        if profiles.current().embedding_scale_grad:
            s += f", scale_grad_by_freq={self._scale_grad_by_freq}"
        if self._name is not None:
            s += f", name={self._name}"
        return s
