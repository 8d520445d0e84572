"""Probe scripts (autograd API, printing options, in-place versions, clip, tril/triu, misc API)
against what real Paddle printed for them, byte for byte, per version."""
from __future__ import annotations

import pathlib

import pytest

from gradrepl.runner import run_captured

PROBES = pathlib.Path(__file__).resolve().parent / "data" / "probes"
CASES = [(p.stem, v) for p in sorted(PROBES.glob("*.py"))
         for v in ("3.3.1", "2.6.2") if (PROBES / f"{p.stem}.{v}.out").exists()]
PROFILE = {"3.3.1": "3", "2.6.2": "2.6"}


@pytest.mark.parametrize("name,version", CASES)
def test_probe_prints_what_paddle_printed(name, version):
    out, error = run_captured(str(PROBES / f"{name}.py"), PROFILE[version])
    assert error is None, repr(error)
    assert out == (PROBES / f"{name}.{version}.out").read_text(encoding="utf-8")


def test_probes_exist():
    assert len(CASES) >= 10
