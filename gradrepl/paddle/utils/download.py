"""``paddle.utils.download``: gradrepl runs without a network, so fetching weights fails at
once with a clear RuntimeError (Paddle's own text after its retries is ``Download from URL
failed. Retry limit reached``); a file already in the cache is returned as Paddle would."""
from __future__ import annotations

import os
import os.path as osp

WEIGHTS_HOME = osp.expanduser("~/.cache/paddle/hapi/weights")
DOWNLOAD_RETRY_LIMIT = 3

__all__ = ["get_weights_path_from_url"]


def is_url(path):
    return path.startswith("http://") or path.startswith("https://")


def _cached(url, root_dir):
    fname = osp.split(url)[-1]
    path = osp.join(root_dir, fname)
    return path if osp.exists(path) else None


def get_path_from_url(url, root_dir, md5sum=None, check_exist=True, decompress=True,
                      method="get"):
    """The local path of ``url``'s file under ``root_dir``: found in the cache, or an error."""
    assert is_url(url), f"downloading from {url} not a url"
    path = _cached(url, root_dir)
    if path is not None and check_exist:
        return path
    raise RuntimeError(
        f"Download from {url} failed. Retry limit reached (gradrepl has no network access: put "
        f"the file at {osp.join(root_dir, osp.split(url)[-1])} to use it)")


def get_weights_path_from_url(url, md5sum=None):
    """Pretrained weights' local path (``~/.cache/paddle/hapi/weights``)."""
    return get_path_from_url(url, WEIGHTS_HOME, md5sum)


def check_and_create_dir(path):
    os.makedirs(path, exist_ok=True)
