"""``paddle.device``: places. gradrepl computes on the CPU; the place prints as the profile says
(``cuda``: the CUDA queries of a CPU-only Paddle)."""
from __future__ import annotations

from .. import profiles


class CPUPlace:
    def __repr__(self):
        return profiles.current().place

    __str__ = __repr__

    def __eq__(self, other):
        return isinstance(other, CPUPlace)

    def __hash__(self):
        return 0

    def is_cpu_place(self):
        return True

    def is_gpu_place(self):
        return False


class CUDAPlace(CPUPlace):
    """Accepted for scripts that name a GPU; gradrepl still computes on the CPU."""

    def __init__(self, device_id=0):
        self.device_id = device_id


def get_device():
    return "cpu"


def set_device(device):
    return CPUPlace()


def is_compiled_with_cuda():
    return False


def get_all_device_type():
    return []


from . import cuda  # noqa: E402  (paddle.device.cuda)
