"""Helpers shared by the test modules (pytest puts this folder on sys.path)."""
from __future__ import annotations

from gradrepl.runner import run_captured


def run_source(src: str, profile: str, tmp_path) -> str:
    """stdout of ``src`` run as ``gradrepl run --paddle <profile>`` would, in this process, from
    a fresh state; an exception the script raises is raised here."""
    path = tmp_path / "case.py"
    path.write_text(src)
    out, error = run_captured(str(path), profile)
    if error is not None:
        raise error
    return out
