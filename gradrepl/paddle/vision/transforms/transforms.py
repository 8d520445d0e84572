"""``paddle.vision.transforms`` classes. Each is a ``BaseTransform``: ``__call__`` takes an image
(or a tuple whose items follow ``keys``) and applies ``_apply_image``. The random ones draw
from Python's ``random`` module (and ``numpy.random`` where real Paddle does: the scale and
ratio of RandomResizedCrop, RandomErasing), in real Paddle's order, so ``random.seed(k)`` and
``np.random.seed(k)`` give real Paddle's crops and flips."""
from __future__ import annotations

import math
import numbers
import random
import traceback
from collections.abc import Iterable, Sequence

import numpy as np

from . import functional as F
from ._args import PAD_MODES

__all__ = []


def _get_image_size(img):
    """(width, height) of a PIL image, an (H, W, C) array or a (C, H, W) / (N, C, H, W) tensor."""
    if F._is_pil_image(img):
        return img.size
    if F._is_numpy_image(img):
        return img.shape[:2][::-1]
    if F._is_tensor_image(img):
        if img.ndim in (3, 4):
            return tuple(img.shape[-2:][::-1])
        raise ValueError(f"The dim for input Tensor should be 3-D or 4-D, but received "
                         f"{len(img.shape)}")
    raise TypeError(f"Unexpected type {type(img)}")


def _check_input(value, name, center=1, bound=(0, float("inf")), clip_first_on_zero=True):
    if isinstance(value, numbers.Number):
        if value < 0:
            raise ValueError(f"If {name} is a single number, it must be non negative.")
        value = [center - value, center + value]
        if clip_first_on_zero:
            value[0] = max(value[0], 0)
    elif isinstance(value, (tuple, list)) and len(value) == 2:
        if not bound[0] <= value[0] <= value[1] <= bound[1]:
            raise ValueError(f"{name} values should be between {bound}")
    else:
        raise TypeError(f"{name} should be a single number or a list/tuple with length 2.")
    return None if value[0] == value[1] == center else value


class Compose:
    """Apply ``transforms`` in turn."""

    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, data):
        for f in self.transforms:
            try:
                data = f(data)
            except Exception as e:
                print(f"fail to perform transform [{f}] with error: {e} and stack:\n"
                      f"{traceback.format_exc()}")
                raise e
        return data

    def __repr__(self):
        return (type(self).__name__ + "(" + "".join(f"\n    {t}" for t in self.transforms)
                + "\n)")


class BaseTransform:
    """A transform applied to the inputs named by ``keys`` (default ``('image',)``)."""

    def __init__(self, keys=None):
        if keys is None:
            keys = ("image",)
        elif not isinstance(keys, Sequence):
            raise ValueError(f"keys should be a sequence, but got keys={keys}")
        for k in keys:
            if self._get_apply(k) is None:
                raise NotImplementedError(f"{k} is unsupported data structure")
        self.keys = keys
        self.params = None

    def _get_params(self, inputs):
        pass

    def __call__(self, inputs):
        if not isinstance(inputs, tuple):
            inputs = (inputs,)
        self.params = self._get_params(inputs)
        outputs = []
        for key, item in zip(self.keys, inputs):
            apply = self._get_apply(key)
            outputs.append(item if apply is None else apply(item))
        outputs.extend(inputs[len(self.keys):])
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    def _get_apply(self, key):
        return getattr(self, f"_apply_{key}", None)

    def _apply_image(self, image):
        raise NotImplementedError

    def _apply_boxes(self, boxes):
        raise NotImplementedError

    def _apply_mask(self, mask):
        raise NotImplementedError

    def _apply_coords(self, coords):
        raise NotImplementedError


class ToTensor(BaseTransform):
    """HWC image (uint8 scaled to [0, 1]) -> float32 tensor, CHW or HWC."""

    def __init__(self, data_format="CHW", keys=None):
        super().__init__(keys)
        self.data_format = data_format

    def _apply_image(self, img):
        return F.to_tensor(img, self.data_format)


class Resize(BaseTransform):
    """Resize to ``size`` ((h, w), or the shorter side when an int)."""

    def __init__(self, size, interpolation="bilinear", keys=None):
        super().__init__(keys)
        assert isinstance(size, int) or (isinstance(size, Iterable) and len(size) == 2)
        self.size = size
        self.interpolation = interpolation

    def _apply_image(self, img):
        return F.resize(img, self.size, self.interpolation)


class RandomResizedCrop(BaseTransform):
    """Crop a random area (``scale`` of the image) of random aspect ``ratio``, then resize."""

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4, 4.0 / 3),
                 interpolation="bilinear", keys=None):
        super().__init__(keys)
        self.size = (size, size) if isinstance(size, int) else size
        assert scale[0] <= scale[1], "scale should be of kind (min, max)"
        assert ratio[0] <= ratio[1], "ratio should be of kind (min, max)"
        self.scale = scale
        self.ratio = ratio
        self.interpolation = interpolation

    def _dynamic_get_param(self, image, attempts=10):
        width, height = _get_image_size(image)
        area = height * width
        for _ in range(attempts):
            target_area = np.random.uniform(*self.scale) * area
            log_ratio = tuple(math.log(x) for x in self.ratio)
            aspect_ratio = math.exp(np.random.uniform(*log_ratio))
            w = int(round(math.sqrt(target_area * aspect_ratio)))
            h = int(round(math.sqrt(target_area / aspect_ratio)))
            if 0 < w <= width and 0 < h <= height:
                return random.randint(0, height - h), random.randint(0, width - w), h, w
        in_ratio = float(width) / float(height)
        if in_ratio < min(self.ratio):
            w, h = width, int(round(width / min(self.ratio)))
        elif in_ratio > max(self.ratio):
            w, h = int(round(height * max(self.ratio))), height
        else:
            w, h = width, height
        return (height - h) // 2, (width - w) // 2, h, w

    def _apply_image(self, img):
        i, j, h, w = self._dynamic_get_param(img)
        return F.resize(F.crop(img, i, j, h, w), self.size, self.interpolation)


class CenterCrop(BaseTransform):
    """The central ``size`` box."""

    def __init__(self, size, keys=None):
        super().__init__(keys)
        self.size = (int(size), int(size)) if isinstance(size, numbers.Number) else size

    def _apply_image(self, img):
        return F.center_crop(img, self.size)


class _RandomFlip(BaseTransform):
    _flip = None

    def __init__(self, prob=0.5, keys=None):
        super().__init__(keys)
        assert 0 <= prob <= 1, "probability must be between 0 and 1"
        self.prob = prob

    def _apply_image(self, img):
        if random.random() < self.prob:
            return type(self)._flip(img)
        return img


class RandomHorizontalFlip(_RandomFlip):
    """Mirror left-right with probability ``prob`` (one ``random.random()`` draw)."""
    _flip = staticmethod(F.hflip)


class RandomVerticalFlip(_RandomFlip):
    """Mirror top-bottom with probability ``prob`` (one ``random.random()`` draw)."""
    _flip = staticmethod(F.vflip)


class Normalize(BaseTransform):
    """(img - mean) / std per channel."""

    def __init__(self, mean=0.0, std=1.0, data_format="CHW", to_rgb=False, keys=None):
        super().__init__(keys)
        self.mean = [mean] * 3 if isinstance(mean, numbers.Number) else mean
        self.std = [std] * 3 if isinstance(std, numbers.Number) else std
        self.data_format = data_format
        self.to_rgb = to_rgb

    def _apply_image(self, img):
        return F.normalize(img, self.mean, self.std, self.data_format, self.to_rgb)


class Transpose(BaseTransform):
    """Permute the axes (default HWC -> CHW); a PIL image becomes an array first."""

    def __init__(self, order=(2, 0, 1), keys=None):
        super().__init__(keys)
        self.order = order

    def _apply_image(self, img):
        if F._is_tensor_image(img):
            return img.transpose(self.order)
        if F._is_pil_image(img):
            img = np.asarray(img)
        if len(img.shape) == 2:
            img = img[..., np.newaxis]
        return img.transpose(self.order)


class _ColorTransform(BaseTransform):
    _adjust = None

    def _apply_image(self, img):
        if self.value is None:
            return img
        return type(self)._adjust(img, random.uniform(self.value[0], self.value[1]))


class BrightnessTransform(_ColorTransform):
    """Brightness by a factor drawn from [max(0, 1 - value), 1 + value]."""
    _adjust = staticmethod(F.adjust_brightness)

    def __init__(self, value, keys=None):
        super().__init__(keys)
        self.value = _check_input(value, "brightness")


class ContrastTransform(_ColorTransform):
    """Contrast by a factor drawn from [max(0, 1 - value), 1 + value]."""
    _adjust = staticmethod(F.adjust_contrast)

    def __init__(self, value, keys=None):
        super().__init__(keys)
        if value < 0:
            raise ValueError("contrast value should be non-negative")
        self.value = _check_input(value, "contrast")


class SaturationTransform(_ColorTransform):
    """Saturation by a factor drawn from [max(0, 1 - value), 1 + value]."""
    _adjust = staticmethod(F.adjust_saturation)

    def __init__(self, value, keys=None):
        super().__init__(keys)
        self.value = _check_input(value, "saturation")


class HueTransform(_ColorTransform):
    """Hue shifted by a factor drawn from [-value, value]."""
    _adjust = staticmethod(F.adjust_hue)

    def __init__(self, value, keys=None):
        super().__init__(keys)
        self.value = _check_input(value, "hue", center=0, bound=(-0.5, 0.5),
                                  clip_first_on_zero=False)


class ColorJitter(BaseTransform):
    """Brightness, contrast, saturation and hue jitter, in an order shuffled each call."""

    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0, keys=None):
        super().__init__(keys)
        self.brightness = brightness
        self.contrast = contrast
        self.saturation = saturation
        self.hue = hue

    def _get_param(self, brightness, contrast, saturation, hue):
        kinds = ((BrightnessTransform, brightness), (ContrastTransform, contrast),
                 (SaturationTransform, saturation), (HueTransform, hue))
        transforms = [cls(v, self.keys) for cls, v in kinds if v is not None]
        random.shuffle(transforms)
        return Compose(transforms)

    def _apply_image(self, img):
        return self._get_param(self.brightness, self.contrast, self.saturation, self.hue)(img)


class RandomCrop(BaseTransform):
    """A ``size`` box at a random place (after optional padding)."""

    def __init__(self, size, padding=None, pad_if_needed=False, fill=0,
                 padding_mode="constant", keys=None):
        super().__init__(keys)
        self.size = (int(size), int(size)) if isinstance(size, numbers.Number) else size
        self.padding = padding
        self.pad_if_needed = pad_if_needed
        self.fill = fill
        self.padding_mode = padding_mode

    def _get_param(self, img, output_size):
        w, h = _get_image_size(img)
        th, tw = output_size
        if w == tw and h == th:
            return 0, 0, h, w
        return random.randint(0, h - th), random.randint(0, w - tw), th, tw

    def _apply_image(self, img):
        if self.padding is not None:
            img = F.pad(img, self.padding, self.fill, self.padding_mode)
        w, h = _get_image_size(img)
        if self.pad_if_needed and w < self.size[1]:
            img = F.pad(img, (self.size[1] - w, 0), self.fill, self.padding_mode)
        if self.pad_if_needed and h < self.size[0]:
            img = F.pad(img, (0, self.size[0] - h), self.fill, self.padding_mode)
        return F.crop(img, *self._get_param(img, self.size))


class Pad(BaseTransform):
    """Pad the borders (see ``functional.pad``)."""

    def __init__(self, padding, fill=0, padding_mode="constant", keys=None):
        assert isinstance(padding, (numbers.Number, list, tuple))
        assert isinstance(fill, (numbers.Number, str, list, tuple))
        assert padding_mode in PAD_MODES
        padding = tuple(padding) if isinstance(padding, list) else padding
        fill = tuple(fill) if isinstance(fill, list) else fill
        if isinstance(padding, Sequence) and len(padding) not in (2, 4):
            raise ValueError("Padding must be an int or a 2, or 4 element tuple, not a "
                             f"{len(padding)} element tuple")
        super().__init__(keys)
        self.padding = padding
        self.fill = fill
        self.padding_mode = padding_mode

    def _apply_image(self, img):
        return F.pad(img, self.padding, self.fill, self.padding_mode)


def _check_sequence_input(x, name, req_sizes):
    msg = req_sizes[0] if len(req_sizes) < 2 else " or ".join(str(s) for s in req_sizes)
    if not isinstance(x, Sequence):
        raise TypeError(f"{name} should be a sequence of length {msg}.")
    if len(x) not in req_sizes:
        raise ValueError(f"{name} should be sequence of length {msg}.")


def _setup_angle(x, name, req_sizes=(2,)):
    if isinstance(x, numbers.Number):
        if x < 0:
            raise ValueError(f"If {name} is a single number, it must be positive.")
        x = [-x, x]
    else:
        _check_sequence_input(x, name, req_sizes)
    return [float(d) for d in x]


class RandomAffine(BaseTransform):
    """A random rotation, translation, scale and shear (drawn in that order)."""

    def __init__(self, degrees, translate=None, scale=None, shear=None,
                 interpolation="nearest", fill=0, center=None, keys=None):
        self.degrees = _setup_angle(degrees, name="degrees", req_sizes=(2,))
        super().__init__(keys)
        assert interpolation in ["nearest", "bilinear", "bicubic"]
        self.interpolation = interpolation
        if translate is not None:
            _check_sequence_input(translate, "translate", req_sizes=(2,))
            for t in translate:
                if not 0.0 <= t <= 1.0:
                    raise ValueError("translation values should be between 0 and 1")
        self.translate = translate
        if scale is not None:
            _check_sequence_input(scale, "scale", req_sizes=(2,))
            for s in scale:
                if s <= 0:
                    raise ValueError("scale values should be positive")
        self.scale = scale
        self.shear = None if shear is None else _setup_angle(shear, name="shear",
                                                             req_sizes=(2, 4))
        if fill is None:
            fill = 0
        elif not isinstance(fill, (Sequence, numbers.Number)):
            raise TypeError("Fill should be either a sequence or a number.")
        self.fill = fill
        if center is not None:
            _check_sequence_input(center, "center", req_sizes=(2,))
        self.center = center

    def _get_param(self, img_size, degrees, translate=None, scale_ranges=None, shears=None):
        angle = random.uniform(degrees[0], degrees[1])
        translations = (0, 0)
        if translate is not None:
            max_dx = float(translate[0] * img_size[0])
            max_dy = float(translate[1] * img_size[1])
            translations = (int(random.uniform(-max_dx, max_dx)),
                            int(random.uniform(-max_dy, max_dy)))
        scale = 1.0 if scale_ranges is None else random.uniform(scale_ranges[0],
                                                                scale_ranges[1])
        shear = [0.0, 0.0]
        if shears is not None:
            shear[0] = random.uniform(shears[0], shears[1])
            if len(shears) == 4:
                shear[1] = random.uniform(shears[2], shears[3])
        return angle, translations, scale, tuple(shear)

    def _apply_image(self, img):
        w, h = _get_image_size(img)
        params = self._get_param([w, h], self.degrees, self.translate, self.scale, self.shear)
        return F.affine(img, *params, interpolation=self.interpolation, fill=self.fill,
                        center=self.center)


class RandomRotation(BaseTransform):
    """Rotate by an angle drawn with ``random.uniform(*degrees)``."""

    def __init__(self, degrees, interpolation="nearest", expand=False, center=None, fill=0,
                 keys=None):
        if isinstance(degrees, numbers.Number):
            if degrees < 0:
                raise ValueError("If degrees is a single number, it must be positive.")
            self.degrees = (-degrees, degrees)
        else:
            if len(degrees) != 2:
                raise ValueError("If degrees is a sequence, it must be of len 2.")
            self.degrees = degrees
        super().__init__(keys)
        self.interpolation = interpolation
        self.expand = expand
        self.center = center
        self.fill = fill

    def _get_param(self, degrees):
        return random.uniform(degrees[0], degrees[1])

    def _apply_image(self, img):
        angle = self._get_param(self.degrees)
        return F.rotate(img, angle, self.interpolation, self.expand, self.center, self.fill)


class RandomPerspective(BaseTransform):
    """With probability ``prob``, move each corner inward by up to ``distortion_scale``."""

    def __init__(self, prob=0.5, distortion_scale=0.5, interpolation="nearest", fill=0,
                 keys=None):
        super().__init__(keys)
        assert 0 <= prob <= 1, "probability must be between 0 and 1"
        assert 0 <= distortion_scale <= 1, "distortion_scale must be between 0 and 1"
        assert interpolation in ["nearest", "bilinear", "bicubic"]
        assert isinstance(fill, (numbers.Number, str, list, tuple))
        self.prob = prob
        self.distortion_scale = distortion_scale
        self.interpolation = interpolation
        self.fill = fill

    def get_params(self, width, height, distortion_scale):
        """(startpoints, endpoints): the corners and where they go (8 uniform draws)."""
        dw = int(distortion_scale * (width // 2))
        dh = int(distortion_scale * (height // 2))

        def near(lo_side):  # within the margin from 0, or from the far side
            return lambda size, d: (int(random.uniform(0, d + 1)) if lo_side
                                    else int(random.uniform(size - d - 1, size)))
        lo, hi = near(True), near(False)
        topleft = [lo(width, dw), lo(height, dh)]
        topright = [hi(width, dw), lo(height, dh)]
        botright = [hi(width, dw), hi(height, dh)]
        botleft = [lo(width, dw), hi(height, dh)]
        startpoints = [[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]]
        return startpoints, [topleft, topright, botright, botleft]

    def _apply_image(self, img):
        width, height = _get_image_size(img)
        if random.random() < self.prob:
            start, end = self.get_params(width, height, self.distortion_scale)
            return F.perspective(img, start, end, self.interpolation, self.fill)
        return img


class Grayscale(BaseTransform):
    """Greyscale with ``num_output_channels`` (1 or 3) channels."""

    def __init__(self, num_output_channels=1, keys=None):
        super().__init__(keys)
        self.num_output_channels = num_output_channels

    def _apply_image(self, img):
        return F.to_grayscale(img, self.num_output_channels)


class RandomErasing(BaseTransform):
    """With probability ``prob``, erase a random box (area ``scale``, aspect ``ratio``)."""

    def __init__(self, prob=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0, inplace=False,
                 keys=None):
        super().__init__(keys)
        assert isinstance(scale, (tuple, list)), "scale should be a tuple or list"
        assert scale[0] >= 0 and scale[1] <= 1 and scale[0] <= scale[1], \
            "scale should be of kind (min, max) and in range [0, 1]"
        assert isinstance(ratio, (tuple, list)), "ratio should be a tuple or list"
        assert ratio[0] >= 0 and ratio[0] <= ratio[1], "ratio should be of kind (min, max)"
        assert prob >= 0 and prob <= 1, "The probability should be in range [0, 1]"
        assert isinstance(value, (numbers.Number, str, tuple, list)), \
            "value should be a number, tuple, list or str"
        if isinstance(value, str) and value != "random":
            raise ValueError("value must be 'random' when type is str")
        self.prob = prob
        self.scale = scale
        self.ratio = ratio
        self.value = value
        self.inplace = inplace

    def _dynamic_get_param(self, img, scale, ratio, value):
        from ... import normal, to_tensor

        if F._is_tensor_image(img):
            c, h, w = img.shape[-3:]
        else:
            h, w, c = (np.asarray(img).astype(np.uint8) if F._is_pil_image(img)
                       else img).shape[-3:]
        log_ratio = np.log(ratio)
        for _ in range(10):
            erase_area = np.random.uniform(*scale) * h * w
            aspect_ratio = np.exp(np.random.uniform(*log_ratio))
            eh = int(round(np.sqrt(erase_area * aspect_ratio)))
            ew = int(round(np.sqrt(erase_area / aspect_ratio)))
            if eh >= h or ew >= w:
                continue
            if F._is_tensor_image(img):
                v = (normal(shape=[c, eh, ew]).astype(img.dtype) if value is None
                     else to_tensor(value, dtype=img.dtype)[:, None, None])
            elif value is None:
                v = np.random.normal(size=[eh, ew, c]) * 255
            else:
                v = np.array(value)[None, None, :]
            top = np.random.randint(0, h - eh + 1)
            left = np.random.randint(0, w - ew + 1)
            return top, left, eh, ew, v
        return 0, 0, h, w, img

    def _apply_image(self, img):
        if random.random() >= self.prob:
            return img
        if isinstance(self.value, numbers.Number):
            value = [self.value]
        elif isinstance(self.value, str):
            value = None
        else:
            value = self.value
        if value is not None and len(value) not in (1, 3):
            raise ValueError("Value should be a single number or a sequence with length equals "
                             "to image's channel.")
        top, left, eh, ew, v = self._dynamic_get_param(img, self.scale, self.ratio, value)
        return F.erase(img, top, left, eh, ew, v, self.inplace)


for _cls in (Compose, BaseTransform, ToTensor, Resize, RandomResizedCrop, CenterCrop,
             RandomHorizontalFlip, RandomVerticalFlip, Normalize, Transpose, BrightnessTransform,
             ContrastTransform, SaturationTransform, HueTransform, ColorJitter, RandomCrop, Pad,
             RandomAffine, RandomRotation, RandomPerspective, Grayscale, RandomErasing):
    _cls.__module__ = "paddle.vision.transforms.transforms"  # as real Paddle's reprs name them
del _cls
