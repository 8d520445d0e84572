"""``Result``: what one input gave, as the shell shows it and as the commands return it.

Its own module because everything in the shell speaks it: the session makes one per input,
each ``%`` command returns one (``commands.py``), the replay, the handout and the presenter read
them. It imports nothing of gradrepl.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Result:
    output: str = ""                 # the text the shell shows, exactly (ends with "\n" if any)
    value: object = None             # the echoed value, if an expression was echoed
    error: BaseException | None = None
    table: dict | None = None        # {"columns": [...], "rows": [[...]]} for rich rendering
    exit_code: int | None = None     # set when the input asked to leave (exit(), SystemExit)
    frames: list | None = None       # %step: text frames the shell shows one at a time
    kind: str = "statement"          # "statement" | "command" | "empty" | "incomplete"
    streamed: int = 0                # how much of ``output`` was already written to the stream

    @property
    def ok(self):
        return self.error is None
