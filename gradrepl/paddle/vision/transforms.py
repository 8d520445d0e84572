"""A few of ``paddle.vision.transforms`` for numpy images (H, W, C): Compose, ToTensor,
Normalize, Transpose (and their functional forms to_tensor, normalize)."""
from __future__ import annotations

import numpy as np

__all__ = ["Compose", "ToTensor", "Normalize", "Transpose", "to_tensor", "normalize"]


def _tensor(arr):
    from ..core import Tensor

    return Tensor(np.ascontiguousarray(arr))


def to_tensor(pic, data_format="CHW"):
    """An (H, W[, C]) image as a float32 tensor in [0, 1] (uint8 divided by 255), CHW or HWC."""
    if data_format not in ("CHW", "HWC"):
        raise ValueError(f"data_format should be CHW or HWC. Got {data_format}")
    arr = np.asarray(pic)
    if arr.ndim == 2:
        arr = arr[:, :, None]
    if arr.dtype == np.uint8:
        arr = arr.astype(np.float32) / np.float32(255)
    else:
        arr = arr.astype(np.float32)
    if data_format == "CHW":
        arr = arr.transpose(2, 0, 1)
    return _tensor(arr)


def normalize(img, mean, std, data_format="CHW", to_rgb=False):
    """(img - mean) / std per channel, for a tensor or an array."""
    from ..core import Tensor

    is_tensor = isinstance(img, Tensor)
    arr = np.asarray(img.data if is_tensor else img, dtype=np.float32)
    mean = np.asarray(mean, np.float32)
    std = np.asarray(std, np.float32)
    if data_format == "CHW":
        mean, std = mean.reshape(-1, 1, 1), std.reshape(-1, 1, 1)
        if to_rgb:
            arr = arr[::-1]
    else:
        if to_rgb:
            arr = arr[..., ::-1]
    out = (arr - mean) / std
    return _tensor(out) if is_tensor else out


class Compose:
    def __init__(self, transforms):
        self.transforms = list(transforms)

    def __call__(self, data):
        for t in self.transforms:
            data = t(data)
        return data

    def __repr__(self):
        body = "".join(f"\n    {t}" for t in self.transforms)
        return f"{type(self).__name__}({body}\n)"


class ToTensor:
    def __init__(self, data_format="CHW", keys=None):
        self.data_format = data_format

    def __call__(self, pic):
        return to_tensor(pic, self.data_format)


class Normalize:
    def __init__(self, mean=0.0, std=1.0, data_format="CHW", to_rgb=False, keys=None):
        self.mean = [mean] * 3 if isinstance(mean, (int, float)) else list(mean)
        self.std = [std] * 3 if isinstance(std, (int, float)) else list(std)
        self.data_format = data_format
        self.to_rgb = to_rgb

    def __call__(self, img):
        return normalize(img, self.mean, self.std, self.data_format, self.to_rgb)


class Transpose:
    """HWC -> CHW (``order=(2, 0, 1)``) of an array."""

    def __init__(self, order=(2, 0, 1), keys=None):
        self.order = order

    def __call__(self, img):
        from ..core import Tensor

        if isinstance(img, Tensor):
            from ..tensor.manipulation import transpose

            return transpose(img, list(self.order))
        arr = np.asarray(img)
        if arr.ndim == 2:
            arr = arr[..., None]
        return arr.transpose(self.order)
