# paddle.vision.datasets on the small files make_data.py writes
import sys, os
import numpy as np
import paddle
from paddle.vision.datasets import MNIST, FashionMNIST, Cifar10, Cifar100, DatasetFolder, ImageFolder, Flowers, VOC2012
import paddle.vision.transforms as T
root = os.environ["VISION_DATA"]
P = lambda n: os.path.join(root, n)
def tryit(name, f):
    try:
        r = f()
        print(name, r)
    except BaseException as e:
        print(name, "ERR", type(e).__name__, str(e).replace(root, "ROOT").replace(os.path.expanduser("~"), "HOME"))
def item(x):
    img, lab = x[0], x[1] if len(x) > 1 else None
    if hasattr(img, "mode"):
        d = ("PIL", img.mode, img.size, np.asarray(img).ravel()[:6].tolist())
    elif isinstance(img, np.ndarray):
        d = ("nd", img.dtype, img.shape, img.ravel()[:6].tolist())
    else:
        d = ("tensor", img.dtype, img.shape, img.numpy().ravel()[:4].tolist())
    l = (type(lab).__name__, getattr(lab, "dtype", None), getattr(lab, "shape", None), lab.tolist() if hasattr(lab, "tolist") else lab)
    return d, l
m = MNIST(P("imgs.gz"), P("labels.gz"))
tryit("mnist len", lambda: len(m))
tryit("mnist 0", lambda: item(m[0]))
tryit("mnist 99", lambda: item(m[99]))
tryit("mnist cv2", lambda: item(MNIST(P("imgs.gz"), P("labels.gz"), mode="test", backend="cv2")[3]))
tryit("mnist T", lambda: item(MNIST(P("imgs.gz"), P("labels.gz"), transform=T.Compose([T.ToTensor(), T.Normalize([127.5], [127.5])]))[1]))
tryit("mnist T cv2", lambda: item(MNIST(P("imgs.gz"), P("labels.gz"), transform=T.Normalize([127.5], [127.5], data_format="HWC"), backend="cv2")[1]))
tryit("fmnist", lambda: item(FashionMNIST(P("imgs.gz"), P("labels.gz"))[5]))
tryit("mnist 5 labels", lambda: MNIST(P("imgs.gz"), P("labels5.gz")))
tryit("mnist nodl", lambda: MNIST(download=False))
tryit("mnist nodl lab", lambda: MNIST(P("imgs.gz"), download=False))
tryit("mnist missing", lambda: MNIST(P("nope.gz"), P("labels.gz")))
tryit("mnist bad mode", lambda: MNIST(P("imgs.gz"), P("labels.gz"), mode="val"))
tryit("mnist bad backend", lambda: MNIST(P("imgs.gz"), P("labels.gz"), backend="tensor"))
tryit("mnist attrs", lambda: (m.mode, m.backend, m.dtype, type(m.images), m.images[0].dtype, m.images[0].shape, m.labels[0].dtype, m.labels[0].shape))
tryit("mnist is io.Dataset", lambda: isinstance(m, paddle.io.Dataset))
c = Cifar10(P("c10.tar.gz"))
tryit("c10 len", lambda: len(c))
tryit("c10 0", lambda: item(c[0]))
tryit("c10 3", lambda: item(c[3]))
tryit("c10 test", lambda: [item(x) for x in Cifar10(P("c10.tar.gz"), mode="test", backend="cv2")])
tryit("c10 T", lambda: item(Cifar10(P("c10.tar.gz"), transform=T.ToTensor())[4]))
tryit("c100", lambda: [item(x) for x in Cifar100(P("c100.tar.gz"))])
tryit("c100 test", lambda: len(Cifar100(P("c100.tar.gz"), mode="TEST")))
tryit("c10 nodl", lambda: Cifar10(download=False))
tryit("c10 missing", lambda: Cifar10(P("none.tar.gz")))
tryit("c10 bad mode", lambda: Cifar10(P("c10.tar.gz"), mode="x"))
f = DatasetFolder(P("folder"))
tryit("folder", lambda: (len(f), f.classes, f.class_to_idx, [(os.path.relpath(p, root), t) for p, t in f.samples], f.targets))
tryit("folder 0", lambda: item(f[0]))
tryit("folder T", lambda: item(DatasetFolder(P("folder"), transform=T.ToTensor())[2]))
tryit("folder ext", lambda: len(DatasetFolder(P("folder"), extensions=(".txt",))))
tryit("folder empty", lambda: DatasetFolder(P("empty")))
tryit("folder none", lambda: DatasetFolder(P("nodir")))
g = ImageFolder(P("folder"))
tryit("imgfolder", lambda: (len(g), [os.path.relpath(p, root) for p in g.samples]))
tryit("imgfolder 1", lambda: (type(g[1]).__name__, len(g[1]), g[1][0].size))
tryit("imgfolder empty", lambda: ImageFolder(P("empty")))
tryit("flowers nodl", lambda: Flowers(download=False))
tryit("voc nodl", lambda: VOC2012(download=False))
tryit("voc missing", lambda: VOC2012(P("none.tar")))
tryit("backend", lambda: (paddle.vision.get_image_backend(), paddle.vision.set_image_backend("x")))
