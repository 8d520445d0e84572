"""``paddle.vision.datasets.Flowers``: Oxford 102 flowers (102flowers.tgz, imagelabels.mat,
setid.mat; the .mat files read with scipy, as in Paddle)."""
from __future__ import annotations

import os
import tarfile

import numpy as np

from ...io import Dataset
from ._download import _check_exists_and_download, check_backend

__all__ = []

DATA_URL = "http://paddlemodels.bj.bcebos.com/flowers/102flowers.tgz"
LABEL_URL = "http://paddlemodels.bj.bcebos.com/flowers/imagelabels.mat"
SETID_URL = "http://paddlemodels.bj.bcebos.com/flowers/setid.mat"
DATA_MD5 = "52808999861908f626f3c1f4e79d11fa"
LABEL_MD5 = "e0620be6f572b9609742df49c70aed4d"
SETID_MD5 = "a5357ecc9cb78c4bef273ce3793fc85c"
MODE_FLAG_MAP = {"train": "tstid", "test": "trnid", "valid": "valid"}  # (sic: Paddle's swap)


class Flowers(Dataset):
    """Items (image, int64 label of shape [1]); the archive is unpacked next to itself."""

    def __init__(self, data_file=None, label_file=None, setid_file=None, mode="train",
                 transform=None, download=True, backend=None):
        from ..transforms.functional_cv2 import try_import

        assert mode.lower() in ["train", "valid", "test"], \
            f"mode should be 'train', 'valid' or 'test', but got {mode}"
        self.backend = check_backend(backend)
        flag = MODE_FLAG_MAP[mode.lower()]
        files = {}
        for name, given, url, md5 in (("data_file", data_file, DATA_URL, DATA_MD5),
                                      ("label_file", label_file, LABEL_URL, LABEL_MD5),
                                      ("setid_file", setid_file, SETID_URL, SETID_MD5)):
            if not given:
                assert download, f"{name} is not set and downloading automatically is disabled"
                given = _check_exists_and_download(given, url, md5, "flowers", download)
            files[name] = given
        self.transform = transform
        data_tar = tarfile.open(files["data_file"])
        self.data_path = files["data_file"].replace(".tgz", "/")
        if not os.path.exists(self.data_path):
            os.mkdir(self.data_path)
        if not os.path.exists(os.path.join(self.data_path, "jpg")):
            data_tar.extractall(self.data_path)
        scio = try_import("scipy.io")
        self.labels = scio.loadmat(files["label_file"])["labels"][0]
        self.indexes = scio.loadmat(files["setid_file"])[flag][0]

    def __getitem__(self, idx):
        from ... import get_default_dtype
        from ..transforms.functional_pil import pil

        index = self.indexes[idx]
        label = np.array([self.labels[index - 1]])
        image = pil()[0].open(os.path.join(self.data_path, f"jpg/image_{index:05}.jpg"))
        if self.backend == "cv2":
            image = np.array(image)
        if self.transform is not None:
            image = self.transform(image)
        if self.backend == "pil":
            return image, label.astype("int64")
        return image.astype(get_default_dtype()), label.astype("int64")

    def __len__(self):
        return len(self.indexes)
