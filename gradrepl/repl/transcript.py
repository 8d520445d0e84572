"""Session files (transcripts): ``>>> ``/``... `` input lines, then the expected output.

(A first version: parse inputs and format a session; replay/check/update live here too.)
"""
from __future__ import annotations

import re

HEADER = re.compile(r"^#\s*gradrepl:\s*paddle\s*=\s*([\w.]+)")


class TranscriptError(ValueError):
    """A file that is not a transcript, with the line that is wrong."""


def inputs_of(text: str, path: str = "<transcript>") -> list[str]:
    """The inputs of a transcript (blocks joined with newlines); a ``.py`` script (no ``>>>``
    line) is one input, run as a whole."""
    from .session import is_complete

    lines = text.splitlines()
    if not any(ln.startswith(">>>") for ln in lines):
        return [text]
    inputs, cur = [], None
    for ln in lines:
        if ln.startswith(">>> ") or ln == ">>>":
            if cur is not None:
                inputs.append("\n".join(cur))
            cur = [ln[4:]]
        elif cur is not None and (ln.startswith("... ") or ln == "...") and \
                not is_complete("\n".join(cur) + "\n"):
            cur.append(ln[4:])
        elif cur is not None:
            inputs.append("\n".join(cur))
            cur = None
    if cur is not None:
        inputs.append("\n".join(cur))
    return [i.rstrip("\n") for i in inputs if i.strip()]


def format_transcript(entries, profile: str | None = None) -> str:
    """``[(input, output)]`` as a session file: the shell's prompts, then the output."""
    out = []
    if profile is not None:
        out.append(f"# gradrepl: paddle={profile}\n")
    for source, output in entries:
        lines = source.split("\n")
        out.append(">>> " + lines[0] + "\n")
        out.extend("... " + ln + "\n" for ln in lines[1:])
        if len(lines) > 1:
            out.append("... \n")
        out.append(output)
    return "".join(out)
