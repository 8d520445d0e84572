"""``paddle.vision``: the model zoo (``models``), image ``transforms``, ``datasets`` read from
local files, and the image backend switch.

No dataset or weight is ever downloaded: ``pretrained=True`` raises, and a dataset without its
file says which file and URL it needs.
"""
from . import datasets, models, transforms  # noqa: F401
from .datasets import *  # noqa: F401,F403
from .image import get_image_backend, image_load, set_image_backend
from .models import *  # noqa: F401,F403
from .transforms import *  # noqa: F401,F403

__all__ = ["set_image_backend", "get_image_backend", "image_load"]

from ..names_gate import gate as _gate  # noqa: E402  (the names of the emulated version)

_gate(__name__)
