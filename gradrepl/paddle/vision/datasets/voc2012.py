"""``paddle.vision.datasets.VOC2012``: the segmentation set, read from the VOC tar archive."""
from __future__ import annotations

import io as _io
import tarfile

import numpy as np

from ...io import Dataset
from ._download import _check_exists_and_download, check_backend

__all__ = []

VOC_URL = "https://dataset.bj.bcebos.com/voc/VOCtrainval_11-May-2012.tar"
VOC_MD5 = "6cd6e144f989b92b3379bac3b3de84fd"
SET_FILE = "VOCdevkit/VOC2012/ImageSets/Segmentation/{}.txt"
DATA_FILE = "VOCdevkit/VOC2012/JPEGImages/{}.jpg"
LABEL_FILE = "VOCdevkit/VOC2012/SegmentationClass/{}.png"
CACHE_DIR = "voc2012"
MODE_FLAG_MAP = {"train": "trainval", "test": "train", "valid": "val"}


class VOC2012(Dataset):
    """Items (image, segmentation mask): PIL images, or float arrays with backend 'cv2'."""

    def __init__(self, data_file=None, mode="train", transform=None, download=True,
                 backend=None):
        from ... import get_default_dtype

        assert mode.lower() in ["train", "valid", "test"], \
            f"mode should be 'train', 'valid' or 'test', but got {mode}"
        self.backend = check_backend(backend)
        self.flag = MODE_FLAG_MAP[mode.lower()]
        self.data_file = data_file
        if self.data_file is None:
            assert download, "data_file is not set and downloading automatically is disabled"
            self.data_file = _check_exists_and_download(data_file, VOC_URL, VOC_MD5, CACHE_DIR,
                                                        download)
        self.transform = transform
        self._load_anno()
        self.dtype = get_default_dtype()

    def _load_anno(self):
        self.data_tar = tarfile.open(self.data_file)
        self.name2mem = {m.name: m for m in self.data_tar.getmembers()}
        sets = self.data_tar.extractfile(self.name2mem[SET_FILE.format(self.flag)])
        names = [line.strip().decode("utf-8") for line in sets]
        self.data = [DATA_FILE.format(n) for n in names]
        self.labels = [LABEL_FILE.format(n) for n in names]

    def __getitem__(self, idx):
        from ..transforms.functional_pil import pil

        Image = pil()[0]
        read = lambda name: self.data_tar.extractfile(self.name2mem[name]).read()  # noqa: E731
        data = Image.open(_io.BytesIO(read(self.data[idx])))
        label = Image.open(_io.BytesIO(read(self.labels[idx])))
        if self.backend == "cv2":
            data, label = np.array(data), np.array(label)
        if self.transform is not None:
            data = self.transform(data)
        if self.backend == "cv2":
            return data.astype(self.dtype), label.astype(self.dtype)
        return data, label

    def __len__(self):
        return len(self.data)

    def __del__(self):
        if getattr(self, "data_tar", None):
            self.data_tar.close()
