"""``torch.fake_quantize_per_tensor_affine`` / ``fake_quantize_per_channel_affine`` as ATen's
CPU cachemask kernels (``QuantizedOpKernels.cpp``): for each value, with ``inv_scale = 1.0f /
scale`` (float),

    qval = int64(zero_point + nearbyint(x * inv_scale))        (in x's dtype, then cast)
    out  = (fmin(fmax(qval, quant_min), quant_max) - zero_point) * scale
           (per tensor a float product, per channel a double one; then x's dtype)
    mask = quant_min <= qval <= quant_max

and the backward is the straight-through estimator ``grad * mask`` (torch saves the mask). The
cast of a NaN or an out-of-range value to int64 is the C cast of this machine (numpy's is the
same cast), as in torch. Nodes: ``FakeQuantizePerTensorAffineCachemaskBackward0`` (a number
scale), ``...CachemaskTensorQparamsBackward0`` (tensor scale/zero_point),
``FakeQuantizePerChannelAffineCachemaskBackward0``.
"""
from __future__ import annotations

import numpy as np

from ..engine.registry import OPS, apply, register
from ._base import EngineTensor, raw
from ._ops import top
from ._tensor import Tensor

_wrap = Tensor._wrap


def _qparams(shape, dtype, scale, zero_point, axis):
    """scale (float32 rounded, as a float the kernel reads) and zero point, shaped to broadcast
    along ``axis`` (per channel) or scalars."""
    sc = np.asarray(scale, np.float32)
    zp = np.asarray(zero_point, np.int64)
    if axis is not None and len(shape):
        keep = [1] * len(shape)
        keep[axis] = -1
        sc, zp = sc.reshape(keep), zp.reshape(keep)
    return sc, zp


def _quantize(x, scale, zero_point, quant_min, quant_max, axis=None):
    dt = x.dtype
    sc, zp = _qparams(x.shape, dt, scale, zero_point, axis)
    inv = (np.float32(1) / sc).astype(np.float32)
    with np.errstate(all="ignore"):
        prod = (x * inv.astype(dt)).astype(dt)
        q = (zp.astype(dt) + np.rint(prod)).astype(dt)
        qval = q.astype(np.int64)
        clamped = np.minimum(np.maximum(qval, quant_min), quant_max).astype(np.float64)
        out = (clamped - zp) * sc.astype(np.float64)
        if axis is None:   # per tensor the product is a float's (measured: a float64 input's
            out = out.astype(np.float32)   # outputs are float32 values; per channel: double)
        out = out.astype(dt)
    mask = (qval >= quant_min) & (qval <= quant_max)
    return out, mask


def _fwd(x, scale=1.0, zero_point=0, quant_min=0, quant_max=255, axis=None):
    return _quantize(x, scale, zero_point, quant_min, quant_max, axis)[0]


def _vjp(n, g):
    a = raw(n.inputs[0])
    at = n.attrs
    _, mask = _quantize(a, at["scale"], at["zero_point"], at["quant_min"], at["quant_max"],
                        at.get("axis"))
    return (g * _wrap(mask.astype(raw(g).dtype), True),)


BASE = OPS.get("torch_fake_quantize") or register("torch_fake_quantize", _fwd, _vjp, check=False,
                                                 legacy_name="FakeQuantizeCachemaskBackward")
BASE.saves_inputs = True

_NAMES = {"tensor": "FakeQuantizePerTensorAffineCachemaskBackward0",
          "qparams": "FakeQuantizePerTensorAffineCachemaskTensorQparamsBackward0",
          "channel": "FakeQuantizePerChannelAffineCachemaskBackward0"}


def _check_range(quant_min, quant_max, zero_points):
    if quant_min > quant_max:
        raise RuntimeError("`quant_min` should be less than or         equal to `quant_max`.")
    zps = np.asarray(zero_points).reshape(-1)
    if zps.size and (zps.min() < quant_min or zps.max() > quant_max):
        raise RuntimeError("`zero_point` must be between `quant_min` and `quant_max`.")


def _float_input(input, name):  # noqa: A002
    if raw(input).dtype.kind != "f":
        raise RuntimeError(f"\"{name}\" not implemented for "
                           f"'{input.dtype.__repr__().split('.')[-1].capitalize()}'")


def fake_quantize_per_tensor_affine(input, scale, zero_point, quant_min, quant_max):  # noqa: A002
    _float_input(input, "fake_quantize_tensor_cachemask_kernel_types")
    kind = "qparams" if isinstance(scale, EngineTensor) else "tensor"
    sc = float(raw(scale).reshape(-1)[0]) if isinstance(scale, EngineTensor) else float(scale)
    zp = int(raw(zero_point).reshape(-1)[0]) if isinstance(zero_point, EngineTensor) \
        else int(zero_point)
    _check_range(quant_min, quant_max, zp)
    return apply(top("torch_fake_quantize", _NAMES[kind], "none"), (input,),
                 {"scale": sc, "zero_point": zp, "quant_min": int(quant_min),
                  "quant_max": int(quant_max)})


def fake_quantize_per_channel_affine(input, scale, zero_point, axis, quant_min,  # noqa: A002
                                     quant_max):
    _float_input(input, "fake_quantize_channel_cachemask_kernel_types")
    a = raw(input)
    ax = axis + a.ndim if axis < 0 else axis
    if not 0 <= ax < a.ndim:
        raise RuntimeError("`axis` must be between 0 and number of dimensions of input")
    sc, zp = raw(scale).reshape(-1), raw(zero_point).reshape(-1)
    if sc.size != a.shape[ax] or zp.size != a.shape[ax]:
        raise RuntimeError("dimensions of scale and zero-point are not consistent with input "
                           "tensor")
    _check_range(quant_min, quant_max, zp)
    return apply(top("torch_fake_quantize", _NAMES["channel"], "none"), (input,),
                 {"scale": tuple(float(v) for v in sc.astype(np.float32)),
                  "zero_point": tuple(int(v) for v in zp), "quant_min": int(quant_min),
                  "quant_max": int(quant_max), "axis": ax})


EXPORTS = {"fake_quantize_per_tensor_affine": fake_quantize_per_tensor_affine,
           "fake_quantize_per_channel_affine": fake_quantize_per_channel_affine}


def install(T):
    for k, v in EXPORTS.items():
        setattr(T, k, v)
