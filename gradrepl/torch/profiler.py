"""``torch.profiler``: the same recorder as ``torch.autograd.profiler`` under the newer API
(``profile(activities=[ProfilerActivity.CPU], record_shapes=...)``, ``record_function``)."""
from __future__ import annotations

import enum

from .autograd import profiler as _legacy
from .autograd.profiler import record_function  # noqa: F401

__all__ = ["profile", "record_function", "ProfilerActivity", "schedule"]


class ProfilerActivity(enum.Enum):
    CPU = 0
    CUDA = 2
    XPU = 3
    MTIA = 4

    def __repr__(self):
        return f"<ProfilerActivity.{self.name}: {self.value}>"


class profile(_legacy.profile):
    """``with torch.profiler.profile(activities=...) as prof:``; ``prof.step()`` is accepted."""

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None,
                 record_shapes=False, profile_memory=False, with_stack=False, with_flops=False,
                 with_modules=False, experimental_config=None, execution_trace_observer=None,
                 acc_events=False, use_cuda=None, custom_trace_id_callback=None):
        super().__init__(record_shapes=record_shapes, profile_memory=profile_memory,
                         with_stack=with_stack, with_flops=with_flops)
        self.activities = activities
        self.on_trace_ready = on_trace_ready

    def step(self):
        return None

    def events(self):
        return self.function_events

    def __exit__(self, *exc):
        super().__exit__(*exc)
        if self.on_trace_ready is not None:
            self.on_trace_ready(self)
        return False


def schedule(*, wait, warmup, active, repeat=0, skip_first=0, skip_first_wait=0):
    """Accepted for compatibility: gradrepl records every step."""
    return lambda step: None
