"""Who sees the backward engine's events: the public way to install a trace sink.

The engine hands every event of every backward run to ``backward.TRACE_SINK`` when one is set
(``run_backward``); with none, it runs without building events. The shell's ``%step`` and
``%why``, the pictures of a script's run and the notebook extension install their logs here,
never by assigning the engine's global themselves.

- ``trace_to(*sinks)``: a context manager; inside it, each backward's events go to ``sinks``
  and then to whatever sink was installed before (sinks are chained, not replaced);
  ``chain=False`` replaces instead. On leaving, the sink that was installed comes back.
- ``trace_sink()`` / ``set_trace_sink(sink)``: the installed sink, and installing one for good
  (it returns the one it replaced), for a log that lives as long as a notebook extension.
"""
from __future__ import annotations

import contextlib

from . import backward


class Tee:
    """A sink that hands each event to several sinks, in order."""

    __slots__ = ("sinks",)

    def __init__(self, sinks):
        self.sinks = tuple(sinks)

    def __call__(self, item):
        for sink in self.sinks:
            sink(item)

    def __repr__(self):
        return f"Tee({', '.join(map(repr, self.sinks))})"


def trace_sink():
    """The sink the engine hands its events to now, or None."""
    return backward.TRACE_SINK


def set_trace_sink(sink):
    """Install ``sink`` (a callable, or None for none) for every backward from now on; return
    the sink it replaces."""
    old, backward.TRACE_SINK = backward.TRACE_SINK, sink
    return old


def _members(sink):
    return sink.sinks if isinstance(sink, Tee) else (() if sink is None else (sink,))


@contextlib.contextmanager
def trace_to(*sinks, chain: bool = True):
    """Inside the block, backward events go to ``sinks`` (None entries are skipped), then to
    the sink installed before (unless ``chain=False``); a sink already installed is not
    called twice. Yields the installed sink."""
    old = backward.TRACE_SINK
    kept = _members(old) if chain else ()
    new = []
    for s in sinks:
        if s is not None and s not in new and s not in kept:
            new.append(s)
    new.extend(kept)
    if not new:
        installed = None
    elif len(new) == 1:
        installed = new[0]
    elif chain and len(new) == len(kept):
        installed = old          # nothing new: leave the installed sink as it is
    else:
        installed = Tee(new)
    backward.TRACE_SINK = installed
    try:
        yield installed
    finally:
        backward.TRACE_SINK = old
