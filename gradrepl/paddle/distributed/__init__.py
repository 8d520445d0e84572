"""``paddle.distributed`` as a single CPU process sees it: rank 0 of a world of 1, no
parallel environment initialised. Collective communication is not emulated."""
from __future__ import annotations

from ..core import PaddleClass

__all__ = ["ParallelEnv", "get_rank", "get_world_size", "is_initialized", "init_parallel_env"]


class ParallelEnv(metaclass=PaddleClass):
    """The trainer's place in a parallel job, read from ``PADDLE_*`` variables; one process
    here."""

    _paddle_path = "paddle.distributed.parallel.ParallelEnv"

    rank = local_rank = 0
    world_size = nranks = 1
    current_endpoint = ""
    device_type = ""

    @property
    def trainer_endpoints(self):
        return [""]

    @property
    def device_id(self):
        raise AttributeError("'ParallelEnv' object has no attribute '_device_id'")

    dev_id = device_id


def get_rank(group=None):
    return 0


def get_world_size(group=None):
    return 1


def is_initialized():
    return False


def init_parallel_env():
    raise NotImplementedError("gradrepl: paddle.distributed.init_parallel_env starts a "
                              "multi-process job, which gradrepl does not emulate (one CPU "
                              "process: get_rank() is 0, get_world_size() is 1)")
