"""``paddle.vision.transforms.functional``: each function takes a PIL image, a numpy (H, W[, C])
array or a Paddle tensor (C, H, W) and hands it to the matching backend: Pillow
(``functional_pil``), OpenCV (``functional_cv2``) or paddle operations (``functional_tensor``),
as real Paddle does."""
from __future__ import annotations

import math
import numbers

import numpy as np

from . import functional_cv2 as F_cv2
from . import functional_pil as F_pil
from . import functional_tensor as F_t

__all__ = []


def _is_pil_image(img):
    try:
        from PIL import Image
    except ImportError:
        return False
    return isinstance(img, Image.Image)


def _is_tensor_image(img):
    from ...core import Tensor

    return isinstance(img, Tensor)


def _is_numpy_image(img):
    return isinstance(img, np.ndarray) and img.ndim in {2, 3}


def _backend(img, what="img"):
    """The module that handles ``img``, or Paddle's TypeError."""
    if _is_pil_image(img):
        return F_pil
    if _is_numpy_image(img):
        return F_cv2
    if _is_tensor_image(img):
        return F_t
    raise TypeError(f"{what} should be PIL Image or Tensor Image or ndarray with dim=[2 or 3]. "
                    f"Got {type(img)}")


def to_tensor(pic, data_format="CHW"):
    """A PIL image or (H, W[, C]) array as a tensor: uint8 becomes float32 in [0, 1]; CHW or
    HWC. A tensor is returned as it is (transposed to HWC when asked)."""
    backend = _backend(pic, "pic")
    if backend is F_t:
        return pic if data_format.lower() == "chw" else pic.transpose((1, 2, 0))
    return backend.to_tensor(pic, data_format)


def resize(img, size, interpolation="bilinear"):
    """Resize to (h, w), or scale the shorter side to ``size`` keeping the aspect ratio."""
    return _backend(img).resize(img, size, interpolation)


def pad(img, padding, fill=0, padding_mode="constant"):
    """Pad the borders: int, (left/right, top/bottom) or (left, top, right, bottom)."""
    return _backend(img).pad(img, padding, fill, padding_mode)


def crop(img, top, left, height, width):
    """The box of ``height`` x ``width`` whose top-left corner is (top, left)."""
    return _backend(img).crop(img, top, left, height, width)


def center_crop(img, output_size):
    """The central ``output_size`` (int or (h, w)) box."""
    return _backend(img).center_crop(img, output_size)


def hflip(img):
    """Mirror left to right."""
    return _backend(img).hflip(img)


def vflip(img):
    """Mirror top to bottom."""
    return _backend(img).vflip(img)


def adjust_brightness(img, brightness_factor):
    """Scale brightness: 0 black, 1 unchanged, 2 twice as bright."""
    backend = _backend(img)
    if backend is F_cv2:
        img = img.astype(np.uint8)
    return backend.adjust_brightness(img, brightness_factor)


def adjust_contrast(img, contrast_factor):
    """Scale contrast about the mean grey: 0 solid grey, 1 unchanged."""
    return _backend(img).adjust_contrast(img, contrast_factor)


def adjust_saturation(img, saturation_factor):
    """Blend with the greyscale image: 0 grey, 1 unchanged, 2 twice as saturated."""
    return _backend(img).adjust_saturation(img, saturation_factor)


def adjust_hue(img, hue_factor):
    """Shift the hue channel by ``hue_factor`` (in [-0.5, 0.5]) of a full turn."""
    return _backend(img).adjust_hue(img, hue_factor)


def _get_affine_matrix(center, angle, translate, scale, shear):
    """The inverse affine matrix (6 numbers, as PIL's ``transform`` takes it)."""
    rot = math.radians(angle)
    sx, sy = math.radians(shear[0]), math.radians(shear[1])
    a = math.cos(rot - sy) / math.cos(sy)
    b = -math.cos(rot - sy) * math.tan(sx) / math.cos(sy) - math.sin(rot)
    c = math.sin(rot - sy) / math.cos(sy)
    d = -math.sin(rot - sy) * math.tan(sx) / math.cos(sy) + math.cos(rot)
    cx, cy = center
    tx, ty = translate
    m = [x / scale for x in (d, -b, 0.0, -c, a, 0.0)]
    m[2] += m[0] * (-cx - tx) + m[1] * (-cy - ty)
    m[5] += m[3] * (-cx - tx) + m[4] * (-cy - ty)
    m[2] += cx
    m[5] += cy
    return m


def _check_affine(angle, translate, scale, shear, interpolation, center):
    if not isinstance(angle, (int, float)):
        raise TypeError("Argument angle should be int or float")
    if not isinstance(translate, (list, tuple)):
        raise TypeError("Argument translate should be a sequence")
    if len(translate) != 2:
        raise ValueError("Argument translate should be a sequence of length 2")
    if scale <= 0.0:
        raise ValueError("Argument scale should be positive")
    if not isinstance(shear, (numbers.Number, (list, tuple))):
        raise TypeError("Shear should be either a single value or a sequence of two values")
    if not isinstance(interpolation, str):
        raise TypeError("Argument interpolation should be a string")
    shear = [shear, 0.0] if isinstance(shear, numbers.Number) else list(shear)
    if len(shear) == 1:
        shear = [shear[0], shear[0]]
    if len(shear) != 2:
        raise ValueError(f"Shear should be a sequence containing two values. Got {shear}")
    if center is not None and not isinstance(center, (list, tuple)):
        raise TypeError("Argument center should be a sequence")
    return float(angle), list(translate), shear


def affine(img, angle, translate, scale, shear, interpolation="nearest", fill=0, center=None):
    """Rotate by ``angle`` degrees, translate, scale and shear, about ``center``."""
    backend = _backend(img)
    angle, translate, shear = _check_affine(angle, translate, scale, shear, interpolation,
                                            center)
    if backend is F_pil:
        width, height = img.size
        center = [width * 0.5, height * 0.5] if center is None else center
        matrix = _get_affine_matrix(center, angle, translate, scale, shear)
        return F_pil.affine(img, matrix, interpolation, fill)
    if backend is F_cv2:
        width, height = img.shape[0:2]  # (sic: rows first, as Paddle has it)
        center = (width * 0.5, height * 0.5) if center is None else center
        return F_cv2.affine(img, angle, translate, scale, shear, interpolation, fill, center)
    center_f = [0.0, 0.0]
    if center is not None:
        height, width = img.shape[-1], img.shape[-2]  # (sic)
        center_f = [1.0 * (c - s * 0.5) for c, s in zip(center, [width, height])]
    matrix = _get_affine_matrix(center_f, angle, [1.0 * t for t in translate], scale, shear)
    return F_t.affine(img, matrix, interpolation, fill)


def rotate(img, angle, interpolation="nearest", expand=False, center=None, fill=0):
    """Rotate by ``angle`` degrees counter-clockwise, about ``center`` (default the middle)."""
    backend = _backend(img)
    center = tuple(center) if isinstance(center, list) else center
    fill = tuple(fill) if isinstance(fill, list) else fill
    return backend.rotate(img, angle, interpolation, expand, center, fill)


def _get_perspective_coeffs(startpoints, endpoints):
    a = np.zeros((2 * len(startpoints), 8))
    for i, (p1, p2) in enumerate(zip(endpoints, startpoints)):
        a[2 * i, :] = [p1[0], p1[1], 1, 0, 0, 0, -p2[0] * p1[0], -p2[0] * p1[1]]
        a[2 * i + 1, :] = [0, 0, 0, p1[0], p1[1], 1, -p2[1] * p1[0], -p2[1] * p1[1]]
    b = np.array(startpoints).reshape([8])
    return list(np.linalg.lstsq(a, b)[0])


def perspective(img, startpoints, endpoints, interpolation="nearest", fill=0):
    """Map the four ``startpoints`` corners onto ``endpoints``."""
    backend = _backend(img)
    if backend is F_cv2:
        return F_cv2.perspective(img, startpoints, endpoints, interpolation, fill)
    coeffs = _get_perspective_coeffs(startpoints, endpoints)
    return backend.perspective(img, coeffs, interpolation, fill)


def to_grayscale(img, num_output_channels=1):
    """Greyscale with 1 or 3 channels."""
    return _backend(img).to_grayscale(img, num_output_channels)


def normalize(img, mean, std, data_format="CHW", to_rgb=False):
    """(img - mean) / std per channel; a PIL image becomes a float32 array first."""
    if _is_tensor_image(img):
        return F_t.normalize(img, mean, std, data_format)
    if _is_pil_image(img):
        img = np.array(img).astype(np.float32)
    return F_cv2.normalize(img, mean, std, data_format, to_rgb)


def erase(img, i, j, h, w, v, inplace=False):
    """Set the box (i, j, h, w) to ``v``."""
    if _is_tensor_image(img):
        return F_t.erase(img, i, j, h, w, v, inplace=inplace)
    if _is_pil_image(img):
        return F_pil.erase(img, i, j, h, w, v, inplace=inplace)
    return F_cv2.erase(img, i, j, h, w, v, inplace=inplace)
