"""``paddle.base.framework``: dynamic-mode queries and the Parameter class."""
from __future__ import annotations

from ..core import EagerParamBase, Tensor  # noqa: F401


def in_dygraph_mode():
    from ..static.program import MODE

    return not MODE["static"]


in_dynamic_mode = in_dygraph_mode
_non_static_mode = in_dygraph_mode


def in_pir_mode():
    from .. import profiles
    from ..static.program import MODE

    return MODE["static"] and profiles.current().api3
