"""The numpy a Paddle script's real Paddle runs on, as far as the script's own prints show it.

Real Paddle runs on the numpy installed beside it, so on the same machine as gradrepl it runs
the numpy gradrepl runs (numpy 2: ``list(np.where(m)[0])`` -> ``[np.int64(0), np.int64(4)]``,
paddle.summary's ``{'total_params': np.int64(61610), ...}``). That holds for Paddle 2.6.2 as
for 3.3.1: this project's machines give real 2.6.2 numpy 2.4.6, and both print numpy 2's
reprs (measured: PM14A's round-14 scripts, 2.6.2 and 3.3.1 alike). An installation of Paddle 2.x
on numpy 1 (as the project's oracle was when shared/conformance's 2.6.2 records were made, numpy
1.26) prints a numpy scalar as a plain number (``[0, 4]``, ``{'total_params': 61610, ...}``):
``GRADREPL_PADDLE_NUMPY=1`` says the real Paddle being compared runs numpy 1, and a Paddle script
(one that imports paddle; a torch script's numpy is torch 2.13's, numpy 2) then runs with numpy's
own ``legacy="1.25"`` print option, which restores numpy 1's scalar repr (arrays print the same
in both). ``GRADREPL_PADDLE_NUMPY=2`` (or unset) is the numpy gradrepl runs on. Paddle 2.2.1
(the profile's ``numpy1_only``) ran on numpy 1 only, whatever the machine has.
"""
from __future__ import annotations

import contextlib
import os
import re

import numpy as np

from . import profiles

_IMPORTS_PADDLE = re.compile(r"^[ \t]*(?:import|from)[ \t]+paddle\b", re.M)


def imports_paddle(path) -> bool:
    """Whether the script at ``path`` has a line ``import paddle...`` / ``from paddle...``."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return bool(_IMPORTS_PADDLE.search(f.read()))
    except OSError:
        return False


def numpy1_scalars() -> bool:
    """Whether the real Paddle compared with prints numpy scalars as numpy 1 does: always for a
    profile that ran on numpy 1 only, else as ``GRADREPL_PADDLE_NUMPY`` (``1`` / ``2``) says,
    else as the numpy this Python runs."""
    if profiles.current().numpy1_only:
        return True
    forced = os.environ.get("GRADREPL_PADDLE_NUMPY", "").strip()
    if forced in ("1", "2"):
        return forced == "1"
    return int(np.__version__.split(".")[0]) < 2


@contextlib.contextmanager
def numpy_era(path=None):
    """Run the block with numpy 1's scalar repr if the real Paddle compared with runs numpy 1
    (``numpy1_scalars``) and the script at ``path`` (None: any code) is a Paddle script."""
    if (not numpy1_scalars() or int(np.__version__.split(".")[0]) < 2
            or (path is not None and not imports_paddle(path))):
        yield
        return
    with np.printoptions(legacy="1.25"):
        yield
