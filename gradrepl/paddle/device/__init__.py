"""``paddle.device``: places. gradrepl computes on the CPU; the place prints as the profile says
(``cuda``: the CUDA queries of a CPU-only Paddle)."""
from __future__ import annotations

from .. import glog, profiles


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


# A CPU-only Paddle refuses device places: 3.3.1 raises ValueError (place.cc's line); 2.6.2
# logs these lines and aborts the process (exit status 255), here a RuntimeError with the text.
_ABORT_TEXT = {
    "CUDAPlace": ("Cannot use GPU because you have installed CPU version PaddlePaddle.\n"
                  "If you want to use GPU, please try to install GPU version PaddlePaddle by: "
                  "pip install paddlepaddle-gpu\nIf you only have CPU, please change "
                  "CUDAPlace({}) to be CPUPlace()."),
    "XPUPlace": ("Cannot use XPU because you have installed CPU/GPU version PaddlePaddle.\n"
                 "If you want to use XPU, please try to install XPU version PaddlePaddle by: "
                 "pip install paddlepaddle-xpu\nIf you only have CPU, please change "
                 "XPUPlace({}) to be CPUPlace()."),
}
_WRONG_PLACE_LINE = {"CUDAPlace": 451, "XPUPlace": 540}


def _device_place(cls, args):
    name = cls.__name__
    if len(args) != 1 or isinstance(args[0], bool) or not isinstance(args[0], int):
        shown = ", ".join(repr(a) for a in args)
        raise TypeError(
            "__init__(): incompatible constructor arguments. The following argument types are "
            f"supported:\n    1. paddle.base.libpaddle.{name}(arg0: int)\n\nInvoked with: "
            f"{shown}")
    glog.place_refused(name, _ABORT_TEXT[name].format(args[0]))
    if profiles.current().api3:
        raise ValueError("(InvalidArgument) use wrong place, Please check. (at "
                         f"/paddle/paddle/fluid/pybind/place.cc:{_WRONG_PLACE_LINE[name]})\n")
    raise RuntimeError(_ABORT_TEXT[name].format(args[0]) + "\n(real Paddle 2.x aborts the "
                       "process here; gradrepl computes on the CPU: use paddle.CPUPlace())")


class CUDAPlace(CPUPlace):
    """A GPU place: a CPU-only Paddle (what gradrepl emulates) refuses to make one."""

    def __init__(self, *args):
        _device_place(CUDAPlace, args)


class XPUPlace(CPUPlace):
    """An XPU place: refused as by a CPU-only Paddle."""

    def __init__(self, *args):
        _device_place(XPUPlace, args)


class CUDAPinnedPlace(CPUPlace):
    """Pinned host memory for CUDA: refused as by a CPU-only Paddle."""

    def __init__(self):
        line = 650 if profiles.current().api3 else 552
        raise RuntimeError(
            "(PermissionDenied) Cannot use CUDAPinnedPlace in CPU only version, Please recompile "
            f"or reinstall Paddle with CUDA support. (at /paddle/paddle/fluid/pybind/place.cc:"
            f"{line})\n")


for _cls in (CPUPlace, CUDAPlace, XPUPlace, CUDAPinnedPlace):
    _cls.__module__ = "paddle.base.libpaddle"
del _cls


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
