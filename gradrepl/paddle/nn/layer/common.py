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


__all__ += ["FeatureAlphaDropout"]


class FeatureAlphaDropout(Layer):
    def __init__(self, p=0.5, name=None):
        super().__init__()
        self.p, self.name = p, name

    def forward(self, input):  # noqa: A002
        return F.feature_alpha_dropout(input, p=self.p, training=self.training)

    def extra_repr(self):
        name_str = f", name={self.name}" if self.name else ""
        return f"p={self.p}{name_str}"


def _3x_only_args(where, max_norm=None, norm_type=2.0, scale_grad_by_freq=False):
    """Paddle 2.x's embedding has no max_norm / norm_type / scale_grad_by_freq: Python's
    TypeError for the first one given (only values other than 3.x's defaults are seen)."""
    if profiles.current().embedding_scale_grad:
        return
    for name, given in (("max_norm", max_norm is not None), ("norm_type", norm_type != 2.0),
                        ("scale_grad_by_freq", bool(scale_grad_by_freq))):
        if given:
            raise TypeError(f"{where}() got an unexpected keyword argument '{name}'")


class Embedding(Layer):
    """A lookup table [num_embeddings, embedding_dim]; rows are gathered by integer ids."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, sparse=False,
                 weight_attr=None, name=None, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False):
        _3x_only_args("Embedding.__init__", max_norm=max_norm, norm_type=norm_type,
                      scale_grad_by_freq=scale_grad_by_freq)
        super().__init__()
        self._num_embeddings = num_embeddings
        self._embedding_dim = embedding_dim
        if padding_idx is not None and padding_idx < 0:
            padding_idx += num_embeddings
        self._padding_idx = padding_idx
        self._sparse = sparse
        self._scale_grad_by_freq = scale_grad_by_freq
        self._max_norm, self._norm_type = max_norm, norm_type
        self._dtype = _default_dtype_name()
        self.weight = self.create_parameter([num_embeddings, embedding_dim], attr=weight_attr,
                                            dtype=self._dtype)  # Xavier uniform, as Linear's
        if padding_idx is not None:
            self.weight.data[padding_idx] = 0
        self._name = name

    def forward(self, x):
        return F.embedding(x, self.weight, padding_idx=self._padding_idx,
                           max_norm=self._max_norm, norm_type=self._norm_type,
                           sparse=self._sparse, scale_grad_by_freq=self._scale_grad_by_freq)

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


# ---------------------------------------------------------------- padding layers
def _npairs(x, n):
    from ...core import Tensor

    if isinstance(x, (Tensor, list, tuple)):
        return x
    return [x] * (n * 2)


class _PadnD(Layer):
    """``nn.Pad1D/2D/3D`` and their Constant/Zero/Reflection/Replication/Circular forms."""

    _n_dim = 1
    _default_format = "NCL"

    def __init__(self, padding, mode="constant", value=0.0, data_format=None, name=None):
        super().__init__()
        self.padding = _npairs(padding, self._n_dim)
        self._mode = mode
        self.value = value
        self._data_format = data_format or self._default_format
        self._name = name

    def forward(self, x):
        return F.pad(x, pad=self.padding, mode=self._mode, value=self.value,
                     data_format=self._data_format, name=self._name)

    def extra_repr(self):
        name_str = f", name={self._name}" if self._name else ""
        return (f"padding={self.padding}, mode={self._mode}, value={self.value}, "
                f"data_format={self._data_format}{name_str}")


class Pad1D(_PadnD):
    _n_dim, _default_format = 1, "NCL"


class Pad2D(_PadnD):
    _n_dim, _default_format = 2, "NCHW"


class Pad3D(_PadnD):
    _n_dim, _default_format = 3, "NCDHW"


def _mode_pad(base, mode, name):
    def __init__(self, padding, data_format=None, name=None):
        base.__init__(self, padding, mode, 0.0, data_format, name)
    return type(name, (base,), {"__init__": __init__, "__module__": __name__})


def _const_pad(base, name):
    def __init__(self, padding, value, data_format=None, name=None):
        base.__init__(self, padding, "constant", value, data_format, name)
    return type(name, (base,), {"__init__": __init__, "__module__": __name__})


ConstantPad1D = _const_pad(Pad1D, "ConstantPad1D")
ConstantPad2D = _const_pad(Pad2D, "ConstantPad2D")
ConstantPad3D = _const_pad(Pad3D, "ConstantPad3D")
ZeroPad1D = _mode_pad(Pad1D, "constant", "ZeroPad1D")
ZeroPad3D = _mode_pad(Pad3D, "constant", "ZeroPad3D")
ReflectionPad1D = _mode_pad(Pad1D, "reflect", "ReflectionPad1D")
ReflectionPad2D = _mode_pad(Pad2D, "reflect", "ReflectionPad2D")
ReflectionPad3D = _mode_pad(Pad3D, "reflect", "ReflectionPad3D")
ReplicationPad1D = _mode_pad(Pad1D, "replicate", "ReplicationPad1D")
ReplicationPad2D = _mode_pad(Pad2D, "replicate", "ReplicationPad2D")
ReplicationPad3D = _mode_pad(Pad3D, "replicate", "ReplicationPad3D")
CircularPad1D = _mode_pad(Pad1D, "circular", "CircularPad1D")
CircularPad2D = _mode_pad(Pad2D, "circular", "CircularPad2D")
CircularPad3D = _mode_pad(Pad3D, "circular", "CircularPad3D")


class ZeroPad2D(Pad2D):
    """Zero padding of the two spatial axes (2.x prints only padding and data_format)."""

    def __init__(self, padding, data_format="NCHW", name=None):
        super().__init__(padding, "constant", 0.0, data_format, name)

    def extra_repr(self):
        if profiles.current().api3:
            return super().extra_repr()
        name_str = f", name={self._name}" if self._name else ""
        return f"padding={self.padding}, data_format={self._data_format}{name_str}"


# ---------------------------------------------------------------- distances, bilinear
class PairwiseDistance(Layer):
    def __init__(self, p=2.0, epsilon=1e-6, keepdim=False, name=None):
        super().__init__()
        self.p, self.epsilon, self.keepdim, self.name = p, epsilon, keepdim, name

    def forward(self, x, y):
        return F.pairwise_distance(x, y, self.p, self.epsilon, self.keepdim, self.name)

    def extra_repr(self):
        main = f"p={self.p}"
        if self.epsilon != 1e-6:
            main += f", epsilon={self.epsilon}"
        if self.keepdim:
            main += ", keepdim=True"
        if self.name is not None:
            main += f", name={self.name}"
        return main


class CosineSimilarity(Layer):
    def __init__(self, axis=1, eps=1e-8):
        super().__init__()
        self._axis, self._eps = axis, eps

    def forward(self, x1, x2):
        return F.cosine_similarity(x1, x2, axis=self._axis, eps=self._eps)

    def extra_repr(self):
        return f"axis={self._axis}, eps={self._eps}"


class Unflatten(Layer):
    def __init__(self, axis, shape, name=None):
        super().__init__()
        self.axis, self.shape, self.name = axis, shape, name

    def forward(self, input):  # noqa: A002
        from ...tensor.manipulation_ext import unflatten

        return unflatten(input, self.axis, self.shape)

    def extra_repr(self):
        name_str = f", name={self.name}" if self.name else ""
        return f"axis={self.axis}, shape={self.shape}{name_str}"


__all__ += ["Pad1D", "Pad2D", "Pad3D", "ConstantPad1D", "ConstantPad2D", "ConstantPad3D",
            "ZeroPad1D", "ZeroPad2D", "ZeroPad3D", "ReflectionPad1D", "ReflectionPad2D",
            "ReflectionPad3D", "ReplicationPad1D", "ReplicationPad2D", "ReplicationPad3D",
            "CircularPad1D", "CircularPad2D", "CircularPad3D", "PairwiseDistance",
            "CosineSimilarity", "Unflatten"]


# ---------------------------------------------------------------- resampling layers
_VERSION_DEFAULT = object()   # a keyword whose default differs between Paddle versions


class Upsample(Layer):
    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=False,
                 align_mode=0, data_format=_VERSION_DEFAULT, name=None):
        super().__init__()
        if data_format is _VERSION_DEFAULT:   # (3.x's default None; 2.x's 'NCHW', in the repr)
            data_format = None if profiles.current().key == "3" else "NCHW"
        self.size, self.scale_factor, self.mode = size, scale_factor, mode.lower()
        self.align_corners, self.align_mode = align_corners, align_mode
        self.data_format, self.name = data_format, name

    def forward(self, x):
        return F.interpolate(x, self.size, self.scale_factor, self.mode, self.align_corners,
                             self.align_mode, self.data_format)

    def extra_repr(self):
        main = f"scale_factor={self.scale_factor}" if self.scale_factor is not None else \
            f"size={self.size}"
        name_str = f", name={self.name}" if self.name else ""
        return (f"{main}, mode={self.mode}, align_corners={self.align_corners}, "
                f"align_mode={self.align_mode}, data_format={self.data_format}{name_str}")


class UpsamplingNearest2D(Upsample):
    def __init__(self, size=None, scale_factor=None, data_format="NCHW", name=None):
        super().__init__(size, scale_factor, "nearest", False, 0, data_format, name)

    def extra_repr(self):
        main = f"scale_factor={self.scale_factor}" if self.scale_factor is not None else \
            f"size={self.size}"
        name_str = f", name={self.name}" if self.name else ""
        return f"{main}, data_format={self.data_format}{name_str}"


class UpsamplingBilinear2D(UpsamplingNearest2D):
    def __init__(self, size=None, scale_factor=None, data_format="NCHW", name=None):
        Upsample.__init__(self, size, scale_factor, "bilinear", True, 0, data_format, name)


class Bilinear(Layer):
    def __init__(self, in1_features, in2_features, out_features, weight_attr=None,
                 bias_attr=None, name=None):
        super().__init__()
        self._in1_features, self._in2_features = in1_features, in2_features
        self._out_features, self._name = out_features, name
        self._dtype = _default_dtype_name()
        self.weight = self.create_parameter([out_features, in1_features, in2_features],
                                            attr=weight_attr, dtype=self._dtype)
        self.bias = self.create_parameter([1, out_features], attr=bias_attr, dtype=self._dtype,
                                          is_bias=True)

    def forward(self, x1, x2):
        return F.bilinear(x1, x2, self.weight, self.bias)

    def extra_repr(self):
        name_str = f", name={self._name}" if self._name else ""
        return (f"in1_features={self._in1_features}, in2_features={self._in2_features}, "
                f"out_features={self._out_features}, dtype={self._dtype}{name_str}")


class Unfold(Layer):
    def __init__(self, kernel_sizes, dilations=1, paddings=0, strides=1, name=None):
        super().__init__()
        self.kernel_sizes, self.dilations = kernel_sizes, dilations
        self.paddings, self.strides, self.name = paddings, strides, name

    def forward(self, input):  # noqa: A002
        return F.unfold(input, self.kernel_sizes, self.strides, self.paddings, self.dilations)

    def extra_repr(self):
        name_str = f", name={self.name}" if self.name else ""
        return (f"kernel_size={self.kernel_sizes}, dilation={self.dilations}, "
                f"padding={self.paddings}, stride={self.strides}{name_str}")


class Fold(Layer):
    def __init__(self, output_sizes, kernel_sizes, dilations=1, paddings=0, strides=1,
                 name=None):
        super().__init__()
        self.output_sizes, self.kernel_sizes = output_sizes, kernel_sizes
        self.dilations, self.paddings, self.strides, self.name = (dilations, paddings, strides,
                                                                  name)

    def forward(self, input):  # noqa: A002
        return F.fold(input, self.output_sizes, self.kernel_sizes, self.strides, self.paddings,
                      self.dilations)

    def extra_repr(self):
        name_str = f", name={self.name}" if self.name else ""
        return (f"kernel_size={self.kernel_sizes}, dilation={self.dilations}, "
                f"padding={self.paddings}, stride={self.strides}{name_str}")


class _Shuffle(Layer):
    _fn = None
    _arg = "factor"

    def __init__(self, factor, data_format="NCHW", name=None):
        super().__init__()
        self._factor, self._data_format, self._name = factor, data_format, name

    def forward(self, x):
        return type(self)._fn(x, self._factor, self._data_format)

    def extra_repr(self):
        main = f"{self._arg}={self._factor}"
        if self._data_format != "NCHW":
            main += f", data_format={self._data_format}"
        if self._name is not None:
            main += f", name={self._name}"
        return main


class PixelShuffle(_Shuffle):
    _fn = staticmethod(F.pixel_shuffle)
    _arg = "upscale_factor"


class PixelUnshuffle(_Shuffle):
    _fn = staticmethod(F.pixel_unshuffle)
    _arg = "downscale_factor"


class ChannelShuffle(_Shuffle):
    _fn = staticmethod(F.channel_shuffle)
    _arg = "groups"


__all__ += ["Upsample", "UpsamplingNearest2D", "UpsamplingBilinear2D", "Bilinear", "Unfold",
            "Fold", "PixelShuffle", "PixelUnshuffle", "ChannelShuffle"]
