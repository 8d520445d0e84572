"""``paddle.hapi.progressbar``: the progress bar ``Model.fit`` prints, under its Paddle module
(the drawing is ``callbacks.ProgressBar``'s: ``step  5/13 [====>...] - loss: 2.4348 -
3ms/step``, redrawn with backspaces at verbose 1, a line per update at 2)."""
from __future__ import annotations

import sys
import time

from .callbacks import ProgressBar as _Bar

__all__ = []


class ProgressBar(_Bar):
    """``ProgressBar(num=None, width=30, verbose=1, start=True, file=sys.stdout, name='step')``:
    ``update(current_num, values)`` draws the bar for step ``current_num`` of ``num`` with the
    ``(name, value)`` pairs of ``values``; ``start()`` restarts its clock (what the speed and
    ETA are measured from)."""

    def __init__(self, num=None, width=30, verbose=1, start=True, file=sys.stdout,
                 name="step"):
        super().__init__(num, width, verbose, start, name)
        self.file = file
        self._values = {}
        self._values_order = []
        self._last_update = 0
        if not start:
            del self._start  # as Paddle: an update before start() has no clock to read

    def _get_max_width(self):
        """The widest bar the terminal takes: 60% of its columns, at most columns - 50."""
        from shutil import get_terminal_size

        cols = get_terminal_size()[0] or 80
        return min(int(cols * 0.6), cols - 50)

    def start(self):
        """Flush the file and restart the clock."""
        self.file.flush()
        self._start = time.time()

    def update(self, current_num, values=()):
        super().update(current_num, list(values))
        self._last_update = time.time()


ProgressBar.__module__ = "paddle.hapi.progressbar"
