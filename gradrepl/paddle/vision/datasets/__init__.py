"""``paddle.vision.datasets``: the datasets read from files on disk. Nothing is downloaded:
without a local file (or a copy in ``~/.cache/paddle/dataset``) a RuntimeError names the file
and the URL it comes from."""
from .cifar import Cifar10, Cifar100
from .flowers import Flowers
from .folder import DatasetFolder, ImageFolder
from .mnist import MNIST, FashionMNIST
from .voc2012 import VOC2012

__all__ = ["DatasetFolder", "ImageFolder", "MNIST", "FashionMNIST", "Flowers", "Cifar10",
           "Cifar100", "VOC2012"]

from ...names_gate import gate as _gate  # noqa: E402  (the names of the emulated version)

_gate(__name__)
