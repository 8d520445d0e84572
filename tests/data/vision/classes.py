# paddle.vision.transforms classes, the random ones under random.seed / np.random.seed 0, 1, 2
import random
import re
import numpy as np
import paddle
import paddle.vision.transforms as T
from PIL import Image
a = (np.arange(6 * 7 * 3).reshape(6, 7, 3) * 5 % 256).astype("uint8")
pil = Image.fromarray(a)
t = T.ToTensor()(a)
def show(name, r):
    if isinstance(r, Image.Image):
        print(name, "PIL", r.mode, r.size); print(np.asarray(r).tolist())
    elif isinstance(r, np.ndarray):
        print(name, "ndarray", r.dtype, r.shape); print(r.tolist())
    else:
        print(name, re.sub(" at 0x[0-9a-fA-F]+", "", str(r)))
def tryit(name, f):
    try:
        show(name, f())
    except Exception as e:
        print(name, "ERR", type(e).__name__, e)
for seed in range(3):
    random.seed(seed); np.random.seed(seed)
    tryit("rcrop pil", lambda: T.RandomCrop(3)(pil))
    tryit("rcrop np pad", lambda: T.RandomCrop((4, 5), padding=None)(a))
    tryit("rcrop t", lambda: T.RandomCrop(3, padding=1)(t))
    tryit("hflip pil", lambda: T.RandomHorizontalFlip()(pil))
    tryit("vflip t", lambda: T.RandomVerticalFlip()(t))
    tryit("rrc pil", lambda: T.RandomResizedCrop(4)(pil))
    tryit("rrc t", lambda: T.RandomResizedCrop((3, 5), interpolation="nearest")(t))
    tryit("rrc np crop params", lambda: T.RandomResizedCrop(4)._dynamic_get_param(a))
    tryit("cj pil", lambda: T.ColorJitter(0.4, 0.4, 0.4, 0.1)(pil))
    tryit("bright t", lambda: T.BrightnessTransform(0.5)(t))
    tryit("contrast t", lambda: T.ContrastTransform(0.5)(t))
    tryit("sat t", lambda: T.SaturationTransform(0.5)(t))
    tryit("rot pil", lambda: T.RandomRotation(45)(pil))
    tryit("rot t", lambda: T.RandomRotation((10, 80), expand=True)(t))
    tryit("affine pil", lambda: T.RandomAffine(20, translate=(0.2, 0.1), scale=(0.8, 1.2), shear=(1, 5, 2, 6))(pil))
    tryit("persp pil", lambda: T.RandomPerspective(0.9)(pil))
    tryit("erase t", lambda: T.RandomErasing(0.9, value=0.5)(t))
    tryit("erase np", lambda: T.RandomErasing(0.9)(a))
    tryit("gray pil", lambda: T.Grayscale(3)(pil))
    tryit("pad", lambda: T.Pad([1, 2], fill=[1, 2, 3])(pil))
tryit("compose", lambda: T.Compose([T.Resize(4), T.CenterCrop(3), T.ToTensor(), T.Normalize([0.5]*3, [0.5]*3)])(pil))
print(re.sub(" at 0x[0-9a-f]+", "", str(T.Compose([T.Resize(4), T.ToTensor()]))))
tryit("keys", lambda: T.Resize(4, keys=("image", "boxes")))
tryit("keys2", lambda: T.ToTensor(keys=["image", "foo"]))
tryit("tuple", lambda: T.RandomHorizontalFlip(1.0)((pil, 5, "x")))
tryit("bad cj", lambda: T.BrightnessTransform([0.5]))
tryit("bad cj2", lambda: T.HueTransform(0.7))
tryit("transpose pil", lambda: T.Transpose()(pil))
tryit("transpose t", lambda: T.Transpose((1, 2, 0))(t))
tryit("totensor HWC", lambda: T.ToTensor("HWC")(pil))
tryit("resize np", lambda: T.Resize(3)(a))
