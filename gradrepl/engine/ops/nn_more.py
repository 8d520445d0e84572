"""More activations as single ops (celu, hardshrink, softshrink, thresholded_relu, prelu), each
with the kernel's formula and its gradient; the piecewise ones pass the gradient through a mask
of where the input lies (a constant, so their second derivative is zero, as it is)."""
from __future__ import annotations

import numpy as np

from ..registry import apply, register
from . import _kernels as K
from ._util import const
from .math import divide, exp, multiply, scale, unary


def _typed(v, like):
    return np.asarray(v, like.dtype)


# ============================================================== celu
def _celu_fwd(x, alpha=1.0):
    a = _typed(alpha, x)
    with np.errstate(all="ignore"):
        neg = a * (K.exp(x / a) - np.ones((), x.dtype)) if x.dtype == np.float32 else \
            a * (np.exp(x / a) - 1)
    return np.where(x > 0, x, neg).astype(x.dtype)


def _celu_vjp(n, g):
    """dx = dout where x > 0, dout * exp(x / alpha) elsewhere."""
    from .math import add

    x = n.inputs[0]
    alpha = n.attrs.get("alpha", 1.0)
    pos = const(g, (x.data > 0).astype(g.data.dtype))
    neg = multiply(exp(scale(x, 1.0 / alpha)), const(g, (x.data <= 0).astype(g.data.dtype)))
    return multiply(g, add(pos, neg))


CELU = unary("celu", _celu_fwd, _celu_vjp, "CeluBackward", domain="away0",
             examples=[([(2, 3)], {"alpha": 1.0}), ([(3,)], {"alpha": 0.5})])


def celu(x, alpha=1.0):
    return apply(CELU, (x,), {"alpha": float(alpha)})


# ============================================================== shrinks and thresholds
def _mask_vjp(pred):
    def vjp(n, g):
        return multiply(g, const(g, pred(n.inputs[0].data, n.attrs).astype(g.data.dtype)))
    return vjp


def _hardshrink_fwd(x, threshold=0.5):
    t = _typed(threshold, x)
    return np.where((x > t) | (x < -t), x, np.zeros((), x.dtype)).astype(x.dtype)


def _softshrink_fwd(x, threshold=0.5):
    t = _typed(threshold, x)
    return np.where(x > t, x - t, np.where(x < -t, x + t, np.zeros((), x.dtype))).astype(x.dtype)


def _thresholded_fwd(x, threshold=1.0, value=0.0):
    return np.where(x > _typed(threshold, x), x, _typed(value, x)).astype(x.dtype)


HARDSHRINK = unary("hardshrink", _hardshrink_fwd,
                   _mask_vjp(lambda x, a: (x > a.get("threshold", 0.5)) |
                             (x < -a.get("threshold", 0.5))),
                   "HardshrinkBackward", domain="away0", check=True,
                   examples=[([(2, 3)], {"threshold": 0.1})], saves_inputs=True)
SOFTSHRINK = unary("softshrink", _softshrink_fwd,
                   _mask_vjp(lambda x, a: (x > a.get("threshold", 0.5)) |
                             (x < -a.get("threshold", 0.5))),
                   "SoftshrinkBackward", domain="away0",
                   examples=[([(2, 3)], {"threshold": 0.1})])
THRESHOLDED_RELU = unary("thresholded_relu", _thresholded_fwd,
                         _mask_vjp(lambda x, a: x > a.get("threshold", 1.0)),
                         "ThresholdedReluBackward", domain="away0",
                         examples=[([(2, 3)], {"threshold": 0.1, "value": 0.0})])


def hardshrink(x, threshold=0.5):
    return apply(HARDSHRINK, (x,), {"threshold": float(threshold)})


def softshrink(x, threshold=0.5):
    return apply(SOFTSHRINK, (x,), {"threshold": float(threshold)})


def thresholded_relu(x, threshold=1.0, value=0.0):
    return apply(THRESHOLDED_RELU, (x,), {"threshold": float(threshold), "value": float(value)})


# ============================================================== prelu
def _prelu_shape(x_shape, w_size, mode, data_format):
    if mode == "all" or w_size == 1:
        return (1,) * len(x_shape) if x_shape else ()
    if mode == "channel":
        shape = [1] * len(x_shape)
        shape[1 if data_format == "NCHW" else len(x_shape) - 1] = w_size
        return tuple(shape)
    return tuple(x_shape)


def _prelu_fwd(x, w, mode="all", data_format="NCHW"):
    wb = w.reshape(_prelu_shape(x.shape, w.size, mode, data_format))
    return np.where(x > 0, x, wb * x).astype(x.dtype)


def _prelu_vjp(n, g):
    """dx = dout where x > 0, dout * w elsewhere; dw = dout * x where x <= 0, summed to w."""
    from .broadcast import sum_to
    from .shape import reshape

    x, w = n.inputs
    mode, fmt = n.attrs.get("mode", "all"), n.attrs.get("data_format", "NCHW")
    bshape = _prelu_shape(x.data.shape, w.data.size, mode, fmt)
    wb = reshape(w, bshape)
    pos = const(g, (x.data > 0).astype(g.data.dtype))
    negm = const(g, (x.data <= 0).astype(g.data.dtype))
    from .math import add

    dx = multiply(g, add(pos, multiply(negm, wb)))
    dwb = sum_to(multiply(multiply(g, x), negm), bshape)
    dw = reshape(dwb, w.data.shape)
    return dx, dw


PRELU = register("prelu", _prelu_fwd, _prelu_vjp, legacy_name="PreluBackward", domain="away0",
                 examples=[([(2, 3, 2), (1,)], {"mode": "all"}),
                           ([(2, 3, 2), (3,)], {"mode": "channel", "data_format": "NCHW"})])


def prelu(x, weight, mode="all", data_format="NCHW"):
    return apply(PRELU, (x, weight), {"mode": mode, "data_format": data_format})


del divide
