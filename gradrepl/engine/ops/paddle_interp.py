"""Paddle's CPU linear / bilinear / trilinear interpolation kernels and their gradients.

Paddle's ``{linear,bilinear,trilinear}_interp`` computes each output in one expression: the
taps' source values times their weights, multiplied left to right and added in the kernel's tap
order (bilinear: (n, w), (s, w), (n, e), (s, e); trilinear: f/b outermost, then n/s, then w/e),
each operation rounded in T (no fused multiply-add). Per axis (ratio a float):

* ratio = (in - 1) / (out - 1) with ``align_corners``, else float(1. / scale) when a scale was
  given, else float(in) / out; 0 for an output of one;
* with align_mode 0 and not align_corners: i0 = int(ratio * (o + 0.5) - 0.5) (double
  arithmetic), clamped at 0, the weight d1 = float(max(ratio * (o + 0.5) - 0.5, 0)) - i0;
  otherwise i0 = int(ratio * o) (float) and d1 = ratio * o - i0; i1 = min(i0 + 1, in - 1),
  d0 = 1 - d1 (float).

The gradient kernel loops over the outputs in order (D, H, W, then sample and channel) and adds
``dout * d_a * d_b ...`` (T) into each tap in the same tap order, so every input position sums
its contributions in that order. The two are registered as a linear pair (each the other's
VJP), so create_graph works; Paddle itself refuses a double grad of bilinear_interp
(``paddle/double_grad``). Measured against real Paddle 3.3.1 and 2.6.2 on this machine
(tests/test_paddle_interp_linear.py); the composed gathers used before (a per-axis blend) gave
other last bits in most outputs.
"""
from __future__ import annotations

import numpy as np

from ..registry import apply, register

_F32 = np.float32


def _taps(in_size, out_size, ratio, align_corners, align_mode, weight="float"):
    """(i0, i1, d1, d0) of one axis, as the kernel computes them (d's are float32).

    With align_mode 0 and not align_corners the index is always the double expression's
    (truncated toward zero); the weight is ``weight``: "float", the expression evaluated in
    float, each step rounded, or "double", the double expression rounded to float (the
    compiled loops differ: ``WEIGHTS``)."""
    o = np.arange(out_size)
    r = _F32(ratio)
    if align_mode == 0 and not align_corners:
        src = np.float64(r) * (o + 0.5) - 0.5
        i0 = np.maximum(src.astype(np.int64), 0)
        if weight == "float":
            src = (r * (o.astype(_F32) + _F32(0.5))).astype(_F32) - _F32(0.5)
            d1 = np.maximum(src, _F32(0)) - i0.astype(_F32)
        else:
            d1 = np.maximum(src, 0.0).astype(_F32) - i0.astype(_F32)
    else:
        prod = (r * o.astype(_F32)).astype(_F32)
        i0 = np.maximum(prod.astype(np.int64), 0)
        d1 = (prod - i0.astype(_F32)).astype(_F32)
    i1 = np.minimum(i0 + 1, in_size - 1)
    d0 = (_F32(1) - d1).astype(_F32)
    return i0, i1, d1.astype(_F32), d0


# Per Paddle version (api3), rank of the interpolation and direction: each axis's weight
# ("float" / "double", see _taps). Measured against real 3.3.1 and 2.6.2 on random sizes, scales
# and flags (bilinear 56 cases, linear 34, trilinear 31 per version, forward and gradient).
_F, _D = "float", "double"
WEIGHTS = {
    (True, 1, "fwd"): (_D,), (True, 1, "grad"): (_F,),
    (True, 2, "fwd"): (_D, _F), (True, 2, "grad"): (_F, _F),
    (True, 3, "fwd"): (_F, _F, _F), (True, 3, "grad"): (_F, _F, _F),
    (False, 1, "fwd"): (_F,), (False, 1, "grad"): (_F,),
    (False, 2, "fwd"): (_F, _F), (False, 2, "grad"): (_F, _F),
    (False, 3, "fwd"): (_F, _F, _F), (False, 3, "grad"): (_F, _F, _F),
}
# Paddle 3.3.1's linear forward and trilinear kernels compute the ratio of an output of one as
# of any other (in / out, or 1 / scale); its bilinear kernels, linear gradient and 2.6.2's all
# give it 0 (measured)
_RATIO_FOR_ONE = {(True, 1, "fwd"), (True, 3, "fwd"), (True, 3, "grad")}


def ratio_of(in_size, out_size, scale, align_corners, nd, api3, direction):
    """The kernel's float ratio of one axis (``scale``: the attribute, 0 when none); the scale
    attribute is a double in 3.3.1, a float in 2.6.2 (1 / 1.7 differs)."""
    if out_size <= 1 and (align_corners or (api3, nd, direction) not in _RATIO_FOR_ONE):
        return _F32(0)
    if align_corners:
        return _F32(_F32(in_size - 1) / _F32(out_size - 1))
    if scale > 0:
        return _F32(1.0 / (float(scale) if api3 else float(_F32(scale))))
    return _F32(_F32(in_size) / _F32(out_size))


def _axis_taps(in_sizes, out_sizes, scales, align_corners, align_mode, api3, direction):
    nd = len(in_sizes)
    weights = WEIGHTS[(api3, nd, direction)]
    return [_taps(n, m, ratio_of(n, m, sc, align_corners, nd, api3, direction), align_corners,
                  align_mode, w)
            for n, m, sc, w in zip(in_sizes, out_sizes, scales, weights)]


def _tap_order(nd):
    """Per tap, for each axis: 0 = (i0, d0 side), 1 = (i1, d1 side); the kernel's order."""
    if nd == 1:
        return [(0,), (1,)]
    if nd == 2:
        return [(0, 0), (1, 0), (0, 1), (1, 1)]
    return [(a, b, c) for a in (0, 1) for b in (0, 1) for c in (0, 1)]


def _weights(dtype, taps, sides):
    """The per-axis weight vectors of one tap, in the kernel's dtype for the products."""
    # the kernel's weights are float; multiplied into T (float32: float; float64: promoted)
    return [(t[3] if s == 0 else t[2]).astype(dtype) for t, s in zip(taps, sides)]


def _indices(taps, sides):
    return [t[0] if s == 0 else t[1] for t, s in zip(taps, sides)]


def _expand(vec, axis, nd):
    shape = [1] * nd
    shape[axis] = vec.shape[0]
    return vec.reshape(shape)


def _interp_fwd(x, out_sizes=(), scales=(), align_corners=False, align_mode=0, api3=True):
    """x: channels-first (N, C, *spatial)."""
    nd = x.ndim - 2
    in_sizes = x.shape[2:]
    if tuple(in_sizes) == tuple(out_sizes):
        return x.copy()
    taps = _axis_taps(in_sizes, out_sizes, scales, align_corners, align_mode, api3, "fwd")
    out = None
    with np.errstate(all="ignore"):
        for sides in _tap_order(nd):
            idx = _indices(taps, sides)
            v = x[(slice(None), slice(None)) + tuple(np.ix_(*idx))]
            for k, w in enumerate(_weights(x.dtype, taps, sides)):
                v = v * _expand(w, 2 + k, x.ndim)
            out = v if out is None else out + v
    return out.astype(x.dtype, copy=False)


def _interp_grad_fwd(g, in_sizes=(), scales=(), align_corners=False, align_mode=0, api3=True):
    """The input gradient of ``_interp_fwd`` from dout ``g`` (channels-first)."""
    nd = g.ndim - 2
    out_sizes = g.shape[2:]
    if tuple(in_sizes) == tuple(out_sizes):
        return g.copy()
    taps = _axis_taps(in_sizes, out_sizes, scales, align_corners, align_mode, api3, "grad")
    order = _tap_order(nd)
    lead = g.shape[:2]
    vals, targets = [], []
    with np.errstate(all="ignore"):
        for sides in order:
            v = g
            for k, w in enumerate(_weights(g.dtype, taps, sides)):
                v = v * _expand(w, 2 + k, g.ndim)
            idx = np.meshgrid(*_indices(taps, sides), indexing="ij")
            vals.append(v.reshape(lead + (-1,)))
            targets.append(np.ravel_multi_index(idx, in_sizes).reshape(-1))
    # contributions in the kernel's order: output positions (row-major), then the taps
    vals = np.stack(vals, axis=-1).reshape(lead + (-1,))
    targets = np.stack(targets, axis=-1).reshape(-1)
    flat = np.zeros(lead[0] * lead[1] * int(np.prod(in_sizes)), g.dtype)
    rows = (np.arange(lead[0] * lead[1]) * int(np.prod(in_sizes)))[:, None]
    np.add.at(flat, (rows + targets[None, :]).reshape(-1), vals.reshape(-1))
    return flat.reshape(lead + tuple(in_sizes))


def _interp_vjp(n, g):
    a = n.attrs
    return interp_grad(g, n.in_meta[0][0][2:], a["scales"], a["align_corners"], a["align_mode"],
                       a["api3"])


def _interp_grad_vjp(n, g):
    a = n.attrs
    out_sizes = n.in_meta[0][0][2:]
    return interp(g, out_sizes, a["scales"], a["align_corners"], a["align_mode"], a["api3"])


_NAMES = {1: "linear_interp", 2: "bilinear_interp", 3: "trilinear_interp"}
_EX = {1: [((2, 3, 5), {"out_sizes": (8,), "scales": (1.6,), "align_corners": False,
                        "align_mode": 0, "api3": True})],
       2: [((2, 2, 3, 4), {"out_sizes": (5, 7), "scales": (0.0, 0.0), "align_corners": False,
                           "align_mode": 0, "api3": True}),
           ((1, 2, 3, 3), {"out_sizes": (5, 4), "scales": (0.0, 0.0), "align_corners": True,
                           "align_mode": 0, "api3": True})],
       3: [((1, 2, 2, 3, 2), {"out_sizes": (3, 4, 3), "scales": (0.0, 0.0, 0.0),
                              "align_corners": False, "align_mode": 1, "api3": True})]}

OPS = {}
GRAD_OPS = {}
for _nd, _name in _NAMES.items():
    OPS[_nd] = register(_name, _interp_fwd, _interp_vjp, saves_inputs=False, saves_output=False,
                        legacy_name=_name.title().replace("_", "") + "Backward",
                        examples=[([shape], attrs) for shape, attrs in _EX[_nd]])
    GRAD_OPS[_nd] = register(_name + "_grad", _interp_grad_fwd, _interp_grad_vjp,
                             saves_inputs=False, saves_output=False, check=False,
                             legacy_name=_name.title().replace("_", "") + "GradBackward")


def _attrs(scales, align_corners, align_mode, api3):
    return {"scales": tuple(float(r or 0.0) for r in scales), "align_corners": bool(align_corners),
            "align_mode": int(align_mode), "api3": bool(api3)}


def interp(x, out_sizes, scales, align_corners, align_mode, api3=True):
    """Paddle's linear/bilinear/trilinear interpolation of channels-first ``x`` to
    ``out_sizes``; ``scales``: the scale attribute per axis (None where the size was given);
    ``api3``: Paddle 3's kernels, else 2.6's."""
    attrs = _attrs(scales, align_corners, align_mode, api3)
    attrs["out_sizes"] = tuple(int(s) for s in out_sizes)
    return apply(OPS[len(scales)], (x,), attrs)


def interp_grad(g, in_sizes, scales, align_corners, align_mode, api3=True):
    attrs = _attrs(scales, align_corners, align_mode, api3)
    attrs["in_sizes"] = tuple(int(s) for s in in_sizes)
    return apply(GRAD_OPS[len(scales)], (g,), attrs)


# ======================================================================= bicubic
# Paddle's BicubicInterpolation(Grad): per axis the source position s = T(ratio * (o + 0.5) - 0.5)
# (align_corners: T(ratio * o)), base = floor(s), t = s - base; the four taps base-1..base+2
# (clamped) weighted by cubic_convolution2(t + 1), cubic_convolution1(t),
# cubic_convolution1(1 - t), cubic_convolution2(2 - t) (A = -0.75, in T). Forward: per output,
# each of the four source rows interpolated along W (x0*c0 + x1*c1 + x2*c2 + x3*c3, left to
# right), then those four along H. Gradient: per output (row-major), for each W tap, for each H
# tap: input += dout * cy * cx.
def _cubic_coefficients(t):
    T = t.dtype.type
    A = T(-0.75)

    def conv1(x):
        return ((A + T(2)) * x - (A + T(3))) * x * x + T(1)

    def conv2(x):
        return ((A * x - T(5) * A) * x + T(8) * A) * x - T(4) * A

    x2 = T(1) - t
    return [conv2(t + T(1)), conv1(t), conv1(x2), conv2(x2 + T(1))]


def _cubic_axis(in_size, out_size, scale, align_corners, api3, dtype, direction="fwd"):
    """Taps and coefficients of one axis. The position: with align_corners the float product
    ratio * o; else ratio * (o + 0.5) - 0.5, in double in the forward and in float (each step
    rounded) in the gradient (measured: 40 of 40 random cases each way, both versions)."""
    r = ratio_of(in_size, out_size, scale, align_corners, 2, api3, "fwd")
    o = np.arange(out_size)
    if align_corners:
        s = (r * o.astype(_F32)).astype(_F32).astype(dtype)
    elif direction == "fwd":
        s = (np.float64(r) * (o + 0.5) - 0.5).astype(dtype)
    else:
        s = ((r * (o.astype(_F32) + _F32(0.5))).astype(_F32) - _F32(0.5)).astype(dtype)
    base = np.floor(s).astype(np.int64)
    t = (s - base.astype(dtype)).astype(dtype)
    idx = [np.clip(base - 1 + j, 0, in_size - 1) for j in range(4)]
    return idx, _cubic_coefficients(t)


def _bicubic_fwd(x, out_sizes=(), scales=(), align_corners=False, align_mode=0, api3=True):
    (h, w), (oh, ow) = x.shape[2:], tuple(out_sizes)
    if (h, w) == (oh, ow):
        return x.copy()
    dt = x.dtype
    iy, cy = _cubic_axis(h, oh, scales[0], align_corners, api3, dt)
    ix, cx = _cubic_axis(w, ow, scales[1], align_corners, api3, dt)
    with np.errstate(all="ignore"):
        rows = []
        for ii in range(4):
            r = x[:, :, iy[ii], :]                                   # N, C, oh, w
            v = None
            for j in range(4):
                term = r[..., ix[j]] * cx[j]
                v = term if v is None else v + term
            rows.append(v)                                           # N, C, oh, ow
        out = None
        for ii in range(4):
            term = rows[ii] * cy[ii][:, None]
            out = term if out is None else out + term
    return out.astype(dt, copy=False)


def _bicubic_grad_fwd(g, in_sizes=(), scales=(), align_corners=False, align_mode=0, api3=True):
    (oh, ow), (h, w) = g.shape[2:], tuple(in_sizes)
    if (h, w) == (oh, ow):
        return g.copy()
    dt = g.dtype
    iy, cy = _cubic_axis(h, oh, scales[0], align_corners, api3, dt, "grad")
    ix, cx = _cubic_axis(w, ow, scales[1], align_corners, api3, dt, "grad")
    lead = g.shape[:2]
    vals, targets = [], []
    with np.errstate(all="ignore"):
        for ii in range(4):            # W tap outer, H tap inner (the kernel's loops)
            for jj in range(4):
                v = (g * cy[jj][:, None]) * cx[ii][None, :]
                vals.append(v.reshape(lead + (-1,)))
                targets.append((iy[jj][:, None] * w + ix[ii][None, :]).reshape(-1))
    vals = np.stack(vals, axis=-1).reshape(lead + (-1,))
    targets = np.stack(targets, axis=-1).reshape(-1)
    flat = np.zeros(lead[0] * lead[1] * h * w, dt)
    rows = (np.arange(lead[0] * lead[1]) * (h * w))[:, None]
    np.add.at(flat, (rows + targets[None, :]).reshape(-1), vals.reshape(-1))
    return flat.reshape(lead + (h, w))


def _bicubic_vjp(n, g):
    a = n.attrs
    return apply(BICUBIC_GRAD, (g,), {"in_sizes": tuple(n.in_meta[0][0][2:]), **_common(a)})


def _bicubic_grad_vjp(n, g):
    a = n.attrs
    return apply(BICUBIC, (g,), {"out_sizes": tuple(n.in_meta[0][0][2:]), **_common(a)})


def _common(a):
    return {k: a[k] for k in ("scales", "align_corners", "align_mode", "api3")}


BICUBIC = register(
    "bicubic_interp", _bicubic_fwd, _bicubic_vjp, saves_inputs=False, saves_output=False,
    legacy_name="BicubicInterpBackward",
    examples=[([(1, 2, 3, 4)], {"out_sizes": (5, 6), "scales": (0.0, 0.0),
                                "align_corners": False, "align_mode": 0, "api3": True})])
BICUBIC_GRAD = register(
    "bicubic_interp_grad", _bicubic_grad_fwd, _bicubic_grad_vjp, saves_inputs=False,
    saves_output=False, check=False, legacy_name="BicubicInterpGradBackward")


def bicubic(x, out_sizes, scales, align_corners, api3=True):
    attrs = _attrs(scales, align_corners, 0, api3)
    attrs["out_sizes"] = tuple(int(s) for s in out_sizes)
    return apply(BICUBIC, (x,), attrs)
