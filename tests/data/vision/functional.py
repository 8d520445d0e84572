# paddle.vision.transforms.functional on a PIL image, an HWC array and a CHW tensor
import random
import numpy as np
import paddle
import paddle.vision.transforms as T
import paddle.vision.transforms.functional as F
from PIL import Image

a = (np.arange(4 * 5 * 3).reshape(4, 5, 3) * 7 % 256).astype("uint8")
pil = Image.fromarray(a)
t = F.to_tensor(a)

def show(name, r):
    if isinstance(r, Image.Image):
        print(name, "PIL", r.mode, r.size); print(np.asarray(r).tolist())
    elif isinstance(r, np.ndarray):
        print(name, "ndarray", r.dtype, r.shape); print(r.tolist())
    else:
        print(name, r)

def tryit(name, f):
    try:
        show(name, f())
    except Exception as e:
        print(name, "ERR", type(e).__name__, e)

tryit("to_tensor np", lambda: F.to_tensor(a))
tryit("to_tensor np HWC", lambda: F.to_tensor(a, "HWC"))
tryit("to_tensor pil", lambda: F.to_tensor(pil))
tryit("to_tensor pil L", lambda: F.to_tensor(pil.convert("L")))
tryit("to_tensor f64", lambda: F.to_tensor(a.astype("float64")))
tryit("to_tensor bad", lambda: F.to_tensor([1, 2]))
tryit("to_tensor fmt", lambda: F.to_tensor(a, "NCHW"))
for interp in ["nearest", "bilinear", "bicubic", "lanczos", "hamming", "box"]:
    tryit("resize pil " + interp, lambda: F.resize(pil, (3, 7), interp))
tryit("resize pil int", lambda: F.resize(pil, 2))
tryit("resize pil same", lambda: F.resize(pil, 4) is pil)
tryit("resize bad", lambda: F.resize(pil, (1, 2, 3)))
tryit("resize tensor nearest", lambda: F.resize(t, (6, 2), "nearest"))
tryit("resize np", lambda: F.resize(a, 2))
tryit("pad pil", lambda: F.pad(pil, 1))
tryit("pad pil 2", lambda: F.pad(pil, (1, 2), fill=9))
tryit("pad pil 4 reflect", lambda: F.pad(pil, [1, 0, 2, 1], padding_mode="reflect"))
tryit("pad pil edge", lambda: F.pad(pil, 1, padding_mode="edge"))
tryit("pad pil sym", lambda: F.pad(pil, 2, padding_mode="symmetric"))
tryit("pad pil bad", lambda: F.pad(pil, (1, 2, 3)))
tryit("pad pil badmode", lambda: F.pad(pil, 1, padding_mode="wrap"))
tryit("pad t", lambda: F.pad(t, (1, 2), fill=0.5))
tryit("pad t reflect", lambda: F.pad(t, 1, padding_mode="reflect"))
tryit("pad t edge", lambda: F.pad(t, [1, 0, 0, 1], padding_mode="edge"))
tryit("pad t sym", lambda: F.pad(t, 1, padding_mode="symmetric"))
tryit("crop pil", lambda: F.crop(pil, 1, 2, 2, 3))
tryit("crop np", lambda: F.crop(a, 1, 2, 2, 3))
tryit("crop t", lambda: F.crop(t, 1, 2, 2, 3))
tryit("cc pil", lambda: F.center_crop(pil, 3))
tryit("cc np", lambda: F.center_crop(a, (2, 3)))
tryit("cc t", lambda: F.center_crop(t, 3))
tryit("hflip pil", lambda: F.hflip(pil))
tryit("vflip pil", lambda: F.vflip(pil))
tryit("hflip t", lambda: F.hflip(t))
tryit("vflip t", lambda: F.vflip(t))
tryit("hflip np", lambda: F.hflip(a))
for f in ["adjust_brightness", "adjust_contrast", "adjust_saturation"]:
    tryit(f + " pil", lambda: getattr(F, f)(pil, 1.5))
    tryit(f + " t", lambda: getattr(F, f)(t, 0.7))
    tryit(f + " np", lambda: getattr(F, f)(a, 0.7))
tryit("hue pil", lambda: F.adjust_hue(pil, 0.2))
tryit("hue t uint8", lambda: F.adjust_hue(paddle.to_tensor(a.transpose(2, 0, 1)), -0.3))
tryit("hue bad", lambda: F.adjust_hue(pil, 0.7))
tryit("gray pil", lambda: F.to_grayscale(pil))
tryit("gray pil 3", lambda: F.to_grayscale(pil, 3))
tryit("gray t", lambda: F.to_grayscale(t))
tryit("gray t3", lambda: F.to_grayscale(t, 3))
tryit("gray bad", lambda: F.to_grayscale(pil, 2))
tryit("norm t", lambda: F.normalize(t, [0.5, 0.4, 0.3], [0.2, 0.3, 0.4]))
tryit("norm np", lambda: F.normalize(a, [0.5, 0.4, 0.3], [0.2, 0.3, 0.4], "HWC"))
tryit("norm pil", lambda: F.normalize(pil, [127.5] * 3, [127.5] * 3, "HWC", True))
tryit("rot pil", lambda: F.rotate(pil, 30))
tryit("rot pil exp", lambda: F.rotate(pil, 45, "bilinear", True))
tryit("rot pil center", lambda: F.rotate(pil, 90, center=[1, 1], fill=7))
tryit("rot t", lambda: F.rotate(t, 30))
tryit("rot t exp", lambda: F.rotate(t, 45, expand=True))
tryit("aff pil", lambda: F.affine(pil, 15, (1, 0), 1.2, 5))
tryit("aff t", lambda: F.affine(t, 15, [1, 0], 1.2, [5, 3]))
tryit("aff bad", lambda: F.affine(pil, "a", (1, 0), 1.2, 5))
tryit("persp pil", lambda: F.perspective(pil, [[0, 0], [4, 0], [4, 3], [0, 3]], [[1, 0], [4, 1], [3, 3], [0, 2]]))
tryit("erase t", lambda: F.erase(t, 1, 1, 2, 2, paddle.to_tensor(0.0)))
tryit("erase np", lambda: F.erase(a, 1, 1, 2, 2, 0))
tryit("erase pil", lambda: F.erase(pil, 1, 1, 2, 2, 0))
