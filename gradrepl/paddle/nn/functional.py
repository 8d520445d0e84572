"""``paddle.nn.functional``."""
from __future__ import annotations

from ...engine.ops import math as M
from ..tensor.math import sigmoid, tanh  # noqa: F401

__all__ = ["relu", "sigmoid", "tanh"]


def relu(x, name=None):
    return M.relu(x)
