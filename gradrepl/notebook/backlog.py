"""Which backward runs the notebook logs for ``%step`` and ``%why``: the first few of each cell.

Logging a backward builds the engine's events and snapshots every gradient (a few ms for a small
network's backward): fine for the lesson's ``e.backward()``, a real slowdown for a training loop
of hundreds. :class:`BackwardBudget`, the engine's trace sink while the extension is loaded,
passes the first ``per_cell`` backward runs of each cell on to the logs; from the next one on it
takes itself out of the engine (no trace sink: the loop runs on the fast path) until the
next cell. What it let go is remembered (the first root, weakly, and the span of tensor uids made
while it was out), so ``%step loss`` can say why it has nothing to show. ``%gradrepl --log N`` (``all``, ``0``) changes the budget.
"""
from __future__ import annotations

import weakref
from collections import deque

from ..engine import set_trace_sink, tensor_mark, trace_sink

PER_CELL = 8
KEPT = 16  # unlogged spans remembered


class BackwardBudget:
    def __init__(self, sink, per_cell: int | None = PER_CELL):
        self.sink = sink
        self.per_cell = per_cell       # None: every run
        self.count = 0                 # backward runs begun in this cell
        self.dropping = False
        self.switched_off = False
        self.skipped_roots = deque(maxlen=KEPT)   # weakrefs: roots of runs let go
        self.spans = deque(maxlen=KEPT)           # [first, end) tensor uids made while out

    def __call__(self, item):
        if isinstance(item, tuple) and item and item[0] == "begin":
            self.count += 1
            self.dropping = self.per_cell is not None and self.count > self.per_cell
            if self.dropping:
                for r in item[1]:
                    try:
                        self.skipped_roots.append(weakref.ref(r))
                    except TypeError:
                        pass
                self._switch_off()
                return
        elif self.dropping:
            if isinstance(item, tuple) and item and item[0] == "end":
                self.dropping = False
            return
        self.sink(item)

    def _switch_off(self):
        if trace_sink() is self:
            set_trace_sink(None)
            self.switched_off = True
            self.spans.append([tensor_mark(), None])

    def new_cell(self) -> None:
        """A cell begins: its first ``per_cell`` backward runs are logged again."""
        self.count, self.dropping = 0, False
        if self.spans and self.spans[-1][1] is None:
            self.spans[-1][1] = tensor_mark()
        if self.switched_off and trace_sink() is None:
            set_trace_sink(self)
        self.switched_off = False

    def was_skipped(self, tensor) -> bool:
        """Whether ``tensor``'s backward may have run while the logging was out."""
        if any(r() is tensor for r in self.skipped_roots):
            return True
        uid = getattr(tensor, "_uid", None)
        return uid is not None and any(
            first <= uid and (end is None or uid < end) for first, end in self.spans)
