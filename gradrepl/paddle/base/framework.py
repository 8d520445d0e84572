"""``paddle.base.framework``: dynamic-mode queries and the Parameter class."""
from __future__ import annotations

from ..core import EagerParamBase, Tensor  # noqa: F401


def in_dygraph_mode():
    return True


def in_dynamic_mode():
    return True


def in_pir_mode():
    return False


def _non_static_mode():
    return True
