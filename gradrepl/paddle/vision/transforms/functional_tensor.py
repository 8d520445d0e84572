"""The Paddle-tensor side of ``paddle.vision.transforms.functional``: images as (C, H, W) or
(H, W, C) tensors (a leading batch axis allowed where Paddle allows it), written with the same
paddle operations real Paddle uses, so the results carry the same float32 arithmetic."""
from __future__ import annotations

import importlib
import math
import numbers

from ._args import padding_ltrb
from .functional_cv2 import center_offsets

__all__ = []


def _pp():
    return importlib.import_module("...", __package__)


def _F():
    return importlib.import_module("...nn.functional", __package__)


def _assert_image_tensor(img, data_format):
    from ...core import Tensor

    if (not isinstance(img, Tensor) or img.ndim < 3 or img.ndim > 4
            or data_format.lower() not in ("chw", "hwc")):
        raise RuntimeError(f"not support [type={type(img)}, ndim={img.ndim}, "
                           f"data_format={data_format}] paddle image")


_AXES = {"chw": (-3, -2, -1), "hwc": (-1, -3, -2)}  # channel, height, width


def _axis(data_format, which):
    return _AXES[data_format.lower()]["chw".index(which)]


def image_size(img, data_format="CHW"):
    """(width, height) of a tensor image."""
    return img.shape[_axis(data_format, "w")], img.shape[_axis(data_format, "h")]


def _channels(img, data_format="CHW"):
    return img.shape[_axis(data_format, "c")]


def _blend(img1, img2, ratio):
    paddle = _pp()
    top = 1.0 if paddle.is_floating_point(img1) else 255.0
    return paddle.lerp(img2, img1, float(ratio)).clip(0, top).astype(img1.dtype)


def normalize(img, mean, std, data_format="CHW"):
    paddle = _pp()
    _assert_image_tensor(img, data_format)
    mean, std = paddle.to_tensor(mean), paddle.to_tensor(std)
    if data_format.lower() == "chw":
        mean, std = mean.reshape([-1, 1, 1]), std.reshape([-1, 1, 1])
    return (img - mean) / std


def to_grayscale(img, num_output_channels=1, data_format="CHW"):
    paddle = _pp()
    _assert_image_tensor(img, data_format)
    if num_output_channels not in (1, 3):
        raise ValueError("num_output_channels should be either 1 or 3")
    weights = paddle.to_tensor([0.2989, 0.587, 0.114]).astype(img.dtype)
    if data_format.lower() == "chw":
        weights = weights.reshape((-1, 1, 1))
    c = _axis(data_format, "c")
    img = (img * weights).sum(axis=c, keepdim=True)
    shape = list(img.shape)
    shape[c] = num_output_channels
    return img.expand(shape)


def vflip(img, data_format="CHW"):
    _assert_image_tensor(img, data_format)
    return img.flip(axis=[_axis(data_format, "h")])


def hflip(img, data_format="CHW"):
    _assert_image_tensor(img, data_format)
    return img.flip(axis=[_axis(data_format, "w")])


def crop(img, top, left, height, width, data_format="CHW"):
    _assert_image_tensor(img, data_format)
    if data_format.lower() == "chw":
        return img[:, top:top + height, left:left + width]
    return img[top:top + height, left:left + width, :]


def center_crop(img, output_size, data_format="CHW"):
    _assert_image_tensor(img, data_format)
    w, h = image_size(img, data_format)
    return crop(img, *center_offsets(h, w, output_size), data_format=data_format)


def erase(img, i, j, h, w, v, inplace=False):
    _assert_image_tensor(img, "CHW")
    if not inplace:
        img = img.clone()
    img[..., i:i + h, j:j + w] = v
    return img


def pad(img, padding, fill=0, padding_mode="constant", data_format="CHW"):
    _assert_image_tensor(img, data_format)
    left, top, right, bottom = padding_ltrb(padding, fill, padding_mode)
    if padding_mode == "symmetric":
        raise ValueError("Do not support symmetric mode")
    mode = "replicate" if padding_mode == "edge" else padding_mode
    out = _F().pad(img.unsqueeze(0), pad=[left, right, top, bottom], mode=mode,
                   value=float(fill), data_format="N" + data_format)
    return out.squeeze(0)


def resize(img, size, interpolation="bilinear", data_format="CHW"):
    _assert_image_tensor(img, data_format)
    if not (isinstance(size, int) or (isinstance(size, (tuple, list)) and len(size) == 2)):
        raise TypeError(f"Got inappropriate size arg: {size}")
    if isinstance(size, int):
        w, h = image_size(img, data_format)
        if w <= 0 or h <= 0:
            raise NotImplementedError(
                f"Not support while w<=0 or h<=0, but received w={w}, h={h}")
        if (w <= h and w == size) or (h <= w and h == size):
            return img
        oh, ow = (int(size * h / w), size) if w < h else (size, int(size * w / h))
    else:
        oh, ow = size
    out = _F().interpolate(img.unsqueeze(0), size=(oh, ow), mode=interpolation.lower(),
                           data_format="N" + data_format.upper())
    return out.squeeze(0)


def adjust_brightness(img, brightness_factor):
    _assert_image_tensor(img, "CHW")
    assert brightness_factor >= 0, "brightness_factor should be non-negative."
    assert _channels(img) in (1, 3), "channels of input should be either 1 or 3."
    return _blend(img, _pp().zeros_like(img, img.dtype), brightness_factor)


def adjust_contrast(img, contrast_factor):
    paddle = _pp()
    _assert_image_tensor(img, "chw")
    assert contrast_factor >= 0, "contrast_factor should be non-negative."
    channels = _channels(img)
    dtype = img.dtype if paddle.is_floating_point(img) else paddle.float32
    if channels not in (1, 3):
        raise ValueError("channels of input should be either 1 or 3.")
    gray = img if channels == 1 else to_grayscale(img)
    target = paddle.mean(gray.astype(dtype), axis=(-3, -2, -1), keepdim=True)
    return _blend(img, target, contrast_factor)


def adjust_saturation(img, saturation_factor):
    _assert_image_tensor(img, "CHW")
    assert saturation_factor >= 0, "saturation_factor should be non-negative."
    channels = _channels(img)
    if channels == 1:
        return img
    if channels != 3:
        raise ValueError("channels of input should be either 1 or 3.")
    return _blend(img, to_grayscale(img), saturation_factor)


def _rgb_to_hsv(img):
    paddle = _pp()
    maxc, minc = img.max(axis=-3), img.min(axis=-3)
    same = paddle.equal(maxc, minc)
    ones = paddle.ones_like(maxc)
    delta = maxc - minc
    s = delta / paddle.where(same, ones, maxc)
    r, g, b = img.unbind(axis=-3)
    div = paddle.where(same, ones, delta)
    rc, gc, bc = (maxc - r) / div, (maxc - g) / div, (maxc - b) / div
    hr = (maxc == r).astype(maxc.dtype) * (bc - gc)
    hg = ((maxc == g) & (maxc != r)).astype(maxc.dtype) * (rc - bc + 2.0)
    hb = ((maxc != r) & (maxc != g)).astype(maxc.dtype) * (gc - rc + 4.0)
    h = (hr + hg + hb) / 6.0 + 1.0
    h = h - h.trunc()
    return paddle.stack([h, s, maxc], axis=-3)


def _hsv_to_rgb(img):
    paddle = _pp()
    h, s, v = img.unbind(axis=-3)
    f = h * 6.0
    i = paddle.floor(f)
    f = f - i
    i = i.astype(paddle.int32) % 6
    p = paddle.clip(v * (1.0 - s), 0.0, 1.0)
    q = paddle.clip(v * (1.0 - s * f), 0.0, 1.0)
    t = paddle.clip(v * (1.0 - s * (1.0 - f)), 0.0, 1.0)
    sector = paddle.arange(6, dtype=i.dtype).reshape((-1, 1, 1))
    mask = paddle.equal(i.unsqueeze(axis=-3), sector).astype(img.dtype)
    rows = ([v, q, p, p, t, v], [t, v, v, q, p, p], [p, p, t, v, v, q])
    # out[x] = sum over the six sectors of mask[sector] * rows[x][sector]
    outs = [(mask * paddle.stack(row, axis=-3)).sum(axis=-3) for row in rows]
    return paddle.stack(outs, axis=-3)


def adjust_hue(img, hue_factor):
    paddle = _pp()
    _assert_image_tensor(img, "CHW")
    assert -0.5 <= hue_factor <= 0.5, "hue_factor should be in range [-0.5, 0.5]"
    channels = _channels(img)
    if channels == 1:
        return img
    if channels != 3:
        raise ValueError("channels of input should be either 1 or 3.")
    dtype = img.dtype
    if dtype == paddle.uint8:
        img = img.astype(paddle.float32) / 255.0
    h, s, v = _rgb_to_hsv(img).unbind(axis=-3)
    h = h + hue_factor
    h = h - h.floor()
    out = _hsv_to_rgb(paddle.stack([h, s, v], axis=-3))
    return (out * 255.0).astype(dtype) if dtype == paddle.uint8 else out


# -- geometry through grid_sample ------------------------------------------------------------

def _affine_grid(theta, w, h, ow, oh):
    paddle = _pp()
    xs = paddle.linspace(-ow * 0.5 + 0.5, ow * 0.5 + 0.5 - 1, ow)
    ys = paddle.linspace(-oh * 0.5 + 0.5, oh * 0.5 + 0.5 - 1, oh).unsqueeze(-1)
    ones = paddle.ones((1, oh, ow, 1), dtype=theta.dtype)
    base = paddle.concat([xs.expand([1, oh, ow]).unsqueeze(-1),
                          ys.expand([1, oh, ow]).unsqueeze(-1), ones], axis=-1)
    scaled = theta.transpose((0, 2, 1)) / paddle.to_tensor([0.5 * w, 0.5 * h])
    return base.reshape((1, oh * ow, 3)).bmm(scaled).reshape((1, oh, ow, 2))


def _grid_transform(img, grid, mode, fill):
    paddle = _pp()
    if img.shape[0] > 1:
        grid = grid.expand(shape=[img.shape[0]] + list(grid.shape[1:]))
    if fill is not None:
        dummy = paddle.ones((img.shape[0], 1, img.shape[2], img.shape[3]), dtype=img.dtype)
        img = paddle.concat((img, dummy), axis=1)
    img = _F().grid_sample(img, grid, mode=mode, padding_mode="zeros", align_corners=False)
    if fill is None:
        return img
    mask = img[:, -1:, :, :]
    img = img[:, :-1, :, :]
    mask = mask.tile([1, img.shape[1], 1, 1])
    n = len(fill) if isinstance(fill, (tuple, list)) else 1
    fill_img = paddle.to_tensor(fill).reshape((1, n, 1, 1)).astype(img.dtype).expand_as(img)
    if mode == "nearest":
        mask = paddle.cast(mask < 0.5, img.dtype)
        return img * (1.0 - mask) + mask * fill_img
    return img * mask + (1.0 - mask) * fill_img


def _batched(img, data_format):
    img = img.unsqueeze(0) if img.ndim == 3 else img
    return img if data_format.lower() == "chw" else img.transpose((0, 3, 1, 2))


def _unbatched(out, ndim, data_format):
    out = out if data_format.lower() == "chw" else out.transpose((0, 2, 3, 1))
    return out.squeeze(0) if ndim == 3 else out


def affine(img, matrix, interpolation="nearest", fill=None, data_format="CHW"):
    paddle = _pp()
    ndim = img.ndim
    img = _batched(img, data_format)
    theta = paddle.to_tensor(matrix).reshape((1, 2, 3))
    grid = _affine_grid(theta, w=img.shape[-1], h=img.shape[-2], ow=img.shape[-1],
                        oh=img.shape[-2])
    fill = (fill,) * 3 if isinstance(fill, int) else fill
    return _unbatched(_grid_transform(img, grid, interpolation, fill), ndim, data_format)


def rotate(img, angle, interpolation="nearest", expand=False, center=None, fill=None,
           data_format="CHW"):
    paddle = _pp()
    angle = -angle % 360
    img = img.unsqueeze(0)
    w, h = image_size(img, data_format)
    img = img if data_format.lower() == "chw" else img.transpose((0, 3, 1, 2))
    cx, cy = (0, 0) if center is None else (p - s * 0.5 for p, s in zip(center, [w, h]))
    a = math.radians(angle)
    c, s = math.cos(a), math.sin(a)
    m = paddle.to_tensor([c, s, 0.0, -s, c, 0.0])
    m0, m1, m3, m4 = m[0], m[1], m[3], m[4]
    m[2] += m0 * -cx + m1 * -cy + cx
    m[5] += m3 * -cx + m4 * -cy + cy
    theta = m.reshape((1, 2, 3))
    ow, oh = w, h
    if expand:
        corners = paddle.to_tensor([[-0.5 * w, -0.5 * h, 1.0], [-0.5 * w, 0.5 * h, 1.0],
                                    [0.5 * w, 0.5 * h, 1.0], [0.5 * w, -0.5 * h, 1.0]])
        pos = corners.reshape((1, -1, 3)).astype(theta.dtype).bmm(
            theta.transpose((0, 2, 1))).reshape((1, -1, 2))
        span = pos.max(axis=-2).ceil() - pos.min(axis=-2).floor()
        ow, oh = int(span[0][0]), int(span[0][1])
    out = _grid_transform(img, _affine_grid(theta, w, h, ow, oh), interpolation, fill)
    out = out if data_format.lower() == "chw" else out.transpose((0, 2, 3, 1))
    return out.squeeze(0)


def perspective(img, coeffs, interpolation="nearest", fill=None, data_format="CHW"):
    paddle = _pp()
    ndim = img.ndim
    img = _batched(img, data_format)
    ow, oh = img.shape[-1], img.shape[-2]
    dtype = img.dtype if paddle.is_floating_point(img) else paddle.float32
    coeffs = paddle.to_tensor([float(c) for c in coeffs])  # python floats: float32
    theta1 = coeffs[:6].reshape([1, 2, 3])
    tail = paddle.tile(coeffs[6:].reshape([1, 2]), repeat_times=[2, 1])
    theta2 = paddle.concat((tail, paddle.ones((2, 1), dtype=dtype)), axis=1).unsqueeze(0)
    xs = paddle.linspace(0.5, ow * 1.0 + 0.5 - 1.0, ow)
    ys = paddle.linspace(0.5, oh * 1.0 + 0.5 - 1.0, oh).unsqueeze(-1)
    base = paddle.concat([xs.expand([1, oh, ow]).unsqueeze(-1),
                          ys.expand([1, oh, ow]).unsqueeze(-1),
                          paddle.ones((1, oh, ow, 1), dtype=dtype)], axis=-1)
    base = base.reshape((1, oh * ow, 3))
    g1 = base.bmm(theta1.transpose((0, 2, 1)) / paddle.to_tensor([0.5 * ow, 0.5 * oh]))
    g2 = base.bmm(theta2.transpose((0, 2, 1)))
    grid = (g1 / g2 - 1.0).reshape((1, oh, ow, 2))
    return _unbatched(_grid_transform(img, grid, interpolation, fill), ndim, data_format)
