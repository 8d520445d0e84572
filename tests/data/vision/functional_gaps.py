# calls whose last bits differ in gradrepl (bilinear interpolate, bilinear grid_sample, float32 divide; a perspective grid point on a nearest-rounding tie)
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

tryit("resize tensor", lambda: F.resize(t, (3, 7)))
tryit("resize tensor int", lambda: F.resize(t, 2))
tryit("hue t", lambda: F.adjust_hue(t, 0.2))
tryit("rot t bil", lambda: F.rotate(t, 30, "bilinear", fill=0.5))
tryit("persp t", lambda: F.perspective(t, [[0, 0], [4, 0], [4, 3], [0, 3]], [[1, 0], [4, 1], [3, 3], [0, 2]]))
