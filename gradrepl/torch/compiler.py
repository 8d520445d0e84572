"""``torch.compiler``: the public face of ``torch._dynamo`` (see there: no compiler here)."""
from __future__ import annotations

from ._dynamo import (allow_in_graph, assume_constant_result, disable, reset)  # noqa: F401


def is_compiling():
    """False: gradrepl runs every call eagerly."""
    return False


is_dynamo_compiling = is_exporting = is_compiling
