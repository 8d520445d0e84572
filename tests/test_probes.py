"""Probe scripts (autograd API, printing options, in-place versions, clip, tril/triu, misc API)
against what real Paddle printed for them, byte for byte, per version."""
from __future__ import annotations

import contextlib
import io
import pathlib

import pytest

from gradrepl.paddle import state
from gradrepl.runner import run_script

PROBES = pathlib.Path(__file__).resolve().parent / "data" / "probes"
CASES = [(p.stem, v) for p in sorted(PROBES.glob("*.py"))
         for v in ("3.3.1", "2.6.2") if (PROBES / f"{p.stem}.{v}.out").exists()]
PROFILE = {"3.3.1": "3", "2.6.2": "2.6"}


@pytest.mark.parametrize("name,version", CASES)
def test_probe_prints_what_paddle_printed(name, version):
    state.reset(PROFILE[version])
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        run_script(str(PROBES / f"{name}.py"))
    assert buf.getvalue() == (PROBES / f"{name}.{version}.out").read_text(encoding="utf-8")


def test_probes_exist():
    assert len(CASES) >= 10
