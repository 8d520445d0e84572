"""``paddle.nn`` / ``paddle.nn.functional`` names lectures reach that the layer and functional
modules lacked (issue 28, found by ``tools/paddle_api_gaps.py``): Paddle 3's torch-style class
names (``nn.Conv2d`` is ``nn.Conv2D``, ``nn.Module`` is ``nn.Layer``, ``nn.ModuleList`` is
``nn.LayerList``), ``Maxout``, ``F.maxout``, ``F.logsigmoid``, ``F.pdist``, ``F.diag_embed``.

Served by the modules' ``__getattr__`` (``attribute``): a name whose ``since`` is "3" is an
AttributeError under a 2.x profile, as in real Paddle 2.6.2 (measured).
"""
from __future__ import annotations

import numpy as np

from .. import profiles
from ..utils import deprecated_api as _deprecated_api

# paddle.nn: name -> (since, the existing class's name)
NN_ALIASES = {n: ("3", n[:-1] + "D") for n in (
    "Conv1d", "Conv2d", "Conv3d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d",
    "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d", "CircularPad1d",
    "CircularPad2d", "CircularPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d",
    "LPPool1d", "LPPool2d", "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d",
    "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d", "UpsamplingBilinear2d",
    "UpsamplingNearest2d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d")}
NN_ALIASES.update({"MaxUnpool1d": ("3", "MaxUnPool1D"), "MaxUnpool2d": ("3", "MaxUnPool2D"),
                   "MaxUnpool3d": ("3", "MaxUnPool3D"), "Module": ("3", "Layer"),
                   "ModuleDict": ("3", "LayerDict"), "ModuleList": ("3", "LayerList"),
                   "HuberLoss": ("3", "SmoothL1Loss")})
# paddle.nn.functional: name -> (since, the existing function's name)
F_ALIASES = {"logsigmoid": ("3", "log_sigmoid")}


def _since_ok(since):
    return since != "3" or profiles.current().api3


def _nn_extra():
    out = {"Maxout": ("2.6", __getattr__("Maxout")), "Parameter": ("3", _parameter())}
    for name in ("InstanceNorm1D", "InstanceNorm2D", "InstanceNorm3D"):
        out[name] = ("2.6", __getattr__(name))
    out.update(_gaps().nn_names())
    return out


def _f_extra():
    return {"maxout": ("2.6", maxout), "pdist": ("3", pdist), "diag_embed": ("2.6", diag_embed),
            "instance_norm": ("2.6", instance_norm),
            "scaled_dot_product_attention": ("2.6", scaled_dot_product_attention),
            "thresholded_relu_": ("2.6", thresholded_relu_), "dropout1d": ("3", dropout1d),
            "rms_norm": ("3", rms_norm), **_gaps().f_names()}


def _gaps():
    import importlib  # (not "from . import": that asks paddle.nn's __getattr__, which asks here)

    return importlib.import_module("gradrepl.paddle.nn.gaps")


def _parameter():
    from ..core import Parameter

    return Parameter


def attribute(module, qualname, name):
    """The breadth name ``name`` of ``module`` (paddle.nn or paddle.nn.functional), or the
    AttributeError real Paddle raises."""
    aliases, extra = (NN_ALIASES, _nn_extra) if qualname == "paddle.nn" else (F_ALIASES, _f_extra)
    if name in aliases:
        since, target = aliases[name]
        if _since_ok(since):
            return getattr(module, target)
    else:
        since, value = extra().get(name, ("", None))
        if value is not None and _since_ok(since):
            return value
    from ..not_emulated import error

    raise error(qualname, name)


def names(qualname):
    """The breadth names the module has under the current profile (for ``dir()``)."""
    aliases, extra = (NN_ALIASES, _nn_extra) if qualname == "paddle.nn" else (F_ALIASES, _f_extra)
    out = [n for n, (since, _) in aliases.items() if _since_ok(since)]
    return out + [n for n, (since, _) in extra().items() if _since_ok(since)]


# ------------------------------------------------------------------------------ functions
def _paddle():
    import sys

    return sys.modules[__name__.rsplit(".", 2)[0]]


# where maxout's two checks sit in Paddle's source (axis, groups), by profile.error_wording
# and how the axis message spells "received" (2.6.2: "recevied")
_MAXOUT_LINES = {"3": (2824, 2838, "received"), "2.6": (2240, 2262, "recevied")}


def maxout(x, groups, axis=1, name=None):
    """The largest of each ``groups`` consecutive channels along axis (channels / groups
    remain); the gradient goes to the first largest of each group, as Paddle's maxout kernel."""
    paddle = _paddle()
    if axis not in (1, -1, 3):
        raise ValueError(
            f"(InvalidArgument) axis only supported 1, -1 or 3, but "
            f"{_MAXOUT_LINES[profiles.current().error_wording][2]} axis is: {axis}.\n"
            f"  [Hint: Expected axis == 1 || axis == -1 || axis == 3 == true, but received axis "
            f"== 1 || axis == -1 || axis == 3:0 != true:1.] (at /paddle/paddle/phi/infermeta/"
            f"unary.cc:{_MAXOUT_LINES[profiles.current().error_wording][0]})\n")
    if axis == -1:
        axis = 3
    shape = list(x.shape)
    if shape[axis] % groups != 0:
        raise ValueError(
            f"(InvalidArgument) The number of input channels for Op(maxout) should be divisible "
            f"by Attr(groups). But received: the input's channels is [{shape[axis]}], the shape "
            f"of input is [{', '.join(map(str, shape))}], the Attr(groups) is [{groups}], the "
            f"Attr(axis) is [{axis}]. The error may come from wrong Attr(groups) or Attr(axis) "
            f"setting.\n  [Hint: Expected in_x_dims[axis] % groups == 0, but received "
            f"in_x_dims[axis] % groups:{shape[axis] % groups} != 0:0.] (at /paddle/paddle/phi/"
            f"infermeta/unary.cc:{_MAXOUT_LINES[profiles.current().error_wording][1]})\n")
    grouped = shape[:axis] + [shape[axis] // groups, groups] + shape[axis + 1:]
    v = paddle.reshape(x, grouped)
    idx = paddle.argmax(v, axis=axis + 1, keepdim=True)
    return paddle.squeeze(paddle.take_along_axis(v, idx, axis=axis + 1), axis=axis + 1)


def pdist(x, p=2.0, name=None):
    """The p-norm distances between the rows of a 2-D x, the upper triangle row by row:
    n * (n - 1) / 2 values."""
    paddle = _paddle()
    if x.ndim != 2:
        raise AssertionError("The x must be 2-dimensional")
    n = x.shape[0]
    rows, cols = [], []
    for i in range(n):
        for j in range(i + 1, n):
            rows.append(i)
            cols.append(j)
    if not rows:
        return paddle.zeros([0], dtype=x.dtype)
    a = paddle.index_select(x, paddle.to_tensor(rows, dtype="int64"), axis=0)
    b = paddle.index_select(x, paddle.to_tensor(cols, dtype="int64"), axis=0)
    return paddle.linalg.norm(a - b, p=p, axis=-1)


def rms_norm(input, normalized_shape, weight=None, eps=1e-05, name=None):  # noqa: A002
    """Paddle 3.3.1's CPU build has no rms_norm kernel (a GPU one only): the same error."""
    raise RuntimeError("(NotFound) The kernel `rms_norm` is not registered.\n  [Hint: Expected "
                       "iter != kernels_.end(), but received iter == kernels_.end().] (at "
                       "/paddle/paddle/phi/core/kernel_factory.cc:273)\n")


def dropout1d(input, p=0.5, training=True, inplace=False):  # noqa: A002
    """Whole channels of a [N, C, L] (or [C, L]) input zeroed with probability p, the rest
    scaled by 1 / (1 - p): ``F.dropout(input, p, axis=1)``, as Paddle 3 composes it."""
    import warnings

    from . import functional as F

    if p < 0 or p > 1:
        raise ValueError(f"dropout probability must be in [0, 1], got {p}")
    ndim = input.ndim
    if ndim not in [2, 3]:
        raise RuntimeError(f"dropout1d expects 2D or 3D input, got {ndim}D")
    if inplace:
        warnings.warn("inplace=True is currently not supported in dropout1d and will be "
                      "ignored. This parameter is reserved for future implementation.")
    squeeze = ndim == 2
    if squeeze:
        input = input.unsqueeze(0)  # noqa: A001
    out = F.dropout(input, p=p, axis=1, training=training)
    return out.squeeze(0) if squeeze else out


def thresholded_relu_(x, threshold=1.0, value=0.0, name=None):
    """``F.thresholded_relu`` stored back into x (returned). Paddle 2.6.2's in-place kernel
    multiplies by 0 (-0. for a negative x), 3.3.1's writes ``value``."""
    from ..tensor.indexing import inplace
    from . import functional as F

    if profiles.current().api3:
        return inplace(x, lambda v: F.thresholded_relu(v, threshold, value))
    paddle = _paddle()
    keep = paddle.cast(x > threshold, x.dtype)
    return inplace(x, lambda v: v * keep)


@_deprecated_api("paddle.nn.functional.extension", since="2.5.2", update_to="paddle.diag_embed",
                 level=1, reason="diag_embed in paddle.nn.functional will be removed in future")
def diag_embed(input, offset=0, dim1=-2, dim2=-1):  # noqa: A002
    """``paddle.diag_embed`` under ``paddle.nn.functional``."""
    return _paddle().diag_embed(input, offset, dim1, dim2)


# --------------------------------------------------------------------------------- layers
def _layer_base():
    from .layer.layers import Layer

    return Layer


def _make_maxout():
    Layer = _layer_base()

    class Maxout(Layer):
        """``paddle.nn.Maxout(groups, axis=1)``: the layer of ``F.maxout``."""

        def __init__(self, groups, axis=1, name=None):
            super().__init__()
            self._groups = groups
            self._axis = axis
            self._name = name

        def forward(self, x):
            return maxout(x, self._groups, self._axis, self._name)

        def extra_repr(self):
            name_str = f", name={self._name}" if self._name else ""
            return f"groups={self._groups}, axis={self._axis}{name_str}"

    Maxout.__module__ = "paddle.nn.layer.activation"
    return Maxout


def instance_norm(x, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.9, eps=1e-05, data_format="NCHW", name=None):
    """Each (sample, channel) of x normalised over its positions (Paddle's CPU kernel, bit for
    bit: ``engine/ops/paddle_breadth.py``), then scaled by weight and shifted by bias. In dynamic
    mode Paddle uses the input's statistics whatever running_mean / use_input_stats say."""
    from ...engine.ops import paddle_breadth as ops
    from ..core import Tensor

    if data_format not in ("NC", "NCL", "NCHW", "NCDHW"):
        raise ValueError(f"data_format must be one of 'NC', 'NCL', 'NCHW', 'NCDHW', but got "
                         f"{data_format}")
    c = x.shape[1]
    dt = x.data.dtype
    scale = weight if weight is not None else Tensor(np.ones([c], dt))
    shift = bias if bias is not None else Tensor(np.zeros([c], dt))
    return ops.instance_norm(x, scale, shift, eps)


def _math_attention(query, key, value, mask, dropout_p, causal, training, scale, triangle):
    """Paddle's "math" attention: [b, s, h, d] inputs to [b, h, s, d], softmax(q * scale @ k^T
    (+ mask)) @ v, back to [b, s, h, d]. ``triangle``: how a causal mask is made ("add": -1e4
    above the diagonal, added; "fused": 2.6.2's GPU-only fused kernel, an error on the CPU)."""
    paddle = _paddle()
    from . import functional as F

    head_dim = query.shape[-1]
    q = paddle.transpose(query, [0, 2, 1, 3])
    k = paddle.transpose(key, [0, 2, 1, 3])
    v = paddle.transpose(value, [0, 2, 1, 3])
    scale = scale or (head_dim ** -0.5 if head_dim != 0 else 1.0)
    product = paddle.matmul(q * scale, k, transpose_y=True)
    if not causal:
        if mask is not None:
            product = product + mask
    elif triangle == "fused":
        raise NotImplementedError(
            "(Unimplemented) Softmax mask fuse op only supports GPU now.\n  [Hint: Expected "
            "is_gpu_place == true, but received is_gpu_place:0 != true:1.] (at /paddle/paddle/"
            "phi/kernels/fusion/cpu/fused_softmax_mask_upper_triangle_kernel.cc:30)\n")
    else:
        upper = paddle.triu(paddle.full_like(product, -1e4), diagonal=1)
        upper.stop_gradient = True
        product = product + upper
    weights = F.softmax(product)
    if dropout_p > 0.0:
        weights = F.dropout(weights, dropout_p, training=training, mode="upscale_in_train")
    return paddle.transpose(paddle.matmul(weights, v), [0, 2, 1, 3])


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, training=True, backend=None, scale=None,
                                 enable_gqa=True, name=None):
    """Attention over [batch, seq_len, num_heads, head_dim] inputs (3-D: one batch), as
    Paddle computes it on the CPU (its "math" path: ``_math_attention``). A bool mask keeps
    True positions (others -inf); keys and values with fewer heads are repeated (GQA).
    Paddle 2.6.2 on the CPU: no mask or causal mode (the flash / fused kernels are GPU only)."""
    paddle = _paddle()
    api3 = profiles.current().api3
    if not api3 and attn_mask is not None:
        raise RuntimeError("(NotFound) The kernel `flash_attn` is not registered.\n  [Hint: "
                           "Expected iter != kernels_.end(), but received iter == "
                           "kernels_.end().] (at /paddle/paddle/phi/core/kernel_factory.cc:225)"
                           "\n")
    batched = query.ndim == 4
    if not batched and not api3:  # 2.6.2 reads query.shape[3]
        raise IndexError("list index out of range")
    if not batched:
        query, key, value = (paddle.unsqueeze(t, 0) for t in (query, key, value))
    k_heads, q_heads, v_heads = key.shape[2], query.shape[2], value.shape[2]
    if enable_gqa:
        assert k_heads == 0 or q_heads % k_heads == 0, (
            f"The number of groups in query({q_heads}) must be divisible by the number of "
            f"groups in key({k_heads}) if GQA enabled.")
        assert k_heads == v_heads, (
            f"The number of groups in key({k_heads}) must be equal to the number of groups in "
            f"value({v_heads}) if GQA enabled.")
    else:
        assert q_heads == k_heads == v_heads, (
            f"The number of groups in query({q_heads}) must be equal to the number of groups "
            f"in key({k_heads}) and the number of groups in value({v_heads}) if GQA disabled.")
    if attn_mask is not None and attn_mask.dtype == paddle.bool:
        attn_mask = paddle.where(attn_mask, paddle.to_tensor(0.0, dtype=query.dtype),
                                 paddle.to_tensor(-float("inf"), dtype=query.dtype))
    repeats = q_heads // k_heads if k_heads != 0 else 1
    if repeats != 1:
        key, value = (paddle.flatten(paddle.unsqueeze(t, 3).expand(
            [-1, -1, -1, repeats, -1]), 2, 3) for t in (key, value))
    out = _math_attention(query, key, value, attn_mask, dropout_p, is_causal, training, scale,
                          "add" if api3 else "fused")
    return out if batched else paddle.squeeze(out, axis=0)


def _make_instance_norm(dims):
    Layer = _layer_base()

    class _InstanceNorm(Layer):
        def __init__(self, num_features, epsilon=1e-05, momentum=0.9, weight_attr=None,
                     bias_attr=None, data_format="NCHW", name=None):
            super().__init__()
            from .initializer import Constant

            if weight_attr is False or bias_attr is False:
                assert weight_attr == bias_attr, ("weight_attr and bias_attr must be set to "
                                                  "False at the same time in InstanceNorm")
            self._epsilon = epsilon
            self._weight_attr = weight_attr
            self._bias_attr = bias_attr
            self._num_features = num_features
            if weight_attr is not False and bias_attr is not False:
                self.scale = self.create_parameter(
                    attr=weight_attr, shape=[num_features],
                    default_initializer=Constant(1.0), is_bias=False)
                self.bias = self.create_parameter(
                    attr=bias_attr, shape=[num_features],
                    default_initializer=Constant(0.0), is_bias=True)
            else:
                self.scale = None
                self.bias = None

        def forward(self, input):  # noqa: A002
            if len(input.shape) not in dims[1]:
                raise ValueError(dims[2].format(len(input.shape)))
            return instance_norm(input, weight=self.scale, bias=self.bias, eps=self._epsilon)

        def extra_repr(self):
            return f"num_features={self._num_features}, epsilon={self._epsilon}"

    _InstanceNorm.__name__ = _InstanceNorm.__qualname__ = dims[0]
    _InstanceNorm.__module__ = "paddle.nn.layer.norm"
    return _InstanceNorm


# name -> (the input ranks it takes, the ValueError's text)
_INSTANCE_NORMS = {
    "InstanceNorm1D": ((2, 3), "expected 2D or 3D input (got {}D input)"),
    "InstanceNorm2D": ((4,), "expected 4D input (got {}D input)"),
    "InstanceNorm3D": ((5,), "expected 5D input (got {}D input)"),
}
_MADE = {}


def __getattr__(name):
    if name not in _MADE:
        if name == "Maxout":
            _MADE[name] = _make_maxout()
        elif name in _INSTANCE_NORMS:
            ranks, text = _INSTANCE_NORMS[name]
            _MADE[name] = _make_instance_norm((name, ranks, text))
        else:
            raise AttributeError(name)
    return _MADE[name]
