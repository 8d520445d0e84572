"""3-D convolution (NCDHW): ``conv3d``, ``conv3d_transpose`` and ``conv3d_grad_filter``, one
registry op each, closed under differentiation exactly as their 2-D counterparts in ``conv.py``
(see there for the scheme and the rounding):

d conv3d = (conv3d_transpose(g, w), conv3d_grad_filter(x, g));
d conv3d_transpose = (conv3d(g, w), conv3d_grad_filter(g, x));
d conv3d_grad_filter = (conv3d_transpose(dy, G), conv3d(x, G)).

Paddle's CPU conv3d is vol2col plus one GEMM per sample and group over the column index
``c*KD*KH*KW + kd*KH*KW + kh*KW + kw``; here the sliding windows are one strided view laid out
once as that column matrix, and one matrix product covers batch and groups. Padding is
(front, back, top, bottom, left, right).
"""
from __future__ import annotations

import itertools
import math

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..registry import apply, register
from .conv_family import family_vjps, geom_attrs
from .. import cpu
from . import conv as _C
from .conv import _gemm, conv_out_size

_DIMS = 3


def _check_out(out, what):
    if any(o <= 0 for o in out):
        raise ValueError(
            f"(InvalidArgument) The output of {what} has a non-positive size {list(out)}: the "
            f"input is too small for the kernel, padding and stride")


def _pad(x, pads, min_size=None):
    """``x`` (N, C, *S) zero-padded by pairs (before, after) per spatial axis, at least
    ``min_size`` long on each (extra at the end)."""
    spatial = x.shape[2:]
    size = [s + pads[2 * i] + pads[2 * i + 1] for i, s in enumerate(spatial)]
    if min_size is not None:
        size = [max(a, b) for a, b in zip(size, min_size)]
    if tuple(size) == tuple(spatial):
        return x
    out = np.zeros(x.shape[:2] + tuple(size), x.dtype)
    out[(slice(None), slice(None)) + tuple(slice(pads[2 * i], pads[2 * i] + s)
                                           for i, s in enumerate(spatial))] = x
    return out


def _windows(xp, ksize, out, stride, dilation):
    """The sliding windows of the padded input, a view (N, C, *K, *O) (no copy)."""
    sn, sc, *sp = xp.strides
    shape = xp.shape[:2] + tuple(ksize) + tuple(out)
    strides = (sn, sc) + tuple(s * d for s, d in zip(sp, dilation)) + tuple(
        s * st for s, st in zip(sp, stride))
    return as_strided(xp, shape, strides, writeable=False)


def _out_size(spatial, ksize, stride, padding, dilation):
    return tuple(conv_out_size(n, k, s, padding[2 * i], padding[2 * i + 1], d)
                 for i, (n, k, s, d) in enumerate(zip(spatial, ksize, stride, dilation)))


# ====================================================================== conv3d
def _conv3d_fwd(x, w, stride=(1,) * 3, padding=(0,) * 6, dilation=(1,) * 3, groups=1):
    n = x.shape[0]
    m, cg = w.shape[:2]
    ksize = w.shape[2:]
    g = groups
    out = _out_size(x.shape[2:], ksize, stride, padding, dilation)
    _check_out(out, "conv3d")
    win = _windows(_pad(x, padding), ksize, out, stride, dilation)
    cols = win.reshape(n, g, cg * math.prod(ksize), math.prod(out))   # one copy
    res = _gemm(w.reshape(g, m // g, cg * math.prod(ksize)), cols)     # (N, G, M/G, prod(O))
    return res.reshape((n, m) + out)


_conv3d_vjp, _conv3d_transpose_vjp, _conv3d_grad_filter_vjp = family_vjps(
    3, lambda: (conv3d, conv3d_transpose, conv3d_grad_filter), "out_size")


CONV3D = register(
    "conv3d", _conv3d_fwd, _conv3d_vjp, legacy_name="Conv3dBackward",
    examples=[([(1, 2, 3, 4, 4), (3, 2, 2, 3, 3)], {"padding": (1, 0, 1, 1, 1, 1)}),
              ([(2, 4, 3, 4, 5), (4, 2, 2, 2, 3)],
               {"stride": (1, 2, 1), "padding": (0, 1, 0, 1, 1, 0), "dilation": (1, 1, 2),
                "groups": 2})])


# ====================================================================== conv3d_transpose
def _conv3d_transpose_fwd(x, w, stride=(1,) * 3, padding=(0,) * 6, dilation=(1,) * 3,
                          groups=1, out_size=None):
    """The adjoint of conv3d in its input: ``w`` is [C_in, M/groups, KD, KH, KW]; ``out_size``
    the output's spatial size (default: the smallest, no output padding)."""
    n, cin = x.shape[:2]
    spatial = x.shape[2:]
    mg = w.shape[1]
    ksize = w.shape[2:]
    g = groups
    cig = cin // g
    full = [(s - 1) * st + d * (k - 1) + 1
            for s, st, d, k in zip(spatial, stride, dilation, ksize)]
    if out_size is None:
        out_size = tuple(f - padding[2 * i] - padding[2 * i + 1] for i, f in enumerate(full))
    out_size = tuple(out_size)
    _check_out(out_size, "conv3d_transpose")
    wt = np.swapaxes(w.reshape(g, cig, mg * math.prod(ksize)), -1, -2)    # a view
    cols = _gemm(wt, x.reshape(n, g, cig, math.prod(spatial)))
    cols = cols.reshape((n, g, mg) + tuple(ksize) + tuple(spatial))
    padded = [max(f, o + padding[2 * i] + padding[2 * i + 1])
              for i, (f, o) in enumerate(zip(full, out_size))]
    outp = np.zeros((n, g, mg) + tuple(padded), cols.dtype)
    lead = (slice(None),) * 3
    for offs in itertools.product(*(range(k) for k in ksize)):   # col2vol: offsets in order
        target = tuple(slice(o * d, o * d + st * (s - 1) + 1, st)
                       for o, d, st, s in zip(offs, dilation, stride, spatial))
        outp[lead + target] += cols[lead + offs]
    outp = outp.reshape((n, g * mg) + tuple(padded))
    crop = tuple(slice(padding[2 * i], padding[2 * i] + o) for i, o in enumerate(out_size))
    return np.ascontiguousarray(outp[(slice(None), slice(None)) + crop])


CONV3D_TRANSPOSE = register(
    "conv3d_transpose", _conv3d_transpose_fwd, _conv3d_transpose_vjp,
    legacy_name="Conv3dTransposeBackward",
    examples=[([(1, 2, 2, 3, 3), (2, 3, 2, 3, 3)],
               {"stride": (1, 2, 2), "padding": (0, 0, 1, 1, 1, 1)}),
              ([(2, 4, 2, 3, 2), (4, 1, 2, 2, 2)], {"groups": 2, "dilation": (1, 2, 1)})])


# ====================================================================== conv3d_grad_filter
def _conv3d_grad_filter_fwd(x, dy, stride=(1,) * 3, padding=(0,) * 6, dilation=(1,) * 3,
                            groups=1, ksize=(1,) * 3):
    """The gradient of conv3d in its filter: one matrix product of ``dy`` with the column
    matrix of ``x`` (the samples' positions form the summed axis)."""
    n, c = x.shape[:2]
    m = dy.shape[1]
    out = dy.shape[2:]
    g = groups
    cg, mg = c // g, m // g
    kn, on = math.prod(ksize), math.prod(out)
    win = _windows(_pad(x, padding), ksize, out, stride, dilation)    # (N, C, *K, *O)
    if (x.dtype == np.float32 and dy.dtype == np.float32 and _C._CHAIN_LIMIT_NOW.get() is None
            and n * m * cg * kn * on <= _C._GENERIC_BT_LIMIT and cpu.cpu_class() == "amd"):
        # Paddle on AMD: per sample dW += dy @ vol2col^T by MKL's generic kernels (as conv2d)
        dw = _C._grad_filter_generic(win, dy.reshape(n, m, on, 1), g, cg * kn, mg)
        return dw.reshape((m, cg) + tuple(ksize))
    if (x.dtype == dy.dtype and x.dtype in (np.float32, np.float64)
            and _C._CHAIN_LIMIT_NOW.get() is None and cpu.cpu_class() != "amd"):
        # Paddle on Intel: per sample and group dW += dy @ vol2col^T by MKL's sgemm, beta 1
        # (as conv2d's; real 3.3.1 here: 2 of 4 batch-2 filter gradients differed before)
        dw = _C._grad_filter_mkl(win, dy.reshape(n, m, on, 1), g, cg * kn, mg)
        if dw is not None:
            return dw.reshape((m, cg) + tuple(ksize))
    if n == 1:
        cols = win.reshape(g, cg * kn, on)
        dy2 = dy.reshape(g, mg, on)
    else:
        order = (1, 2, 3, 4, 0, 5, 6, 7)
        cols = win.transpose(order).reshape(g, cg * kn, n * on)
        dy2 = dy.reshape(n, g, mg, on).transpose(1, 2, 0, 3).reshape(g, mg, n * on)
    dw = _gemm(dy2, np.swapaxes(cols, -1, -2))      # (G, M/G, C/G*prod(K)): see conv2d's
    return dw.reshape((m, cg) + tuple(ksize))


CONV3D_GRAD_FILTER = register(
    "conv3d_grad_filter", _conv3d_grad_filter_fwd, _conv3d_grad_filter_vjp,
    legacy_name="Conv3dGradFilterBackward",
    examples=[([(1, 2, 3, 4, 4), (1, 3, 3, 4, 4)],
               {"padding": (1, 1, 1, 1, 1, 1), "ksize": (3, 3, 3)}),
              ([(2, 4, 3, 4, 5), (2, 4, 3, 2, 2)],
               {"stride": (1, 2, 1), "padding": (0, 1, 0, 1, 1, 0), "dilation": (1, 1, 2),
                "groups": 2, "ksize": (2, 2, 3)})])


def conv3d(x, w, stride=(1,) * 3, padding=(0,) * 6, dilation=(1,) * 3, groups=1):
    """3-D convolution of ``x`` [N, C, D, H, W] with ``w`` [M, C/groups, KD, KH, KW]."""
    return apply(CONV3D, (x, w), geom_attrs(stride, padding, dilation, groups))


def conv3d_transpose(x, w, stride=(1,) * 3, padding=(0,) * 6, dilation=(1,) * 3, groups=1,
                     out_size=None):
    """Transposed 3-D convolution of ``x`` [N, C, D, H, W] with ``w`` [C, M/groups, KD, KH, KW]."""
    attrs = geom_attrs(stride, padding, dilation, groups)
    if out_size is not None:
        attrs["out_size"] = tuple(int(v) for v in out_size)
    return apply(CONV3D_TRANSPOSE, (x, w), attrs)


def conv3d_grad_filter(x, dy, stride=(1,) * 3, padding=(0,) * 6, dilation=(1,) * 3, groups=1,
                       ksize=(1,) * 3):
    attrs = geom_attrs(stride, padding, dilation, groups)
    attrs["ksize"] = tuple(int(v) for v in ksize)
    return apply(CONV3D_GRAD_FILTER, (x, dy), attrs)
