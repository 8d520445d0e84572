"""BatchNorm1D/2D/3D, LayerNorm and GroupNorm, printed as Paddle prints them.

A batch norm's running mean and variance are Parameters that do not train (``_mean``,
``_variance``: Paddle registers them as parameters, so they are in ``parameters()`` and the
state dict); training updates them with ``momentum`` (0.9: ``running * 0.9 + batch * 0.1``).
"""
from __future__ import annotations

import numbers

import numpy as np

from ... import libwarn
from .. import functional as F
from ..functional.norm import group_norm as _group_norm
from .conv import paddle_snake
from .layers import Layer

__all__ = ["BatchNorm", "BatchNorm1D", "BatchNorm2D", "BatchNorm3D", "LayerNorm", "GroupNorm",
           "LocalResponseNorm", "SpectralNorm"]


def _default_dtype():
    from ...tensor.creation import get_default_dtype

    dt = get_default_dtype()
    return "float32" if dt == "float16" else dt


class _BatchNormBase(Layer):
    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None,
                 bias_attr=None, data_format="NCHW", use_global_stats=None, name=None):
        super().__init__(name_scope=paddle_snake(type(self).__name__))
        from ... import ParamAttr
        from ..initializer import Constant

        self._num_features = num_features
        self._weight_attr = weight_attr
        self._bias_attr = bias_attr
        self._use_global_stats = use_global_stats
        self._dtype = _default_dtype()
        shape = [num_features]
        self.weight = None
        self.bias = None
        if weight_attr is not False:
            self.weight = self.create_parameter(attr=weight_attr, shape=shape, dtype=self._dtype,
                                                default_initializer=Constant(1.0))
        if bias_attr is not False:
            self.bias = self.create_parameter(attr=bias_attr, shape=shape, dtype=self._dtype,
                                              is_bias=True)
        mean_name = None if name is None else name + "_mean"
        var_name = None if name is None else name + "_variance"
        self._mean = self.create_parameter(
            dtype=self._dtype, shape=shape,
            attr=ParamAttr(name=mean_name, initializer=Constant(0.0), trainable=False))
        self._mean.stop_gradient = True
        self._variance = self.create_parameter(
            dtype=self._dtype, shape=shape,
            attr=ParamAttr(name=var_name, initializer=Constant(1.0), trainable=False))
        self._variance.stop_gradient = True
        self._data_format = data_format
        self._in_place = False
        self._momentum = momentum
        self._epsilon = epsilon
        self._fuse_with_relu = False
        self._name = name

    def _check_input_dim(self, input):  # noqa: A002
        raise NotImplementedError("BatchNorm Base error")

    def _check_data_format(self, input):  # noqa: A002
        raise NotImplementedError("BatchNorm Base data format error")

    def forward(self, input):  # noqa: A002
        self._check_data_format(self._data_format)
        self._check_input_dim(input)
        if self.training:
            libwarn.warn("bn_global_stats",
                         "When training, we now always track global mean and variance.")
        return F.batch_norm(input, self._mean, self._variance, weight=self.weight, bias=self.bias,
                            training=self.training, momentum=self._momentum,
                            epsilon=self._epsilon, data_format=self._data_format,
                            use_global_stats=self._use_global_stats)

    def extra_repr(self):
        s = (f"num_features={self._num_features}, momentum={self._momentum}, "
             f"epsilon={self._epsilon}")
        if self._data_format != "NCHW":
            s += f", data_format={self._data_format}"
        if self._name is not None:
            s += f", name={self._name}"
        return s


class BatchNorm1D(_BatchNormBase):
    """Batch norm over [N, C] or [N, C, L] (statistics per channel)."""

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None,
                 bias_attr=None, data_format="NCL", use_global_stats=None, name=None):
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format,
                         use_global_stats, name)

    def _check_data_format(self, input):  # noqa: A002
        if input in ("NCHW", "NC", "NCL"):
            self._data_format = "NCHW"
        elif input in ("NHWC", "NLC"):
            self._data_format = "NHWC"
        else:
            raise ValueError("expected NC , NCL, NLC or None for data_format input")

    def _check_input_dim(self, input):  # noqa: A002
        if input.data.ndim not in (2, 3):
            raise ValueError(f"expected 2D or 3D input (got {input.data.ndim}D input)")


class BatchNorm2D(_BatchNormBase):
    """Batch norm over [N, C, H, W] (statistics per channel)."""

    def _check_data_format(self, input):  # noqa: A002
        if input not in ("NCHW", "NHWC"):
            raise ValueError("expected NCHW or NHWC for data_format input")
        self._data_format = input

    def _check_input_dim(self, input):  # noqa: A002
        if input.data.ndim != 4:
            raise ValueError(f"expected 4D input (got {input.data.ndim}D input)")


class BatchNorm3D(_BatchNormBase):
    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None,
                 bias_attr=None, data_format="NCDHW", use_global_stats=None, name=None):
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format,
                         use_global_stats, name)

    def _check_data_format(self, input):  # noqa: A002
        if input in ("NCHW", "NCDHW"):
            self._data_format = "NCHW"
        elif input in ("NHWC", "NDHWC"):
            self._data_format = "NHWC"
        else:
            raise ValueError("expected NCDHW, NDHWC or None for data_format input")

    def _check_input_dim(self, input):  # noqa: A002
        if input.data.ndim != 5:
            raise ValueError(f"expected 5D input (got {input.data.ndim}D input)")


class LayerNorm(Layer):
    """Normalise over the trailing ``normalized_shape`` axes; weight (ones) and bias (zeros) are
    flat vectors of its size, as in Paddle."""

    def __init__(self, normalized_shape, epsilon=1e-05, weight_attr=None, bias_attr=None,
                 name=None, *, elementwise_affine=True, bias=True):
        super().__init__(name_scope=paddle_snake(type(self).__name__))
        from ..initializer import Constant

        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = [normalized_shape]
        self._normalized_shape = list(normalized_shape)
        self._epsilon = epsilon
        if not elementwise_affine:
            weight_attr = bias_attr = False
        elif not bias:
            bias_attr = False
        self._weight_attr = weight_attr
        self._bias_attr = bias_attr
        self._dtype = _default_dtype()
        shape = [int(np.prod(self._normalized_shape))]
        self.weight = None
        self.bias = None
        if weight_attr is not False:
            self.weight = self.create_parameter(attr=weight_attr, dtype=self._dtype, shape=shape,
                                                default_initializer=Constant(1.0))
        if bias_attr is not False:
            self.bias = self.create_parameter(attr=bias_attr, dtype=self._dtype, shape=shape,
                                              default_initializer=Constant(0.0), is_bias=True)
        self._name = name

    def forward(self, input):  # noqa: A002
        return F.layer_norm(input, normalized_shape=self._normalized_shape, weight=self.weight,
                            bias=self.bias, epsilon=self._epsilon)

    def extra_repr(self):
        return f"normalized_shape={self._normalized_shape}, epsilon={self._epsilon}"


class GroupNorm(Layer):
    """Normalise each sample over groups of channels (and all spatial positions)."""

    def __init__(self, num_groups, num_channels, epsilon=1e-05, weight_attr=None, bias_attr=None,
                 data_format="NCHW", name=None, *, affine=True):
        super().__init__(name_scope=paddle_snake(type(self).__name__))
        from ..initializer import Constant

        self._epsilon = epsilon
        self._num_channels = num_channels
        self._num_groups = num_groups
        self._dtype = _default_dtype()
        if data_format not in ("NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC"):
            raise ValueError("unsupported data layout:" + data_format)
        self._data_format = "NCHW" if data_format[1] == "C" else "NHWC"
        if not affine:
            weight_attr = bias_attr = False
        self._weight_attr = weight_attr
        self._bias_attr = bias_attr
        from ... import profiles

        shape = [self._num_channels]
        self.weight = None
        self.bias = None
        # 2.x: a switched-off weight or bias is still a parameter (ones / zeros, stop_gradient)
        keep = profiles.current().group_norm_kernel == "2.6"
        if weight_attr is not False or keep:
            self.weight = self.create_parameter(
                attr=weight_attr if weight_attr is not False else None, shape=shape,
                dtype=self._dtype, default_initializer=Constant(1.0))
            self.weight.stop_gradient = weight_attr is False
        if bias_attr is not False or keep:
            self.bias = self.create_parameter(
                attr=bias_attr if bias_attr is not False else None, shape=shape,
                dtype=self._dtype, default_initializer=Constant(0.0), is_bias=True)
            self.bias.stop_gradient = bias_attr is False
        self._name = name

    def forward(self, input):  # noqa: A002
        # F.group_norm is 3.x's name (2.6.2's nn.GroupNorm has no functional twin)
        return _group_norm(input, self._num_groups, epsilon=self._epsilon, weight=self.weight,
                           bias=self.bias, data_format=self._data_format)

    def extra_repr(self):
        return (f"num_groups={self._num_groups}, num_channels={self._num_channels}, "
                f"epsilon={self._epsilon}")


class LocalResponseNorm(Layer):
    """``F.local_response_norm`` as a layer (no parameters)."""

    def __init__(self, size, alpha=0.0001, beta=0.75, k=1.0, data_format="NCHW", name=None):
        super().__init__(name_scope=paddle_snake(type(self).__name__))
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k
        self.data_format = data_format
        self.name = name

    def forward(self, input):  # noqa: A002
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k,
                                     self.data_format, self.name)

    def extra_repr(self):
        main_str = f"size={self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
        if self.data_format != "NCHW":
            main_str += f", data_format={self.data_format}"
        if self.name is not None:
            main_str += f", name={self.name}"
        return main_str


class BatchNorm(Layer):
    """The legacy ``paddle.nn.BatchNorm(num_channels, act=None, is_test=False, ...)``: the same
    batch_norm kernel as BatchNorm1D/2D/3D on any rank, running statistics updated in training,
    an optional activation after (``act='relu'`` ...). Prints as Paddle's: ``BatchNorm()``."""

    def __init__(self, num_channels, act=None, is_test=False, momentum=0.9, epsilon=1e-05,
                 param_attr=None, bias_attr=None, dtype="float32", data_layout="NCHW",
                 in_place=False, moving_mean_name=None, moving_variance_name=None,
                 do_model_average_for_mean_and_var=True, use_global_stats=False,
                 trainable_statistics=False):
        super().__init__(name_scope=paddle_snake(type(self).__name__))
        from ... import ParamAttr
        from ..initializer import Constant

        self._param_attr = param_attr
        self._bias_attr = bias_attr
        self._act = act
        self._dtype = "float32" if dtype == "float16" else dtype
        shape = [num_channels]
        self.weight = None if param_attr is False else self.create_parameter(
            attr=param_attr, shape=shape, dtype=self._dtype, default_initializer=Constant(1.0))
        self.bias = None if bias_attr is False else self.create_parameter(
            attr=bias_attr, shape=shape, dtype=self._dtype, is_bias=True)
        self._mean = self.create_parameter(
            attr=ParamAttr(name=moving_mean_name, initializer=Constant(0.0), trainable=False),
            shape=shape, dtype=self._dtype)
        self._mean.stop_gradient = True
        self._variance = self.create_parameter(
            attr=ParamAttr(name=moving_variance_name, initializer=Constant(1.0),
                           trainable=False),
            shape=shape, dtype=self._dtype)
        self._variance.stop_gradient = True
        self._in_place = in_place
        self._data_layout = data_layout
        self._momentum = momentum
        self._epsilon = epsilon
        self._is_test = is_test
        self._fuse_with_relu = False
        self._use_global_stats = use_global_stats
        self._trainable_statistics = trainable_statistics
        self.training = not is_test

    def forward(self, input):  # noqa: A002
        out = F.batch_norm(input, self._mean, self._variance, weight=self.weight, bias=self.bias,
                           training=self.training, momentum=self._momentum,
                           epsilon=self._epsilon, data_format=self._data_layout,
                           # the kernel uses the running statistics whenever it is not training
                           use_global_stats=True if self._use_global_stats else None)
        if self._act is None:
            return out
        act = getattr(F, self._act, None)
        if act is None:
            raise ValueError(f"The activation {self._act!r} of BatchNorm is not supported")
        return act(out)


# SpectralNormInferMeta's checks (phi/infermeta/ternary.cc): (condition, message, hint, line
# in 3.3.1, line in 2.6.2), measured on both
_SN_CHECKS = (
    (lambda r, d, p: r >= 2, "The rank of Input(Weights) should be greater equal than 2, but "
     "received Weight rank({r})", "rank_weight >= 2, but received rank_weight:{r} < 2:2",
     2865, 1308),
    (lambda r, d, p: r <= 5, "The rank of Input(Weights) should be less equal than 5, but "
     "received Weight rank({r})", "rank_weight <= 5, but received rank_weight:{r} > 5:5",
     2871, 1314),
    (lambda r, d, p: d in (0, 1), "Attr(dim) can only be 0 or 1, but received {d}",
     "dim_valid == true, but received dim_valid:0 != true:1", 2879, 1320),
    (lambda r, d, p: p >= 0, "Attr(power_iters) should be greater equal then 0, but received {p}",
     "power_iters >= 0, but received power_iters:{p} < 0:0", 2883, 1326),
)


def _spectral_norm_checks(rank, dim, power_iters):
    from ...profiles import current

    for ok, message, hint, line3, line26 in _SN_CHECKS:
        if not ok(rank, dim, power_iters):
            fill = {"r": rank, "d": dim, "p": power_iters}
            line = line3 if current().api3 else line26
            raise ValueError(f"(InvalidArgument) {message.format(**fill)}\n  [Hint: Expected "
                             f"{hint.format(**fill)}.] (at /paddle/paddle/phi/infermeta/"
                             f"ternary.cc:{line})\n")


class SpectralNorm(Layer):
    """``SpectralNorm(weight_shape, dim=0, power_iters=1, eps=1e-12)``: ``forward(weight)`` gives
    ``weight / sigma``, sigma the largest singular value of the weight seen as a matrix (axis
    ``dim`` first), estimated by ``power_iters`` steps of power iteration from the buffers
    ``weight_u`` [h] and ``weight_v`` [w] (standard-normal at creation). Paddle's kernel, its
    gradient kernel's formula included, and the buffers are not updated
    (``engine/ops/spectral_norm``)."""

    def __init__(self, weight_shape, dim=0, power_iters=1, eps=1e-12, dtype="float32"):
        super().__init__(name_scope=paddle_snake(type(self).__name__))
        from ... import ParamAttr
        from ..initializer import Normal

        self._power_iters = power_iters
        self._eps = eps
        self._dim = dim
        self._dtype = dtype
        self._weight_shape = list(weight_shape)
        assert np.prod(self._weight_shape) > 0, \
            "Any dimension of `weight_shape` cannot be equal to 0."
        assert dim < len(self._weight_shape), (
            "The input `dim` should be less than the length of `weight_shape`, but received "
            f"dim={dim}")
        h = self._weight_shape[self._dim]
        w = int(np.prod(self._weight_shape)) // h
        self.weight_u = self.create_parameter(attr=ParamAttr(), shape=[h], dtype=dtype,
                                              default_initializer=Normal(0.0, 1.0))
        self.weight_u.stop_gradient = True
        self.weight_v = self.create_parameter(attr=ParamAttr(), shape=[w], dtype=dtype,
                                              default_initializer=Normal(0.0, 1.0))
        self.weight_v.stop_gradient = True

    def forward(self, x):
        from ....engine.ops.spectral_norm import spectral_norm

        _spectral_norm_checks(len(x.shape), self._dim, self._power_iters)
        return spectral_norm(x, self.weight_u, self.weight_v, self._dim, self._power_iters,
                             self._eps)
