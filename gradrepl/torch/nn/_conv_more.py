"""torch's convolutions of every rank on the engine's conv kernels: ``conv1d``/``2d``/``3d``,
``conv_transpose1d``/``2d``/``3d``, ``conv_tbc``, each call one ConvolutionBackward0 node (bias
included, as torch records it), and the layers ``Conv1d``/``Conv3d``, ``ConvTranspose1d``/
``2d``/``3d`` and their lazy forms.

1-d runs as 2-d of height 1 (``engine/ops/conv.py``), 3-d on ``engine/ops/conv3d.py``; the
VJP is the family's (``conv_family``): the input gradient a transposed convolution, the
filter's the grad-filter op, so gradients of gradients work. Large batches run in slices of
samples (bounded column matrices)."""
from __future__ import annotations

from .. import _bfloat16 as _bf16  # (torch.autocast's state)

import copy
import math

import numpy as np

from ...engine.ops import conv as C
from ...engine.ops import conv3d as C3
from ...engine.ops import reduce as R
from ...engine.ops import shape as SH
from ...engine.grad_mode import is_grad_enabled
from ...engine.registry import apply, exact_first_order, needs_grad
from .. import _dtypes, _ops
from .._base import raw
from .._tensor import Tensor
from . import _double_backward, _onednn_conv, _onednn_convT, init
from ._spatial import check_kernel_fits
from .modules import Module, _materialize
from .parameter import Parameter, UninitializedParameter

_wrap = Tensor._wrap
_CHUNK = 192 << 20  # bytes of column matrix per slice of samples


def _ntuple(v, n, name="value"):
    if isinstance(v, (list, tuple)):
        if len(v) == 1 and n > 1:
            return (int(v[0]),) * n
        return tuple(int(x) for x in v)
    return (int(v),) * n


# ------------------------------------------------------------------------------ kernels
def _kernel_rank(nd):
    return 3 if nd == 3 else 2


def _lift(a, nd):
    """An (N, C, L) array as (N, C, 1, L) for the 2-d kernels."""
    return a[:, :, None] if nd == 1 else a


def _slices(n, per_sample):
    step = max(1, _CHUNK // max(per_sample, 1))
    return [(i, min(n, i + step)) for i in range(0, n, step)]


@C.with_chain_limit(C._CHAIN_LIMIT)   # (torch's recorded conv bits: engine/ops/conv.py)
def _conv_fwd(x, w, *b, nd=2, transposed=False, stride=(), padding=(), dilation=(), groups=1,
              out_size=None):
    y = _onednn_conv.try_conv(x, w, b[0] if b else None, nd, transposed, stride, padding,
                              dilation, groups, out_size)
    if y is None and transposed:  # (strided: oneDNN's brgemm kernel, _onednn_convT)
        y = _onednn_convT.try_forward(x, w, b[0] if b else None, nd, stride, padding,
                                      dilation, groups, out_size)
    if y is not None:  # (torch's oneDNN kernel here: its summation order)
        return y
    xk, wk = _lift(x, nd), _lift(w, nd)
    geom = dict(stride=stride, padding=padding, dilation=dilation, groups=groups)
    spatial = math.prod(xk.shape[2:])
    if transposed:  # column matrix per sample: C_out * prod(k) * prod(input)
        per = wk.shape[1] * groups * math.prod(wk.shape[2:]) * spatial * x.itemsize
        if nd == 3:
            fn = lambda a: C3._conv3d_transpose_fwd(a, wk, out_size=out_size, **geom)  # noqa
        else:
            fn = lambda a: C._conv2d_transpose_fwd(a, wk, out_hw=out_size, **geom)  # noqa
    else:  # C_in * prod(k) * (about) prod(input)
        per = wk.shape[1] * groups * math.prod(wk.shape[2:]) * spatial * x.itemsize
        fn = (lambda a: C3._conv3d_fwd(a, wk, **geom)) if nd == 3 else \
            (lambda a: C._conv2d_fwd(a, wk, **geom))
    n = xk.shape[0]
    parts = _slices(n, per)
    if len(parts) == 1:
        y = fn(xk)
    else:
        y = np.concatenate([fn(xk[a:e]) for a, e in parts], axis=0)
    if nd == 1:
        y = y[:, :, 0]
    if b:
        y = y + b[0].reshape((1, -1) + (1,) * nd).astype(y.dtype)
    return np.ascontiguousarray(y)


def _family(nd):
    if nd == 3:
        return C3.conv3d, C3.conv3d_transpose, C3.conv3d_grad_filter, "out_size"
    return C.conv2d, C.conv2d_transpose, C.conv2d_grad_filter, "out_hw"


@exact_first_order
@C.with_chain_limit(C._CHAIN_LIMIT)
def _conv_vjp(n, g):
    if is_grad_enabled():   # (create_graph: torch's ConvolutionBackwardBackward0 node)
        out = _double_backward.conv_first_order(n, g, _conv_vjp)
        if out is not None:
            return out
    a = n.attrs
    nd = a["nd"]
    conv, transpose, grad_filter, out_kw = _family(nd)
    geom = {k: a[k] for k in ("stride", "padding", "dilation", "groups")}
    x, w = n.inputs[0], n.inputs[1]
    lift = (lambda t: SH.unsqueeze(t, (2,))) if nd == 1 else (lambda t: t)
    drop = (lambda t: SH.squeeze(t, (2,))) if nd == 1 else (lambda t: t)
    xk, wk, gk = lift(x), lift(w), lift(g)
    xs = n.in_meta[0][0]
    ws = n.in_meta[1][0]
    ks = (1,) + tuple(ws[2:]) if nd == 1 else tuple(ws[2:])
    outs = (1,) + tuple(xs[2:]) if nd == 1 else tuple(xs[2:])
    dx = dw = db = None
    if not a.get("transposed") and not is_grad_enabled():  # (torch's oneDNN kernels here)
        want = tuple(needs_grad(n, i) for i in range(len(n.inputs)))
        ex, ew, eb = _onednn_conv.try_backward(x.data, w.data, g.data, nd, geom["stride"],
                                               geom["padding"], geom["dilation"],
                                               geom["groups"], want)
        if ex is None and want[0]:  # (strided: brgconv_strided's backward-data)
            ex = _onednn_convT.conv_input_grad(x.data.shape, w.data, g.data, nd,
                                               geom["stride"], geom["padding"],
                                               geom["dilation"], geom["groups"])
        wrap = type(g)._wrap
        dx = wrap(ex, True) if ex is not None and want[0] else None
        dw = wrap(ew, True) if ew is not None and want[1] else None
        db = wrap(eb, True) if eb is not None and len(want) > 2 and want[2] else None
    if a.get("transposed") and not is_grad_enabled():  # (strided: _onednn_convT)
        want = tuple(needs_grad(n, i) for i in range(len(n.inputs)))
        ex, ew, eb = _onednn_convT.try_backward(x.data, w.data, g.data, nd, geom["stride"],
                                                geom["padding"], geom["dilation"],
                                                geom["groups"], want)
        wrap = type(g)._wrap
        dx = wrap(ex, True) if ex is not None else None
        dw = wrap(ew, True) if ew is not None else None
        db = wrap(eb, True) if eb is not None else None
    if a.get("transposed"):
        if needs_grad(n, 0) and dx is None:
            dx = drop(conv(gk, wk, **geom))
        if needs_grad(n, 1) and dw is None:
            dw = drop(grad_filter(gk, xk, ksize=ks, **geom))
    else:
        if needs_grad(n, 0) and dx is None:
            dx = drop(transpose(gk, wk, **{out_kw: outs}, **geom))
        if needs_grad(n, 1) and dw is None:
            dw = drop(grad_filter(xk, gk, ksize=ks, **geom))
    if len(n.inputs) > 2:
        if needs_grad(n, 2) and db is None:
            db = R.sum(g, (0,) + tuple(range(2, 2 + nd)))
        return dx, dw, db
    return dx, dw


def _named(base, name, forward, vjp):
    op = copy.copy(base)
    op.torch_name = name
    op.torch_saves = "all"
    op.torch_inputs = None
    op.reads_inputs = True
    op.saves_inputs = False
    op.forward = forward
    op.vjp = vjp
    op.diff_inputs = None
    return op


CONV = _named(C3.CONV3D, "ConvolutionBackward0", _conv_fwd, _conv_vjp)


def _legacy(a):
    return f"torch.{_dtypes.from_np(a.dtype).legacy}Tensor"


def _check(nd, a, w, groups, bias, transposed, fname):
    if a.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to "
                           f"{fname}, but got input of size: {list(a.shape)}")
    if w.ndim != nd + 2:
        raise RuntimeError(f"weight should have at least three dimensions")
    c = a.shape[-nd - 1]
    if transposed:
        if c != w.shape[0]:
            raise RuntimeError(
                f"Given transposed=1, weight of size {list(w.shape)}, expected input"
                f"{list(a.shape if a.ndim == nd + 2 else (1,) + a.shape)} to have "
                f"{w.shape[0]} channels, but got {c} channels instead")
    elif c != w.shape[1] * groups:
        raise RuntimeError(
            f"Given groups={groups}, weight of size {list(w.shape)}, expected input"
            f"{list(a.shape if a.ndim == nd + 2 else (1,) + a.shape)} to have "
            f"{w.shape[1] * groups} channels, but got {c} channels instead")
    if a.dtype != w.dtype or (bias is not None and raw(bias).dtype != a.dtype):
        raise RuntimeError(f"Input type ({_legacy(a)}) and weight type ({_legacy(w)}) should "
                           "be the same or input should be a MKLDNN tensor and weight is a "
                           "dense tensor")


def _kernel_geom(nd, stride, pads, dilation):
    """The kernels' geometry: 1-d lifted to 2-d (height 1); ``pads`` (before, after) pairs."""
    flat = tuple(v for p in pads for v in p)
    if nd == 1:
        return (1,) + stride, (0, 0) + flat, (1,) + dilation
    return stride, flat, dilation


def _conv(nd, input, weight, bias, stride, padding, dilation, groups, fname):  # noqa: A002
    a, w = raw(input), raw(weight)
    _check(nd, a, w, groups, bias, False, fname)
    unbatched = a.ndim == nd + 1
    if unbatched:
        input = _ops.unsqueeze(input, 0)  # noqa: A001
    stride, dilation = _ntuple(stride, nd), _ntuple(dilation, nd)
    if isinstance(padding, str):
        if padding == "valid":
            pads = [(0, 0)] * nd
        elif padding == "same":
            if any(s != 1 for s in stride):
                raise RuntimeError("padding='same' is not supported for strided convolutions")
            pads = []
            for k, d in zip(w.shape[2:], dilation):
                total = d * (k - 1)
                pads.append((total // 2, total - total // 2))
        else:
            raise RuntimeError(f"Invalid padding string: '{padding}'")
    else:
        pads = [(p, p) for p in _ntuple(padding, nd)]
    if any(p < 0 for pp in pads for p in pp):
        raise RuntimeError("negative padding is not supported")
    check_kernel_fits(raw(input).shape[2:], w.shape[2:], pads, dilation)
    s, p, d = _kernel_geom(nd, stride, pads, dilation)
    attrs = {"nd": nd, "stride": s, "padding": p, "dilation": d, "groups": int(groups)}
    ins = (input, weight) if bias is None else (input, weight, bias)
    out = apply(CONV, ins, attrs)
    return _ops.squeeze(out, 0) if unbatched else out


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):  # noqa: A002
    """1-D cross-correlation of ``input`` (N, C, L) with ``weight`` (O, C/groups, k)."""
    if _bf16.AUTOCAST[0] is not None:
        input, weight, bias = _bf16.lower(input, weight, bias)  # noqa: A001
    return _conv(1, input, weight, bias, stride, padding, dilation, groups, "conv1d")


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):  # noqa: A002
    if _bf16.AUTOCAST[0] is not None:
        input, weight, bias = _bf16.lower(input, weight, bias)  # noqa: A001
    return _conv(2, input, weight, bias, stride, padding, dilation, groups, "conv2d")


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):  # noqa: A002
    """3-D cross-correlation of ``input`` (N, C, D, H, W) with ``weight`` (O, C/groups, kD,
    kH, kW)."""
    if _bf16.AUTOCAST[0] is not None:
        input, weight, bias = _bf16.lower(input, weight, bias)  # noqa: A001
    return _conv(3, input, weight, bias, stride, padding, dilation, groups, "conv3d")


def _conv_t(nd, input, weight, bias, stride, padding, output_padding, groups,  # noqa: A002
            dilation, fname):
    a, w = raw(input), raw(weight)
    if isinstance(padding, str):
        raise RuntimeError(f"{fname}(): argument 'padding' (position 5) must be tuple of ints, "
                           f"not str")
    _check(nd, a, w, groups, bias, True, fname)
    unbatched = a.ndim == nd + 1
    if unbatched:
        input = _ops.unsqueeze(input, 0)  # noqa: A001
        a = raw(input)
    stride, dilation = _ntuple(stride, nd), _ntuple(dilation, nd)
    padding, output_padding = _ntuple(padding, nd), _ntuple(output_padding, nd)
    for op_, s, d in zip(output_padding, stride, dilation):
        if op_ >= s and op_ >= d:
            raise RuntimeError("output padding must be smaller than either stride or dilation,"
                               f" but got output_padding_height: {op_} output_padding_width: "
                               f"{op_} stride_height: {s} stride_width: {s} dilation_height: "
                               f"{d} dilation_width: {d}")
    out_size = tuple((n - 1) * s - 2 * p + d * (k - 1) + op_ + 1 for n, s, p, d, k, op_ in zip(
        a.shape[2:], stride, padding, dilation, w.shape[2:], output_padding))
    if any(o <= 0 for o in out_size):
        raise RuntimeError(f"Given input size per channel: {list(a.shape[2:])}. Calculated "
                           f"output size per channel: {list(out_size)}. Output size is too "
                           "small")
    s, p, d = _kernel_geom(nd, stride, [(v, v) for v in padding], dilation)
    attrs = {"nd": nd, "stride": s, "padding": p, "dilation": d, "groups": int(groups),
             "transposed": True, "out_size": ((1,) + out_size) if nd == 1 else out_size}
    ins = (input, weight) if bias is None else (input, weight, bias)
    out = apply(CONV, ins, attrs)
    return _ops.squeeze(out, 0) if unbatched else out


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0,  # noqa: A002
                     groups=1, dilation=1):
    """1-D transposed convolution ("deconvolution"); ``weight`` (C_in, O/groups, k)."""
    return _conv_t(1, input, weight, bias, stride, padding, output_padding, groups, dilation,
                   "conv_transpose1d")


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0,  # noqa: A002
                     groups=1, dilation=1):
    return _conv_t(2, input, weight, bias, stride, padding, output_padding, groups, dilation,
                   "conv_transpose2d")


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0,  # noqa: A002
                     groups=1, dilation=1):
    return _conv_t(3, input, weight, bias, stride, padding, output_padding, groups, dilation,
                   "conv_transpose3d")


def conv_tbc(input, weight, bias, pad=0):  # noqa: A002
    """Time-batch-channel 1-D convolution: ``input`` (T, B, C_in), ``weight`` (k, C_in,
    C_out), ``bias`` (C_out,), ``pad`` zeros on both ends of the time axis."""
    a, w = raw(input), raw(weight)
    if a.ndim != 3:
        raise RuntimeError("Input must have 3 dims: time, batch, in_channel")
    if w.ndim != 3:
        raise RuntimeError("Weight tensor must have 3 dims: kernel_width, in_channels, "
                           "out_channels.")
    if raw(bias).ndim != 1:
        raise RuntimeError("Bias must be 1-D")
    if a.shape[2] != w.shape[1]:
        raise RuntimeError("Input dim 2 (input channels) is not == dim 1 in the weight tensor")
    x = _ops.permute(input, (1, 2, 0))
    wt = _ops.permute(weight, (2, 1, 0))
    y = conv1d(x, wt, bias, padding=int(pad))
    return _ops.permute(y, (2, 0, 1))


# ------------------------------------------------------------------------------ layers
def _np_dtype(dtype):
    return _dtypes.to_np(dtype) if dtype is not None else _dtypes.default_float()


_PAD_MODES = ("zeros", "reflect", "replicate", "circular")


class _ConvNd(Module):
    _n = 2
    _transposed = False
    __constants__ = ["stride", "padding", "dilation", "groups", "padding_mode",
                     "output_padding", "in_channels", "out_channels", "kernel_size"]

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, bias=True, padding_mode="zeros", device=None,
                 dtype=None, output_padding=0):
        super().__init__()
        n = self._n
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of "
                                 "{'valid', 'same'}")
            if padding == "same" and any(s != 1 for s in _ntuple(stride, n)):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in _PAD_MODES:
            raise ValueError(f"padding_mode must be one of {list(_PAD_MODES)}, but got "
                             f"padding_mode='{padding_mode}'")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = _ntuple(kernel_size, n)
        self.stride = _ntuple(stride, n)
        self.padding = padding if isinstance(padding, str) else _ntuple(padding, n)
        self.dilation = _ntuple(dilation, n)
        self.transposed = self._transposed
        self.output_padding = _ntuple(output_padding, n)
        self.groups = groups
        self.padding_mode = padding_mode
        if isinstance(self.padding, str):
            self._reversed_padding_repeated_twice = [0, 0] * n
            if padding == "same":
                for d, k, i in zip(self.dilation, self.kernel_size, range(n - 1, -1, -1)):
                    total = d * (k - 1)
                    left = total // 2
                    self._reversed_padding_repeated_twice[2 * i] = left
                    self._reversed_padding_repeated_twice[2 * i + 1] = total - left
        else:
            self._reversed_padding_repeated_twice = [p for p in reversed(self.padding)
                                                     for _ in range(2)]
        self._make_parameters(in_channels, out_channels, bias, dtype)

    def _weight_shape(self, in_channels):
        if self._transposed:
            return (in_channels, self.out_channels // self.groups) + self.kernel_size
        return (self.out_channels, in_channels // self.groups) + self.kernel_size

    def _make_parameters(self, in_channels, out_channels, bias, dtype):
        dt = _np_dtype(dtype)
        self.weight = Parameter(_wrap(np.zeros(self._weight_shape(in_channels), dt)))
        if bias:
            self.bias = Parameter(_wrap(np.zeros((out_channels,), dt)))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self):
        n = self._n
        s = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
             f"stride={self.stride}")
        if self.padding != (0,) * n:
            s += f", padding={self.padding}"
        if self.dilation != (1,) * n:
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * n:
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s

    def _conv_forward(self, input, weight, bias):  # noqa: A002
        from . import _spatial

        fn = (conv1d, _spatial.conv2d, conv3d)[self._n - 1]
        if self.padding_mode != "zeros":
            from ._resample import pad

            x = pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return fn(x, weight, bias, self.stride, 0, self.dilation, self.groups)
        return fn(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input):  # noqa: A002
        return self._conv_forward(input, self.weight, self.bias)


class Conv1d(_ConvNd):
    """1-D convolution over (N, C, L) input."""
    _n = 1


class Conv2d(_ConvNd):
    """2-D convolution over (N, C, H, W) input."""
    _n = 2


class Conv3d(_ConvNd):
    """3-D convolution over (N, C, D, H, W) input."""
    _n = 3


class _ConvTransposeNd(_ConvNd):
    _transposed = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 device=None, dtype=None):
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for '
                             f'{type(self).__name__}')
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, device, dtype, output_padding)

    def _output_padding(self, input, output_size, stride, padding, kernel_size,  # noqa: A002
                        num_spatial_dims, dilation=None):
        if output_size is None:
            return self.output_padding
        has_batch = raw(input).ndim == num_spatial_dims + 2
        output_size = list(output_size)
        if len(output_size) == num_spatial_dims + 2:
            output_size = output_size[2:]
        elif len(output_size) == num_spatial_dims + 1 and not has_batch:
            output_size = output_size[1:]
        if len(output_size) != num_spatial_dims:
            raise ValueError(
                f"ConvTranspose{num_spatial_dims}D: for {raw(input).ndim}D input, output_size "
                f"must have {num_spatial_dims} or {num_spatial_dims + 2} elements (got "
                f"{len(output_size)})")
        spatial = raw(input).shape[-num_spatial_dims:]
        res = []
        for d in range(num_spatial_dims):
            dil = 1 if dilation is None else dilation[d]
            mn = (spatial[d] - 1) * stride[d] - 2 * padding[d] + dil * (kernel_size[d] - 1) + 1
            mx = mn + stride[d] - 1
            if not (mn <= output_size[d] <= mx):
                raise ValueError(
                    f"requested an output size of {output_size}, but valid sizes range from "
                    f"{[((spatial[i] - 1) * stride[i] - 2 * padding[i] + (1 if dilation is None else dilation[i]) * (kernel_size[i] - 1) + 1) for i in range(num_spatial_dims)]} to "  # noqa: E501
                    f"{[((spatial[i] - 1) * stride[i] - 2 * padding[i] + (1 if dilation is None else dilation[i]) * (kernel_size[i] - 1) + 1) + stride[i] - 1 for i in range(num_spatial_dims)]} (for an input of {list(spatial)})")  # noqa: E501
            res.append(output_size[d] - mn)
        return tuple(res)

    def forward(self, input, output_size=None):  # noqa: A002
        n = self._n
        op_ = self._output_padding(input, output_size, self.stride, self.padding,
                                   self.kernel_size, n, self.dilation)
        fn = (conv_transpose1d, conv_transpose2d, conv_transpose3d)[n - 1]
        return fn(input, self.weight, self.bias, self.stride, self.padding, op_, self.groups,
                  self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    _n = 1


class ConvTranspose2d(_ConvTransposeNd):
    _n = 2


class ConvTranspose3d(_ConvTransposeNd):
    _n = 3


# ------------------------------------------------------------------------------ lazy
class _LazyConvMixin:
    """A convolution whose ``in_channels`` is read from the first input: the weight is an
    UninitializedParameter until then; the first call makes the parameters, initialises them
    as the plain layer does, and turns the module into ``cls_to_become``."""
    cls_to_become = None

    def _lazy_init(self, out_channels, bias, dtype):
        self._lazy_bias = bias
        self._lazy_dtype = dtype
        self.weight = UninitializedParameter()
        if bias:
            self.bias = UninitializedParameter()
        else:
            self.register_parameter("bias", None)

    def _make_parameters(self, in_channels, out_channels, bias, dtype):
        self._lazy_init(out_channels, bias, dtype)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def has_uninitialized_params(self):
        return isinstance(self.weight, UninitializedParameter) or isinstance(
            self.bias, UninitializedParameter)

    def initialize_parameters(self, input, *args, **kwargs):  # noqa: A002
        if not self.has_uninitialized_params():
            return
        a = raw(input)
        self.in_channels = a.shape[0] if a.ndim == self._n + 1 else a.shape[1]
        if self.in_channels % self.groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        dt = _np_dtype(self._lazy_dtype)
        _materialize(self.weight, self._weight_shape(self.in_channels), dt)  # the same objects
        if self._lazy_bias:
            _materialize(self.bias, (self.out_channels,), dt)
        self.reset_parameters()

    def __call__(self, *args, **kwargs):
        if self.has_uninitialized_params():
            self.initialize_parameters(*args, **kwargs)
            if self.cls_to_become is not None:
                self.__class__ = self.cls_to_become
        return Module.__call__(self, *args, **kwargs)


def _lazy(plain, name):
    if plain._transposed:
        def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0,
                     groups=1, bias=True, dilation=1, padding_mode="zeros", device=None,
                     dtype=None):
            plain.__init__(self, 0, out_channels, kernel_size, stride, padding, output_padding,
                           groups, bias, dilation, padding_mode, device, dtype)
    else:
        def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                     groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
            plain.__init__(self, 0, out_channels, kernel_size, stride, padding, dilation,
                           groups, bias, padding_mode, device, dtype)
    cls = type(name, (_LazyConvMixin, plain), {"__init__": __init__, "cls_to_become": plain,
                                                "__doc__": plain.__doc__})
    return cls


LazyConv1d = _lazy(Conv1d, "LazyConv1d")
LazyConv2d = _lazy(Conv2d, "LazyConv2d")
LazyConv3d = _lazy(Conv3d, "LazyConv3d")
LazyConvTranspose1d = _lazy(ConvTranspose1d, "LazyConvTranspose1d")
LazyConvTranspose2d = _lazy(ConvTranspose2d, "LazyConvTranspose2d")
LazyConvTranspose3d = _lazy(ConvTranspose3d, "LazyConvTranspose3d")

LAYERS = [Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d,
          LazyConv1d, LazyConv2d, LazyConv3d, LazyConvTranspose1d, LazyConvTranspose2d,
          LazyConvTranspose3d]
for _c in LAYERS:
    _c.__module__ = "torch.nn.modules.conv"
    _c.__qualname__ = _c.__name__
del _c

FUNCTIONAL = {"conv1d": conv1d, "conv3d": conv3d,
              "conv_transpose1d": conv_transpose1d, "conv_transpose2d": conv_transpose2d,
              "conv_transpose3d": conv_transpose3d, "conv_tbc": conv_tbc}
TORCH = dict(FUNCTIONAL)
