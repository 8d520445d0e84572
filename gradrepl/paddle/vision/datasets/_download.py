"""Where a dataset's file would be downloaded to, and the refusal to download it.

Real Paddle keeps downloads in ``~/.cache/paddle/dataset/<module>/`` and uses a file there whose
md5 matches without touching the network; so does gradrepl. A missing file is never fetched:
the error names the file, where to put it and the URL it comes from, at once.
"""
from __future__ import annotations

import hashlib
import os

__all__ = []

DATA_HOME = os.path.join(os.path.expanduser("~"), ".cache", "paddle", "dataset")


def md5file(fname):
    h = hashlib.md5()
    with open(fname, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 16), b""):
            h.update(chunk)
    return h.hexdigest()


def cached_or_refuse(url, module_name, md5sum):
    """The cached copy of ``url`` if it is there with the right md5; else a RuntimeError."""
    filename = os.path.join(DATA_HOME, module_name, url.split("/")[-1])
    if os.path.exists(filename) and md5file(filename) == md5sum:
        return filename
    found = " (a file is there, but its md5 differs)" if os.path.exists(filename) else ""
    raise RuntimeError(
        f"Cannot download {url}: gradrepl never downloads datasets. Fetch the file yourself "
        f"and put it at {filename}{found} (md5 {md5sum}), or pass its path to the dataset "
        f"(e.g. image_path=... / data_file=...)")


def _check_exists_and_download(path, url, md5, module_name, download=True):
    """``path`` if it exists; else the cached download (download=True) or Paddle's ValueError."""
    if path and os.path.exists(path):
        return path
    if download:
        return cached_or_refuse(url, module_name, md5)
    raise ValueError(f"{path} not exists and auto download disabled")


def check_backend(backend):
    from ..image import get_image_backend

    backend = get_image_backend() if backend is None else backend
    if backend not in ("pil", "cv2"):
        raise ValueError(f"Expected backend are one of ['pil', 'cv2'], but got {backend}")
    return backend
