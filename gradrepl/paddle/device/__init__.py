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


# the backend a CPU-only build lacks for each device name
_NOT_COMPILED = {"gpu": "CUDA", "dcu": "CUDA", "xpu": "XPU", "ipu": "IPU"}


def _convert_to_place(device):
    """A device string as a CPU-only Paddle reads it: 'cpu' is the CPU, a GPU/XPU/IPU name raises
    ValueError with Paddle's words, anything else names the accepted forms."""
    prof = profiles.current()
    if not isinstance(device, str):
        if "dcu" in prof.device_kinds:   # 3.x: a place passes through
            return device
        raise AttributeError(f"'{type(device).__name__}' object has no attribute 'lower'")
    lower = device.lower()
    if "dcu" in prof.device_kinds and lower.startswith("cuda"):
        lower = lower.replace("cuda", "gpu")
    if lower == "cpu":
        return CPUPlace()
    if lower in _NOT_COMPILED and (lower != "dcu" or "dcu" in prof.device_kinds):
        named = "gpu" if lower == "dcu" else lower    # Paddle's 'dcu' branch names the gpu
        raise ValueError(f"The device should not be '{named}', since PaddlePaddle is not "
                         f"compiled with {_NOT_COMPILED[lower]}")
    import re

    pattern = r"gpu:\d+|dcu:\d+" if "dcu" in prof.device_kinds else r"gpu:\d+"
    for found, backend in ((re.match(pattern, lower), "CUDA"), (re.match(r"xpu:\d+", lower), "XPU")):
        if found:
            raise ValueError(f"The device should not be {found}, since PaddlePaddle is not "
                             f"compiled with {backend}")
    kinds = ", ".join(f"'{k}', '{k}:x'" for k in prof.device_kinds)
    raise ValueError(f"The device must be a string which is like 'cpu', {kinds}")


def set_device(device):
    """Paddle's global device: gradrepl is a CPU-only build, so only 'cpu' is accepted (as a
    CPU-only Paddle does; d2l's ``set_device("gpu:...")`` fails the same way)."""
    return _convert_to_place(device)


def is_compiled_with_cuda():
    return False


def get_all_device_type():
    return []


from . import cuda  # noqa: E402  (paddle.device.cuda)
