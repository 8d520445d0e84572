"""torch's padding, shuffling and resampling: ``F.pad`` in every mode and the pad layers,
``pixel_shuffle``/``pixel_unshuffle``/``channel_shuffle``, ``interpolate`` (nearest,
nearest-exact, linear, bilinear, bicubic, trilinear, area) with ``Upsample`` and its
relatives, ``fold``/``unfold``, ``grid_sample`` and ``affine_grid``.

Resampling (and ``adaptive_avg_pool2d/3d``, interpolate's area mode) computes torch's own CPU
kernels value for value (``_interp_kernels``: which kernel torch picks, its indices, weights and
order of operations, forward and backward, antialias and uint8 included); one op does the
forward and another its adjoint (the gradient), each the other's VJP."""
from __future__ import annotations

import copy
import math

import numpy as np

from ...engine.ops import nn as ENN
from ...engine.ops import nn_more as NM
from ...engine.ops import shape as SH
from ...engine.registry import OPS, apply
from .. import _ops, _storage
from .._base import raw
from .._ops import top
from .._tensor import Tensor
from . import _interp_kernels as K
from .modules import Module

_wrap = Tensor._wrap


def _named(base, name, saves="all", forward=None, vjp=None, n_in=None):
    op = copy.copy(base)
    op.torch_name = name
    op.torch_saves = saves
    op.torch_inputs = n_in
    op.reads_inputs = True
    op.saves_inputs = False
    if forward is not None:
        op.forward = forward
    if vjp is not None:
        op.vjp = vjp
    return op


# ------------------------------------------------------------------------------ pad
_PAD_NAMES = {"reflect": "ReflectionPad{}DBackward0", "replicate": "ReplicationPad{}DBackward0",
              "circular": "CopySlices"}


def pad(input, pad, mode="constant", value=None):  # noqa: A002
    """Pad the last ``len(pad) // 2`` dims: ``pad`` is (last_before, last_after,
    second_last_before, ...); ``mode`` constant (``value``), reflect, replicate, circular."""
    a = raw(input)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > a.ndim:
        raise RuntimeError("Padding length should be less than or equal to two times the "
                           "input dimension but got padding length "
                           f"{len(pad)} and input of dimension {a.ndim}")
    widths = [(0, 0)] * a.ndim
    for i in range(len(pad) // 2):
        d = a.ndim - 1 - i
        widths[d] = (int(pad[2 * i]), int(pad[2 * i + 1]))
    if mode == "constant":
        if any(b < 0 or e < 0 for b, e in widths):
            sl = tuple(slice(max(-b, 0), a.shape[i] - max(-e, 0))
                       for i, (b, e) in enumerate(widths))
            input = input[sl]  # noqa: A001
            widths = [(max(b, 0), max(e, 0)) for b, e in widths]
        return apply(top("pad", "ConstantPadNdBackward0", "none"), (input,),
                     {"pad_width": tuple(widths),
                      "value": 0.0 if value is None else float(value)})
    if mode not in _PAD_NAMES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value is not None and value != 0:
        raise ValueError(f'Padding mode "{mode}" doesn\'t take in value argument')
    k = len(pad) // 2
    if not ((k == 1 and a.ndim in (2, 3)) or (k == 2 and a.ndim in (3, 4))
            or (k == 3 and a.ndim in (4, 5))):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {a.ndim}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
    for d in range(a.ndim - k, a.ndim):
        b, e = widths[d]
        if mode == "reflect" and (b >= a.shape[d] or e >= a.shape[d]):
            raise RuntimeError(
                f"Argument #4: Padding size should be less than the corresponding input "
                f"dimension, but got: padding ({b}, {e}) at dimension {d} of input "
                f"{list(a.shape)}")
        if mode == "circular" and (b > a.shape[d] or e > a.shape[d]):
            raise RuntimeError("Padding value causes wrapping around more than once.")
    name = _PAD_NAMES[mode].format(k)
    op = _CIRCULAR if mode == "circular" else _named(ENN.PAD3D, name, "none")
    return apply(op, (input,), {"pad_width": tuple(widths), "mode": mode})


def _circular_vjp(n, g):
    """torch's circular pad backward. ATen's ``_pad_circular`` copies the input into the
    centre of the output, then, padded dim by padded dim from the last, copies the wrapped
    slices from the output itself (left pad, then right); the backward undoes those copies in
    reverse, each moving its gradient into its source slice (added there), so a corner's
    contributions are added in that order. Under create_graph, or with a negative pad, the
    engine's scatter-add (the same values up to the order of the additions)."""
    from ...engine.grad_mode import is_grad_enabled

    widths = n.attrs["pad_width"]
    if is_grad_enabled() or any(b < 0 or e < 0 for b, e in widths):
        return ENN.PAD3D.vjp(n, g)
    grad = np.array(g.data, copy=True)
    nd = grad.ndim

    def along(d, lo, hi):
        return tuple(slice(lo, hi) if i == d else slice(None) for i in range(nd))

    for d in range(nd):                      # (the forward's last dim first, undone: first)
        b, e = widths[d]
        size = grad.shape[d]
        copies = [(along(d, size - e, size), along(d, b, b + e))] if e else []
        copies += [(along(d, 0, b), along(d, size - b - e, size - e))] if b else []
        for dst, src in copies:
            moved = grad[dst].copy()
            grad[dst] = 0
            grad[src] = grad[src] + moved
    centre = tuple(slice(b, grad.shape[i] - e) for i, (b, e) in enumerate(widths))
    return type(g)._wrap(np.ascontiguousarray(grad[centre]), True)


_CIRCULAR = _named(ENN.PAD3D, "CopySlices", "none", vjp=_circular_vjp)


class _PadNd(Module):
    _n = 1
    _mode = "constant"

    def __init__(self, padding, value=None):
        super().__init__()
        n = self._n
        self.padding = tuple(int(v) for v in padding) if isinstance(padding, (list, tuple)) \
            else (int(padding),) * (2 * n)
        if len(self.padding) != 2 * n:
            raise ValueError(f"expected padding of {2 * n} values")
        if value is not None:
            self.value = value

    def forward(self, input):  # noqa: A002
        return pad(input, self.padding, self._mode, getattr(self, "value", None))

    def extra_repr(self):
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding, value):
        super().__init__(padding, value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


def _pad_layer(name, n, mode, base=_PadNd, module="padding"):
    cls = type(name, (base,), {"_n": n, "_mode": mode})
    cls.__module__ = f"torch.nn.modules.{module}"
    return cls


ReflectionPad1d = _pad_layer("ReflectionPad1d", 1, "reflect")
ReflectionPad2d = _pad_layer("ReflectionPad2d", 2, "reflect")
ReflectionPad3d = _pad_layer("ReflectionPad3d", 3, "reflect")
ReplicationPad1d = _pad_layer("ReplicationPad1d", 1, "replicate")
ReplicationPad2d = _pad_layer("ReplicationPad2d", 2, "replicate")
ReplicationPad3d = _pad_layer("ReplicationPad3d", 3, "replicate")
CircularPad1d = _pad_layer("CircularPad1d", 1, "circular")
CircularPad2d = _pad_layer("CircularPad2d", 2, "circular")
CircularPad3d = _pad_layer("CircularPad3d", 3, "circular")
ConstantPad1d = _pad_layer("ConstantPad1d", 1, "constant", _ConstantPadNd)
ConstantPad2d = _pad_layer("ConstantPad2d", 2, "constant", _ConstantPadNd)
ConstantPad3d = _pad_layer("ConstantPad3d", 3, "constant", _ConstantPadNd)


class _ZeroPadNd(_ConstantPadNd):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


ZeroPad1d = _pad_layer("ZeroPad1d", 1, "constant", _ZeroPadNd)
ZeroPad2d = _pad_layer("ZeroPad2d", 2, "constant", _ZeroPadNd)
ZeroPad3d = _pad_layer("ZeroPad3d", 3, "constant", _ZeroPadNd)


# ------------------------------------------------------------------------------ shuffles
def _perm_op(name):
    return top("transpose", name, "none")


def pixel_shuffle(input, upscale_factor):  # noqa: A002
    """(*, C r^2, H, W) -> (*, C, H r, W r)."""
    a = raw(input)
    r = int(upscale_factor)
    if a.ndim < 3:
        raise RuntimeError(f"pixel_shuffle expects input to have at least 3 dimensions, but "
                           f"got input with {a.ndim} dimension(s)")
    c, h, w = a.shape[-3:]
    if c % (r * r):
        raise RuntimeError("pixel_shuffle expects its input's 'channel' dimension to be "
                           f"divisible by the square of upscale_factor, but input.size(-3)={c}"
                           f" is not divisible by {r * r}")
    lead = a.shape[:-3]
    oc = c // (r * r)
    fwd = lambda x: np.ascontiguousarray(  # noqa: E731
        x.reshape(lead + (oc, r, r, h, w)).transpose(
            tuple(range(len(lead))) + tuple(len(lead) + i for i in (0, 3, 1, 4, 2)))
    ).reshape(lead + (oc, h * r, w * r))
    return _shuffle_apply(input, fwd, lambda g: pixel_unshuffle_arr(g, r, lead, oc, h, w),
                          "PixelShuffleBackward0")


def pixel_unshuffle_arr(g, r, lead, oc, h, w):
    return np.ascontiguousarray(g.reshape(lead + (oc, h, r, w, r)).transpose(
        tuple(range(len(lead))) + tuple(len(lead) + i for i in (0, 2, 4, 1, 3)))).reshape(
        lead + (oc * r * r, h, w))


def pixel_unshuffle(input, downscale_factor):  # noqa: A002
    """(*, C, H r, W r) -> (*, C r^2, H, W)."""
    a = raw(input)
    r = int(downscale_factor)
    if a.ndim < 3:
        raise RuntimeError(f"pixel_unshuffle expects input to have at least 3 dimensions, but "
                           f"got input with {a.ndim} dimension(s)")
    c, hh, ww = a.shape[-3:]
    if hh % r or ww % r:
        raise RuntimeError(f"pixel_unshuffle expects height to be divisible by "
                           f"downscale_factor, but input.size(-2)={hh} is not divisible by {r}")
    lead = a.shape[:-3]
    h, w = hh // r, ww // r

    def back(g):
        return np.ascontiguousarray(g.reshape(lead + (c, r, r, h, w)).transpose(
            tuple(range(len(lead))) + tuple(len(lead) + i for i in (0, 3, 1, 4, 2)))).reshape(
            lead + (c, hh, ww))

    return _shuffle_apply(input, lambda x: pixel_unshuffle_arr(x, r, lead, c, h, w), back,
                          "PixelUnshuffleBackward0")


def _shuffle_apply(input, fwd, back, name):  # noqa: A002
    """A permutation of the elements as one op: ``fwd`` its values, ``back`` its inverse
    (the gradient's permutation), each the other's VJP."""
    shape_in = raw(input).shape

    def vjp(n, g):
        return (apply(_perm_named(name + "_t", back, fwd), (g,)),)

    op = _perm_named(name, fwd, back, vjp)
    _ = shape_in
    return apply(op, (input,))


def _perm_named(name, fwd, back, vjp=None):
    base = OPS["transpose"]
    if vjp is None:
        def vjp(n, g):
            return (apply(_perm_named(name, back, fwd), (g,)),)
    op = _named(base, name, "none", forward=lambda x: fwd(x), vjp=vjp)
    op.diff_inputs = None
    return op


def channel_shuffle(input, groups):  # noqa: A002
    """(N, g * k, *) -> channels reordered as (N, k * g, *): channel i of group j goes to
    position i * g + j."""
    return _channel_shuffle(input, groups, "ChannelShuffleBackward0")


def native_channel_shuffle(input, groups):  # noqa: A002
    return _channel_shuffle(input, groups, "NotImplemented")


def _channel_shuffle(input, groups, name):  # noqa: A002
    a = raw(input)
    g = int(groups)
    if a.ndim < 3:
        raise RuntimeError(f"channel_shuffle expects input to have at least 3 dimensions, but "
                           f"got input with {a.ndim} dimension(s)")
    if g <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of "
                           f"groups:{g}")
    n, c = a.shape[:2]
    if c % g:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels "
                           f"and {g} groups.")
    rest = a.shape[2:]
    k = c // g
    fwd = lambda x: np.ascontiguousarray(  # noqa: E731
        x.reshape((n, g, k) + rest).swapaxes(1, 2)).reshape(a.shape)
    back = lambda x: np.ascontiguousarray(  # noqa: E731
        x.reshape((n, k, g) + rest).swapaxes(1, 2)).reshape(a.shape)
    return apply(_perm_named(name, fwd, back), (input,))


class PixelShuffle(Module):
    def __init__(self, upscale_factor):
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input):  # noqa: A002
        return pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self):
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    def __init__(self, downscale_factor):
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input):  # noqa: A002
        return pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self):
        return f"downscale_factor={self.downscale_factor}"


class ChannelShuffle(Module):
    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, input):  # noqa: A002
        return channel_shuffle(input, self.groups)

    def extra_repr(self):
        return f"groups={self.groups}"


PixelShuffle.__module__ = PixelUnshuffle.__module__ = "torch.nn.modules.pixelshuffle"
ChannelShuffle.__module__ = "torch.nn.modules.channelshuffle"


# ------------------------------------------------------------------------------ resampling
# The values are torch's CPU kernels' own (``_interp_kernels``); one op per mode does the
# forward and another its adjoint (the gradient), each the other's VJP.
_CL_FORMAT = {4: "channels_last", 5: "channels_last_3d"}


def _channels_last(a):
    """Whether ``a`` is laid out channels-last (torch's ``is_contiguous(ChannelsLast)``)."""
    fmt = _CL_FORMAT.get(a.ndim)
    return fmt is not None and bool(_storage.is_contiguous_as(a, fmt))


_TYPE_NAMES = {"uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int",
               "int64": "Long", "bool": "Bool"}


def _check_dtype(x, kind, out):
    """torch's dispatch: floats; uint8 for nearest and 2-d bilinear/bicubic; else the kernel
    that dispatches first raises (measured names)."""
    name = _TYPE_NAMES.get(x.dtype.name)
    if name is None or (name == "Byte" and (kind.startswith("nearest") or (
            kind in ("linear", "cubic") and x.ndim == 4))):
        return
    vec = x.ndim == 4 and (out[0] + out[1] <= 128 or (_channels_last(x) and x.shape[1] > 3))
    if vec and kind != "cubic":
        kernel = "upsample_{}2d_channels_last".format(
            "nearest" if kind.startswith("nearest") else "bilinear")
    else:
        kernel = "compute_indices_weights_" + ("nearest" if kind.startswith("nearest") else kind)
    raise NotImplementedError(f'"{kernel}" not implemented for \'{name}\'')


def _resample_fwd(x, spec=None):
    from .. import _capability as cap

    kind, ac, out, scales, aa = spec
    _check_dtype(x, kind, out)
    cl = _channels_last(x)
    y = K.forward(x, kind, ac, out, scales, aa, cl, cap.threads(), cap.lanes(x.dtype),
                  cap.fused())
    if cl and not x.flags.c_contiguous:  # torch keeps the input's memory format
        return _storage.as_format(np.ascontiguousarray(y), _CL_FORMAT[x.ndim])
    return np.ascontiguousarray(y)


def _resample_t_fwd(g, spec=None, in_size=()):
    from .. import _capability as cap

    kind, ac, out, scales, aa = spec
    return np.ascontiguousarray(K.backward(g, kind, ac, tuple(in_size), scales, aa,
                                           cap.fused()))


_RESAMPLE_OPS: dict = {}


def _resample_ops(name):
    ops = _RESAMPLE_OPS.get(name)
    if ops is None:
        base = OPS["transpose"]

        def vjp(n, g):
            spec = n.attrs["spec"]
            return (apply(adj, (g,), {"spec": spec,
                                      "in_size": n.in_meta[0][0][-len(spec[2]):]}),)

        def adj_vjp(n, gg):
            return (apply(fwd, (gg,), {"spec": n.attrs["spec"]}),)

        fwd = _named(base, name, "none", _resample_fwd, vjp)
        adj = _named(base, name.replace("Backward0", "BackwardBackward0"), "none",
                     _resample_t_fwd, adj_vjp)
        fwd.diff_inputs = adj.diff_inputs = None
        ops = _RESAMPLE_OPS[name] = (fwd, adj)
    return ops[0]


_MODE_NAMES = {"nearest": "UpsampleNearest{}DBackward0",
               "nearest-exact": "UpsampleNearestExact{}DBackward0",
               "linear": "UpsampleLinear1DBackward0", "bilinear": "UpsampleBilinear2DBackward0",
               "trilinear": "UpsampleTrilinear3DBackward0",
               "bicubic": "UpsampleBicubic2DBackward0"}
_AA_NAMES = {"bilinear": "UpsampleBilinear2DAaBackward0",
             "bicubic": "UpsampleBicubic2DAaBackward0"}
_MODE_DIMS = {"linear": 1, "bilinear": 2, "trilinear": 3, "bicubic": 2}
_KIND = {"linear": "linear", "bilinear": "linear", "trilinear": "linear", "bicubic": "cubic",
         "nearest": "nearest", "nearest-exact": "nearest-exact"}
_MODES = "nearest | linear | bilinear | bicubic | trilinear | area | nearest-exact"


def _check_sizes(ins, out):
    """ATen's upsample_{1,2,3}d_common_check: every size positive."""
    if all(n > 0 for n in ins) and all(o > 0 for o in out):
        return
    names = ("D", "H", "W")[3 - len(ins):]
    a = ", ".join(f"{k}: {v}" for k, v in zip(names, ins))
    b = ", ".join(f"{k}: {v}" for k, v in zip(names, out))
    sep = " and output" if len(ins) == 1 else " output"
    raise RuntimeError(f"Input and output sizes should be greater than 0, but got input ({a})"
                       f"{sep} ({b})")


def interpolate(input, size=None, scale_factor=None, mode="nearest",  # noqa: A002
                align_corners=None, recompute_scale_factor=None, antialias=False):
    """Resize the spatial dims (all after the first two) to ``size`` or by ``scale_factor``
    (torch.nn.functional.interpolate's checks, in its order)."""
    a = raw(input)
    nd = a.ndim - 2
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating "
                             "modes: linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if isinstance(size, (list, tuple)):
            if len(size) != nd:
                raise ValueError(
                    f"Input and output must have the same number of spatial dimensions, but "
                    f"got input with spatial dimensions of {list(a.shape[2:])} and output size "
                    f"of {size}. Please provide input tensor in (N, C, d1, d2, ...,dK) format "
                    "and output size in (o1, o2, ...,oK) format.")
            out = tuple(int(v) for v in size)
        else:
            out = (int(size),) * nd
        scales = (None,) * nd
    elif scale_factor is not None:
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != nd:
                raise ValueError(
                    f"Input and scale_factor must have the same number of spatial dimensions, "
                    f"but got input with spatial dimensions of {list(a.shape[2:])} and "
                    f"scale_factor of shape {scale_factor}. Please provide input tensor in "
                    "(N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format.")
            scales = tuple(float(v) for v in scale_factor)
        else:
            scales = (float(scale_factor),) * nd
        out = tuple(int(n * s) for n, s in zip(a.shape[2:], scales))
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if recompute_scale_factor or mode == "area":
        scales = (None,) * nd
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and a.ndim == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos "
                         "modes and requires a 4-D tensor as input")
    if mode == "area" and 1 <= nd <= 3:
        from . import _pool_more as P
        from . import _spatial as S

        return (P.adaptive_avg_pool1d, S.adaptive_avg_pool2d, P.adaptive_avg_pool3d)[nd - 1](
            input, out)
    if mode == "lanczos" and nd == 2:
        raise NotImplementedError("interpolate(mode='lanczos') is not supported by gradrepl")
    if mode in ("nearest", "nearest-exact") and 1 <= nd <= 3:
        name = _MODE_NAMES[mode].format(nd)
    elif mode in _MODE_DIMS and _MODE_DIMS[mode] == nd:
        name = (_AA_NAMES if antialias else _MODE_NAMES)[mode]
    elif mode in _MODE_DIMS and 1 <= nd <= 3:
        want = {1: "3D", 2: "4D", 3: "5D"}[_MODE_DIMS[mode]]
        raise NotImplementedError(f"Got {a.ndim}D input, but {mode} mode needs {want} input")
    else:
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {a.ndim}D) for the "
            f"modes: {_MODES} (got {mode})")
    _check_sizes(a.shape[2:], out)
    spec = (_KIND[mode], bool(align_corners), out, scales, bool(antialias))
    return apply(_resample_ops(name), (input,), {"spec": spec})


# ------------------------------------------------------------------------------ adaptive average
def _cl2d(a):
    """torch's suggest_memory_format() == ChannelsLast of a 4-d array."""
    return a.ndim == 4 and not a.flags.c_contiguous and _channels_last(a)


def _adaptive_fwd(x, out=()):
    from .. import _capability as cap

    if x.ndim == len(out) + 1:  # unbatched: the kernels' channels are its first dim
        return _adaptive_fwd(x[None], out)[0]
    cl = _cl2d(x)
    y = K.adaptive_avg_forward(x, out, cl, cap.lanes(x.dtype))
    return _storage.as_format(y, "channels_last") if cl else y


def _nonempty(a, nd, what, fn):
    """ATen's check of adaptive_avg_pool{nd}d(_backward): no empty non-batch dimension."""
    for d in range(1 if a.ndim == nd + 2 else 0, a.ndim):
        if a.shape[d] == 0:
            raise RuntimeError(
                f"{fn}(): Expected {what} to have non-zero size for non-batch dimensions, but "
                f"{what} has sizes {list(a.shape)} with dimension {d} being empty")


def _adaptive_t_fwd(g, out=(), in_size=()):
    from .. import _capability as cap

    nd = len(out)
    _nonempty(g, nd, "grad_output", f"adaptive_avg_pool{nd}d_backward")
    if g.ndim == len(out) + 1:
        return _adaptive_t_fwd(g[None], out, in_size)[0]
    return K.adaptive_avg_backward(g, tuple(in_size), _cl2d(g), cap.lanes(g.dtype))


_ADAPTIVE_OPS: dict = {}


def _adaptive_op(nd):
    op = _ADAPTIVE_OPS.get(nd)
    if op is None:
        base = OPS["transpose"]
        name = f"AdaptiveAvgPool{nd}DBackward0"

        def vjp(n, g):
            out = n.attrs["out"]
            return (apply(adj, (g,), {"out": out, "in_size": n.in_meta[0][0][-len(out):]}),)

        def adj_vjp(n, gg):
            return (apply(op, (gg,), {"out": n.attrs["out"]}),)

        op = _named(base, name, "none", _adaptive_fwd, vjp)
        adj = _named(base, name.replace("Backward0", "BackwardBackward0"), "none",
                     _adaptive_t_fwd, adj_vjp)
        op.diff_inputs = adj.diff_inputs = None
        _ADAPTIVE_OPS[nd] = op
    return op


def adaptive_avg_pool(input, out):  # noqa: A002
    """torch's adaptive_avg_pool2d / 3d kernels (float32/float64, batched or not) to the
    output size ``out``; None for the inputs they do not handle (the caller's general op)."""
    a = raw(input)
    nd = len(out)
    if nd == 2 and a.dtype.name in _TYPE_NAMES:
        raise NotImplementedError(f'"adaptive_avg_pool2d" not implemented for '
                                  f"'{_TYPE_NAMES[a.dtype.name]}'")
    if a.dtype not in (np.float32, np.float64) or a.ndim not in (nd + 1, nd + 2) \
            or min(out) < 0:
        return None
    _nonempty(a, nd, "input", f"adaptive_avg_pool{nd}d")
    return apply(_adaptive_op(nd), (input,), {"out": tuple(int(v) for v in out)})


def _deprecated(name):
    from ._backward_hooks import _warn_at_user_frame

    _warn_at_user_frame(f"`nn.functional.{name}` is deprecated. Use "
                        "`nn.functional.interpolate` instead.")


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):  # noqa: A002
    _deprecated("upsample")
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):  # noqa: A002
    _deprecated("upsample_nearest")
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):  # noqa: A002
    _deprecated("upsample_bilinear")
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


class Upsample(Module):
    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None,
                 recompute_scale_factor=None):
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        if isinstance(scale_factor, tuple):
            self.scale_factor = tuple(float(f) for f in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input):  # noqa: A002
        return interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                           recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self):
        if self.scale_factor is not None:
            info = "scale_factor=" + repr(self.scale_factor)
        else:
            info = "size=" + repr(self.size)
        return info + ", mode=" + repr(self.mode)


class UpsamplingNearest2d(Upsample):
    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)


for _c in (Upsample, UpsamplingNearest2d, UpsamplingBilinear2d):
    _c.__module__ = "torch.nn.modules.upsampling"


# ------------------------------------------------------------------------------ fold
def _pair(v):
    return tuple(int(x) for x in v) if isinstance(v, (list, tuple)) else (int(v), int(v))


def _unfold_maps(h, w, k, d, p, s):
    oh = (h + 2 * p[0] - d[0] * (k[0] - 1) - 1) // s[0] + 1
    ow = (w + 2 * p[1] - d[1] * (k[1] - 1) - 1) // s[1] + 1
    ih = (np.arange(oh) * s[0] - p[0])[None, :] + (np.arange(k[0]) * d[0])[:, None]  # (kh, oh)
    iw = (np.arange(ow) * s[1] - p[1])[None, :] + (np.arange(k[1]) * d[1])[:, None]  # (kw, ow)
    return oh, ow, ih, iw


def _unfold_fwd(x, k=(1, 1), d=(1, 1), p=(0, 0), s=(1, 1), hw=(1, 1)):
    n, c, h, w = x.shape
    oh, ow, ih, iw = _unfold_maps(h, w, k, d, p, s)
    xp = np.pad(x, ((0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])))
    cols = xp[:, :, (ih + p[0])[:, None, :, None], (iw + p[1])[None, :, None, :]]
    return np.ascontiguousarray(cols).reshape(n, c * k[0] * k[1], oh * ow)


def _fold_fwd(cols, k=(1, 1), d=(1, 1), p=(0, 0), s=(1, 1), hw=(1, 1)):
    n = cols.shape[0]
    c = cols.shape[1] // (k[0] * k[1])
    h, w = hw
    oh, ow, ih, iw = _unfold_maps(h, w, k, d, p, s)
    out = np.zeros((n, c, h + 2 * p[0], w + 2 * p[1]), cols.dtype)
    cv = cols.reshape(n, c, k[0], k[1], oh, ow)
    for i in range(k[0]):
        for j in range(k[1]):
            np.add.at(out, (slice(None), slice(None), (ih[i] + p[0])[:, None],
                            (iw[j] + p[1])[None, :]), cv[:, :, i, j])
    return np.ascontiguousarray(out[:, :, p[0]:p[0] + h, p[1]:p[1] + w])


_FOLD_OPS: dict = {}


def _fold_ops():
    if not _FOLD_OPS:
        base = OPS["transpose"]

        def un_vjp(n, g):
            return (apply(fo, (g,), n.attrs),)

        def fo_vjp(n, g):
            return (apply(un, (g,), n.attrs),)

        un = _named(base, "Im2ColBackward0", "none", _unfold_fwd, un_vjp)
        fo = _named(base, "Col2ImBackward0", "none", _fold_fwd, fo_vjp)
        un.diff_inputs = fo.diff_inputs = None
        _FOLD_OPS.update(un=un, fo=fo)
    return _FOLD_OPS["un"], _FOLD_OPS["fo"]


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):  # noqa: A002
    """Sliding local blocks of a (N, C, H, W) input as columns (N, C * prod(k), L)."""
    a = raw(input)
    if a.ndim not in (3, 4):
        raise NotImplementedError(f"Input Error: Only 3D or 4D input Tensors are supported "
                                  f"(got {a.ndim}D)")
    attrs = {"k": _pair(kernel_size), "d": _pair(dilation), "p": _pair(padding),
             "s": _pair(stride), "hw": a.shape[-2:]}
    x = input if a.ndim == 4 else _ops.unsqueeze(input, 0)
    out = apply(_fold_ops()[0], (x,), attrs)
    return out if a.ndim == 4 else _ops.squeeze(out, 0)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):  # noqa: A002
    """The columns (N, C * prod(k), L) summed back into a (N, C, *output_size) image."""
    a = raw(input)
    if a.ndim not in (2, 3):
        raise NotImplementedError(f"Input Error: Only unbatched (2D) or batched (3D) input "
                                  f"Tensors are supported (got {a.ndim}D)")
    k = _pair(kernel_size)
    hw = _pair(output_size)
    attrs = {"k": k, "d": _pair(dilation), "p": _pair(padding), "s": _pair(stride), "hw": hw}
    oh, ow, _, _ = _unfold_maps(hw[0], hw[1], k, attrs["d"], attrs["p"], attrs["s"])
    if a.shape[-2] % (k[0] * k[1]):
        raise RuntimeError(
            f"Expected size of input's dimension 1 to be divisible by the product of "
            f"kernel_size, but got input.size(1)={a.shape[-2]} and kernel_size={k}")
    if a.shape[-1] != oh * ow:
        raise RuntimeError(
            f"Given output_size={hw}, kernel_size={k}, dilation={attrs['d']}, padding="
            f"{attrs['p']}, stride={attrs['s']}, expected size of input's dimension 2 to match "
            f"the calculated number of sliding blocks {oh} * {ow} = {oh * ow}, but got "
            f"input.size(2)={a.shape[-1]}.")
    x = input if a.ndim == 3 else _ops.unsqueeze(input, 0)
    out = apply(_fold_ops()[1], (x,), attrs)
    return out if a.ndim == 3 else _ops.squeeze(out, 0)


class Fold(Module):
    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.output_size = output_size
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input):  # noqa: A002
        return fold(input, self.output_size, self.kernel_size, self.dilation, self.padding,
                    self.stride)

    def extra_repr(self):
        return (f"output_size={self.output_size}, kernel_size={self.kernel_size}, "
                f"dilation={self.dilation}, padding={self.padding}, stride={self.stride}")


class Unfold(Module):
    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input):  # noqa: A002
        return unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, dilation={self.dilation}, padding="
                f"{self.padding}, stride={self.stride}")


Fold.__module__ = Unfold.__module__ = "torch.nn.modules.fold"


# ------------------------------------------------------------------------------ grids
def _align_corners_warning(align_corners):
    """torch's F.grid_sample/F.affine_grid without ``align_corners``: a UserWarning from the
    caller's line (Python's rule: once a line), then align_corners=False."""
    if align_corners is None:
        from ._backward_hooks import _warn_at_user_frame

        _warn_at_user_frame("Default grid_sample and affine_grid behavior has changed to "
                            "align_corners=False since 1.3.0. Please specify align_corners=True "
                            "if the old behavior is desired. See the documentation of "
                            "grid_sample for details.")


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros",  # noqa: A002
                align_corners=None):
    """Sample ``input`` (N, C, H, W) at the normalised ``grid`` (N, Ho, Wo, 2) positions
    (torch's CPU kernels, ``_grid_sample``; bilinear, nearest, bicubic)."""
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', "
                         f"'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    a = raw(input)
    if a.ndim != 4 or (mode == "bicubic" and not (
            a.dtype in (np.float32, np.float64) and raw(grid).dtype == a.dtype)):
        raise NotImplementedError("grid_sample: gradrepl supports 4-d bilinear/nearest, and "
                                  "bicubic in float32/float64, only")
    _align_corners_warning(align_corners)
    from .._grid_sample import torch_grid_sample_op   # torch's CPU kernels (GridSamplerKernel)

    return apply(torch_grid_sample_op(_named), (input, grid), {"mode": mode, "padding_mode": padding_mode,
                                     "align_corners": bool(align_corners), "round_even": True})


def affine_grid(theta, size, align_corners=None):
    """The (N, H, W, 2) sampling grid of the affine maps ``theta`` (N, 2, 3)."""
    t = raw(theta)
    if len(size) != 4 or t.ndim != 3 or t.shape[-2:] != (2, 3):
        raise NotImplementedError("affine_grid: gradrepl supports 2-d grids (theta N x 2 x 3)")
    _align_corners_warning(align_corners)
    if len(size) == 4 and t.dtype in (np.float32, np.float64):
        from ._affine_grid import torch_affine_grid_op

        return apply(torch_affine_grid_op(_named), (theta,),
                     {"out_shape": tuple(int(v) for v in size),
                      "align_corners": bool(align_corners)})
    op = _named(NM.AFFINE_GRID, "AffineGridGeneratorBackward0")
    return apply(op, (theta,), {"out_shape": tuple(int(v) for v in size),
                                "align_corners": bool(align_corners)})


LAYERS = [ReflectionPad1d, ReflectionPad2d, ReflectionPad3d, ReplicationPad1d,
          ReplicationPad2d, ReplicationPad3d, ZeroPad1d, ZeroPad2d, ZeroPad3d, ConstantPad1d,
          ConstantPad2d, ConstantPad3d, CircularPad1d, CircularPad2d, CircularPad3d,
          PixelShuffle, PixelUnshuffle, ChannelShuffle, Upsample, UpsamplingNearest2d,
          UpsamplingBilinear2d, Fold, Unfold]
_ = SH
FUNCTIONAL = {"pad": pad, "pixel_shuffle": pixel_shuffle, "pixel_unshuffle": pixel_unshuffle,
              "channel_shuffle": channel_shuffle,
              "native_channel_shuffle": native_channel_shuffle, "interpolate": interpolate,
              "upsample": upsample, "upsample_nearest": upsample_nearest,
              "upsample_bilinear": upsample_bilinear, "unfold": unfold, "fold": fold,
              "grid_sample": grid_sample, "affine_grid": affine_grid}
TORCH = {"pixel_shuffle": pixel_shuffle, "pixel_unshuffle": pixel_unshuffle,
         "channel_shuffle": channel_shuffle, "native_channel_shuffle": native_channel_shuffle,
         "constant_pad_nd": lambda input, pad, value=0: globals()["pad"](input, pad, "constant",
                                                                          value)}
