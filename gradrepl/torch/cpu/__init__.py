"""``torch.cpu``: torch's device-agnostic module for the CPU (torch 2.13's ``torch/cpu``).

One device, always available and initialised; streams and events that do nothing;
``get_capabilities()`` the mapping torch's cpuinfo gives (``_capabilities.py``); the deprecated
``torch.cpu.amp.autocast`` / ``GradScaler`` wrappers (``amp``)."""
from __future__ import annotations

from contextlib import AbstractContextManager
from functools import lru_cache
from types import MappingProxyType

from . import amp  # noqa: F401

__all__ = ["is_available", "is_initialized", "synchronize", "current_device", "current_stream",
           "stream", "set_device", "device_count", "Stream", "StreamContext", "Event",
           "get_capabilities"]


@lru_cache(None)
def get_capabilities():
    """The CPU's capabilities as torch 2.13 names them (an immutable mapping, one object)."""
    from . import _capabilities

    return MappingProxyType(_capabilities.capabilities())


def _is_avx2_supported():
    return get_capabilities().get("avx2", False)


def _is_avx512_supported():
    return get_capabilities().get("avx512_f", False)


def _is_avx512_bf16_supported():
    return get_capabilities().get("avx512_bf16", False)


def _is_vnni_supported():
    return get_capabilities().get("avx512_vnni", False)


def _is_amx_tile_supported():
    return get_capabilities().get("amx_tile", False)


def _is_amx_fp16_supported():
    return get_capabilities().get("amx_fp16", False)


def _init_amx():
    return bool(get_capabilities().get("amx_tile", False))


def is_available():
    return True


def synchronize(device=None):
    return None


class Stream:
    def __init__(self, priority=-1):
        pass

    def wait_stream(self, stream):
        pass

    def record_event(self):
        pass

    def wait_event(self, event):
        pass


class Event:
    def query(self):
        return True

    def record(self, stream=None):
        pass

    def synchronize(self):
        pass

    def wait(self, stream=None):
        pass


_default_cpu_stream = Stream()
_current_stream = _default_cpu_stream


def current_stream(device=None):
    return _current_stream


class StreamContext(AbstractContextManager):
    def __init__(self, stream):
        self.stream = stream
        self.prev_stream = _default_cpu_stream

    def __enter__(self):
        global _current_stream
        if self.stream is None:
            return
        self.prev_stream = _current_stream
        _current_stream = self.stream

    def __exit__(self, type, value, traceback):
        global _current_stream
        if self.stream is None:
            return
        _current_stream = self.prev_stream


def stream(stream):
    return StreamContext(stream)


def device_count():
    return 1


def set_device(device):
    return None


def current_device():
    return "cpu"


def is_initialized():
    return True


for _cls in (Stream, Event, StreamContext):
    _cls.__module__ = "torch.cpu"
del _cls
