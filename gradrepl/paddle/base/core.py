"""``paddle.base.core``: the few names of Paddle's C++ core that dynamic-graph code reads."""
from __future__ import annotations

from ..device import CPUPlace, CUDAPlace  # noqa: F401
from ..dtypes import DType as VarDesc  # noqa: F401


def is_compiled_with_cuda():
    return False


def is_compiled_with_rocm():
    return False


def is_compiled_with_xpu():
    return False
