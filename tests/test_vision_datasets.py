"""paddle.vision.datasets against Paddle 3.3.1 on small files the test writes (MNIST idx.gz,
CIFAR-10/100 python tar.gz, a folder of PNGs): items, dtypes, shapes, labels, lengths and the
errors (a missing file, download=False, a bad mode or backend) printed as Paddle printed
them. A missing file with download=True raises at once, naming the file and the URL."""
from __future__ import annotations

import os
import runpy
import socket

import pytest

pytest.importorskip("PIL")

from gradrepl.runner import run_captured  # noqa: E402

DATA = os.path.join(os.path.dirname(__file__), "data", "vision")


@pytest.fixture(autouse=True)
def _default_state_afterwards():
    """The scripts run under profile 3; later tests expect the default profile back."""
    yield
    from gradrepl.paddle import state

    state.reset(None)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = str(tmp_path_factory.mktemp("vision_data"))
    import sys
    argv = sys.argv
    sys.argv = ["make_data.py", root]
    try:
        runpy.run_path(os.path.join(DATA, "make_data.py"), run_name="__main__")
    finally:
        sys.argv = argv
    return root


def test_datasets_match_paddle(files, monkeypatch):
    monkeypatch.setenv("VISION_DATA", files)
    out, err = run_captured(os.path.join(DATA, "datasets.py"), "3")
    assert err is None, repr(err)
    with open(os.path.join(DATA, "datasets.out"), encoding="utf-8") as f:
        assert out == f.read()


@pytest.mark.parametrize("make, url", [
    (lambda d: d.MNIST(mode="test"),
     "https://dataset.bj.bcebos.com/mnist/t10k-images-idx3-ubyte.gz"),
    (lambda d: d.FashionMNIST(), "https://dataset.bj.bcebos.com/fashion_mnist/"
                                 "train-images-idx3-ubyte.gz"),
    (lambda d: d.Cifar10(), "https://dataset.bj.bcebos.com/cifar/cifar-10-python.tar.gz"),
    (lambda d: d.Cifar100(), "https://dataset.bj.bcebos.com/cifar/cifar-100-python.tar.gz"),
    (lambda d: d.Flowers(), "http://paddlemodels.bj.bcebos.com/flowers/102flowers.tgz"),
    (lambda d: d.VOC2012(), "https://dataset.bj.bcebos.com/voc/VOCtrainval_11-May-2012.tar"),
])
def test_download_is_refused_at_once(make, url, tmp_path, monkeypatch):
    from gradrepl.paddle.vision import datasets
    from gradrepl.paddle.vision.datasets import _download

    monkeypatch.setattr(_download, "DATA_HOME", str(tmp_path))
    tried = []     # "at once": no connection is tried (a count, not a timed assert)

    def no_network(*args, **kwargs):
        tried.append(args)
        raise OSError("the test forbids the network")

    monkeypatch.setattr(socket, "create_connection", no_network)
    monkeypatch.setattr(socket.socket, "connect", no_network)
    with pytest.raises(RuntimeError) as info:
        make(datasets)
    assert tried == []
    msg = str(info.value)
    assert msg.startswith(f"Cannot download {url}: gradrepl never downloads datasets.")
    assert os.path.join(str(tmp_path), "") in msg and url.split("/")[-1] in msg


def test_a_cached_download_is_used(files, tmp_path, monkeypatch):
    """Paddle reads ~/.cache/paddle/dataset/<name>/<file> when its md5 matches: so do we."""
    import shutil

    from gradrepl.paddle.vision import datasets
    from gradrepl.paddle.vision.datasets import _download

    monkeypatch.setattr(_download, "DATA_HOME", str(tmp_path))
    os.makedirs(tmp_path / "mnist")
    shutil.copy(os.path.join(files, "imgs.gz"), tmp_path / "mnist" / "t10k-images-idx3-ubyte.gz")
    monkeypatch.setattr(datasets.MNIST, "TEST_IMAGE_MD5",
                        _download.md5file(os.path.join(files, "imgs.gz")))
    m = datasets.MNIST(label_path=os.path.join(files, "labels.gz"), mode="test")
    assert len(m) == 100 and int(m[1][1][0]) == 7
    shutil.copy(os.path.join(files, "labels.gz"), tmp_path / "mnist" / "train-images-idx3-ubyte.gz")
    with pytest.raises(RuntimeError, match="its md5 differs"):
        datasets.MNIST(label_path=os.path.join(files, "labels.gz"))


def test_image_backend_switch():
    from gradrepl.paddle import vision

    assert vision.get_image_backend() == "pil"
    with pytest.raises(ValueError, match=r"^Expected backend are one of \['pil', 'cv2', "
                       r"'tensor'\], but got x$"):
        vision.set_image_backend("x")
