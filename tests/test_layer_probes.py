"""Layers against real Paddle 3.3.1: 3-D pooling (and the pooling gradients' summation order),
local response norm, batch norm's statistics and the legacy ``nn.BatchNorm``.

``tests/data/layer_probes/*_probe.py`` run under Paddle 3.3.1 (``python X_probe.py p``) printed the
``.out`` beside them (the C++ hint line of one error left out); here the same scripts run on
gradrepl (argument ``g``) and must print the same bytes: max/avg/adaptive 3-D pools, masks,
layer reprs, errors, and gradients where overlapping windows add into one input (2-D too);
local_response_norm (composed of pad, avg_pool2d/3d, scale, pow, divide, as Paddle composes it);
batch norm's batch statistics and running averages as the CPU kernel sums them (Eigen's
vectorised column sums), and the legacy BatchNorm layer.
"""
import contextlib
import io
import runpy
import sys
from pathlib import Path

import pytest

import gradrepl.paddle as paddle
from conftest import skip_if_strided_fmax_is_wrong

DATA = Path(__file__).parent / "data" / "layer_probes"


@pytest.mark.parametrize("name", sorted(p.stem for p in DATA.glob("*_probe.py")))
def test_probe_prints_what_paddle_printed(name, monkeypatch):
    if name == "unpool_probe":   # (the probe that died of it under qemu -cpu Haswell-v4)
        skip_if_strided_fmax_is_wrong(name)
    monkeypatch.setattr(sys, "argv", [name, "g"])
    buf = io.StringIO()
    try:
        with contextlib.redirect_stdout(buf):
            runpy.run_path(str(DATA / f"{name}.py"), run_name="__main__")
    finally:
        paddle.profiles.set_profile("2.2")
    assert buf.getvalue() == (DATA / f"{name}.out").read_text()
