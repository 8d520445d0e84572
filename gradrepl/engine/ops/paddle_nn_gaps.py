"""Ops of the Paddle nn names issue 28's gap list named (``paddle/nn/gaps.py``).

* ``gumbel_softmax(x, noise)``: Paddle's CPU kernel after its noise is drawn: softmax of
  ``(x + noise) / temperature`` along ``axis`` (the softmax kernel's own paths), with ``hard`` the
  one-hot of each slice's first maximum. Its VJP is Paddle's gumbel_softmax_grad: the softmax
  gradient of the *output* (``out * (g - sum(g * out))``); it does not divide by the temperature
  and, with ``hard``, uses the one-hot output (so the gradient is zero), as the real kernel.
* ``temporal_shift(x)``: the channel groups moved one frame back / forward (zeros where nothing
  arrives); its VJP is the opposite shift of the gradient (Paddle's temporal_shift_grad).
"""
from __future__ import annotations

import numpy as np

from ..registry import apply, register


# ======================================================================= gumbel_softmax
def _one_hot_of_max(y, axis):
    idx = np.argmax(y, axis=axis)
    out = np.zeros_like(y)
    np.put_along_axis(out, np.expand_dims(idx, axis), y.dtype.type(1), axis=axis)
    return out


def _gumbel_fwd(x, noise, temperature=1.0, hard=False, axis=-1):
    from .nn import softmax_kernel

    t = x.dtype.type
    with np.errstate(all="ignore"):
        z = (x + noise) / t(np.float32(temperature))
    y = softmax_kernel(z, axis)
    return _one_hot_of_max(y, axis % max(x.ndim, 1)) if hard and x.ndim else y


def _gumbel_vjp(n, g):
    from .nn import softmax_grad

    return softmax_grad(n.out(), g, n.attrs["axis"]), None


GUMBEL_SOFTMAX = register(
    "gumbel_softmax", _gumbel_fwd, _gumbel_vjp, diff_inputs=(0,), saves_inputs=False,
    legacy_name="GumbelSoftmaxBackward",
    examples=[([(2, 5), (2, 5)], {"temperature": 1.0, "hard": False, "axis": -1}),
              ([(3, 2, 4), (3, 2, 4)], {"temperature": 1.0, "hard": False, "axis": 1})])


def gumbel_softmax(x, noise, temperature, hard, axis):
    return apply(GUMBEL_SOFTMAX, (x, noise), {"temperature": float(temperature),
                                             "hard": bool(hard), "axis": int(axis)})


# ======================================================================= temporal_shift
def _shift(a, seg_num, shift_ratio, nhwc, back):
    """Move channel groups in time; ``back`` is the gradient's (opposite) direction."""
    if nhwc:
        a = np.transpose(a, (0, 3, 1, 2))
    nt, c, h, w = a.shape
    v = a.reshape(nt // seg_num, seg_num, c, h, w)
    c1, c2 = int(c * shift_ratio), int(c * 2 * shift_ratio)
    out = np.zeros_like(v)
    if not back:
        out[:, 1:, :c1] = v[:, :-1, :c1]      # the first channels: from frame t - 1
        out[:, :-1, c1:c2] = v[:, 1:, c1:c2]  # the next ones: from frame t + 1
    else:
        out[:, :-1, :c1] = v[:, 1:, :c1]
        out[:, 1:, c1:c2] = v[:, :-1, c1:c2]
    out[:, :, c2:] = v[:, :, c2:]
    out = out.reshape(nt, c, h, w)
    return np.ascontiguousarray(np.transpose(out, (0, 2, 3, 1))) if nhwc else out


def _ts_fwd(x, seg_num=1, shift_ratio=0.25, nhwc=False):
    return _shift(x, seg_num, shift_ratio, nhwc, False)


def _ts_grad_fwd(g, seg_num=1, shift_ratio=0.25, nhwc=False):
    return _shift(g, seg_num, shift_ratio, nhwc, True)


def _ts_vjp(n, g):
    return apply(TEMPORAL_SHIFT_GRAD, (g,), dict(n.attrs))


def _ts_grad_vjp(n, g):
    return apply(TEMPORAL_SHIFT, (g,), dict(n.attrs))


_TS_EXAMPLES = [([(4, 4, 2, 2)], {"seg_num": 2, "shift_ratio": 0.25, "nhwc": False}),
                ([(6, 2, 3, 8)], {"seg_num": 3, "shift_ratio": 0.25, "nhwc": True})]
TEMPORAL_SHIFT = register("temporal_shift", _ts_fwd, _ts_vjp, saves_inputs=False,
                          saves_output=False, legacy_name="TemporalShiftBackward",
                          examples=_TS_EXAMPLES)
TEMPORAL_SHIFT_GRAD = register("temporal_shift_grad", _ts_grad_fwd, _ts_grad_vjp,
                               saves_inputs=False, saves_output=False,
                               legacy_name="TemporalShiftGradBackward", examples=_TS_EXAMPLES)


def temporal_shift(x, seg_num, shift_ratio, nhwc):
    return apply(TEMPORAL_SHIFT, (x,), {"seg_num": int(seg_num), "shift_ratio": float(shift_ratio),
                                        "nhwc": bool(nhwc)})
