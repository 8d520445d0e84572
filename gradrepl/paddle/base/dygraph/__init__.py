"""``paddle.base.dygraph``: the dynamic-graph helpers (``base``: no_grad, guard, to_variable)."""
from __future__ import annotations

from . import base  # noqa: F401
from .base import enable_grad, enabled, guard, no_grad, no_grad_, set_grad_enabled, to_variable  # noqa: F401
