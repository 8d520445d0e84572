"""3-D pooling (and the pooling gradients' summation order) against real Paddle 3.3.1.

``tests/data/pool3d/*_probe.py`` run under Paddle 3.3.1 (``python X_probe.py p``) printed the
``.out`` beside them (the C++ hint line of one error left out); here the same scripts run on
gradrepl (argument ``g``) and must print the same bytes: max/avg/adaptive 3-D pools, masks,
layer reprs, errors, and gradients where overlapping windows add into one input (2-D too);
local_response_norm (composed of pad, avg_pool2d/3d, scale, pow, divide, as Paddle composes it).
"""
import contextlib
import io
import runpy
import sys
from pathlib import Path

import pytest

import gradrepl.paddle as paddle

DATA = Path(__file__).parent / "data" / "pool3d"


@pytest.mark.parametrize("name", ["forward_probe", "grad_probe", "pool2d_grad_probe", "lrn_probe"])
def test_probe_prints_what_paddle_printed(name, monkeypatch):
    monkeypatch.setattr(sys, "argv", [name, "g"])
    buf = io.StringIO()
    try:
        with contextlib.redirect_stdout(buf):
            runpy.run_path(str(DATA / f"{name}.py"), run_name="__main__")
    finally:
        paddle.profiles.set_profile("2.2")
    assert buf.getvalue() == (DATA / f"{name}.out").read_text()
