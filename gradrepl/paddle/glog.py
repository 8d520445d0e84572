"""The lines real Paddle's C++ core logs to stderr through glog before some exceptions.

glog's prefix is ``Lmmdd hh:mm:ss.uuuuuu  tid file:line] `` (severity letter, local time,
the thread id right-aligned in five columns). Which line a version logs, and from which source
line, is measured per profile: ``NODE_FAILED`` (eager backward.cc, 3.3.1: a grad node that raised)
and ``PLACE`` (place.cc: a GPU place asked of a CPU-only Paddle, 3.3.1 and 2.6.2).
"""
from __future__ import annotations

import datetime
import sys
import threading

from . import profiles

# profile key -> source line; a version absent here logs nothing (2.6.2's backward is silent)
NODE_FAILED = {"3": 685}
PLACE = {"CUDAPlace": {"3": 443, "2.6": 350}, "XPUPlace": {"3": 531, "2.6": 434}}


def log(severity: str, where: str, text: str) -> None:
    """Write one glog record (``severity`` I, W, E or F) the way Paddle's core does."""
    now = datetime.datetime.now()
    tid = threading.get_native_id()
    sys.stderr.write(f"{severity}{now:%m%d %H:%M:%S}.{now.microsecond:06d} {tid:>5} "
                     f"{where}] {text}\n")
    sys.stderr.flush()


def node_failed(node_name: str) -> None:
    """Before an exception out of a grad node: ``While running Node (XGradNode) raises ...``."""
    line = NODE_FAILED.get(profiles.current().key)
    if line is not None:
        log("W", f"backward.cc:{line}",
            f"While running Node ({node_name}) raises an EnforceNotMet exception")


def place_refused(place: str, text: str) -> None:
    """A CUDAPlace/XPUPlace on a CPU-only build: the reason, logged before the error."""
    line = PLACE[place].get(profiles.current().key)
    if line is not None:
        log("E", f"place.cc:{line}", text)
