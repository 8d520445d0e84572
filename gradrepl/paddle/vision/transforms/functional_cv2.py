"""The numpy (H, W, C) side of ``paddle.vision.transforms.functional``.

Real Paddle hands numpy images to OpenCV for resizing, padding, flipping, colour and geometry;
so does this module, through ``cv2`` when it is installed. Without OpenCV it raises what real
Paddle raises (``ImportError: Failed importing cv2 ...``). Cropping, normalising, erasing and
``to_tensor`` are plain numpy, in real Paddle as here, and need no OpenCV.
"""
from __future__ import annotations

import importlib
import math
import numbers
from collections.abc import Iterable

import numpy as np

from ._args import padding_ltrb

__all__ = []


def try_import(module_name):
    """``paddle.utils.try_import``: the module, or Paddle's ImportError naming the pip package."""
    install = {"cv2": "opencv-python"}.get(module_name, module_name.split(".")[0])
    try:
        return importlib.import_module(module_name)
    except ImportError:
        raise ImportError(
            f"Failed importing {module_name}. This likely means that some paddle modules "
            "require additional dependencies that have to be manually installed (usually with "
            f"`pip install {install}`). ") from None


def _interp(cv2, name):
    return {"nearest": cv2.INTER_NEAREST, "bilinear": cv2.INTER_LINEAR, "area": cv2.INTER_AREA,
            "bicubic": cv2.INTER_CUBIC, "lanczos": cv2.INTER_LANCZOS4}[name]


def _keep_channel(img, out):
    """OpenCV drops a trailing channel axis of 1; put it back as Paddle does."""
    if img.ndim == 3 and img.shape[2] == 1 and out.ndim == 2:
        return out[:, :, np.newaxis]
    return out


def to_tensor(pic, data_format="CHW"):
    from ... import cast, to_tensor as _to_tensor

    if data_format not in ("CHW", "HWC"):
        raise ValueError(f"data_format should be CHW or HWC. Got {data_format}")
    if pic.ndim == 2:
        pic = pic[:, :, None]
    img = _to_tensor(pic.transpose((2, 0, 1)) if data_format == "CHW" else pic)
    if pic.dtype == np.uint8:
        return cast(img, np.float32) / 255.0
    return img


def target_size(h, w, size):
    """(oh, ow) for ``resize``: an int sets the shorter side (the other scaled, truncated);
    None when the shorter side already has that length."""
    if not (isinstance(size, int) or (isinstance(size, Iterable) and len(size) == 2)):
        raise TypeError(f"Got inappropriate size arg: {size}")
    if not isinstance(size, int):
        return tuple(size)
    if (w <= h and w == size) or (h <= w and h == size):
        return None
    if w < h:
        return int(size * h / w), size
    return size, int(size * w / h)


def resize(img, size, interpolation="bilinear"):
    cv2 = try_import("cv2")
    h, w = img.shape[:2]
    hw = target_size(h, w, size)
    if hw is None:
        return img
    out = cv2.resize(img, dsize=(hw[1], hw[0]), interpolation=_interp(cv2, interpolation))
    return _keep_channel(img, out)


def pad(img, padding, fill=0, padding_mode="constant"):
    cv2 = try_import("cv2")
    left, top, right, bottom = padding_ltrb(padding, fill, padding_mode)
    border = {"constant": cv2.BORDER_CONSTANT, "edge": cv2.BORDER_REPLICATE,
              "reflect": cv2.BORDER_REFLECT_101, "symmetric": cv2.BORDER_REFLECT}[padding_mode]
    out = cv2.copyMakeBorder(img, top=top, bottom=bottom, left=left, right=right,
                             borderType=border, value=fill)
    return _keep_channel(img, out)


def crop(img, top, left, height, width):
    return img[top:top + height, left:left + width, :]


def center_offsets(h, w, output_size):
    if isinstance(output_size, numbers.Number):
        output_size = (int(output_size), int(output_size))
    th, tw = output_size
    return int(round((h - th) / 2.0)), int(round((w - tw) / 2.0)), th, tw


def center_crop(img, output_size):
    return crop(img, *center_offsets(img.shape[0], img.shape[1], output_size))


def hflip(img):
    cv2 = try_import("cv2")
    return cv2.flip(img, 1)


def vflip(img):
    cv2 = try_import("cv2")
    return _keep_channel(img, cv2.flip(img, 0))


def _lut(img, table):
    cv2 = try_import("cv2")
    return _keep_channel(img, cv2.LUT(img, table.clip(0, 255).astype("uint8")))


def adjust_brightness(img, brightness_factor):
    try_import("cv2")
    return _lut(img, np.array([i * brightness_factor for i in range(256)]))


def adjust_contrast(img, contrast_factor):
    try_import("cv2")
    return _lut(img, np.array([(i - 74) * contrast_factor + 74 for i in range(256)]))


def adjust_saturation(img, saturation_factor):
    cv2 = try_import("cv2")
    dtype = img.dtype
    img = img.astype(np.float32)
    alpha = np.random.uniform(max(0, 1 - saturation_factor), 1 + saturation_factor)
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)[..., np.newaxis]
    return (img * alpha + gray * (1 - alpha)).clip(0, 255).astype(dtype)


def adjust_hue(img, hue_factor):
    cv2 = try_import("cv2")
    if not (-0.5 <= hue_factor <= 0.5):
        raise ValueError(f"hue_factor:{hue_factor} is not in [-0.5, 0.5].")
    dtype = img.dtype
    h, s, v = cv2.split(cv2.cvtColor(img.astype(np.uint8), cv2.COLOR_BGR2HSV_FULL))
    h = ((h.astype(np.int32) + int(hue_factor * 255)) % 256).astype(np.uint8)
    return cv2.cvtColor(cv2.merge([h, s, v]), cv2.COLOR_HSV2BGR_FULL).astype(dtype)


def _warp(cv2, img, matrix, w, h, interpolation, fill):
    out = cv2.warpAffine(img, matrix, (w, h), flags=_interp(cv2, interpolation),
                         borderValue=fill)
    return _keep_channel(img, out)


def affine(img, angle, translate, scale, shear, interpolation="nearest", fill=0, center=None):
    cv2 = try_import("cv2")
    h, w = img.shape[0:2]
    if isinstance(fill, int):
        fill = (fill,) * 3
    if center is None:
        center = (w / 2.0, h / 2.0)
    rot = cv2.getRotationMatrix2D(angle=angle, center=center, scale=scale)
    sx, sy = (math.tan(s * math.pi / 180) for s in shear)
    m = np.ones([2, 3])
    m[0] = rot[0] + sy * rot[1]
    m[1] = rot[1] + sx * rot[0]
    m[0, 2], m[1, 2] = translate
    return _warp(cv2, img, m, w, h, interpolation, fill)


def expanded_size(w, h, center, angle):
    """The (w, h) that holds the whole image rotated by ``angle`` degrees about ``center``."""
    a = -math.radians(angle)
    c, s = round(math.cos(a), 15), round(math.sin(a), 15)
    tx = c * -center[0] + s * -center[1] + center[0]
    ty = -s * -center[0] + c * -center[1] + center[1]
    xs = [c * x + s * y + tx for x, y in ((0, 0), (w, 0), (w, h), (0, h))]
    ys = [-s * x + c * y + ty for x, y in ((0, 0), (w, 0), (w, h), (0, h))]
    return (math.ceil(max(xs)) - math.floor(min(xs)), math.ceil(max(ys)) - math.floor(min(ys)))


def rotate(img, angle, interpolation="nearest", expand=False, center=None, fill=0):
    cv2 = try_import("cv2")
    h, w = img.shape[0:2]
    if center is None:
        center = (w / 2.0, h / 2.0)
    m = cv2.getRotationMatrix2D(center, angle, 1)
    if expand:
        nw, nh = expanded_size(w, h, center, angle)
        m[0, 2] += (nw - w) * 0.5
        m[1, 2] += (nh - h) * 0.5
        w, h = int(nw), int(nh)
    return _warp(cv2, img, m, w, h, interpolation, fill)


def perspective(img, startpoints, endpoints, interpolation="nearest", fill=0):
    cv2 = try_import("cv2")
    h, w = img.shape[0:2]
    matrix = cv2.getPerspectiveTransform(np.array(startpoints, dtype="float32"),
                                         np.array(endpoints, dtype="float32"))
    out = cv2.warpPerspective(img, matrix, dsize=(w, h), flags=_interp(cv2, interpolation),
                              borderValue=fill)
    return _keep_channel(img, out)


def to_grayscale(img, num_output_channels=1):
    cv2 = try_import("cv2")
    if num_output_channels not in (1, 3):
        raise ValueError("num_output_channels should be either 1 or 3")
    gray = cv2.cvtColor(img, cv2.COLOR_RGB2GRAY)[:, :, np.newaxis]
    return gray if num_output_channels == 1 else np.broadcast_to(gray, img.shape)


def normalize(img, mean, std, data_format="CHW", to_rgb=False):
    shape = (-1, 1, 1) if data_format == "CHW" else (1, 1, -1)
    mean = np.float32(np.array(mean).reshape(shape))
    std = np.float32(np.array(std).reshape(shape))
    if to_rgb:
        img = img[..., ::-1]
    return (img - mean) / std


def erase(img, i, j, h, w, v, inplace=False):
    if not inplace:
        img = img.copy()
    img[i:i + h, j:j + w, ...] = v
    return img
