"""``torch.nn.parallel`` on a CPU-only torch (what a student's CPU machine runs): ``DataParallel``
keeps the module and calls it (torch's ``__init__`` returns early with ``device_ids = []`` when
no accelerator is found), ``data_parallel`` and ``DistributedDataParallel`` raise torch's errors.
The DCGAN tutorial imports this package and wraps its nets only when GPUs are present."""
from __future__ import annotations

from ..modules import Module

__all__ = ["replicate", "scatter", "parallel_apply", "gather", "data_parallel", "DataParallel",
           "DistributedDataParallel"]


class DataParallel(Module):
    """``nn.DataParallel(module, device_ids=None, output_device=None, dim=0)`` without an
    accelerator: prints as ``DataParallel((module): ...)``, its forward is the module's."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        self.device_ids = []

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0,
                  module_kwargs=None):
    raise RuntimeError("device type could not be determined")


class DistributedDataParallel(Module):
    def __init__(self, module, *args, **kwargs):
        raise ValueError("Default process group has not been initialized, please make sure to "
                         "call init_process_group.")


def _no_device(*_args, **_kwargs):
    raise RuntimeError("device type could not be determined")


replicate = scatter = parallel_apply = gather = _no_device
