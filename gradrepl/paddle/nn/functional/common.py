"""``linear``, ``dropout`` and friends of ``paddle.nn.functional``."""
from __future__ import annotations

import numpy as np

from ....engine.ops import math as M
from ....engine.ops import nn as N
from ... import profiles
from ...core import Tensor
from ...tensor.linalg import matmul
from ...tensor.math import add
from ...double_grad import composes as _composes
from ...utils import deprecated_api

__all__ = ["linear", "dropout", "dropout2d", "dropout3d", "alpha_dropout", "pad", "cosine_similarity", "normalize"]


def linear(x, weight, bias=None, name=None):
    """``x @ weight + bias`` with ``weight`` of shape [in, out]: matmul then add, as Paddle."""
    out = matmul(x, weight)
    if bias is not None:
        out = add(out, bias)
    return out


def _uniform_mask_draws(shape):
    """float32 uniforms in [0, 1) over ``shape`` from the global generator: the draws of
    Paddle's dropout kernel and of its ``paddle.uniform`` masks."""
    from ...tensor.creation import rng

    return rng().uniform(0.0, 1.0, tuple(shape), np.float32)


def _check_dropout_args(p, mode, axis):
    if not isinstance(p, (float, int)) or isinstance(p, bool):
        raise TypeError("p argument should be a number or Variable")
    if p < 0 or p > 1:
        raise ValueError("p argument should between 0 and 1")
    if mode not in ("downscale_in_infer", "upscale_in_train"):
        raise ValueError("mode argument should be 'downscale_in_infer' or 'upscale_in_train'")
    if axis and not isinstance(axis, (int, list, tuple)):
        raise TypeError("datatype of axis argument should be int or list")


def _keep_mask(shape, p):
    """1 where a value is kept: a float32 uniform draw >= p (Paddle drops where it is < p)."""
    return (_uniform_mask_draws(shape) >= np.float32(p)).astype(np.uint8)


def dropout(x, p=0.5, axis=None, training=True, mode="upscale_in_train", name=None):
    """Zero each value with probability ``p`` (random numbers from ``paddle.seed``'s generator).

    ``upscale_in_train`` divides the kept values by ``1 - p`` in training and is the identity
    in evaluation; ``downscale_in_infer`` keeps values as they are in training and multiplies
    by ``1 - p`` in evaluation.
    """
    _check_dropout_args(p, mode, axis)
    if p == 0:
        return x
    upscale = mode == "upscale_in_train"
    if axis is None:
        if training:
            mask = _keep_mask(x.data.shape, p) if p < 1 else np.zeros(x.data.shape, np.uint8)
        else:
            mask = np.ones(x.data.shape, np.uint8)
        return N.dropout(x, Tensor(mask), p, upscale, not training)
    return _dropout_nd(x, p, axis, training, upscale)


def _dropout_nd(x, p, axis, training, upscale):
    """dropout along some axes: Paddle composes scale, a broadcast keep mask and multiply."""
    axes = [axis] if isinstance(axis, int) else list(axis)
    nd = x.data.ndim
    if max(axes) > nd - 1 or len(axes) > nd:
        raise ValueError("axis value should be greater than or equal to 0 and less than "
                         "dimensions of x")
    if not training:
        return x if upscale else M.scale(x, 1.0 - p)
    scaled = M.scale(x, 1.0 / (1.0 - p)) if upscale and p < 1 else x
    mshape = tuple(s if i in axes else 1 for i, s in enumerate(x.data.shape))
    keep = Tensor((_uniform_mask_draws(mshape) >= np.float32(p)).astype(x.data.dtype))
    return M.multiply(scaled, keep)


def dropout2d(x, p=0.5, training=True, data_format="NCHW", name=None):
    axis = [0, 1] if data_format == "NCHW" else [0, 3]
    return dropout(x, p, axis, training)


def dropout3d(x, p=0.5, training=True, data_format="NCDHW", name=None):
    axis = [0, 1] if data_format == "NCDHW" else [0, 4]
    return dropout(x, p, axis, training)


def _feature_alpha_dropout_impl(x, feature_dropout, p, training):
    """Paddle's alpha dropout, op for op: dropped values become alpha' = -alpha * scale of
    SELU, then y * a + b keeps the mean and variance; ``feature_dropout`` drops whole
    channels (the mask is [N, C, 1, ...])."""
    from ... import tensor as T

    if not isinstance(p, (float, int)):
        raise TypeError("p argument should be a float or int")
    if p < 0 or p > 1:
        raise ValueError("p argument should between 0 and 1")
    if not training:
        return x
    if p == 1:
        return M.scale(x, 0.0)
    alpha = 1.6732632423543772848170429916717
    scale = 1.0507009873554804934193349852946
    alpha_p = -alpha * scale
    a = ((1 - p) * (1 + p * alpha_p ** 2)) ** -0.5
    b = -a * alpha_p * p
    dtype = x.dtype
    if not feature_dropout:
        shape = list(x.shape)
    else:
        if x.ndim < 2:
            raise ValueError("Feature alpha dropout needs at least 2D input.")
        shape = list(x.shape[:2]) + [1] * len(x.shape[2:])
    random_tensor = T.uniform(shape, dtype="float32", min=0.0, max=1.0)
    pt = T.full(shape, p, dtype="float32")
    keep = T.cast(T.greater_equal(random_tensor, pt), dtype)
    drop = T.subtract(T.full(shape, 1.0, dtype=dtype), keep)
    bt = T.full(shape, b, dtype=dtype)
    y = T.add(T.multiply(x, keep), M.scale(drop, alpha_p))
    return T.add(M.scale(y, a), bt)


def alpha_dropout(x, p=0.5, training=True, name=None):
    """SELU-preserving dropout: dropped values become alpha' and the result is rescaled."""
    return _feature_alpha_dropout_impl(x, False, p, training)


def feature_alpha_dropout(x, p=0.5, training=True, name=None):
    """Alpha dropout of whole channels (Paddle 3)."""
    return _feature_alpha_dropout_impl(x, True, p, training)


__all__ += ["feature_alpha_dropout"]


_PAD_FORMATS = {3: ["NCL", "NLC"], 4: ["NCHW", "NHWC"], 5: ["NCDHW", "NDHWC"]}


def _pad_format(data_format):
    data_format = data_format.upper()
    if data_format not in ("NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC"):
        raise AssertionError("data_format should be in one of [NCL, NCHW, NCDHW, NLC, NHWC, "
                             f"NDHWC], but got {data_format}")
    return data_format


def pad(x, pad, mode="constant", value=0.0, data_format=None, pad_from_left_axis=True,
        name=None):
    """Pad ``x``: a pad list of 2*ndim values pads every axis in order (before, after); a
    shorter one pads the spatial axes of the ``data_format`` layout, last axis first
    ([left, right, top, bottom, front, back]). Modes: constant, reflect, replicate, circular.
    Paddle's checks, in its order and words (assertions): 2.x's data_format defaults to NCHW
    and is checked first; 3.x's defaults to the input's rank's channels-first layout."""
    from ....engine.ops import shape as S

    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise AssertionError(
            f"mode should be one of constant, reflect, replicate, circular, but got {mode}.")
    api3 = profiles.current().api3
    if not api3:
        data_format = _pad_format("NCHW" if data_format is None else data_format)
    if isinstance(pad, Tensor):
        pad = [int(v) for v in pad.data.reshape(-1)]
    pad = [int(v) for v in pad]
    nd = x.data.ndim
    if pad_from_left_axis is not True and not api3:
        raise TypeError("pad() got an unexpected keyword argument 'pad_from_left_axis'")
    if mode == "constant" and (len(pad) != (nd - 2) * 2 if api3 else len(pad) == 2 * nd):
        if len(pad) == 2 * nd and (pad_from_left_axis or not api3):
            pairs = [(pad[2 * i], pad[2 * i + 1]) for i in range(nd)]
        else:  # Paddle 3: any other length pads from the last axis backwards (pairs per axis)
            full = pad + [0] * (2 * nd - len(pad))
            pairs = [(0, 0)] * nd
            for k in range(nd):
                pairs[nd - 1 - k] = (full[2 * k], full[2 * k + 1])
        return S.pad(x, pairs, value)   # Paddle's pad op
    if nd not in (3, 4, 5):
        raise AssertionError(f"input {'tensor' if api3 else 'tesor'} dimension must be in "
                             f"[3, 4, 5] but got {nd}")
    if api3:
        data_format = _pad_format({3: "NCL", 4: "NCHW", 5: "NCDHW"}[nd] if data_format is None
                                  else data_format)
    if data_format not in _PAD_FORMATS[nd]:
        raise AssertionError(f"input tensor dimension is {nd}, it's data format should be in "
                             f"{_PAD_FORMATS[nd]} but got {data_format}")
    k = len(pad) // 2
    first = data_format.startswith("NC")
    spatial = list(range(2, nd)) if first else list(range(1, nd - 1))
    pairs = [(0, 0)] * nd
    for j, ax in enumerate(reversed(spatial[-k:])):
        pairs[ax] = (pad[2 * j], pad[2 * j + 1])
    if nd == 5:
        return N.pad3d(x, pairs, mode, value)
    # Paddle's pad3d works on 5-D: a 3-D or 4-D input is unsqueezed before and squeezed after
    # (its graph: SqueezeGradNode > Pad3dGradNode > UnsqueezeGradNode, real 3.3.1 and 2.6.2)
    from ...tensor.manipulation import squeeze, unsqueeze

    axes = {(3, True): [3, 4], (4, True): [2], (3, False): [2, 3], (4, False): [1]}[nd, first]
    pairs5 = list(pairs)
    for ax in axes:
        pairs5.insert(ax, (0, 0))
    return squeeze(N.pad3d(unsqueeze(x, axes), pairs5, mode, value), axes)


def cosine_similarity(x1, x2, axis=1, eps=1e-8):
    from ...tensor import reduce as R

    w12 = R.sum(M.multiply(x1, x2), axis=axis)
    w1 = R.sum(M.multiply(x1, x1), axis=axis)
    w2 = R.sum(M.multiply(x2, x2), axis=axis)
    n12 = M.sqrt(M.maximum(M.multiply(w1, w2), Tensor(np.asarray(eps * eps, x1.data.dtype))))
    return M.divide(w12, n12, vml=True)  # Paddle: w12 / n12, its divide kernel (MKL vsDiv)


def normalize(x, p=2, axis=1, epsilon=1e-12, name=None):
    """``x / max(||x||_p along axis, epsilon)`` (Paddle's p_norm with keepdim, then divide)."""
    from ....engine.ops import reduce as R

    if x.data.ndim == 1 and axis not in (0, -1):
        raise ValueError(
            f"Axis must be 0 or -1 when x is a 1-D tensor, but received axis = {axis}")
    ax = axis % max(x.data.ndim, 1)
    norm = R.p_norm(x, float(p), (ax,), keepdim=True, epsilon=epsilon)
    eps = Tensor(np.full([1], epsilon, x.data.dtype))
    return M.divide(x, M.maximum(norm, eps))


# ---------------------------------------------------------------- more of the common functions
@deprecated_api("paddle.nn.functional.common", since="3.0.0", update_to="paddle.nn.ZeroPad2D",
                level=1, reason="Please use class ZeroPad2D")
def zeropad2d(x, padding, data_format="NCHW", name=None):
    return pad(x, pad=padding, mode="constant", value=0, data_format=data_format, name=name)


def pairwise_distance(x, y, p=2.0, epsilon=1e-6, keepdim=False, name=None):
    """The p-norm of x - y + epsilon along the last axis (Paddle's p_norm kernel)."""
    from ....engine.ops import reduce as R
    from ...tensor.math import add, subtract

    sub = subtract(x, y)
    if epsilon != 0.0:
        sub = add(sub, Tensor(np.full([1], epsilon, sub.data.dtype)))
    ax = sub.data.ndim - 1 if sub.data.ndim else 0
    return R.p_norm(sub, float(p), (ax,), keepdim=keepdim, epsilon=0.0)


def sequence_mask(x, maxlen=None, dtype="int64", name=None):
    """mask[..., j] = j < x[...] (maxlen: the largest length when not given)."""
    from ... import dtypes

    a = np.asarray(x.data)
    if maxlen is None:
        maxlen = int(a.max()) if a.size else 0
    elif isinstance(maxlen, Tensor):
        maxlen = int(maxlen.item())
    mask = np.arange(maxlen) < a[..., None]
    return Tensor(mask.astype(dtypes.to_np(dtype)))


def temporal_shift(x, seg_num, shift_ratio=0.25, name=None, data_format="NCHW"):
    """Shift a part of the channels one segment back and another one forward in time (an op
    with its gradient: ``paddle/nn/gaps.py``)."""
    from ..gaps import temporal_shift as _ts

    return _ts(x, seg_num, shift_ratio, name, data_format)


def gather_tree(ids, parents):
    """Backtrack beam-search ids through their parents (from the last step)."""
    a, p = np.asarray(ids.data), np.asarray(parents.data)
    t_max, batch, beam = a.shape
    out = np.zeros_like(a)
    for b in range(batch):
        for k in range(beam):
            out[t_max - 1, b, k] = a[t_max - 1, b, k]
            parent = p[t_max - 1, b, k]
            for t in range(t_max - 2, -1, -1):
                out[t, b, k] = a[t, b, parent]
                parent = p[t, b, parent]
    return Tensor(out)


__all__ += ["zeropad2d", "pairwise_distance", "sequence_mask", "temporal_shift", "gather_tree"]


# ---------------------------------------------------------------- resampling and rearranging
def _pp():
    from .... import paddle as _p

    return _p


def _spatial_axes(nd, data_format):
    return list(range(2, nd)) if data_format.startswith("NC") else list(range(1, nd - 1))


def _gather_axis(x, idx, axis):
    from ....engine.ops import index as I

    return I.index_select(x, Tensor(np.asarray(idx, np.int64)), axis)


def _linear_taps(in_size, out_size, scale, align_corners, align_mode):
    """Source positions (i0, i1, w1) of linear interpolation along one axis (Paddle's rule)."""
    o = np.arange(out_size, dtype=np.float64)
    if align_corners:
        ratio = (in_size - 1) / (out_size - 1) if out_size > 1 else 0.0
        src = o * ratio
    else:
        ratio = 1.0 / scale if scale else in_size / out_size
        src = (o + 0.5) * ratio - 0.5 if align_mode == 0 else o * ratio
        src = np.maximum(src, 0.0)
    i0 = np.minimum(np.floor(src).astype(np.int64), in_size - 1)
    i1 = np.minimum(i0 + 1, in_size - 1)
    w1 = src - i0
    return i0, i1, w1


def _cubic_weights(t, a=-0.75):
    def near(x):
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _interp_tag(out, mode):
    """The composed resize's last node stands for Paddle's one <mode>_interp op."""
    from ...double_grad import tag

    return tag(out, mode + "_interp")


_BY_RANK = object()   # data_format's default: 3.x's None (by rank), 2.x's 'NCHW'
_RESAMPLE = ("linear", "bilinear", "trilinear", "nearest", "bicubic", "area")
# mode -> the ranks it takes, and real Paddle's message otherwise (3.3.1 and 2.6.2 alike)
_MODE_RANKS = {
    "linear": ((3,), "'linear' only support 3-D tensor."),
    "nearest": ((4, 5), "'NEAREST' only support 4-D  or 5-D tensor."),
    "bilinear": ((4,), "'bilinear' and 'bicubic' only support 4-D tensor."),
    "bicubic": ((4,), "'bilinear' and 'bicubic' only support 4-D tensor."),
    "trilinear": ((5,), "'trilinear'only support 5-D tensor."),
}
_LAYOUTS = {3: ("NCW", "NWC"), 4: ("NCHW", "NHWC"), 5: ("NCDHW", "NDHWC")}


def _interp_checks(x, size, scale_factor, mode, align_corners, align_mode, data_format):
    """Paddle's Python checks of F.interpolate, in its order (measured on 3.3.1 and 2.6.2);
    returns the data format."""
    nd = x.ndim
    if data_format is _BY_RANK:
        data_format = None if profiles.current().api3 else "NCHW"
    if data_format is None:
        if nd not in _LAYOUTS:
            raise ValueError("The dimension of the input tensor should only be 3-D, 4-D or 5-D, "
                             f"but the received dimension is {nd}.")
        data_format = _LAYOUTS[nd][0]
    data_format = data_format.upper()
    mode = mode.lower()
    if mode not in _RESAMPLE:
        raise ValueError("The 'resample' of image_resize can only be 'area', 'linear', "
                         "'bilinear', 'trilinear',  'bicubic' or 'nearest' currently.")
    ranks, message = _MODE_RANKS.get(mode, (None, None))
    if ranks is not None and nd not in ranks:
        raise ValueError(message)
    if size is None and scale_factor is None:
        raise ValueError("One of size and scale_factor must not be None.")
    if isinstance(size, (tuple, list)) and len(size) != nd - 2:
        raise ValueError("The x and size should satisfy rank(x) - 2 == len(size).")
    if not isinstance(align_corners, bool):
        raise TypeError("Attr align_corners should be a bool value")
    if align_mode != 0 and align_mode != 1:
        raise ValueError("align_mode can only be 0 or 1")
    if align_corners != 0 and mode == "nearest":
        raise ValueError("align_corners option can only be set with the interpolating modes: "
                         "linear | bilinear | bicubic | trilinear")
    if mode == "area":
        if isinstance(size, (list, tuple)) and len(size) == 0:
            raise ValueError("output size can not be empty")
        if size is None:
            raise ValueError("output size can not be None in AREA mode")
        if nd == 4 and not profiles.current().api3:
            print("size :", size)   # (2.6.2's interpolate prints this before its 2-D pool)
        return data_format
    if data_format not in _LAYOUTS.get(nd, (data_format,)):
        a, b = _LAYOUTS[nd]
        raise ValueError(f"Got wrong value for param `data_format`: {data_format} received but "
                         f"only `{a}` or `{b}` supported for {nd}-D input.")
    return data_format


def interpolate(x, size=None, scale_factor=None, mode="nearest", align_corners=False,
                align_mode=0, data_format=_BY_RANK, recompute_scale_factor=None, name=None):
    """Resize the spatial axes: nearest, linear/bilinear/trilinear (Paddle's kernels), bicubic,
    area (as an adaptive average)."""
    paddle = _pp()
    nd = x.ndim
    data_format = _interp_checks(x, size, scale_factor, mode, align_corners, align_mode,
                                 data_format)
    if mode.lower() == "area" and nd in (3, 4, 5):
        # Paddle's area mode returns adaptive_avg_pool{1,2,3}d(x, size) (NC... layout)
        pools = {3: paddle.nn.functional.adaptive_avg_pool1d,
                 4: paddle.nn.functional.adaptive_avg_pool2d,
                 5: paddle.nn.functional.adaptive_avg_pool3d}
        return pools[nd](x, size)
    if mode.lower() == "area" and not data_format.startswith("NC"):
        data_format = _LAYOUTS[nd][0]   # (Paddle's area is the adaptive pool on NC... input)
    mode = mode.lower()
    axes = _spatial_axes(nd, data_format)
    in_sizes = [x.shape[a] for a in axes]
    if size is not None:
        if isinstance(size, Tensor):
            size = size.tolist()
        size = [int(s.item()) if isinstance(s, Tensor) else int(s) for s in
                (size if isinstance(size, (list, tuple)) else [size] * len(axes))]
        scales = [None] * len(axes)
    else:
        sf = scale_factor.tolist() if isinstance(scale_factor, Tensor) else scale_factor
        sf = sf if isinstance(sf, (list, tuple)) else [sf] * len(axes)
        if recompute_scale_factor:
            # Paddle's Python computes the sizes (double) and passes no scale
            size = [int(np.floor(float(n) * float(s))) for n, s in zip(in_sizes, sf)]
            scales = [None] * len(axes)
        else:
            # the kernel: int(in * scale), the scale attribute a double in 3.3.1, a float in
            # 2.6.2 (measured: 50 x 2.3 gives 114 and 115)
            f = float if profiles.current().api3 else np.float32
            size = [int(f(n) * f(s)) for n, s in zip(in_sizes, sf)]
            scales = [float(s) for s in sf]
    out = x
    if mode == "nearest":
        per_axis = []
        for a, n, m, s in zip(axes, in_sizes, size, scales):
            if align_corners:
                idx = np.round(np.arange(m) * ((n - 1) / (m - 1) if m > 1 else 0)).astype(int)
            else:
                ratio = 1.0 / s if s else n / m
                idx = np.minimum(np.floor(np.arange(m) * ratio).astype(int), n - 1)
            per_axis.append(idx)
        # one gather over the flattened spatial axes (they are adjacent in every layout), the
        # output positions in row-major order: its gradient adds each output into its source
        # in that order, as Paddle's nearest_interp_grad loops (k, l) (per-axis gathers summed
        # the rows' pairs first: 1,988 of 8,192 values of a 2x upsample's gradient differed)
        flat = np.ravel_multi_index(np.meshgrid(*per_axis, indexing="ij"), in_sizes).ravel()
        shape = list(x.shape)
        lead, trail = shape[:axes[0]], shape[axes[-1] + 1:]
        out = paddle.reshape(x, lead + [int(np.prod(in_sizes))] + trail)
        out = _gather_axis(out, flat, len(lead))
        out = paddle.reshape(out, lead + list(size) + trail)
        return _interp_tag(out, mode)
    if mode in ("linear", "bilinear", "trilinear") and x.data.dtype in (np.float32, np.float64):
        # Paddle's CPU kernels (engine/ops/paddle_interp): one expression per output
        from ....engine.ops import paddle_interp as PI

        last = not data_format.startswith("NC")
        xin = paddle.transpose(x, [0, nd - 1] + list(range(1, nd - 1))) if last else x
        out = PI.interp(xin, size, scales, align_corners, align_mode, profiles.current().api3)
        return paddle.transpose(out, [0] + list(range(2, nd)) + [1]) if last else out
    if mode == "bicubic" and x.data.dtype in (np.float32, np.float64):
        from ....engine.ops import paddle_interp as PI

        last = not data_format.startswith("NC")
        xin = paddle.transpose(x, [0, 3, 1, 2]) if last else x
        out = PI.bicubic(xin, size, scales, align_corners, profiles.current().api3)
        return paddle.transpose(out, [0, 2, 3, 1]) if last else out
    if mode in ("linear", "bilinear", "trilinear"):
        for a, n, m, s in zip(axes, in_sizes, size, scales):
            i0, i1, w1 = _linear_taps(n, m, s, align_corners, align_mode)
            shape = [1] * nd
            shape[a] = m
            w1t = Tensor(w1.reshape(shape).astype(x.data.dtype))
            w0t = Tensor((1 - w1).reshape(shape).astype(x.data.dtype))
            out = paddle.add(paddle.multiply(_gather_axis(out, i0, a), w0t),
                             paddle.multiply(_gather_axis(out, i1, a), w1t))
        return _interp_tag(out, mode)
    if mode == "bicubic":
        for a, n, m, s in zip(axes, in_sizes, size, scales):
            o = np.arange(m, dtype=np.float64)
            if align_corners:
                src = o * ((n - 1) / (m - 1) if m > 1 else 0)
            else:
                src = (o + 0.5) * (1.0 / s if s else n / m) - 0.5
            base = np.floor(src).astype(np.int64)
            t = src - base
            ws = _cubic_weights(t)
            acc = None
            for k, w in enumerate(ws):
                idx = np.clip(base - 1 + k, 0, n - 1)
                shape = [1] * nd
                shape[a] = m
                term = paddle.multiply(_gather_axis(out, idx, a),
                                       Tensor(w.reshape(shape).astype(x.data.dtype)))
                acc = term if acc is None else paddle.add(acc, term)
            out = acc
        return _interp_tag(out, mode)
    if mode == "area":
        for a, n, m in zip(axes, in_sizes, size):
            starts = (np.arange(m) * n) // m
            ends = -((-(np.arange(m) + 1) * n) // m)
            parts = [paddle.mean(paddle.slice(out, [a], [int(s0)], [int(e0)]), axis=a,
                                 keepdim=True) for s0, e0 in zip(starts, ends)]
            out = paddle.concat(parts, axis=a)
        return out
    raise ValueError(f"The 'resample' of image_resize can only be 'area', 'linear', 'bilinear', "
                     f"'trilinear', 'bicubic' or 'nearest' currently, but got {mode}.")


def upsample(x, size=None, scale_factor=None, mode="nearest", align_corners=False,
             align_mode=0, data_format=_BY_RANK, name=None):
    return interpolate(x, size, scale_factor, mode, align_corners, align_mode, data_format)


def bilinear(x1, x2, weight, bias=None, name=None):
    """out[n, o] = x1[n] @ weight[o] @ x2[n] + bias[o]."""
    paddle = _pp()
    t = paddle.matmul(paddle.unsqueeze(x1, [1, 2]), weight)        # [N, O, 1, in2]
    t = paddle.squeeze(t, [2])
    out = paddle.sum(paddle.multiply(t, paddle.unsqueeze(x2, [1])), axis=-1)
    if bias is not None:
        out = paddle.add(out, bias)
    return out


def _four(v):
    if isinstance(v, int):
        return [v, v]
    return list(v)


def _unfold_index(h, w, k, s, p, d):
    kh, kw = k
    sh, sw = s
    ph0, pw0, ph1, pw1 = p
    dh, dw = d
    oh = (h + ph0 + ph1 - (dh * (kh - 1) + 1)) // sh + 1
    ow = (w + pw0 + pw1 - (dw * (kw - 1) + 1)) // sw + 1
    ki, kj = np.meshgrid(np.arange(kh), np.arange(kw), indexing="ij")
    oi, oj = np.meshgrid(np.arange(oh), np.arange(ow), indexing="ij")
    rows = ki.reshape(-1, 1) * dh + oi.reshape(1, -1) * sh
    cols = kj.reshape(-1, 1) * dw + oj.reshape(1, -1) * sw
    return rows, cols, oh, ow


def _pads(paddings):
    if isinstance(paddings, int):
        return [paddings] * 4
    paddings = list(paddings)
    if len(paddings) == 2:
        return [paddings[0], paddings[1], paddings[0], paddings[1]]
    return paddings


@_composes("unfold")
def unfold(x, kernel_sizes, strides=1, paddings=0, dilations=1, name=None):
    """im2col: every kernel window as a column, [N, C*kh*kw, L]."""
    from ....engine.ops import index as I
    from ....engine.ops import shape as S

    k, s, d = _four(kernel_sizes), _four(strides), _four(dilations)
    p = _pads(paddings)
    n, c, h, w = x.data.shape
    xp = S.pad(x, [(0, 0), (0, 0), (p[0], p[2]), (p[1], p[3])], 0.0) if any(p) else x
    rows, cols, oh, ow = _unfold_index(h, w, k, s, p, d)
    picked = I.getitem(xp, (slice(None), slice(None), rows, cols))   # [N, C, kk, L]
    return S.reshape(picked, (n, c * k[0] * k[1], oh * ow))


def fold(x, output_sizes, kernel_sizes, strides=1, paddings=0, dilations=1, name=None):
    """col2im: the columns of unfold summed back into [N, C, H, W]."""
    from ....engine.ops import index as I
    from ....engine.ops import shape as S

    k, s, d = _four(kernel_sizes), _four(strides), _four(dilations)
    p = _pads(paddings)
    h, w = _four(output_sizes)
    n, ckk, L = x.data.shape
    c = ckk // (k[0] * k[1])
    rows, cols, oh, ow = _unfold_index(h, w, k, s, p, d)
    cols4 = S.reshape(x, (n, c, k[0] * k[1], L))
    hp, wp = h + p[0] + p[2], w + p[1] + p[3]
    full = I.index_put_add(cols4, (n, c, hp, wp), (slice(None), slice(None), rows, cols))
    return I.getitem(full, (slice(None), slice(None), slice(p[0], p[0] + h),
                            slice(p[1], p[1] + w)))


@_composes("pixel_shuffle")
def pixel_shuffle(x, upscale_factor, data_format="NCHW", name=None):
    paddle = _pp()
    r = upscale_factor
    if data_format == "NCHW":
        n, c, h, w = x.shape
        t = x.reshape([n, c // (r * r), r, r, h, w]).transpose([0, 1, 4, 2, 5, 3])
        return t.reshape([n, c // (r * r), h * r, w * r])
    n, h, w, c = x.shape
    t = x.reshape([n, h, w, c // (r * r), r, r]).transpose([0, 1, 4, 2, 5, 3])
    del paddle
    return t.reshape([n, h * r, w * r, c // (r * r)])


def pixel_unshuffle(x, downscale_factor, data_format="NCHW", name=None):
    r = downscale_factor
    if data_format == "NCHW":
        n, c, h, w = x.shape
        t = x.reshape([n, c, h // r, r, w // r, r]).transpose([0, 1, 3, 5, 2, 4])
        return t.reshape([n, c * r * r, h // r, w // r])
    n, h, w, c = x.shape
    t = x.reshape([n, h // r, r, w // r, r, c]).transpose([0, 1, 3, 5, 2, 4])
    return t.reshape([n, h // r, w // r, c * r * r])


def channel_shuffle(x, groups, data_format="NCHW", name=None):
    if data_format == "NCHW":
        n, c, h, w = x.shape
        return x.reshape([n, groups, c // groups, h, w]).transpose([0, 2, 1, 3, 4]).reshape(
            [n, c, h, w])
    n, h, w, c = x.shape
    return x.reshape([n, h, w, groups, c // groups]).transpose([0, 1, 2, 4, 3]).reshape(
        [n, h, w, c])


__all__ += ["interpolate", "upsample", "bilinear", "unfold", "fold", "pixel_shuffle",
            "pixel_unshuffle", "channel_shuffle"]


# ---------------------------------------------------------------- sampling grids (Paddle's
# nn/functional/vision.py)
def grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=True, name=None):
    """Paddle's CPU grid_sample: ``x`` [N, C, H, W] (or 5-D), ``grid`` [N, H_out, W_out, 2]
    (x, y in [-1, 1]); bilinear or nearest; zeros, border or reflection padding."""
    from ....engine.ops import nn_more

    if mode not in ("bilinear", "nearest"):
        raise ValueError(f"The mode of grid sample function should be in ['bilinear', "
                         f"'nearest'], but got: {mode}")
    if padding_mode not in ("zeros", "reflection", "border"):
        raise ValueError(f"The padding mode of grid sample function should be in ['zeros', "
                         f"'reflection', 'border'], but got: {padding_mode}")
    if not isinstance(align_corners, bool):
        raise ValueError(f"The align corners should be bool, but got: {align_corners}")
    if len(x.shape) not in (4, 5):
        raise ValueError(f"The x should be a 4-D or 5-D Tensor, but got {len(x.shape)}-D")
    return nn_more.grid_sample(x, grid, mode, padding_mode, align_corners,
                               "all" if profiles.current().grid_sample_half_even else False)


def affine_grid(theta, out_shape, align_corners=True, name=None):
    """The sampling grid [N, H, W, 2] (or [N, D, H, W, 3]) of the affine maps ``theta``
    [N, 2, 3] (or [N, 3, 4]) for an output of shape ``out_shape``."""
    from ....engine.ops import nn_more

    if not isinstance(theta, Tensor):
        raise TypeError("The theta should be a Tensor.")
    shape = out_shape.tolist() if isinstance(out_shape, Tensor) else list(out_shape)
    shape = [int(v.item()) if isinstance(v, Tensor) else int(v) for v in shape]
    if len(shape) == 0:
        raise ValueError("The out_shape cannot be empty.")
    return nn_more.affine_grid(theta, shape, align_corners)


__all__ += ["grid_sample", "affine_grid"]
