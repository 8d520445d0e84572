"""``paddle.vision``: the model zoo (``models``: VGG, LeNet, ResNet) and a few ``transforms``.

No dataset or weight is ever downloaded: ``pretrained=True`` raises.
"""
from . import models, transforms  # noqa: F401
from .models import *  # noqa: F401,F403

__all__ = ["models", "transforms"] + models.__all__
