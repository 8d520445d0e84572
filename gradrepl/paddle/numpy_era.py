"""The numpy a Paddle version ran on, as far as a script's own prints show it.

Paddle 2.x wheels run on numpy 1, where a numpy scalar prints as a plain number
(``list(np.where(m)[0])`` -> ``[0, 4, 8]``); Paddle 3.x runs on numpy 2
(``[np.int64(0), np.int64(4), np.int64(8)]``). gradrepl always runs on numpy 2, so under a
profile with ``numpy1_scalars`` a Paddle script (one that imports paddle; a torch script's
numpy is numpy 2 as torch 2.13's) runs with numpy's own ``legacy="1.25"`` print option, which
restores numpy 1's scalar repr (arrays print the same in both).
"""
from __future__ import annotations

import contextlib
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


@contextlib.contextmanager
def numpy_era(path=None, profile=None):
    """Run the block with the numpy scalar repr of ``profile`` (default: the current one) if
    the script at ``path`` (None: any code) is a Paddle script."""
    prof = profile or profiles.current()
    if (not prof.numpy1_scalars or int(np.__version__.split(".")[0]) < 2
            or (path is not None and not imports_paddle(path))):
        yield
        return
    with np.printoptions(legacy="1.25"):
        yield
