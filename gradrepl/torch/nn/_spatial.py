"""``torch.nn.functional``'s image ops on the engine's convolution, pooling and batch-norm
kernels (``engine/ops/conv.py``, the ones the Paddle dialect runs): ``conv2d`` (one
ConvolutionBackward0 node, bias included, as torch records it), ``max_pool2d``,
``avg_pool2d``, the adaptive pools and ``batch_norm`` (NativeBatchNormBackward0)."""
from __future__ import annotations

from .._bfloat16 import AUTOCAST as _bf16_autocast, filled as _bf16_filled, lower as _bf16_lower

import copy

import numpy as np

from ...engine.grad_mode import is_grad_enabled
from ...engine.ops import conv as C
from ...engine.ops import group_norm as GN_OPS
from ...engine.ops.conv_family import geom_reader
from ...engine.registry import apply, exact_first_order, needs_grad
from .. import _norm_kernels as K
from .. import _ops
from . import _double_backward, _onednn_conv, _onednn_convT
from .._kernels import torch_sum
from .._base import raw
from .._tensor import Tensor

_wrap = Tensor._wrap


def _pair(v, name="kernel_size"):
    if isinstance(v, (list, tuple)):
        if len(v) == 1:
            return int(v[0]), int(v[0])
        return int(v[0]), int(v[1])
    return int(v), int(v)


def _named(base, name, saves="all", forward=None, vjp=None, n_in=None):
    op = copy.copy(base)
    op.torch_name = name
    op.torch_saves = saves
    op.torch_inputs = n_in
    op.reads_inputs = op.saves_inputs or op.reads_inputs  # (see _ops.top)
    op.saves_inputs = False
    if forward is not None:
        op.forward = forward
    if vjp is not None:
        op.vjp = vjp
    return op


# ------------------------------------------------------------------------------ conv2d
_OLD_LIMIT = C.with_chain_limit(C._CHAIN_LIMIT)   # (torch's recorded conv bits: see there)


@_OLD_LIMIT
def _conv_bias_fwd(x, w, b, **geom):
    y = _onednn_conv.try_conv(x, w, b, 2, False, geom["stride"], geom["padding"],
                              geom["dilation"], geom.get("groups", 1))
    if y is not None:  # (torch's oneDNN kernel here: its summation order)
        return y
    y = C._conv2d_fwd(x, w, **geom)
    return y + b.reshape(1, -1, 1, 1).astype(y.dtype)


def _conv_fwd(x, w, **geom):
    y = _onednn_conv.try_conv(x, w, None, 2, False, geom["stride"], geom["padding"],
                              geom["dilation"], geom.get("groups", 1))
    return y if y is not None else C.CONV2D.forward(x, w, **geom)


_GEOM = geom_reader(2)


@exact_first_order
@_OLD_LIMIT
def _conv_bias_vjp(n, g):
    from ...engine.ops.reduce import sum as rsum

    if is_grad_enabled():   # (create_graph: torch's ConvolutionBackwardBackward0 node)
        out = _double_backward.conv2d_first_order(n, g, _conv_bias_vjp)
        if out is not None:
            return out
    x, w, _b = n.inputs
    geom = _GEOM(n.attrs)
    xs, ws = n.in_meta[0][0], n.in_meta[1][0]
    ex, ew, eb = _onednn_bwd(n, g, geom)
    dx = ex if ex is not None else C.conv2d_transpose(g, w, out_hw=xs[2:], **geom) \
        if needs_grad(n, 0) else None
    dw = ew if ew is not None else C.conv2d_grad_filter(x, g, ksize=ws[2:], **geom) \
        if needs_grad(n, 1) else None
    db = eb if eb is not None else rsum(g, (0, 2, 3)) if needs_grad(n, 2) else None
    return dx, dw, db


def _onednn_bwd(n, g, geom):
    """The gradients torch's oneDNN kernels give here (float32, no create_graph), each None
    where gradrepl's general path computes it (``_onednn_conv.try_backward``)."""
    if is_grad_enabled():
        return None, None, None
    x, w = n.inputs[0].data, n.inputs[1].data
    if x.ndim != 4 or x.size == 0:
        return None, None, None
    want = tuple(needs_grad(n, i) for i in range(len(n.inputs)))
    out = _onednn_conv.try_backward(x, w, g.data, 2, geom["stride"], geom["padding"],
                                    geom["dilation"], geom.get("groups", 1), want)
    if out[0] is None and want[0]:  # (strided: brgconv_strided's backward-data)
        out = (_onednn_convT.conv_input_grad(x.shape, w, g.data, 2, geom["stride"],
                                             geom["padding"], geom["dilation"],
                                             geom.get("groups", 1)),) + tuple(out[1:])
    wrap = type(g)._wrap
    return tuple(None if a is None or i >= len(want) or not want[i] else wrap(a, True)
                 for i, a in enumerate(out))


@exact_first_order
def _conv_nobias_vjp(n, g):
    if is_grad_enabled():   # (create_graph: torch's ConvolutionBackwardBackward0 node)
        out = _double_backward.conv2d_first_order(n, g, _conv_nobias_vjp)
        if out is not None:
            return out
    ex, ew, _ = _onednn_bwd(n, g, _GEOM(n.attrs))
    if ex is None and ew is None:
        return C.CONV2D.vjp(n, g)
    dx, dw = C.CONV2D.vjp(n, g) if (ex is None and needs_grad(n, 0)) or (
        ew is None and needs_grad(n, 1)) else (None, None)
    return (ex if ex is not None else dx), (ew if ew is not None else dw)


CONV = _named(C.CONV2D, "ConvolutionBackward0", forward=_conv_fwd, vjp=_conv_nobias_vjp)
CONV_BIAS = _named(C.CONV2D, "ConvolutionBackward0", forward=_conv_bias_fwd,
                   vjp=_conv_bias_vjp)
CONV_BIAS.diff_inputs = None


def _check_conv(a, w, groups, bias):
    if a.ndim not in (3, 4):
        raise RuntimeError(f"Expected 3D (unbatched) or 4D (batched) input to conv2d, but got "
                           f"input of size: {list(a.shape)}")
    if a.shape[-3] != w.shape[1] * groups:
        raise RuntimeError(
            f"Given groups={groups}, weight of size {list(w.shape)}, expected input"
            f"{list(a.shape)} to have {w.shape[1] * groups} channels, but got {a.shape[-3]} "
            "channels instead")
    if a.dtype != w.dtype or (bias is not None and raw(bias).dtype != a.dtype):
        raise RuntimeError(f"Input type ({_legacy(a)}) and weight type ({_legacy(w)}) should "
                           "be the same or input should be a MKLDNN tensor and weight is a "
                           "dense tensor")


def check_kernel_fits(sizes, kernel, pads, dilation):
    """ATen's check_shape_forward: each padded input extent (``pads``: (before, after) pairs)
    holds the dilated kernel."""
    padded = [n + a + b for n, (a, b) in zip(sizes, pads)]
    dilated = [d * (k - 1) + 1 for k, d in zip(kernel, dilation)]
    if any(p < k for p, k in zip(padded, dilated)):
        raise RuntimeError(f"Calculated padded input size per channel: "
                           f"({' x '.join(map(str, padded))}). Kernel size: "
                           f"({' x '.join(map(str, dilated))}). Kernel size can't be greater "
                           "than actual input size")


def _legacy(a):
    from .. import _dtypes

    return f"torch.{_dtypes.from_np(a.dtype).legacy}Tensor"


def _same_padding(k, dilation):
    pads = []
    for kk, d in zip(k, dilation):
        total = d * (kk - 1)
        pads += [total // 2, total - total // 2]
    return tuple(pads)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):  # noqa: A002
    """2-D cross-correlation of ``input`` (N, C, H, W) with ``weight`` (O, C/groups, kH, kW)."""
    if _bf16_autocast[0] is not None:
        input, weight, bias = _bf16_lower(input, weight, bias)  # noqa: A001
    a, w = raw(input), raw(weight)
    _check_conv(a, w, groups, bias)
    unbatched = a.ndim == 3
    if unbatched:
        input = _ops.unsqueeze(input, 0)  # noqa: A001
    stride, dilation = _pair(stride), _pair(dilation)
    if isinstance(padding, str):
        if padding == "valid":
            pads = (0, 0, 0, 0)
        elif padding == "same":
            if stride != (1, 1):
                raise RuntimeError("padding='same' is not supported for strided convolutions")
            pads = _same_padding(w.shape[2:], dilation)
        else:
            raise RuntimeError(f"Invalid padding string: '{padding}'")
    else:
        ph, pw = _pair(padding)
        pads = (ph, ph, pw, pw)
    check_kernel_fits(raw(input).shape[2:], w.shape[2:], (pads[:2], pads[2:]), dilation)
    attrs = {"stride": stride, "padding": pads, "dilation": dilation, "groups": int(groups)}
    if bias is None:
        out = apply(CONV, (input, weight), attrs)
    else:
        out = apply(CONV_BIAS, (input, weight, bias), attrs)
    return _ops.squeeze(out, 0) if unbatched else out


# ------------------------------------------------------------------------------ pooling
MAXPOOL = _named(C.POOL2D, "MaxPool2DWithIndicesBackward0", "in0")
AVGPOOL = _named(C.POOL2D, "AvgPool2DBackward0", "in0")
AD_AVGPOOL = _named(C.POOL2D, "AdaptiveAvgPool2DBackward0", "in0")
AD_MAXPOOL = _named(C.POOL2D, "AdaptiveMaxPool2DBackward0", "in0")


def _pool(op, input, attrs):  # noqa: A002
    a = raw(input)
    if a.ndim not in (3, 4):
        raise RuntimeError(f"non-empty 3D or 4D (batch mode) tensor expected for input, but got "
                           f"{list(a.shape)}")
    if a.ndim == 3:
        return _ops.squeeze(apply(op, (_ops.unsqueeze(input, 0),), attrs), 0)
    return apply(op, (input,), attrs)


def _check_pad(k, p):
    if p[0] > k[0] // 2 or p[1] > k[1] // 2:
        raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                           f"pad={p[0] if p[0] > k[0] // 2 else p[1]}, kernel_size="
                           f"{k[0] if p[0] > k[0] // 2 else k[1]} and dilation=1")


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1,  # noqa: A002
               ceil_mode=False, return_indices=False):
    """Max over each (kernel_size) window of the last two dims."""
    k = _pair(kernel_size)
    s = k if stride is None or (isinstance(stride, (list, tuple)) and not stride) \
        else _pair(stride)
    p = _pair(padding)
    if _pair(dilation) != (1, 1):
        raise NotImplementedError("max_pool2d with dilation > 1 is not supported by gradrepl")
    if return_indices:
        raise NotImplementedError("max_pool2d(return_indices=True) is not supported by gradrepl")
    _check_pad(k, p)
    attrs = C.pool_attrs(k, s, (p[0], p[0], p[1], p[1]), ceil_mode, True, False, "max")
    attrs["ceil_mode"] = ceil_rule(ceil_mode)
    return _pool(MAXPOOL, input, attrs)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,  # noqa: A002
               count_include_pad=True, divisor_override=None):
    """Mean over each window; ``count_include_pad`` counts the zero padding in the mean."""
    k = _pair(kernel_size)
    s = k if stride is None or (isinstance(stride, (list, tuple)) and not stride) \
        else _pair(stride)
    p = _pair(padding)
    _check_pad(k, p)
    attrs = C.pool_attrs(k, s, (p[0], p[0], p[1], p[1]), ceil_mode, not count_include_pad,
                         False, "avg")
    # ATen: sum / divide_factor (divisor_override when given), the gradient grad / divide_factor
    attrs.update(grad_divides=True, divisor_override=_divisor(divisor_override),
                 ceil_mode=ceil_rule(ceil_mode))
    return _pool(AVGPOOL, input, attrs)


def ceil_rule(ceil_mode):
    """torch's ceil_mode: rounding up with the last window starting inside the input."""
    from ...engine.ops.pooling import CEIL_IN_INPUT
    return CEIL_IN_INPUT if ceil_mode else False


def _divisor(divisor_override):
    if divisor_override is None:
        return None
    if divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    return int(divisor_override)


def _adaptive_size(output_size, a):
    o = output_size if isinstance(output_size, (list, tuple)) else (output_size, output_size)
    return tuple(a.shape[-2 + i] if v is None else int(v) for i, v in enumerate(o))


def adaptive_avg_pool2d(input, output_size):  # noqa: A002
    """Mean pooling to an (oH, oW) output; output 1 x 1 is a mean over H and W (MeanBackward1)."""
    a = raw(input)
    o = _adaptive_size(output_size, a)
    if o == (1, 1):
        return _ops.mean(input, (-1, -2), keepdim=True)
    from ._resample import adaptive_avg_pool  # torch's own kernels (float32/float64)

    r = adaptive_avg_pool(input, o)
    if r is not None:
        return r
    return _pool(AD_AVGPOOL, input, C.pool_attrs(o, adaptive=True, pooling_type="avg"))


def adaptive_max_pool2d(input, output_size, return_indices=False):  # noqa: A002
    """torch's kernel (``_pool_more._adaptive_max``): the backward adds each output's gradient
    at its argmax in output order (the engine's pool gradient added overlapping windows'
    contributions in another order)."""
    from ._pool_more import _adaptive_max

    a = raw(input)
    if a.ndim < 3:   # (torch's checks and messages, in its order)
        raise ValueError("Input dimension should be at least 3")
    if a.ndim > 4:
        raise RuntimeError(f"adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: "
                           f"{list(a.shape)}")
    for d in range(a.ndim - 3, a.ndim):
        if a.shape[d] == 0:
            raise RuntimeError(f"adaptive_max_pool2d(): Expected input to have non-zero size "
                               f"for non-batch dimensions, but input has sizes {list(a.shape)} "
                               f"with dimension {d} being empty")
    return _adaptive_max(2, input, output_size, return_indices)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1,  # noqa: A002
               ceil_mode=False, return_indices=False):
    k = _pair(kernel_size)[0]
    s = k if stride is None else _pair(stride)[0]
    x = _ops.unsqueeze(input, -2)
    return _ops.squeeze(max_pool2d(x, (1, k), (1, s), (0, _pair(padding)[0]), dilation,
                                   ceil_mode), -2)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,  # noqa: A002
               count_include_pad=True):
    k = _pair(kernel_size)[0]
    s = k if stride is None else _pair(stride)[0]
    x = _ops.unsqueeze(input, -2)
    return _ops.squeeze(avg_pool2d(x, (1, k), (1, s), (0, _pair(padding)[0]), ceil_mode,
                                   count_include_pad), -2)


# ------------------------------------------------------------------------------ batch norm
def _bn_count(x):
    return x.size // max(x.shape[1] if x.ndim > 1 else x.shape[0], 1)


def _bn_fwd(x, scale, bias, mean, var, epsilon=1e-5, training=True, axis=1):
    """torch's kernel (``_norm_kernels``) for float32, float64: (y, the batch mean, its var_sum) in
    training, (y, mean, var) with the running ones; other dtypes: the engine's kernel."""
    if not K.supported(x):
        return C._batch_norm_fwd(x, scale, bias, mean, var, epsilon, training, axis)
    x = np.ascontiguousarray(x)
    if training:
        m, vs = K.batch_stats(x)
        inv = K.train_invstd(vs, _bn_count(x), epsilon)
        return K.transform(x, scale, bias, m, inv), m, vs
    m = np.asarray(mean, x.dtype)
    return K.transform(x, scale, bias, m, K.eval_invstd(var, epsilon)), mean, var


@exact_first_order
def _bn_vjp(n, g, _gm=None, _gv=None):
    """torch's batch_norm backward kernel (float32, float64; no create_graph); else the engine's VJP,
    written with Tensor ops (differentiable again)."""
    x = n.inputs[0].data
    if is_grad_enabled():   # (create_graph: torch's NativeBatchNormBackwardBackward0 node)
        return _double_backward.batch_norm_first_order(n, g, _bn_vjp, *_saved_stats(n))
    if not K.supported(x) or g.data.dtype != x.dtype:
        return C._batch_norm_vjp(n, g, _gm, _gv)
    a = n.attrs
    training = a.get("training", True)
    eps = a.get("epsilon", 1e-5)
    if training:
        mean = n.out_data[1]
        inv = K.train_invstd(n.out_data[2], _bn_count(x), eps)
    else:
        mean = np.asarray(n.inputs[3].data, x.dtype)
        inv = K.eval_invstd(n.inputs[4].data, eps, double=True)
    want = (needs_grad(n, 0), needs_grad(n, 1), needs_grad(n, 2))
    gx, gw, gb = K.backward(np.ascontiguousarray(x), np.ascontiguousarray(g.data),
                            n.inputs[1].data, mean, inv, training, want)
    w = type(g)._wrap
    return (None if gx is None else w(gx, True), None if gw is None else w(gw, True),
            None if gb is None else w(gb, True), None, None)


def _saved_stats(n):
    """torch's save_mean and save_invstd of a training batch norm (None, None in eval)."""
    if not n.attrs.get("training", True):
        return None, None
    x, eps = n.inputs[0].data, n.attrs.get("epsilon", 1e-5)
    if K.supported(x):
        return n.out_data[1], K.train_invstd(n.out_data[2], _bn_count(x), eps)
    v = np.asarray(n.out_data[2])
    return n.out_data[1], (1.0 / np.sqrt(v + x.dtype.type(eps))).astype(x.dtype)


BN = _named(C.BATCH_NORM, "NativeBatchNormBackward0", forward=_bn_fwd, vjp=_bn_vjp)
# training: the running statistics are updated in place by the call itself (torch saves them
# after its update), so only the input and the weight are checked for later in-place writes
BN_TRAIN = _named(C.BATCH_NORM, "NativeBatchNormBackward0", "in:0,1", forward=_bn_fwd,
                  vjp=_bn_vjp)


def _update_running(running_mean, running_var, m, v, n, momentum, torch_kernel):
    """The running statistics after a training step, in place: torch's rounding when the
    forward ran torch's kernel (``v`` is then the batch's var_sum), else the mean and the
    unbiased variance with momentum."""
    rm, rv = raw(running_mean), raw(running_var) if running_var is not None else None
    if torch_kernel and rm.dtype == np.asarray(m).dtype:
        K.update_running(rm, rv, m, v, n, momentum)
    else:
        dt = rm.dtype
        mom = dt.type(momentum)
        rm[...] = (1 - mom) * rm + mom * m
        if rv is not None:
            rv[...] = (1 - mom) * rv + mom * (v * dt.type(n / (n - 1)))
    for t in (running_mean, running_var):
        if t is not None:
            t._version += 1


def batch_norm(input, running_mean, running_var, weight=None, bias=None,  # noqa: A002
               training=False, momentum=0.1, eps=1e-05):
    """Normalise over every dim but 1 with the batch's statistics (training, then the running
    ones are updated in place with momentum, the variance unbiased) or the running ones."""
    a = raw(input)
    c = a.shape[1] if a.ndim > 1 else a.shape[0]
    if training:
        n = a.size // max(c, 1)
        if n <= 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input "
                             f"size {list(a.shape)}")
    dt = a.dtype
    w = weight if weight is not None else _wrap(np.ones(c, dt), True)
    b = bias if bias is not None else _wrap(np.zeros(c, dt), True)
    use_batch = training or running_mean is None
    rm = running_mean if running_mean is not None else _wrap(np.zeros(c, dt), True)
    rv = running_var if running_var is not None else _wrap(np.ones(c, dt), True)
    y, m, v = apply(BN_TRAIN if use_batch else BN, (input, w, b, rm, rv),
                    {"epsilon": float(eps), "training": bool(use_batch), "axis": 1})
    if training and running_mean is not None:
        _update_running(running_mean, running_var, raw(m), raw(v), n, momentum,
                        K.supported(a))
    return y


# ------------------------------------------------------------------------------ layer norm
_LN_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))   # (torch's kernel replayed)


def _ln_rows(x, begin_norm_axis):
    lead = int(np.prod(x.shape[:begin_norm_axis], dtype=np.int64))
    return np.ascontiguousarray(x).reshape(lead, -1)


def _ln_fwd(x, scale, bias, epsilon=1e-5, begin_norm_axis=1, has_weight=True):
    """torch's kernel (``_norm_kernels.layer_norm``) for float32 and float64; else the
    engine's. ``has_weight`` False: the weight was None (torch's backward then takes another
    path)."""
    if x.dtype not in _LN_DTYPES or x.size == 0:
        return C._layer_norm_fwd(x, scale, bias, epsilon, begin_norm_axis)
    y, _m, _r = K.layer_norm(_ln_rows(x, begin_norm_axis), scale, bias, epsilon)
    return y.reshape(x.shape)


def _ln_stats(n):
    """The forward's row mean and rstd (torch's kernel's for float32 and float64)."""
    x = n.inputs[0].data
    rows = _ln_rows(x, n.attrs.get("begin_norm_axis", 1))
    eps = n.attrs.get("epsilon", 1e-5)
    if x.dtype in _LN_DTYPES:
        mean, var = K.row_moments(rows)
        t = x.dtype.type
        return mean, (t(1) / np.sqrt(var + t(eps))).astype(x.dtype)
    mean = rows.mean(1)
    var = ((rows - mean[:, None]) ** 2).mean(1)
    return mean, (1 / np.sqrt(var + eps)).astype(x.dtype)


@exact_first_order
def _ln_vjp(n, g):
    """torch's layer_norm backward kernel (float32, float64; no create_graph); else the engine's VJP
    (Tensor ops, differentiable again). The row moments are recomputed from the input."""
    x = n.inputs[0].data
    if is_grad_enabled() and x.size:   # (create_graph: NativeLayerNormBackwardBackward0)
        return _double_backward.layer_norm_first_order(n, g, _ln_vjp, *_ln_stats(n))
    if is_grad_enabled() or x.dtype not in _LN_DTYPES or g.data.dtype != x.dtype or not x.size:
        return C._layer_norm_vjp(n, g)
    b = n.attrs.get("begin_norm_axis", 1)
    rows = _ln_rows(x, b)
    mean, rstd = _ln_stats(n)
    want = (needs_grad(n, 0), needs_grad(n, 1), needs_grad(n, 2))
    w_t = n.inputs[1]
    dx, dw, db = K.layer_norm_backward(rows, _ln_rows(g.data, b),
                                       w_t.data if n.attrs.get("has_weight", True) else None,
                                       mean, rstd.astype(x.dtype), want)
    w = type(g)._wrap
    shp = w_t.data.shape
    return (None if dx is None else w(dx.reshape(x.shape), True),
            None if dw is None else w(dw.reshape(shp), True),
            None if db is None else w(db.reshape(shp), True))


LN = _named(C.LAYER_NORM, "NativeLayerNormBackward0", forward=_ln_fwd, vjp=_ln_vjp)




def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05):  # noqa: A002
    """Normalise over the trailing ``normalized_shape`` dims."""
    a = raw(input)
    shape = tuple(normalized_shape) if isinstance(normalized_shape, (list, tuple)) \
        else (int(normalized_shape),)
    if a.shape[a.ndim - len(shape):] != shape:
        raise RuntimeError(
            f"Given normalized_shape={list(shape)}, expected input with shape "
            f"[*, {', '.join(str(s) for s in shape)}], but got input of size{list(a.shape)}")
    w = weight if weight is not None else _wrap(_bf16_filled(np.ones, shape, a.dtype), True)
    b = bias if bias is not None else _wrap(np.zeros(shape, a.dtype), True)
    attrs = {"epsilon": float(eps), "begin_norm_axis": a.ndim - len(shape)}
    if weight is None:
        attrs["has_weight"] = False
    return apply(LN, (input, w, b), attrs)


# ------------------------------------------------------------------------------ group norm
def _gn_fwd(x, scale, bias, epsilon=1e-5, groups=1, has_scale=True, has_bias=True,
            eps_double=False, torch_affine=True):
    """torch's kernel (``_norm_kernels.group_norm``) for float32 and float64; else the
    engine's. ``torch_affine`` False: called without weight and bias (torch then rounds
    otherwise)."""
    if x.dtype not in _LN_DTYPES or x.size == 0:
        y = GN_OPS._group_norm_fwd(x, scale, bias, epsilon, groups, has_scale, has_bias,
                                   eps_double)
        if x.size == 0:
            return y, np.zeros((x.shape[0], groups), x.dtype), np.zeros((x.shape[0], groups),
                                                                        x.dtype)
        mean, rstd = _gn_stats_of(x, groups, epsilon)
        return y, mean.reshape(x.shape[0], groups), rstd.reshape(x.shape[0], groups)
    y, mean, rstd = K.group_norm(x, scale, bias, groups, epsilon, torch_affine)
    return y, mean.reshape(x.shape[0], groups), rstd.reshape(x.shape[0], groups)


def _gn_stats_of(x, groups, eps):
    """Per-group mean and rstd (N * G,) (float32, float64: torch's kernel's, its rstd in
    double)."""
    rows = np.ascontiguousarray(x).reshape(x.shape[0] * groups, -1)
    if x.dtype in _LN_DTYPES:
        mean, var = K.row_moments(rows)
        return mean, (1.0 / np.sqrt(np.maximum(var, 0).astype(np.float64) + eps))
    mean = rows.mean(1)
    return mean, (1.0 / np.sqrt(((rows - mean[:, None]) ** 2).mean(1) + eps)).astype(x.dtype)


def _gn_vjp(n, g, gmean=None, grstd=None):
    """torch's group_norm backward kernel (float32, float64; no create_graph, no gradient on the mean
    or rstd outputs); else, as torch, its differentiable composite (``_double_backward``: the
    composite's values, not the kernel's) for floating inputs; else the engine's
    group_norm_grad op."""
    x_t, w_t, b_t = n.inputs
    x = x_t.data
    a = n.attrs
    if (is_grad_enabled() or gmean is not None or grstd is not None) and x.size and \
            x.dtype.kind == "f":
        return _double_backward.group_norm_composite(n, g, gmean, grstd)
    if g is None:
        return None, None, None
    if is_grad_enabled() or x.dtype not in _LN_DTYPES or g.data.dtype != x.dtype or not x.size:
        attrs = {k: v for k, v in a.items() if k != "torch_affine"}
        return GN_OPS.group_norm_grad(x_t, w_t, b_t, g, attrs)
    groups = a.get("groups", 1)
    mean, rstd = _gn_stats_of(x, groups, a.get("epsilon", 1e-5))
    want = (needs_grad(n, 0), needs_grad(n, 1), needs_grad(n, 2))
    dx, dw, db = K.group_norm_backward(x, g.data, w_t.data, mean, rstd.astype(x.dtype),
                                       groups, want)
    w = type(g)._wrap
    return (None if dx is None else w(dx, True), None if dw is None else w(dw, True),
            None if db is None else w(db, True))


GN = _named(GN_OPS.GROUP_NORM, "NativeGroupNormBackward0", forward=_gn_fwd, vjp=_gn_vjp)
GN.n_outputs = 3   # (y, mean, rstd: torch's native_group_norm, all three differentiable)
GN.saves_output = True
GN.undefined_grads = True   # (mean/rstd without a gradient: None, the kernel path)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05):  # noqa: A002
    """Normalise each sample over groups of ``num_groups`` channels (torch's
    ``F.group_norm``)."""
    a = raw(input)
    c = a.shape[1] if a.ndim > 1 else 0
    if a.ndim < 2 or num_groups <= 0 or c % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by "
                           f"num_groups, but got input of shape {list(a.shape)} and "
                           f"num_groups={num_groups}")
    dt = a.dtype
    w = weight if weight is not None else _wrap(np.ones(c, dt), True)
    b = bias if bias is not None else _wrap(np.zeros(c, dt), True)
    attrs = {"epsilon": float(eps), "groups": int(num_groups)}
    if weight is None and bias is None:
        attrs["torch_affine"] = False
    return apply(GN, (input, w, b), attrs)[0]


# ------------------------------------------------------------------------------ instance norm
@exact_first_order
def _rep_vjp(n, g):
    """RepeatBackward0 of a (C,) vector repeated N times: the (N, C) gradient summed over the
    samples in torch's order (``_kernels.torch_sum``); with create_graph, the engine's VJP."""
    base = _REP_BASE.vjp
    c = n.in_meta[0][0][0]
    total = None
    if not is_grad_enabled() and g.data.dtype.kind == "f":
        total = torch_sum(np.ascontiguousarray(g.data).reshape(-1, c), (0,))
    if total is None:
        return base(n, g)
    return (type(g)._wrap(np.asarray(total, g.data.dtype), True),)


_REP_BASE = _ops.top("tile", "RepeatBackward0", "none")
_REP = _named(_REP_BASE, "RepeatBackward0", "none", vjp=_rep_vjp)


def _repeat(t, n):
    return apply(_REP, (t,), {"repeat_times": (n,)})


def _sample_mean(a, n, c):
    """``a.view(n, c).mean(0)`` as torch sums it."""
    total = torch_sum(np.ascontiguousarray(a).reshape(n, c), (0,))
    if total is None:
        total = a.reshape(n, c).sum(0)
    return (np.asarray(total) / a.dtype.type(n)).astype(a.dtype)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,  # noqa: A002
                  use_input_stats=True, momentum=0.1, eps=1e-05):
    """Normalise each (sample, channel) plane: torch's batch_norm on the input viewed as one
    sample of N * C channels (the weight, bias and running statistics repeated per sample;
    the running statistics then averaged back over the samples)."""
    a = raw(input)
    n, c = a.shape[:2]
    if use_input_stats and a.size // (n * c) <= 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size "
                         f"{list(a.shape)}")
    x = _ops.reshape(input, (1, n * c) + a.shape[2:])
    w = None if weight is None else _repeat(weight, n)
    b = None if bias is None else _repeat(bias, n)
    rm = None if running_mean is None else _wrap(np.tile(raw(running_mean), n), True)
    rv = None if running_var is None else _wrap(np.tile(raw(running_var), n), True)
    y = batch_norm(x, rm, rv, w, b, use_input_stats, momentum, eps)
    for mine, rep in ((running_mean, rm), (running_var, rv)):
        if mine is not None and use_input_stats:
            raw(mine)[...] = _sample_mean(raw(rep), n, c)
            mine._version += 1
    return _ops.view(y, a.shape)
