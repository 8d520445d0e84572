"""``paddle.regularizer``: weight decay terms for the optimizers."""
from .optimizer.optimizer import L1Decay, L2Decay  # noqa: F401

from .names_gate import gate as _gate  # noqa: E402  (the names of the emulated version)

_gate(__name__)
