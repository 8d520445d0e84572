# small MNIST idx.gz, CIFAR tar.gz and PNG folders for datasets.py (run as: python make_data.py DIR)
import gzip, struct, pickle, tarfile, io, os, sys
import numpy as np
from PIL import Image
root = sys.argv[1]
os.makedirs(root, exist_ok=True)
rng = np.random.RandomState(0)
n = 100
imgs = (np.arange(n * 28 * 28) * 37 % 256).astype(np.uint8)
labels = (np.arange(n) * 7 % 10).astype(np.uint8)
with gzip.open(os.path.join(root, "imgs.gz"), "wb") as f:
    f.write(struct.pack(">IIII", 2051, n, 28, 28) + imgs.tobytes())
with gzip.open(os.path.join(root, "labels.gz"), "wb") as f:
    f.write(struct.pack(">II", 2049, n) + labels.tobytes())
with gzip.open(os.path.join(root, "labels5.gz"), "wb") as f:
    f.write(struct.pack(">II", 2049, 5) + labels[:5].tobytes())
def batch(k, key):
    data = ((np.arange(k * 3072) * 13 + k) % 256).astype(np.uint8).reshape(k, 3072)
    return {b"data": data, key: [int(i * 3 % 10) for i in range(k)]}
for name, members in [("c10.tar.gz", [("cifar-10-batches-py/data_batch_2", batch(2, b"labels")),
                                      ("cifar-10-batches-py/data_batch_1", batch(3, b"labels")),
                                      ("cifar-10-batches-py/test_batch", batch(1, b"labels"))]),
                      ("c100.tar.gz", [("cifar-100-python/train", batch(4, b"fine_labels")),
                                       ("cifar-100-python/test", batch(2, b"fine_labels"))])]:
    with tarfile.open(os.path.join(root, name), "w:gz") as t:
        for mname, obj in members:
            b = pickle.dumps(obj, protocol=2)
            ti = tarfile.TarInfo(mname); ti.size = len(b)
            t.addfile(ti, io.BytesIO(b))
for c in ["cat", "dog"]:
    os.makedirs(os.path.join(root, "folder", c), exist_ok=True)
for i, (c, fn) in enumerate([("cat", "b.png"), ("cat", "a.PNG"), ("dog", "x.png"), ("dog", "note.txt")]):
    p = os.path.join(root, "folder", c, fn)
    if fn.endswith("txt"):
        open(p, "w").write("x")
    else:
        Image.fromarray(((np.arange(4 * 5 * 3).reshape(4, 5, 3) + i * 11) % 256).astype(np.uint8)).save(p)
os.makedirs(os.path.join(root, "empty", "a"), exist_ok=True)
