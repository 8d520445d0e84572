"""``paddle.vision.datasets.DatasetFolder`` (one sub-folder per class) and ``ImageFolder``
(every image under a folder, no labels)."""
from __future__ import annotations

import os

from ...io import Dataset

__all__ = []

IMG_EXTENSIONS = (".jpg", ".jpeg", ".png", ".ppm", ".bmp", ".pgm", ".tif", ".tiff", ".webp")


def has_valid_extension(filename, extensions):
    """Whether ``filename`` ends with one of ``extensions`` (any case)."""
    assert isinstance(extensions, (list, tuple)), "`extensions` must be list or tuple."
    return filename.lower().endswith(tuple(x.lower() for x in extensions))


def _walk(top):
    """Every file under ``top`` (following links), directories and names in sorted order."""
    for root, _, fnames in sorted(os.walk(top, followlinks=True)):
        for fname in sorted(fnames):
            yield os.path.join(root, fname)


def make_dataset(dir, class_to_idx, extensions, is_valid_file=None):
    """(path, class index) for each valid file under each class's folder."""
    dir = os.path.expanduser(dir)
    if extensions is not None:
        def is_valid_file(x):
            return has_valid_extension(x, extensions)
    images = []
    for target in sorted(class_to_idx):
        d = os.path.join(dir, target)
        if os.path.isdir(d):
            images += [(p, class_to_idx[target]) for p in _walk(d) if is_valid_file(p)]
    return images


def pil_loader(path):
    from ..transforms.functional_pil import pil

    with open(path, "rb") as f:
        return pil()[0].open(f).convert("RGB")


def cv2_loader(path):
    from ..transforms.functional_cv2 import try_import

    cv2 = try_import("cv2")
    return cv2.cvtColor(cv2.imread(path), cv2.COLOR_BGR2RGB)


def default_loader(path):
    from ..image import get_image_backend

    return cv2_loader(path) if get_image_backend() == "cv2" else pil_loader(path)


class DatasetFolder(Dataset):
    """Images in ``root/<class>/...``: items (image, class index), classes sorted by name."""

    def __init__(self, root, loader=None, extensions=None, transform=None, is_valid_file=None):
        from ... import get_default_dtype

        self.root = root
        self.transform = transform
        if extensions is None:
            extensions = IMG_EXTENSIONS
        classes, class_to_idx = self._find_classes(self.root)
        samples = make_dataset(self.root, class_to_idx, extensions, is_valid_file)
        if len(samples) == 0:
            raise RuntimeError("Found 0 directories in subfolders of: " + self.root + "\n"
                               "Supported extensions are: " + ",".join(extensions))
        self.loader = default_loader if loader is None else loader
        self.extensions = extensions
        self.classes = classes
        self.class_to_idx = class_to_idx
        self.samples = samples
        self.targets = [s[1] for s in samples]
        self.dtype = get_default_dtype()

    def _find_classes(self, dir):
        classes = sorted(d.name for d in os.scandir(dir) if d.is_dir())
        return classes, {c: i for i, c in enumerate(classes)}

    def __getitem__(self, index):
        path, target = self.samples[index]
        sample = self.loader(path)
        if self.transform is not None:
            sample = self.transform(sample)
        return sample, target

    def __len__(self):
        return len(self.samples)


class ImageFolder(Dataset):
    """Every image under ``root``: items ``[image]`` (a one-element list, no label)."""

    def __init__(self, root, loader=None, extensions=None, transform=None, is_valid_file=None):
        self.root = root
        if extensions is None:
            extensions = IMG_EXTENSIONS
        if extensions is not None:
            def is_valid_file(x):
                return has_valid_extension(x, extensions)
        samples = [f for f in _walk(os.path.expanduser(root)) if is_valid_file(f)]
        if len(samples) == 0:
            raise RuntimeError("Found 0 files in subfolders of: " + self.root + "\n"
                               "Supported extensions are: " + ",".join(extensions))
        self.loader = default_loader if loader is None else loader
        self.extensions = extensions
        self.samples = samples
        self.transform = transform

    def __getitem__(self, index):
        sample = self.loader(self.samples[index])
        if self.transform is not None:
            sample = self.transform(sample)
        return [sample]

    def __len__(self):
        return len(self.samples)
