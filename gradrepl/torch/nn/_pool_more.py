"""torch's pools beyond ``_spatial``: max pools of every rank with ``return_indices`` and
dilation, ``avg_pool3d``, the adaptive pools of 1 and 3 dims, ``max_unpool1d``/``2d``/``3d``,
``lp_pool1d``/``2d``/``3d`` and ``fractional_max_pool2d``/``3d``, and their layers.

A max pool whose windows are not the engine's plain ones (dilated, adaptive with indices,
fractional) runs as an *indexed* pool: numpy finds each window's first maximum (its flat
index in the input plane, torch's ``indices``), and one op reads the input there; its VJP adds
the gradient back at those indices (``take_along_axis_grad``), differentiable again."""
from __future__ import annotations

import copy
import math

import numpy as np

from ...engine.ops import conv as C
from ...engine.ops import index as IX
from ...engine.ops import pool3d as P3
from ...engine.ops import shape as SH
from ...engine.ops import unpool as UP
from ...engine.registry import apply
from .. import _ops, _random
from .._base import raw
from .._tensor import Tensor
from . import _spatial as S
from .modules import Module

_wrap = Tensor._wrap


def _ntuple(v, n):
    if isinstance(v, (list, tuple)):
        if len(v) == 1 and n > 1:
            return (int(v[0]),) * n
        return tuple(int(x) for x in v)
    return (int(v),) * n


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


# ------------------------------------------------------------------------------ indexed pool
def _take_fwd(x, idx):
    n, c = x.shape[:2]
    flat = x.reshape(n, c, -1)
    return np.take_along_axis(flat, idx.reshape(n, c, -1), axis=2).reshape(idx.shape)


def _take_vjp(node, g):
    xs = node.in_meta[0][0]
    idx = node.inputs[1]
    n, c = xs[:2]
    plane = math.prod(xs[2:])
    g2 = SH.reshape(g, (n, c, -1))
    i2 = _wrap(np.ascontiguousarray(idx.data.reshape(n, c, -1)), True)
    dx = IX.take_along_axis_grad(g2, i2, (n, c, plane), 2)
    return SH.reshape(dx, xs), None


_TAKE_OPS: dict = {}


def _take_op(name):
    op = _TAKE_OPS.get(name)
    if op is None:
        op = _named(IX.TAKE_ALONG_AXIS, name, "in0", _take_fwd, _take_vjp, (0,))
        op.diff_inputs = (0,)
        _TAKE_OPS[name] = op
    return op


def _gather_windows(a, index_lists):
    """The values of every window: ``index_lists`` one (index, valid) pair per spatial axis,
    each (N|1, C|1, O, K); the result (N, C, *O, prod(K)) with invalid places -inf, and the
    flat index (in the input plane) of each place."""
    nd = len(index_lists)
    spatial = a.shape[2:]
    flat = None
    valid = None
    for d, (ix, ok) in enumerate(index_lists):
        o, k = ix.shape[-2:]
        shape = list(ix.shape[:2]) + [1] * (2 * nd)
        shape[2 + d] = o
        shape[2 + nd + d] = k
        ix = np.clip(ix, 0, spatial[d] - 1).reshape(shape)
        ok = ok.reshape(shape)
        flat = ix if flat is None else flat * spatial[d] + ix
        valid = ok if valid is None else valid & ok
    n, c = a.shape[:2]
    out_shape = (n, c) + tuple(flat.shape[2:])
    flat = np.broadcast_to(flat, out_shape)
    valid = np.broadcast_to(valid, out_shape)
    o = flat.shape[2:2 + nd]
    flat = flat.reshape((n, c) + o + (-1,))
    valid = valid.reshape((n, c) + o + (-1,))
    vals = np.take_along_axis(a.reshape(n, c, -1), flat.reshape(n, c, -1), axis=2)
    vals = vals.reshape(flat.shape)
    if not valid.all():
        low = -np.inf if a.dtype.kind == "f" else np.iinfo(a.dtype).min
        vals = np.where(valid, vals, np.asarray(low, a.dtype))
    return vals, flat


def _first_max(vals, flat):
    """The flat input index of each window's first maximum (a NaN wins)."""
    k = np.argmax(vals, axis=-1)
    return np.take_along_axis(flat, k[..., None], axis=-1)[..., 0].astype(np.int64)


def _indexed_pool(input, index_lists, name):  # noqa: A002
    a = raw(input)
    vals, flat = _gather_windows(a, index_lists)
    idx = _first_max(vals, flat)
    out = apply(_take_op(name), (input, _wrap(idx, True)))
    return out, _wrap(idx, True)


def _regular_lists(spatial, k, s, p, d, ceil):
    lists = []
    for n, kk, ss, pp, dd in zip(spatial, k, s, p, d):
        o = _pool_out(n, kk, ss, pp, dd, ceil)
        ix = (np.arange(o) * ss - pp)[:, None] + (np.arange(kk) * dd)[None, :]
        lists.append((ix[None, None], ((ix >= 0) & (ix < n))[None, None]))
    return lists


def _pool_out(n, k, s, p, d, ceil):
    o = (n + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil else 0)) // s + 1
    if ceil and (o - 1) * s >= n + p:
        o -= 1
    return o


def _adaptive_lists(spatial, outs):
    lists = []
    for n, o in zip(spatial, outs):
        i = np.arange(o)
        start = (i * n) // o
        end = -((-(i + 1) * n) // o)
        k = int((end - start).max()) if o else 0
        ix = start[:, None] + np.arange(k)[None, :]
        lists.append((ix[None, None], (ix < end[:, None])[None, None]))
    return lists


# ------------------------------------------------------------------------------ max pools
def _check_dims(a, nd, fname):
    if a.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"non-empty {nd + 1}D or {nd + 2}D (batch mode) tensor expected for "
                           f"input, but got {list(a.shape)}" if nd > 1 else
                           f"{fname}() Expected 2D or 3D input tensor, but got "
                           f"{list(a.shape)}")


def _batched(input, nd, fn):  # noqa: A002
    """``fn`` on a batched input (an unbatched one gets a batch of 1, then loses it)."""
    if raw(input).ndim == nd + 1:
        r = fn(_ops.unsqueeze(input, 0))
        if isinstance(r, tuple):
            return tuple(_ops.squeeze(t, 0) for t in r)
        return _ops.squeeze(r, 0)
    return fn(input)


def _max_pool(nd, input, kernel_size, stride, padding, dilation, ceil_mode,  # noqa: A002
              return_indices, fname):
    k = _ntuple(kernel_size, nd)
    s = k if stride is None or (isinstance(stride, (list, tuple)) and not stride) \
        else _ntuple(stride, nd)
    p, d = _ntuple(padding, nd), _ntuple(dilation, nd)
    a = raw(input)
    _check_dims(a, nd, fname)
    for kk, pp in zip(k, p):
        if pp > kk // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={pp}, kernel_size={kk} and dilation={d[0]}")
    spatial = a.shape[-nd:]
    outs = tuple(_pool_out(n, kk, ss, pp, dd, ceil_mode) for n, kk, ss, pp, dd in
                 zip(spatial, k, s, p, d))
    if any(o <= 0 for o in outs):
        raise RuntimeError(f"Given input size: ({'x'.join(str(v) for v in a.shape[-nd - 1:])})."
                           f" Calculated output size: ({a.shape[-nd - 1]}x"
                           f"{'x'.join(str(o) for o in outs)}). Output size is too small")
    name = f"MaxPool{nd}DWithIndicesBackward0"
    if not return_indices and all(v == 1 for v in d):
        if nd == 2:
            return S.max_pool2d(input, k, s, p, 1, ceil_mode)
        if nd == 3:
            attrs = P3.pool3d_attrs(k, s, tuple(v for pp in p for v in (pp, pp)), ceil_mode,
                                    True, False, "max")
            op = _named(P3.POOL3D, name, "in0")
            return _batched(input, 3, lambda t: apply(op, (t,), attrs))
    lists = _regular_lists(spatial, k, s, p, d, ceil_mode)
    res = _batched(input, nd, lambda t: _indexed_pool(t, lists, name))
    return res if return_indices else res[0]


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1,  # noqa: A002
               ceil_mode=False, return_indices=False):
    """1-d max pool: torch's runs it as a 2-d one of height 1 (SqueezeBackward1)."""
    a = raw(input)
    if a.ndim not in (2, 3):
        raise RuntimeError(f"max_pool1d() Expected 2D or 3D input tensor, but got "
                           f"{list(a.shape)}")
    k = _ntuple(kernel_size, 1)[0]
    s = k if stride is None or (isinstance(stride, (list, tuple)) and not stride) \
        else _ntuple(stride, 1)[0]
    x = _ops.unsqueeze(input, -2)
    r = _max_pool(2, x, (1, k), (1, s), (0, _ntuple(padding, 1)[0]),
                  (1, _ntuple(dilation, 1)[0]), ceil_mode, return_indices, "max_pool1d")
    if return_indices:
        return _ops.squeeze(r[0], -2), _ops.squeeze(r[1], -2)
    return _ops.squeeze(r, -2)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1,  # noqa: A002
               ceil_mode=False, return_indices=False):
    return _max_pool(2, input, kernel_size, stride, padding, dilation, ceil_mode,
                     return_indices, "max_pool2d")


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1,  # noqa: A002
               ceil_mode=False, return_indices=False):
    return _max_pool(3, input, kernel_size, stride, padding, dilation, ceil_mode,
                     return_indices, "max_pool3d")


def _with_indices(fn):
    def f(*args, **kwargs):
        kwargs["return_indices"] = True
        return fn(*args, **kwargs)
    f.__name__ = fn.__name__ + "_with_indices"
    return f


# ------------------------------------------------------------------------------ avg pools
def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,  # noqa: A002
               count_include_pad=True):
    k = _ntuple(kernel_size, 1)[0]
    s = k if stride is None or (isinstance(stride, (list, tuple)) and not stride) \
        else _ntuple(stride, 1)[0]
    x = _ops.unsqueeze(input, -2)
    return _ops.squeeze(S.avg_pool2d(x, (1, k), (1, s), (0, _ntuple(padding, 1)[0]), ceil_mode,
                                     count_include_pad), -2)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,  # noqa: A002
               count_include_pad=True, divisor_override=None):
    """Mean over each (kD, kH, kW) window."""
    k = _ntuple(kernel_size, 3)
    s = k if stride is None or (isinstance(stride, (list, tuple)) and not stride) \
        else _ntuple(stride, 3)
    p = _ntuple(padding, 3)
    a = raw(input)
    _check_dims(a, 3, "avg_pool3d")
    for kk, pp in zip(k, p):
        if pp > kk // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={pp}, kernel_size={kk} and dilation=1")
    attrs = P3.pool3d_attrs(k, s, tuple(v for pp in p for v in (pp, pp)), ceil_mode,
                            not count_include_pad, False, "avg")
    # ATen: sum / divide_factor (divisor_override when given), the gradient grad / divide_factor
    attrs.update(grad_divides=True, divisor_override=S._divisor(divisor_override),
                 ceil_mode=S.ceil_rule(ceil_mode))
    op = _named(P3.POOL3D, "AvgPool3DBackward0", "in0")
    return _batched(input, 3, lambda t: apply(op, (t,), attrs))


# ------------------------------------------------------------------------------ adaptive
def _adaptive_size(output_size, a, nd):
    o = output_size if isinstance(output_size, (list, tuple)) else (output_size,) * nd
    if len(o) != nd:
        raise ValueError(f"adaptive_avg_pool{nd}d: output_size must be {nd}")
    return tuple(a.shape[-nd + i] if v is None else int(v) for i, v in enumerate(o))


def adaptive_avg_pool1d(input, output_size):  # noqa: A002
    o = _ntuple(output_size, 1)
    x = _ops.unsqueeze(input, -2)
    a = raw(x)
    out = S.adaptive_avg_pool2d(x, (1, o[0])) if a.ndim in (3, 4) else None  # as torch's
    return _ops.squeeze(out, -2)


def adaptive_avg_pool3d(input, output_size):  # noqa: A002
    a = raw(input)
    _check_dims(a, 3, "adaptive_avg_pool3d")
    o = _adaptive_size(output_size, a, 3)
    if o == (1, 1, 1):
        return _ops.mean(input, (-1, -2, -3), keepdim=True)
    from ._resample import adaptive_avg_pool  # torch's own kernels (float32/float64)

    r = adaptive_avg_pool(input, o)
    if r is not None:
        return r
    op = _named(P3.POOL3D, "AdaptiveAvgPool3DBackward0", "in0")
    attrs = P3.pool3d_attrs(o, adaptive=True, pooling_type="avg")
    return _batched(input, 3, lambda t: apply(op, (t,), attrs))


def _adaptive_max(nd, input, output_size, return_indices):  # noqa: A002
    a = raw(input)
    _check_dims(a, nd, f"adaptive_max_pool{nd}d")
    o = _adaptive_size(output_size, a, nd)
    lists = _adaptive_lists(a.shape[-nd:], o)
    res = _batched(input, nd, lambda t: _indexed_pool(t, lists,
                                                      f"AdaptiveMaxPool{nd}DBackward0"))
    return res if return_indices else res[0]


def adaptive_max_pool1d(input, output_size, return_indices=False):  # noqa: A002
    x = _ops.unsqueeze(input, -2)
    r = _adaptive_max(2, x, (1, _ntuple(output_size, 1)[0]), True)
    out, idx = _ops.squeeze(r[0], -2), _ops.squeeze(r[1], -2)
    return (out, idx) if return_indices else out


def adaptive_max_pool2d(input, output_size, return_indices=False):  # noqa: A002
    if not return_indices:
        return S.adaptive_max_pool2d(input, output_size)
    return _adaptive_max(2, input, output_size, True)


def adaptive_max_pool3d(input, output_size, return_indices=False):  # noqa: A002
    return _adaptive_max(3, input, output_size, return_indices)


# ------------------------------------------------------------------------------ unpool
def _unpool(nd, input, indices, kernel_size, stride, padding, output_size):  # noqa: A002
    k = _ntuple(kernel_size, nd)
    s = k if stride is None else _ntuple(stride, nd)
    p = _ntuple(padding, nd)
    a = raw(input)
    spatial = a.shape[-nd:]
    default = tuple((n - 1) * ss + kk - 2 * pp for n, ss, kk, pp in zip(spatial, s, k, p))
    if output_size is None:
        out = default
    else:
        out = tuple(int(v) for v in output_size)
        if len(out) == nd + 2 or (len(out) == nd + 1 and a.ndim == nd + 1):
            out = out[-nd:]
        if len(out) != nd:
            raise ValueError(f"output_size should be a sequence containing {nd} or {nd + 2} "
                             f"elements, but it has a length of '{len(out)}'")
        for i, (o, dflt) in enumerate(zip(out, default)):
            if not dflt - s[i] < o < dflt + s[i]:
                raise ValueError(
                    f'invalid output_size "{list(out)}" (dim {i} must be between '
                    f'{dflt - s[i]} and {dflt + s[i]})')
    if nd == 1:
        x = _ops.unsqueeze(input, -1)
        i = _ops.unsqueeze(indices, -1)
        r = _unpool(2, x, i, (k[0], 1), (s[0], 1), (p[0], 0), out + (1,))
        return _ops.squeeze(r, -1)
    op = _named(UP.UNPOOL, f"MaxUnpool{nd}DBackward0", "none", n_in=(0,))
    size = math.prod(out)
    ia = raw(indices)
    if ia.size and (ia.min() < 0 or ia.max() >= size):
        flat = ia.reshape(-1)
        bad = int(flat[np.argmax((flat < 0) | (flat >= size))])
        what = "volumes" if nd == 3 else "planes"
        raise RuntimeError(f"Found an invalid max index: {bad} (output {what} are of size "
                           f"{'x'.join(str(v) for v in out)})")
    return _batched(input, nd, lambda t: apply(op, (t, _ops.reshape(
        indices, raw(t).shape) if raw(indices).ndim != raw(t).ndim else indices),
        {"out_size": out}))


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0,  # noqa: A002
                 output_size=None):
    """The partial inverse of max_pool1d: each value written at its index, zeros elsewhere."""
    return _unpool(1, input, indices, kernel_size, stride, padding, output_size)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0,  # noqa: A002
                 output_size=None):
    return _unpool(2, input, indices, kernel_size, stride, padding, output_size)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0,  # noqa: A002
                 output_size=None):
    return _unpool(3, input, indices, kernel_size, stride, padding, output_size)


# ------------------------------------------------------------------------------ Lp pools
def _lp(nd, input, norm_type, kernel_size, stride, ceil_mode):  # noqa: A002
    """torch's composition: avg_pool of x ** p, times the window size, to the power 1/p
    (``sign(out) * relu(abs(out))`` first, as torch writes it)."""
    from . import functional as F

    k = _ntuple(kernel_size, nd)
    xp = _ops.pow(input, norm_type)
    if nd == 1:
        out = avg_pool1d(xp, k[0], stride, 0, ceil_mode)
    elif nd == 2:
        s = k if stride is None else _ntuple(stride, 2)
        out = S.avg_pool2d(xp, k, s, 0, ceil_mode)
    else:
        out = avg_pool3d(xp, k, stride, 0, ceil_mode)
    out = _ops.mul(_ops.sign(out), F.relu(_ops.abs(out)))
    return _ops.pow(_ops.mul(out, math.prod(k)), 1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):  # noqa: A002
    """Power-average pool: ``(sum over the window of x ** p) ** (1 / p)``."""
    return _lp(1, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):  # noqa: A002
    return _lp(2, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):  # noqa: A002
    return _lp(3, input, norm_type, kernel_size, stride, ceil_mode)


# ------------------------------------------------------------------------------ fractional
def _intervals(samples, n, o, k, dtype):
    """torch's generate_intervals for every plane: ``samples`` (N, C) -> starts (N, C, o)."""
    u = samples.astype(dtype)
    starts = np.empty(samples.shape + (o,), np.int64)
    if o > 1:
        alpha = dtype.type(n - k) / dtype.type(o - 1)
        i = np.arange(o - 1).astype(dtype)
        a = ((i + u[..., None]) * alpha).astype(dtype)
        b = (u * alpha).astype(dtype)
        starts[..., :o - 1] = np.trunc(a).astype(np.int64) - np.trunc(b).astype(np.int64)[
            ..., None]
    if o > 0:
        starts[..., o - 1] = n - k
    return starts


def _fractional(nd, input, kernel_size, output_size, output_ratio, return_indices,  # noqa: A002
                _random_samples):
    a = raw(input)
    if a.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"fractional_max_pool{nd}d(): Expected {nd + 1}D or {nd + 2}D "
                           f"tensor, but got: {list(a.shape)}")
    if output_size is None and output_ratio is None:
        raise ValueError(f"fractional_max_pool{nd}d requires specifying either an output_size "
                         "or an output_ratio")
    k = _ntuple(kernel_size, nd)
    spatial = a.shape[-nd:]
    if output_size is None:
        ratio = output_ratio if isinstance(output_ratio, (list, tuple)) \
            else (output_ratio,) * nd
        output_size = [int(n * float(r)) for n, r in zip(spatial, ratio)]
    o = _ntuple(output_size, nd)
    for i in range(nd):
        if o[i] + k[i] - 1 > spatial[i]:
            raise RuntimeError(f"fractional_max_pool{nd}d_out(): pool {'time' if nd == 3 and i == 0 else ('height' if i == nd - 2 else 'width')} "  # noqa: E501
                               f"({k[i]}) too large relative to input "
                               f"{'time' if nd == 3 and i == 0 else ('height' if i == nd - 2 else 'width')} ({spatial[i]})")  # noqa: E501
    if _random_samples is None:
        n_batch = 1 if a.ndim == nd + 1 else a.shape[0]
        from .._dtypes import from_np

        _random_samples = _wrap(_random.uniform((n_batch, a.shape[-nd - 1], nd), a.dtype),
                                True)
        _ = from_np
    rs = raw(_random_samples)

    def run(t):
        ta = raw(t)
        n, c = ta.shape[:2]
        samp = rs.reshape(-1, c, nd)[:n]
        # torch's sample order: 2-d (w, h); 3-d (t, h, w)
        which = (1, 0) if nd == 2 else (0, 1, 2)
        lists = []
        for d in range(nd):
            st = _intervals(samp[..., which[d]], spatial[d], o[d], k[d], ta.dtype)
            ix = st[..., None] + np.arange(k[d])
            lists.append((ix, np.ones(ix.shape, bool)))
        return _indexed_pool(t, lists, f"FractionalMaxPool{nd}DBackward0")

    res = _batched(input, nd, run)
    return res if return_indices else res[0]


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,  # noqa: A002
                          return_indices=False, _random_samples=None):
    """Max over pseudo-random windows of ``kernel_size`` whose starts step by a fractional
    stride (Graham's fractional max pooling); the steps come from ``_random_samples``
    (drawn with ``torch.rand`` when not given)."""
    return _fractional(2, input, kernel_size, output_size, output_ratio, return_indices,
                       _random_samples)


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None,  # noqa: A002
                          return_indices=False, _random_samples=None):
    return _fractional(3, input, kernel_size, output_size, output_ratio, return_indices,
                       _random_samples)


# ------------------------------------------------------------------------------ layers
class _MaxPoolNd(Module):
    _n = 2
    _fn = None

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def forward(self, input):  # noqa: A002
        fn = (max_pool1d, max_pool2d, max_pool3d)[self._n - 1]
        return fn(input, self.kernel_size, self.stride, self.padding, self.dilation,
                  ceil_mode=self.ceil_mode, return_indices=self.return_indices)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class MaxPool1d(_MaxPoolNd):
    _n = 1


class MaxPool2d(_MaxPoolNd):
    _n = 2


class MaxPool3d(_MaxPoolNd):
    _n = 3


class AvgPool1d(Module):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True):
        super().__init__()
        self.kernel_size = _ntuple(kernel_size, 1)
        self.stride = _ntuple(stride if (stride is not None) else kernel_size, 1)
        self.padding = _ntuple(padding, 1)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input):  # noqa: A002
        return avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                          self.count_include_pad)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool3d(Module):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input):  # noqa: A002
        return avg_pool3d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                          self.count_include_pad, self.divisor_override)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class _AdaptivePool(Module):
    _fn = None

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptivePool):
    def __init__(self, output_size):
        super().__init__(output_size)
        del self.return_indices

    def forward(self, input):  # noqa: A002
        return adaptive_avg_pool1d(input, self.output_size)


class AdaptiveAvgPool3d(AdaptiveAvgPool1d):
    def forward(self, input):  # noqa: A002
        return adaptive_avg_pool3d(input, self.output_size)


class AdaptiveMaxPool1d(_AdaptivePool):
    def forward(self, input):  # noqa: A002
        return adaptive_max_pool1d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool2d(_AdaptivePool):
    def forward(self, input):  # noqa: A002
        return adaptive_max_pool2d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool3d(_AdaptivePool):
    def forward(self, input):  # noqa: A002
        return adaptive_max_pool3d(input, self.output_size, self.return_indices)


class _MaxUnpoolNd(Module):
    _n = 2

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        n = self._n
        self.kernel_size = _ntuple(kernel_size, n)
        self.stride = _ntuple(stride if (stride is not None) else kernel_size, n)
        self.padding = _ntuple(padding, n)

    def forward(self, input, indices, output_size=None):  # noqa: A002
        return _unpool(self._n, input, indices, self.kernel_size, self.stride, self.padding,
                       output_size)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    _n = 1


class MaxUnpool2d(_MaxUnpoolNd):
    _n = 2


class MaxUnpool3d(_MaxUnpoolNd):
    _n = 3


class _LPPoolNd(Module):
    _n = 2

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def forward(self, input):  # noqa: A002
        return _lp(self._n, input, float(self.norm_type), self.kernel_size, self.stride,
                   self.ceil_mode)

    def extra_repr(self):
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}, ceil_mode={self.ceil_mode}")


class LPPool1d(_LPPoolNd):
    _n = 1


class LPPool2d(_LPPoolNd):
    _n = 2


class LPPool3d(_LPPoolNd):
    _n = 3


class _FractionalMaxPoolNd(Module):
    _n = 2

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                 _random_samples=None):
        super().__init__()
        n = self._n
        self.kernel_size = _ntuple(kernel_size, n)
        self.return_indices = return_indices
        self._random_samples = _random_samples
        self.output_size = _ntuple(output_size, n) if output_size is not None else None
        self.output_ratio = (tuple(float(v) for v in output_ratio)
                             if isinstance(output_ratio, (list, tuple))
                             else (float(output_ratio),) * n) \
            if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError(f"FractionalMaxPool{n}d requires specifying either an output size,"
                             " or a pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None:
            if not all(0 < r < 1 for r in self.output_ratio):
                raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input):  # noqa: A002
        fn = fractional_max_pool2d if self._n == 2 else fractional_max_pool3d
        return fn(input, self.kernel_size, self.output_size, self.output_ratio,
                  self.return_indices, _random_samples=self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    _n = 2


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    _n = 3


LAYERS = [MaxPool1d, MaxPool2d, MaxPool3d, AvgPool1d, AvgPool3d, AdaptiveAvgPool1d,
          AdaptiveAvgPool3d, AdaptiveMaxPool1d, AdaptiveMaxPool2d, AdaptiveMaxPool3d,
          MaxUnpool1d, MaxUnpool2d, MaxUnpool3d, LPPool1d, LPPool2d, LPPool3d,
          FractionalMaxPool2d, FractionalMaxPool3d]
for _c in LAYERS:
    _c.__module__ = "torch.nn.modules.pooling"
del _c

FUNCTIONAL = {
    "max_pool1d": max_pool1d, "max_pool2d": max_pool2d, "max_pool3d": max_pool3d,
    "max_pool1d_with_indices": _with_indices(max_pool1d),
    "max_pool2d_with_indices": _with_indices(max_pool2d),
    "max_pool3d_with_indices": _with_indices(max_pool3d),
    "avg_pool1d": avg_pool1d, "avg_pool3d": avg_pool3d,
    "adaptive_avg_pool1d": adaptive_avg_pool1d, "adaptive_avg_pool3d": adaptive_avg_pool3d,
    "adaptive_max_pool1d": adaptive_max_pool1d, "adaptive_max_pool2d": adaptive_max_pool2d,
    "adaptive_max_pool3d": adaptive_max_pool3d,
    "adaptive_max_pool1d_with_indices": _with_indices(adaptive_max_pool1d),
    "adaptive_max_pool2d_with_indices": _with_indices(adaptive_max_pool2d),
    "adaptive_max_pool3d_with_indices": _with_indices(adaptive_max_pool3d),
    "max_unpool1d": max_unpool1d, "max_unpool2d": max_unpool2d, "max_unpool3d": max_unpool3d,
    "lp_pool1d": lp_pool1d, "lp_pool2d": lp_pool2d, "lp_pool3d": lp_pool3d,
    "fractional_max_pool2d": fractional_max_pool2d,
    "fractional_max_pool3d": fractional_max_pool3d,
    "fractional_max_pool2d_with_indices": _with_indices(fractional_max_pool2d),
    "fractional_max_pool3d_with_indices": _with_indices(fractional_max_pool3d),
}
TORCH = {"max_pool1d": max_pool1d, "max_pool2d": max_pool2d, "max_pool3d": max_pool3d,
         "max_pool1d_with_indices": _with_indices(max_pool1d), "avg_pool1d": avg_pool1d,
         "adaptive_avg_pool1d": adaptive_avg_pool1d,
         "adaptive_max_pool1d": _with_indices(adaptive_max_pool1d)}
