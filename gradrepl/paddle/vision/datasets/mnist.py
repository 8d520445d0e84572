"""``paddle.vision.datasets.MNIST`` / ``FashionMNIST``: the idx files (gzip) read from disk."""
from __future__ import annotations

import gzip
import struct

import numpy as np

from ...io import Dataset
from ._download import _check_exists_and_download, check_backend

__all__ = []


class MNIST(Dataset):
    """MNIST digits: items (28 x 28 image, int64 label of shape [1]). The image is a PIL 'L'
    image (backend 'pil') or a float array (backend 'cv2'), after ``transform``."""
    NAME = "mnist"
    URL_PREFIX = "https://dataset.bj.bcebos.com/mnist/"
    TEST_IMAGE_URL = URL_PREFIX + "t10k-images-idx3-ubyte.gz"
    TEST_IMAGE_MD5 = "9fb629c4189551a2d022fa330f9573f3"
    TEST_LABEL_URL = URL_PREFIX + "t10k-labels-idx1-ubyte.gz"
    TEST_LABEL_MD5 = "ec29112dd5afa0611ce80d1b7f02629c"
    TRAIN_IMAGE_URL = URL_PREFIX + "train-images-idx3-ubyte.gz"
    TRAIN_IMAGE_MD5 = "f68b3c2dcbeaaa9fbdd348bbdeb94873"
    TRAIN_LABEL_URL = URL_PREFIX + "train-labels-idx1-ubyte.gz"
    TRAIN_LABEL_MD5 = "d53e105ee54ea40749a09fcbcd1e9432"

    def __init__(self, image_path=None, label_path=None, mode="train", transform=None,
                 download=True, backend=None):
        from ... import get_default_dtype

        assert mode.lower() in ["train", "test"], \
            f"mode should be 'train' or 'test', but got {mode}"
        self.backend = check_backend(backend)
        self.mode = mode.lower()
        self.image_path = image_path
        if self.image_path is None:
            assert download, "image_path is not set and downloading automatically is disabled"
            url, md5 = ((self.TRAIN_IMAGE_URL, self.TRAIN_IMAGE_MD5) if mode == "train"
                        else (self.TEST_IMAGE_URL, self.TEST_IMAGE_MD5))
            self.image_path = _check_exists_and_download(image_path, url, md5, self.NAME,
                                                         download)
        self.label_path = label_path
        if self.label_path is None:
            assert download, "label_path is not set and downloading automatically is disabled"
            url, md5 = ((self.TRAIN_LABEL_URL, self.TRAIN_LABEL_MD5) if self.mode == "train"
                        else (self.TEST_LABEL_URL, self.TEST_LABEL_MD5))
            self.label_path = _check_exists_and_download(label_path, url, md5, self.NAME,
                                                         download)
        self.transform = transform
        self._parse_dataset()
        self.dtype = get_default_dtype()

    def _parse_dataset(self, buffer_size=100):
        """Read the idx files in blocks of ``buffer_size`` as Paddle does (so a count that is
        not a multiple of 100 fails the same way)."""
        self.images, self.labels = [], []
        with gzip.GzipFile(self.image_path, "rb") as f:
            img_buf = f.read()
        with gzip.GzipFile(self.label_path, "rb") as f:
            lab_buf = f.read()
        _, _, rows, cols = struct.unpack_from(">IIII", img_buf, 0)
        _, label_num = struct.unpack_from(">II", lab_buf, 0)
        off_img, off_lab = 16, 8
        for _ in range(0, label_num, buffer_size):
            labels = struct.unpack_from(f">{buffer_size}B", lab_buf, off_lab)
            off_lab += buffer_size
            pixels = struct.unpack_from(f">{buffer_size * rows * cols}B", img_buf, off_img)
            off_img += buffer_size * rows * cols
            block = np.reshape(pixels, (buffer_size, rows * cols)).astype("float32")
            for i in range(buffer_size):
                self.images.append(block[i, :])
                self.labels.append(np.array([labels[i]]).astype("int64"))

    def __getitem__(self, idx):
        image, label = np.reshape(self.images[idx], [28, 28]), self.labels[idx]
        if self.backend == "pil":
            from ..transforms.functional_pil import pil

            image = pil()[0].fromarray(image.astype("uint8"), mode="L")
        if self.transform is not None:
            image = self.transform(image)
        if self.backend == "pil":
            return image, label.astype("int64")
        return image.astype(self.dtype), label.astype("int64")

    def __len__(self):
        return len(self.labels)


class FashionMNIST(MNIST):
    """Fashion-MNIST: MNIST's format and items, Zalando's clothing images."""
    NAME = "fashion-mnist"
    URL_PREFIX = "https://dataset.bj.bcebos.com/fashion_mnist/"
    TEST_IMAGE_URL = URL_PREFIX + "t10k-images-idx3-ubyte.gz"
    TEST_IMAGE_MD5 = "bef4ecab320f06d8554ea6380940ec79"
    TEST_LABEL_URL = URL_PREFIX + "t10k-labels-idx1-ubyte.gz"
    TEST_LABEL_MD5 = "bb300cfdad3c16e7a12a480ee83cd310"
    TRAIN_IMAGE_URL = URL_PREFIX + "train-images-idx3-ubyte.gz"
    TRAIN_IMAGE_MD5 = "8d4fb7e6c68d591d4c3dfef9ec88bf0d"
    TRAIN_LABEL_URL = URL_PREFIX + "train-labels-idx1-ubyte.gz"
    TRAIN_LABEL_MD5 = "25c81989df183df01b3e8a0aad5dffbe"
