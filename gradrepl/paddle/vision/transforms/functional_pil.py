"""The PIL side of ``paddle.vision.transforms.functional``: Pillow does the work, as in real
Paddle. Pillow is imported when first needed; without it a clear ImportError names it."""
from __future__ import annotations

import numpy as np

from ._args import padding_ltrb
from .functional_cv2 import center_offsets, target_size

__all__ = []


def pil():
    """The ``PIL`` modules (Image, ImageEnhance, ImageOps), or an ImportError naming Pillow."""
    try:
        from PIL import Image, ImageEnhance, ImageOps
    except ImportError:
        raise ImportError("paddle.vision needs Pillow for PIL images and image files "
                          "(pip install Pillow)") from None
    return Image, ImageEnhance, ImageOps


def _interp(name):
    r = pil()[0].Resampling
    return {"nearest": r.NEAREST, "bilinear": r.BILINEAR, "bicubic": r.BICUBIC, "box": r.BOX,
            "lanczos": r.LANCZOS, "hamming": r.HAMMING}[name]


_ARRAY_DTYPE = {"I": np.int32, "I;16": np.int32, "F": np.float32, "1": np.uint8}


def to_tensor(pic, data_format="CHW"):
    from ... import cast, to_tensor as _to_tensor

    if data_format not in ("CHW", "HWC"):
        raise ValueError(f"data_format should be CHW or HWC. Got {data_format}")
    arr = np.asarray(pic, _ARRAY_DTYPE.get(pic.mode))
    img = _to_tensor(arr)
    if pic.mode == "1":
        img = 255 * img
    channels = {"YCbCr": 3, "I;16": 1}.get(pic.mode, len(pic.mode))
    if arr.dtype == np.uint8:
        img = cast(img, np.float32) / 255.0
    img = img.reshape([pic.size[1], pic.size[0], channels])
    return img.transpose([2, 0, 1]) if data_format == "CHW" else img


def resize(img, size, interpolation="bilinear"):
    w, h = img.size
    hw = target_size(h, w, size)
    if hw is None:
        return img
    return img.resize((hw[1], hw[0]), _interp(interpolation))


def pad(img, padding, fill=0, padding_mode="constant"):
    Image, _, ImageOps = pil()
    left, top, right, bottom = padding_ltrb(padding, fill, padding_mode)
    palette = img.getpalette() if img.mode == "P" else None
    if padding_mode == "constant":
        out = ImageOps.expand(img, border=tuple(padding) if isinstance(padding, list)
                              else padding, fill=fill)
    else:
        arr = np.asarray(img)
        widths = ((top, bottom), (left, right)) + (((0, 0),) if arr.ndim == 3 else ())
        out = Image.fromarray(np.pad(arr, widths, padding_mode))
    if palette is not None:
        out.putpalette(palette)
    return out


def crop(img, top, left, height, width):
    return img.crop((left, top, left + width, top + height))


def center_crop(img, output_size):
    w, h = img.size
    return crop(img, *center_offsets(h, w, output_size))


def hflip(img):
    return img.transpose(pil()[0].Transpose.FLIP_LEFT_RIGHT)


def vflip(img):
    return img.transpose(pil()[0].Transpose.FLIP_TOP_BOTTOM)


def _enhance(kind):
    def adjust(img, factor):
        return getattr(pil()[1], kind)(img).enhance(factor)
    return adjust


adjust_brightness = _enhance("Brightness")
adjust_contrast = _enhance("Contrast")
adjust_saturation = _enhance("Color")


def adjust_hue(img, hue_factor):
    Image = pil()[0]
    if not (-0.5 <= hue_factor <= 0.5):
        raise ValueError(f"hue_factor:{hue_factor} is not in [-0.5, 0.5].")
    mode = img.mode
    if mode in {"L", "1", "I", "F"}:
        return img
    h, s, v = img.convert("HSV").split()
    shifted = (np.array(h, dtype=np.uint8).astype(np.int16) + int(hue_factor * 255)) % 256
    h = Image.fromarray(shifted.astype(np.uint8), "L")
    return Image.merge("HSV", (h, s, v)).convert(mode)


def _fill3(fill):
    return (fill,) * 3 if isinstance(fill, int) else fill


def affine(img, matrix, interpolation="nearest", fill=0):
    Image = pil()[0]
    return img.transform(img.size, Image.Transform.AFFINE, matrix, _interp(interpolation),
                         _fill3(fill))


def rotate(img, angle, interpolation="nearest", expand=False, center=None, fill=0):
    return img.rotate(angle, _interp(interpolation), expand, center, fillcolor=_fill3(fill))


def perspective(img, coeffs, interpolation="nearest", fill=0):
    Image = pil()[0]
    return img.transform(img.size, Image.Transform.PERSPECTIVE, coeffs,
                         _interp(interpolation), _fill3(fill))


def to_grayscale(img, num_output_channels=1):
    Image = pil()[0]
    if num_output_channels not in (1, 3):
        raise ValueError("num_output_channels should be either 1 or 3")
    img = img.convert("L")
    if num_output_channels == 3:
        gray = np.array(img, dtype=np.uint8)
        img = Image.fromarray(np.dstack([gray, gray, gray]), "RGB")
    return img


def erase(img, i, j, h, w, v, inplace=False):
    arr = np.array(img, dtype=np.uint8)
    arr[i:i + h, j:j + w, ...] = v
    return pil()[0].fromarray(arr, "RGB")
