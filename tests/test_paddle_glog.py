"""The glog lines real Paddle's core writes to stderr before some exceptions (issue 28: a
student's script compared line by line with real Paddle must show them too).

Recorded on this machine from real Paddle 3.3.1 and 2.6.2 (2026-12-06): 3.3.1 logs
``W.... backward.cc:685] While running Node (ReluGradNode) raises an EnforceNotMet exception``
before the in-place and freed-graph errors, 2.6.2 logs nothing there; both log ``E.... place.cc:``
(443/350 for CUDAPlace, 531/434 for XPUPlace) with the CPU-only reason before refusing a place.
"""
from __future__ import annotations

import re

import pytest

from gradrepl.paddle import profiles

GLOG = re.compile(r"^([IWEF])(\d{4}) (\d\d:\d\d:\d\d\.\d{6}) +(\d+) ([\w.]+:\d+)\] (.*)$")


def _paddle():
    import gradrepl.paddle as paddle
    return paddle


def _records(err: str):
    return [GLOG.match(line).groups() for line in err.splitlines() if GLOG.match(line)]


def test_inplace_error_logs_the_failing_node_in_3(capsys):
    profiles.set_profile("3")
    paddle = _paddle()
    a = paddle.to_tensor([1., -2., 3.], stop_gradient=False)
    h = paddle.nn.functional.relu(a * 2)
    h.scale_(2.0)
    with pytest.raises(RuntimeError, match=r"\(PermissionDenied\) Tensor '' used in gradient"):
        h.sum().backward()
    recs = _records(capsys.readouterr().err)
    assert len(recs) == 1
    sev, _, _, tid, where, text = recs[0]
    assert (sev, where) == ("W", "backward.cc:685")
    assert text == "While running Node (ReluGradNode) raises an EnforceNotMet exception"
    import threading
    assert int(tid) == threading.get_native_id()


def test_freed_graph_logs_sum_node_in_3_and_nothing_in_2_6(capsys):
    for key, expected in (("3", ["While running Node (SumGradNode) raises an EnforceNotMet "
                                 "exception"]), ("2.6", [])):
        profiles.set_profile(key)
        paddle = _paddle()
        b = paddle.to_tensor([1., 2.], stop_gradient=False)
        y = (b * b).sum()
        y.backward()
        with pytest.raises(SystemError, match="TensorWrappers of SumGradNode"):
            y.backward()
        assert [r[5] for r in _records(capsys.readouterr().err)] == expected


@pytest.mark.parametrize("key,place,line,exc", [
    ("3", "CUDAPlace", 443, ValueError), ("2.6", "CUDAPlace", 350, RuntimeError),
    ("3", "XPUPlace", 531, ValueError), ("2.6", "XPUPlace", 434, RuntimeError)])
def test_refused_place_logs_the_reason(capsys, key, place, line, exc):
    profiles.set_profile(key)
    paddle = _paddle()
    with pytest.raises(exc):
        getattr(paddle, place)(0)
    err = capsys.readouterr().err.splitlines()
    m = GLOG.match(err[0])
    assert m and m.group(1) == "E" and m.group(5) == f"place.cc:{line}"
    kind = "GPU" if place == "CUDAPlace" else "XPU"
    assert m.group(6).startswith(f"Cannot use {kind} because you have installed CPU")
    assert err[2] == f"If you only have CPU, please change {place}(0) to be CPUPlace()."
