"""``paddle.device.cuda`` as a CPU-only Paddle has it: no devices, and the memory and property
queries fail with Paddle's own errors (gradrepl computes on the CPU)."""
from __future__ import annotations

from .. import profiles


def device_count():
    """0: gradrepl, like a CPU build of Paddle, sees no CUDA device."""
    return 0


def empty_cache():
    return None


def _cpu_only(api, custom=True):
    extra = " or custom device" if custom and profiles.current().api3 else ""
    return ValueError(f"The API paddle.device.cuda.{api} is not supported in CPU-only "
                      f"PaddlePaddle. Please reinstall PaddlePaddle with GPU{extra} support to "
                      f"call this API.")


def _memory_query(api):
    def query(device=None):
        raise _cpu_only(api)

    query.__name__ = api
    query.__doc__ = f"``paddle.device.cuda.{api}``: fails on a CPU-only build."
    return query


max_memory_allocated = _memory_query("max_memory_allocated")
memory_allocated = _memory_query("memory_allocated")
max_memory_reserved = _memory_query("max_memory_reserved")
memory_reserved = _memory_query("memory_reserved")


def get_device_properties(device=None):
    raise _cpu_only("get_device_properties", custom=False)


def get_device_name(device=None):
    raise _cpu_only("get_device_properties", custom=False)


def get_device_capability(device=None):
    raise _cpu_only("get_device_properties", custom=False)


def _no_cuda(line):
    return RuntimeError("(Unavailable) Paddle is not compiled with CUDA. Cannot visit device "
                        f"synchronize. (at /paddle/paddle/fluid/pybind/cuda_streams_py.cc:{line})\n")


def synchronize(device=None):
    raise _no_cuda(169 if profiles.current().api3 else 93)


def current_stream(device=None):
    raise _no_cuda(59)
