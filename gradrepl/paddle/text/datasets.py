"""``paddle.text.datasets``. UCIHousing reads the Boston housing file as Paddle does (each
feature centred on its mean and divided by its range; the first 80% of rows train, the rest
test). Nothing is downloaded: a missing file is refused at once, naming where to put it. The
other NLP datasets (tokenised corpora and dictionaries) are not emulated: they say so."""
from __future__ import annotations

import numpy as np

from ..io import Dataset
from ..vision.datasets._download import _check_exists_and_download

__all__ = []

_UCI_URL = "http://paddlemodels.bj.bcebos.com/uci_housing/housing.data"
_UCI_MD5 = "d4accdce7a25600298819f8e28e8d593"
_UCI_FEATURES = 14  # 13 features and the price


class UCIHousing(Dataset):
    """The UCI (Boston) housing prices: ``(features[13], price[1])`` pairs in the default
    dtype."""

    def __init__(self, data_file=None, mode="train", download=True):
        assert mode.lower() in ["train", "test"], \
            f"mode should be 'train' or 'test', but got {mode}"
        self.mode = mode.lower()
        self.data_file = data_file
        if self.data_file is None:
            assert download, "data_file is not set and downloading automatically is disabled"
            self.data_file = _check_exists_and_download(None, _UCI_URL, _UCI_MD5,
                                                        "uci_housing", download)
        self._load_data()
        from ..tensor.creation import get_default_dtype

        self.dtype = get_default_dtype()

    def _load_data(self, feature_num=_UCI_FEATURES, ratio=0.8):
        data = np.fromfile(self.data_file, sep=" ")
        data = data.reshape(data.shape[0] // feature_num, feature_num)
        spread = data.max(axis=0) - data.min(axis=0)
        mean = data.sum(axis=0) / data.shape[0]
        for i in range(feature_num - 1):
            data[:, i] = (data[:, i] - mean[i]) / spread[i]
        cut = int(data.shape[0] * ratio)
        self.data = data[:cut] if self.mode == "train" else data[cut:]

    def __getitem__(self, idx):
        row = self.data[idx]
        return np.array(row[:-1]).astype(self.dtype), np.array(row[-1:]).astype(self.dtype)

    def __len__(self):
        return len(self.data)


def _not_emulated(class_name):
    def __init__(self, *args, **kwargs):
        raise NotImplementedError(
            f"gradrepl: paddle.text.datasets.{class_name} (a tokenised corpus with its "
            f"dictionaries) is not emulated; paddle.text.datasets.UCIHousing is, and any "
            f"paddle.io.Dataset of your own works")

    return type(class_name, (Dataset,), {"__init__": __init__, "__module__": __name__,
                                         "__doc__": f"``{class_name}``: not emulated."})


Conll05st = _not_emulated("Conll05st")
Imdb = _not_emulated("Imdb")
Imikolov = _not_emulated("Imikolov")
Movielens = _not_emulated("Movielens")
WMT14 = _not_emulated("WMT14")
WMT16 = _not_emulated("WMT16")
